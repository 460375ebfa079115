# Helpers for the tests of user namespaces' slots (test_userns_*), sourced
# after lib.sh: a plain local user, in a user and network namespace of its
# own (unshare -Urn, which Debian allows anyone), asks tc for bpf_fifo.
command -v setpriv >/dev/null && command -v unshare >/dev/null || skip "no setpriv or unshare in the VM"
[ "$(sysctl -n kernel.unprivileged_userns_clone 2>/dev/null || echo 1)" = 1 ] ||
	skip "kernel.unprivileged_userns_clone is 0: no user can make a user namespace"
USERNS_TMP=$(mktemp -d)
chmod 1777 "$USERNS_TMP"
ATTACKERS= ATTACKS=0
# Their namespaces hold qdiscs, which would outlive a failed test.
trap 'kill $ATTACKERS 2>/dev/null || true; ip netns del u 2>/dev/null || true' EXIT

# attack UID N: as UID, in a user and network namespace of its own, up to
# N dummy devices each asked for a root $ATTACK_KIND (default bpf_fifo),
# until tc refuses one (no slot comes free meanwhile); $got is how many tc
# made, $why its error. The namespace lives on (a sleep) until the end.
attack() {
	ATTACKS=$((ATTACKS + 1))
	out=$USERNS_TMP/attack$ATTACKS
	setpriv --reuid=$1 --regid=$1 --clear-groups unshare -Urn dash -c '
		got=0
		while [ $got -lt $1 ]; do
			ip link add d$got type dummy
			tc qdisc add dev d$got root $3 2>>"$2.err" || break
			got=$((got + 1))
		done
		echo $got >"$2"
		exec sleep 600' sh "$2" "$out" "${ATTACK_KIND:-bpf_fifo}" &
	ATTACKERS="$ATTACKERS $!"
	wait_for 20 test -s "$out" || fail "the user namespace's tc did not finish"
	got=$(cat "$out")
	why=$(head -n1 "$out.err" 2>/dev/null || true)
	note "uid $1 asked for $2 ${ATTACK_KIND:-bpf_fifo}, got $got${why:+ (tc: $why)}"
}

# user_netns UID: name "u" the network namespace of UID's latest attack
# (for -n); ip netns del u before the test waits for that namespace to go.
user_netns() {
	pid=$(pgrep -n -u $1 sleep) || fail "no sleep of uid $1 to name its netns by"
	expect ip netns attach u "$pid"
}

# root_userns: a user and network namespace that root makes for a pod or
# container, as a runtime does (containerd for hostUsers: false): its uid 0
# is kuid 100000, of 65536. $ROOTNS_PID holds both until the end; $ROOTNS,
# a command prefix, runs as its root there.
root_userns() {
	ATTACKS=$((ATTACKS + 1))
	mapped=$USERNS_TMP/mapped$ATTACKS
	unshare --user --net dash -c 'while [ ! -e "$1" ]; do sleep 0.1; done; exec sleep 600' \
		sh "$mapped" &
	ROOTNS_PID=$!
	ATTACKERS="$ATTACKERS $!"
	wait_for 20 sh -c "[ \"\$(readlink /proc/$ROOTNS_PID/ns/user)\" != \"$(readlink /proc/self/ns/user)\" ]" ||
		fail "root's user namespace did not appear"
	echo '0 100000 65536' >/proc/$ROOTNS_PID/uid_map &&
		echo '0 100000 65536' >/proc/$ROOTNS_PID/gid_map || fail "cannot map ids into root's user namespace"
	touch "$mapped"
	ROOTNS="nsenter -t $ROOTNS_PID -U -n"
}
