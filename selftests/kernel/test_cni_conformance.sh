#!/bin/dash
# The reference plugin's own test cases as a conformance suite (issue 50):
# each case of plugins/meta/bandwidth's bandwidth_linux_test.go and
# bandwidth_config_test.go, written as data in
# selftests/cni-conformance/cases.json, is run against Debian's bandwidth
# (1.1.1, /usr/lib/cni) and bpfqdisc-bandwidth with the same stdin and
# environment, for one pod made by ptp. What is compared is the outcome,
# not the mechanism: refused (with the reference's message), or the rate
# in force each way, read where each plugin puts it (the reference: tbf on
# the node's veth and on its ifb; this plugin: bpf_hbm on the node's veth
# and on the pod's interface). Rules for every case, printed:
#  - a refusal is code 999 from the reference (skel's code for any error of
#    the plugin's own) and a code of its own from this plugin (7 for a
#    config): refusals are compared by their message;
#  - where both hold the same rates, this plugin's burst is the
#    reference's, at most 200 ms of the rate (docs/kubernetes.md).
# A case Debian's 1.1.1 cannot run ("vm": false: the subnet lists are
# v1.5's) is compared with the outcome recorded from the source. A case
# listed with "differs" has this plugin's outcome in "ours" and its reason
# printed. Each case runs at one of the reference's cniVersions, in turn.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/cni_lib.sh"
. "$TOP/selftests/kernel/cni_bw_lib.sh"

CASES=$TOP/selftests/cni-conformance/cases.json
REF=$CNI_BIN/bandwidth
NET=cni-plugin-bandwidth-test
[ -x "$REF" ] || skip "no reference bandwidth plugin in $CNI_BIN"

RES=$(cni_pod_add cf)
H=$(printf '%s' "$RES" | cni_host_if)
ADDR="$(printf '%s' "$RES" | cni_pod_ip)/24"
GW=$(printf '%s' "$RES" | cni_gateway)
# More host veths for prevResult to list, and a pod interface with no veth
# peer, as the reference's tests make them.
ip link add host-veth-peer1 type veth peer name host-veth-peer2
ip -n cf link add cfd0 type dummy
ip -n cf link add cfm0 link cfd0 type macvlan

# prev_result KIND IFNAME: the prevResult of a case, as the reference's
# tests write it, for the pod's interface IFNAME.
prev_result() {
	pod="{\"name\":\"$2\",\"sandbox\":\"/run/netns/cf\"}"
	case $1 in
	pod|macvlan) ifs="{\"name\":\"$H\",\"sandbox\":\"\"},$pod" ;;
	extra_hosts) ifs="{\"name\":\"host-veth-peer1\",\"sandbox\":\"\"},{\"name\":\"host-veth-peer2\",\"sandbox\":\"\"},{\"name\":\"$H\",\"sandbox\":\"\"},$pod" ;;
	fake_host) ifs="{\"name\":\"$H-fake\",\"sandbox\":\"\"},$pod" ;;
	no_interfaces) printf '{"interfaces":[],"ips":[],"routes":[]}'; return ;;
	*) fail "case $CASE: prev $1 unknown" ;;
	esac
	printf '{"interfaces":[%s],"ips":[{"version":"4","address":"%s","gateway":"%s","interface":1}],"routes":[]}' \
		"$ifs" "$ADDR" "$GW"
}

# config VERSION MEMBERS PREV: the stdin both plugins get.
config() {
	printf '{"cniVersion":"%s","name":"%s","type":"bandwidth",%s,"prevResult":%s}' \
		"$1" "$NET" "$(printf '%s' "$2" | sed 's/^{//; s/}$//')" "$3"
}

# root_limit NETNS DEV: RATE/BURST (bytes/s, bytes) of DEV's root qdisc
# if it is a shaper of either plugin, else "-".
root_limit() {
	ns=${1:+-n $1}
	case $(tc $ns qdisc show dev "$2" root 2>/dev/null | awk '{ print $2; exit }') in
	tbf) json=$(tc $ns -j qdisc show dev "$2" root) ;;
	bpf_hbm) json=$("$BQ" $ns qdisc show dev "$2" -j) ;;
	*) echo - && return ;;
	esac
	printf '%s' "$json" | jq -r '[.[] | select(.root == true or .parent == "root")][0].options | "\(.rate)/\(.burst)"'
}

# outcome IFNAME: the rates in force now each way, "in=RATE eg=RATE", in
# $OUTCOME; the bursts in $IN_B and $EG_B.
outcome() {
	in=$(root_limit "" "$H")
	ifb=$(ls /sys/class/net | grep '^bwp' || true)
	if [ -n "$ifb" ]; then eg=$(root_limit "" "$ifb"); else eg=$(root_limit cf "$1"); fi
	IN_B=${in#*/} EG_B=${eg#*/}
	OUTCOME="in=${in%/*} eg=${eg%/*}"
}

# clean: nothing of either plugin left on the pod's veth, interface or an ifb.
clean() {
	tc qdisc del dev "$H" root 2>/dev/null || true
	tc qdisc del dev "$H" ingress 2>/dev/null || true
	outcome "$IF"
	[ "$OUTCOME" = "in=- eg=-" ] || fail "case $CASE: left in force: $OUTCOME"
}

# try PLUGIN: the case's commands for PLUGIN; its outcome in $GOT (code
# and message in $MSG when refused, bursts in $GOT_IN_B and $GOT_EG_B),
# then the case's traces removed.
try() {
	MSG=- GOT_IN_B=- GOT_EG_B=-
	conf=$(config "$VER" "$MEMBERS" "$(prev_result "$PREV" "$IF")")
	out=$(CNI_IF=$IF cni_exec ADD "$conf" cf "$1") && added=yes rc=0 || added=no rc=$?
	if [ $rc = 0 ] && [ "$THEN" = CHECK ]; then
		check=$(printf '%s' "$conf" | jq -c --argjson r "$out" '.prevResult = $r')
		out=$(CNI_IF=$IF cni_exec CHECK "$check" cf "$1") && rc=0 || rc=$?
	elif [ $rc = 0 ] && [ "$THEN" = DEL ]; then
		out=$(CNI_IF=$IF cni_exec DEL "$conf" cf "$1") && rc=0 || rc=$?
	fi
	if [ $rc != 0 ]; then
		GOT=refused
		MSG=$(printf '%s' "$out" | jq -r '"code \(.code): \(.msg)"')
		[ "$MSG" != "code null: null" ] || fail "case $CASE: $1: exit $rc without a CNI error: $out"
	else
		outcome "$IF"
		GOT=$OUTCOME GOT_IN_B=$IN_B GOT_EG_B=$EG_B
	fi
	# The reference's DEL refuses the config its ADD refused.
	[ $added = no ] || CNI_IF=$IF cni_exec DEL "$conf" cf "$1" >/dev/null ||
		fail "case $CASE: $1's DEL"
	clean
}

# burst_ok REF_BURST OUR_BURST RATE: ours is the reference's, at most 1/5 s of RATE.
burst_ok() {
	[ "$1" = - ] || [ "$2" = "$(( $1 < $3 / 5 ? $1 : $3 / 5 ))" ]
}

note "rules: a refusal is compared by its message (the reference's code is 999, ours 7 or 100);" \
	"a burst is the reference's, at most 200 ms of the rate (ours)"
CASE=- IF=eth0
clean
bad=0 agree=0 listed=0 source=0 n=0
jq -r 'def want(e): if e.refused != null then "refused" else "in=\(e.ingress // "-") eg=\(e.egress // "-")" end;
	to_entries[] | .key as $i | .value |
	[.case, .from, (.prev // "pod"), (.then // "-"), (if .vm == false then "no" else "yes" end),
	 (.version // (["0.3.0", "0.3.1", "0.4.0", "1.0.0"][$i % 4])), (.members | tojson),
	 want(.expect), (.expect.refused // "-"), (.differs // "-"), (if .ours then want(.ours) else "-" end),
	 (.why_not_vm // "-")] | @tsv' "$CASES" >/tmp/cf.cases
while IFS='	' read -r CASE FROM PREV THEN VM VER MEMBERS WANT WANT_MSG DIFFERS OURS WHY; do
	n=$((n + 1))
	IF=eth0
	[ "$PREV" != macvlan ] || IF=cfm0
	line="$CASE ($FROM, $VER):"
	if [ "$VM" = yes ]; then
		try "$REF"
		REF_GOT=$GOT REF_MSG=$MSG REF_IN_B=$GOT_IN_B REF_EG_B=$GOT_EG_B
	else
		REF_GOT=$WANT REF_MSG=$WANT_MSG REF_IN_B=- REF_EG_B=-
		source=$((source + 1))
	fi
	try "$PLUGIN"
	line="$line reference $REF_GOT, ours $GOT"
	if [ "$VM" = yes ] && [ "$REF_GOT" != "$WANT" ]; then
		note "$line"; echo "case $CASE: Debian's reference gave $REF_GOT, its source says $WANT" >&2
		bad=$((bad + 1)); continue
	fi
	[ "$VM" = yes ] || line="$line (reference: from the source; $WHY)"
	want_ours=$WANT
	[ "$DIFFERS" = - ] || want_ours=$OURS
	if [ "$GOT" != "$want_ours" ]; then
		note "$line"; echo "case $CASE: ours gave $GOT, expected $want_ours" >&2
		bad=$((bad + 1)); continue
	fi
	if [ "$GOT" = refused ] && [ "$WANT_MSG" != - ]; then
		case "$REF_MSG/$MSG" in
		*"$WANT_MSG"*/*"$WANT_MSG"*) ;;
		*) note "$line"; echo "case $CASE: messages '$REF_MSG' and '$MSG', not '$WANT_MSG'" >&2
		   bad=$((bad + 1)); continue ;;
		esac
	fi
	# Bursts are compared where both plugins hold the same rates.
	if [ "$GOT" != refused ] && [ "$GOT" = "$REF_GOT" ]; then
		rates=$(echo "$GOT" | sed 's/in=//; s/eg=//')
		if ! burst_ok "$REF_IN_B" "$GOT_IN_B" "${rates% *}" ||
		   ! burst_ok "$REF_EG_B" "$GOT_EG_B" "${rates#* }"; then
			note "$line"; echo "case $CASE: bursts: reference $REF_IN_B/$REF_EG_B, ours $GOT_IN_B/$GOT_EG_B" >&2
			bad=$((bad + 1)); continue
		fi
		line="$line, bursts reference $REF_IN_B/$REF_EG_B, ours $GOT_IN_B/$GOT_EG_B"
	fi
	[ "$GOT" != refused ] || line="$line ($REF_MSG | $MSG)"
	if [ "$DIFFERS" = - ]; then
		note "$line: agree"; agree=$((agree + 1))
	else
		note "$line: differs as listed: $DIFFERS"; listed=$((listed + 1))
	fi
done </tmp/cf.cases
note "$n cases: $agree agree, $listed differ as listed, $bad wrong; $source compared with the source's outcome"
[ $bad = 0 ] || fail "$bad of $n cases did not come out as cases.json says"
ip link del host-veth-peer1
cni_pod_del cf
exit 0
