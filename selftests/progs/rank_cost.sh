#!/bin/sh
# rank_cost.sh [N...]: what a push and a pop of the rank queue cost with N
# packets queued (default 1000 and 64000), on the virtual clock
# (tools/vmtest --icount -- selftests/progs/rank_cost.sh). bpf_rankmark
# (bin/bpfqdisc_test) holds N datagrams of random marks below 65536 in
# 2^16 buckets of one rank, then lets them go; the BPF programs' run time
# (kernel.bpf_stats_enabled) over the N enqueues is the mean push cost as
# the queue grows from 0 to N, over the drain the mean pop cost as it
# shrinks from N to 0 (with the dequeues that find it empty, a few). One
# line per N: "N enqueue_ns dequeue_ns". A measurement, not a test.
. "$(dirname "$0")/../kernel/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

BQT="$TOP/bin/bpfqdisc_test"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
[ $# -gt 0 ] || set -- 1000 64000
sysctl -qw kernel.bpf_stats_enabled=1
expect "$BQT" load rankmark --ring-slots 65536 --max-instances 2
veth_pair
quiet_va
for n in "$@"; do
	ip netns exec a tc qdisc del dev va root 2>/dev/null || true
	expect "$BQT" -n a qdisc add dev va root bpf_rankmark limit $((n + 1)) hold 1 rank_order 16
	awk -v n=$n -v s=$n 'BEGIN { srand(s); for (i = 0; i < n; i++) print int(rand() * 65536) }' >"$T/marks"
	enq0=$(prog_cost rankmark_enqueue)
	ip netns exec a "$TOP/bin/udpseq" send $B 9 <"$T/marks" >/dev/null || fail "udpseq send"
	wait_backlog a va $n 60 || fail "$(tc_stat a va qlen) of $n queued"
	enq=$(cost_since rankmark_enqueue "$enq0")
	deq0=$(prog_cost rankmark_dequeue)
	expect "$BQT" -n a qdisc change dev va root hold 0
	echo 65535 | ip netns exec a "$TOP/bin/udpseq" send $B 9 $n >/dev/null
	i=0
	while [ "$(tc_stat a va qlen)" != 0 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	deq=$(cost_since rankmark_dequeue "$deq0")
	echo "$n $enq $deq clamped $("$BQT" -n a stats -j | "$JGET" '.[0].bpf.clamped')"
done
