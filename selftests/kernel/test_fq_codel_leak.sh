# bpf_fq_codel: reset (link down) and destroy (delete) with packets queued
# free every skb, and its counters stay in step with the kernel's qlen
# through CoDel's drops at dequeue (bq_drop_queued): enqueued = dequeued +
# drops at rest. CoDel is held off (target 10s) so that a queue of 500
# builds for reset and destroy to find; then on (target 1ms) so that it
# drops at dequeue.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

# balanced: at rest, every packet the instance took left or was dropped,
# and qdisc's qlen, backlog and drops (written by BPF) agree with it.
balanced() {
	s=$("$BQ" -n a stats dev va -j)
	echo "$s" | jq -e '.[0] as $q | $q.bpf.enqueued == $q.bpf.dequeued + ($q.bpf.drops | add) and
		($q.bpf.drops | add) == $q.drops and $q.qlen == 0 and $q.backlog == 0 and
		$q.bpf.memory_used == 0' >/dev/null ||
		fail "counters out of step at rest: $s"
}

veth_pair
slow_receiver
leak_baseline
expect "$BQ" load fq_codel
# CoDel on: it drops at dequeue; once the flood stops and the queue drains,
# the books balance (before any reset: a reset frees packets uncounted).
expect "$BQ" -n a qdisc replace dev va root bpf_fq_codel target 1ms interval 10ms
udp_flood 60
wait_for 20 sh -c "[ \$(\"$BQ\" -n a stats dev va -j | \"$JGET\" '.[0].bpf.drops.codel') -gt 100 ]" ||
	fail "CoDel dropped nothing at 1ms: $("$BQ" -n a stats dev va)"
stop_floods
wait_for 20 sh -c "[ \$(ip netns exec a tc -s -j qdisc show dev va root | \"$JGET\" '.[0].qlen') = 0 ]" ||
	fail "queue did not drain"
balanced
note "CoDel: $(bstat a va drops.codel) dropped at dequeue; at rest: $("$BQ" -n a stats dev va | tr '\n' ' ')"

# CoDel off: a queue builds.
udp_flood 60
expect "$BQ" -n a qdisc change dev va root target 10s interval 10s

reset_then_destroy a va

stop_floods
expect_no_leak fq_codel
exit 0
