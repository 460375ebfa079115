# unload --force (what systemctl restart bpfqdisc@KIND runs before it loads
# again) under a live bpf_hbm: the kind is unregistered, but the live qdisc
# stays in stats, -j and Prometheus, can be changed, keeps its egress
# attachment (hbm_mark, which sets CE), and a new load shares its maps; the
# pins go once the qdisc is gone, and an egress pin goes with its device.
. "$(dirname "$0")/lib.sh"
PINS=/sys/fs/bpf/bpfqdisc/hbm

in_stats() { # NS: the bpf_hbm qdiscs bpfqdisc -n NS stats -j shows with their counters
	"$BQ" -n "$1" stats -j | jq '[.[] | select(.kind == "bpf_hbm" and .bpf.enqueued != null)] | length'
}
marking() { # NS DEV: hbm's egress program is attached there
	ip netns exec "$1" bpftool net show dev "$2" | grep -q 'tcx/egress.*hbm_mark'
}

expect "$BQ" load hbm
veth_pair
# A device that outlives the veth pair.
expect ip netns add c
expect ip -n c link add d0 type dummy
expect ip -n c link set d0 up
expect "$BQ" -n a qdisc add dev va root bpf_hbm rate 10mbit
marking a va || fail "no egress program on va: $(ip netns exec a bpftool net show dev va)"
expect "$BQ" unload hbm --force
ip netns exec b tc qdisc add dev vb root bpf_hbm 2>/dev/null && fail "bpf_hbm still registered"
[ "$(in_stats a)" = 1 ] || fail "the live qdisc left stats: $("$BQ" -n a stats -j)"
"$BQ" -n a stats --prometheus | grep -q '^bpfqdisc_enqueued_total{dev="va",kind="bpf_hbm"' ||
	fail "the live qdisc left Prometheus"
expect "$BQ" -n a qdisc change dev va root rate 20mbit
[ "$("$BQ" -n a qdisc show dev va -j | "$JGET" '.[0].options.rate')" = 2500000 ] || fail "change did not take"
marking a va || fail "the egress program went with unload --force"
before=$("$BQ" -n a stats -j | "$JGET" '.[0].bpf.enqueued')
expect ip netns exec a ping -c 3 -i 0.2 -W 2 -q $B >/dev/null
after=$("$BQ" -n a stats -j | "$JGET" '.[0].bpf.enqueued')
[ "$after" -ge $((before + 3)) ] || fail "counters stopped: $before -> $after"
"$BQ" list | grep -q "bpf_hbm.*unloaded with live qdiscs" || fail "list: $("$BQ" list)"

# The unit starts again: a new load, with the same sizes, shares the maps.
expect "$BQ" load hbm
expect "$BQ" -n c qdisc add dev d0 root bpf_hbm rate 5mbit
[ "$(in_stats a)" = 1 ] && [ "$(in_stats c)" = 1 ] || fail "after the new load: $("$BQ" -n a stats -j) $("$BQ" -n c stats -j)"
marking a va || fail "the egress program on va went with the new load"
marking c d0 || fail "no egress program on d0"
expect "$BQ" -n a qdisc change dev va root rate 30mbit
expect "$BQ" unload hbm --force
expect_err 1 "an earlier load of bpf_hbm use a map .* load it as before" "$BQ" load hbm --max-instances 8

# Egress pins go with their device (here with its netns, and the veth pair).
n=$(ls $PINS | grep -c '^egress_')
[ "$n" = 2 ] || fail "$n egress pins for 2 devices: $(ls $PINS)"
ip netns del a
sleep 1
expect "$BQ" list >/dev/null
n=$(ls $PINS | grep -c '^egress_')
[ "$n" = 1 ] || fail "$n egress pins after va went: $(ls $PINS)"

# The last qdisc goes: the next bpfqdisc command unpins everything.
expect ip netns exec c tc qdisc del dev d0 root
sleep 1
expect "$BQ" list >/dev/null
[ ! -e $PINS ] || fail "pins left after the last qdisc went: $(ls $PINS)"
