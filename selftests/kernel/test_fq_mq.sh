# bpf_fq as the child of mq on a 4-queue veth: four instances, each with its
# own flows, carrying 8 TCP flows between them.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

# maxrate keeps TCP off the fast path (which takes every packet of a flow
# the qdisc never has to queue): each child's flows are then counted.
load_fq maxrate 10gbit
veth_pair 4
mq_of bpf_fq
iperf_server b
mbps=$(iperf_mbps a $B 3 -P 8)
note "8 flows over mq/bpf_fq: $mbps Mbit/s"
[ "$mbps" -gt 30 ] || fail "throughput $mbps Mbit/s"
used=0 flows=0
for c in $("$BQ" -n a stats dev va -j | jq -c '.[] | [.packets, .bpf.flows]'); do
	p=$(echo "$c" | "$JGET" '.[0]') f=$(echo "$c" | "$JGET" '.[1]')
	[ "$p" -gt 100 ] && used=$((used + 1))
	flows=$((flows + f))
done
note "children that carried traffic: $used of 4; flows in all: $flows"
[ "$used" -ge 2 ] || fail "only $used children carried traffic"
[ "$flows" -ge 8 ] || fail "only $flows flows over 4 children for 8 TCP flows"
expect ip netns exec a tc qdisc del dev va root
n=$("$BQ" list | grep -c '^  ifindex' || true)
[ "$n" = 0 ] || fail "instances left after deleting mq: $n"
exit 0
