# bpf_hbm as the child of mq on a 4-queue veth: each child limits the
# traffic of its own tx queue, and the companion marker (hbm_mark), which
# runs before the queue is picked, finds the child of the queue the socket
# has cached and sets CE there as it does under a root bpf_hbm.
. "$(dirname "$0")/lib.sh"

RATE=20	# Mbit/s, per child

# ce_sum: CE marks set by hbm_mark, over the four children.
ce_sum() { "$BQ" -n a stats dev va -j | jq '[.[].bpf.ce_marked] | add'; }

expect "$BQ" load hbm
veth_pair 4
expect ip netns exec a tc qdisc replace dev va root handle 1: mq
for i in 1 2 3 4; do
	expect "$BQ" -n a qdisc replace dev va parent 1:$i bpf_hbm rate ${RATE}mbit
done
ip netns exec a sysctl -qw net.ipv4.tcp_ecn=1
iperf_server b
mbps=$(iperf_mbps a $B 4 -P 4)
used=$("$BQ" -n a stats dev va -j | jq '[.[] | select(.packets > 100)] | length')
ce=$(ce_sum)
note "4 ECN flows over mq with bpf_hbm at $RATE Mbit/s per queue: $mbps Mbit/s on $used queues, $ce CE marks"
[ "$used" -ge 1 ] || fail "no child carried traffic: $("$BQ" -n a stats dev va)"
[ "$mbps" -le $((used * RATE)) ] || fail "$mbps Mbit/s over $used queues at $RATE Mbit/s each"
[ "$ce" -gt 0 ] || fail "no CE marks under mq: $("$BQ" -n a stats dev va)"
expect ip netns exec a tc qdisc del dev va root
exit 0
