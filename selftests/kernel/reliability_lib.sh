# Helpers for the reliability tests of issue 7 (leaks, churn, exhaustion;
# docs/reliability.md), sourced after lib.sh.
#
# "No leak" means two things come back: the skbuff slab (no skb held) and
# the memory of the BPF maps (no qdisc instance left holding its kind's
# struct_ops map, and with it every map of the kind). Maps are preallocated,
# so their size does not move while a kind is loaded; what shows a leaked
# instance is that unloading no longer frees them.

# map_bytes: memory of every BPF map in the system (memlock summed; from
# bpftool's text, not its JSON: a jq costs the VM 0.29 s, and the leak
# checks poll this).
map_bytes() {
	bpftool map show | awk '{ for (i = 1; i < NF; i++) if ($i == "memlock") { v = $(i + 1); sub("B$", "", v); s += v } } END { print s + 0 }'
}

# slots_used KIND: instances of KIND that hold a slot (bq_slots: slot ->
# .slot.owner, the owning Qdisc, 0 when free).
slots_used() {
	bpftool map dump pinned "/sys/fs/bpf/bpfqdisc/$1/bq_slots" -j |
		jq '[.[] | select(.formatted.value.slot.owner != 0)] | length'
}

# listed_instances: live qdiscs bpfqdisc list shows, of every kind.
listed_instances() { "$BQ" list | grep -c '^  ifindex' || true; }

# leak_baseline: skbuff slab and map memory before the scenario (call it
# before loading the kinds, and after slow_receiver: its XDP program's maps
# stay until the veth goes). A qdisc of an earlier test may still be going
# away with its netns (the kernel does that from a work queue), holding its
# kind's maps: wait for those first.
leak_baseline() {
	wait_for 10 no_kind_maps || fail "maps of an unloaded kind stay: $(bpftool map show)"
	SLAB0=$(skb_slab)
	MAPS0=$(map_bytes)
}

# wait_for SECS CMD...: until CMD succeeds, polled every 0.1 s; fails
# (returns 1) after SECS of wall time. Counting polls instead undercounts
# badly under TCG, where one poll of bpftool and jq took ~0.35 s.
wait_for() {
	end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt $end ] || return 1
		sleep 0.1
	done
}

# A kind unloaded with --force keeps its maps pinned until a bpfqdisc
# command finds its qdiscs gone: each poll is one, and one of
# bpfqdisc_test, the only one that knows the test kinds (test_kinds).
no_kind_maps() {
	"$BQ" list >/dev/null 2>&1
	"$TOP/bin/bpfqdisc_test" list >/dev/null 2>&1
	! bpftool map show | grep -q ' name bq_slots '
}

# maps_at BYTES: map memory back to BYTES (the kernel frees maps after an
# RCU grace period, once their last user is gone).
maps_at() { [ "$(map_bytes)" -le "$1" ]; }

# LEAK_OPS: the operations of a leak test that could each leak an skb (a
# packet freed by a reset or a destroy, a replace), which the test counts.
# The slab margin, LEAK_MARGIN (default 400), must stay below it, so that
# one skb leaked per operation fails the check: sockets, NAPI caches and
# neighbours hold up to ~150 skbs for a while whatever the qdisc; a test
# that quiesces them first may set less.
#
# BPFQDISC_LEAK_PROBE=1 leaks one skb per operation on purpose before the
# check (LEAK_OPS datagrams, held 100 s by netem in a netns of their own,
# gone with it at cleanup), to show that the check then fails.
leak_probe() {
	[ -n "${BPFQDISC_LEAK_PROBE:-}" ] && [ -z "${PROBED:-}" ] || return 0
	PROBED=1
	expect ip netns add leakprobe
	expect ip -n leakprobe link add vp type veth peer name vq
	expect ip -n leakprobe link set vp up
	expect ip -n leakprobe link set vq up
	expect ip -n leakprobe addr add 198.51.100.1/24 dev vp
	expect ip -n leakprobe neigh add 198.51.100.2 lladdr 02:00:00:00:00:02 dev vp nud permanent
	expect ip netns exec leakprobe tc qdisc add dev vp root netem delay 100s limit 100000
	expect ip netns exec leakprobe "$TOP/bin/fqsend" -n "$LEAK_OPS" 198.51.100.2 9 >/dev/null
	note "leak probe: netem holds $(tc_stat leakprobe vp qlen) datagrams"
}

# expect_slab_back [WHAT]: the skbuff slab back within LEAK_MARGIN of SLAB0.
# A leak test (one that counts LEAK_OPS) must count more operations than the
# margin; the tests that only check the slab after another scenario
# (exhaustion, churn) count none.
expect_slab_back() {
	margin=${LEAK_MARGIN:-400}
	if [ -n "${LEAK_OPS:-}" ]; then
		[ "$LEAK_OPS" -gt "$margin" ] ||
			fail "margin $margin misses one skb leaked per operation: $LEAK_OPS operations"
		leak_probe
	fi
	wait_slab_below $((SLAB0 + margin)) 10 ||
		fail "skbuff slab at $(skb_slab) objects${1:-}, baseline $SLAB0 (margin $margin, $LEAK_OPS operations)"
}

# expect_no_leak KIND...: no instance of KIND left (slots, bpfqdisc list),
# the skbuff slab back to the baseline while the kinds are still loaded (an
# skb left in one of their maps is freed only with the map), unload without
# --force succeeds, and the slab and the BPF maps come back to the baseline.
expect_no_leak() {
	for k in "$@"; do
		n=$(slots_used "$k")
		[ "$n" = 0 ] || fail "bpf_$k: $n slots still owned: $("$BQ" list)"
	done
	n=$(listed_instances)
	[ "$n" = 0 ] || fail "bpfqdisc list shows $n live qdiscs: $("$BQ" list)"
	expect_slab_back " with $* loaded"
	for k in "$@"; do expect "$BQ" unload "$k" >/dev/null; done
	expect_slab_back
	wait_for 20 maps_at "$MAPS0" ||
		fail "BPF maps hold $(map_bytes) bytes after unloading $*, baseline $MAPS0: $(bpftool map show)"
	note "skbuff slab: baseline $SLAB0, after $(skb_slab); BPF maps: baseline $MAPS0 B, after $(map_bytes) B"
}

# load_kinds KIND...: load each, noting the memory its maps take
# (docs/reliability.md records these).
load_kinds() {
	for k in "$@"; do
		before=$(map_bytes)
		expect "$BQ" load "$k" >/dev/null
		note "bpf_$k maps: $(($(map_bytes) - before)) B"
	done
}

# dmesg_mark, then expect_dmesg_clean: the kernel said nothing alarming in
# between.
dmesg_mark() { DMESG0=$(dmesg | wc -l); }
expect_dmesg_clean() {
	bad=$(dmesg | tail -n +$((DMESG0 + 1)) |
		grep -E 'WARNING:|BUG:|Oops|soft lockup|hard LOCKUP|refcount_t|rcu.*stall' || true)
	[ -z "$bad" ] || fail "dmesg: $bad"
}

# reset_then_destroy NS DEV: with a flood running, once DEV's root qdisc
# queues 500 packets reset it (link down) and check that it emptied, bring
# DEV up, and once it queues 500 again delete it with them queued. Each
# packet freed so is an operation (LEAK_OPS).
reset_then_destroy() {
	wait_backlog "$1" "$2" 500 10 || fail "no queue built: $(ip netns exec "$1" tc -s qdisc show dev "$2")"
	reset_empties "$1" "$2"
	LEAK_OPS=$((${LEAK_OPS:-0} + queued))
	note "reset with $queued packets queued"
	expect ip -n "$1" link set "$2" up

	wait_backlog "$1" "$2" 500 10 || fail "no queue built after reset"
	queued=$(tc_stat "$1" "$2" qlen)
	expect ip netns exec "$1" tc qdisc del dev "$2" root
	LEAK_OPS=$((LEAK_OPS + queued))
	note "destroyed with $queued packets queued"
}

# hstat NAME: bpf_hbm's counter NAME of va's root qdisc in netns a.
hstat() { "$BQ" -n a stats dev va -j | "$JGET" ".[0].bpf.$1"; }

# agg_flood MARKS AGGS MIN_OVER: va's root bpf_hbm, by mark, gets one
# datagram with each mark 1 to MARKS from one process (a ping apiece costs
# the VM 0.1 s of wall time), once ARP is done (MARKS datagrams waiting for
# it would overflow the neighbour's queue). Its table holds AGGS
# aggregates, at least MIN_OVER packets are counted as overflow, and none
# is dropped: a key without room still gets through.
agg_flood() {
	local aggs over json

	expect "$BQ" -n a qdisc add dev va root bpf_hbm classify 1
	expect ip netns exec a ping -q -c 1 -W 2 "$B" >/dev/null
	expect "$TOP/bin/sockfleet" -n a "$B" 9 "$1" 1 0 mark 1
	aggs=$(hstat aggregates) over=$(hstat agg_overflow)
	note "$1 marks: $aggs aggregates, $over packets counted as overflow"
	[ "$aggs" = "$2" ] || fail "$aggs aggregates, the table holds $2"
	[ "$over" -ge "$3" ] || fail "agg_overflow $over for $(($1 - $2)) marks with no room"
	json=$("$BQ" -n a stats dev va -j)
	echo "$json" | jq -e '.[0].drops == 0' >/dev/null || fail "packets dropped: $json"
}
