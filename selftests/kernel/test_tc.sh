# tc add, replace and delete of bpf_fifo on lo and on veth.
. "$(dirname "$0")/lib.sh"

expect "$BQ" load fifo
veth_pair
for where in "lo" "a va"; do
	set -- $where
	if [ $# = 1 ]; then ns=; dev=$1; else ns="ip netns exec $1"; dev=$2; fi
	expect $ns tc qdisc add dev $dev root bpf_fifo
	[ "$($ns tc qdisc show dev $dev root | awk '{print $2; exit}')" = bpf_fifo ] || fail "add on $dev"
	expect $ns tc qdisc replace dev $dev root pfifo_fast
	[ "$($ns tc qdisc show dev $dev root | awk '{print $2; exit}')" = pfifo_fast ] || fail "replace to pfifo_fast on $dev"
	expect $ns tc qdisc replace dev $dev root bpf_fifo
	[ "$($ns tc qdisc show dev $dev root | awk '{print $2; exit}')" = bpf_fifo ] || fail "replace back on $dev"
	expect $ns tc qdisc replace dev $dev root handle 10: bpf_fifo
	$ns tc qdisc show dev $dev root | grep -q 'bpf_fifo 10:' || fail "replace with handle on $dev"
done
n=$("$BQ" list | grep -c '^  \(dev\|ifindex\)')
[ "$n" = 2 ] || fail "expected 2 live instances, list shows $n"
expect tc qdisc del dev lo root
expect ip netns exec a tc qdisc del dev va root
n=$("$BQ" list | grep -c '^  \(dev\|ifindex\)' || true)
[ "$n" = 0 ] || fail "instances left after delete: $n"
# tc passes options, in TCA_OPTIONS, through bpfqdisc's plugin (test_tc_plugin).
TC_LIB_DIR="$TOP/bin/tc" expect ip netns exec a tc qdisc add dev va root bpf_fifo limit 5
limit=$("$BQ" -n a qdisc show -j dev va | "$JGET" '.[0].options.limit')
[ "$limit" = 5 ] || fail "tc qdisc add ... bpf_fifo limit 5 made limit $limit"
expect ip netns exec a tc qdisc del dev va root
exit 0
