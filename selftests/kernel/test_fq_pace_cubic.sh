# A default-CC (cubic) socket that has shared the qdisc is paced for the
# rest of its life, as under the kernel's fq with the same options.
# sch_fq marks a socket SK_PACING_FQ on its first packet while pacing is
# on (on its fast path too: 7.2.13 and 7.3.4), and TCP then stamps each
# packet with its paced departure time. bpf_fq cannot write
# sk_pacing_status: it computes the same stamps on a clock per socket,
# from the socket's first packet (fq_clocks in bpf/fq.bpf.c). Until
# 2026-12-05 it paced a socket only from the first of its packets that
# missed the fast path, for good: the case here. A socket alone on the
# qdisc from the start is test_fq_pace_alone's.
# Here a UDP socket paced by the qdisc (SO_MAX_PACING_RATE, 1 Mbit/s, 60
# datagrams) is throttled when a cubic flow starts, so the flow's first
# packets meet a queue; then the flow writes 128 KB every ~50 ms
# (iperf3 -b 20M -l 128K) for 3 s, with 20 ms of netem delay on the ACK
# path, 1 vCPU: unpaced, each write lands in a burst. fq then bpf_fq, both
# at their defaults, in the same boot, judged at the receiver: a packet
# socket on vb (rxburst) timestamps the TCP data as it arrives, and for
# each packet counts the bytes that arrived in the 1 ms up to it.
# bpf_fq's byte-weighted median of that 1 ms load must be within 1.5x of
# fq's, and the flow must carry at least 80% of fq's throughput. On this
# veth fq's own pacing is coarse (TSO autosizing sends about 1 ms of the
# pacing rate per GSO packet), so the median cannot tell paced from
# unpaced well (fq's was 0.78x and 0.76x of unpaced bpf_fq's in two
# boots). The most payload within any 2 ms must be below bpf_fq's with
# `pacing off`, where a 128 KB write arrives whole: paced, none does
# (fq 104256, bpf_fq 82536, pacing off 131072). Until bpf_fq stamped
# cubic from the first packet (2026-12-05), the bar was half of the
# unpaced median, which its pacing at dequeue, finer than fq's, met
# (7292 against 78348 bytes) and fq never did (60920, 69608); stamped
# as TCP stamps for fq, bpf_fq gave 55128 and 52232.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

paced_path 20ms

# burst: "MBIT/S BURST_MEDIAN_BYTES" of one 3 s cubic flow through va,
# started while a paced UDP flow is throttled there.
burst() {
	iperf_server b
	ip netns exec b "$FQSEND" -l -d 1 $B 9000 >/dev/null &
	sink=$!
	ip netns exec b "$TOP/bin/rxburst" vb 3.5 >$out &
	rx=$!
	ip netns exec a "$FQSEND" -c -R 125000 -s 1000 -n 60 $B 9000 >/dev/null ||
		fail "fqsend exited $?"
	m=$(iperf_mbps a $B 3 -C cubic -b 20M -l 128K)
	wait $rx || fail "rxburst exited $?"
	wait $sink || fail "fqsend -l exited $?"
	echo "$m $(awk '{ print $6, $8 }' $out)"
}

expect ip netns exec a tc qdisc replace dev va root fq
set -- $(burst)
fq_mbps=$1 fq_burst=$2 fq_most=$3
expect ip netns exec a tc qdisc del dev va root
expect "$BQ" -n a qdisc add dev va root bpf_fq pacing off
set -- $(burst)
off_burst=$2 off_most=$3
expect ip netns exec a tc qdisc del dev va root
expect "$BQ" -n a qdisc add dev va root bpf_fq
set -- $(burst)
res="fq: $fq_mbps Mbit/s, median 1 ms load $fq_burst bytes, most payload in 2 ms $fq_most"
res="$res; bpf_fq: $1 Mbit/s, $2 bytes, $3; bpf_fq pacing off: $off_burst bytes, $off_most"
note "a cubic flow that met a queue, 128 KB writes, 20 ms RTT: $res"
[ "$fq_burst" -gt 0 ] && [ "$2" -gt 0 ] || fail "no data seen at the receiver: $res"
[ $((2 * $2)) -le $((3 * fq_burst)) ] || fail "bpf_fq sends cubic in bursts: $res"
[ "$3" -lt "$off_most" ] || fail "bpf_fq does not pace cubic: $res"
[ "$1" -ge $((fq_mbps * 8 / 10)) ] || fail "bpf_fq carries less than 80% of fq: $res"
exit 0
