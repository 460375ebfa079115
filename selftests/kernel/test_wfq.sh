# bpf_wfq shares a bottleneck between classes by weight. Three TCP flows
# (iperf3) from a through a router r to a slow receiver b (routed_path,
# slow_rx5000), with TOS 0x00, 0x08 and 0x10, which r's forwarding turns
# into priorities 0, 2 and 6; bpf_wfq on r's vrb classifies by priority,
# with classes of weight 1, 2 and 4. Each flow's share of the bytes b
# received in one window of 4 s, the same for the three and 3 s after
# they started, must be within 5% of its weight's (1/7, 2/7, 4/7), where a
# FIFO splits them about equally. Each iperf3's own count is no measure:
# its window starts and ends with its own connection, and what r still
# queues when the senders stop drains to the flows that have not; with
# r holding about a second of the link, that once read 16.6% 31.6% 51.9%.
# On r the packets are forwarded: TSQ keeps none of them out of the
# qdisc, and they have no socket (so classes by priority, not cgroup).
# Nothing may be clamped: the window (2^18 buckets of 256) holds the
# backlogs.
. "$(dirname "$0")/lib.sh"

command -v iperf3 >/dev/null || skip "no iperf3"
command -v ethtool >/dev/null || skip "no ethtool to turn va's TSO off"
[ "${VMTEST_ICOUNT:-0}" = 1 ] || skip "shares are judged on the virtual clock (tools/vmtest --icount)"
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT

routed_path
slow_receiver slow_rx5000
expect "$BQ" load wfq
expect "$BQ" -n r qdisc add dev vrb root bpf_wfq classify 2 2>/dev/null
# The TOS of weight W's flow, and the priority r gives it (rt_tos2priority).
tos() { case $1 in 1) echo 0x00 ;; 2) echo 0x08 ;; 4) echo 0x10 ;; esac; }
prio() { case $1 in 1) echo 0 ;; 2) echo 2 ;; 4) echo 6 ;; esac; }
for w in 1 2 4; do
	expect "$BQ" -n r class add dev vrb priority "$(prio $w)" weight $w 2>/dev/null
	ip netns exec b iperf3 -s -1 -p $((5200 + w)) >/dev/null 2>&1 &
done
for w in 1 2 4; do wait_listeners b $((5200 + w)) 1 || fail "no iperf3 server on $((5200 + w))"; done
for w in 1 2 4; do
	ip netns exec a iperf3 -c $B2 -p $((5200 + w)) -S "$(tos $w)" -t 9 >/dev/null 2>&1 &
done
# delta W: what weight W's flow received in the window.
delta() { bytes_between "$TMPD/t1" "$TMPD/t2" | awk -v p=$((5200 + $1)) '$1 == p { print $2 }'; }
sleep 3
bytes_received b '( sport = :5201 or sport = :5202 or sport = :5204 )' >"$TMPD/t1"
q1=$(tc_stat r vrb qlen)
sleep 4
bytes_received b '( sport = :5201 or sport = :5202 or sport = :5204 )' >"$TMPD/t2"
q2=$(tc_stat r vrb qlen)
wait
b1=$(delta 1) b2=$(delta 2) b4=$(delta 4)
clamped=$("$BQ" -n r stats -j | "$JGET" '.[0].bpf.clamped')
res=$(awk -v a="$b1" -v b="$b2" -v c="$b4" 'BEGIN {
	t = a + b + c
	printf "shares of weights 1:2:4: %.1f%% %.1f%% %.1f%% (of %.1f MB; ideal 14.3 28.6 57.1)",
		t ? 100 * a / t : 0, t ? 100 * b / t : 0, t ? 100 * c / t : 0, t / 1e6 }')
note "$res; clamped $clamped; r queued $q1 and $q2 packets"
awk -v a="$b1" -v b="$b2" -v c="$b4" 'BEGIN {
	t = a + b + c
	ok = t > 0
	v[1] = a; v[2] = b; v[4] = c
	for (w = 1; w <= 4; w *= 2)
		if (v[w] < t * w / 7 * 0.95 || v[w] > t * w / 7 * 1.05)
			ok = 0
	exit !ok }' || fail "$res"
[ "$clamped" = 0 ] || fail "$res; clamped $clamped"
exit 0
