#!/bin/dash
# bpfqdisc-bandwidth's answers that need no BPF qdisc kernel, as a runtime
# reads them (stdout, exit status): VERSION, the environment's errors
# (code 4), configs refused (6, 7, 1), commands a version lacks (1), and
# STATUS on this kernel when it cannot run BPF qdiscs (50). Also the
# usage. One PASS/FAIL/SKIP line per check.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PLUGIN="$TOP/bin/bpfqdisc-bandwidth"
. "$TOP/selftests/cli/lib.sh"
CONF='{"cniVersion":"1.0.0","name":"n","type":"bpfqdisc-bandwidth"}'

# cni NAME EXIT CODE CMD CONFIG [VAR=VALUE...]: the plugin's stdout is an
# error of CODE ("" for none: then stdout is checked by the caller), exit EXIT.
cni() {
	name=$1 want_rc=$2 code=$3 cmd=$4 conf=$5
	shift 5
	out=$(printf '%s' "$conf" | env -i CNI_COMMAND="$cmd" CNI_CONTAINERID=c1 CNI_NETNS=/run/netns/none \
		CNI_IFNAME=eth0 CNI_PATH=/usr/lib/cni "$@" "$PLUGIN" 2>/dev/null)
	rc=$?
	if [ "$rc" != "$want_rc" ]; then
		fail "$name" "exit $rc, expected $want_rc: $out"
	elif [ -n "$code" ] && [ "$(printf '%s' "$out" | jq -r '.code, (.msg | type), (.cniVersion | type)' | paste -sd' ')" != "$code string string" ]; then
		fail "$name" "expected an error of code $code: $out"
	else
		pass "$name"
	fi
}

cni cni_version 0 "" VERSION '{"cniVersion":"0.4.0"}'
[ "$out" = '{"cniVersion":"0.4.0","supportedVersions":["0.3.0","0.3.1","0.4.0","1.0.0","1.1.0"]}' ] ||
	fail cni_version_out "$out"
cni cni_no_containerid 1 4 ADD "$CONF" CNI_CONTAINERID=
cni cni_bad_containerid 1 4 ADD "$CONF" CNI_CONTAINERID=../x
cni cni_bad_ifname 1 4 DEL "$CONF" CNI_IFNAME=a/b
# The reference's rule (containernetworking/cni ValidateInterfaceName):
# no '/', ':' or Unicode space; other bytes, even ESC or not UTF-8, pass.
for sp in 'cr \r' 'vt \v' 'ff \f' 'nel \302\205' 'nbsp \302\240' 'ogham \341\232\200' \
	  'emsp \342\200\203' 'lsep \342\200\250' 'ideo \343\200\200'; do
	cni "cni_ifname_space_${sp% *}" 1 4 DEL "$CONF" CNI_IFNAME="$(printf "a${sp#* }b")"
	case $out in *whitespace*) ;; *) fail "cni_ifname_space_${sp% *}_msg" "$out" ;; esac
done
cni cni_ifname_esc 0 "" DEL "$CONF" CNI_IFNAME="$(printf 'a\033b')"
cni cni_ifname_not_utf8 0 "" DEL "$CONF" CNI_IFNAME="$(printf 'a\377b')"
cni cni_no_netns 1 4 ADD "$CONF" CNI_NETNS=
cni cni_unknown_command 1 4 FROB "$CONF"
cni cni_not_json 1 6 ADD '{"cniVersion":'
cni cni_rate_no_burst 1 7 ADD '{"cniVersion":"1.0.0","name":"n","egressRate":5}'
# Above bpf_hbm's 100 Gbit/s: refused as a config (7) that says why,
# before anything is set up; 100 Gbit/s itself passes on to the next check.
cni cni_rate_over_max 1 7 ADD '{"cniVersion":"1.0.0","name":"n","egressRate":100000000001,"egressBurst":8}'
case $out in *"100 Gbit/s"*) ;; *) fail cni_rate_over_max_msg "$out" ;; esac
cni cni_rate_max 1 7 CHECK '{"cniVersion":"1.0.0","name":"n","ingressRate":100000000000,"ingressBurst":8}'
case $out in *"chained plugin"*) ;; *) fail cni_rate_max_msg "$out" ;; esac
# Subnet lists are checked as the reference checks them, on ADD with limits.
cni cni_bad_subnet 1 7 ADD '{"cniVersion":"1.0.0","name":"n","egressRate":5,"egressBurst":5,"shapedSubnets":["10.1.0.0/40"]}'
case $out in *"bad subnet"*) ;; *) fail cni_bad_subnet_msg "$out" ;; esac
cni cni_limits_no_prev 1 7 ADD '{"cniVersion":"1.0.0","name":"n","egressRate":5,"egressBurst":5}'
cni cni_version_old 1 1 ADD '{"cniVersion":"0.2.0","name":"n"}'
cni cni_version_030 0 "" ADD '{"cniVersion":"0.3.0","name":"n","prevResult":{"cniVersion":"0.3.0"}}'
[ "$out" = '{"cniVersion":"0.3.0"}' ] || fail cni_version_030_out "$out"
cni cni_check_031 1 1 CHECK '{"cniVersion":"0.3.1","name":"n"}'
cni cni_gc_100 1 1 GC '{"cniVersion":"1.0.0","name":"n","cni.dev/valid-attachments":[]}'
# No limits: prevResult back as it came, whatever the node.
prev='{ "cniVersion":"1.0.0" ,"interfaces":[ {"name":"x\u00e9"} ] }'
cni cni_no_limits 0 "" ADD "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"prevResult\":$prev}"
[ "$out" = "$prev" ] || fail cni_no_limits_exact "$out"
# A prevResult the reference cannot decode: refused, even with no limits.
cni cni_prev_malformed 1 7 ADD '{"cniVersion":"1.0.0","name":"n","prevResult":{"interfaces":"x"}}'
# DEL of an attachment the plugin has no record of: nothing to do.
cni cni_del_unknown 0 "" DEL "$CONF" CNI_CONTAINERID=never-added
[ -z "$out" ] || fail cni_del_unknown_out "$out"

if grep -qw bpf_qdisc_skb_drop /proc/kallsyms 2>/dev/null; then
	echo "SKIP cli/cni_status_50: this kernel runs BPF qdiscs (test_cni_protocol covers STATUS there)"
else
	cni cni_status_50 1 50 STATUS '{"cniVersion":"1.1.0","name":"n"}'
fi

# in_run SCRIPT: SCRIPT (sh) with a /run of its own, where the plugin keeps
# its records; the host's stays as it is.
in_run() {
	unshare -m sh -c "mount -t tmpfs tmpfs /run && mkdir -p /run/bpfqdisc/cni && $1" 2>&1
}

if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
	echo "SKIP cli/cni_pods_escaped: needs root and mount namespaces"
else
	# A network and an interface name with a line feed, a CR and escapes.
	rec='{"network":"n\u001b[2J\nforged 1 2 3","containerID":"c1","ifname":"e\u001b]0;x\u0007\r","netns":"/x",'
	rec="$rec"'"qdiscs":[{"role":"ingress","inPod":false,"netnsCookie":1,"ifindex":7,"dev":"veth1","kind":"bpf_hbm"},'
	rec="$rec"'{"role":"egress","inPod":true,"netnsCookie":2,"ifindex":2,"dev":"e\u001b\r","kind":"bpf_hbm"}]}'
	out=$(in_run "printf '%s' '$rec' >/run/bpfqdisc/cni/c1:x && '$PLUGIN' pods")
	if [ "$(printf '%s\n' "$out" | wc -l)" = 2 ] && ! printf '%s' "$out" | grep -q "$(printf '[\033\007\r]')"; then
		pass cni_pods_escaped
	else
		fail cni_pods_escaped "$(printf '%s' "$out" | od -c | head -5)"
	fi
fi

# GC keeps an attachment listed whose interface name is not UTF-8, as a Go
# runtime lists it (U+FFFD for the byte), and removes the others' records.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	q='"netns":"/x","qdiscs":[{"role":"egress","inPod":true,"netnsCookie":2,"ifindex":2,"dev":"e","kind":"bpf_hbm"}]}'
	gc='{"cniVersion":"1.1.0","name":"n","cni.dev/valid-attachments":[{"containerID":"c1","ifname":"e\ufffd"}]}'
	out=$(in_run "cd /run/bpfqdisc/cni &&
		printf '%s' '{\"network\":\"n\",\"containerID\":\"c1\",\"ifname\":{\"hex\":\"65ff\"},$q' >\"c1:\$(printf 'e\\377')\" &&
		printf '%s' '{\"network\":\"n\",\"containerID\":\"c2\",\"ifname\":{\"hex\":\"65ff\"},$q' >\"c2:\$(printf 'e\\377')\" &&
		printf '%s' '$gc' | CNI_COMMAND=GC '$PLUGIN' 2>/dev/null && ls | od -An -c | tr -s ' '")
	if [ "$out" = " c 1 : e 377 \n" ]; then
		pass cni_gc_not_utf8
	else
		fail cni_gc_not_utf8 "$out"
	fi
fi

# DEL of a record written before names were kept whole (1a4a488): its
# file is named with the interface's byte \377, its text has U+FFFD for
# it. DEL goes by the file it read, which it removes.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	q='"netns":"/x","qdiscs":[{"role":"egress","inPod":true,"netnsCookie":2,"ifindex":2,"dev":"e","kind":"bpf_hbm"}]}'
	out=$(in_run "cd /run/bpfqdisc/cni &&
		printf '%s' '{\"network\":\"n\",\"containerID\":\"c1\",\"ifname\":\"e\ufffd\",$q' >\"c1:\$(printf 'e\\377')\" &&
		printf '%s' '$CONF' | CNI_COMMAND=DEL CNI_CONTAINERID=c1 CNI_IFNAME=\$(printf 'e\\377') \
			CNI_NETNS=/run/netns/none '$PLUGIN' 2>/dev/null && ls | wc -l")
	if [ "$out" = 0 ]; then
		pass cni_del_old_record
	else
		fail cni_del_old_record "exit or files left: $out"
	fi
else
	echo "SKIP cli/cni_del_old_record: needs root and mount namespaces"
fi

out=$("$PLUGIN" 2>&1)
if [ $? = 2 ] && echo "$out" | grep -q 'CNI_COMMAND'; then pass cni_usage; else fail cni_usage "$out"; fi
exit $failed
