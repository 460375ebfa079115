# bpf_hbm: the class CLI (bad input refused with one line and exit 2,
# nothing changed), classification by mark, CE marks from the companion
# (hbm_mark) with -E, bpfqdisc stats (rate, marked, dropped), and reset and
# destroy with packets queued leaving no skb behind.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hbm_lib.sh"

expect "$BQ" load hbm
veth_pair
expect "$BQ" -n a qdisc add dev va root bpf_hbm rate 1mbit classify 1

# --- the class CLI -------------------------------------------------------
C="$BQ -n a class"
expect $C add dev va mark 5 rate 10mbit
expect_err 2 "already a class for mark 5" $C add dev va mark 5 rate 20mbit
expect_err 2 "no class for mark 6" $C change dev va mark 6 rate 20mbit
expect_err 2 "no class for mark 6" $C del dev va mark 6
expect_err 2 "rate '0' out of range" $C add dev va mark 7 rate 0
expect_err 2 "bad rate '-1'" $C add dev va mark 7 rate -1
expect_err 2 "out of range" $C add dev va mark 7 rate 99999999tbit
expect_err 2 "bad rate '10mbt'" $C add dev va mark 7 rate 10mbt
expect_err 2 "which rate" $C add dev va mark 7
expect_err 2 "bad mark 'x'" $C add dev va mark x rate 1mbit
expect_err 2 "bad mark '4294967296'" $C add dev va mark 4294967296 rate 1mbit
expect_err 2 "classifies by mark .classify 1., not by cgroup" $C add dev va cgroup / rate 1mbit
expect_err 2 "no cgroup '/nope-hbm'" $C add dev va cgroup /nope-hbm rate 1mbit
expect_err 2 "no such device 'nodev'" $C add dev nodev mark 7 rate 1mbit
expect_err 2 "no BPF qdisc of bpfqdisc at vb" "$BQ" -n b class add dev vb mark 7 rate 1mbit
expect_err 2 "unknown class command 'move'" $C move dev va mark 7
expect_err 2 "unknown argument 'speed'" $C add dev va mark 7 speed 1mbit
expect_err 2 "class del takes no rate" $C del dev va mark 5 rate 1mbit
expect_err 2 "out of range" "$BQ" -n a qdisc change dev va root classify 3
expect "$BQ" load fifo
expect "$BQ" -n b qdisc add dev vb root bpf_fifo
expect_err 2 "bpf_fifo on vb has no classes" "$BQ" -n b class add dev vb mark 7 rate 1mbit
# classify may not change under classes: mark 5 would be read as cgroup 5.
expect_err 2 "has 1 class by mark .classify 1.*: delete it first" "$BQ" -n a qdisc change dev va root classify 0
expect_err 2 "has 1 class by mark" "$BQ" -n a qdisc replace dev va root bpf_hbm classify 2
expect "$BQ" -n a qdisc change dev va root classify 1
# Nothing of the above changed anything: one class, mark 5 at 10mbit.
show=$($C show dev va -j)
echo "$show" | jq -e '[.[] | select(.class)] | length == 1 and .[0].mark == "5" and .[0].rate == 1250000' \
	>/dev/null || fail "classes after bad input: $show"
expect $C change dev va mark 5 rate 20mbit
expect $C add dev va mark 6 rate 30mbit
expect $C del dev va mark 6

# --- classification by mark: ping -m puts SO_MARK on its packets -------
expect ip netns exec a ping -q -c 5 -i 0.1 -m 5 $B >/dev/null
expect ip netns exec a ping -q -c 3 -i 0.1 $B >/dev/null
show=$($C show dev va -j)
echo "$show" | jq -e 'any(.[]; .mark == "5" and .class and .rate == 2500000 and .pkts >= 5) and
	any(.[]; .mark == "0" and (.class | not) and .rate == 125000 and .pkts >= 3)' >/dev/null ||
	fail "aggregates by mark: $show"

# --- stats: rate, marked, dropped -------------------------------------
json=$("$BQ" -n a stats -j)
for k in rate_bytes_per_second marked dropped ce_marked aggregates; do
	echo "$json" | jq -e ".[0].bpf | has(\"$k\")" >/dev/null || fail "stats -j has no $k: $json"
done
[ "$(echo "$json" | "$JGET" '.[0].bpf.aggregates')" -ge 2 ] || fail "under 2 aggregates: $json"
"$BQ" -n a stats --prometheus | grep -q '^bpfqdisc_hbm_dropped_total{dev="va"' ||
	fail "no bpfqdisc_hbm_dropped_total in --prometheus"

# --- CE marks from hbm_mark, and the counts -------------------------------
ht -q=bpf_hbm -r=50 -t=3 -f=4 -E cubic
marked=$(awk -F': ' '/^pkts_marked:/ { print $2 }' "$TMPD/ht.out")
note "-q=bpf_hbm -E, 4 flows at 50 Mbit/s: goodput $GOODPUT Mbit/s, over the mark threshold $marked, CE $CE, drops $DROP_PCT%"
[ "$CE" -gt 0 ] || fail "no CE marks with -E: $(cat "$TMPD/ht.out")"

# --- reset and destroy with packets queued -------------------------------
# 1 Mbit/s: the drop horizon is 5 s (625 KB), so UDP at full speed queues.
base=$(skb_slab)
udp_flood 40
wait_backlog a va 200 10 || fail "no queue built: $(ip netns exec a tc -s qdisc show dev va)"
reset_empties a va
expect ip -n a link set va up
wait_backlog a va 200 10 || fail "no queue built after reset"
# Not stop_floods: its bare wait would also wait for hbm_lib's holders.
kill $FLOODS 2>/dev/null || true
wait $FLOODS 2>/dev/null || true
# Read once no enqueue runs: a copy taken mid-enqueue can hold the one
# counter bumped and not yet the other. The queue drains for seconds yet.
json=$("$BQ" -n a stats -j)
queued=$(echo "$json" | "$JGET" '.[0].qlen')
[ "$queued" -gt 0 ] || fail "the queue drained before destroy: $json"
echo "$json" | jq -e '.[0].bpf.dropped > 0 and .[0].bpf.drops.horizon == .[0].bpf.dropped' >/dev/null ||
	fail "horizon drops not counted as dropped: $json"
$C show dev va | grep -q "mark 5 rate 20Mbit pkts" || fail "the class did not survive reset: $($C show dev va)"
expect ip netns exec a tc qdisc del dev va root
note "destroyed with $queued packets queued"
wait_slab_below $((base + 400)) 10 || fail "skbuff slab at $(skb_slab) objects, baseline $base"
note "skbuff slab: baseline $base, after $(skb_slab)"

# A new qdisc in the same slot starts without the old one's classes.
expect "$BQ" -n a qdisc add dev va root bpf_hbm classify 1
[ "$($C show dev va -j | jq '[.[] | select(.class)] | length')" = 0 ] ||
	fail "classes of a destroyed qdisc came back: $($C show dev va)"
# With no classes, classify may change.
expect "$BQ" -n a qdisc change dev va root classify 0

# class add takes no lock: racing a change of classify, the writer that
# comes second backs out. Each is stopped before its write (bq_stop_at)
# while the other runs.
stopped_writer() {
	BPFQDISC_STOP_AT=write "$@" 2>"$TMPD/race" &
	pid=$!
	wait_stopped $pid || fail "'$*' did not stop before its write: $(cat "$TMPD/race")"
}
resumed() {
	kill -CONT $pid
	set +e
	wait $pid
	rc=$?
	set -e
	[ "$rc" = "$1" ] && grep -Eq "$2" "$TMPD/race" ||
		fail "after the race: exit $rc, expected $1: $(cat "$TMPD/race")"
}
stopped_writer $C add dev va cgroup / rate 1mbit
expect "$BQ" -n a qdisc change dev va root classify 1
resumed 1 "classify of bpf_hbm on va changed meanwhile: the class is not added"
[ "$($C show dev va -j | jq '[.[] | select(.class)] | length')" = 0 ] ||
	fail "a class by cgroup stayed under classify 1: $($C show dev va)"
stopped_writer "$BQ" -n a qdisc change dev va root classify 0
expect $C add dev va mark 9 rate 1mbit
resumed 2 "has 1 class by mark"
expect $C change dev va mark 9 rate 2mbit
exit 0
