# An empty qdisc: sch_fq_codel sends a packet that finds it empty straight
# to the device (TCQ_F_CAN_BYPASS), in no bucket; bpf_fq_codel, which
# cannot set that flag on a stock kernel, keeps such a packet aside unhashed
# and gives it to the next dequeue (direct_packets); on a kernel with
# tools/kernel-patches/0002 it is bypassed as well. Pings 0.2 s apart each find the qdisc
# empty: neither fq_codel counts a new flow. Behind a slow receiver, under
# a flood, the queue stands and packets take the buckets again, in both.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"
. "$TOP/selftests/progs/fq_codel_lib.sh"

PINGS=5

fqc_setup
quiet_va
for kind in fq_codel bpf_fq_codel; do
	ip netns exec a tc qdisc del dev va root 2>/dev/null || true	# fresh counters
	fqc_root $kind
	ip netns exec a ping -q -c $PINGS -i 0.2 -W 2 $B >/dev/null || fail "ping through $kind"
	[ $kind = fq_codel ] && new=$(kstat a va new_flow_count) || new=$(bstat a va new_flow_count)
	note "$kind, $PINGS pings to an empty qdisc: new_flow_count $new, packets $(tc_stat a va packets)"
	[ "$new" = 0 ] || fail "$kind: new_flow_count $new after pings to an empty qdisc"
done
direct=$(bstat a va direct_packets)
if kernel_bypasses; then
	# The kernel bypasses bpf_fq_codel too (test_bypass): nothing reaches it.
	[ "$direct" = 0 ] && [ "$(bstat a va enqueued)" = 0 ] ||
		fail "direct_packets $direct of $(bstat a va enqueued) enqueued, with the kernel's bypass"
else
	[ "$direct" = "$(bstat a va enqueued)" ] && [ "$direct" -ge $PINGS ] ||
		fail "direct_packets $direct of $(bstat a va enqueued) enqueued, $PINGS pings"
fi

for kind in fq_codel bpf_fq_codel; do
	ip netns exec a tc qdisc del dev va root 2>/dev/null || true
	fqc_root $kind
	udp_flood 2
	wait_backlog a va 100 5 || fail "$kind: no standing queue behind the slow receiver"
	# The previous kind's flood may still fill vb's ring: the queue can
	# stand before a packet of it has left. Judge it once it moves.
	wait_stat a va packets 200 5 || fail "$kind: sent $(tc_stat a va packets) packets in 5 s under a flood"
	stop_floods
	[ $kind = fq_codel ] && new=$(kstat a va new_flow_count) || new=$(bstat a va new_flow_count)
	note "$kind under a flood: new_flow_count $new, packets $(tc_stat a va packets)"
	[ "$new" -ge 1 ] || fail "$kind: no new flow counted under a flood"
done
[ "$(bstat a va direct_packets)" -lt "$(bstat a va enqueued)" ] ||
	fail "every packet direct under a flood: $(bstat a va direct_packets) of $(bstat a va enqueued)"
[ "$(bstat a va maxpacket)" -gt 0 ] || fail "CoDel saw no packet under a flood"
exit 0
