#!/bin/dash
# The slots of the kind bpfqdisc-bandwidth loads for a node's pods
# (through the CNI protocol, after ptp + host-local):
#   a pod whose netns belongs to a user namespace of its own (Kubernetes'
#     hostUsers: false) gets its limits like any pod: ADD, CHECK and DEL
#     succeed and its eth0 has the kind as root;
#   a pod's root, with CAP_NET_ADMIN in its netns, cannot take more than
#     its one slot by putting the kind on devices of its own (a dummy
#     device): the node's slots stay for the node's pods. This holds in
#     the user-namespaced pod too, whose root has all capabilities there,
#     and may make network and user namespaces of its own in it;
#   local users (unshare -Urn, which Debian allows anyone), each taking
#     slots until refused, leave the user-namespaced pods theirs: the
#     runtime, root, made those pods' user namespaces.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cni_lib.sh"
. "$(dirname "$0")/pod_lib.sh"
. "$(dirname "$0")/reliability_lib.sh"
. "$(dirname "$0")/userns_lib.sh"
KIND=bpf_hbm
ATTACK_KIND=$KIND

# The plugin loads the kind with its own slots: not an earlier test's load.
"$BQ" unload hbm >/dev/null 2>&1 || true

LIMIT=$(bw_limits 20000000 200000)

# limited NAME: ADD and CHECK of the plugin for pod NAME after ptp's
# result $RES; its eth0 has the kind as root.
limited() {
	bw ADD "$(bw_conf 1.1.0 "$LIMIT" "$RES")" "$1"
	[ "$rc" = 0 ] || fail "$1: the plugin's ADD: $out"
	bw CHECK "$(bw_conf 1.1.0 "$LIMIT" "$RES")" "$1"
	[ "$rc" = 0 ] || fail "$1: CHECK after ADD: $out"
	ip netns exec "$1" tc qdisc show dev eth0 | grep -q "^qdisc $KIND .* root" ||
		fail "$1: eth0's root is not $KIND: $(ip netns exec "$1" tc qdisc show dev eth0)"
}

# second_refused NAME AS...: the pod's root (AS..., a command prefix that
# runs as it) puts the kind on a dummy device of its pod: refused.
second_refused() {
	name=$1
	shift
	"$@" ip link add d0 type dummy && "$@" ip link set d0 up || fail "$name: no dummy device"
	if "$@" tc qdisc add dev d0 root $KIND 2>"$TMPD/err"; then
		fail "$name: its root took a second slot: $("$@" tc qdisc show dev d0)"
	fi
	note "$name's second qdisc refused: $(head -n 1 "$TMPD/err")"
	"$@" ip link del d0
}

# own_ns_refused NAME AS...: the pod's root, in namespaces it makes (AS...,
# a command prefix ending with an unshare), puts the kind on a dummy
# device there: refused, for want of a slot.
own_ns_refused() {
	name=$1
	shift
	if "$@" dash -c 'ip link add d0 type dummy && ip link set d0 up &&
		tc qdisc add dev d0 root $1' sh $KIND 2>"$TMPD/err"; then
		fail "$name: its root took a second slot"
	fi
	grep -q "No space left on device" "$TMPD/err" || fail "$name: $(cat "$TMPD/err")"
	note "$name's qdisc refused: $(head -n 1 "$TMPD/err")"
}

TMPD=$(mktemp -d)
RES=$(cni_pod_add pod)
H=$(echo "$RES" | cni_host_if)
limited pod
second_refused pod ip netns exec pod

# take UID: as UID, a netns after another, slots until refused; $took.
take() {
	took=0
	attack "$1" 64
	while [ "$got" -gt 0 ]; do
		took=$((took + got))
		attack "$1" 64
	done
}

# Local users take what they can, one after another, until one gets none.
users=0
take 65534
first=$took
while [ "$took" -gt 0 ]; do
	users=$((users + 1))
	take $((65534 - users))
done
note "$users local users took slots, the first $first; the next was refused (tc: $why)"

# A pod in a user namespace of its own, root's (root_userns), its netns
# bound at /run/netns/upod as a runtime binds a pod's.
root_userns
touch /run/netns/upod
mount --bind /proc/$ROOTNS_PID/ns/net /run/netns/upod || fail "no netns in a user namespace"
ip -n upod link set lo up
RES=$(cni_exec ADD "$(cni_ptp_conf)" upod) || fail "ptp ADD upod: $RES"
limited upod
[ "$users" -gt 1 ] || fail "the first local user took all the slots of user namespaces ($first)"
second_refused upod $ROOTNS
# Its root's own netns, and its own user namespace nested in the pod's
# (owned by the pod's uid 0, kuid 100000), get no more.
own_ns_refused "upod's own netns" $ROOTNS unshare -n
own_ns_refused "upod's nested user namespace" $ROOTNS unshare -Urn

bw DEL "$(bw_conf 1.1.0)" upod
[ "$rc" = 0 ] || fail "upod: the plugin's DEL: $out"
out=$(cni_exec DEL "$(cni_ptp_conf)" upod) || fail "ptp DEL upod: $out"
umount /run/netns/upod && rm -f /run/netns/upod
kill $ATTACKERS
ATTACKERS=
pod_limit_del "$H"
cni_pod_del pod
wait_for 20 sh -c "[ \$('$BQ' list | grep -c '^  \\(dev\\|ifindex\\)') = 0 ]" ||
	fail "qdiscs outlived their pods and users: $("$BQ" list)"
expect "$BQ" unload hbm
rm -rf "$TMPD"
exit 0
