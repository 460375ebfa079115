# One pod's traffic under its limits, for the pod tests (test_cni_*) and
# tools/cni-measure; sourced by dash after cni_lib.sh. The pod is netns
# "pod" made by cni_pod_add; $G is its gateway, the node's end of its veth.
. "$TOP/selftests/kernel/cni_bw_lib.sh"

# pod_flow DIR SECS: one iperf3 TCP flow of SECS s between the pod and $G,
# from the pod (egress) or to it (ingress), with 50 pings (0.1 s apart)
# from the pod to $G from 2 s on. Sets, at the receiver: FIRST (Mbit/s in
# the first second), STEADY (Mbit/s from the start of second 4 to the end;
# from second 2 if SECS < 8), and RETRANS (segments the sender
# retransmitted), PING (median / p90 ms), PING_MED.
pod_flow() {
	iperf3 -s -1 -B "$G" -J >"$TMPD/srv.json" 2>&1 &
	srv=$!
	sleep 0.3
	if [ "$1" = egress ]; then sender=pod R= rx=srv; else sender= R=-R rx=cli; fi
	r0=$(pod_retrans "$sender")
	ip netns exec pod iperf3 -c "$G" -t "$2" $R -J >"$TMPD/cli.json" 2>&1 &
	cli=$!
	sleep 2
	ip netns exec pod ping -c 50 -i 0.1 "$G" >"$TMPD/ping" 2>&1 || true
	wait $cli || fail "iperf3 $1: $(jq -r .error "$TMPD/cli.json")"
	wait $srv || true
	RETRANS=$(($(pod_retrans "$sender") - r0))
	from=3
	[ "$2" -ge 8 ] || from=1
	FIRST=$(jq '.intervals[0].sum.bits_per_second / 1e6 * 10 | round / 10' "$TMPD/$rx.json")
	STEADY=$(iperf_steady "$TMPD/$rx.json" $from)
	PING=$(sed -n 's/.*time=\([0-9.]*\) ms/\1/p' "$TMPD/ping" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) printf "%s / %s\n", v[int((NR + 1) / 2)], v[int(NR * 0.9 + 0.5)] }')
	PING_MED=${PING%% *}
}

# iperf_steady JSON FROM: Mbit/s of iperf3's -J output JSON from interval
# FROM (0 is the first second) to the end, to two decimals.
iperf_steady() {
	jq ".intervals[$2:] | ([.[].sum.bytes] | add) * 8 / ([.[].sum.seconds] | add) / 1e6 * 100 | round / 100" "$1"
}

# pod_retrans NS: TCP segments retransmitted in netns NS ("": the node's).
pod_retrans() {
	${1:+ip netns exec "$1"} awk '/^Tcp:/ { if (h) print $13; h = 1 }' /proc/net/snmp
}

# within X LO HI: LO <= X <= HI (decimals).
within() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x != "" && x >= lo && x <= hi) }'; }

# police_get DEV: the backstop's entry of host-side veth DEV (include/pod_police.h):
# rate burst pkts bytes drops drop_bytes; fails if there is none.
police_get() { "$TOP/bin/podlimit" /sys/fs/bpf/bpfqdisc_pod/pod_limits get "$1"; }

# pod_limit_add RATE BURST: bpfqdisc-bandwidth's ADD for pod "pod" after
# ptp's result $RES, RATE bit/s and BURST bits each way.
pod_limit_add() {
	bw ADD "$(bw_conf 1.1.0 "$(bw_limits "$1" "$2")" "$RES")" pod
	[ "$rc" = 0 ] || fail "the plugin's ADD: $out"
}

# pod_limit_del DEV: its DEL, which leaves no backstop entry for DEV.
pod_limit_del() {
	bw DEL "$(bw_conf 1.1.0)" pod
	[ "$rc" = 0 ] || fail "the plugin's DEL: $out"
	! police_get "$1" 2>/dev/null || fail "DEL left the backstop's entry of $1"
}

# Flows at once between pods and hosts, each measured at its server:
#   pod_serve NS PORT NAME    a one-shot iperf3 server in NS ("": the
#                             node), its JSON in $TMPD/NAME.json
#   pod_client NS DST PORT [ARG...]   an iperf3 client of 6 s from NS
#   pod_finish                the clients' ends, then the servers'
#   pod_held NAME LIMIT       what NAME's server received over seconds 2
#                             to the end, within 0.85-1.03x of LIMIT Mbit/s
#   pod_not_held NAME PACE    within 0.85-1.03x of PACE, the Mbit/s its
#                             client sent at (-b): no limit held it
pod_serve() {
	${1:+ip netns exec "$1"} iperf3 -s -1 -p "$2" -J >"$TMPD/$3.json" 2>&1 &
	POD_SERVERS="${POD_SERVERS-} $!"
}
pod_client() {
	ns=$1 dst=$2 port=$3
	shift 3
	${ns:+ip netns exec "$ns"} iperf3 -c "$dst" -p "$port" -t 6 --connect-timeout 2000 "$@" \
		>/dev/null 2>&1 &
	POD_CLIENTS="${POD_CLIENTS-} $!"
}
# A server whose client never came would wait for ever: killed.
pod_finish() {
	wait $POD_CLIENTS || true
	sleep 1
	kill $POD_SERVERS 2>/dev/null || true
	wait
	POD_CLIENTS= POD_SERVERS=
}
# pod_rate NAME MBIT WHAT: R, what NAME's server received, and RATIO, R /
# MBIT (WHAT it is: limit, pace), noted.
pod_rate() {
	R=$(iperf_steady "$TMPD/$1.json" 1)
	RATIO=$(awk -v r="$R" -v l="$2" 'BEGIN { print r / l }')
	note "$1: $R Mbit/s ($3 $2)"
}
pod_held() {
	pod_rate "$1" "$2" limit
	within "$RATIO" 0.85 1.03 ||
		fail "$1: $R Mbit/s against a limit of $2 ($(jq -r .error "$TMPD/$1.json"))"
}
pod_not_held() {
	pod_rate "$1" "$2" pace
	within "$RATIO" 0.85 1.03 ||
		fail "$1: $R Mbit/s, held below the $2 its client sent ($(jq -r .error "$TMPD/$1.json"))"
}

# pod_dual_stack NS RES: pod NS (cni_pod_add's, ptp's result RES) gets
# $POD6 on its eth0 through its host-side veth, and a host off the node
# (cni_ext_add) $EXT6 besides $EXT; the node forwards IPv6, and routes the
# pod to $EXT through its gateway, as IPAM's "routes" would.
POD6=2001:db8:a::2 EXT6=2001:db8:e::2
pod_dual_stack() {
	cni_ext_add
	sysctl -qw net.ipv6.conf.all.forwarding=1
	ip -n "$1" route add 198.51.100.0/24 via "$(echo "$2" | cni_gateway)" &&
		ip addr add 2001:db8:a::1/64 dev "$(echo "$2" | cni_host_if)" nodad &&
		ip -n "$1" addr add $POD6/64 dev eth0 nodad &&
		ip -n "$1" -6 route add default via 2001:db8:a::1 &&
		ip addr add 2001:db8:e::1/64 dev vext nodad &&
		ip -n ext addr add $EXT6/64 dev eth0 nodad &&
		ip -n ext -6 route add default via 2001:db8:e::1 || fail "$1: no dual-stack path to ext"
}
