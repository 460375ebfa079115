# A process in a limited pod cannot send past its egress limit by the
# socket options and sockets its root may use (CAP_NET_ADMIN in the pod's
# netns), with bpfqdisc-bandwidth's qdisc in place (bpf_hbm on the pod's
# eth0, pod_police at the host-side veth's tcx ingress behind it). 10
# Mbit/s with containerd's placeholder burst (capped at 200 ms of the
# rate); each case offers 20 Mbit/s of 1400-byte UDP datagrams from the pod
# to its gateway for 2 s (selftests/progs/podabuse.c), and the receiver
# counts IP bytes per second from the first datagram on: the first second
# at most 1.5x the limit, the second at 0.8-1.03x.
#   SO_TXTIME, CLOCK_MONOTONIC and CLOCK_TAI, stamps 1 s in the past, 0
#     and 10 s ahead: bpf_hbm stamps every packet itself, so no stamp
#     gets more through, and none holds the pod's other traffic (a ping
#     beside the 10 s stamps is answered);
#   SO_PRIORITY 7 (TC_PRIO_CONTROL) and 0x80010001 (a classid), SO_MARK:
#     the pod's qdisc has no classes, so with shared_default every key is
#     one aggregate;
#   a cgroup of its own, made for it (nested two deep): the same;
#   an IPPROTO_UDP raw socket and an AF_PACKET socket: through the qdisc.
# In each of those the qdisc holds the pod: the backstop drops nothing.
#   AF_PACKET with PACKET_QDISC_BYPASS skips the pod's qdisc (it is the
#     pod's device; no qdisc can hold what bypasses it): the backstop holds
#     it to the same bars, and drops.
# And what no qdisc of the pod's stamped cannot hold the node's: the pod's
# datagrams stamped 9 s ahead, bypassing its qdisc or after its root
# deleted it, must not fill an fq on the node's uplink (fq sends a packet
# at its skb->tstamp, and keeps up to 10 s of them) against the node's own
# traffic off the node.
# The senders run as the VM's root: every capability a pod's root has, and
# more. Measured on the virtual clock, 1 vCPU (2026-12-06): 11.1-12.9
# then 10.00-10.01 Mbit/s in every case; the node's 5.00 of 5 Mbit/s
# beside the stamps (nothing before pod_police cleared them).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cni_lib.sh"
. "$(dirname "$0")/pod_lib.sh"
LIMIT=10	# Mbit/s: bars 15 (first second) and 8-10.3 (second 2)
SECS=2
ABUSE="$TOP/bin/podabuse"

RES=$(cni_pod_add pod)
H=$(echo "$RES" | cni_host_if)
G=$(echo "$RES" | cni_gateway)
P=$(echo "$RES" | cni_pod_ip)
MAC=$(cat "/sys/class/net/$H/address")
pod_limit_add ${LIMIT}000000 4294967295
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CG" ] || fail "no cgroup2 mount"
mkdir -p "$CG/podabuse/own/deeper"
port=9000
TMPD=$(mktemp -d)

# held DROPS WHAT HOW...: podabuse sends HOW from the pod; what arrives
# stays within the bars. DROPS: whether the backstop must drop (yes) or
# must not (no).
held() {
	drops=$1 what=$2
	shift 2
	port=$((port + 1))
	before=$(police_get "$H" | awk '{ print $5 }')
	"$ABUSE" recv "$G" $port $SECS >"$TMPD/rx" &
	rx=$!
	sleep 0.2
	${PREFIX-} ip netns exec pod "$ABUSE" send "$G" $port "$SECS.3" $((2 * LIMIT)) 1400 1 "$@" ||
		fail "$what: the sender failed"
	wait $rx || fail "$what: the receiver got nothing"
	read -r first second <"$TMPD/rx"
	dropped=$(($(police_get "$H" | awk '{ print $5 }') - before))
	note "$what: $first then $second Mbit/s, $dropped dropped by the backstop"
	within "$first" 0 $((LIMIT * 3 / 2)) || fail "$what: first second $first Mbit/s, limit $LIMIT"
	within "$second" $((LIMIT * 8 / 10)) "$LIMIT.3" || fail "$what: $second Mbit/s, limit $LIMIT"
	case $drops in
	no) [ "$dropped" = 0 ] || fail "$what: the backstop dropped $dropped: the pod's qdisc let it by" ;;
	yes) [ "$dropped" -gt 0 ] || fail "$what: the backstop dropped nothing" ;;
	esac
}

held no "SO_TXTIME mono stamped 1 s ago" udp txtime mono -1000
held no "SO_TXTIME mono stamped 0" udp txtime mono zero
held no "SO_TXTIME tai stamped 1 s ago" udp txtime tai -1000
for clock in mono tai; do
	# The pod's ping beside datagrams stamped 10 s ahead.
	(sleep 1 && ip netns exec pod ping -c 5 -i 0.2 -W 1 "$G" >"$TMPD/ping" 2>&1) &
	pinger=$!
	held no "SO_TXTIME $clock stamped 10 s ahead" udp txtime $clock 10000
	wait $pinger || fail "$clock 10 s ahead: the pod's ping beside them: $(tail -n 2 "$TMPD/ping")"
done
held no "SO_PRIORITY 7" prio 7
held no "SO_PRIORITY 0x80010001" prio 0x80010001
held no "SO_MARK" mark 0xffffffff
PREFIX="in_cgroup $CG/podabuse/own/deeper"
held no "a cgroup of its own" udp
unset PREFIX
held no "raw socket" raw
held no "AF_PACKET" packet eth0 "$P" "$MAC" 0
held yes "AF_PACKET with PACKET_QDISC_BYPASS" packet eth0 "$P" "$MAC" 1

# Off the node, through the node's uplink under fq (a node of Cilium's
# Bandwidth Manager, or of net.core.default_qdisc=fq), which sends each
# packet at its skb->tstamp. The pod's datagrams stamped 9 s ahead, from
# 128 sockets (fq holds 100 packets a flow, 10000 in all), as frames that
# bypass its qdisc, then from UDP sockets once its root deleted that
# qdisc: the node's own traffic off the node still gets through.
cni_ext_add
ip -n pod route add 198.51.100.0/24 via "$G"

# beside WHAT HOW...: the node's 5 Mbit/s off the node, while the pod sends
# HOW stamped 9 s ahead, at twice its limit, from 1 s before.
beside() {
	what=$1
	shift
	port=$((port + 1))
	expect tc qdisc replace dev vext root fq
	ip netns exec pod "$ABUSE" send $EXT 9 4 $((2 * LIMIT)) 100 128 "$@" txtime mono 9000 &
	attack=$!
	sleep 1
	ip netns exec ext "$ABUSE" recv $EXT $port $SECS >"$TMPD/rx" &
	rx=$!
	sleep 0.2
	"$ABUSE" send $EXT $port "$SECS.3" 5 1400 1 udp || fail "the node's sender failed"
	wait $rx || fail "$what: the node's traffic off the node got nothing: $(tc -s qdisc show dev vext | sed -n 2,4p)"
	wait $attack || fail "$what: the pod's sender failed"
	read -r first second <"$TMPD/rx"
	note "the node's 5 Mbit/s off the node beside $what: $first then $second Mbit/s; fq: $(tc -s qdisc show dev vext | sed -n 2,4p | tr -s ' \n' ' ')"
	within "$second" 4.5 5.2 || fail "$what: the node's 5 Mbit/s off the node got $second Mbit/s"
}
beside "frames bypassing the pod's qdisc" packet eth0 "$P" "$MAC" 1
expect ip netns exec pod tc qdisc del dev eth0 root
beside "UDP with the pod's qdisc deleted" udp
ip netns del ext
rmdir "$CG/podabuse/own/deeper" "$CG/podabuse/own" "$CG/podabuse"
pod_limit_del "$H"
cni_pod_del pod
rm -rf "$TMPD"
exit 0
