# A default-CC (cubic) flow is paced by its socket's sk_pacing_rate, as
# under the kernel's fq once fq has marked the socket SK_PACING_FQ (TCP
# then stamps each packet with its paced departure time). fq marks a
# socket only when one of its packets misses fq's fast path: on veth with
# one vCPU no queue forms and plain fq paces nothing (its trace and
# bpf_fq's were the same byte for byte). `maxrate 10gbit` keeps every
# packet off fq's fast path, so the reference is fq pacing the socket as
# it does once it has met a queue; 10 Gbit/s is far above this flow.
# One cubic flow with a 64 KB window and 20 ms of netem delay on the ACK
# path, 3 s, fq then bpf_fq (no maxrate) in the same boot, judged at the
# receiver: a packet socket on vb (rxburst) timestamps the data as it
# arrives, and for each packet counts the bytes that arrived in the 1 ms
# up to it. Paced, about one GSO packet lands per ms; unpaced, the window
# lands at once, each RTT. bpf_fq's byte-weighted median of that 1 ms
# load must be within 1.5x of fq's, and the flow must carry at least 80%
# of fq's throughput.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

[ "${VMTEST_ICOUNT:-0}" = 1 ] || skip "bursts are judged on the virtual clock (tools/vmtest --icount)"
out=$(mktemp)
trap 'rm -f $out' EXIT
load_fq
veth_pair
expect ip netns exec b tc qdisc replace dev vb root netem delay 20ms

# burst: "MBIT/S BURST_MEDIAN_BYTES" of one 3 s cubic flow through va.
burst() {
	iperf_server b
	ip netns exec b "$TOP/bin/rxburst" vb 3.5 >$out &
	rx=$!
	m=$(iperf_mbps a $B 3 -C cubic -w 64K)
	wait $rx || fail "rxburst exited $?"
	echo "$m $(awk '{ print $6 }' $out)"
}

expect ip netns exec a tc qdisc replace dev va root fq maxrate 10gbit
set -- $(burst)
fq_mbps=$1 fq_burst=$2
expect "$BQ" -n a qdisc replace dev va root bpf_fq
set -- $(burst)
res="fq: $fq_mbps Mbit/s, median 1 ms load $fq_burst bytes; bpf_fq: $1 Mbit/s, $2 bytes"
note "one cubic flow, -w 64K, 20 ms RTT: $res"
[ "$fq_burst" -gt 0 ] && [ "$2" -gt 0 ] || fail "no data seen at the receiver: $res"
[ $((2 * $2)) -le $((3 * fq_burst)) ] || fail "bpf_fq sends cubic in bursts: $res"
[ "$1" -ge $((fq_mbps * 8 / 10)) ] || fail "bpf_fq carries less than 80% of fq: $res"
exit 0
