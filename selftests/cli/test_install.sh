#!/bin/dash
# make install into a scratch DESTDIR with PREFIX=/usr, then: every file
# landed with a sane mode, the man page renders cleanly and covers the CLI,
# the systemd unit verifies and names the installed binary, the bash
# completion parses and completes, and make uninstall takes it all away.
# Needs no root and no BPF qdisc kernel. One PASS/FAIL/SKIP line per check.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PREFIX=/usr
D=$(mktemp -d)
SCRATCH=$(mktemp -d)
trap 'rm -rf "$D" "$SCRATCH"' EXIT
. "$TOP/selftests/cli/lib.sh"
skip() { echo "SKIP cli/$1: $2"; }
verdict() { # name problems: PASS when there are none
	if [ -z "$2" ]; then pass "$1"; else fail "$1" "${2# }"; fi
}
# name, the words a man page must cover (none found fails), where they come
# from, the page, what it lacks
man_verdict() {
	if [ -z "$2" ]; then fail "$1" "found no $3"
	elif [ -n "$5" ]; then fail "$1" "$4 lacks:$5"
	else pass "$1"; fi
}

out=$(mk install DESTDIR="$D" PREFIX=$PREFIX 2>&1)
rc=$?
if [ $rc != 0 ]; then
	fail install "make install exit $rc: $(oneline "$(printf '%s\n' "$out" | tail -n 5)")"
	exit 1
fi
pass install

SBIN=$D$PREFIX/sbin/bpfqdisc
OBJDIR=$D$PREFIX/lib/bpfqdisc
MAN=$D$PREFIX/share/man/man8/bpfqdisc.8
HBMMAN=$D$PREFIX/share/man/man8/hbm.8
COMP=$D$PREFIX/share/bash-completion/completions/bpfqdisc
UNIT=$D$PREFIX/lib/systemd/system/bpfqdisc@.service
LIBDIR=$D$PREFIX/lib/$(cc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
MAN3=$D$PREFIX/share/man/man3/libbpfqdisc.3

# Each file with the mode it must have: programs 755, data 644. Also catches
# a umask leaking through (the unit is generated, not copied).
expected_files() {
	echo "$SBIN 755"
	echo "$MAN 644"
	echo "$HBMMAN 644"
	echo "$D$PREFIX/sbin/hbm 755"
	echo "$COMP 644"
	echo "$UNIT 644"
	echo "$LIBDIR/libbpfqdisc.so.0 644"
	echo "$LIBDIR/libbpfqdisc.a 644"
	echo "$D$PREFIX/include/libbpfqdisc.h 644"
	echo "$LIBDIR/pkgconfig/libbpfqdisc.pc 644"
	echo "$MAN3 644"
	echo "$D/usr/lib/cni/bpfqdisc-bandwidth 755"	# where Debian's runtimes find CNI plugins
	for s in "$TOP"/bpf/*.bpf.c; do
		b=${s##*/}
		echo "$OBJDIR/${b%.c}.o 644"
	done
}
why=$(expected_files | while read -r path want; do
	if [ ! -f "$path" ]; then
		printf ' %s missing;' "${path#"$D"}"
	elif [ "$(stat -c %a "$path")" != "$want" ]; then
		printf ' %s mode %s, expected %s;' "${path#"$D"}" "$(stat -c %a "$path")" "$want"
	fi
done)
verdict install_files "$why"

# Directories make install creates: searchable, writable by the owner only
# (install -d makes them 755 whatever the umask).
why=$(cd "$D" && find . -mindepth 1 -type d ! -perm 0755 -printf ' %P mode %m;')
verdict install_dirs "$why"

# Only the qdiscs of bpf/ are shipped, not the test programs of selftests/bpf.
want=$(cd "$TOP/bpf" && ls -- *.bpf.c | sed 's/\.c$/.o/' | sort)
got=$(cd "$OBJDIR" 2>/dev/null && ls | sort)
if [ "$got" = "$want" ]; then
	pass install_bpf_objects
else
	fail install_bpf_objects "$(oneline "$got") in lib/bpfqdisc, expected $(oneline "$want")"
fi

if cmp -s "$SBIN" "$TOP/bin/bpfqdisc" && "$SBIN" --help >/dev/null 2>&1; then
	pass install_binary
else
	fail install_binary "${SBIN#"$D"} is not bin/bpfqdisc or does not run --help"
fi

# The default PREFIX, without installing anything (-n only prints).
if mk -n install DESTDIR="$SCRATCH" 2>/dev/null | grep -q "$SCRATCH/usr/local/sbin/bpfqdisc"; then
	pass install_default_prefix
else
	fail install_default_prefix "make -n install does not install into /usr/local/sbin"
fi

# tc's plugin where Debian's tc looks, /usr/lib/MULTIARCH/tc, whatever the
# prefix (tc reads no other directory, and load PATH writes there too);
# TCLIBDIR= overrides it, and DESTDIR stages it.
MA=$(cc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
out=$(mk -n install DESTDIR="$SCRATCH" 2>/dev/null)
if printf '%s\n' "$out" | grep -q " $SCRATCH/usr/lib/$MA/tc/q_bpf.so\$" &&
	! printf '%s\n' "$out" | grep -q "$SCRATCH/usr/local/lib/$MA/tc"; then
	pass install_tc_default_prefix
else
	fail install_tc_default_prefix "make -n install (PREFIX=/usr/local) puts q_bpf.so in: $(oneline "$(printf '%s\n' "$out" | grep -o "[^ ]*/q_bpf.so\$")")"
fi
out=$(mk -n install DESTDIR="$SCRATCH" TCLIBDIR=/opt/tc 2>/dev/null)
if printf '%s\n' "$out" | grep -q " $SCRATCH/opt/tc/q_bpf.so\$"; then
	pass install_tc_libdir
else
	fail install_tc_libdir "make -n install TCLIBDIR=/opt/tc puts q_bpf.so in: $(oneline "$(printf '%s\n' "$out" | grep -o "[^ ]*/q_bpf.so\$")")"
fi

# tc's plugin where Debian's tc looks (PREFIX=/usr): one library, a link
# per kind of src/lib/qdiscs.def, each exporting its qdisc_util, and no libbpf
# (tc has one of its own loaded), and it runs no program: no exec*, fork or
# spawn (it changes parameters through the library, not by running the CLI).
TCDIR=$D/usr/lib/$MA/tc
why=
[ "$(stat -c %a "$TCDIR/q_bpf.so" 2>/dev/null)" = 644 ] || why=" ${TCDIR#"$D"}/q_bpf.so missing or not 644;"
for k in $(grep ^BQ_QDISC "$TOP/src/lib/qdiscs.def" | cut -d, -f1 | cut -c10-); do
	[ "$(readlink "$TCDIR/q_bpf_$k.so")" = q_bpf.so ] || why="$why q_bpf_$k.so is no link to q_bpf.so;"
	nm -D --defined-only "$TCDIR/q_bpf.so" 2>/dev/null | grep -q " bpf_${k}_qdisc_util$" ||
		why="$why no bpf_${k}_qdisc_util;"
done
libbpf=$(nm -D --undefined-only "$TCDIR/q_bpf.so" 2>/dev/null | grep -E ' (bpf|btf|libbpf)_' | tr -s ' ' | cut -d' ' -f3)
[ -z "$libbpf" ] || why="$why it uses libbpf: $(oneline "$libbpf");"
runs=$(nm -D --undefined-only "$TCDIR/q_bpf.so" 2>/dev/null | grep -E ' U (exec|fork|vfork|posix_spawn|system@|popen)' |
	tr -s ' ' | cut -d' ' -f3)
[ -z "$runs" ] || why="$why it can run programs: $(oneline "$runs");"
verdict install_tc_plugin "$why"

# libbpfqdisc: the link names its soname, which exports the API alone
# (bq_*), with libbpf inside it hidden.
why=
[ "$(readlink "$LIBDIR/libbpfqdisc.so")" = libbpfqdisc.so.0 ] || why=" libbpfqdisc.so is no link to libbpfqdisc.so.0;"
readelf -d "$LIBDIR/libbpfqdisc.so.0" 2>/dev/null | grep -q 'SONAME.*\[libbpfqdisc\.so\.0\]' ||
	why="$why no soname libbpfqdisc.so.0;"
exported=$(nm -D --defined-only "$LIBDIR/libbpfqdisc.so.0" 2>/dev/null | tr -s ' ' | cut -d' ' -f3)
others=$(printf '%s\n' "$exported" | grep -v '^bq_')
[ -n "$exported" ] && [ -z "$others" ] || why="$why exports $(oneline "${others:-nothing}");"
printf '%s\n' "$exported" | grep -qx bq_qdisc_change || why="$why no bq_qdisc_change;"
verdict install_lib "$why"

# Man pages: rendered with warnings on, by whichever formatter is here.
if command -v groff >/dev/null; then
	out=$(for m in "$MAN" "$HBMMAN" "$MAN3"; do groff -man -Tutf8 -ww -z "$m" 2>&1; done)
	tool=groff
elif command -v mandoc >/dev/null; then
	out=$(mandoc -Tlint -W warning "$MAN" "$HBMMAN" "$MAN3" 2>&1)
	tool=mandoc
else
	tool=
fi
if [ -z "$tool" ]; then
	skip man_renders "neither groff nor mandoc is installed"
elif [ -n "$out" ]; then
	fail man_renders "$tool: $(oneline "$out")"
else
	pass man_renders
fi

# Man page in step with the CLI: each command --help lists (its two-space
# indented lines above "Kinds:") and each --option it names has an entry.
help=$("$SBIN" --help 2>/dev/null)
cmds=$(printf '%s\n' "$help" | sed -n '/^Kinds:/q; s/^  \([a-z][a-z]*\)\( .*\)\{0,1\}$/\1/p' | sort -u)
opts=$(printf '%s\n' "$help" | sed -n '/^Kinds:/q; p' | grep -o -- '--[a-z][a-z-]*' | sort -u)
man=$(sed 's/\\-/-/g' "$MAN")
why=
for c in $cmds; do
	# An entry starts a line: ".B load", ".BI load ...", "\fBqdisc add\fP ...".
	printf '%s\n' "$man" | grep -Eq "^(\.B[IR]* \"?|\\\\fB)$c( |\"|\\\\|$)" || why="$why command $c;"
done
for o in $opts; do
	printf '%s\n' "$man" | grep -q -- "$o" || why="$why option $o;"
done
man_verdict man_covers_cli "$cmds" "commands in bpfqdisc --help" docs/bpfqdisc.8 "$why"

# hbm's man page in step with hbm -h: each option of its usage lines.
hbm_opts=$("$D$PREFIX/sbin/hbm" -h 2>&1 | sed -n '/^$/q; p' | grep -o -- '-[-a-z_]*[a-z]' | sort -u)
man=$(sed 's/\\-/-/g' "$HBMMAN" 2>/dev/null)
why=
for o in $hbm_opts; do
	printf '%s\n' "$man" | grep -Eq -- "(^| )$o( |\$)" || why="$why $o;"
done
man_verdict man_covers_hbm "$hbm_opts" "options in hbm -h" docs/hbm.8 "$why"

# Unit: it must name the installed binary, with the template filled in.
if grep -q '@[A-Z]*@' "$UNIT"; then
	fail unit_paths "unfilled placeholder: $(grep '@[A-Z]*@' "$UNIT" | head -n 1)"
elif ! grep -qx "ExecStart=$PREFIX/sbin/bpfqdisc load %i \$BPFQDISC_ARGS" "$UNIT" ||
	! grep -qx "ExecStop=-$PREFIX/sbin/bpfqdisc unload %i --force" "$UNIT"; then
	fail unit_paths "ExecStart/ExecStop do not run $PREFIX/sbin/bpfqdisc: $(oneline "$(grep '^Exec' "$UNIT")")"
else
	pass unit_paths
fi

# systemd-analyze verify checks that ExecStart's binary exists on this host,
# where it is not installed: verify a copy whose commands point into DESTDIR.
# Its exit status ignores warnings such as unknown keys, so any word it says
# about our unit is a failure (--man=no: our man page is not in MANPATH).
if ! command -v systemd-analyze >/dev/null; then
	skip unit_verify "systemd-analyze is not installed"
else
	sed "s|^\(Exec[A-Za-z]*=-\{0,1\}\)$PREFIX/|\1$D$PREFIX/|" "$UNIT" > "$SCRATCH/bpfqdisc@.service"
	out=$(systemd-analyze verify --man=no "$SCRATCH/bpfqdisc@.service" 2>&1)
	rc=$?
	if [ $rc != 0 ] || printf '%s\n' "$out" | grep -q bpfqdisc; then
		fail unit_verify "systemd-analyze verify exit $rc: $(oneline "$out")"
	else
		pass unit_verify
	fi
fi

# Completion: parses, and completes from the installed binary. Called as
# bash would, through the function `complete -p bpfqdisc` names.
if ! command -v bash >/dev/null; then
	skip completion "bash is not installed"
else
	if out=$(bash -n "$COMP" 2>&1); then
		pass completion_syntax
	else
		fail completion_syntax "$(oneline "$out")"
	fi
	complete_() { # the words of a command line, the last being completed
		bash --norc --noprofile -c '
			. "$0" || exit 1
			fn=$(complete -p bpfqdisc | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
			COMP_WORDS=("$@")
			COMP_CWORD=$(($# - 1))
			COMP_LINE="$*"
			COMP_POINT=${#COMP_LINE}
			"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
			echo "${COMPREPLY[*]}"' "$COMP" "$@" 2>&1
	}
	check_completion() { # name expected got
		if [ "$2" = "$3" ]; then
			pass "$1"
		else
			fail "$1" "completed '$(oneline "$3")', expected '$2'"
		fi
	}
	check_completion completion_command load "$(complete_ bpfqdisc lo)"
	check_completion completion_kind fifo "$(complete_ "$SBIN" load "fi")"
	check_completion completion_param limit "$(complete_ "$SBIN" load fifo li)"
	check_completion completion_options "--max-instances --ring-slots --class-slots --userns-slots --user-slots --netns-slots" "$(complete_ "$SBIN" load fifo --)"
	check_completion completion_force --force "$(complete_ "$SBIN" unload fifo --)"
	check_completion completion_netns load "$(complete_ "$SBIN" -n ns1 lo)"
fi

out=$(mk uninstall DESTDIR="$D" PREFIX=$PREFIX 2>&1)
rc=$?
left=$(cd "$D" && find . ! -type d)
if [ $rc != 0 ]; then
	fail uninstall "make uninstall exit $rc: $(oneline "$out")"
elif [ -n "$left" ]; then
	fail uninstall "left behind: $(oneline "$left")"
elif [ -d "$OBJDIR" ]; then
	fail uninstall "left behind the empty ${OBJDIR#"$D"}"
else
	pass uninstall
fi

exit $failed
