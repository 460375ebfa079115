# Per-instance parameters through bpfqdisc qdisc add|replace|change|show:
# applied from the first packet, changed live, different per instance, and
# bad input refused with exit 2 and nothing changed.
. "$(dirname "$0")/lib.sh"

limit_of() { # NS DEV: the limit bpfqdisc reports for DEV's root qdisc
	"$BQ" -n "$1" qdisc show dev "$2" -j | "$JGET" '.[0].options.limit'
}

expect "$BQ" load fifo
veth_pair
slow_receiver

# Atomic add under load: the queue never exceeds the given limit.
udp_flood 30
sleep 1
expect "$BQ" -n a qdisc replace dev va root bpf_fifo limit 5
max=0
for i in 1 2 3 4 5 6 7 8; do
	q=$(tc_stat a va qlen)
	[ "$q" -le "$max" ] || max=$q
done
note "limit 5 from the start: max qlen $max, drops $(tc_stat a va drops)"
[ "$max" -le 6 ] || fail "qlen $max with limit 5"
[ "$(tc_stat a va drops)" -gt 0 ] || fail "no drops with limit 5 under flood"
[ "$(limit_of a va)" = 5 ] || fail "show: $("$BQ" -n a qdisc show dev va)"

# Live change: the next packets see limit 400.
expect "$BQ" -n a qdisc change dev va root limit 400
wait_backlog a va 50 10 || fail "limit 400 did not take: qlen $(tc_stat a va qlen)"
stop_floods

# Two instances, different parameters.
expect "$BQ" -n b qdisc add dev vb root handle 7: bpf_fifo limit 33
[ "$(limit_of b vb)" = 33 ] || fail "vb limit $(limit_of b vb)"
[ "$(limit_of a va)" = 400 ] || fail "va limit changed by vb: $(limit_of a va)"

# replace on the same kind changes parameters in place (BPF qdiscs have no .change).
h=$(ip netns exec b tc -j qdisc show dev vb root | "$JGET" '.[0].handle')
expect "$BQ" -n b qdisc replace dev vb root bpf_fifo limit 44
[ "$(ip netns exec b tc -j qdisc show dev vb root | "$JGET" '.[0].handle')" = "$h" ] || fail "replace recreated the qdisc"
[ "$(limit_of b vb)" = 44 ] || fail "replace did not change limit"

# JSON and stats, checked by jq.
"$BQ" -n a qdisc show -s -j | jq -e 'map(select(.kind == "bpf_fifo")) | length == 1' >/dev/null ||
	fail "show -j: $("$BQ" -n a qdisc show -s -j)"
"$BQ" -n a stats -j | jq -e '.[0].bpf.drops.overlimit > 0 and .[0].packets > 0 and (.[0].bpf.enqueued >= .[0].bpf.dequeued)' >/dev/null ||
	fail "stats -j: $("$BQ" -n a stats -j)"

# Bad input: exit 2, one line, nothing changed.
expect_err 2 "unknown parameter 'limt'" "$BQ" -n a qdisc change dev va root limt 5
expect_err 2 "bad value '5ms' for limit" "$BQ" -n a qdisc change dev va root limit 5ms
expect_err 2 "limit 0 is out of range" "$BQ" -n a qdisc change dev va root limit 0
expect_err 2 "limit 99999999999999999999 is out of range|bad value" "$BQ" -n a qdisc change dev va root limit 99999999999999999999
expect_err 2 "no such device 'nosuch'" "$BQ" -n a qdisc change dev nosuch root limit 5
expect_err 2 "no such network namespace 'zz'" "$BQ" -n zz qdisc show
expect_err 2 "which device" "$BQ" -n a qdisc add root bpf_fifo
expect_err 2 "no BPF qdisc" "$BQ" qdisc change dev lo root limit 5
expect_err 2 "unknown qdisc 'bpf_nosuch'" "$BQ" -n a qdisc add dev va root bpf_nosuch
expect_err 2 "bad handle" "$BQ" -n a qdisc add dev va parent zz bpf_fifo
[ "$(limit_of a va)" = 400 ] || fail "a refused change changed the limit to $(limit_of a va)"
expect "$BQ" unload fifo --force
expect_err 2 "bpf_fifo is not loaded" "$BQ" qdisc add dev lo root bpf_fifo
expect "$BQ" load fifo

# A second changer is refused while the first holds the kind; an add,
# whose parameters travel in its own request, is not.
flock /sys/fs/bpf/bpfqdisc/fifo sleep 3 &
sleep 0.5
expect "$BQ" qdisc add dev lo root bpf_fifo limit 9
expect_err 2 "another bpfqdisc is changing bpf_fifo" "$BQ" qdisc change dev lo root limit 8
wait
[ "$("$BQ" qdisc show dev lo -j | "$JGET" '.[0].options.limit')" = 9 ] || fail "lo limit"
exit 0
