# Reset (link down) and destroy (delete) of bpf_fq with packets queued in
# many flows free every skb and every flow: the skbuff slab returns to its
# baseline (within 400 of the packets freed: reliability_lib.sh), and after
# a reset the flow table is empty.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

load_fq
veth_pair
slow_receiver
expect "$BQ" -n a qdisc replace dev va root bpf_fq flow_limit 2000
SLAB0=$(skb_slab)
udp_flood 25
# Many flows too, some held by future departure times (the throttled heap).
ip netns exec a "$FQSEND" -f 64 -c -n 640 -t 5000000000 $B 9 >/dev/null

wait_backlog a va 500 10 || fail "no queue built: $(ip netns exec a tc -s qdisc show dev va)"
flows=$(bstat a va flows)
reset_empties a va
LEAK_OPS=$queued
note "reset with $queued packets queued in $flows flows"
[ "$(bstat a va flows)" = 0 ] || fail "$(bstat a va flows) flows after reset"
[ "$(bstat a va resets)" = 1 ] || fail "resets $(bstat a va resets)"
expect ip -n a link set va up

ip netns exec a "$FQSEND" -f 64 -c -n 640 -t 5000000000 $B 9 >/dev/null
wait_backlog a va 500 10 || fail "no queue built after reset"
queued=$(tc_stat a va qlen)
flows=$(bstat a va flows)
expect ip netns exec a tc qdisc del dev va root
LEAK_OPS=$((LEAK_OPS + queued))
note "destroyed with $queued packets queued in $flows flows"

stop_floods
expect_slab_back
note "skbuff slab: baseline $SLAB0, after $(skb_slab)"
exit 0
