# Plain tc with parameters for a kind loaded by path (issue 28): bpfqdisc
# load ./myq.bpf.o writes q_bpf_myq.so into tc's plugin directory
# (TC_LIB_DIR, here one of the test's), so that Debian's tc qdisc add and
# change ... bpf_myq limit N parse as the CLI does. A plain user in a user
# namespace of its own gets the same parsing, from the kind's tables in
# that file (root's pins are not theirs to read), and meets the kind's
# .init. unload removes the file; a copy of it kept past the unload (what
# a reboot leaves) says the kind is not loaded. A directory others may
# write is refused before anything is pinned. A kind without the
# framework gets no plugin: tc refuses options for it.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"
OOT=$TOP/.output/oot
PINS=/sys/fs/bpf/bpfqdisc
[ -s "$OOT/myq.bpf.o" ] || fail "no $OOT/myq.bpf.o: make builds it, on the host"
command -v setpriv >/dev/null && command -v unshare >/dev/null || skip "no setpriv or unshare in the VM"
W=$(mktemp -d)
chmod 0755 "$W"
export TC_LIB_DIR="$W/tc"
mkdir -m 0755 "$TC_LIB_DIR" "$W/stale"
mkdir -m 1777 "$W/user"
USER_NS=
trap 'kill $USER_NS 2>/dev/null || true; ip netns del u 2>/dev/null || true
	ip link del tl0 2>/dev/null || true; rm -rf "$W"' EXIT
cp "$OOT/myq.bpf.o" "$TOP/.output/plain_fifo.bpf.o" "$W/"
cd "$W"
ip link add tl0 type dummy
ip link set tl0 up

# limit_is N [NS]: tl0's root qdisc (d0's in netns NS) is bpf_myq with limit N.
limit_is() {
	if [ -n "${2:-}" ]; then
		js=$("$BQ" -n "$2" qdisc show -j dev d0)
	else
		js=$("$BQ" qdisc show -j dev tl0)
	fi
	[ "$(echo "$js" | "$JGET" '.[0].kind')" = bpf_myq ] &&
		[ "$(echo "$js" | "$JGET" '.[0].options.limit')" = "$1" ] ||
		fail "expected bpf_myq with limit $1: $js"
}

expect "$BQ" load ./myq.bpf.o --userns-slots 1
expect tc qdisc add dev tl0 root bpf_myq limit 50
limit_is 50
expect tc qdisc change dev tl0 root bpf_myq limit 20
limit_is 20
# Refused in the CLI's own words; nothing changes.
cli=$("$BQ" qdisc change dev tl0 root bpf_myq limit 0 2>&1 >/dev/null) && fail "the CLI took limit 0"
err=$(tc qdisc change dev tl0 root bpf_myq limit 0 2>&1 >/dev/null) && fail "tc took limit 0"
[ "$err" = "$cli" ] || fail "tc said '$err', the CLI '$cli'"
limit_is 20
expect tc qdisc del dev tl0 root
[ "$(stat -c '%a %U' "$TC_LIB_DIR/q_bpf_myq.so")" = "644 root" ] ||
	fail "q_bpf_myq.so is $(stat -c '%a %U' "$TC_LIB_DIR/q_bpf_myq.so")"
[ "$(ls -A "$TC_LIB_DIR")" = q_bpf_myq.so ] || fail "in $TC_LIB_DIR: $(ls -A "$TC_LIB_DIR")"
cp "$TC_LIB_DIR/q_bpf_myq.so" "$W/stale/"

# uid 65534 in a user and network namespace of its own: limit 50 on d0,
# limit 0 on d1 (refused by the parsing), then limit 60 on d1 (refused by
# .init: the one slot for user namespaces is d0's).
setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urn dash -c '
	ip link add d0 type dummy && ip link add d1 type dummy || exit
	for try in "d0 50" "d1 0" "d1 60"; do
		tc qdisc add dev ${try% *} root bpf_myq limit ${try#* } 2>>"$1/err"
		echo $? >>"$1/rc"
	done
	echo done >"$1/done"
	exec sleep 600' sh "$W/user" &
USER_NS=$!
wait_for 20 test -s "$W/user/done" || fail "the user namespace's tc did not finish"
set -- $(cat "$W/user/rc")
[ "$1" = 0 ] && [ "$2" != 0 ] && [ "$3" != 0 ] ||
	fail "uid 65534's tc exited $*, expected 0 then two failures: $(cat "$W/user/err")"
[ "$(sed -n 1p "$W/user/err")" = "$cli" ] ||
	fail "uid 65534's tc said '$(sed -n 1p "$W/user/err")' for limit 0, the CLI '$cli'"
sed -n 2p "$W/user/err" | grep -q "No space left on device" ||
	fail "uid 65534's second qdisc: '$(sed -n 2p "$W/user/err")', expected .init's refusal (no slot left)"
expect ip netns attach u "$USER_NS"
limit_is 50 u
expect ip netns exec u tc qdisc del dev d0 root
kill $USER_NS
ip netns del u

expect "$BQ" unload myq
[ ! -e "$TC_LIB_DIR/q_bpf_myq.so" ] || fail "unload left $TC_LIB_DIR/q_bpf_myq.so"
err=$(tc qdisc add dev tl0 root bpf_myq limit 50 2>&1) && fail "tc added bpf_myq after its unload"
note "tc after unload: $err"
# What a reboot leaves: the plugin says so, in one line, for root and for
# a plain user (whom the kernel answers).
TC_LIB_DIR="$W/stale" expect_err 1 "^bpfqdisc: bpf_myq: kind not loaded; bpfqdisc load PATH$" \
	tc qdisc add dev tl0 root bpf_myq limit 50
err=$(setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urn env TC_LIB_DIR="$W/stale" \
	dash -c 'ip link add d0 type dummy && tc qdisc add dev d0 root bpf_myq limit 50' 2>&1) &&
	fail "uid 65534 added the unloaded bpf_myq"
[ "$(echo "$err" | wc -l)" = 1 ] || fail "uid 65534's tc with a stale plugin said: $err"
note "uid 65534's tc with a stale plugin: $err"

# A directory others may write: refused, nothing pinned, no file written.
chmod 0777 "$TC_LIB_DIR"
expect_err 1 "refusing $TC_LIB_DIR: it is writable by group or others" "$BQ" load ./myq.bpf.o
[ ! -e $PINS/myq ] || fail "a refused load left $(ls $PINS/myq)"
[ -z "$(ls -A "$TC_LIB_DIR")" ] || fail "a refused load left $(ls -A "$TC_LIB_DIR")"
chmod 0755 "$TC_LIB_DIR"

# Without the framework: no plugin; tc takes no options for it.
expect "$BQ" load ./plain_fifo.bpf.o --unguarded
[ -z "$(ls -A "$TC_LIB_DIR")" ] || fail "a plain kind's load wrote $(ls -A "$TC_LIB_DIR")"
err=$(tc qdisc add dev tl0 root bpf_plainfifo limit 5 2>&1) && fail "tc took options for bpf_plainfifo"
echo "$err" | grep -q 'Unknown qdisc "bpf_plainfifo", hence option "limit" is unparsable' ||
	fail "tc said '$err' to options for bpf_plainfifo"
expect tc qdisc add dev tl0 root bpf_plainfifo
expect tc qdisc del dev tl0 root
expect "$BQ" unload plainfifo
exit 0
