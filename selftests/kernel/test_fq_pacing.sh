# Pacing, against the kernel's fq in the same boot:
#  - TCP with SO_MAX_PACING_RATE (iperf3 --fq-rate 50M) is held within 5%
#    of 50 Mbit/s in goodput (TCP paces IP bytes itself, through EDT
#    timestamps, which the qdisc honours);
#  - maxrate 50mbit holds an unpaced TCP flow within 5% of 50 Mbit/s at
#    the qdisc (its bytes, Ethernet header included, over iperf3's
#    seconds): the qdisc paces it, as it counts, by qdisc_pkt_len;
#  - UDP with SO_MAX_PACING_RATE and no timestamps, paced by the qdisc
#    from sk_pacing_rate, comes out at fq's rate within 5%. 5 Mbit/s,
#    because at 50 the pause per quantum (0.5 ms) is as short as the
#    watchdog's lateness under TCG, and both qdiscs fall to about half.
# The checks are on bpf_fq, measured once on the virtual clock; fq's figures
# are shown, "!" marking where fq itself missed.
# Measured on the virtual clock, 1 vCPU (2026-12-01): --fq-rate 50M: bpf_fq
# 50.0 Mbit/s goodput (fq 50.1); maxrate: 50.2 at the qdisc (fq 50.2); UDP
# 4.86 (fq 4.86): bars 5% and 4.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

out=$(mktemp)
trap 'rm -f $out' EXIT

# tcp_rate ARGS...: "L2_MBPS GOODPUT_MBPS" of a 3 s iperf3 through va.
tcp_rate() {
	b0=$(tc_stat a va bytes)
	iperf_server b
	iperf_json a $B $out 3 "$@"
	b1=$(tc_stat a va bytes)
	echo "$(( (b1 - b0) * 8 / 1000 )) $(jq .end.sum_sent.seconds $out) $(jq .end.sum_received.bits_per_second $out)" |
		awk '{ printf "%.1f %.1f\n", $1 / $2 / 1000, $3 / 1e6 }'
}

# fq_rate: iperf3 --fq-rate 50M, goodput within 5%?
fq_rate() {
	set -- $(tcp_rate --fq-rate 50M)
	echo "$2 ($1 at the qdisc)"
	near $2 50 5
}

# maxrate: an unpaced flow under maxrate 50mbit, within 5% at the qdisc?
maxrate() {
	set -- $(tcp_rate)
	echo "$1 ($2 goodput)"
	near $1 50 5
}

# udp_rate: UDP paced by SO_MAX_PACING_RATE 5 Mbit/s; payload Mbit/s at
# the receiver (the check against fq's figure is made by the caller).
udp_rate() {
	ip netns exec b "$FQSEND" -l -d 4 -w 1 $B 7000 >$out &
	sleep 0.3
	ip netns exec a "$FQSEND" -c -d 4 -s 1400 -b 60000 -R 625000 $B 7000 >/dev/null
	wait $!
	r=$(awk '{ s += $2 } END { printf "%.2f\n", s * 8 / 3 / 1e6 }' $out)
	echo "$r"
	[ "$1" = 0 ] || near "$r" "$1" 5
}

load_fq
veth_pair
res=
for kind in fq bpf_fq; do
	expect ip netns exec a tc qdisc replace dev va root $kind
	res="$res $kind: $(judge $kind fq_rate)"
done
note "iperf3 --fq-rate 50M, goodput Mbit/s:$res"

expect ip netns exec a tc qdisc replace dev va root fq maxrate 50mbit
res=" fq: $(judge fq maxrate)"
expect "$BQ" -n a qdisc replace dev va root bpf_fq maxrate 50mbit
res="$res bpf_fq: $(judge bpf_fq maxrate)"
[ "$(bstat a va throttled)" -gt 0 ] || fail "bpf_fq never throttled a flow"
note "maxrate 50mbit, one TCP flow, Mbit/s at the qdisc:$res"

expect ip netns exec a tc qdisc replace dev va root fq
fq_udp=$(udp_rate 0)
expect ip netns exec a tc qdisc replace dev va root bpf_fq
bpf_udp=$(judge bpf_fq udp_rate $fq_udp)
note "UDP, SO_MAX_PACING_RATE 5 Mbit/s, payload Mbit/s at the receiver: fq: $fq_udp bpf_fq: $bpf_udp"
ge "$bpf_udp" 4 || fail "bpf_fq paced UDP at $bpf_udp Mbit/s for 5"
exit 0
