# libbpfqdisc from outside the tree (issue 36): the Makefile builds
# .output/oot/bq_client on the host against the installed library (make
# install into a DESTDIR, pkg-config libbpfqdisc, no header or source of
# the tree); it finds libbpfqdisc.so.0 there. It loads bpf_fifo, adds it
# with limit 100, changes it to 300 and reads it back, and is refused a
# bad value and an unload, each as the API says; the CLI and tc see what
# it did; its statistics agree with tc's after traffic; it deletes the
# qdisc and unloads the kind.
. "$(dirname "$0")/lib.sh"
C=$TOP/.output/oot/bq_client
[ -x "$C" ] || fail "no $C: make builds it, on the host"
# The installed library, as ld.so finds it (the VM has no ldd or readelf).
libs=$(LD_TRACE_LOADED_OBJECTS=1 "$C")
printf '%s\n' "$libs" | grep -q "libbpfqdisc\.so\.0 => $TOP/\.output/oot/dest/usr/lib/" ||
	fail "$C does not load the installed libbpfqdisc.so.0: $libs"

veth_pair
quiet_va
out=$("$C" a va 2>&1) || fail "bq_client: $out"
printf '%s\n' "$out" | grep -qx "limit 300" || fail "bq_client said: $out"
limit=$("$BQ" -n a stats -j | "$JGET" '.[0].options.limit')
[ "$limit" = 300 ] || fail "the CLI sees limit $limit, expected 300"
[ "$(qdisc_kind a va)" = bpf_fifo ] || fail "tc sees $(qdisc_kind a va) on va"

ip netns exec a ping -q -c 5 -i 0.1 -W 2 $B >/dev/null || fail "ping through bpf_fifo"
for s in packets bytes; do
	got=$("$C" a va stat $s) || fail "bq_client stat $s: $got"
	want=$(tc_stat a va $s)
	[ "$got" = "$s $want" ] || fail "bq_client stat $s: '$got', tc: $want"
done
got=$("$C" a va stat enqueued) || fail "bq_client stat enqueued: $got"
# A kernel that bypasses an empty qdisc (test_bypass) lets pings go past.
kernel_bypasses || [ "${got#enqueued }" -ge 5 ] || fail "bq_client stat enqueued: '$got' after 5 pings"
err=$("$C" a va stat nosuch) && fail "bq_client stat nosuch succeeded: $err"
printf '%s\n' "$err" | grep -q "has no statistic 'nosuch'" || fail "stat nosuch: $err"

out=$("$C" a va del 2>&1) || fail "bq_client del: $out"
[ "$(qdisc_kind a va)" != bpf_fifo ] || fail "bpf_fifo still on va after del"
[ ! -e /sys/fs/bpf/bpfqdisc/fifo/link ] || fail "bpf_fifo still loaded after del"
exit 0
