# With a queue that really builds (slow receiver), bpf_fifo holds at most
# `limit` packets and counts every tail drop in tc -s and in its own stats.
. "$(dirname "$0")/lib.sh"

expect "$BQ" load fifo limit 50
veth_pair
# Only the flood may meet the full queue: a kernel packet (IPv6 router
# solicitation, ARP) dropped between two reads of the counters made
# overlimits differ from drops once.
quiet_va
slow_receiver
expect ip netns exec a tc qdisc replace dev va root bpf_fifo
udp_flood 5
# Sample the queue while it is full; the flood starves the CPUs, so a
# sample may come late.
wait_backlog a va 20 5 || fail "no queue built: $(ip netns exec a tc -s qdisc show dev va)"
max=0
for i in 1 2 3 4 5; do
	q=$(tc_stat a va qlen)
	[ "$q" -le "$max" ] || max=$q
done
stop_floods
note "max qlen seen $max; $(ip netns exec a tc -s qdisc show dev va | grep Sent)"
# One more than the limit: the skb the kernel peeked and holds for requeue.
[ "$max" -le 51 ] || fail "qlen $max above limit 50"
stats=$(ip netns exec a tc -s -j qdisc show dev va root)
drops=$(echo "$stats" | "$JGET" '.[0].drops')
over=$(echo "$stats" | "$JGET" '.[0].overlimits')
[ "$drops" -gt 0 ] || fail "no drops under overload"
[ "$over" = "$drops" ] || fail "overlimits $over != drops $drops"
own=$("$BQ" list | awk '/^    enqueued/ { print $8 }')
[ "$own" = "$drops" ] || fail "bpfqdisc counted $own drops, tc $drops"
hwm=$("$BQ" -n a stats -j | "$JGET" '.[0].bpf.qlen_max')
note "high-water mark $hwm"
[ "$hwm" = 50 ] || fail "queue high-water mark $hwm, limit 50"
exit 0
