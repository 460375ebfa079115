# A plain unload and a tc qdisc add at once: the unload is stopped
# (BPFQDISC_STOP_AT=unpin, bq_stop_at) after it found no live qdisc and
# before it unpins; tc adds bpf_fifo then. Either the add is refused or
# the unload is: never a qdisc that list and stats do not show. A refused
# unload, and one killed at that point, leave the kind working.
. "$(dirname "$0")/lib.sh"
OUT=$(mktemp)

veth_pair
expect "$BQ" load fifo

# tc qdisc add while the unload is between its check and its unpin.
BPFQDISC_STOP_AT=unpin "$BQ" unload fifo >"$OUT" 2>&1 &
unloader=$!
wait_stopped $unloader || fail "unload did not stop before unpinning: $(cat "$OUT")"
set +e
why=$(ip netns exec a tc qdisc add dev va root handle 8001: bpf_fifo 2>&1)
added=$?
set -e
kill -CONT $unloader
wait_rc $unloader
note "tc qdisc add: exit $added ($why); unload: exit $rc ($(cat "$OUT"))"
if [ "$(qdisc_kind a va)" = bpf_fifo ]; then
	"$BQ" -n a list | grep -q "dev va" ||
		fail "bpf_fifo 8001 on va while list says: $("$BQ" -n a list | grep fifo)"
	[ $rc = 1 ] || fail "unload succeeded under a live bpf_fifo"
	expect ip netns exec a tc qdisc del dev va root
	expect "$BQ" unload fifo
else
	[ $added != 0 ] || fail "tc qdisc add succeeded but va has $(qdisc_kind a va)"
	[ $rc = 0 ] || fail "unload refused with no qdisc made: $(cat "$OUT")"
fi

# A refused unload leaves the kind taking new qdiscs.
expect "$BQ" load fifo
expect ip netns exec a tc qdisc add dev va root bpf_fifo
expect_err 1 "1 live qdisc" "$BQ" unload fifo
expect ip netns exec b tc qdisc add dev vb root bpf_fifo
expect ip netns exec a tc qdisc del dev va root
expect ip netns exec b tc qdisc del dev vb root

# So does one killed before it unpins, from the next bpfqdisc command on.
BPFQDISC_STOP_AT=unpin "$BQ" unload fifo >"$OUT" 2>&1 &
unloader=$!
wait_stopped $unloader || fail "unload did not stop before unpinning: $(cat "$OUT")"
kill -KILL $unloader
wait_rc $unloader
expect "$BQ" list >/dev/null
expect ip netns exec a tc qdisc add dev va root bpf_fifo
expect ip netns exec a tc qdisc del dev va root
expect "$BQ" unload fifo
exit 0
