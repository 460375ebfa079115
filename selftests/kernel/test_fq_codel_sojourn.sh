# CoDel holds a responsive flow's sojourn time near its target (5 ms); a
# FIFO lets it grow. Two cubic flows from a through a router r to b, whose
# vb is a slow receiver (slow_rx5000: about 5850 packets/s of 1500 bytes);
# the qdisc under test is r's egress vrb, as on a real router. A TCP
# sender's own qdisc would not do: TSQ keeps its packets in the veth ring
# (test_fq_codel_rtt). a sends MTU-sized packets (TSO and GSO off), so the
# qdisc counts and drops real packets, not 64 KB super-packets: with GSO
# on and slow_rx, 300 ms was measured under fq_codel and 216 ms under
# bpf_fq_codel. The spin is a quarter of slow_rx's so that the ring's 256
# packets hold about 44 ms, not 118, and TCP answers a drop within CoDel's
# interval. A UDP flood does not do: CoDel cannot hold an unresponsive
# flow, and both fq_codels sawtooth alike.
#
# Sojourn by Little's law: the mean of 10 qlen samples (every 0.3 s plus
# tc's time, from 3 s on, while the flows run) times the span over the
# packets vb received in it. tc's samples take CPU from the receiver
# (1 vCPU): it gets about 5850 packets/s then, so the ring holds about
# 44 ms. Measured on the virtual clock, one boot each, us: on kernel 7.2,
# fq_codel 6924 and 7557, bpf_fq_codel 5816, pfifo_fast 152128 and 151501
# (its queue near 890 packets); TCP's mean RTT 37, 30 and 110 ms. On 7.3,
# fq_codel 8095 and 8429, pfifo_fast 138801 and 138765, bpf_fq_codel 5602,
# and 2601 since a packet that finds the qdisc empty skips its bucket and
# CoDel, as under the kernel's bypass (why that puts it below fq_codel's
# is not known yet: docs/fq_codel.md). With bpf_fq_codel's
# target 10s (CoDel never drops) it was 356776 us (2060 packets queued),
# and the test failed. So: pfifo_fast at least 50 ms, fq_codel at most
# 15 ms (3x target), bpf_fq_codel at most 15 ms and at most twice
# fq_codel's plus 1 ms. The kernel's fq_codel runs with noecn:
# bpf_fq_codel cannot mark. About 40 s of guest time.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"
. "$TOP/selftests/progs/fq_codel_lib.sh"

command -v ethtool >/dev/null || skip "no ethtool to turn va's TSO off"
modprobe sch_fq_codel 2>/dev/null || true
expect "$BQ" load fq_codel

# The qdisc under test is r's vrb (fqc_root).
FQC_NS=r FQC_DEV=vrb

rx_packets() { ip -n b -j -s link show vb | "$JGET" '.[0].stats64.rx.packets'; }

# sojourn KIND: "SOJOURN_US TCP_RTT_MS MEAN_QLEN" with 2 flows through KIND.
sojourn() {
	fqc_root "$1"
	# In the foreground (no -D): waited for, so the next kind's server
	# finds port 5201 free.
	ip netns exec b iperf3 -s -1 >/dev/null 2>&1 &
	server=$!
	sleep 0.3
	ip netns exec a iperf3 -J -c $B2 -P 2 -t 8 -O 2 >"$TMP/iperf" 2>&1 &
	client=$!
	sleep 3
	p0=$(rx_packets) t0=$(date +%s%N) q=0
	for i in $(seq 10); do
		sleep 0.3
		q=$((q + $(tc_stat r vrb qlen)))
	done
	p1=$(rx_packets) t1=$(date +%s%N)
	kill -0 $client 2>/dev/null || fail "$1: the flows ended before the samples"
	wait $client $server || true
	rtt=$(jq -e '[.end.streams[].sender.mean_rtt] | add / length / 1000' "$TMP/iperf") ||
		fail "$1: iperf3: $(jq -r .error "$TMP/iperf")"
	echo "$((q * ((t1 - t0) / 1000) / 10 / (p1 - p0))) $rtt $((q / 10)) $(((t1 - t0) / 1000000)) $(((p1 - p0) * 1000000000 / (t1 - t0)))"
}

routed_path
slow_receiver slow_rx5000
TMP=$(mktemp -d)
r=$(sojourn pfifo_fast)
set -- $r
p_us=$1 p_rtt=$2 p_q=$3 p_span=$4 p_pps=$5
r=$(sojourn fq_codel)
set -- $r
k_us=$1 k_rtt=$2 k_q=$3 k_span=$4 k_pps=$5
r=$(sojourn bpf_fq_codel)
set -- $r
b_us=$1 b_rtt=$2 b_q=$3 b_span=$4 b_pps=$5
rm -rf "$TMP"
note "span ms/pps: $p_span/$p_pps $k_span/$k_pps $b_span/$b_pps"
note "sojourn us (TCP RTT ms, mean qlen): fq_codel $k_us ($k_rtt, $k_q), bpf_fq_codel $b_us ($b_rtt, $b_q), pfifo_fast $p_us ($p_rtt, $p_q)"
[ "$p_us" -ge 50000 ] || fail "pfifo_fast's sojourn $p_us us: no queue formed"
[ "$k_us" -le 15000 ] || fail "fq_codel's sojourn $k_us us: not held near 5 ms"
[ "$b_us" -le 15000 ] || fail "bpf_fq_codel's sojourn $b_us us: not held near 5 ms"
[ "$b_us" -le $((2 * k_us + 1000)) ] || fail "bpf_fq_codel's sojourn $b_us us, fq_codel's $k_us us"
exit 0
