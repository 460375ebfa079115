# An empty qdisc, bypassed (tools/kernel-patches/0002): where the kernel has
# bpf_qdisc_set_can_bypass, bpf_fifo and bpf_fq_codel set TCQ_F_CAN_BYPASS
# at .init, as pfifo_fast and fq_codel do, and a packet that finds the
# qdisc empty goes straight to the device: tc counts it, the kind never
# sees it. Where the kernel lacks it, the same objects load and enqueue
# every packet. On both, behind a slow receiver under a flood the queue
# stands and the kind takes the packets again, and at rest its qlen is 0:
# the qlen the kernel's bypass test reads stays exact.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

PINGS=5

if kernel_bypasses; then bypass=1; else bypass=0; fi
note "kernel $(uname -r): bpf_qdisc_set_can_bypass $([ $bypass = 1 ] && echo present || echo absent)"
expect "$BQ" load fifo
expect "$BQ" load fq_codel
veth_pair
slow_receiver
quiet_va
for kind in bpf_fifo bpf_fq_codel; do
	ip netns exec a tc qdisc del dev va root 2>/dev/null || true	# fresh counters
	expect "$BQ" -n a qdisc replace dev va root $kind
	ip netns exec a ping -q -c $PINGS -i 0.2 -W 2 $B >/dev/null || fail "ping through $kind"
	sent=$(tc_stat a va packets) enq=$(bstat a va enqueued)
	note "$kind, $PINGS pings to an empty qdisc: tc sent $sent, $kind enqueued $enq"
	[ "$sent" -ge $PINGS ] || fail "$kind: tc sent $sent packets, $PINGS pings"
	if [ $bypass = 1 ]; then
		[ "$enq" = 0 ] || fail "$kind: enqueued $enq of $sent packets that found it empty, with bypass"
	else
		[ "$enq" = "$sent" ] || fail "$kind: enqueued $enq of $sent sent, without bypass"
	fi
	udp_flood 2
	wait_backlog a va 100 5 || fail "$kind: no standing queue behind the slow receiver"
	stop_floods
	queued=$(bstat a va enqueued)
	note "$kind under a flood: enqueued $queued"
	[ "$queued" -gt "$enq" ] || fail "$kind: enqueued nothing under a flood"
	i=0
	while [ "$(tc_stat a va qlen)" != 0 ]; do
		i=$((i + 1))
		[ $i -le 50 ] || fail "$kind: qlen $(tc_stat a va qlen) 5 s after the flood"
		sleep 0.1
	done
done
exit 0
