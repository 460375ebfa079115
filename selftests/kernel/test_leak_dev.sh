# Deleting, under load, what a qdisc hangs off: the veth (link del) and the
# network namespace the veth lives in (netns del; the kernel destroys its
# devices later, from a work queue). bpf_fifo and bpf_fq, each with packets
# queued at the time: afterwards no instance is left (slots, bpfqdisc list),
# and the skbuff slab and the BPF maps' memory are back to their baselines.
# Each packet queued when its device went is an operation (LEAK_OPS).
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"

# loaded_pair KIND [PARAM VALUE]...: the veth pair, slow receiver, flood
# and KIND's queue.
loaded_pair() {
	veth_pair
	slow_receiver
	expect "$BQ" -n a qdisc replace dev va root "$@"
	expect ip netns exec b tc qdisc replace dev vb root "$1"
	udp_flood 60
	wait_backlog a va 200 10 || fail "$1: no queue built: $(ip netns exec a tc -s qdisc show dev va)"
}

slots_free() { [ $(($(slots_used fifo) + $(slots_used fq))) = 0 ]; }

leak_baseline
load_kinds fifo fq
# One flood is one flow: bpf_fq queues flow_limit packets of it.
for kind in bpf_fifo bpf_fq; do
	params=
	[ $kind = bpf_fifo ] || params="flow_limit 2000"
	# shellcheck disable=SC2086
	loaded_pair $kind $params
	queued=$(tc_stat a va qlen)
	LEAK_OPS=$((${LEAK_OPS:-0} + queued))
	expect ip -n a link del va
	note "$kind: veth deleted with $queued packets queued"
	stop_floods
	wait_for 10 slots_free || fail "$kind: slots still owned after the veth went: $("$BQ" list)"
	expect ip netns del a
	expect ip netns del b

	# shellcheck disable=SC2086
	loaded_pair $kind $params
	queued=$(tc_stat a va qlen)
	LEAK_OPS=$((LEAK_OPS + queued))
	expect ip netns del a
	note "$kind: netns deleted with $queued packets queued"
	stop_floods
	expect ip netns del b
	wait_for 20 slots_free || fail "$kind: slots still owned after the netns went: $("$BQ" list)"
done
expect_no_leak fifo fq
exit 0
