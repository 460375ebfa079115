# bpf_fifo as the child of mq on a 4-queue veth: one instance per queue.
. "$(dirname "$0")/lib.sh"

expect "$BQ" load fifo
veth_pair 4
mq_of bpf_fifo
n=$("$BQ" list | grep -c '^  \(dev\|ifindex\)')
[ "$n" = 4 ] || fail "expected 4 instances, list shows $n"

iperf_server b
mbps=$(iperf_mbps a $B 3 -P 4)
note "4 flows over mq/bpf_fifo: $mbps Mbit/s"
[ "$mbps" -gt 10 ] || fail "throughput $mbps Mbit/s"
total=0
for h in $(ip netns exec a tc -j -s qdisc show dev va | jq -r '.[] | select(.kind == "bpf_fifo") | .packets'); do
	total=$((total + h))
done
[ "$total" -gt 1000 ] || fail "mq children carried $total packets"
expect ip netns exec a tc qdisc del dev va root
n=$("$BQ" list | grep -c '^  \(dev\|ifindex\)' || true)
[ "$n" = 0 ] || fail "instances left after deleting mq: $n"
exit 0
