# A plain local user (uid 65534) in a user and network namespace of its
# own (unshare -Urn, which Debian allows) makes dummy devices and asks tc
# for bpf_fifo on them. By default .init refuses every one, so root's
# qdiscs get every slot. With --userns-slots 2 of 4 the user gets 2 and
# root still adds 2; the user's qdiscs stop neither root's unload --force
# nor a reload with the default sizes (which keeps the earlier load's maps
# and sizes while those qdiscs live). Root's bpfqdisc, asked for one in the
# user's netns, says why it is refused (not just EPERM or ENOSPC).
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"
. "$TOP/selftests/kernel/userns_lib.sh"

instances() { "$BQ" list | grep -c '^  \(dev\|ifindex\)' || true; }

veth_pair

# Default: none for a user namespace, every slot for root.
expect "$BQ" load fifo --max-instances 4
attack 65534 4
[ "$got" = 0 ] || fail "uid 65534 in a user namespace got $got bpf_fifo qdiscs of 4 slots"
echo "$why" | grep -q "Operation not permitted" || fail "tc in the user namespace said '$why'"
# Root's bpfqdisc in the user's netns is refused too, and says why.
user_netns 65534
expect_err 1 "user namespace.*--userns-slots" "$BQ" -n u qdisc add dev d0 root bpf_fifo
expect ip netns del u
expect "$BQ" -n a qdisc add dev va root bpf_fifo
expect ip netns exec b tc qdisc add dev vb root bpf_fifo
expect ip netns exec a tc qdisc del dev va root
expect ip netns exec b tc qdisc del dev vb root
expect "$BQ" unload fifo

# Two of four for user namespaces: root keeps the other two.
expect "$BQ" load fifo --max-instances 4 --userns-slots 2 --user-slots 2
"$BQ" list | grep -q "4 slots, 2 for user namespaces (0 held), at most 2 per user" || fail "list does not show the userns slots: $("$BQ" list)"
attack 65534 4
[ "$got" = 2 ] || fail "uid 65534 got $got bpf_fifo with --userns-slots 2"
echo "$why" | grep -q "No space left on device" || fail "tc past the userns slots said '$why'"
user_netns 65534
expect_err 1 "2 slots .* user namespaces .* taken" "$BQ" -n u qdisc add dev d$got root bpf_fifo
expect ip netns del u
expect "$BQ" -n a qdisc add dev va root bpf_fifo
expect ip netns exec b tc qdisc add dev vb root bpf_fifo
"$BQ" list | grep -q "4 slots, 2 for user namespaces (2 held), at most 2 per user" || fail "list: $("$BQ" list)"

# The user's two qdiscs keep a plain unload away, not root's --force and reload.
expect ip netns exec a tc qdisc del dev va root
expect ip netns exec b tc qdisc del dev vb root
expect_err 1 "2 live qdisc" "$BQ" unload fifo
expect "$BQ" unload fifo --force
out=$("$BQ" load fifo) || fail "load after unload --force under the user's qdiscs: $out"
echo "$out" | grep -q "max-instances 4" || fail "the reload did not say it kept the earlier sizes: $out"
expect "$BQ" -n a qdisc add dev va root bpf_fifo
[ "$(instances)" = 3 ] || fail "list shows $(instances) bpf_fifo qdiscs, expected the user's 2 and root's 1"
attack 65534 1
[ "$got" = 0 ] || fail "the reload (no --userns-slots) let uid 65534 add $got more"
expect ip netns exec a tc qdisc del dev va root

kill $ATTACKERS
wait_for 20 sh -c "[ \$('$BQ' list | grep -c '^  ifindex') = 0 ]" || fail "the user's qdiscs outlived its namespace"
expect "$BQ" unload fifo
exit 0
