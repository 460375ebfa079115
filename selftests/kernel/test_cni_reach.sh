#!/bin/dash
# A pod's limit covers all of its traffic, as the reference plugin's does,
# and pods of one node are each held to their own limit side by side.
# Pods a (10 Mbit/s each way) and b (20 Mbit/s each way), made by ptp +
# host-local and limited by bpfqdisc-bandwidth through the CNI protocol,
# and a host off the node (netns ext, routed through the node). Three TCP
# flows at once for 6 s, each measured at its receiver over seconds 2-6:
#   a -> b    pod to pod on the node: a's egress, 10 Mbit/s
#   b -> ext  off the node: b's egress, 20 Mbit/s
#   ext -> a  from off the node: a's ingress, 10 Mbit/s
# Each between 0.85x (goodput under the shaper's IP bytes; sharing one
# vCPU) and 1.03x of its limit. Then a flow from the node itself to a.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cni_lib.sh"
. "$(dirname "$0")/pod_lib.sh"
command -v iperf3 >/dev/null || skip "no iperf3"
TMPD=$(mktemp -d)

pod() { # NAME MBIT: the pod, limited each way; sets RES
	RES=$(cni_pod_add "$1")
	bw ADD "$(bw_conf 1.1.0 "$(bw_limits $(($2 * 1000000)) 200000)" "$RES")" "$1"
	[ "$rc" = 0 ] || fail "$1: the plugin's ADD: $out"
}
pod a 10
A=$(echo "$RES" | cni_pod_ip)
pod b 20
B=$(echo "$RES" | cni_pod_ip)

cni_ext_add
# The route to off the node that IPAM's "routes" would give the pods.
for p in a b; do
	ip -n $p route add 198.51.100.0/24 via "$(echo "$RES" | cni_gateway)" || fail "$p: no route off the node"
done

pod_serve b 5201 a_to_b
pod_serve ext 5202 b_to_ext
pod_serve a 5203 ext_to_a
sleep 0.5
pod_client a "$B" 5201
pod_client b "$EXT" 5202
pod_client ext "$A" 5203
pod_finish
pod_held a_to_b 10
pod_held b_to_ext 20
pod_held ext_to_a 10

pod_serve a 5204 node_to_a
sleep 0.5
pod_client "" "$A" 5204
pod_finish
pod_held node_to_a 10

ip netns del ext
for p in a b; do
	bw DEL "$(bw_conf 1.1.0)" $p
	[ "$rc" = 0 ] || fail "$p: the plugin's DEL: $out"
	cni_pod_del $p
done
rm -rf "$TMPD"
exit 0
