#!/bin/dash
# fq_count: what the kernel does around fq and bpf_fq for the same TCP load,
# counted by fentry programs (the kernel's work, not the qdisc's), so that
# bpf_fq's paced path can be held against sch_fq's op by op.
#
#   selftests/progs/fq_count.sh build        (host) .output/fq_count/count.bpf.o
#   tools/vmtest --icount --smp 1 --mem 2048 -- selftests/progs/fq_count.sh run
#       per kind (KINDS, default "fq bpf_fq"; plug and bpf_floor too, the
#       floor's pair) and flow count (PS, "1 8"),
#       one iperf3 run of SECS (2) s, ROUNDS (1) times:
#       KIND Pn MBIT/S skbs N segs/skb S per skb: qdisc_run R watchdog_fires W
#       wd_schedule A hrtimer_start H netif_schedule S
#       then the kind's throttle counters and fast-path packets, each
#       socket's srtt (ss, mid-run), and per GSO packet the segments the
#       receiver sent (its ACKs: b's TcpOutSegs) and its delayed ACKs
#       (TcpExtDelayedACKs), from the netns's counters, which cost
#       nothing to keep.
#       skbs: GSO packets va sent (its tx_packets); segs: tc's packets.
#       With TIMING=1, also fq's enqueue and dequeue ns a call, between
#       fentry and fexit (the probe's own cost included: fq made 2359,
#       2371 Mbit/s with it, one flow, about 2387 without), to hold
#       against bpf_fq's bpf_stats (fq_ab.sh's TESTS rounds). The
#       counters alone cost both kinds alike, a few tenths of a percent.
#       With TCP=1, also the kernel's work around the qdisc, per GSO
#       packet: calls of TCP's functions (snd/rcv: the sender's socket or
#       iperf3's receiver, port 5201), skb frees, softirqs and timers; and
#       instructions (ns on the virtual clock) spent between fentry and
#       fexit of the paths below, each less the softirqs and hrtimer
#       interrupts that ran inside it (excl): all softirqs, all hrtimer
#       interrupts, the qdisc's enqueue (dev_qdisc_enqueue: the op and
#       its entry) and runs (__qdisc_run: dequeues and the xmit to veth,
#       sch_direct_xmit),
#       TCP's sendmsg, recvmsg, write_xmit and the sender's tcp_ack; then
#       /proc/stat's busy ns and /proc/softirqs, per GSO packet; then
#       each span's ns split by the context it ran in (task, softirq,
#       hrtimer interrupt). sendmsg's and recvmsg's spans also hold what
#       ran while their task slept in them. Counted
#       with the probes' own cost (tens of ns a call), which is the same
#       per call under both kinds.
#       With STATS=1 (bpf_stats on), also bpf_fq's programs' ns per GSO
#       packet and per run: with TCP=1, what its ops cost beyond the
#       programs (dev_qdisc_enqueue's span less the enqueue program's).
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OBJ=$TOP/.output/fq_count/count.bpf.o
TCPOBJ=$TOP/.output/fq_count/tcp.bpf.o

build() {
	mkdir -p "$(dirname "$OBJ")" || exit 1
	{ common; base; } >"${OBJ%.o}.c" && { common; tcp; } >"${TCPOBJ%.o}.c" &&
		cc_bpf "$OBJ" && cc_bpf "$TCPOBJ"
}

cc_bpf() {
	cd "$TOP" && clang-19 -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wno-missing-declarations \
		-I.output -I.cache/libbpf/include -c "${1%.o}.c" -o "$1"
}

# The two objects share the map; TCP=1's programs are their own object,
# attached only when asked for: detaching 60 trampolines made the next
# run 25% slow (1792-1825 Mbit/s against ~2370), whichever kind ran it.
common() {
	cat <<'EOF'
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
char LICENSE[] SEC("license") = "GPL";
/*
 * 0 __qdisc_run, 1 qdisc_watchdog (fires), 2 qdisc_watchdog_schedule_range_ns,
 * 3 hrtimer_start_range_ns, 4 __netif_schedule; 8/9 fq_enqueue ns/calls,
 * 10/11 fq_dequeue ns/calls, 12 fq_dequeue calls that gave a packet,
 * 14/15 the entry times.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 256);
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
EOF
}

base() {
	cat <<'EOF'
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
}

tcp() {
	cat <<'EOF'
/*
 * TCP=1: 16..63 calls (k_*), 64 + 2 * span its ns and calls, 88 + 3 *
 * span + context its ns in each context (at its entry), the entry
 * stamps at 128 + 4 * span + context and the interrupted ns then at
 * 192 + 4 * span + context. Context (key 250): 0 task, 1 softirq, 2
 * hrtimer interrupt (251 the one it interrupted); 252 the ns all
 * softirqs and hrtimer interrupts took, so a span can leave out those
 * that ran inside it (one slot per context: a span interrupted by its
 * own function in a softirq keeps its stamp).
 */
enum { SOFTIRQ, HARDIRQ, RX, TX, SENDMSG, RECVMSG, ENQ, RUN, WXMIT, ACK, DIRECT };
static __always_inline __u32 ctx(void) { __u64 *c = at(250); return c ? *c & 3 : 0; }
static __always_inline void add(__u32 k, __u64 d) { __u64 *v = at(k); if (v) *v += d; }
static __always_inline void sp_in(__u32 s)
{
	__u32 c = ctx();
	__u64 *t = at(128 + 4 * s + c), *i = at(192 + 4 * s + c), *irq = at(252);

	if (t && i && irq) { *t = bpf_ktime_get_ns(); *i = *irq; }
}
static __always_inline __u64 sp_out(__u32 s)
{
	__u32 c = ctx();
	__u64 now = bpf_ktime_get_ns(), d, *t = at(128 + 4 * s + c), *i = at(192 + 4 * s + c), *irq = at(252);

	if (!t || !i || !irq || !*t)
		return 0;
	d = now - *t - (*irq - *i);
	*t = 0;
	add(64 + 2 * s, d);
	add(65 + 2 * s, 1);
	add(88 + 3 * s + c, d);
	return d;
}
/* 0 the sender, 1 the receiver (iperf3's port), 2 neither */
static __always_inline __u32 side(struct sock *sk)
{
	if (BPF_CORE_READ(sk, __sk_common.skc_num) == 5201)
		return 1;
	return BPF_CORE_READ(sk, __sk_common.skc_dport) == bpf_htons(5201) ? 0 : 2;
}
static __always_inline void by_side(__u32 k, struct sock *sk) { __u32 s = side(sk); if (s < 2) inc(k + s); }
SEC("fentry/handle_softirqs") int BPF_PROG(k_sirq0) { __u64 *c = at(250); if (c) *c = 1; sp_in(SOFTIRQ); return 0; }
SEC("fexit/handle_softirqs") int BPF_PROG(k_sirq1)
{
	__u64 d = sp_out(SOFTIRQ), *c = at(250);

	add(252, d);
	if (c) *c = 0;
	inc(31);
	return 0;
}
SEC("fentry/hrtimer_interrupt") int BPF_PROG(k_hrt0)
{
	__u64 *c = at(250), *was = at(251);

	if (c && was) { *was = *c; *c = 2; }
	sp_in(HARDIRQ);
	return 0;
}
SEC("fexit/hrtimer_interrupt") int BPF_PROG(k_hrt1)
{
	__u64 d = sp_out(HARDIRQ), *c = at(250), *was = at(251);

	add(252, d);
	if (c && was) *c = *was;
	inc(28);
	return 0;
}
#define SPAN(fn, s) \
	SEC("fentry/" #fn) int BPF_PROG(k_##fn##_0) { sp_in(s); return 0; } \
	SEC("fexit/" #fn) int BPF_PROG(k_##fn##_1) { sp_out(s); return 0; }
SPAN(net_rx_action, RX)
SPAN(net_tx_action, TX)
SPAN(tcp_recvmsg, RECVMSG)
SPAN(dev_qdisc_enqueue, ENQ)
SPAN(__qdisc_run, RUN)
SPAN(tcp_write_xmit, WXMIT)
SPAN(sch_direct_xmit, DIRECT)
SEC("fentry/tcp_sendmsg") int BPF_PROG(k_snd0, struct sock *sk) { inc(38); sp_in(SENDMSG); return 0; }
SEC("fexit/tcp_sendmsg") int BPF_PROG(k_snd1) { sp_out(SENDMSG); return 0; }
SEC("fentry/tcp_ack") int BPF_PROG(k_ack0, struct sock *sk)
{
	by_side(16, sk);
	if (side(sk) == 0)
		sp_in(ACK);
	return 0;
}
SEC("fexit/tcp_ack") int BPF_PROG(k_ack1, struct sock *sk) { if (side(sk) == 0) sp_out(ACK); return 0; }
#define SIDED(fn, k) SEC("fentry/" #fn) int BPF_PROG(k_##fn, struct sock *sk) { by_side(k, sk); return 0; }
#define COUNT(fn, k) SEC("fentry/" #fn) int BPF_PROG(k_##fn) { inc(k); return 0; }
SIDED(tcp_rcv_established, 18)
COUNT(tcp_write_xmit, 20)
SIDED(__tcp_transmit_skb, 21)
COUNT(tcp_send_delayed_ack, 23)
COUNT(__tcp_send_ack, 24)
COUNT(tcp_delack_timer, 25)
COUNT(tcp_wfree, 26)
COUNT(tcp_tsq_workfn, 27)
COUNT(net_tx_action, 29)
COUNT(net_rx_action, 30)
COUNT(__kfree_skb, 32)
COUNT(consume_skb, 33)
COUNT(napi_consume_skb, 34)
COUNT(kfree_skbmem, 35)
COUNT(skb_attempt_defer_free, 36)
COUNT(tcp_v4_rcv, 37)
COUNT(tcp_recvmsg, 39)
SIDED(tcp_release_cb, 40)
SIDED(__release_sock, 41)
COUNT(__dev_queue_xmit, 42)
COUNT(__netif_rx, 43)
COUNT(process_backlog, 44)
COUNT(tcp_event_new_data_sent, 45)
SIDED(tcp_rearm_rto, 46)
SIDED(tcp_schedule_loss_probe, 48)
COUNT(tcp_pace_kick, 62)
COUNT(tcp_rcv_space_adjust, 50)
COUNT(tcp_cleanup_rbuf, 51)
COUNT(tcp_data_queue, 52)
COUNT(__alloc_skb, 53)
COUNT(tcp_stream_alloc_skb, 54)
COUNT(run_ksoftirqd, 55)
COUNT(tcp_tsq_write, 56)
COUNT(cubictcp_cong_avoid, 57)
COUNT(cubictcp_acked, 58)
COUNT(tcp_write_timer, 59)
COUNT(dev_qdisc_enqueue, 60)
EOF
}

case ${1:-} in
build) build; exit ;;
run) ;;
*) echo "usage: fq_count.sh build | run" >&2; exit 2 ;;
esac
[ -r "$OBJ" ] && [ -r "$TCPOBJ" ] || { echo "fq_count: no $OBJ: fq_count.sh build first" >&2; exit 2; }

. "$TOP/selftests/kernel/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"
set +eu
SECS=${SECS:-2} PIN=/sys/fs/bpf/fq_count
modprobe sch_fq
[ -d /sys/fs/bpf/bpfqdisc/fq ] || "$BQ" load fq >/dev/null || { echo "fq_count: cannot load fq" >&2; exit 1; }
case " ${KINDS:-} " in *" bpf_floor "*)
	floor_register || { echo "fq_count: cannot register bpf_floor" >&2; exit 1; } ;;
esac
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
if [ "${TCP:-0}" = 1 ]; then
	bpftool prog loadall "$TCPOBJ" $PIN/tcp map name fq_count pinned $PIN/maps/fq_count autoattach >/dev/null ||
		{ echo "fq_count: cannot attach $TCPOBJ" >&2; exit 1; }
fi
sysctl -qw kernel.bpf_stats_enabled="${STATS:-0}"
# acks: b's TcpOutSegs and TcpExtDelayedACKs (the receiver's ACKs).
acks() {
	ip netns exec b cat /proc/net/snmp /proc/net/netstat | awk '
		$1 == "Tcp:" || $1 == "TcpExt:" { if (!h[$1]) { for (i = 2; i <= NF; i++) f[$1 $i] = i; h[$1] = 1; next }
			v[$1] = $0 }
		END { split(v["Tcp:"], t); split(v["TcpExt:"], x); print t[f["Tcp:OutSegs"]], x[f["TcpExt:DelayedACKs"]] }'
}
# busy: /proc/stat's user nice system irq softirq, ns (USER_HZ ticks).
busy() { awk '/^cpu / { print $2, $3, $4, $7, $8; exit }' /proc/stat; }
softirqs() { awk '/NET_TX|NET_RX|TIMER|HRTIMER|TASKLET|SCHED|RCU/ { printf "%s ", $2 }' /proc/softirqs; }
# bpf_report (STATS=1): bpf_fq's programs' ns per GSO packet ($s1 - $s0)
# since prog_cost gave $e0 and $d0.
bpf_report() {
	echo "$e0 $d0 $(prog_cost fq_enqueue) $(prog_cost fq_dequeue)" | awk -v n=$((s1 - s0)) '{
		printf "  bpf_stats per skb: enqueue %.0f (%.0f a run) dequeue %.0f (%.0f a run, %.2f runs)\n",
			($5 - $1) / n, ($5 - $1) / ($6 - $2), ($7 - $3) / n, ($7 - $3) / ($8 - $4), ($8 - $4) / n }'
}
# tcp_report (TCP=1): the calls and spans that moved, per GSO packet sent
# ($s1 - $s0), from the map's dumps $a0 and $a1.
tcp_report() {
	echo "$a0 $a1 $b0 $b1 $q0 $q1" | awk -v n=$((s1 - s0)) '
	BEGIN {
		split("tcp_ack:snd tcp_ack:rcv tcp_rcv_established:snd tcp_rcv_established:rcv tcp_write_xmit " \
		      "__tcp_transmit_skb:snd __tcp_transmit_skb:rcv tcp_send_delayed_ack __tcp_send_ack " \
		      "tcp_delack_timer tcp_wfree tcp_tsq_workfn hrtimer_interrupt net_tx_action net_rx_action " \
		      "handle_softirqs __kfree_skb consume_skb napi_consume_skb kfree_skbmem skb_attempt_defer_free " \
		      "tcp_v4_rcv tcp_sendmsg tcp_recvmsg tcp_release_cb:snd tcp_release_cb:rcv __dev_queue_xmit " \
		      "__netif_rx process_backlog tcp_event_new_data_sent tcp_rearm_rto:snd tcp_rearm_rto:rcv " \
		      "tcp_schedule_loss_probe:snd tcp_schedule_loss_probe:rcv tcp_rcv_space_adjust tcp_cleanup_rbuf " \
		      "tcp_data_queue __alloc_skb tcp_stream_alloc_skb run_ksoftirqd tcp_tsq_write cubictcp_cong_avoid " \
		      "cubictcp_acked tcp_write_timer dev_qdisc_enqueue __release_sock tcp_pace_kick", name, " ")
		split("16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 " \
		      "48 49 50 51 52 53 54 55 56 57 58 59 60 61 62", key, " ")
		split("softirqs hrtimer_irq net_rx_action net_tx_action tcp_sendmsg tcp_recvmsg dev_qdisc_enqueue " \
		      "__qdisc_run tcp_write_xmit tcp_ack:snd sch_direct_xmit", span, " ")
		split("user nice system irq softirq", col, " ")
		split("TIMER NET_TX NET_RX TASKLET SCHED HRTIMER RCU", sirq, " ")
	}
	{
		printf "  calls per skb:"
		for (i = 1; i in name; i++)
			if ($(key[i] + 257) > $(key[i] + 1))
				printf " %s %.3f", name[i], ($(key[i] + 257) - $(key[i] + 1)) / n
		printf "\n  excl ns per skb (ns a call):"
		for (i = 1; i in span; i++) {
			ns = $(64 + 2 * (i - 1) + 257) - $(64 + 2 * (i - 1) + 1)
			c = $(65 + 2 * (i - 1) + 257) - $(65 + 2 * (i - 1) + 1)
			if (c > 0)
				printf " %s %.0f (%.0f)", span[i], ns / n, ns / c
		}
		printf "\n  excl ns per skb in task/softirq/hrtimer irq:"
		for (i = 1; i in span; i++) {
			k = 88 + 3 * (i - 1)
			printf " %s %.0f/%.0f/%.0f", span[i], ($(k + 257) - $(k + 1)) / n,
				($(k + 258) - $(k + 2)) / n, ($(k + 259) - $(k + 3)) / n
		}
		printf "\n  /proc/stat ns per skb:"
		for (i = 1; i <= 5; i++)
			printf " %s %.0f", col[i], ($(517 + i) - $(512 + i)) * 10000000 / n
		printf "\n  /proc/softirqs per skb:"
		for (i = 1; i <= 7; i++)
			printf " %s %.3f", sirq[i], ($(529 + i) - $(522 + i)) / n
		printf "\n"
	}'
}
counts() { bpftool map dump pinned $PIN/maps/fq_count -j | jq -r '[.[] | .formatted.value] | map(tostring) | join(" ")'; }
txp() { ip netns exec a cat /sys/class/net/va/statistics/tx_packets; }
add_root() {
	case $1 in
	plug) plug_fifo a va ;;
	*) ip netns exec a tc qdisc add dev va root $1 ;;
	esac
}
for r in $(seq ${ROUNDS:-1}); do
	for P in ${PS:-1 8}; do
		for k in $(rotate $r ${KINDS:-fq bpf_fq}); do
			ip netns exec a tc qdisc del dev va root 2>/dev/null
			add_root $k
			iperf_server b
			f=$(mktemp)
			[ "${STATS:-0}" = 1 ] && e0=$(prog_cost fq_enqueue) d0=$(prog_cost fq_dequeue)
			k0=$(acks)
			a0=$(counts) s0=$(txp) n0=$(tc_stat a va packets) b0=$(busy) q0=$(softirqs)
			( sleep $((SECS / 2)).5; ip netns exec a ss -tin dst $B:5201 >"$f" ) &
			v=$(iperf_mbps a $B $SECS -P $P)
			wait
			a1=$(counts) s1=$(txp)
			k1=$(acks) n1=$(tc_stat a va packets) b1=$(busy) q1=$(softirqs)
			echo "$a0 $a1" | awk -v k=$k -v P=$P -v v=$v -v n=$((s1 - s0)) -v g=$((n1 - n0)) '{
				printf "%s P%s %s Mbit/s skbs %d segs/skb %.2f per skb: qdisc_run %.3f watchdog_fires %.3f wd_schedule %.3f hrtimer_start %.3f netif_schedule %.3f",
					k, P, v, n, g / n, ($257-$1)/n, ($258-$2)/n, ($259-$3)/n, ($260-$4)/n, ($261-$5)/n
				if ($266 > $10 && $268 > $12)
					printf " fq enq %.0f ns deq %.0f ns/call deq/enq %.2f", ($265-$9)/($266-$10), ($267-$11)/($268-$12), ($268-$12)/($266-$10)
				printf "\n" }'
			case $k in
			fq) echo "  $(ip netns exec a tc -s qdisc show dev va root | grep -o 'throttled [0-9]* latency [^ ]*')" ;;
			*) echo "  $("$BQ" -n a stats dev va -j | jq -c '.[0].bpf | {throttled, fastpath_packets, enqueued, unthrottle_latency_ns}')" ;;
			esac
			echo "  srtt/ms $(grep -o ' rtt:[0-9.]*' "$f" | cut -d: -f2 | tr '\n' ' ')"
			echo "$k0 $k1" | awk -v n=$((s1 - s0)) '{ printf "  receiver per skb: segments sent %.3f delayed ACKs %.3f\n", ($3 - $1) / n, ($4 - $2) / n }'
			[ "${TCP:-0}" = 1 ] && tcp_report
			case ${STATS:-0}$k in 1bpf_fq) bpf_report ;; esac
			rm -f "$f"
		done
	done
done
rm -rf $PIN
sysctl -qw kernel.bpf_stats_enabled=0
