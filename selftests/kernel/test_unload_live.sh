# Unloading while an instance is live, bpf_fifo and bpf_fq: refused without
# --force; with it, the live qdisc keeps carrying traffic until deleted, and
# no new one can be created; its maps stay pinned for it (stats, change).
# Once the last instance is deleted, the next bpfqdisc command unpins them
# and every map of the kind is freed (map memory back to its baseline from
# before the load) and the skbuff slab is back; loading again works.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"

# live_gone KIND: the kind's pinned slots hold no qdisc (destroy runs after the del returns).
live_gone() { [ "$(bpftool map dump pinned /sys/fs/bpf/bpfqdisc/$1/bq_slots -j | jq '[.[] | select(.formatted.value.slot.owner != 0)] | length')" = 0 ]; }

veth_pair
leak_baseline
for k in fifo fq; do
	load_kinds $k
	expect ip netns exec a tc qdisc replace dev va root bpf_$k
	expect_err 1 "1 live qdisc.*--force" "$BQ" unload $k
	[ -e /sys/fs/bpf/bpfqdisc/$k/link ] || fail "a refused unload removed the pin"
	expect "$BQ" unload $k --force
	[ "$(qdisc_kind a va)" = bpf_$k ] || fail "the live bpf_$k vanished"
	before=$(tc_stat a va packets)
	expect ip netns exec a ping -c 3 -i 0.2 -W 2 -q $B >/dev/null
	after=$(tc_stat a va packets)
	[ "$after" -ge $((before + 3)) ] || fail "live bpf_$k stopped counting: $before -> $after"
	ip netns exec b tc qdisc add dev vb root bpf_$k 2>/dev/null && fail "new bpf_$k after unload"
	[ "$(map_bytes)" -gt "$MAPS0" ] || fail "bpf_$k's maps went while an instance was live"
	expect ip netns exec a tc qdisc del dev va root
	[ -e /sys/fs/bpf/bpfqdisc/$k/bq_slots ] || fail "bpf_$k's pins went before a bpfqdisc command"
	wait_for 20 live_gone $k || fail "bpf_$k: the deleted qdisc still holds its slot"
	expect "$BQ" list >/dev/null
	[ ! -e /sys/fs/bpf/bpfqdisc/$k ] || fail "bpf_$k's pins outlived its last qdisc: $(ls /sys/fs/bpf/bpfqdisc/$k)"
	wait_for 20 maps_at "$MAPS0" ||
		fail "bpf_$k: maps hold $(($(map_bytes) - MAPS0)) B after its last instance went"
	wait_slab_below $((SLAB0 + 400)) 10 || fail "skbuff slab at $(skb_slab), baseline $SLAB0"
	note "bpf_$k: maps freed with its last instance; skbuff slab $SLAB0 -> $(skb_slab)"
	expect "$BQ" load $k >/dev/null
	expect ip netns exec a tc qdisc replace dev va root bpf_$k
	expect ip netns exec a tc qdisc del dev va root
	expect_no_leak $k
done
exit 0
