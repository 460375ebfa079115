# bpf_hpfq shares a bottleneck between classes by weight, and a class's
# share equally between its flows. Four TCP flows (iperf3) from a through
# a router r to a slow receiver b (routed_path, slow_rx5000): two with TOS
# 0x00 and two with TOS 0x08, which r's forwarding turns into priorities 0
# and 2; bpf_hpfq on r's vrb classifies by priority, with classes of
# weight 1 and 3. Of the bytes b received in one window of 4 s, the same
# for the four and 3 s after they started (lib.sh's bytes_received, as
# test_wfq measures), the class of weight 1 must have 25% within 5% of it
# (23.75..26.25%), and each flow its class's half within HPFQ_FLOW_MARGIN
# (5%). The test fails on a wrong tree: with the root's rank constant (the
# root a FIFO of references) the classes read 55.1% and 44.9%; with the
# leaves' constant (each class a FIFO) the flows 39.6/60.4% and
# 29.7/70.3% of their class. On r the packets are forwarded: no socket
# (so classes by priority), and the flow is the 4-tuple's hash.
# Nothing may be clamped: the leaves' windows (2^18 buckets of 256) hold
# the backlogs. The tree's arena pages go with the qdisc.
. "$(dirname "$0")/lib.sh"

command -v iperf3 >/dev/null || skip "no iperf3"
[ "${VMTEST_ICOUNT:-0}" = 1 ] || skip "shares are judged on the virtual clock (tools/vmtest --icount)"
HPFQ_FLOW_MARGIN=0.05
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT

# The flows: two ports in each class, and the TOS r turns into its priority.
PORTS="5211 5212 5231 5232"
tos() { case $1 in 521*) echo 0x00 ;; 523*) echo 0x08 ;; esac; }

routed_path
slow_receiver slow_rx5000
expect "$BQ" load hpfq
expect "$BQ" -n r qdisc add dev vrb root bpf_hpfq classify 2 2>/dev/null
expect "$BQ" -n r class add dev vrb priority 0 weight 1 2>/dev/null
expect "$BQ" -n r class add dev vrb priority 2 weight 3 2>/dev/null
for port in $PORTS; do ip netns exec b iperf3 -s -1 -p "$port" >/dev/null 2>&1 & done
for port in $PORTS; do wait_listeners b "$port" 1 || fail "no iperf3 server on $port"; done
for port in $PORTS; do
	ip netns exec a iperf3 -c $B2 -p "$port" -S "$(tos "$port")" -t 9 >/dev/null 2>&1 &
done
sleep 3
bytes_received b '( sport ge :5211 and sport le :5232 )' >"$TMPD/t1"
sleep 4
bytes_received b '( sport ge :5211 and sport le :5232 )' >"$TMPD/t2"
arena=$(kind_memory hpfq arena)
wait
clamped=$("$BQ" -n r stats -j | "$JGET" '.[0].bpf.clamped')
# The leaves' buckets and the references' rings are arena pages while the
# tree holds packets, and a destroy gives every one back.
[ "${arena:-0}" -gt 0 ] || fail "no arena pages with the four flows queued: '$arena'"
expect ip netns exec r tc qdisc del dev vrb root
[ "$(kind_memory hpfq arena)" = 0 ] ||
	fail "arena $(kind_memory hpfq arena) bytes after the destroy, $arena with the flows"
# The window's bytes of each port, then the verdict (1: within the
# margins) and the shares.
bytes_between "$TMPD/t1" "$TMPD/t2" >"$TMPD/d"
res=$(awk -v m=$HPFQ_FLOW_MARGIN '
	{ b[$1] = $2; t += $2; n++ }
	END {
		c1 = b[5211] + b[5212]; c3 = b[5231] + b[5232]
		ok = t > 0 && c1 >= t * 0.25 * 0.95 && c1 <= t * 0.25 * 1.05
		for (p in b) {
			c = p < 5230 ? c1 : c3
			if (b[p] < c / 2 * (1 - m) || b[p] > c / 2 * (1 + m))
				ok = 0
		}
		if (n != 4)
			ok = 0
		printf "%d class shares 1:3: %.1f%% %.1f%% (ideal 25 75); flows of weight 1: %.1f%% %.1f%%, of weight 3: %.1f%% %.1f%% of their class (of %.1f MB)",
			ok, t ? 100 * c1 / t : 0, t ? 100 * c3 / t : 0,
			c1 ? 100 * b[5211] / c1 : 0, c1 ? 100 * b[5212] / c1 : 0,
			c3 ? 100 * b[5231] / c3 : 0, c3 ? 100 * b[5232] / c3 : 0, t / 1e6 }' "$TMPD/d")
ok=${res%% *} res=${res#* }
note "$res; clamped $clamped; arena $arena bytes with the flows, 0 after the destroy"
[ "$ok" = 1 ] || fail "$res"
[ "$clamped" = 0 ] || fail "$res; clamped $clamped"
exit 0
