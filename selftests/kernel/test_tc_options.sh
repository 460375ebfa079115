# TCA_OPTIONS as any sender of a raw RTM_NEWQDISC may write them
# (selftests/progs/nlqdisc.c), as root and as a plain user (uid 65534) in a
# user and network namespace of its own: .init creates the qdisc with
# exactly the parameters given (the rest the kind's defaults), refuses a
# payload that is not a struct bq_options, or gives a parameter the kind
# lacks, with EINVAL and a value outside the kind's table with ERANGE,
# and a refused qdisc holds no slot. No oops.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"
command -v setpriv >/dev/null && command -v unshare >/dev/null || skip "no setpriv or unshare in the VM"
[ "$(sysctl -n kernel.unprivileged_userns_clone 2>/dev/null || echo 1)" = 1 ] ||
	skip "kernel.unprivileged_userns_clone is 0: no user can make a user namespace"
NL="$TOP/bin/nlqdisc"
EINVAL=22 ERANGE=34
TMP=$(mktemp -d)
chmod 1777 "$TMP"
USER_NS=
trap 'kill $USER_NS 2>/dev/null || true; ip netns del u 2>/dev/null || true; ip link del d0 2>/dev/null || true' EXIT

instances() { "$BQ" list | grep -c '^  \(dev\|ifindex\)' || true; }
opt() { "$BQ" qdisc show dev d0 -j | "$JGET" ".[0].options.$1"; }

# sends RC KIND PAYLOAD [I=V]...: nlqdisc on d0 must exit RC; a refused
# one leaves d0 without a qdisc and the slot count as it was.
sends() {
	want=$1 before=$(instances)
	shift
	set +e
	"$NL" d0 "$@" >/dev/null
	rc=$?
	set -e
	[ "$rc" = "$want" ] || fail "nlqdisc d0 $* exited $rc, expected $want"
	[ "$want" = 0 ] && return
	[ "$("$BQ" qdisc show dev d0 -j)" = "[]" ] || fail "nlqdisc d0 $* was refused but left: $("$BQ" qdisc show dev d0)"
	[ "$(instances)" = "$before" ] || fail "nlqdisc d0 $* was refused but holds a slot ($(instances), was $before)"
}
gone() { expect tc qdisc del dev d0 root; }

expect "$BQ" load fifo --max-instances 4 --userns-slots 2 --user-slots 2
expect "$BQ" load fq
expect "$BQ" load hbm
expect ip link add d0 type dummy

# Valid: exactly what was given, the defaults for the rest.
sends 0 bpf_fifo none
[ "$(opt limit)" = 1000 ] || fail "no options: limit $(opt limit), expected the default 1000"
gone
sends 0 bpf_fifo empty
[ "$(opt limit)" = 1000 ] || fail "empty options: limit $(opt limit)"
gone
sends 0 bpf_fifo valid 0=7
[ "$(opt limit)" = 7 ] || fail "limit 7 given, shows $(opt limit)"
gone
# fq: quantum 3000, maxrate 2^64-2 (its max), orphan_mask 5, a priomap at its bounds.
sends 0 bpf_fq valid 2=3000 6=18446744073709551614 10=5 14=$((0x2222222222222222))
got=$("$BQ" qdisc show dev d0)
for p in "quantum 3000b" "orphan_mask 5 " "priomap 2222222222222222" "limit 10000 " "flow_limit 100 " "pacing on "; do
	case "$got" in *"$p"*) ;; *) fail "bpf_fq: no '$p' in: $got" ;; esac
done
[ "$(opt maxrate)" = 18446744073709551614 ] || fail "bpf_fq maxrate $(opt maxrate)"
gone

# Refused, as root.
for p in short long magic garbage "valid 1=5" "valid 31=1"; do
	sends $EINVAL bpf_fifo $p
done
sends $ERANGE bpf_fifo valid 0=0
sends $ERANGE bpf_fifo valid 0=16385
sends $ERANGE bpf_fifo valid 0=18446744073709551615
sends $EINVAL bpf_fq valid 18=1 20=1
sends $ERANGE bpf_fq valid 5=2				# pacing: on|off
sends $ERANGE bpf_fq valid 6=18446744073709551615	# maxrate BQ_AUTO: nobody gives it
sends $ERANGE bpf_fq valid 14=$((0x2222222222222223))	# priority 0 in band 3
sends $ERANGE bpf_fq valid 2=255			# quantum below 256
sends $ERANGE bpf_hbm valid 1=3				# classify beyond by priority
[ "$(instances)" = 0 ] || fail "refused qdiscs hold $(instances) slots"

# A plain user in its own user and network namespace, 2 slots of 4 for
# them: every refusal first, then two qdiscs, which only fit if the
# refused ones kept none. Its exit codes, one a line, in $TMP/rc.
setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urn dash -c '
	ip link add d0 type dummy && ip link add d1 type dummy || exit
	for p in short long magic garbage "valid 1=5"; do
		$1 d0 bpf_fifo $p >/dev/null; echo $?
	done
	$1 d0 bpf_fifo valid 0=0 >/dev/null; echo $?
	$1 d0 bpf_fifo valid 0=7 >/dev/null; echo $?
	$1 d1 bpf_fifo none >/dev/null; echo $?
	exec sleep 600' sh "$NL" >"$TMP/rc" &
USER_NS=$!
wait_for 20 sh -c "[ \$(wc -l <'$TMP/rc') = 8 ]" || fail "the user's nlqdisc did not finish: $(cat "$TMP/rc")"
[ "$(tr '\n' ' ' <"$TMP/rc")" = "$EINVAL $EINVAL $EINVAL $EINVAL $EINVAL $ERANGE 0 0 " ] ||
	fail "uid 65534 in a user namespace got exit codes $(tr '\n' ' ' <"$TMP/rc")"
"$BQ" list | grep -q "4 slots, 2 for user namespaces (2 held)" || fail "list: $("$BQ" list)"
expect ip netns attach u "$USER_NS"
[ "$("$BQ" -n u qdisc show dev d0 -j | "$JGET" '.[0].options.limit')" = 7 ] ||
	fail "the user's limit 7: $("$BQ" -n u qdisc show dev d0)"
[ "$("$BQ" -n u qdisc show dev d1 -j | "$JGET" '.[0].options.limit')" = 1000 ] ||
	fail "the user's default limit: $("$BQ" -n u qdisc show dev d1)"
! dmesg | grep -E 'BUG:|Oops' || fail "the kernel oopsed"
exit 0
