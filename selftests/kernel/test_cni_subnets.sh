#!/bin/dash
# shapedSubnets and unshapedSubnets in force (issue 50), as the reference
# plugin (v1.5+) puts them: its u32 filters match each packet's
# destination (IPv4 at byte 16 of the header, IPv6 at 24) on both of its
# HTBs, so a pod's egress is shaped by where it sends to, and its ingress
# by which of its own addresses it is sent to. Pod a (10 Mbit/s each way)
# has its IPv4 address from ptp and an IPv6 one; ext, a host off the node,
# has both too. Four flows at once, each paced by its client at 40
# Mbit/s, measured at the server over seconds 2-6:
#   e4  a -> ext's IPv4        egress to 198.51.100.0/24
#   e6  a -> ext's IPv6        egress to 2001:db8:e::/64
#   i4  ext -> a's IPv4        ingress to 192.0.2.0/24
#   i6  ext -> a's IPv6        ingress to 2001:db8:a::/64
# With unshapedSubnets [198.51.100.0/24, 2001:db8:a::/64] e4 and i6 go at
# their pace and e6 and i4 hold the limit; a second ADD with the same list
# as shapedSubnets swaps them. CHECK tells the lists apart; DEL leaves
# no subnet entry.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cni_lib.sh"
. "$(dirname "$0")/pod_lib.sh"
command -v iperf3 >/dev/null || skip "no iperf3"
TMPD=$(mktemp -d)
PACE=40 LIMIT=10
LIST='["198.51.100.0/24","2001:db8:a::/64"]'

RES=$(cni_pod_add a)
A4=$(echo "$RES" | cni_pod_ip)
pod_dual_stack a "$RES"

# conf [LIST_NAME]: the config of the limits, with LIST as LIST_NAME.
conf() { bw_conf 1.1.0 "$(bw_limits ${LIMIT}000000 200000)${1:+,\"$1\":$LIST}" "$RES"; }
# limits LIST_NAME: ADD (again) with LIST as LIST_NAME, which CHECK finds
# in force, and not the other list nor none.
limits() {
	bw ADD "$(conf $1)" a
	[ "$rc" = 0 ] || fail "ADD with $1: $out"
	bw CHECK "$(conf $1)" a
	[ "$rc" = 0 ] || fail "CHECK with $1: $out"
	for other in shapedSubnets unshapedSubnets ""; do
		[ "$other" != "$1" ] || continue
		bw CHECK "$(conf $other)" a
		bw_expect_code 101 "CHECK with ${other:-no list} after ADD with $1"
	done
}
# flows: the four at once.
flows() {
	pod_serve ext 5201 e4
	pod_serve ext 5202 e6
	pod_serve a 5203 i4
	pod_serve a 5204 i6
	sleep 0.5
	pod_client a $EXT 5201 -b ${PACE}M
	pod_client a $EXT6 5202 -b ${PACE}M
	pod_client ext "$A4" 5203 -b ${PACE}M
	pod_client ext $POD6 5204 -b ${PACE}M
	pod_finish
}

limits unshapedSubnets
flows
pod_not_held e4 $PACE
pod_held e6 $LIMIT
pod_held i4 $LIMIT
pod_not_held i6 $PACE

limits shapedSubnets
flows
pod_held e4 $LIMIT
pod_not_held e6 $PACE
pod_not_held i4 $PACE
pod_held i6 $LIMIT

bw DEL "$(bw_conf 1.1.0)" a
[ "$rc" = 0 ] || fail "DEL: $out"
for m in /sys/fs/bpf/bpfqdisc/hbm/hbm_subnets /sys/fs/bpf/bpfqdisc_pod/pod_subnets; do
	n=$(bpftool -j map dump pinned $m | jq length) || fail "no map $m"
	[ "$n" = 0 ] || fail "DEL left $n entries in $m"
done
ip netns del ext
cni_pod_del a
rm -rf "$TMPD"
exit 0
