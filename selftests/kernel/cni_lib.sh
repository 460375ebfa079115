# Pods as a container runtime makes them, for the CNI tests; sourced by dash
# after lib.sh. Debian's reference plugins (containernetworking-plugins,
# /usr/lib/cni; tools/vmtest copies ptp, host-local, bandwidth and loopback
# into the VM) give each pod a netns joined to the node (the VM's root netns)
# by a veth: eth0 inside, a host-side veth (ptp names it veth<hash>) outside
# holding the gateway address. Addresses come from host-local over
# $CNI_SUBNET (a documentation range).
#
#   cni_pod_add NAME      netns NAME, ptp ADD; the result JSON on stdout
#   cni_pod_del NAME      ptp DEL, then the netns goes
#   cni_exec CMD CONFIG NAME [PLUGIN]   any plugin, as a runtime calls it
#
# The result's parts: cni_host_if, cni_pod_ip, cni_gateway (each reads the
# result JSON on stdin).
#
#   cni_ext_add           a host off the node: netns ext at $EXT, routed
#                         through the node's vext at $EXT_NODE

CNI_BIN=${CNI_BIN:-/usr/lib/cni}
CNI_SUBNET=${CNI_SUBNET:-192.0.2.0/24}
CNI_NET=${CNI_NET:-bq-pods}
# host-local's leases, out of the way of a node's real ones.
CNI_IPAM_DIR=${CNI_IPAM_DIR:-/run/bq-cni-ipam}

[ -x "$CNI_BIN/ptp" ] && [ -x "$CNI_BIN/host-local" ] ||
	skip "no reference CNI plugins in $CNI_BIN (tools/setup installs containernetworking-plugins)"

# cni_ptp_conf: the network config ptp gets on stdin.
cni_ptp_conf() {
	printf '{"cniVersion":"1.0.0","name":"%s","type":"ptp","ipMasq":false,' "$CNI_NET"
	printf '"ipam":{"type":"host-local","subnet":"%s","dataDir":"%s"}}\n' \
		"$CNI_SUBNET" "$CNI_IPAM_DIR"
}

# cni_exec COMMAND CONFIG NAME [PLUGIN]: run PLUGIN (default: CONFIG's
# "type"; a path runs as it is) for container NAME, whose netns is
# /run/netns/NAME and whose interface is $CNI_IF (default eth0), with
# CONFIG on stdin. Its stdout on stdout; its exit status is ours.
cni_exec() {
	plugin=${4:-$(printf '%s' "$2" | jq -r .type)}
	case $plugin in /*) ;; *) plugin=$CNI_BIN/$plugin ;; esac
	printf '%s' "$2" | env CNI_COMMAND="$1" CNI_CONTAINERID="$3" \
		CNI_NETNS="/run/netns/$3" CNI_IFNAME="${CNI_IF:-eth0}" CNI_PATH="$CNI_BIN" \
		"$plugin"
}

# cni_pod_add NAME: a fresh netns NAME with lo up, and ptp's ADD for it.
# Prints ptp's result; fails the test with the plugin's error otherwise.
cni_pod_add() {
	ip netns add "$1" || fail "ip netns add $1"
	ip -n "$1" link set lo up
	# ptp named: jq reading it from the config cost the VM 0.18 s a pod.
	res=$(cni_exec ADD "$(cni_ptp_conf)" "$1" ptp) || fail "ptp ADD $1: $res"
	printf '%s\n' "$res"
}

# cni_pod_del NAME: ptp's DEL (frees the address and the veth), then the
# netns. Fails the test if ptp fails.
cni_pod_del() {
	out=$(cni_exec DEL "$(cni_ptp_conf)" "$1" ptp) || fail "ptp DEL $1: $out"
	ip netns del "$1" 2>/dev/null || true
}

# The host-side veth: the result's interface that has no sandbox.
cni_host_if() { jq -r '[.interfaces[] | select(.sandbox == null or .sandbox == "")][0].name'; }
# The pod's address, without its prefix length.
cni_pod_ip() { jq -r '.ips[0].address | sub("/.*"; "")'; }
cni_gateway() { jq -r '.ips[0].gateway'; }

EXT_NODE=198.51.100.1 EXT=198.51.100.2

# cni_ext_add: netns ext, a host off the node at $EXT behind the node's
# vext ($EXT_NODE), its default route through the node. ip netns del ext
# takes both away.
cni_ext_add() {
	ip netns add ext
	ip link add vext type veth peer name eth0 netns ext
	ip addr add $EXT_NODE/24 dev vext
	ip link set vext up
	ip -n ext addr add $EXT/24 dev eth0
	ip -n ext link set eth0 up
	ip -n ext route add default via $EXT_NODE
}
