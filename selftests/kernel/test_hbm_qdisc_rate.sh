# bpf_hbm rate conformance: TCP goodput of one aggregate (cgroup /hbm1 with
# a class at the limit, tools/hbm-test -q=bpf_hbm) within 95-101% of the
# limit, drops under 1%; and two aggregates at 40 and 80 Mbit/s side by
# side, each held to its own. Rates count IP bytes, so goodput tops out at
# 1448/1500 = 96.5%. A busy host is told apart from a slow qdisc by htb
# (hbm_lib.sh's conform).
#
# make test runs 3 cases (~1 min); BPFQDISC_HBM_FULL=1 runs 50 and 100
# Mbit/s x 1, 2 and 4 flows x cubic and dctcp (12 runs):
#   tools/vmtest -- dash -c 'BPFQDISC_HBM_FULL=1 TEST_TIMEOUT=900 selftests/kernel/run test_hbm_qdisc_rate'
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hbm_lib.sh"

modprobe -q tcp_dctcp 2>/dev/null || true
grep -qw dctcp /proc/sys/net/ipv4/tcp_available_congestion_control || skip "no tcp_dctcp"
expect "$BQ" load hbm

# qdisc_case LIMIT ARGS: conform, and drops stay under 1%.
qdisc_case() {
	conform "$@" -q=bpf_hbm
	fge 1 "$DROP_PCT" || FAILS="$FAILS; $* dropped $DROP_PCT% of packets"
}

if [ "${BPFQDISC_HBM_FULL:-0}" = 1 ]; then
	for rate in 50 100; do
		for f in 1 2 4; do
			for cc in cubic dctcp; do qdisc_case $rate -f=$f $cc; done
		done
	done
else
	qdisc_case 50 -f=1 cubic
	qdisc_case 100 -f=2 cubic
	qdisc_case 100 -f=4 dctcp
fi

# Two aggregates through one bpf_hbm: cgroups /hbm1 at 40 and /hbm2 at 80.
two_aggregates() {
	"$HT" setup -q=bpf_hbm
	"$HT" -q=bpf_hbm -i=1 -r=40 -t=4 -O=1 -p=5201 >"$TMPD/a.out" 2>&1 &
	a=$!
	"$HT" -q=bpf_hbm -i=2 -r=80 -t=4 -O=1 -p=5301 >"$TMPD/b.out" 2>&1 &
	b=$!
	wait $a || fail "cgroup 1's run failed: $(tail -3 "$TMPD/a.out")"
	wait $b || fail "cgroup 2's run failed: $(tail -3 "$TMPD/b.out")"
	"$HT" teardown
	g1=$(awk -F: '/^AGGREGATE_GOODPUT:/ { print $2 }' "$TMPD/a.out")
	g2=$(awk -F: '/^AGGREGATE_GOODPUT:/ { print $2 }' "$TMPD/b.out")
	p1=$(pct "$g1" 40) p2=$(pct "$g2" 80)
	note "two aggregates: /hbm1 $g1 Mbit/s of 40 ($p1%), /hbm2 $g2 Mbit/s of 80 ($p2%)"
	fge 101 "$p1" || fail "/hbm1 got $g1 Mbit/s, over its limit of 40"
	fge 101 "$p2" || fail "/hbm2 got $g2 Mbit/s, over its limit of 80"
	fge "$p1" 95 && fge "$p2" 95
}
if ! two_aggregates; then
	h=$(htb_goodput 120 2)
	hp=$(pct "$h" "$(awk 'BEGIN { print 120 * 1448 / 1514 }')")
	note "htb at 120 Mbit/s, 2 flows: $h Mbit/s = $hp% of its ideal"
	fge "$hp" 97 || SKIPS="$SKIPS; two aggregates at $p1% and $p2% of their limits (htb $hp%)"
	[ -n "$SKIPS" ] || two_aggregates ||
		fail "two aggregates: /hbm1 at $p1%, /hbm2 at $p2% of their limits (htb $hp% of its ideal)"
fi
conform_done
