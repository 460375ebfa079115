# Helpers of the HBM tests (test_hbm_*.sh), sourced after lib.sh.
# tools/hbm-test carries the traffic: namespaces hbmc (client, in cgroup
# /hbm<id>) and hbms (server), 198.51.100.0/24.

HBM="$TOP/bin/hbm"
HT="$TOP/tools/hbm-test"
PINS=/sys/fs/bpf/bpfqdisc
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)

[ -x "$HBM" ] || skip "bin/hbm is not built"
[ -n "$CG" ] || skip "no cgroup2 mount"
command -v iperf3 >/dev/null || skip "no iperf3"

HBM_PIDS= HOLD_PIDS=
# What a test may leave: hbm processes it started, pins, cgroups, netns.
hbm_cleanup() {
	for p in $HBM_PIDS $HOLD_PIDS; do kill "$p" 2>/dev/null || true; done
	for p in $HOLD_PIDS; do wait "$p" 2>/dev/null || true; done
	for p in $HBM_PIDS; do wait "$p" 2>/dev/null || true; done
	HBM_PIDS=
	for d in "$PINS"/hbm[0-9]*; do
		[ -d "$d" ] || continue
		rm -f "$d"/* && rmdir "$d" 2>/dev/null || true
	done
	for d in "$CG"/hbm[0-9]*; do [ -d "$d" ] && rmdir "$d" 2>/dev/null || true; done
	"$HT" teardown 2>/dev/null || true
	rm -rf "$TMPD"
}
trap hbm_cleanup EXIT

# hbm_bg ARGS...: start hbm in the background; returns once it says it is
# limiting (the program is attached). Sets $HBM_PID.
hbm_bg() {
	id=1
	prev=
	for a in "$@"; do [ "$prev" = -n ] && id=$a; prev=$a; done
	"$HBM" "$@" >"$TMPD/hbm.$id.out" 2>"$TMPD/hbm.$id.err" &
	HBM_PID=$!
	HBM_PIDS="$HBM_PIDS $HBM_PID"
	i=0
	until grep -q '^hbm: limiting cgroup' "$TMPD/hbm.$id.err"; do
		kill -0 $HBM_PID 2>/dev/null || fail "hbm $* exited: $(cat "$TMPD/hbm.$id.err")"
		i=$((i + 1))
		[ $i -le 100 ] || fail "hbm $* did not attach in 5 s"
		sleep 0.05
	done
}

TMPD=$(mktemp -d)

# Static keys held on for the whole test, also when it runs without
# selftests/kernel/run: netstamp_needed_key (hold_netstamp, lib.sh) and the
# cgroup egress key, which every hbm run flips when it is the only egress
# program, with the same risk under TCG. An idle hbm (id 999, empty cgroup)
# holds the latter.
hold_static_keys() {
	hold_netstamp
	HOLD_PIDS=${HOLD:-}
	"$HBM" -n 999 -r 100000 >/dev/null 2>&1 &
	HOLD_PIDS="$HOLD_PIDS $!"
}
hold_static_keys

# ht ARGS...: one tools/hbm-test run with hbm's stats; its output is in
# $TMPD/ht.out and the numbers in $GOODPUT (Mbit/s), $DROP_PCT, $CE
# (CE-marked packets), $CN (packets returned with CN), $EXEMPT (loopback
# packets let through) and $LIMIT (the limit at the end, Mbit/s).
ht() {
	"$HT" -S -o "$TMPD/run" "$@" >"$TMPD/ht.out" 2>&1 || fail "hbm-test $* failed: $(tail -5 "$TMPD/ht.out")"
	# One awk for every number: processes start slowly under TCG.
	eval "$(awk -F: '
		/^AGGREGATE_GOODPUT:/ { g = $2 }
		/^pkts_dropped_percent:/ { d = $2 + 0 }
		/^pkts_ecn_ce:/ { sub(/.*\(/, ""); ce = $0 + 0 }
		/^[A-Z_]*_CWR:/ { sub(/.*\(/, ""); cn += $0 }
		/^pkts_exempt:/ { ex = $2 + 0 }
		/^limit_mbps:/ { lim = $2 + 0 }
		END { printf "GOODPUT=%s DROP_PCT=%s CE=%d CN=%d EXEMPT=%d LIMIT=%s\n", g, d + 0, ce, cn, ex, lim + 0 }
	' "$TMPD/ht.out")"
	[ -n "$GOODPUT" ] || fail "hbm-test $* printed no goodput: $(tail -5 "$TMPD/ht.out")"
}

# pct A B: A as a percentage of B, one decimal.
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a * 100 / b }'; }
# fge A B: A >= B for decimals.
fge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

# conform LIMIT ARGS...: goodput of hbm-test ARGS (rate LIMIT) must be 95-101%
# of LIMIT, measured once on the virtual clock (docs/testing.md), where host
# stalls do not steal guest time. Failures are collected in $FAILS;
# conform_done ends the test.
FAILS=
conform() {
	l=$1
	shift
	ht -r="$l" -O=1 -t=4 "$@"
	p=$(pct "$GOODPUT" "$l")
	note "-r=$l $*: goodput $GOODPUT Mbit/s = $p% of the limit, drops $DROP_PCT%, CE $CE, CN $CN"
	fge 101 "$p" || { FAILS="$FAILS; -r=$l $* at $p% (> 101%)"; return 0; }
	fge "$p" 95 || FAILS="$FAILS; -r=$l $* at $p%"
}

# conform_done: the verdict over every conform call.
conform_done() {
	[ -z "$FAILS" ] || fail "rate conformance:${FAILS#;}"
	exit 0
}

# two_limits QDISC ARGS...: cgroups /hbm1 at 40 and /hbm2 at 80 Mbit/s side
# by side through one QDISC on the client's eth0, ARGS given to both
# hbm-test runs: each within 95-101% of its own limit.
two_limits() {
	"$HT" setup -q="$1"
	shift
	"$HT" -i=1 -r=40 -t=4 -O=1 -p=5201 -o "$TMPD/a" "$@" >"$TMPD/a.out" 2>&1 &
	a=$!
	"$HT" -i=2 -r=80 -t=4 -O=1 -p=5301 -o "$TMPD/b" "$@" >"$TMPD/b.out" 2>&1 &
	b=$!
	wait $a || fail "cgroup 1's run failed: $(tail -3 "$TMPD/a.out")"
	wait $b || fail "cgroup 2's run failed: $(tail -3 "$TMPD/b.out")"
	"$HT" teardown
	g1=$(awk -F: '/^AGGREGATE_GOODPUT:/ { print $2 }' "$TMPD/a.out")
	g2=$(awk -F: '/^AGGREGATE_GOODPUT:/ { print $2 }' "$TMPD/b.out")
	p1=$(pct "$g1" 40) p2=$(pct "$g2" 80)
	note "two cgroups ($*): /hbm1 $g1 Mbit/s of 40 ($p1%), /hbm2 $g2 Mbit/s of 80 ($p2%)"
	fge 101 "$p1" || fail "/hbm1 got $g1 Mbit/s, over its limit of 40"
	fge 101 "$p2" || fail "/hbm2 got $g2 Mbit/s, over its limit of 80"
	fge "$p1" 95 && fge "$p2" 95 ||
		fail "two cgroups: /hbm1 at $p1%, /hbm2 at $p2% of their limits (95-101%)"
}
