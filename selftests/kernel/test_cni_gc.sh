#!/bin/dash
# GC (CNI 1.1.0): bpfqdisc-bandwidth removes what no attachment of
# cni.dev/valid-attachments owns in its network, and nothing of another
# network's; an attachment whose netns went is collected too. GC without
# the list is refused (code 7), and so is GC in a config older than 1.1.0.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/cni_lib.sh"
. "$TOP/selftests/kernel/cni_bw_lib.sh"

valid() { # the GC config of network NET listing NAME... (ifname eth0)
	net=$1
	shift
	list=
	for n; do list="$list${list:+,}{\"containerID\":\"$n\",\"ifname\":\"eth0\"}"; done
	printf '{"cniVersion":"1.1.0","name":"%s","type":"bpfqdisc-bandwidth","cni.dev/valid-attachments":[%s]}' \
		"$net" "$list"
}

for p in g1 g2 g3 g4; do
	eval "res_$p=\$(cni_pod_add $p)"
done
bw ADD "$(bw_conf 1.1.0 "$LIMITS" "$res_g1")" g1
bw ADD "$(bw_conf 1.1.0 "$LIMITS" "$res_g2")" g2
bw ADD "$(bw_conf 1.1.0 "$LIMITS" "$res_g4")" g4
bw ADD "$(CNI_NET=other; bw_conf 1.1.0 "$LIMITS" "$res_g3")" g3
[ "$rc" = 0 ] || fail "ADD g3: $out"
[ "$(ls "$STATE_DIR" | wc -l)" = 4 ] || fail "records: $(ls "$STATE_DIR")"
host2=$(printf '%s' "$res_g2" | cni_host_if)
ip netns del g4	# its pod went without a DEL

bw GC "$(valid bq-pods g1 g9)" none
[ "$rc" = 0 ] && [ -z "$out" ] || fail "GC: exit $rc: $out"
[ "$(root_kind "" "$host2")" != bpf_hbm ] && [ "$(root_kind g2 eth0)" != bpf_hbm ] ||
	fail "GC left g2's qdiscs"
[ ! -e "$STATE_DIR/g2:eth0" ] && [ ! -e "$STATE_DIR/g4:eth0" ] || fail "GC left records: $(ls "$STATE_DIR")"
bw CHECK "$(bw_conf 1.1.0 "$LIMITS" "$res_g1")" g1
[ "$rc" = 0 ] || fail "GC took g1's limit, which is valid: $out"
bw CHECK "$(CNI_NET=other; bw_conf 1.1.0 "$LIMITS" "$res_g3")" g3
[ "$rc" = 0 ] || fail "GC of bq-pods took g3's limit, of network other: $out"
note "GC of bq-pods listing g1: g2 and g4 (netns gone) collected, g1 and g3 (network other) kept"

bw GC '{"cniVersion":"1.1.0","name":"bq-pods","type":"bpfqdisc-bandwidth"}' none
bw_expect_code 7 "GC without cni.dev/valid-attachments"
bw GC "$(valid bq-pods | sed 's/1.1.0/1.0.0/')" none
bw_expect_code 1 "GC with cniVersion 1.0.0"
[ -e "$STATE_DIR/g1:eth0" ] || fail "a refused GC removed g1's record"

bw GC "$(valid other)" none
[ "$rc" = 0 ] && [ ! -e "$STATE_DIR/g3:eth0" ] || fail "GC of other: exit $rc: $out"
bw GC "$(valid bq-pods)" none
[ "$rc" = 0 ] && [ -z "$(ls "$STATE_DIR")" ] || fail "GC of all: exit $rc: $out"
[ -z "$(tc qdisc show | grep bpf_hbm)" ] || fail "qdiscs left: $(tc qdisc show | grep bpf_hbm)"
for p in g1 g2 g3; do cni_pod_del $p; done
cni_exec DEL "$(cni_ptp_conf)" g4 >/dev/null || true
[ -z "$(pins)" ] || fail "pins left: $(pins)"
