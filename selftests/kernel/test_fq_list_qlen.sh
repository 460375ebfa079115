# bpfqdisc list shows the queue length the kernel has (as qdisc show and
# tc do), for bpf_fq too, whose packets are in the skb pool, not in a
# FIFO ring the framework counts. Packets held by future departure times
# keep the queue still, so the two must agree exactly; then a flood into a
# slow receiver, where the queue moves, must show a queue there too.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

# list_qlen: the qlen that bpfqdisc list shows for a's va (one instance).
list_qlen() { "$BQ" -n a list | awk '/^  dev va /{ on = 1; next } on && /^    enqueued/ { print $NF; exit }'; }

load_fq
veth_pair
quiet_va # only the test's packets: the queue stays as they left it
expect "$BQ" -n a qdisc replace dev va root bpf_fq
ip netns exec a "$FQSEND" -f 8 -c -n 200 -t 4000000000 $B 9 >/dev/null
tcq=$(tc_stat a va qlen) own=$(list_qlen)
note "200 datagrams held 4 s: tc qlen $tcq, bpfqdisc list qlen $own"
[ "$tcq" = 200 ] || fail "tc shows qlen $tcq, 200 held"
[ "$own" = "$tcq" ] || fail "bpfqdisc list shows qlen '$own', tc $tcq: $("$BQ" -n a list)"

expect ip netns exec a tc qdisc del dev va root
slow_receiver
expect "$BQ" -n a qdisc replace dev va root bpf_fq
udp_flood 10
wait_backlog a va 50 5 || fail "no queue built: $(ip netns exec a tc -s qdisc show dev va)"
lo=$(tc_stat a va qlen) own=$(list_qlen) hi=$(tc_stat a va qlen)
stop_floods
note "flood into a slow receiver: tc qlen $lo then $hi, bpfqdisc list between: $own"
[ -n "$own" ] && [ "$own" -gt 0 ] || fail "bpfqdisc list shows qlen '$own' under a queue of $lo"
exit 0
