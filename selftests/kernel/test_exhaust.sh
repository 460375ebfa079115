# More qdisc instances than --max-instances: with 2 slots, a third qdisc's
# init fails, tc says "No space left on device" (and bpfqdisc, in one line),
# the two live ones keep working, and a slot freed by a delete is usable
# again. Afterwards no slot is owned, and the skbuff slab and the maps'
# memory are back to their baselines.
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

CG=/sys/fs/cgroup/bq_small
echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
mkdir -p $CG
[ -e $CG/memory.max ] || skip "no memory controller in cgroup2: cannot cap map memory"
echo 32M >$CG/memory.max
expect_err 1 "cannot allocate the maps of bpf_fq" \
	dash -c 'echo $$ >"$1/cgroup.procs" && exec "$2" load fq' - $CG "$BQ"
rmdir $CG
[ ! -e /sys/fs/bpf/bpfqdisc/fq ] || fail "a failed load left /sys/fs/bpf/bpfqdisc/fq"
expect "$BQ" load fq >/dev/null
note "allocation failure: bpf_fq's maps under a 32 MB memory cap refused in one line, no pin left"
expect "$BQ" unload fq >/dev/null
exit 0
