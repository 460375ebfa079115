# bpf_hbm charges a socket to its nearest cgroup with a class, itself or an
# ancestor, as cgroup v2 limits do: a process that may make a child cgroup
# (a delegated subtree) must not escape its cgroup's class by moving its
# sockets there. One TCP flow from a child two levels below /hbmsub (class
# at 20 Mbit/s) is held to 20; a grandchild with a class of its own (10)
# is held to its own. Goodput tops out at 96.5% of a rate in IP bytes.
# Rate verdicts: run on the virtual clock (tools/vmtest --icount).
. "$(dirname "$0")/lib.sh"

CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CG" ] || skip "no cgroup2 mount"
command -v iperf3 >/dev/null || skip "no iperf3"
[ "${VMTEST_ICOUNT:-0}" = 1 ] || skip "rate verdicts need the virtual clock (vmtest --icount)"
D="$CG/hbmsub"
cleanup() {
	for d in "$D/a/b" "$D/a" "$D/own/x" "$D/own" "$D"; do rmdir "$d" 2>/dev/null || true; done
}
trap cleanup EXIT
mkdir -p "$D/a/b" "$D/own/x"

veth_pair
expect ip netns exec b tc qdisc add dev vb root netem delay 1ms limit 10000
expect "$BQ" load hbm
expect "$BQ" -n a qdisc add dev va root bpf_hbm
expect "$BQ" -n a class add dev va cgroup /hbmsub rate 20mbit
expect "$BQ" -n a class add dev va cgroup /hbmsub/own/x rate 10mbit

held_to "$D/a/b" 20 /hbmsub/a/b
held_to "$D/own/x" 10 /hbmsub/own/x
held_to "$D/own" 20 /hbmsub/own
show=$("$BQ" -n a class show dev va -j)
echo "$show" | jq -e 'any(.[]; .cgroup == "/hbmsub" and .class and .pkts > 0)' >/dev/null ||
	fail "/hbmsub's aggregate carried nothing: $show"
echo "$show" | jq -e 'any(.[]; .cgroup == "/hbmsub/a/b") | not' >/dev/null ||
	fail "/hbmsub/a/b has an aggregate of its own: $show"
exit 0
