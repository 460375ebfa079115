# HBM scope: loopback traffic is exempt without -l and limited with it; two
# cgroups at different rates are each held to their own (95-101%); -w lets
# a cgroup use what the NIC has spare.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hbm_lib.sh"

# iperf3 over the client namespace's lo, from inside cgroup /hbm1.
ht -r=50 -t=3 -s=127.0.0.1
note "lo without -l: goodput $GOODPUT Mbit/s, $EXEMPT packets exempt"
fge "$GOODPUT" 100 || fail "lo without -l: goodput $GOODPUT Mbit/s, limit 50 (exempt $EXEMPT)"
[ "$EXEMPT" -gt 100 ] || fail "lo without -l: only $EXEMPT packets exempt"
# lo has no fq, so credit mode; its ~0.1 ms RTT leaves TCP at 2 segments, so
# only drops (and TCP's probe timer) hold it: the limit holds, not 95% of it.
ht -r=50 -t=3 -s=127.0.0.1 -l
note "lo with -l: goodput $GOODPUT Mbit/s"
fge 50.5 "$GOODPUT" || fail "lo with -l: goodput $GOODPUT Mbit/s over the limit of 50"
fge "$GOODPUT" 10 || fail "lo with -l: goodput $GOODPUT Mbit/s"

# Two cgroups side by side through one fq, EDT at 40 and 80 Mbit/s: each
# within 95-101% of its own limit. If one falls short, htb carrying the same
# load (2 flows, 120 Mbit/s) is the yardstick, as in test_hbm_rate.
two_cgroups() {
	"$HT" setup -q=fq
	"$HT" -i=1 -r=40 --edt -t=4 -O=1 -p=5201 >"$TMPD/a.out" 2>&1 &
	a=$!
	"$HT" -i=2 -r=80 --edt -t=4 -O=1 -p=5301 >"$TMPD/b.out" 2>&1 &
	b=$!
	wait $a || fail "cgroup 1's run failed: $(tail -3 "$TMPD/a.out")"
	wait $b || fail "cgroup 2's run failed: $(tail -3 "$TMPD/b.out")"
	"$HT" teardown
	g1=$(awk -F: '/^AGGREGATE_GOODPUT:/ { print $2 }' "$TMPD/a.out")
	g2=$(awk -F: '/^AGGREGATE_GOODPUT:/ { print $2 }' "$TMPD/b.out")
	p1=$(pct "$g1" 40) p2=$(pct "$g2" 80)
	note "two cgroups: /hbm1 $g1 Mbit/s of 40 ($p1%), /hbm2 $g2 Mbit/s of 80 ($p2%)"
	fge 101 "$p1" || fail "/hbm1 got $g1 Mbit/s, over its limit of 40"
	fge 101 "$p2" || fail "/hbm2 got $g2 Mbit/s, over its limit of 80"
	fge "$p1" 95 && fge "$p2" 95
}
if ! two_cgroups; then
	h=$(htb_goodput 120 2)
	hp=$(pct "$h" "$(awk 'BEGIN { print 120 * 1448 / 1514 }')")
	note "htb at 120 Mbit/s, 2 flows: $h Mbit/s = $hp% of its ideal"
	fge "$hp" 97 || SKIPS="$SKIPS; two cgroups at $p1% and $p2% of their limits (htb $hp%)"
	[ -n "$SKIPS" ] || two_cgroups ||
		fail "two cgroups: /hbm1 at $p1%, /hbm2 at $p2% of their limits (htb $hp% of its ideal)"
fi

# Work conserving: 50 Mbit/s grows while eth0 (said to carry 400) is idle.
ht -r=50 -t=4 --edt -w --nic-rate=400
note "-w: goodput $GOODPUT Mbit/s, limit at the end $LIMIT Mbit/s"
fge "$GOODPUT" 75 || fail "-w: goodput $GOODPUT Mbit/s, expected well over 50"
fge 380.01 "$LIMIT" || fail "-w: the limit grew to $LIMIT, over 95% of the NIC's 400"
conform_done
