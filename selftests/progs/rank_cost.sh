#!/bin/sh
# rank_cost.sh [N...]: what a push and a pop cost with N packets queued
# (default 1000 and 64000), in the rank queue (bq/rank.bpf.h) and in a
# bpf_rb_tree of a node per packet (upstream's pattern,
# selftests/bpf/rank_rbtree.bpf.c), on the virtual clock (tools/vmtest
# --icount -- selftests/progs/rank_cost.sh). bpf_rankmark (bin/bpfqdisc_test)
# and bpf_rankrb each hold N datagrams of random marks below 65536 (the
# rank queue in 2^16 buckets of one rank), then let them go; the BPF
# programs' run time (kernel.bpf_stats_enabled) over the N enqueues is the
# mean push cost as the queue grows from 0 to N, over the drain the mean
# pop cost as it shrinks from N to 0 (with the dequeues that find it
# empty, a few). One line per N: "N rank ENQ_NS DEQ_NS rbtree ENQ_NS DEQ_NS
# clamped C". A measurement, not a test.
. "$(dirname "$0")/../kernel/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

BQT="$TOP/bin/bpfqdisc_test"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
[ $# -gt 0 ] || set -- 1000 64000
sysctl -qw kernel.bpf_stats_enabled=1
expect "$BQT" load rankmark --ring-slots 65536 --max-instances 2
[ -e /sys/fs/bpf/rank_rbtree ] ||
	expect bpftool struct_ops register "$TOP/.output/rank_rbtree.bpf.o" /sys/fs/bpf
veth_pair
quiet_va

# held N PROG: "ENQ_NS DEQ_NS" of PROG_enqueue and PROG_dequeue, va's root
# made to hold until released (release, a command).
held() {
	enq0=$(prog_cost "$2_enqueue")
	ip netns exec a "$TOP/bin/udpseq" send $B 9 <"$T/marks" >/dev/null || fail "udpseq send"
	wait_backlog a va "$1" 60 || fail "$2: $(tc_stat a va qlen) of $1 queued"
	enq=$(cost_since "$2_enqueue" "$enq0")
	deq0=$(prog_cost "$2_dequeue")
	$release
	i=0
	while [ "$(tc_stat a va qlen)" != 0 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	echo "$enq $(cost_since "$2_dequeue" "$deq0")"
}
rank_release() {
	expect "$BQT" -n a qdisc change dev va root hold 0
	echo 65535 | ip netns exec a "$TOP/bin/udpseq" send $B 9 $n >/dev/null
}
rbtree_release() { echo 4294967295 | ip netns exec a "$TOP/bin/udpseq" send $B 9 $n >/dev/null; }

for n in "$@"; do
	awk -v n=$n -v s=$n 'BEGIN { srand(s); for (i = 0; i < n; i++) print int(rand() * 65536) }' >"$T/marks"
	ip netns exec a tc qdisc del dev va root 2>/dev/null || true
	expect "$BQT" -n a qdisc add dev va root bpf_rankmark limit $((n + 1)) hold 1 rank_order 16
	release=rank_release
	rank=$(held $n rankmark)
	clamped=$("$BQT" -n a stats -j | "$JGET" '.[0].bpf.clamped')
	expect ip netns exec a tc qdisc replace dev va root bpf_rankrb
	release=rbtree_release
	rbtree=$(held $n rankrb)
	echo "$n rank $rank rbtree $rbtree clamped $clamped"
done
