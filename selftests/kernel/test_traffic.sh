# ping and iperf3 through bpf_fifo on both ends of a veth; the counters of
# tc -s and of the instance agree with the traffic.
. "$(dirname "$0")/lib.sh"

expect "$BQ" load fifo
veth_pair
expect ip netns exec a tc qdisc replace dev va root bpf_fifo
expect ip netns exec b tc qdisc replace dev vb root bpf_fifo
expect ip netns exec a ping -c 5 -i 0.2 -W 2 -q $B >/dev/null
pkts=$(tc_stat a va packets)
[ "$pkts" -ge 5 ] || fail "tc -s counted $pkts packets after 5 pings"

iperf_server b
mbps=$(iperf_mbps a $B 3)
note "iperf3 through bpf_fifo: $mbps Mbit/s"
# Absolute rates mean little under TCG on a busy host; test_isolation
# compares with pfifo_fast. Here: the traffic flows at all.
[ "$mbps" -gt 10 ] || fail "throughput $mbps Mbit/s"

bytes=$(tc_stat a va bytes)
[ "$bytes" -gt 1000000 ] || fail "tc -s bytes $bytes after iperf3"
[ "$(tc_stat a va backlog)" = 0 ] || fail "backlog $(tc_stat a va backlog) at rest"
[ "$(tc_stat a va qlen)" = 0 ] || fail "qlen $(tc_stat a va qlen) at rest"
[ "$(tc_stat a va drops)" = 0 ] || fail "drops $(tc_stat a va drops)"
# tc counts GSO segments and the instances count skbs: never more. (bpfqdisc
# runs outside "ip netns exec", which hides /sys/fs/bpf.)
deq=$("$BQ" list | awk '/^    enqueued/ { n += $4 } END { print n + 0 }')
tcpk=$(($(tc_stat a va packets) + $(tc_stat b vb packets)))
# Where the kernel bypasses bpf_fifo (test_bypass), a packet that finds it
# empty, as nearly every one does here, is tc's alone.
kernel_bypasses || [ "$deq" -gt 1000 ] || fail "instances counted $deq packets: $("$BQ" list)"
[ "$deq" -le "$tcpk" ] || fail "instances dequeued $deq > tc packets $tcpk"
exit 0
