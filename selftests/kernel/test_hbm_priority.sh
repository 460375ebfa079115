# bpf_hbm classify 2 (by skb priority): every sender picks its own
# priority, SO_PRIORITY 0-6 and IP_TOS with no privilege, and so its
# aggregate. A class on priority 0 at 1 Mbit/s held nothing: an
# unprivileged sender's SO_PRIORITY 6 moved its packets to an aggregate
# of their own at the qdisc's rate, unlimited by default. So `qdisc add`
# with classify 2 and `class add ... priority` warn (one line on stderr,
# exit 0), and with shared_default on a key without a class is key 0:
# the same flood as nobody, 1000-byte datagrams at 2000 per second for
# 1 s (2 MB), is held to priority 0's class. What 1 Mbit/s may pass in
# a second is its rate, its 125 KB burst and the 2 x 64 KiB mark depth
# past which non-ECT datagrams over 120 bytes are dropped: 381 KB, 371
# datagrams of 1028 IP bytes; 450 leaves the flood half a second more.
# Unlimited, all of them passed.
. "$(dirname "$0")/lib.sh"

command -v setpriv >/dev/null || skip "setpriv is not in the VM"

# stderr of a command that must succeed.
stderr_of() {
	set +e
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	set -e
	[ "$rc" = 0 ] || fail "'$*' exited $rc: $err"
	echo "$err"
}
# warned WHAT STDERR: one warning line naming SO_PRIORITY.
warned() {
	echo "$2" | grep -q "warning: .*SO_PRIORITY" || fail "$1 printed no warning: '$2'"
	[ "$(echo "$2" | wc -l)" = 1 ] || fail "$1 printed more than one line: $2"
}

veth_pair
quiet_va
expect "$BQ" load hbm
warned "qdisc add classify 2" "$(stderr_of "$BQ" -n a qdisc add dev va root bpf_hbm classify 2)"
warned "class add priority 0" "$(stderr_of "$BQ" -n a class add dev va priority 0 rate 1mbit)"
err=$(stderr_of "$BQ" -n a qdisc change dev va root rate 2mbit)
[ -z "$err" ] || fail "a change that keeps classify 2 warned again: $err"
err=$(stderr_of "$BQ" -n a qdisc change dev va root shared_default on)
[ -z "$err" ] || fail "shared_default on printed: $err"

# nobody may set priority 6, not 7 (CAP_NET_ADMIN).
nobody() { nsenter --net=/run/netns/a setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
expect_err 1 "SO_PRIORITY: Operation not permitted" nobody "$TOP/bin/udpflood" $B 9 0 1000 2000 7
out=$(nobody "$TOP/bin/udpflood" $B 9 1 1000 2000 6) || fail "udpflood as nobody: $out"
sent=$(echo "$out" | awk '{ print $2 }')
show=$("$BQ" -n a class show dev va -j)
got=$(echo "$show" | jq '[.[] | select(.class and .priority == "0") | .pkts] | add // 0')
note "nobody sent $sent datagrams with priority 6; $got passed priority 0's class of 1 Mbit/s"
echo "$show" | jq -e 'any(.[]; .priority == "6") | not' >/dev/null ||
	fail "priority 6 has an aggregate of its own under shared_default: $show"
[ "$sent" -ge 1900 ] || fail "nobody sent only $sent datagrams: $out"
[ "$got" -lt 450 ] || fail "$got of $sent datagrams of priority 6 passed a class of 1 Mbit/s"
exit 0
