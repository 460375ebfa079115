# bpf_fq carries traffic like the kernel's fq: ping and TCP over veth and lo,
# on both ends of a veth at once, each instance with its own parameters and
# flows. Throughput of both is printed (one run each: on the virtual clock
# a run repeats).
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

load_fq
veth_pair
quiet_va	# the counts at rest below are the test's traffic alone
fq_mbps=$(carries fq)
bpf_mbps=$(carries bpf_fq)
note "veth, 1 TCP flow, Mbit/s: fq $fq_mbps; bpf_fq $bpf_mbps"
tcp_quiet a || fail "TCP sockets still sending: $(ip netns exec a ss -tan)"
[ "$(tc_stat a va backlog)" = 0 ] || fail "backlog $(tc_stat a va backlog) at rest"
# Throughput is for the benchmarks (make bench). Here only a collapse (a
# queue shared by mistake gives a few Mbit/s) is a failure.
[ "$bpf_mbps" -ge 20 ] || fail "bpf_fq at $bpf_mbps Mbit/s"
# One flow on an idle veth mostly takes the fast path (as under sch_fq):
# it is counted there, or as a flow.
[ "$(bstat a va flows)" -ge 1 ] || [ "$(bstat a va fastpath_packets)" -gt 0 ] ||
	fail "no flow counted, no packet on the fast path"
s=$("$BQ" -n a stats dev va -j)	# one read: two could straddle a packet
echo "$s" | jq -e '.[0] | .bpf.enqueued == .bpf.dequeued and .qlen == 0' >/dev/null ||
	fail "enqueued != dequeued at rest: $s"

# lo
expect tc qdisc replace dev lo root bpf_fq
ping -q -c 2 -i 0.2 -W 2 127.0.0.1 >/dev/null || fail "ping over lo"
iperf3 -s -D -1 -B 127.0.0.1 -p 5202 >/dev/null
sleep 0.3
iperf3 -c 127.0.0.1 -p 5202 -t 1 >/dev/null || fail "iperf3 over lo"
[ "$(tc -s -j qdisc show dev lo root | "$JGET" '.[0].packets')" -gt 100 ] || fail "lo carried nothing"
expect tc qdisc del dev lo root

# Both ends, different parameters, traffic both ways: separate instances.
expect "$BQ" -n a qdisc replace dev va root bpf_fq quantum 9000
expect "$BQ" -n b qdisc replace dev vb root bpf_fq quantum 4500 flow_limit 50
[ "$("$BQ" list | grep -c '^  ifindex')" = 2 ] || fail "expected 2 instances: $("$BQ" list)"
iperf_server b
both=$(iperf_mbps a $B 2 --bidir)
note "bpf_fq on both ends, --bidir: $both Mbit/s"
[ "$both" -gt 20 ] || fail "bidir $both Mbit/s"
q_a=$("$BQ" -n a qdisc show dev va -j | "$JGET" '.[0].options.quantum')
q_b=$("$BQ" -n b qdisc show dev vb -j | "$JGET" '.[0].options.quantum')
[ "$q_a" = 9000 ] && [ "$q_b" = 4500 ] || fail "quantum va $q_a vb $q_b"
for nd in "a va" "b vb"; do
	set -- $nd
	[ "$(tc_stat $1 $2 packets)" -gt 1000 ] || fail "$2 carried $(tc_stat $1 $2 packets) packets"
	[ "$(tc_stat $1 $2 backlog)" = 0 ] || fail "$2 backlog $(tc_stat $1 $2 backlog) at rest"
	[ "$(bstat $1 $2 drops.no_instance)" = 0 ] || fail "$2 no_instance drops"
done
expect ip netns exec a tc qdisc del dev va root
expect ip netns exec b tc qdisc del dev vb root
[ "$("$BQ" list | grep -c '^  ifindex' || true)" = 0 ] || fail "instances left: $("$BQ" list)"
exit 0
