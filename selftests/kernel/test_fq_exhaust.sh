# More flows than bpf_fq's flow table holds (flows_max 16 here): the
# documented fallback (docs/fq.md) is to reuse the oldest idle flow, and with
# none idle to drop the packet, counted in drops.nomem. 64 connected sockets
# each send 10 datagrams due 4 s from now, so no flow goes idle in time:
# the first 16 flows are queued, the rest dropped. Traffic never stops (the
# 16 flows' packets leave on time; afterwards the same 64 sockets get
# through, reusing idle flows), and nothing fails open unseen: every
# datagram offered is either sent or counted as a drop, in tc -s too.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

veth_pair
quiet_va # its drop counts are compared across reads: only the test sends
leak_baseline
load_kinds fq
expect "$BQ" -n a qdisc replace dev va root bpf_fq flows_max 16 maxrate 10gbit
ip netns exec a ping -q -c 1 -W 2 $B >/dev/null || fail "no ping"
base=$(tc_stat a va packets)

sent=$(ip netns exec a "$FQSEND" -f 64 -c -n 640 -t 4000000000 $B 9)
# bpf_fq's count first: a packet of the kernel's own (neighbour discovery,
# TC_PRIO_CONTROL: band 0, through a flow like any other) may be dropped
# for want of a flow between the two reads.
nomem=$(bstat a va drops.nomem) flows=$(bstat a va flows)
qlen=$(tc_stat a va qlen) drops=$(tc_stat a va drops)
note "64 flows held 4 s, flows_max 16: fqsend '$sent', flows $flows, queued $qlen, nomem drops $nomem"
[ "$flows" -le 16 ] || fail "$flows flows, flows_max 16"
[ "$qlen" -ge 150 ] || fail "only $qlen packets queued: the table's 16 flows should hold 160"
[ "$nomem" -ge 400 ] || fail "drops.nomem $nomem for 480 datagrams that had no flow"
[ "$drops" -ge "$nomem" ] || fail "tc -s shows $drops drops, bpf_fq counted $nomem"

idle() { [ "$(tc_stat a va qlen)" = 0 ]; }
wait_for 10 idle || fail "the held packets never left: qlen $(tc_stat a va qlen)"
out=$(($(tc_stat a va packets) - base))
note "then $out packets left"
[ "$out" -ge 150 ] || fail "only $out of the queued packets left"
# Every datagram offered: sent, or dropped and counted. (A few packets of
# neighbour discovery may ride along: the margin.)
offered=$(echo "$sent" | awk '{ print $2 + $4 }')
seen=$((out + drops))
[ "$seen" -ge "$offered" ] && [ "$seen" -le $((offered + 10)) ] ||
	fail "offered $offered datagrams, qdisc sent $out + dropped $drops"

# The table is full of idle flows now: new ones reuse them. Each datagram
# is held 1 ms and the next comes 3 ms later, so an idle flow is at hand.
nomem0=$(bstat a va drops.nomem) base=$(tc_stat a va packets)
ip netns exec a "$FQSEND" -f 64 -c -n 320 -t 1000000 -i 3000 $B 9 >/dev/null
sleep 0.5
out=$(($(tc_stat a va packets) - base)) nomem=$(($(bstat a va drops.nomem) - nomem0))
note "64 more flows, one datagram each 3 ms: $out sent, $nomem nomem drops, flows $(bstat a va flows)"
[ "$out" -ge 160 ] || fail "only $out of 320 datagrams of 64 new flows got through"
[ "$(bstat a va flows)" -le 16 ] || fail "$(bstat a va flows) flows, flows_max 16"

expect ip netns exec a tc qdisc del dev va root
expect_no_leak fq
exit 0
