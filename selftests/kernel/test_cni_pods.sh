#!/bin/dash
# 110 pods (kubelet's default max-pods) on one node, each made by ptp +
# host-local and limited by bpfqdisc-bandwidth to its own rates, each
# limit checked (CHECK), then every DEL: nothing left behind, no device,
# no qdisc, no record, no pin. The BPF maps the plugin's loads make (its
# first ADD loads bpf_hbm and pod_police for the node) take under
# MAPS_MAX bytes: the reference plugin's whole kernel memory for 110 pods
# is 6.4 MB (docs/benchmarks.md, section 7). Prints the guest time of ADD
# and DEL per pod.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/cni_lib.sh"
. "$TOP/selftests/kernel/cni_bw_lib.sh"

MAPS_MAX=$((4 * 1024 * 1024))
# The plugin's own loads, as on a node before its first pod.
"$BQ" unload hbm >/dev/null 2>&1 || true
rm -rf /sys/fs/bpf/bpfqdisc_pod
ids0=$(bpftool map show -j | jq -c '[.[].id]')

N=${BQ_CNI_PODS:-110}
links0=$(ip -o link | wc -l)
ms() { echo $(($(date +%s%N) / 1000000)); }
limits() { # pod I: ingress I+1 Mbit/s, egress (I+1) x 500 kbit/s
	printf '"ingressRate":%d,"ingressBurst":4294967295,"egressRate":%d,"egressBurst":200000' \
		$((($1 + 1) * 1000000)) $((($1 + 1) * 500000))
}

add=0 i=0
while [ $i -lt $N ]; do
	res=$(cni_pod_add pod$i)
	printf '%s' "$res" >"/tmp/pod$i.json"
	t=$(ms)
	bw ADD "$(bw_conf 1.0.0 "$(limits $i)" "$res")" pod$i
	add=$((add + $(ms) - t))
	[ "$rc" = 0 ] || fail "ADD pod$i: $out"
	i=$((i + 1))
done
n=$(tc qdisc show | grep -c bpf_hbm)
[ "$n" = "$N" ] || fail "$n bpf_hbm on the node's veths, not $N"
maps=$(bpftool map show -j | jq --argjson old "$ids0" \
	'[.[] | select(.id as $i | $old | index($i) | not) | .bytes_memlock] | add // 0')
note "$N pods: the plugin's BPF maps take $maps bytes (memlock)"
[ "$maps" -le "$MAPS_MAX" ] || fail "the plugin's maps take $maps bytes for $N pods, over $MAPS_MAX: $(bpftool map show -j |
	jq -r '[.[] | "\(.name) \(.bytes_memlock)"] | join(", ")')"
i=0
while [ $i -lt $N ]; do
	bw CHECK "$(bw_conf 1.0.0 "$(limits $i)" "$(cat /tmp/pod$i.json)")" pod$i
	[ "$rc" = 0 ] || fail "CHECK pod$i: $out"
	i=$((i + 1))
done
# Each its own: pod 7's limits are not pod 8's.
bw CHECK "$(bw_conf 1.0.0 "$(limits 8)" "$(cat /tmp/pod7.json)")" pod7
bw_expect_code 101 "pod 7 checked against pod 8's limits"

del=0 i=0
while [ $i -lt $N ]; do
	t=$(ms)
	bw DEL "$(bw_conf 1.0.0 "$(limits $i)" "$(cat /tmp/pod$i.json)")" pod$i
	del=$((del + $(ms) - t))
	[ "$rc" = 0 ] || fail "DEL pod$i: $out"
	cni_pod_del pod$i
	rm -f /tmp/pod$i.json
	i=$((i + 1))
done
[ "$(ip -o link | wc -l)" = "$links0" ] || fail "devices left: $(ip -o link)"
[ -z "$(ip netns list)" ] || fail "netns left: $(ip netns list)"
[ -z "$(tc qdisc show | grep bpf_hbm)" ] || fail "qdiscs left: $(tc qdisc show | grep bpf_hbm)"
[ -z "$(ls "$STATE_DIR")" ] || fail "records left: $(ls "$STATE_DIR" | head)"
[ -z "$(pins)" ] || fail "pins left: $(pins)"
note "$N pods: ADD $((add / N)) ms, DEL $((del / N)) ms per pod (guest clock, the plugin alone)"
