# bpfqdisc class for a kind loaded by path (issue 28): bpf_markq
# (selftests/oot/markq.bpf.c, built by the Makefile outside the tree as
# test_load_object's myq is) gives each skb mark a quota of packets, set by
# its class. Loaded from a copy that then goes, so that every class command
# (a new process) reads the kind's class tables from its pins: add, change,
# del and show (text and -j) with its own field and counters, its packets
# obeying its classes, stats with its statistics, a loaded kind without
# classes and a user without privilege refused in one line, and its
# classes gone with its qdisc.
. "$(dirname "$0")/lib.sh"
OOT=$TOP/.output/oot
PINS=/sys/fs/bpf/bpfqdisc
command -v setpriv >/dev/null || skip "setpriv is not in the VM"
for o in markq myq; do
	[ -s "$OOT/$o.bpf.o" ] || fail "no $OOT/$o.bpf.o: make builds it, on the host"
done
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cp "$OOT/markq.bpf.o" "$OOT/myq.bpf.o" "$W/"
cd "$W"
expect "$BQ" load ./markq.bpf.o
expect "$BQ" load ./myq.bpf.o
rm markq.bpf.o myq.bpf.o

veth_pair
quiet_va
expect "$BQ" -n a qdisc add dev va root bpf_markq
expect "$BQ" -n b qdisc add dev vb root bpf_myq
C="$BQ -n a class"
# pings MARK N: how many of N pings of mark MARK got an answer.
pings() {
	ip netns exec a ping -c "$2" -i 0.1 -W 1 -m "$1" $B 2>/dev/null |
		sed -n 's/.* \([0-9]*\) received.*/\1/p'
}

# --- the CLI, by bpf_markq's descriptor read from its pins ---------------
expect $C add dev va mark 5 quota 3
expect $C add dev va mark 7 quota 100
expect_err 2 "already a class for mark 5" $C add dev va mark 5 quota 3
expect_err 2 "which quota\? \(quota QUOTA, e.g. quota 10\)" $C add dev va mark 6
expect_err 2 "quota '0' out of range \(more than 0, at most 1000000000\)" $C add dev va mark 6 quota 0
expect_err 2 "unknown argument 'rate'" $C add dev va mark 6 rate 1mbit
expect_err 2 "^bpfqdisc: bpf_markq on va classifies by mark, not by priority$" \
	$C add dev va priority 1 quota 1
expect_err 2 "no class for mark 6" $C change dev va mark 6 quota 1
expect_err 2 "^bpfqdisc: bpf_myq on vb has no classes \(.*bpf_markq.* have\)$" \
	"$BQ" -n b class add dev vb mark 1 quota 1
expect_err 2 "^bpfqdisc: bpf_myq on vb has no classes" "$BQ" -n b class show dev vb
expect_err 1 "^bpfqdisc: missing capability CAP_BPF: run as root$" \
	ip netns exec a setpriv --reuid=65534 --regid=65534 --clear-groups "$BQ" class add dev va mark 9 quota 1

# --- its packets: mark 5 gets 3, then 3 more after a change --------------
# ping resends a packet the qdisc refused (ENOBUFS): "over" counts each try.
n=$(pings 5 5)
[ "$n" = 3 ] || fail "$n of 5 pings of mark 5 answered under a class of quota 3"
[ "$(pings 8 2)" = 2 ] || fail "pings of mark 8, with no class and no quota, lost"
expect $C change dev va mark 5 quota 6
n=$(pings 5 3)
[ "$n" = 3 ] || fail "$n of 3 pings of mark 5 answered after its quota went to 6"
show=$($C show dev va -j)
echo "$show" | jq -e '
	any(.[]; .mark == "5" and .id == 5 and .class and .quota == 6 and .sent == 6 and .over >= 2) and
	any(.[]; .mark == "8" and (.class | not) and .quota == 0 and .sent == 2 and .over == 0) and
	any(.[]; .mark == "7" and .class and .quota == 100 and .sent == 0 and .over == 0) and
	all(.[]; .mark != "9")' >/dev/null ||
	fail "class show -j: $show"
text=$($C show dev va)
echo "$text" | grep -Eq '^mark 5 quota 6 sent 6 over [1-9][0-9]*$' || fail "class show, mark 5: $text"
echo "$text" | grep -qx 'mark 8 quota none (default) sent 2 over 0' || fail "class show, mark 8: $text"
echo "$text" | grep -qx 'mark 7 quota 100 sent 0 over 0' || fail "class show, mark 7: $text"

# An aggregate without a class takes the quota parameter.
expect "$BQ" -n a qdisc change dev va root quota 4
show=$($C show dev va -j)
echo "$show" | jq -e 'any(.[]; .mark == "8" and (.class | not) and .quota == 4)' >/dev/null ||
	fail "class show -j after qdisc change quota 4: $show"
expect $C del dev va mark 7
show=$($C show dev va -j)
echo "$show" | jq -e 'length >= 2 and all(.[]; .mark != "7")' >/dev/null ||
	fail "mark 7's class outlived its del: $show"
expect_err 2 "no class for mark 7" $C del dev va mark 7

# --- stats: its statistics and drop reason, as class show counts them ----
# (mark 0's aggregate, IGMP's reports, may be there too)
aggs=$(echo "$show" | jq length)
over=$(echo "$show" | jq '.[] | select(.mark == "5") | .over')
j=$("$BQ" -n a stats -j)
echo "$j" | jq -e --argjson aggs "$aggs" --argjson over "$over" '
	length == 1 and .[0].kind == "bpf_markq" and .[0].options.quota == 4 and
	.[0].bpf.aggregates == $aggs and .[0].bpf.drops.over_quota == $over' >/dev/null ||
	fail "stats -j, expected $aggs aggregates and $over over_quota drops: $j"
prom=$("$BQ" -n a stats --prometheus)
echo "$prom" | grep -q "^bpfqdisc_markq_aggregates{.*} $aggs\$" || fail "no markq_aggregates $aggs in: $prom"
echo "$prom" | grep -q "^bpfqdisc_drops_total{.*kind=\"bpf_markq\".*reason=\"over_quota\".*} $over\$" ||
	fail "no $over over_quota drops in: $prom"

# --- its classes end with its qdisc (bq_classes_forget) ------------------
expect ip netns exec a tc qdisc del dev va root
classes=$(bpftool map dump pinned "$PINS/markq/markq_classes" -j | jq length)
[ "$classes" = 0 ] || fail "markq_classes holds $classes class(es) after the qdisc's end"
expect ip netns exec b tc qdisc del dev vb root
expect "$BQ" unload markq
expect "$BQ" unload myq
[ ! -e $PINS/markq ] && [ ! -e $PINS/myq ] || fail "left pinned: $(ls $PINS)"
