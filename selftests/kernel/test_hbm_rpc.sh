# HBM: a 10 KB RPC flow next to three flows of 1 MB requests
# (tools/hbm-test -R) keeps its P99 latency well below what it gets from
# htb at the same rate, in credit mode and in EDT mode (with fq). Credit
# mode queues nothing; EDT mode lets a flow with nothing queued send its
# first 10 MTU ahead of the cgroup's clock; htb's FIFO makes each request
# wait for the bulk bytes queued before it. Two rounds each, interleaved,
# in the same boot, with 1 ms of netem delay (at veth's 0.3 ms RTT TCP's
# minimum window is above 50 Mbit/s, and credit mode holds the rate only by
# drops that stall TCP for 200 ms, docs/hbm.md). Passes when each mode's
# mean P99 is under 3/4 of htb's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hbm_lib.sh"

RATE=50	# Mbit/s

# rpc_p99 ARGS...: the RPC flow's P99 (ms) in a tools/hbm-test -R run.
rpc_p99() {
	"$HT" -R -f=4 -d=1 -t=5 -r=$RATE "$@" cubic >"$TMPD/rpc.out" 2>&1 ||
		fail "hbm-test -R $* failed: $(tail -3 "$TMPD/rpc.out")"
	p=$(awk '/^P99 latency for flow 1:/ { print $(NF - 1) / 1000 }' "$TMPD/rpc.out")
	[ -n "$p" ] || fail "hbm-test -R $* printed no P99: $(tail -3 "$TMPD/rpc.out")"
	echo "$p"
}

# turns: packets the last run's EDT program sent in a flow's turn (-S).
turns() { awk -F: '/^pkts_turn:/ { print $2 + 0 }' "$TMPD/rpc.out"; }

credit= edt= htb=
for r in 1 2; do
	credit="$credit $(rpc_p99)"
	edt="$edt $(rpc_p99 --edt -S)"
	[ "$(turns)" -gt 0 ] 2>/dev/null || fail "EDT mode: pkts_turn '$(turns)', expected some"
	htb="$htb $(rpc_p99 -q=htb)"
done
[ "$(echo $credit $edt $htb | wc -w)" = 6 ] ||
	fail "a run gave no P99: credit mode '$credit', EDT mode '$edt', htb '$htb'"
mean() { echo "$1" | awk '{ for (i = 1; i <= NF; i++) s += $i; printf "%.1f", s / NF }'; }
cm=$(mean "$credit") em=$(mean "$edt") hm=$(mean "$htb")
note "RPC P99 at $RATE Mbit/s next to 3 bulk flows: credit mode$credit ms (mean $cm), EDT mode$edt ms (mean $em), htb$htb ms (mean $hm)"
fge "$hm" 10 || skip "htb built no queue (RPC P99 $hm ms): nothing to compare"
bound=$(awk -v h="$hm" 'BEGIN { print h * 3 / 4 }')
fge "$bound" "$cm" || fail "credit mode: RPC P99 $cm ms, not under 3/4 of htb's $hm ms"
fge "$bound" "$em" || fail "EDT mode: RPC P99 $em ms, not under 3/4 of htb's $hm ms"
exit 0
