# .change and .dump (tools/kernel-patches/0003). Where the kernel has them,
# tc qdisc show prints a bpf_fifo's parameters (its .dump, decoded by the
# tc plugin), and a raw replace onto the same kind with options (nlqdisc
# -r: the kernel's change path, no bpfqdisc in between) changes them in
# place: the same qdisc (its handle), its new limit in bpfqdisc's view and in tc's,
# a limit out of range refused with ERANGE. Where the kernel lacks them, the
# same object loads, show prints no options and the change is refused
# with EINVAL ("Change operation not supported"), the qdisc untouched.
. "$(dirname "$0")/lib.sh"
NL="$TOP/bin/nlqdisc"
export TC_LIB_DIR="$TOP/bin/tc"
trap 'ip link del d0 2>/dev/null || true' EXIT

if kernel_has Qdisc_ops__dump; then patched=1; else patched=0; fi
note "kernel $(uname -r): Qdisc_ops__dump $([ $patched = 1 ] && echo present || echo absent)"
limit() { "$BQ" qdisc show dev d0 -j | "$JGET" '.[0].options.limit'; }
created() { tc -j qdisc show dev d0 root | "$JGET" '.[0].handle'; }

expect "$BQ" load fifo
expect ip link add d0 type dummy
expect ip link set d0 up
expect "$NL" d0 bpf_fifo valid 0=77
born=$(created)
shown=$(tc qdisc show dev d0 root)
shown_limit=$(tc -j qdisc show dev d0 root | "$JGET" '.[0].options.limit')
note "tc qdisc show: $shown"
set +e
"$NL" -r d0 bpf_fifo valid 0=33 >/dev/null
rc=$?
"$NL" -r d0 bpf_fifo valid 0=0 >/dev/null
rc_range=$?
set -e
note "change to limit 33: exit $rc; to limit 0: exit $rc_range; limit now $(limit)"
[ "$(created)" = "$born" ] || fail "the change replaced the instance ($born, now $(created))"
if [ $patched = 1 ]; then
	echo "$shown" | grep -qE ' limit 77( |$)' || fail "tc qdisc show prints no limit 77: $shown"
	[ "$shown_limit" = 77 ] || fail "tc -j qdisc show gave limit $shown_limit"
	[ $rc = 0 ] || fail "change with options exited $rc"
	[ $rc_range = 34 ] || fail "change to limit 0 exited $rc_range, expected ERANGE"
	[ "$(limit)" = 33 ] || fail "limit $(limit) after the change to 33"
	tc qdisc show dev d0 root | grep -qE ' limit 33( |$)' || fail "tc shows $(tc qdisc show dev d0 root)"
else
	echo "$shown" | grep -q ' limit ' && fail "options shown without a .dump: $shown"
	[ $rc = 22 ] || fail "change with options exited $rc, expected EINVAL"
	[ "$(limit)" = 77 ] || fail "limit $(limit) after a refused change"
fi
exit 0
