# A container with CAP_NET_ADMIN in a network namespace of its own, in the
# initial user namespace (docker --cap-add NET_ADMIN: root's uid, a netns
# made for it, no CAP_SYS_ADMIN to make another): tc in its netns runs
# .init like root's. By default it may take every slot of a kind; with
# load --netns-slots 2 it gets 2 ("No space left on device" past them),
# root in the initial netns still adds its own, and a second container
# gets its own 2; root's bpfqdisc in a capped netns is told why.
# A user namespace root made for a container (root_userns) is root's too:
# with --netns-slots 2 its root gets 2, and none more in netns or user
# namespaces of its own, nor any of --userns-slots; without, it is uid 0's
# among --userns-slots (none by default).
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"
. "$TOP/selftests/kernel/userns_lib.sh"

# container NETNS N: as the container, N dummy devices in NETNS each asked
# for a root bpf_fifo; $got is how many tc made, $why tc's first error.
container() {
	got=0 why=
	for i in $(seq "$2"); do
		ip -n "$1" link add d$i type dummy
		if err=$(ip netns exec "$1" setpriv --inh-caps=-all --bounding-set=-all,+net_admin \
			tc qdisc add dev d$i root bpf_fifo 2>&1); then
			got=$((got + 1))
		else
			why=${why:-$err}
		fi
	done
	note "container $1 asked for $2 bpf_fifo, got $got${why:+ (tc: $why)}"
}

# rootns_takes N [PREFIX...]: as the root of root_userns's namespaces (in
# new ones of its own after PREFIX, an unshare), up to N dummy devices each
# asked for a root bpf_fifo until tc refuses one; $got, and $why tc's error.
rootns_takes() {
	n=$1
	shift
	got=$($ROOTNS "$@" dash -c 'got=0
		while [ $got -lt $1 ] && ip link add r$got type dummy &&
			tc qdisc add dev r$got root bpf_fifo 2>"$2"; do
			got=$((got + 1))
		done
		echo $got' sh "$n" "$USERNS_TMP/rootns.err")
	why=$(cat "$USERNS_TMP/rootns.err")
	note "root's user namespace ${*:+($*) }asked for $n bpf_fifo, got $got${why:+ (tc: $why)}"
}

ip netns add c1
ip netns add c2
ip link add d0 type dummy

# Default: no cap per netns, as the issue found it: one container takes all.
expect "$BQ" load fifo --max-instances 4
container c1 4
[ "$got" = 4 ] || fail "without --netns-slots the container got $got of 4"
expect_err 2 "No space left on device" tc qdisc add dev d0 root bpf_fifo
ip netns del c1
wait_for 20 sh -c "[ \$('$BQ' list | grep -c '^  \\(dev\\|ifindex\\)') = 0 ]" ||
	fail "the container's qdiscs outlived its netns"
root_userns
rootns_takes 1
[ "$got" = 0 ] || fail "without --netns-slots nor --userns-slots root's user namespace got $got"
echo "$why" | grep -q "Operation not permitted" || fail "tc in root's user namespace said '$why'"
kill $ROOTNS_PID
expect "$BQ" unload fifo

# --netns-slots 2: each other netns at most 2; the initial netns the rest.
expect_err 2 "netns-slots 4 leaves none" "$BQ" load fifo --max-instances 4 --netns-slots 4
expect "$BQ" load fifo --max-instances 8 --netns-slots 2 --userns-slots 2
"$BQ" list | grep -q "at most 2 per network namespace but the initial one and per user namespace root made" ||
	fail "list does not show the cap: $("$BQ" list)"
ip netns add c1
container c1 4
[ "$got" = 2 ] || fail "with --netns-slots 2 the container got $got"
echo "$why" | grep -q "No space left on device" || fail "tc past the cap said '$why'"
container c2 3
[ "$got" = 2 ] || fail "a second container got $got, expected its own 2"
# Root's bpfqdisc there is held to the cap too, and says which.
ip -n c1 link add dr type dummy
expect_err 1 "holds the 2 slots bpf_fifo allows each .*--netns-slots" \
	"$BQ" -n c1 qdisc add dev dr root bpf_fifo
root_userns
rootns_takes 4
[ "$got" = 2 ] || fail "with --netns-slots 2 root's user namespace got $got"
rootns_takes 1 unshare -n
[ "$got" = 0 ] || fail "a netns its root made got $got more"
rootns_takes 1 unshare -Urn
[ "$got" = 0 ] || fail "a user namespace its root nested got $got more"
"$BQ" list | grep -q " userns root" || fail "list does not show root's user namespace: $("$BQ" list)"
"$BQ" list | grep -q "2 for user namespaces (0 held)" || fail "list counts root's as users': $("$BQ" list)"
expect ip netns attach r $ROOTNS_PID
expect_err 1 "a user namespace root made, which holds the 2 slots bpf_fifo allows each .*--netns-slots" \
	"$BQ" -n r qdisc add dev r2 root bpf_fifo
expect ip netns del r
expect tc qdisc add dev d0 root bpf_fifo
expect tc qdisc del dev d0 root
kill $ROOTNS_PID
ip netns del c1
ip netns del c2
wait_for 20 sh -c "[ \$('$BQ' list | grep -c '^  \\(dev\\|ifindex\\)') = 0 ]" ||
	fail "the containers' qdiscs outlived their netns"
expect "$BQ" unload fifo
ip link del d0
exit 0
