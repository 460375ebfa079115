# bpf_hbm: the flows of one aggregate take turns. A ping next to two bulk
# TCP flows in the same aggregate (classify 1: everything has mark 0) waits
# neither for the bulk bytes queued before it (under htb at the same rate
# it waits behind them in the FIFO) nor for the bulk skb in flight: a
# sparse flow goes up to a GSO skb ahead of the aggregate's clock. Its
# average RTT through bpf_hbm must be under 2 ms and under half of htb's,
# measured in the same boot.
# Measured on the virtual clock, 1 vCPU (2026-12-05): bpf_hbm 0.017 ms,
# htb 122.2 ms. Before the sparse lead: 13.0 ms (TCP's 53 KB skbs, 21 ms
# each at 20 Mbit/s), and the test fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hbm_lib.sh"

RATE=20	# Mbit/s

# loaded_rtt: average RTT (ms) of 15 pings a -> b while 2 TCP flows fill va.
loaded_rtt() {
	iperf_server b
	ip netns exec a iperf3 -c $B -P 2 -t 6 >/dev/null 2>&1 &
	load=$!
	sleep 2
	ip netns exec a ping -q -c 15 -i 0.2 $B |
		awk '/^(rtt|round-trip)/ { split($0, a, " = "); split(a[2], v, "/"); print v[2] }'
	wait $load
}

expect "$BQ" load hbm
veth_pair
expect "$BQ" -n a qdisc add dev va root bpf_hbm rate ${RATE}mbit classify 1
hbm_rtt=$(loaded_rtt)
expect ip netns exec a tc qdisc replace dev va root handle 1: htb default 1
expect ip netns exec a tc class add dev va parent 1: classid 1:1 htb rate ${RATE}mbit
htb_rtt=$(loaded_rtt)
note "ping next to 2 TCP flows at $RATE Mbit/s: bpf_hbm $hbm_rtt ms, htb $htb_rtt ms"
[ -n "$hbm_rtt" ] && [ -n "$htb_rtt" ] || fail "no ping RTT: bpf_hbm '$hbm_rtt', htb '$htb_rtt'"
fge "$htb_rtt" 10 || skip "htb built no queue (ping $htb_rtt ms): nothing to compare"
fge "$(awk -v h="$htb_rtt" 'BEGIN { print h / 2 }')" "$hbm_rtt" ||
	fail "bpf_hbm: ping $hbm_rtt ms, not under half of htb's $htb_rtt ms"
fge 2 "$hbm_rtt" || fail "bpf_hbm: ping $hbm_rtt ms, waits for the skb in flight"
exit 0
