# More qdisc instances than --max-instances: with 2 slots, a third qdisc's
# init fails, tc says "No space left on device" (and bpfqdisc, in one line),
# the two live ones keep working, and a slot freed by a delete is usable
# again. Afterwards no slot is owned, and the skbuff slab and the maps'
# memory are back to their baselines. Above the default 64 instances,
# every per-instance map of bpf_hbm and bpf_fq grows with --max-instances.
# Map allocation failure: bpf_fq's default maps (~110 MB) loaded from a
# memory cgroup capped at 32 MB (map memory is charged to it) fail with
# one line and leave no pin; the same load outside it works.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"

veth_pair
ip -n a link add dummy0 type dummy
ip -n a link set dummy0 up
leak_baseline

expect "$BQ" load fifo --max-instances 2 >/dev/null
expect ip netns exec a tc qdisc replace dev va root bpf_fifo
expect ip netns exec b tc qdisc replace dev vb root bpf_fifo
expect_err 2 "No space left on device" ip netns exec a tc qdisc replace dev dummy0 root bpf_fifo
expect_err 1 "No space left on device" "$BQ" -n a qdisc replace dev dummy0 root bpf_fifo
[ "$(slots_used fifo)" = 2 ] || fail "$(slots_used fifo) slots owned by 2 qdiscs"
[ "$(qdisc_kind a dummy0)" != bpf_fifo ] || fail "dummy0 got a bpf_fifo anyway"
expect ip netns exec a ping -q -c 3 -i 0.2 -W 2 $B >/dev/null
expect ip netns exec b tc qdisc del dev vb root
expect ip netns exec a tc qdisc replace dev dummy0 root bpf_fifo
note "instances: the third of --max-instances 2 refused; after a delete it fits"
expect ip netns exec a tc qdisc del dev dummy0 root
expect ip netns exec a tc qdisc del dev va root
expect_no_leak fifo

# Past the default 64 slots: loaded with --max-instances 72, bpf_hbm and
# bpf_fq each take 70 qdiscs, and those in slots 64..69 pass packets (their
# own per-instance maps are sized for 72 too: hbm's aggregates, fq's flows).
ip netns add c
for i in $(seq 70); do echo "link add d$i type dummy"; echo "link set d$i up"; done |
	ip -n c -batch - || fail "cannot make 70 dummy devices"
for j in 0 1 2 3 4 5; do
	expect ip -n c addr add 198.51.100.$((8 * j + 1))/29 dev d$((65 + j))
done
for k in hbm fq; do
	expect "$BQ" load $k --max-instances 72 --ring-slots 512 >/dev/null
	for i in $(seq 70); do echo "qdisc replace dev d$i root bpf_$k"; done |
		ip netns exec c tc -batch - || fail "bpf_$k: 70 qdiscs refused"
	[ "$(slots_used $k)" = 70 ] || fail "bpf_$k: $(slots_used $k) of 70 qdiscs hold a slot"
	high=$(bpftool map dump pinned /sys/fs/bpf/bpfqdisc/$k/bq_slots -j |
		jq '[.[] | select(.formatted.key >= 64 and .formatted.value.slot.owner != 0)] | length')
	[ "$high" = 6 ] || fail "bpf_$k: $high qdiscs in slots 64 and up, expected 6"
	for j in 0 1 2 3 4 5; do	# dummy: no reply, but out through the qdisc
		ip netns exec c ping -q -c 1 -W 1 198.51.100.$((8 * j + 2)) >/dev/null &
	done
	wait
	for i in 65 66 67 68 69 70; do
		[ "$(tc_stat c d$i packets)" -ge 1 ] || fail "bpf_$k on d$i sent nothing: $(ip netns exec c tc -s qdisc show dev d$i)"
	done
	for i in $(seq 70); do echo "qdisc del dev d$i root"; done |
		ip netns exec c tc -batch - || fail "bpf_$k: cannot delete the 70 qdiscs"
	[ "$(slots_used $k)" = 0 ] || fail "bpf_$k: $(slots_used $k) slots owned after deleting every qdisc"
	expect "$BQ" unload $k >/dev/null
done
ip netns del c
note "instances: bpf_hbm and bpf_fq with --max-instances 72 take 70 qdiscs; slots 64-69 pass packets"

CG=/sys/fs/cgroup/bq_small
echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
mkdir -p $CG
[ -e $CG/memory.max ] || skip "no memory controller in cgroup2: cannot cap map memory"
# Below bpf_fq's maps (25 MB, nearly all the packet pool), so that they
# fail before the verifier runs: with its flows in arena pages, 32 MB held
# the maps, and the verifier's memory got the loader OOM-killed instead.
echo 16M >$CG/memory.max
expect_err 1 "cannot allocate the maps of bpf_fq" \
	in_cgroup $CG "$BQ" load fq
rmdir $CG
[ ! -e /sys/fs/bpf/bpfqdisc/fq ] || fail "a failed load left /sys/fs/bpf/bpfqdisc/fq"
expect "$BQ" load fq >/dev/null
note "allocation failure: bpf_fq's maps under a 16 MB memory cap refused in one line, no pin left"
expect "$BQ" unload fq >/dev/null
exit 0
