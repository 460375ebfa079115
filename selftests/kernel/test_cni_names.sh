#!/bin/dash
# Any name a runtime passes, within the CNI limits, leaves a record that
# DEL, GC and pods read back (issue 50, item 7): an interface name that is
# not UTF-8, a pod name cut mid-character at 255 bytes, and an interface
# named as another's record with .tmp after it. DEL removes what ADD made
# (qdiscs, egress pin, record); GC keeps an attachment a Go runtime lists
# with U+FFFD for the byte that is not UTF-8, and removes it once unlisted.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/cni_lib.sh"
. "$TOP/selftests/kernel/cni_bw_lib.sh"

BAD=$(printf 'e\377')
CUT=ab$(i=0; while [ $i -lt 200 ]; do printf '\303\251'; i=$((i + 1)); done)

# run CMD CONFIG POD IFNAME [CNI_ARGS]: a plugin (CONFIG's type) as a
# runtime runs it for interface IFNAME of pod POD, in netns $NS (default
# POD: ptp cannot put two interfaces in one netns); stdout in $out.
run() {
	plugin=$(printf '%s' "$2" | jq -r .type)
	set +e
	out=$(printf '%s' "$2" | env CNI_COMMAND="$1" CNI_CONTAINERID="$3" CNI_NETNS="/run/netns/${NS:-$3}" \
		CNI_IFNAME="$4" CNI_PATH="$CNI_BIN" CNI_ARGS="${5-}" "$CNI_BIN/$plugin" 2>&1)
	rc=$?
	set -e
}

# attach POD IFNAME [CNI_ARGS]: ptp's interface IFNAME in POD, then the
# plugin's ADD with limits for it.
attach() {
	run ADD "$(cni_ptp_conf)" "$1" "$2"
	[ "$rc" = 0 ] || fail "ptp ADD $1: $out"
	res=$out
	out=$(printf '%s' "$(bw_conf 1.1.0 "$LIMITS" "$res")" | env CNI_COMMAND=ADD CNI_CONTAINERID="$1" \
		CNI_NETNS="/run/netns/${NS:-$1}" CNI_IFNAME="$2" CNI_PATH="$CNI_BIN" CNI_ARGS="${3-}" "$PLUGIN") ||
		fail "ADD $1: $out"
}

# detach POD IFNAME: the plugin's DEL, then ptp's.
detach() {
	out=$(printf '%s' "$(bw_conf 1.1.0)" | env CNI_COMMAND=DEL CNI_CONTAINERID="$1" \
		CNI_NETNS="/run/netns/${NS:-$1}" CNI_IFNAME="$2" CNI_PATH="$CNI_BIN" "$PLUGIN") || fail "DEL $1: $out"
	run DEL "$(cni_ptp_conf)" "$1" "$2"
}

hbm_in() { tc -n "$1" qdisc show | grep -c bpf_hbm || true; }

for p in n1 n2 n3; do
	ip netns add $p
	ip -n $p link set lo up
done
attach n1 "$BAD" "K8S_POD_NAMESPACE=shop;K8S_POD_NAME=$CUT"
attach n2 net1
NS=n3 attach n2 net1.tmp
[ "$(ls "$STATE_DIR" | wc -l)" = 3 ] || fail "records: $(ls "$STATE_DIR" | od -c)"
[ "$("$PLUGIN" pods | wc -l)" = 9 ] || fail "pods lists: $("$PLUGIN" pods)"
"$PLUGIN" pods | grep -q ' n1 e\\377 egress e\\377 ' || fail "pods: $("$PLUGIN" pods)"
"$PLUGIN" pods --prometheus | grep -q 'pod_name="ab\(é\)\{126\}�"' ||
	fail "pods --prometheus: $("$PLUGIN" pods --prometheus | grep n1)"
[ "$(hbm_in n1)" = 1 ] && [ "$(hbm_in n2)" = 1 ] && [ "$(hbm_in n3)" = 1 ] ||
	fail "qdiscs: $(tc -n n1 qdisc; tc -n n2 qdisc; tc -n n3 qdisc)"
note "ADD: 3 records (e\\377, net1, net1.tmp), pods lists their 9 entries"

NS=n3 detach n2 net1.tmp
[ "$(ls "$STATE_DIR" | wc -l)" = 2 ] && [ "$(hbm_in n3)" = 0 ] && [ "$(hbm_in n2)" = 1 ] ||
	fail "DEL net1.tmp: $(ls "$STATE_DIR"; tc -n n3 qdisc)"
detach n2 net1
[ "$(hbm_in n2)" = 0 ] || fail "DEL net1 left $(tc -n n2 qdisc)"

gc='{"cniVersion":"1.1.0","name":"bq-pods","type":"bpfqdisc-bandwidth","cni.dev/valid-attachments":[%s]}'
out=$(printf "$gc" '{"containerID":"n1","ifname":"e\ufffd"}' | CNI_COMMAND=GC "$PLUGIN") ||
	fail "GC: $out"
[ "$(ls "$STATE_DIR" | wc -l)" = 1 ] && [ "$(hbm_in n1)" = 1 ] || fail "GC took n1's limit"
out=$(printf "$gc" '' | CNI_COMMAND=GC "$PLUGIN") || fail "GC of all: $out"
[ -z "$(ls -A "$STATE_DIR")" ] && [ "$(hbm_in n1)" = 0 ] ||
	fail "GC left: $(ls -A "$STATE_DIR" | od -c; tc -n n1 qdisc)"
[ -z "$(pins)" ] || fail "pins left: $(pins)"
note "DEL of net1.tmp and net1, GC keeping e\\377 listed as e\\ufffd, then taking it"

run DEL "$(cni_ptp_conf)" n1 "$BAD"
for p in n1 n2 n3; do ip netns del $p; done
