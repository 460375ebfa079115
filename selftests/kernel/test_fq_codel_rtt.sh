# A bottleneck where a queue forms (slow_receiver: vb's XDP spins per
# packet, about 2800 packets/s get through, its 256-entry ring fills and
# stops va's queue), a bulk UDP flow of 4000 packets/s through it, and ping
# beside it. pfifo_fast queues its 1000 packets and ping waits behind
# them; fq_codel serves ping's bucket as a new flow, ahead of the bulk one.
# Judged in one boot, on the virtual clock: bpf_fq_codel's mean ping RTT
# within 10% of the kernel's fq_codel's, its mean queue within 2x of
# fq_codel's, and pfifo_fast's RTT at least 2x theirs. The ring's delay
# (256 packets, about 91 ms) is common to all three and is most of
# fq_codel's RTT. A bulk TCP flow does not do here: TSQ keeps its packets
# in the qdisc to a couple and the ring holds the queue (qlen 0 under
# every qdisc, measured). The kernel's fq_codel runs with noecn:
# bpf_fq_codel cannot mark.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"
. "$TOP/selftests/progs/fq_codel_lib.sh"

fqc_setup

# under_load KIND: "RTT_MS QLEN" with a bulk flow through KIND.
under_load() {
	fqc_root "$1"
	# 4000 pps of 200 bytes, above the ~2800 the receiver takes: a queue
	# forms, and a FIFO still admits most pings. 20 s outlasts the
	# measurement; stop_floods ends it.
	ip netns exec a nice -n 19 "$TOP/bin/udpflood" $B 9 20 200 4000 >/dev/null &
	FLOODS="${FLOODS:-} $!"
	sleep 1
	ip netns exec a ping -c 20 -i 0.1 -W 5 $B >"$TMP/ping" 2>&1 || true
	qsum=0
	for i in 1 2 3 4 5; do
		qsum=$((qsum + $(tc_stat a va qlen)))
		sleep 0.1
	done
	stop_floods
	rtt=$(awk -F/ '/^rtt/ { print $5 }' "$TMP/ping")
	[ -n "$rtt" ] || fail "$1: no ping reply: $(tail -2 "$TMP/ping")"
	echo "$rtt $((qsum / 5))"
}

TMP=$(mktemp -d)
set -- $(under_load pfifo_fast); p_rtt=$1 p_q=$2
set -- $(under_load fq_codel); k_rtt=$1 k_q=$2
set -- $(under_load bpf_fq_codel); b_rtt=$1 b_q=$2
set -- $(under_load pfifo_fast); p2_rtt=$1 p2_q=$2
rm -rf "$TMP"
note "ping RTT under load, ms (mean queue, packets): fq_codel $k_rtt ($k_q), bpf_fq_codel $b_rtt ($b_q), pfifo_fast $p_rtt ($p_q), again $p2_rtt ($p2_q)"
awk -v b="$b_rtt" -v k="$k_rtt" 'BEGIN { exit !(b <= k * 1.1 && b >= k * 0.9) }' ||
	fail "bpf_fq_codel's RTT $b_rtt ms, fq_codel's $k_rtt ms: not within 10%"
awk -v p="$p_rtt" -v k="$k_rtt" 'BEGIN { exit !(p >= 2 * k) }' ||
	fail "pfifo_fast's RTT $p_rtt ms against fq_codel's $k_rtt ms: no queue formed"
[ "$b_q" -le $((2 * k_q + 10)) ] || fail "bpf_fq_codel's queue $b_q packets, fq_codel's $k_q"
exit 0
