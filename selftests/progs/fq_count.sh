#!/bin/dash
# fq_count: what the kernel does around fq and bpf_fq for the same TCP load,
# counted by fentry programs (the kernel's work, not the qdisc's), so that
# bpf_fq's paced path can be held against sch_fq's op by op.
#
#   selftests/progs/fq_count.sh build        (host) .output/fq_count/count.bpf.o
#   tools/vmtest --icount --smp 1 --mem 2048 -- selftests/progs/fq_count.sh run
#       per kind (KINDS, default "fq bpf_fq") and flow count (PS, "1 8"),
#       one iperf3 run of SECS (2) s, ROUNDS (1) times:
#       KIND Pn MBIT/S skbs N segs/skb S per skb: qdisc_run R watchdog_fires W
#       wd_schedule A hrtimer_start H netif_schedule S
#       then the kind's throttle counters and fast-path packets, and each
#       socket's srtt (ss, mid-run).
#       skbs: GSO packets va sent (its tx_packets); segs: tc's packets.
#       With TIMING=1, also fq's enqueue and dequeue ns a call, between
#       fentry and fexit (the probe's own cost included: fq made 2359,
#       2371 Mbit/s with it, one flow, about 2387 without), to hold
#       against bpf_fq's bpf_stats (fq_ab.sh's TESTS rounds). The
#       counters alone cost both kinds alike, a few tenths of a percent.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OBJ=$TOP/.output/fq_count/count.bpf.o

build() {
	mkdir -p "$(dirname "$OBJ")" || exit 1
	cat >"${OBJ%.o}.c" <<'EOF'
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
char LICENSE[] SEC("license") = "GPL";
/*
 * 0 __qdisc_run, 1 qdisc_watchdog (fires), 2 qdisc_watchdog_schedule_range_ns,
 * 3 hrtimer_start_range_ns, 4 __netif_schedule; 8/9 fq_enqueue ns/calls,
 * 10/11 fq_dequeue ns/calls, 12 fq_dequeue calls that gave a packet,
 * 14/15 the entry times.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} fq_count SEC(".maps");
static __always_inline __u64 *at(__u32 k) { return bpf_map_lookup_elem(&fq_count, &k); }
static __always_inline void inc(__u32 k) { __u64 *v = at(k); if (v) *v += 1; }
static __always_inline void mark(__u32 k) { __u64 *v = at(k); if (v) *v = bpf_ktime_get_ns(); }
static __always_inline void span(__u32 t, __u32 s)
{
	__u64 now = bpf_ktime_get_ns(), *t0 = at(t), *ns = at(s), *n = at(s + 1);

	if (t0 && ns && n && *t0) { *ns += now - *t0; *n += 1; *t0 = 0; }
}
SEC("fentry/__qdisc_run") int BPF_PROG(c_run) { inc(0); return 0; }
SEC("fentry/qdisc_watchdog") int BPF_PROG(c_wd) { inc(1); return 0; }
SEC("fentry/qdisc_watchdog_schedule_range_ns") int BPF_PROG(c_arm) { inc(2); return 0; }
SEC("fentry/hrtimer_start_range_ns") int BPF_PROG(c_hrt) { inc(3); return 0; }
SEC("fentry/__netif_schedule") int BPF_PROG(c_sched) { inc(4); return 0; }
SEC("fentry/fq_enqueue") int BPF_PROG(t_e0) { mark(14); return 0; }
SEC("fexit/fq_enqueue") int BPF_PROG(t_e1) { span(14, 8); return 0; }
SEC("fentry/fq_dequeue") int BPF_PROG(t_d0) { mark(15); return 0; }
SEC("fexit/fq_dequeue") int BPF_PROG(t_d1, struct Qdisc *sch, struct sk_buff *ret)
{
	span(15, 10);
	if (ret)
		inc(12);
	return 0;
}
EOF
	cd "$TOP" && clang-19 -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wno-missing-declarations \
		-I.output -I.cache/libbpf/include -c "${OBJ%.o}.c" -o "$OBJ"
}

case ${1:-} in
build) build; exit ;;
run) ;;
*) echo "usage: fq_count.sh build | run" >&2; exit 2 ;;
esac
[ -r "$OBJ" ] || { echo "fq_count: no $OBJ: fq_count.sh build first" >&2; exit 2; }

. "$TOP/selftests/kernel/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"
set +eu
SECS=${SECS:-2} PIN=/sys/fs/bpf/fq_count
modprobe sch_fq
[ -d /sys/fs/bpf/bpfqdisc/fq ] || "$BQ" load fq >/dev/null || { echo "fq_count: cannot load fq" >&2; exit 1; }
ip netns list | grep -qw a || veth_pair
ip netns exec a ping -q -c 1 -W 2 $B >/dev/null
# The first ss of a boot loads the sock_diag modules: not in a measured run
# (it took 4% from whichever kind ran first, srtt 0.5-0.9 ms).
ip netns exec a ss -tin >/dev/null
rm -rf $PIN; mkdir -p $PIN/maps
# autoattach pins each program's link under its name: unpinning fq's
# timing programs detaches them (they slow fq), unless TIMING=1.
bpftool prog loadall "$OBJ" $PIN/progs pinmaps $PIN/maps autoattach >/dev/null ||
	{ echo "fq_count: cannot attach $OBJ" >&2; exit 1; }
[ "${TIMING:-0}" = 1 ] || rm -f $PIN/progs/t_*
counts() { bpftool map dump pinned $PIN/maps/fq_count -j | jq -r '[.[] | .formatted.value] | map(tostring) | join(" ")'; }
txp() { ip netns exec a cat /sys/class/net/va/statistics/tx_packets; }
for r in $(seq ${ROUNDS:-1}); do
	for P in ${PS:-1 8}; do
		for k in $(rotate $r ${KINDS:-fq bpf_fq}); do
			ip netns exec a tc qdisc del dev va root 2>/dev/null
			ip netns exec a tc qdisc add dev va root $k
			iperf_server b
			f=$(mktemp)
			a0=$(counts) s0=$(txp) n0=$(tc_stat a va packets)
			( sleep $((SECS / 2)).5; ip netns exec a ss -tin dst $B:5201 >"$f" ) &
			v=$(iperf_mbps a $B $SECS -P $P)
			wait
			a1=$(counts) s1=$(txp) n1=$(tc_stat a va packets)
			echo "$a0 $a1" | awk -v k=$k -v P=$P -v v=$v -v n=$((s1 - s0)) -v g=$((n1 - n0)) '{
				printf "%s P%s %s Mbit/s skbs %d segs/skb %.2f per skb: qdisc_run %.3f watchdog_fires %.3f wd_schedule %.3f hrtimer_start %.3f netif_schedule %.3f",
					k, P, v, n, g / n, ($17-$1)/n, ($18-$2)/n, ($19-$3)/n, ($20-$4)/n, ($21-$5)/n
				if ($26 > $10 && $28 > $12)
					printf " fq enq %.0f ns deq %.0f ns/call deq/enq %.2f", ($25-$9)/($26-$10), ($27-$11)/($28-$12), ($28-$12)/($26-$10)
				printf "\n" }'
			case $k in
			fq) echo "  $(ip netns exec a tc -s qdisc show dev va root | grep -o 'throttled [0-9]* latency [^ ]*')" ;;
			*) echo "  $("$BQ" -n a stats dev va -j | jq -c '.[0].bpf | {throttled, fastpath_packets, enqueued, unthrottle_latency_ns}')" ;;
			esac
			echo "  srtt/ms $(grep -o ' rtt:[0-9.]*' "$f" | cut -d: -f2 | tr '\n' ' ')"
			rm -f "$f"
		done
	done
done
rm -rf $PIN
