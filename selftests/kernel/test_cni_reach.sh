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
SERVERS= CLIENTS=

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

# serve NS PORT NAME: a one-shot iperf3 server in NS ("": the node); its
# pid joins SERVERS.
serve() {
	${1:+ip netns exec "$1"} iperf3 -s -1 -p "$2" -J >"$TMPD/$3.json" 2>&1 &
	SERVERS="$SERVERS $!"
}
# flow NS DST PORT: an iperf3 client of 6 s from NS; its pid joins CLIENTS.
flow() {
	${1:+ip netns exec "$1"} iperf3 -c "$2" -p "$3" -t 6 --connect-timeout 2000 >/dev/null 2>&1 &
	CLIENTS="$CLIENTS $!"
}
# finish: the clients' ends, and the servers' (a server whose client never
# came would wait for ever).
finish() {
	wait $CLIENTS || true
	sleep 1
	kill $SERVERS 2>/dev/null || true
	wait
	CLIENTS= SERVERS=
}

# held NAME LIMIT: what NAME's server received over seconds 2 to the end,
# within 0.85-1.03x of LIMIT Mbit/s.
held() {
	r=$(iperf_steady "$TMPD/$1.json" 1)
	note "$1: $r Mbit/s (limit $2)"
	within "$(awk -v r="$r" -v l="$2" 'BEGIN { print r / l }')" 0.85 1.03 ||
		fail "$1: $r Mbit/s against a limit of $2 ($(jq -r .error "$TMPD/$1.json"))"
}

serve b 5201 a_to_b
serve ext 5202 b_to_ext
serve a 5203 ext_to_a
sleep 0.5
flow a "$B" 5201
flow b "$EXT" 5202
flow ext "$A" 5203
finish
held a_to_b 10
held b_to_ext 20
held ext_to_a 10

serve a 5204 node_to_a
sleep 0.5
flow "" "$A" 5204
finish
held node_to_a 10

ip netns del ext
for p in a b; do
	bw DEL "$(bw_conf 1.1.0)" $p
	[ "$rc" = 0 ] || fail "$p: the plugin's DEL: $out"
	cni_pod_del $p
done
rm -rf "$TMPD"
exit 0
