#!/bin/dash
# bpfqdisc-bandwidth through the CNI protocol, as a runtime calls it: each
# pod made by ptp + host-local first, whose result goes in as prevResult.
# VERSION, STATUS, ADD with limits (qdiscs on both veth ends) and without
# (prevResult byte for byte, nothing touched), CHECK in force and after
# the pod's qdisc was deleted, DEL twice, without prevResult and after the
# netns went, invalid configs (code 7), configs of 0.3.1 and 1.1.0.
# bpfqdisc stats --prometheus labels the pod's series, ingress and egress,
# with its container id, interface and CNI_ARGS' pod, until DEL.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/cni_lib.sh"
. "$TOP/selftests/kernel/cni_bw_lib.sh"

bw VERSION '{"cniVersion":"1.0.0"}' none
[ "$rc" = 0 ] || fail "VERSION exit $rc: $out"
[ "$(printf '%s' "$out" | jq -c .supportedVersions)" = '["0.3.0","0.3.1","0.4.0","1.0.0","1.1.0"]' ] ||
	fail "VERSION: $out"

# STATUS loads the kind when it is not: a node needs only the binary.
[ ! -e /sys/fs/bpf/bpfqdisc/hbm/link ] || fail "bpf_hbm loaded before the test"
bw STATUS "$(bw_conf 1.1.0)" none
[ "$rc" = 0 ] && [ -z "$out" ] || fail "STATUS: exit $rc: $out"
[ -e /sys/fs/bpf/bpfqdisc/hbm/link ] || fail "STATUS did not load bpf_hbm"
slots=$(bpftool -j map show pinned /sys/fs/bpf/bpfqdisc/hbm/bq_slots | jq .max_entries)
[ "$slots" -ge 220 ] || fail "bpf_hbm loaded for $slots instances, not 2 x 110 pods"

# ADD with limits: prevResult back unchanged, bpf_hbm on both ends.
# CNI_ARGS as kubelet's runtime sets them.
res=$(cni_pod_add p1)
host=$(printf '%s' "$res" | cni_host_if)
BW_ARGS='IgnoreUnknown=1;K8S_POD_NAMESPACE=shop;K8S_POD_NAME=web-0;K8S_POD_INFRA_CONTAINER_ID=p1' \
	bw ADD "$(bw_conf 1.0.0 "$LIMITS" "$res")" p1
[ "$rc" = 0 ] || fail "ADD: exit $rc: $out"
[ "$out" = "$res" ] || fail "ADD changed the result: $out"
[ "$(root_kind "" "$host")" = bpf_hbm ] || fail "ADD: $host has $(root_kind "" "$host")"
[ "$(root_kind p1 eth0)" = bpf_hbm ] || fail "ADD: the pod's eth0 has $(root_kind p1 eth0)"
"$BQ" qdisc show dev "$host" | grep -q 'rate 20Mbit' ||
	fail "bpfqdisc qdisc show dev $host: $("$BQ" qdisc show dev "$host")"
"$BQ" -n p1 qdisc show dev eth0 | grep -q 'rate 10Mbit' ||
	fail "bpfqdisc -n p1 qdisc show dev eth0: $("$BQ" -n p1 qdisc show dev eth0)"
[ -e "$STATE_DIR/p1:eth0" ] || fail "no record $STATE_DIR/p1:eth0"
jq -e '.network == "bq-pods" and (.qdiscs | length) == 3 and .qdiscs[2].kind == "pod_police"' \
	"$STATE_DIR/p1:eth0" >/dev/null ||
	fail "record: $(cat "$STATE_DIR/p1:eth0")"

# Which pod a series is for: bpfqdisc_pod_info joins bpfqdisc stats on
# (netns, ifindex).
info=$("$PLUGIN" pods --prometheus | grep 'container_id="p1",ifname="eth0"')
[ "$(printf '%s\n' "$info" | wc -l)" = 3 ] || fail "pods --prometheus: $("$PLUGIN" pods --prometheus)"
key=$(printf '%s\n' "$info" | grep 'direction="ingress"' | grep -o 'netns="[0-9]*",ifindex="[0-9]*"')
[ -n "$key" ] || fail "no ingress pod_info: $info"
"$BQ" stats --prometheus | grep "^bpfqdisc_sent_bytes_total{dev=\"$host\"" | grep -q "$key" ||
	fail "no series of $host with $key: $("$BQ" stats --prometheus | grep sent_bytes_total)"
key=$(printf '%s\n' "$info" | grep 'direction="egress"' | grep 'kind="bpf_hbm"' | grep -o 'netns="[0-9]*",ifindex="[0-9]*"')
[ -n "$key" ] || fail "no egress pod_info: $info"
"$BQ" -n p1 stats --prometheus | grep '^bpfqdisc_sent_bytes_total{dev="eth0"' | grep -q "$key" ||
	fail "no series of p1's eth0 with $key"

# bpfqdisc stats --prometheus labels a pod's series itself: the node's veth
# (the pod's ingress) and, from the pod's netns, its eth0 (egress); the
# node's other qdiscs keep their labels. promtool takes it all.
expect "$BQ" load fifo
expect ip link add bqd0 type dummy
expect "$BQ" qdisc add dev bqd0 root handle 1: bpf_fifo
prom=$("$BQ" stats --prometheus)
pod='container_id="p1",ifname="eth0",direction="DIR",network="bq-pods",pod_namespace="shop",pod_name="web-0"}'
printf '%s\n' "$prom" | grep "^bpfqdisc_sent_bytes_total{dev=\"$host\"" |
	grep -qF "$(echo "$pod" | sed s/DIR/ingress/)" ||
	fail "no ingress series of p1: $(printf '%s\n' "$prom" | grep sent_bytes_total)"
printf '%s\n' "$prom" | grep '^bpfqdisc_sent_bytes_total{dev="eth0"' |
	grep -qF "$(echo "$pod" | sed s/DIR/egress/)" ||
	fail "no egress series of p1: $(printf '%s\n' "$prom" | grep sent_bytes_total)"
printf '%s\n' "$prom" | grep -q '^bpfqdisc_sent_bytes_total{dev="bqd0",kind="bpf_fifo",netns="[0-9]*",ifindex="[0-9]*",parent="root",handle="1:"} [0-9]*$' ||
	fail "a qdisc of no pod: $(printf '%s\n' "$prom" | grep 'dev="bqd0"')"
lint=$(printf '%s\n' "$prom" | promtool check metrics 2>&1 || true)
[ -z "$lint" ] || fail "promtool: $lint"
"$BQ" stats dev "$host" --prometheus | grep -q 'container_id="p1"' || fail "stats dev $host: no pod labels"
! "$BQ" stats dev "$host" --prometheus | grep -q 'dev="eth0"' || fail "stats dev $host: other devices"
note "stats --prometheus: p1's series labelled, ingress and egress; promtool: nothing to say"

bw CHECK "$(bw_conf 1.0.0 "$LIMITS" "$res")" p1
[ "$rc" = 0 ] || fail "CHECK right after ADD: exit $rc: $out"
# The pod's root deletes its qdisc: CHECK names what is missing.
expect ip netns exec p1 tc qdisc del dev eth0 root
bw CHECK "$(bw_conf 1.0.0 "$LIMITS" "$res")" p1
bw_expect_code 101 "CHECK after the pod's qdisc went"
printf '%s' "$out" | jq -r .details | grep -q 'egress.*eth0.*noqueue' ||
	fail "CHECK does not name what is missing: $out"
# A second ADD puts it back (a runtime may retry).
bw ADD "$(bw_conf 1.0.0 "$LIMITS" "$res")" p1
[ "$rc" = 0 ] && [ "$(root_kind p1 eth0)" = bpf_hbm ] || fail "ADD again: exit $rc: $out"
bw CHECK "$(bw_conf 1.0.0 "$LIMITS" "$res")" p1
[ "$rc" = 0 ] || fail "CHECK after the second ADD: $out"
# Another version of the plugin may have given the pod's qdisc another
# queue length (2048 before 255): that is the plugin's, not the config's,
# and the pod's limits are still in force.
expect "$BQ" qdisc change dev "$host" root limit 127
bw CHECK "$(bw_conf 1.0.0 "$LIMITS" "$res")" p1
[ "$rc" = 0 ] || fail "CHECK of a pod with another queue length: $out"

# DEL twice.
for i in 1 2; do
	bw DEL "$(bw_conf 1.0.0 "$LIMITS" "$res")" p1
	[ "$rc" = 0 ] && [ -z "$out" ] || fail "DEL $i: exit $rc: $out"
done
[ "$(root_kind "" "$host")" != bpf_hbm ] && [ "$(root_kind p1 eth0)" != bpf_hbm ] ||
	fail "DEL left a bpf_hbm"
[ ! -e "$STATE_DIR/p1:eth0" ] || fail "DEL left the record"
! "$BQ" stats --prometheus | grep -q 'container_id="p1"' || fail "DEL left p1's series labelled"
expect ip link del bqd0
expect "$BQ" unload fifo
! "$TOP/bin/podlimit" /sys/fs/bpf/bpfqdisc_pod/pod_limits get "$host" 2>/dev/null ||
	fail "DEL left the backstop's entry of $host"
cni_pod_del p1
note "ADD, CHECK, CHECK after tc qdisc del (code 101), ADD again, DEL twice"

# runtimeConfig (capabilities), then DEL without prevResult.
res=$(cni_pod_add p2)
host=$(printf '%s' "$res" | cni_host_if)
rt='"capabilities":{"bandwidth":true},"runtimeConfig":{"bandwidth":{"ingressRate":8000000,"ingressBurst":4294967295}}'
bw ADD "$(bw_conf 1.0.0 "$rt" "$res")" p2
[ "$rc" = 0 ] && [ "$(root_kind "" "$host")" = bpf_hbm ] || fail "ADD from runtimeConfig: $out"
[ "$(root_kind p2 eth0)" != bpf_hbm ] || fail "egress limited with no egress limit"
# The top level wins over runtimeConfig.
bw CHECK "$(bw_conf 1.0.0 "$rt,\"ingressRate\":1000000,\"ingressBurst\":8000" "$res")" p2
bw_expect_code 101 "CHECK of a top-level rate that is not in force"
bw DEL "$(bw_conf 1.0.0 "$rt")" p2
[ "$rc" = 0 ] || fail "DEL without prevResult: $out"
[ "$(root_kind "" "$host")" != bpf_hbm ] || fail "DEL without prevResult left $host's qdisc"
cni_pod_del p2
note "runtimeConfig.bandwidth; the top level wins; DEL without prevResult"

# DEL after the netns went (the veth with it), then ptp's DEL.
res=$(cni_pod_add p3)
bw ADD "$(bw_conf 1.0.0 "$LIMITS" "$res")" p3
[ "$rc" = 0 ] || fail "ADD p3: $out"
ip netns del p3
bw DEL "$(bw_conf 1.0.0 "$LIMITS" "$res")" p3
[ "$rc" = 0 ] || fail "DEL after the netns went: exit $rc: $out"
[ ! -e "$STATE_DIR/p3:eth0" ] || fail "DEL after the netns went left the record"
BW_NETNS= bw DEL "$(bw_conf 1.0.0 "$LIMITS")" p3
[ "$rc" = 0 ] || fail "DEL with no CNI_NETNS: exit $rc: $out"
cni_exec DEL "$(cni_ptp_conf)" p3 >/dev/null || true
note "DEL after the netns went, and with CNI_NETNS empty"

# ADD without limits: prevResult byte for byte, nothing touched.
res=$(cni_pod_add p4)
host=$(printf '%s' "$res" | cni_host_if)
before=$(tc qdisc show; ip netns exec p4 tc qdisc show)
bw ADD "$(bw_conf 1.0.0 "" "$res")" p4
[ "$rc" = 0 ] && [ "$out" = "$res" ] || fail "ADD without limits: exit $rc: $out"
bw ADD "$(bw_conf 1.0.0 '"ingressRate":0,"ingressBurst":0,"runtimeConfig":{}' "$res")" p4
[ "$rc" = 0 ] && [ "$out" = "$res" ] || fail "ADD with zero limits: exit $rc: $out"
[ "$(tc qdisc show; ip netns exec p4 tc qdisc show)" = "$before" ] || fail "ADD without limits touched a qdisc"
[ ! -e "$STATE_DIR/p4:eth0" ] || fail "ADD without limits left a record"
bw CHECK "$(bw_conf 1.0.0 "" "$res")" p4
[ "$rc" = 0 ] || fail "CHECK without limits: $out"

# Invalid configs: code 7 (6: not JSON), nothing touched.
bw ADD "$(bw_conf 1.0.0 '"ingressRate":1000000' "$res")" p4
bw_expect_code 7 "a rate without a burst"
printf '%s' "$out" | jq -r .msg | grep -q 'burst must also be set' || fail "msg: $out"
bw ADD "$(bw_conf 1.0.0 '"runtimeConfig":{"bandwidth":{"egressBurst":1000}}' "$res")" p4
bw_expect_code 7 "a burst without a rate"
bw ADD "$(bw_conf 1.0.0 '"egressRate":1000,"egressBurst":34359738360' "$res")" p4
bw_expect_code 7 "a burst of 4 GB"
printf '%s' "$out" | jq -r .msg | grep -q '4GB' || fail "msg: $out"
bw ADD "$(bw_conf 1.0.0 '"egressRate":"1000","egressBurst":1000' "$res")" p4
bw_expect_code 7 "a rate as a string"
bw ADD "$(bw_conf 1.0.0 '"egressRate":-5,"egressBurst":1000' "$res")" p4
bw_expect_code 7 "a negative rate"
bw ADD '{"cniVersion":"1.0.0","name":' p4
bw_expect_code 6 "a truncated config"
bw ADD "$(bw_conf 0.2.0 "" "$res")" p4
bw_expect_code 1 "cniVersion 0.2.0"
# A prevResult that does not list the veth's node side: the reference's
# refusal (no veth peer ... in host ns), nothing touched.
other=$(printf '%s' "$res" | jq -c '.interfaces |= map(select(.sandbox != null and .sandbox != ""))')
bw ADD "$(bw_conf 1.0.0 "$LIMITS" "$other")" p4
bw_expect_code 100 "a prevResult without the node's veth"
printf '%s' "$out" | jq -r .msg | grep -q 'no veth peer' || fail "msg: $out"
[ "$(tc qdisc show; ip netns exec p4 tc qdisc show)" = "$before" ] || fail "an invalid config touched a qdisc"
cni_pod_del p4
note "no limits: prevResult unchanged; invalid configs: codes 7, 6, 1; no host veth in prevResult: 100"

# 0.3.1: ptp's 0.3.1 result; CHECK is not in 0.3.1 (code 1).
ip netns add p5
ip -n p5 link set lo up
res=$(cni_exec ADD "$(cni_ptp_conf | sed 's/"1.0.0"/"0.3.1"/')" p5 ptp) || fail "ptp 0.3.1: $res"
[ "$(printf '%s' "$res" | jq -r .cniVersion)" = 0.3.1 ] || fail "ptp gave $res"
host=$(printf '%s' "$res" | cni_host_if)
bw ADD "$(bw_conf 0.3.1 "$LIMITS" "$res")" p5
[ "$rc" = 0 ] && [ "$out" = "$res" ] || fail "ADD 0.3.1: exit $rc: $out"
[ "$(root_kind "" "$host")" = bpf_hbm ] && [ "$(root_kind p5 eth0)" = bpf_hbm ] || fail "ADD 0.3.1: no qdiscs"
bw CHECK "$(bw_conf 0.3.1 "$LIMITS" "$res")" p5
bw_expect_code 1 "CHECK with cniVersion 0.3.1"
bw DEL "$(bw_conf 0.3.1 "$LIMITS" "$res")" p5
[ "$rc" = 0 ] && [ "$(root_kind p5 eth0)" != bpf_hbm ] || fail "DEL 0.3.1: exit $rc: $out"
cni_exec DEL "$(cni_ptp_conf | sed 's/"1.0.0"/"0.3.1"/')" p5 ptp >/dev/null || fail "ptp DEL 0.3.1"
ip netns del p5

# 1.1.0: ADD, CHECK, DEL.
res=$(cni_pod_add p6)
bw ADD "$(bw_conf 1.1.0 "$LIMITS" "$res")" p6
[ "$rc" = 0 ] && [ "$out" = "$res" ] || fail "ADD 1.1.0: exit $rc: $out"
bw CHECK "$(bw_conf 1.1.0 "$LIMITS" "$res")" p6
[ "$rc" = 0 ] || fail "CHECK 1.1.0: $out"
bw DEL "$(bw_conf 1.1.0 "$LIMITS" "$res")" p6
[ "$rc" = 0 ] && [ "$(root_kind p6 eth0)" != bpf_hbm ] || fail "DEL 1.1.0: exit $rc: $out"
cni_pod_del p6
note "cniVersion 0.3.1 (CHECK refused, code 1) and 1.1.0"

# Nothing left behind.
[ -z "$(ls "$STATE_DIR")" ] || fail "records left: $(ls "$STATE_DIR")"
[ -z "$(pins)" ] || fail "pins left: $(pins)"
[ -z "$(tc qdisc show | grep bpf_hbm)" ] || fail "qdiscs left: $(tc qdisc show | grep bpf_hbm)"
