# Load, unload and every command's tidy step take one lock. A load stopped
# (BPFQDISC_STOP_AT=link, bq_stop_at) after pinning its maps and before
# its link, which is when tidy took its pins for an earlier load's leftovers
# and removed them: a `list` meanwhile waits and then shows the kind
# loaded; a second load of the same kind waits and says "already loaded";
# another writer gives up after a bounded wait with one line.
. "$(dirname "$0")/lib.sh"
OUT=$(mktemp -d)

# stopped_load KIND: bpfqdisc load KIND, stopped before it pins its link;
# its pid in $loader, its stdout and stderr in $OUT/load.
stopped_load() {
	BPFQDISC_STOP_AT=link "$BQ" load "$1" >"$OUT/load" 2>&1 &
	loader=$!
	wait_stopped $loader || fail "load $1 did not stop before its link: $(cat "$OUT/load")"
}

# finish PID WHAT: PID's exit status in $rc.
finish() {
	set +e
	wait "$1"
	rc=$?
	set -e
}

# A list during the load waits for it.
stopped_load fifo
"$BQ" list >"$OUT/list" 2>&1 &
lister=$!
sleep 1
kill -CONT $loader
finish $loader
[ $rc = 0 ] || fail "load with a list running: exit $rc: $(cat "$OUT/load")"
finish $lister
[ $rc = 0 ] || fail "list during a load: exit $rc: $(cat "$OUT/list")"
grep -q "^bpf_fifo *loaded" "$OUT/list" || fail "list during the load did not wait for it: $(cat "$OUT/list")"
expect ip netns add a
expect ip netns exec a tc qdisc add dev lo root bpf_fifo
expect ip netns del a
expect "$BQ" unload fifo

# Two loads of one kind: the second waits, then says it is loaded.
stopped_load fifo
"$BQ" load fifo >"$OUT/second" 2>&1 &
second=$!
sleep 1
kill -CONT $loader
finish $loader
[ $rc = 0 ] || fail "the first of two loads: exit $rc: $(cat "$OUT/load")"
finish $second
[ $rc = 1 ] || fail "the second of two loads: exit $rc: $(cat "$OUT/second")"
[ "$(cat "$OUT/second")" = "bpfqdisc: bpf_fifo is already loaded" ] ||
	fail "the second of two loads said: $(cat "$OUT/second")"
expect "$BQ" unload fifo

# A writer behind a load that never ends gives up; a reader goes on without tidying.
stopped_load fifo
expect_err 1 "another bpfqdisc has held /sys/fs/bpf/bpfqdisc for 10 s" "$BQ" load fq
expect "$BQ" list >/dev/null
kill -CONT $loader
finish $loader
[ $rc = 0 ] || fail "the stopped load: exit $rc: $(cat "$OUT/load")"
expect "$BQ" unload fifo
exit 0
