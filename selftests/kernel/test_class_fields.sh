# `bpfqdisc class` on classes it was not written for: bpf_maxlen
# (selftests/bpf/maxlen.bpf.c, in bin/bpfqdisc_test only) declares classes
# keyed by mark always, with two fields (maxlen, a __u32 in bytes that an
# aggregate without a class takes from the maxlen parameter; tag, a __u64
# count shown as "none" when 0) and its own counters (pkts, too_long, with
# the key last in the entry and entry 0 in use). src/lib/class.c knows none of
# this but through the descriptor: add, change, del and show (text, JSON)
# drive it, bad input is refused by its fields' ranges, and its own packets
# obey its classes. Before classes were a descriptor, class.c looked for
# bpf_hbm's maps by name and said "bpf_maxlen on va has no classes".
. "$(dirname "$0")/lib.sh"
PINS=/sys/fs/bpf/bpfqdisc

BQT="$TOP/bin/bpfqdisc_test"
expect "$BQT" load maxlen
veth_pair
quiet_va	# the packets of mark 0 are the test's only
expect "$BQT" -n a qdisc add dev va root bpf_maxlen maxlen 1000
C="$BQT -n a class"

# --- the CLI, by bpf_maxlen's descriptor ----------------------------------
expect $C add dev va mark 5 maxlen 100 tag 7
expect_err 2 "already a class for mark 5" $C add dev va mark 5 maxlen 100 tag 7
expect_err 2 "which tag\? \(tag TAG, e.g. tag 10\)" $C add dev va mark 6 maxlen 100
expect_err 2 "maxlen '0' out of range \(more than 0, at most 65535b\)" \
	$C add dev va mark 6 maxlen 0 tag 1
expect_err 2 "tag '1000001' out of range \(at most 1000000\)" $C add dev va mark 6 maxlen 1 tag 1000001
expect_err 2 "bad maxlen 'x'" $C add dev va mark 6 maxlen x tag 1
# rate is bpf_hbm's field, which the registry of bpfqdisc_test also has:
# taken before the qdisc is known, refused by bpf_maxlen's descriptor.
expect_err 2 "unknown argument 'rate'" $C add dev va mark 6 rate 1mbit
expect_err 2 "^bpfqdisc: bpf_maxlen on va classifies by mark, not by priority$" \
	$C add dev va priority 1 maxlen 100 tag 1
expect_err 2 "class del takes no maxlen" $C del dev va mark 5 maxlen 1
expect_err 2 "no class for mark 6" $C change dev va mark 6 maxlen 100 tag 1
show=$($C show dev va -j)
echo "$show" | jq -e 'map(select(.class)) | length == 1 and .[0].mark == "5" and .[0].id == 5 and .[0].maxlen == 100 and
	.[0].tag == 7 and .[0].class and .[0].pkts == 0 and .[0].too_long == 0' >/dev/null ||
	fail "classes after bad input: $show"
expect $C change dev va mark 5 maxlen 120 tag 0
expect $C add dev va mark 9 maxlen 64 tag 3

# --- its packets: mark 5 over 120 bytes dropped, others up to 1000 --------
ip netns exec a ping -q -c 3 -i 0.1 -W 1 -m 5 -s 200 $B >/dev/null 2>&1 &&
	fail "242-byte pings of mark 5 got through a class of maxlen 120"
expect ip netns exec a ping -q -c 2 -i 0.1 -m 5 -s 20 $B >/dev/null
expect ip netns exec a ping -q -c 2 -i 0.1 -s 200 $B >/dev/null
show=$($C show dev va -j)
echo "$show" | jq -e '
	any(.[]; .mark == "5" and .class and .maxlen == 120 and .tag == 0 and .pkts >= 2 and
		.too_long >= 3) and
	any(.[]; .mark == "0" and (.class | not) and .maxlen == 1000 and .tag == 0 and .pkts >= 2 and
		.too_long == 0) and
	any(.[]; .mark == "9" and .class and .maxlen == 64 and .tag == 3 and .pkts == 0)' >/dev/null ||
	fail "class show -j: $show"
text=$($C show dev va)
echo "$text" | grep -Eq '^mark 5 maxlen 120b tag none pkts [0-9]+ too_long [0-9]+$' ||
	fail "class show, mark 5: $text"
echo "$text" | grep -Eq '^mark 0 maxlen 1000b tag none \(default\) pkts [0-9]+ too_long 0$' ||
	fail "class show, mark 0: $text"
echo "$text" | grep -qx 'mark 9 maxlen 64b tag 3 pkts 0 too_long 0' || fail "class show, mark 9: $text"

expect $C del dev va mark 9
[ "$($C show dev va -j | jq '[.[] | select(.class)] | length')" = 1 ] ||
	fail "mark 9's class outlived its del: $($C show dev va)"
# Its classes end with the qdisc (bq_classes_forget).
expect ip netns exec a tc qdisc del dev va root
classes=$(bpftool map dump pinned "$PINS/maxlen/maxlen_classes" -j | jq length)
[ "$classes" = 0 ] || fail "maxlen_classes holds $classes class(es) after the qdisc's end"
exit 0
