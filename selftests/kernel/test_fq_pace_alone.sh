# A cubic socket alone on an idle qdisc is paced from its first packet,
# as under the kernel's fq (issue 39). sch_fq marks a socket SK_PACING_FQ
# on its first packet, fast path included, and TCP then stamps every
# packet but the first ten with its paced departure time, which fq's fast
# path refuses until it is due: the qdisc being idle changes nothing.
# Here one cubic flow is limited by its window (iperf3 -w 64K) over a
# 100 ms path (netem on the ACK path), 3 s, 1 vCPU, the virtual clock: a
# sender that is not paced sends its whole window at once whenever the
# ACKs open it, one burst per round trip, the burst that overflows a
# shallow switch buffer. fq then bpf_fq, both at their defaults, in the
# same boot, judged at the receiver (rxburst on vb): the most TCP payload
# that arrived within any 2 ms must be at most 1.5x fq's. A median of the
# load per ms does not show this (test_fq_pace_cubic): it hides the one
# burst per round trip.
# Measured before the fix (the socket took the fast path for good, never
# having met a queue): fq 14480 B (its first ten packets), bpf_fq 96952 B.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

paced_path 100ms

# most: "MBIT/S MOST_PAYLOAD_IN_2MS" of one window-limited cubic flow
# through va's root qdisc, alone there.
most() {
	iperf_server b
	ip netns exec b "$TOP/bin/rxburst" vb 4 >$out &
	rx=$!
	m=$(iperf_mbps a $B 3 -C cubic -w 64K)
	wait $rx || fail "rxburst exited $?"
	echo "$m $(awk '{ print $8 }' $out)"
}

expect ip netns exec a tc qdisc replace dev va root fq
set -- $(most)
fq_mbps=$1 fq_most=$2
expect ip netns exec a tc qdisc del dev va root
expect "$BQ" -n a qdisc add dev va root bpf_fq
set -- $(most)
res="fq: $fq_mbps Mbit/s, most payload in 2 ms $fq_most B; bpf_fq: $1 Mbit/s, $2 B"
note "one cubic flow alone, -w 64K, 100 ms RTT: $res"
[ "${fq_most:-0}" -gt 0 ] && [ "${2:-0}" -gt 0 ] || fail "no data seen at the receiver: $res"
[ $((2 * $2)) -le $((3 * fq_most)) ] || fail "bpf_fq sends a lone cubic flow in bursts: $res"
exit 0
