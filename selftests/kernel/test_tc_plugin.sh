# Debian's tc with bpfqdisc's plugin (TC_LIB_DIR=bin/tc): add, replace,
# change and delete with parameters for every kind, which bpfqdisc qdisc
# show -j then reports exactly; a bad value is refused with the CLI's own
# line and a non-zero exit, and leaves the qdisc as it was.
. "$(dirname "$0")/lib.sh"

export TC_LIB_DIR="$TOP/bin/tc"
for k in fifo fq fq_codel hbm; do expect "$BQ" load $k; done
trap 'ip link del tp0 2>/dev/null || true' EXIT
ip link add tp0 type dummy
ip link set tp0 up

# want KIND NAME=VALUE...: the root qdisc of tp0 is KIND with these values.
want() {
	js=$("$BQ" qdisc show -j dev tp0)
	kind=$(echo "$js" | "$JGET" '.[0].kind')
	[ "$kind" = "$1" ] || fail "tp0's root is '$kind', expected $1 ($js)"
	shift
	for p in "$@"; do
		got=$(echo "$js" | "$JGET" ".[0].options.${p%%=*}")
		[ "$got" = "${p#*=}" ] || fail "${p%%=*} is $got, expected ${p#*=} ($js)"
	done
}

# Every kind: add, change, replace onto itself, delete.
for kp in fifo:limit fq:flow_limit fq_codel:drop_batch hbm:agg_limit; do
	k=bpf_${kp%:*} param=${kp#*:}
	expect tc qdisc add dev tp0 root $k $param 30
	want $k $param=30
	expect tc qdisc change dev tp0 root $k $param 40
	want $k $param=40
	expect tc qdisc replace dev tp0 root $k $param 50
	want $k $param=50
	expect tc qdisc del dev tp0 root $k
	want noqueue
done

expect tc qdisc add dev tp0 root bpf_fifo limit 500
want bpf_fifo limit=500
expect tc qdisc replace dev tp0 root bpf_fq quantum 3028 limit 0x200 nopacing timer_slack 100
want bpf_fq quantum=3028 limit=512 pacing=0 timer_slack=100 flow_limit=100
expect tc qdisc change dev tp0 root bpf_fq flow_limit 50 horizon_cap
want bpf_fq quantum=3028 limit=512 flow_limit=50 horizon_drop=0
# Onto a qdisc of the same kind the kernel routes replace to change too.
expect tc qdisc replace dev tp0 root bpf_fq limit 600 pacing
want bpf_fq quantum=3028 limit=600 flow_limit=50 pacing=1
expect tc qdisc replace dev tp0 root bpf_fq_codel target 10ms interval 200ms noecn
want bpf_fq_codel target=10000000 interval=200000000 limit=10240
expect tc qdisc replace dev tp0 root handle 5: bpf_hbm rate 100mbit limit 2000
want bpf_hbm rate=12500000 limit=2000
expect tc qdisc change dev tp0 handle 5: bpf_hbm agg_limit 77
want bpf_hbm rate=12500000 limit=2000 agg_limit=77

# Refused as the CLI refuses, in the same words; nothing changes.
for bad in "limit 0" "rate 2" "limit" "nosuch 1" "classify 0x9"; do
	# shellcheck disable=SC2086
	cli=$("$BQ" qdisc change dev tp0 root bpf_hbm $bad 2>&1 >/dev/null) && fail "CLI took '$bad'"
	[ "$(echo "$cli" | wc -l)" = 1 ] || fail "the CLI said more than one line for '$bad': $cli"
	for verb in change replace add; do
		# shellcheck disable=SC2086
		err=$(tc qdisc $verb dev tp0 root bpf_hbm $bad 2>&1 >/dev/null) && fail "tc $verb took '$bad'"
		[ "$err" = "$cli" ] || fail "tc qdisc $verb ... $bad said '$err', the CLI '$cli'"
	done
done
want bpf_hbm rate=12500000 limit=2000 agg_limit=77
# What the BPF qdisc cannot do is refused with why.
err=$(tc qdisc replace dev tp0 root bpf_fq_codel ecn 2>&1) && fail "tc took bpf_fq_codel ecn"
echo "$err" | grep -q "never marks ECN" || fail "bpf_fq_codel ecn: '$err'"

expect tc qdisc del dev tp0 root bpf_hbm
want noqueue
# No options: the kind's defaults.
expect tc qdisc add dev tp0 root bpf_fq
want bpf_fq limit=10000 flow_limit=100 timer_slack=10000
expect tc qdisc del dev tp0 root

# The plugin gives a plain user nothing: in a user namespace of its own
# tc's add meets .init's refusal (no slots for user namespaces by
# default), and a change needs bpfqdisc's privileges, which it lacks.
before=$("$BQ" list)
for verb in add change; do
	setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urn \
		env TC_LIB_DIR="$TC_LIB_DIR" tc qdisc $verb dev lo root bpf_fifo limit 5 2>/dev/null &&
		fail "an unprivileged user's tc qdisc $verb with the plugin succeeded"
done
[ "$("$BQ" list)" = "$before" ] || fail "the unprivileged tries left: $("$BQ" list)"

# A built-in kind not loaded (issue 38.14): the CLI's words, which say what
# to run, not only the kernel's "Specified qdisc kind is unknown.", with
# parameters or without.
expect "$BQ" unload fq
cli=$("$BQ" qdisc add dev tp0 root bpf_fq quantum 3028 2>&1 >/dev/null) && fail "the CLI added bpf_fq unloaded"
echo "$cli" | grep -q "bpfqdisc load fq" || fail "the CLI said '$cli' for bpf_fq unloaded"
for opts in "quantum 3028" ""; do
	# shellcheck disable=SC2086
	err=$(tc qdisc add dev tp0 root bpf_fq $opts 2>&1 >/dev/null) && fail "tc added bpf_fq unloaded"
	[ "$err" = "$cli" ] || fail "tc qdisc add ... bpf_fq $opts said '$err', the CLI '$cli'"
done
want noqueue
exit 0
