# More qdisc instances than --max-instances: with 2 slots, a third qdisc's
# init fails, tc says "No space left on device" (and bpfqdisc, in one line),
# the two live ones keep working, and a slot freed by a delete is usable
# again. Afterwards no slot is owned, and the skbuff slab and the maps'
# memory are back to their baselines.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"

veth_pair
ip -n a link add dummy0 type dummy
ip -n a link set dummy0 up
leak_baseline

expect "$BQ" load fifo --max-instances 2 >/dev/null
expect ip netns exec a tc qdisc replace dev va root bpf_fifo
expect ip netns exec b tc qdisc replace dev vb root bpf_fifo
expect_err 2 "No space left on device" ip netns exec a tc qdisc replace dev dummy0 root bpf_fifo
expect_err 1 "No space left on device" "$BQ" -n a qdisc replace dev dummy0 root bpf_fifo
[ "$(slots_used fifo)" = 2 ] || fail "$(slots_used fifo) slots owned by 2 qdiscs"
[ "$(qdisc_kind a dummy0)" != bpf_fifo ] || fail "dummy0 got a bpf_fifo anyway"
expect ip netns exec a ping -q -c 3 -i 0.2 -W 2 $B >/dev/null
expect ip netns exec b tc qdisc del dev vb root
expect ip netns exec a tc qdisc replace dev dummy0 root bpf_fifo
note "instances: the third of --max-instances 2 refused; after a delete it fits"
expect ip netns exec a tc qdisc del dev dummy0 root
expect ip netns exec a tc qdisc del dev va root
expect_no_leak fifo
exit 0
