# bpfqdisc-bandwidth as a runtime calls it, for the test_cni_* tests;
# sourced by dash after lib.sh and cni_lib.sh (which makes the pods).
#
#   bw CMD CONFIG NAME      the plugin for container NAME (netns
#                           /run/netns/NAME unless BW_NETNS is set, eth0,
#                           CNI_ARGS $BW_ARGS): its stdout in $out, its
#                           exit status in $rc
#   bw_conf VER [MEMBERS] [PREV]   a network config of type bpfqdisc-bandwidth
#   bw_limits RATE BURST    MEMBERS for RATE bit/s and BURST bits each way
#   bw_code                 the "code" of the error JSON in $out
#   bw_expect_code CODE WHAT      fail unless $rc is non-zero and $out is a
#                           CNI error of CODE

PLUGIN="$TOP/bin/bpfqdisc-bandwidth"
STATE_DIR=/run/bpfqdisc/cni
LIMITS='"ingressRate":20000000,"ingressBurst":200000,"egressRate":10000000,"egressBurst":4294967295'

bw() {
	set +e
	out=$(printf '%s' "$2" | env CNI_COMMAND="$1" CNI_CONTAINERID="$3" \
		CNI_NETNS="${BW_NETNS-/run/netns/$3}" CNI_IFNAME=eth0 CNI_PATH="$CNI_BIN" \
		CNI_ARGS="${BW_ARGS-}" "$PLUGIN" 2>/dev/null)
	rc=$?
	set -e
}

bw_conf() {
	printf '{"cniVersion":"%s","name":"%s","type":"bpfqdisc-bandwidth"%s%s}' "$1" "$CNI_NET" \
		"${2:+,$2}" "${3:+,\"prevResult\":$3}"
}

bw_limits() {
	printf '"ingressRate":%s,"ingressBurst":%s,"egressRate":%s,"egressBurst":%s' "$1" "$2" "$1" "$2"
}

bw_code() { printf '%s' "$out" | jq -r .code; }

bw_expect_code() {
	[ "$rc" != 0 ] || fail "$2: exit 0, expected CNI error $1 (stdout: $out)"
	[ "$(bw_code)" = "$1" ] || fail "$2: expected code $1, got: $out"
	for k in cniVersion msg; do
		[ "$(printf '%s' "$out" | jq -r ".$k")" != null ] || fail "$2: error without $k: $out"
	done
}

# root_kind NETNS DEV: DEV's root qdisc kind ("" for the node's netns).
root_kind() {
	if [ -n "$1" ]; then qdisc_kind "$1" "$2"
	else tc qdisc show dev "$2" root | awk '{print $2; exit}'; fi
}

# pins: the per-device pins of bpf_hbm (its egress program's attachments).
pins() { ls /sys/fs/bpf/bpfqdisc/hbm 2>/dev/null | grep '^egress_' || true; }
