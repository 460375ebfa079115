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
command -v setpriv >/dev/null && command -v unshare >/dev/null || skip "no setpriv or unshare in the VM"
[ "$(sysctl -n kernel.unprivileged_userns_clone 2>/dev/null || echo 1)" = 1 ] ||
	skip "kernel.unprivileged_userns_clone is 0: no user can make a user namespace"
TMP=$(mktemp -d)
chmod 1777 "$TMP"
ATTACKERS= ATTACKS=0
# Their namespaces hold qdiscs, which would outlive a failed test.
trap 'kill $ATTACKERS 2>/dev/null || true; ip netns del u 2>/dev/null || true' EXIT

# attack N: as uid 65534, in a user and network namespace of its own, N
# dummy devices each asked for a root bpf_fifo; $got is how many tc made,
# $why tc's first error. The namespace lives on (a sleep) until the end.
attack() {
	ATTACKS=$((ATTACKS + 1))
	out=$TMP/attack$ATTACKS
	setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urn dash -c '
		got=0 i=0
		while [ $i -lt $1 ]; do
			i=$((i + 1))
			ip link add d$i type dummy
			tc qdisc add dev d$i root bpf_fifo 2>>"$2.err" && got=$((got + 1))
		done
		echo $got >"$2"
		exec sleep 600' sh "$1" "$out" &
	ATTACKERS="$ATTACKERS $!"
	wait_for 20 test -s "$out" || fail "the user namespace's tc did not finish"
	got=$(cat "$out")
	why=$(head -n1 "$out.err" 2>/dev/null || true)
	note "uid 65534 asked for $1 bpf_fifo, got $got${why:+ (tc: $why)}"
}

# user_netns: name "u" the network namespace of the latest attack (for -n);
# ip netns del u before the test waits for that namespace to go.
user_netns() {
	pid=$(pgrep -n -u 65534 sleep) || fail "no attacker's sleep to name its netns by"
	expect ip netns attach u "$pid"
}

instances() { "$BQ" list | grep -c '^  \(dev\|ifindex\)' || true; }

veth_pair

# Default: none for a user namespace, every slot for root.
expect "$BQ" load fifo --max-instances 4
attack 4
[ "$got" = 0 ] || fail "uid 65534 in a user namespace got $got bpf_fifo qdiscs of 4 slots"
echo "$why" | grep -q "Operation not permitted" || fail "tc in the user namespace said '$why'"
# Root's bpfqdisc in the user's netns is refused too, and says why.
user_netns
expect_err 1 "user namespace.*--userns-slots" "$BQ" -n u qdisc add dev d1 root bpf_fifo
expect ip netns del u
expect "$BQ" -n a qdisc add dev va root bpf_fifo
expect ip netns exec b tc qdisc add dev vb root bpf_fifo
expect ip netns exec a tc qdisc del dev va root
expect ip netns exec b tc qdisc del dev vb root
expect "$BQ" unload fifo

# Two of four for user namespaces: root keeps the other two.
expect "$BQ" load fifo --max-instances 4 --userns-slots 2
"$BQ" list | grep -q "4 slots, 2 for user namespaces" || fail "list does not show the userns slots: $("$BQ" list)"
attack 4
[ "$got" = 2 ] || fail "uid 65534 got $got bpf_fifo with --userns-slots 2"
echo "$why" | grep -q "No space left on device" || fail "tc past the userns slots said '$why'"
user_netns
expect_err 1 "2 slots .* user namespaces .* taken" "$BQ" -n u qdisc add dev d4 root bpf_fifo
expect ip netns del u
expect "$BQ" -n a qdisc add dev va root bpf_fifo
expect ip netns exec b tc qdisc add dev vb root bpf_fifo
"$BQ" list | grep -q "4 slots, 2 for user namespaces (2 held)" || fail "list: $("$BQ" list)"

# The user's two qdiscs keep a plain unload away, not root's --force and reload.
expect ip netns exec a tc qdisc del dev va root
expect ip netns exec b tc qdisc del dev vb root
expect_err 1 "2 live qdisc" "$BQ" unload fifo
expect "$BQ" unload fifo --force
out=$("$BQ" load fifo) || fail "load after unload --force under the user's qdiscs: $out"
echo "$out" | grep -q "max-instances 4" || fail "the reload did not say it kept the earlier sizes: $out"
expect "$BQ" -n a qdisc add dev va root bpf_fifo
[ "$(instances)" = 3 ] || fail "list shows $(instances) bpf_fifo qdiscs, expected the user's 2 and root's 1"
attack 1
[ "$got" = 0 ] || fail "the reload (no --userns-slots) let uid 65534 add $got more"
expect ip netns exec a tc qdisc del dev va root

kill $ATTACKERS
wait_for 20 sh -c "[ \$('$BQ' list | grep -c '^  ifindex') = 0 ]" || fail "the user's qdiscs outlived its namespace"
expect "$BQ" unload fifo
exit 0
