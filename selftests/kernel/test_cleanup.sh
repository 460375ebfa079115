# The runner's cleanup_all (lib.sh) leaves nothing of a test behind, even
# one that ends mid-flood: no namespace, no flood, no NAPI thread. A
# deleted veth's threaded NAPI thread outlived the old cleanup_all after a
# flood into the slow receiver (1 round in 6 on the virtual clock), and the
# next test's slow_receiver failed to renice it once it was gone.
. "$(dirname "$0")/lib.sh"

for round in 1 2 3; do
	veth_pair
	slow_receiver
	expect ip netns exec a tc qdisc replace dev va root pfifo limit 1000
	udp_flood 60
	wait_backlog a va 500 10 || fail "no queue built: $(ip netns exec a tc -s qdisc show dev va)"
	expect cleanup_all
	[ -z "$(ip netns list)" ] || fail "round $round: namespaces left: $(ip netns list | tr '\n' ' ')"
	[ -z "$(pgrep '^napi/')" ] || fail "round $round: NAPI threads left: $(pgrep -l '^napi/' | tr '\n' ' ')"
	[ -z "$(pgrep udpflood)" ] || fail "round $round: a flood is still running"
done
note "3 rounds of a flood cut off by cleanup_all left nothing behind"
exit 0
