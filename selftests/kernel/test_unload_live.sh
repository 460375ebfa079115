# Unloading while an instance is live: refused without --force; with it,
# the live qdisc keeps carrying traffic until deleted, and no new one can be
# created.
. "$(dirname "$0")/lib.sh"

expect "$BQ" load fifo
veth_pair
expect ip netns exec a tc qdisc replace dev va root bpf_fifo
expect_err 1 "1 live qdisc.*--force" "$BQ" unload fifo
[ -e /sys/fs/bpf/bpfqdisc/fifo/link ] || fail "a refused unload removed the pin"
expect "$BQ" unload fifo --force
[ "$(qdisc_kind a va)" = bpf_fifo ] || fail "the live qdisc vanished"
before=$(tc_stat a va packets)
expect ip netns exec a ping -c 3 -i 0.2 -W 2 -q $B >/dev/null
after=$(tc_stat a va packets)
[ "$after" -ge $((before + 3)) ] || fail "live qdisc stopped counting: $before -> $after"
ip netns exec b tc qdisc add dev vb root bpf_fifo 2>/dev/null && fail "new bpf_fifo after unload"
expect ip netns exec a tc qdisc del dev va root
expect "$BQ" load fifo
expect ip netns exec a tc qdisc replace dev va root bpf_fifo
exit 0
