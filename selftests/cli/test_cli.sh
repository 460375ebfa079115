#!/bin/dash
# The CLI's answers that need no BPF qdisc kernel: usage, bad input, and
# (on a kernel without CONFIG_NET_SCH_BPF) the refusal that says why.
# One PASS/FAIL/SKIP line per check.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BQ="$TOP/bin/bpfqdisc"

check() { # name expected_exit regex cmd...
	name=$1 code=$2 re=$3
	shift 3
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" != "$code" ]; then
		echo "FAIL cli/$name: exit $rc, expected $code: $err"
	elif ! echo "$err" | grep -Eq -- "$re"; then
		echo "FAIL cli/$name: said '$err', expected /$re/"
	elif [ -n "$err" ] && [ "$(echo "$err" | wc -l)" -ne 1 ]; then
		echo "FAIL cli/$name: more than one line: $err"
	else
		echo "PASS cli/$name"
	fi
}

check help 0 '' "$BQ" --help
check no_command 2 'no command \(try bpfqdisc --help\)' "$BQ"
check unknown_command 2 "unknown command 'frob'" "$BQ" frob
check unknown_kind 2 "unknown qdisc 'nosuch' \(known: fifo" "$BQ" load nosuch
check no_kind 2 "which qdisc\? known: fifo" "$BQ" load
check unload_unknown 2 "unknown qdisc 'nosuch'" "$BQ" unload nosuch
check bad_param 2 "unknown parameter 'bogus'" "$BQ" load fifo bogus 1
check param_range 2 "limit 0 is out of range" "$BQ" load fifo limit 0
check param_unit 2 "bad value '10x' for limit" "$BQ" load fifo limit 10x
# Below 4 bit/s a rate rounds to 0 bytes/s, which means no limit.
check rate_rounds_0 2 "bad value '3bit' for maxrate: rounds to 0 bytes/s, which means no rate; the least is 4bit" \
	"$BQ" load fq maxrate 3bit
check rate_rounds_0_hbm 2 "bad value '0.4bps' for rate: rounds to 0" "$BQ" load hbm rate 0.4bps
check bad_option 2 "unknown option '--nope'" "$BQ" load fifo --nope 1
check ring_not_pow2 2 "--ring-slots 1000 is not a power of two" "$BQ" load fifo --ring-slots 1000
# The range said is the range taken (issue 38.6): 0 and 1 are refused.
check ring_one 2 "bad value '1' for --ring-slots: expected 2\.\.16777216" "$BQ" load fifo --ring-slots 1
check ring_zero 2 "bad value '0' for --ring-slots: expected 2\.\.16777216" "$BQ" load fifo --ring-slots 0
check slots_overflow 2 "--max-instances 65536 x --ring-slots 65536 is more than" "$BQ" load fifo --max-instances 65536 --ring-slots 65536
# bpfqdisc qdisc and stats: the word matching of src/cli/qdisc.c and src/cli/stats.c,
# which refuses before it checks privileges or the kernel.
check qdisc_no_dev 2 "which device\? \(dev DEV\)" "$BQ" qdisc add root bpf_fifo
check qdisc_dev_no_value 2 "'dev' needs a value" "$BQ" qdisc add dev
check qdisc_unknown_kind 2 "unknown qdisc 'bpf_nosuch' \(known: fifo" "$BQ" qdisc add dev lo root bpf_nosuch
check qdisc_no_kind 2 "which qdisc\? \(e.g. bpf_fifo\)" "$BQ" qdisc add dev lo root
check qdisc_bad_parent 2 "bad handle 'zz' \(expected MAJOR:\[MINOR\] in hex\)" "$BQ" qdisc add dev lo parent zz bpf_fifo
check qdisc_bad_handle 2 "bad handle '1:2:3'" "$BQ" qdisc add dev lo handle 1:2:3 bpf_fifo
check qdisc_no_device 2 "no such device 'nodev0'" "$BQ" qdisc add dev nodev0 root bpf_fifo
check qdisc_verb 2 "unknown qdisc command 'frob'" "$BQ" qdisc frob dev lo
check qdisc_change_nothing 2 "nothing to change: give PARAM VALUE pairs" "$BQ" qdisc change dev lo root
check qdisc_show_option 2 "unexpected '-x'" "$BQ" qdisc show -x
check stats_interval_0 2 "bad --interval '0': expected 1..86400 seconds" "$BQ" stats --interval 0
check stats_interval_big 2 "bad --interval '86401'" "$BQ" stats --interval 86401
check stats_no_device 2 "no such device 'nodev0'" "$BQ" stats dev nodev0
check unload_option 2 "unknown option '--bogus'" "$BQ" unload fifo --bogus
check class_verb 2 "unknown class command 'move'" "$BQ" class move dev lo mark 1
# With no field given, any of the kinds with classes (bpf_hbm's rate,
# bpf_wfq's weight, bpf_edf's deadline) could be meant: the qdisc's kind
# says which is missing once it is found (test_hbm_qdisc: which rate?).
check class_weight_0 2 "weight '0' out of range" "$BQ" class add dev lo mark 1 weight 0
check class_rate_0 2 "rate '0' out of range" "$BQ" class add dev lo mark 1 rate 0
check class_rate_tiny 2 "bad rate '3bit': rounds to 0" "$BQ" class add dev lo mark 1 rate 3bit
check class_rate_neg 2 "bad rate '-1'" "$BQ" class add dev lo mark 1 rate -1
check class_rate_huge 2 "rate '99999999tbit' out of range" "$BQ" class add dev lo mark 1 rate 99999999tbit
check class_bad_mark 2 "bad mark 'x'" "$BQ" class add dev lo mark x rate 1mbit
check class_no_dev 2 "no such device 'nodev0'" "$BQ" class add dev nodev0 mark 1 rate 1mbit
# The fields of a kind's classes come from its descriptor: bpf_maxlen's
# (selftests/bpf/maxlen.bpf.c, only in bin/bpfqdisc_test) are not bpf_hbm's.
BQT="$TOP/bin/bpfqdisc_test"
check class_fields_range 2 "^bpfqdisc: maxlen '0' out of range \\(more than 0, at most 65535b\\)$" \
	"$BQT" class add dev lo mark 1 maxlen 0 tag 1
check class_fields_which 2 "^bpfqdisc: which tag\\? \\(tag TAG, e.g. tag 10\\)$" \
	"$BQT" class add dev lo mark 1 maxlen 100
check class_fields_bad 2 "^bpfqdisc: bad maxlen 'x': " "$BQT" class add dev lo mark 1 maxlen x tag 1
check class_fields_unknown 2 "^bpfqdisc: unknown argument 'color'$" "$BQT" class add dev lo mark 1 color 1
check class_fields_del 2 "^bpfqdisc: class del takes no tag$" "$BQT" class del dev lo mark 1 tag 1
check hbmtest_burst_no_htb 2 "--htb-burst needs -q=htb" "$TOP/tools/hbm-test" --htb-burst=600k -r=10
check hbmtest_burst_bad 2 "--htb-burst takes bytes, as tc writes them \(600k\), not 'x'" "$TOP/tools/hbm-test" -q=htb --htb-burst=x -r=10
# hbm's objects: built-in names are never files, and --object takes only a
# regular file no one but hbm's user may write (checked before anything
# needs root or a kernel). test_hbm_object has the rest.
HBM="$TOP/bin/hbm"
OBJ=$(mktemp)
chmod 0664 "$OBJ"
check hbm_not_builtin 2 "^hbm: 'hbm_cg.o' is not a built-in object \(hbm_cg, hbm_cg_edt\)" "$HBM" hbm_cg.o
check hbm_object_group_writable 2 "^hbm: refusing $OBJ: it is writable by group or others \(mode 0664" \
	"$HBM" --object "$OBJ"
check hbm_object_dir 2 "^hbm: refusing /: not a regular file" "$HBM" --object /
check hbm_object_and_builtin 2 "^hbm: give a built-in object or --object FILE, not both" \
	"$HBM" --object "$OBJ" hbm_cg
rm -f "$OBJ"
# hbm --version (issue 38.15): bpfqdisc's version, on stdout, exit 0.
out=$("$HBM" --version 2>&1)
if [ $? = 0 ] && [ "$out" = "hbm $("$BQ" --version | cut -d' ' -f2) (bpfqdisc)" ]; then
	echo "PASS cli/hbm_version"
else
	echo "FAIL cli/hbm_version: said '$out'"
fi

# params (issue 38.12): no bound printed as "auto" (BQ_AUTO is what the
# table's "no maximum" is, and nobody may give it), and every row's columns
# where the header's are, however long a name or default.
for k in fifo fq fq_codel hbm; do
	out=$("$BQ" params $k 2>&1)
	why=
	printf '%s\n' "$out" | grep -q '\.\.auto' && why="a range ends in auto;"
	bad=$(printf '%s\n' "$out" | awk 'NR == 1 { for (i = 2; i <= 4; i++) col[i] = index($0, $i); next }
		NF == 0 { exit }
		{ p = 1; for (i = 1; i <= 4; i++) { s = substr($0, p); m = match(s, /[^ ]/); p += m - 1;
			if (i > 1 && p != col[i]) { print $1; next } p += length($i) } }')
	[ -z "$bad" ] || why="$why columns out of line: $(echo $bad);"
	# A default of auto says so, and the footer what it is; only then.
	if printf '%s\n' "$out" | grep -Eq '^[a-z_0-9]+ +[a-z|]+ +\(auto\) '; then
		printf '%s\n' "$out" | grep -q '^(auto): each qdisc works it out from its device' || why="$why no footer for (auto);"
	elif printf '%s\n' "$out" | grep -q '^(auto)'; then
		why="$why a footer for no (auto);"
	fi
	[ $k != fq ] || printf '%s\n' "$out" | grep -Eq '^maxrate +rate +0bit +0bit\.\. \(no maximum\)$' ||
		why="$why maxrate's range is not '0bit.. (no maximum)';"
	[ $k != fq ] || printf '%s\n' "$out" | grep -Eq '^quantum +bytes +\(auto\) ' || why="$why quantum's default is not (auto);"
	if [ -z "$why" ]; then
		echo "PASS cli/params_$k"
	else
		echo "FAIL cli/params_$k: $why $(echo "$out" | head -n 1)..."
	fi
done

# A file root loads but does not own (issue 38.11): say what to do with a
# file, not the pin directories' "(remove it)".
if [ "$(id -u)" = 0 ] && [ -s "$TOP/.output/oot/myq.bpf.o" ]; then
	OBJ=$(mktemp -d)/myq.bpf.o
	cp "$TOP/.output/oot/myq.bpf.o" "$OBJ" && chown 65534 "$OBJ"
	out=$("$BQ" load "$OBJ" 2>&1 >/dev/null)
	if printf '%s\n' "$out" | grep -q "owned by uid 65534" && printf '%s\n' "$out" | grep -q chown &&
		! printf '%s\n' "$out" | grep -q "remove it"; then
		echo "PASS cli/load_user_owned"
	else
		echo "FAIL cli/load_user_owned: said '$out', expected the owner and chown, not 'remove it'"
	fi
	# hbm --object reads it with the same check, and says the same.
	cp "$TOP/.output/hbm_cg_edt.bpf.o" "${OBJ%/*}/" && chown 65534 "${OBJ%/*}/hbm_cg_edt.bpf.o"
	out=$("$HBM" --object "${OBJ%/*}/hbm_cg_edt.bpf.o" 2>&1 >/dev/null)
	if printf '%s\n' "$out" | grep -q "owned by uid 65534.*chown" && ! printf '%s\n' "$out" | grep -q "remove it"; then
		echo "PASS cli/hbm_object_user_owned"
	else
		echo "FAIL cli/hbm_object_user_owned: said '$out', expected the owner and chown, not 'remove it'"
	fi
	rm -rf "${OBJ%/*}"
else
	echo "SKIP cli/load_user_owned: needs root and make's .output/oot/myq.bpf.o"
fi

if bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -q bpf_qdisc_skb_drop; then
	echo "SKIP cli/unsupported_kernel: this kernel supports BPF qdiscs"
elif [ "$(id -u)" != 0 ]; then
	echo "SKIP cli/unsupported_kernel: needs root to get past the capability check"
else
	# Linux 6.16 or later was built without the option: say only that (issue 38.14).
	rel=$(uname -r | sed 's/^\([0-9]*\)\.\([0-9]*\).*/\1 \2/')
	if [ "${rel% *}" -gt 6 ] || { [ "${rel% *}" = 6 ] && [ "${rel#* }" -ge 16 ]; }; then
		why="was built without CONFIG_NET_SCH_BPF$"
	else
		why="needs CONFIG_NET_SCH_BPF \(Linux ≥ 6.16\)"
	fi
	check unsupported_kernel 1 "this kernel \($(uname -r)\) cannot run BPF qdiscs: it $why" \
		"$BQ" load fifo
	# stats refuses as list does, rather than print nothing and exit 0.
	check unsupported_kernel_stats 1 "this kernel \($(uname -r)\) cannot run BPF qdiscs" "$BQ" stats
	check unsupported_kernel_list 1 "this kernel \($(uname -r)\) cannot run BPF qdiscs" "$BQ" list
fi
