# bpf_hbm's aggregate table full: a qdisc holds HBM_AGGS - 1 = 255
# aggregates, and packets of keys with no room go to a shared aggregate
# (counted in agg_overflow, bpf/hbm.bpf.c) until idle aggregates (empty for
# 1 s) are reused (aggs_aged). Here, classified by mark, datagrams with 300
# different marks (plus an unmarked ping and ARP): the table fills at 255,
# the rest are counted as overflow and still get through (nothing dropped
# for want of room, nothing passed uncounted), a new mark once the first
# ones are idle takes one of theirs, a reset empties the table, and
# nothing leaks.
# test_hbm_agg_table holds classes to their rates in a full table.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"

veth_pair
leak_baseline
load_kinds hbm
agg_flood 300 255 40

sleep 1.2
expect ip netns exec a ping -q -c 3 -i 0.2 -W 2 -m 1000 $B >/dev/null
aggs=$(hstat aggregates) aged=$(hstat aggs_aged)
note "a new mark after 1.2 s: $aggs aggregates, $aged reused"
[ "$aggs" = 255 ] && [ "$aged" -ge 1 ] || fail "$aggs aggregates, $aged reused for mark 1000"
"$BQ" -n a class show dev va -j | jq -e 'any(.[]; .mark == "1000" and .pkts >= 2)' >/dev/null ||
	fail "mark 1000 got no idle aggregate: $("$BQ" -n a class show dev va)"

expect ip -n a link set va down
expect ip -n a link set va up
expect ip netns exec a ping -q -c 3 -i 0.2 -W 2 -m 1000 $B >/dev/null
aggs=$(hstat aggregates)
note "after a reset: $aggs aggregates"
[ "$aggs" -le 3 ] || fail "$aggs aggregates after a reset"
"$BQ" -n a class show dev va -j | jq -e 'any(.[]; .mark == "1000")' >/dev/null ||
	fail "mark 1000 has no aggregate after a reset: $("$BQ" -n a class show dev va)"

expect ip netns exec a tc qdisc del dev va root
expect_no_leak hbm
exit 0
