# Load, unload and every command's tidy step take one lock. A load stopped
# (BPFQDISC_STOP_AT=link, bq_stop_at) after pinning its maps and before
# its link, which is when tidy took its pins for an earlier load's leftovers
# and removed them: a `list` meanwhile waits and then shows the kind
# loaded; a second load of the same kind waits and says "already loaded";
# another writer gives up after a bounded wait with one line.
. "$(dirname "$0")/lib.sh"
OUT=$(mktemp -d)

# stopped_load: bpfqdisc load fifo, stopped before it pins its link; its
# pid in $loader, its stdout and stderr in $OUT/load.
stopped_load() {
	BPFQDISC_STOP_AT=link "$BQ" load fifo >"$OUT/load" 2>&1 &
	loader=$!
	wait_stopped $loader || fail "load did not stop before its link: $(cat "$OUT/load")"
}

# behind_load ARGS...: bpfqdisc ARGS started while a load of bpf_fifo is
# stopped before its link, which then goes on and must succeed; the
# command's exit status in $rc, its output in $OUT/behind.
behind_load() {
	stopped_load
	"$BQ" "$@" >"$OUT/behind" 2>&1 &
	behind=$!
	sleep 1
	kill -CONT $loader
	wait_rc $loader
	[ $rc = 0 ] || fail "load with '$*' running: exit $rc: $(cat "$OUT/load")"
	wait_rc $behind
}

# A list during the load waits for it.
behind_load list
[ $rc = 0 ] || fail "list during a load: exit $rc: $(cat "$OUT/behind")"
grep -q "^bpf_fifo *loaded" "$OUT/behind" || fail "list during the load did not wait for it: $(cat "$OUT/behind")"
expect ip netns add a
expect ip netns exec a tc qdisc add dev lo root bpf_fifo
expect ip netns exec a tc qdisc del dev lo root
expect ip netns del a
expect "$BQ" unload fifo

# Two loads of one kind: the second waits, then says it is loaded.
behind_load load fifo
[ $rc = 1 ] || fail "the second of two loads: exit $rc: $(cat "$OUT/behind")"
[ "$(cat "$OUT/behind")" = "bpfqdisc: bpf_fifo is already loaded" ] ||
	fail "the second of two loads said: $(cat "$OUT/behind")"
expect "$BQ" unload fifo

# A writer behind a load that never ends gives up; a reader goes on without tidying.
stopped_load
expect_err 1 "another bpfqdisc has held /sys/fs/bpf/bpfqdisc for 10 s" "$BQ" load fq
expect "$BQ" list >/dev/null
kill -CONT $loader
wait_rc $loader
[ $rc = 0 ] || fail "the stopped load: exit $rc: $(cat "$OUT/load")"
expect "$BQ" unload fifo
exit 0
