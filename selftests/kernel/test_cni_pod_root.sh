# A pod's root cannot lift the limits bpfqdisc-bandwidth set (through the
# CNI protocol, after ptp + host-local). With CAP_NET_ADMIN in its netns it
# sees and may delete or replace the qdisc on its eth0 (its egress
# shaper); the backstop, pod_police at the host-side veth's tcx ingress,
# then holds the pod's egress to the limit by dropping, and the pod's
# ingress shaper is on the node's side, out of its reach. 20 Mbit/s each
# way with containerd's placeholder burst (capped at 200 ms of the rate):
#   the pod deletes its qdisc: a 5 s iperf3 flow from the pod gets at
#     most 1.5x the limit in its first second and at most 1.03x over
#     seconds 2-5, and the backstop drops (without it: 2342 Mbit/s);
#   the pod replaces it with pfifo: the same;
#   the pod's netns shows no qdisc but its own, and ingress stays limited.
# Measured on the virtual clock, 1 vCPU (2026-12-05): see the notes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cni_lib.sh"
. "$(dirname "$0")/pod_lib.sh"
command -v iperf3 >/dev/null || skip "no iperf3"
TMPD=$(mktemp -d)
LIMIT=20	# Mbit/s: bars 30 (first second) and 20.6 (seconds 2-5)

RES=$(cni_pod_add pod)
H=$(echo "$RES" | cni_host_if)
G=$(echo "$RES" | cni_gateway)
pod_limit_add ${LIMIT}000000 4294967295

# held WHAT: a flow from the pod stays within the limit, and the backstop
# dropped more than before.
held() {
	before=$(police_get "$H" | awk '{ print $5 }')
	pod_flow egress 5
	drops=$(($(police_get "$H" | awk '{ print $5 }') - before))
	note "$1: first $FIRST, steady $STEADY Mbit/s, $RETRANS retransmits, $drops dropped by the backstop"
	within "$FIRST" 0 30 || fail "$1: first second $FIRST Mbit/s, limit $LIMIT"
	within "$STEADY" 0 20.6 || fail "$1: $STEADY Mbit/s, limit $LIMIT"
	[ "$drops" -gt 0 ] || fail "$1: the backstop dropped nothing"
}

expect ip netns exec pod tc qdisc del dev eth0 root
bw CHECK "$(bw_conf 1.1.0 "$(bw_limits ${LIMIT}000000 4294967295)" "$RES")" pod
bw_expect_code 101 "CHECK after the pod deleted its qdisc"
held "the pod deleted its qdisc"
expect ip netns exec pod tc qdisc replace dev eth0 root pfifo limit 10000
held "the pod put pfifo in its place"
[ "$(ip netns exec pod tc qdisc show | grep -vc 'noqueue\|pfifo')" = 0 ] ||
	fail "the pod sees qdiscs of the node's: $(ip netns exec pod tc qdisc show)"
pod_flow ingress 5
note "ingress after all that: first $FIRST, steady $STEADY Mbit/s"
within "$STEADY" 0 20.6 || fail "ingress: $STEADY Mbit/s, limit $LIMIT"
pod_limit_del "$H"
cni_pod_del pod
rm -rf "$TMPD"
exit 0
