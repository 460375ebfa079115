# bpf_fifo on both veth ends and on lo at once: each instance keeps its own
# queue and counters, and traffic runs at full speed (a queue shared between
# instances collapses throughput and wraps the backlog).
. "$(dirname "$0")/lib.sh"

veth_pair
iperf_server b
base=$(iperf_mbps a $B 3)

expect "$BQ" load fifo
expect ip netns exec a tc qdisc replace dev va root bpf_fifo
expect ip netns exec b tc qdisc replace dev vb root bpf_fifo
expect tc qdisc replace dev lo root bpf_fifo
n=$("$BQ" list | grep -c '^  \(dev\|ifindex\)')
[ "$n" = 3 ] || fail "expected 3 instances, list shows $n"

# Load lo at the same time as the veth.
iperf3 -s -D -1 -B 127.0.0.1 -p 5202 >/dev/null
sleep 0.3
iperf3 -c 127.0.0.1 -p 5202 -t 4 >/dev/null &
lo_pid=$!
iperf_server b
bpf=$(iperf_mbps a $B 3 --bidir)
wait $lo_pid || fail "iperf3 over lo failed"
note "veth iperf3: noqueue $base Mbit/s; bpf_fifo both ways, lo busy too: $bpf Mbit/s"
# Traffic both ways and on lo shares the 2 CPUs; a shared queue gives ~1%.
[ $((bpf * 100)) -ge $((base * 30)) ] || fail "bpf_fifo at $bpf Mbit/s vs $base without it"

for ns_dev in "a va" "b vb"; do
	set -- $ns_dev
	[ "$(tc_stat $1 $2 backlog)" = 0 ] || fail "$2 backlog $(tc_stat $1 $2 backlog) at rest"
	[ "$(tc_stat $1 $2 qlen)" = 0 ] || fail "$2 qlen $(tc_stat $1 $2 qlen) at rest"
	[ "$(tc_stat $1 $2 packets)" -gt 1000 ] || fail "$2 carried $(tc_stat $1 $2 packets) packets"
done
lo_backlog=$(tc -s -j qdisc show dev lo root | jq '.[0].backlog')
[ "$lo_backlog" = 0 ] || fail "lo backlog $lo_backlog at rest"
exit 0
