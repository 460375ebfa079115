# Reset (link down) and destroy (delete) with packets queued free every
# skb: the skbuff slab returns to its baseline, and once bpf_fifo is
# unloaded so does the maps' memory. At least 1000 skbs are queued in all;
# sockets, NAPI caches and neighbours hold up to ~150 more for a while
# whatever the qdisc, so the margin is 400 (reliability_lib.sh).
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"

veth_pair
slow_receiver
leak_baseline
expect "$BQ" load fifo
expect ip netns exec a tc qdisc replace dev va root bpf_fifo
udp_flood 40

reset_then_destroy a va

stop_floods
expect_no_leak fifo
exit 0
