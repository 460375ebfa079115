#!/bin/dash
# The slots of the kind bpfqdisc-bandwidth loads for a node's pods
# (through the CNI protocol, after ptp + host-local):
#   a pod whose netns belongs to a user namespace of its own (Kubernetes'
#     hostUsers: false) gets its limits like any pod: ADD, CHECK and DEL
#     succeed and its eth0 has the kind as root;
#   a pod's root, with CAP_NET_ADMIN in its netns, cannot take more than
#     its one slot by putting the kind on devices of its own (a dummy
#     device): the node's slots stay for the node's pods. This holds in
#     the user-namespaced pod too, whose root has all capabilities there.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cni_lib.sh"
. "$(dirname "$0")/pod_lib.sh"
KIND=bpf_hbm

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

TMPD=$(mktemp -d)
RES=$(cni_pod_add pod)
H=$(echo "$RES" | cni_host_if)
limited pod
second_refused pod ip netns exec pod

# A pod in a user namespace of its own: the netns its root made (a
# process of it holds both), bound at /run/netns/upod as a runtime binds a
# pod's.
unshare --user --map-root-user --net sleep 600 &
holder=$!
sleep 0.5
touch /run/netns/upod
mount --bind /proc/$holder/ns/net /run/netns/upod || fail "no netns in a user namespace"
ip -n upod link set lo up
RES=$(cni_exec ADD "$(cni_ptp_conf)" upod) || fail "ptp ADD upod: $RES"
limited upod
second_refused upod nsenter -t $holder -U -n

bw DEL "$(bw_conf 1.1.0)" upod
[ "$rc" = 0 ] || fail "upod: the plugin's DEL: $out"
out=$(cni_exec DEL "$(cni_ptp_conf)" upod) || fail "ptp DEL upod: $out"
umount /run/netns/upod && rm -f /run/netns/upod
kill $holder
pod_limit_del "$H"
cni_pod_del pod
expect "$BQ" unload hbm
rm -rf "$TMPD"
exit 0
