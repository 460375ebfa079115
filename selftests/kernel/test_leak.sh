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

wait_backlog a va 500 10 || fail "no queue built: $(ip netns exec a tc -s qdisc show dev va)"
reset_empties a va
note "reset with $queued packets queued"
expect ip -n a link set va up

wait_backlog a va 500 10 || fail "no queue built after reset"
queued=$(tc_stat a va qlen)
expect ip netns exec a tc qdisc del dev va root
note "destroyed with $queued packets queued"

stop_floods
expect_no_leak fifo
exit 0
