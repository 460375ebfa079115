# One plain local user cannot take every slot that root leaves to user
# namespaces (load --userns-slots) and so lock every other user out: each
# user holds at most --user-slots of them (by default a quarter, rounded
# up), counted over all its namespaces, nested ones and those of the
# subordinate ids it maps (/etc/subuid and newuidmap, as rootless
# containers do) included: a namespace counts as the user who owns its
# outermost user namespace. uid 65534 attacks, uid 65533 is the victim.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"
. "$TOP/selftests/kernel/userns_lib.sh"

# nested_attack: as uid 65534, a user namespace that maps a second id
# (1 -> 70000, written by root as newuidmap would), and in it, as that id,
# a nested user and network namespace asking tc for one bpf_fifo. $got.
nested_attack() {
	out=$USERNS_TMP/nested
	setpriv --reuid=65534 --regid=65534 --clear-groups unshare -U dash -c '
		while [ ! -s "$1.mapped" ]; do sleep 0.1; done
		exec setpriv --reuid=1 --regid=1 --clear-groups unshare -Urn dash -c "
			ip link add n1 type dummy
			tc qdisc add dev n1 root bpf_fifo 2>\"\$1.err\" && echo 1 >\"\$1\" || echo 0 >\"\$1\"
			exec sleep 600" sh "$1"' sh "$out" &
	ATTACKERS="$ATTACKERS $!"
	pid=$!
	wait_for 20 sh -c "[ \"\$(readlink /proc/$pid/ns/user)\" != \"$(readlink /proc/self/ns/user)\" ]" ||
		fail "uid 65534's user namespace did not appear"
	printf '0 65534 1\n1 70000 1\n' >/proc/$pid/uid_map || fail "cannot map uid 70000 into it"
	printf '0 65534 1\n1 70000 1\n' >/proc/$pid/gid_map || fail "cannot map gid 70000 into it"
	echo 1 >"$out.mapped"
	wait_for 20 test -s "$out" || fail "the nested namespace's tc did not finish"
	got=$(cat "$out")
	note "uid 65534 as its subordinate uid 70000, nested: got $got ($(cat "$out.err" 2>/dev/null))"
}

# By default each user gets a quarter of --userns-slots, rounded up.
expect "$BQ" load fifo --max-instances 8 --userns-slots 4
attack 65534 4
[ "$got" = 1 ] || fail "uid 65534 took $got of the 4 user-namespace slots, expected its 1"
echo "$why" | grep -q "No space left on device" || fail "tc past the user's slots said '$why'"
"$BQ" list | grep -q "8 slots, 4 for user namespaces (1 held), at most 1 per user" ||
	fail "list does not show the per-user slots: $("$BQ" list)"
attack 65534 2
[ "$got" = 0 ] || fail "uid 65534's second namespace got $got more"
nested_attack
[ "$got" = 0 ] || fail "uid 65534 got another slot through a nested namespace of its subordinate uid"
user_netns 65534
expect_err 1 "uid 65534, who holds the 1 slot each user may have" "$BQ" -n u qdisc add dev d0 root bpf_fifo
expect ip netns del u
attack 65533 1
[ "$got" = 1 ] || fail "uid 65533 got $got bpf_fifo while uid 65534 holds its share (tc: $why)"
kill $ATTACKERS
ATTACKERS=
wait_for 20 sh -c "[ \$('$BQ' list | grep -c '^  ifindex') = 0 ]" || fail "the users' qdiscs outlived their namespaces"
expect "$BQ" unload fifo

# --user-slots sets the share; the total still bounds every user together.
expect "$BQ" load fifo --max-instances 8 --userns-slots 4 --user-slots 3
attack 65534 4
[ "$got" = 3 ] || fail "uid 65534 got $got with --user-slots 3"
attack 65533 2
[ "$got" = 1 ] || fail "uid 65533 got $got of the 1 user-namespace slot left"
veth_pair
expect "$BQ" -n a qdisc add dev va root bpf_fifo
expect ip netns exec a tc qdisc del dev va root
kill $ATTACKERS
ATTACKERS=
wait_for 20 sh -c "[ \$('$BQ' list | grep -c '^  ifindex') = 0 ]" || fail "the users' qdiscs outlived their namespaces"
expect "$BQ" unload fifo

expect_err 2 "--user-slots 5 is more than --userns-slots 4" "$BQ" load fifo --userns-slots 4 --user-slots 5
expect_err 2 "--user-slots needs --userns-slots" "$BQ" load fifo --user-slots 2
expect_err 2 "bad value '0' for --user-slots" "$BQ" load fifo --userns-slots 4 --user-slots 0
exit 0
