# A pod's limits as bpfqdisc-bandwidth sets them through the CNI protocol
# (bpf_hbm on both ends of the pod's veth, pod_police behind the pod's
# own), 20 Mbit/s each way with containerd's placeholder burst of
# 4294967295 bits, which the plugin caps at 200 ms of the rate (500000
# bytes). A pod made by ptp + host-local, whose result is the prevResult;
# one iperf3 TCP flow of 5 s each way between the pod and its gateway, and
# pings from the pod to the gateway during it. Issue 37's targets:
#   first second at most 1.5x the limit, seconds 2-5 0.90-1.03x of it
#   (goodput: TCP over IP bytes tops out at 0.965x);
#   ping median at most 2 ms (the reference plugin: 21-40 ms; bpf_hbm
#   before sparse flows went ahead of the skb in flight: 13 ms);
#   no egress retransmits and no drops by the backstop.
# Measured on the virtual clock, 1 vCPU (2026-12-05): egress first 23.6,
# steady 19.3 Mbit/s, ping 0.024 ms; ingress the same.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cni_lib.sh"
. "$(dirname "$0")/pod_lib.sh"
command -v iperf3 >/dev/null || skip "no iperf3"
TMPD=$(mktemp -d)
LIMIT=20	# Mbit/s: bars 30 (first second) and 18-20.6 (steady)

RES=$(cni_pod_add pod)
H=$(echo "$RES" | cni_host_if)
G=$(echo "$RES" | cni_gateway)
pod_limit_add ${LIMIT}000000 4294967295
bw CHECK "$(bw_conf 1.1.0 "$(bw_limits ${LIMIT}000000 4294967295)" "$RES")" pod
[ "$rc" = 0 ] || fail "CHECK after ADD: $out"
burst=$(police_get "$H" | awk '{ print $2 }')
[ "$burst" = 500000 ] || fail "the placeholder burst: the backstop's is $burst bytes, not 200 ms of the rate (500000)"
for dir in egress ingress; do
	pod_flow $dir 5
	note "$dir: first $FIRST, steady $STEADY Mbit/s, $RETRANS retransmits, ping $PING ms"
	within "$FIRST" 0 30 || fail "$dir: first second $FIRST Mbit/s, limit $LIMIT"
	within "$STEADY" 18 20.6 || fail "$dir: steady $STEADY Mbit/s, limit $LIMIT"
	within "$PING_MED" 0 2 || fail "$dir: ping $PING ms under load"
	[ $dir = ingress ] || [ "$RETRANS" = 0 ] || fail "egress: $RETRANS retransmits"
done
drops=$(police_get "$H" | awk '{ print $5 }')
[ "$drops" = 0 ] || fail "the backstop dropped $drops packets behind the pod's own qdisc"
pod_limit_del "$H"
cni_pod_del pod
rm -rf "$TMPD"
exit 0
