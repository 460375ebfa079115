# Unloading while an instance is live, bpf_fifo and bpf_fq: refused without
# --force; with it, the live qdisc keeps carrying traffic until deleted, and
# no new one can be created. Once the last instance is deleted, every map
# of the kind is freed (map memory back to its baseline from before the
# load) and the skbuff slab is back; loading again works.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"

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
