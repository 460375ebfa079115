#!/bin/dash
# The framework outside the tree: make install into a scratch DESTDIR, then
# `bpfqdisc new` writes a qdisc in a directory outside the tree, and clang
# builds it with only pkg-config --cflags bpfqdisc (PKG_CONFIG_PATH into the
# DESTDIR) while the tree is hidden under an empty tmpfs, in a mount
# namespace of its own: no header can come from it. The object must carry
# the framework's tables and version. Also: `new` refuses bad input, and
# the loader refuses objects built for another framework version
# (bin/bpfqdisc_fwtest). The kernel test test_load_object loads such an
# object (`bpfqdisc load PATH`), built by the Makefile the same way.
# Needs no BPF qdisc kernel. One PASS/FAIL line per check.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
D=$(mktemp -d)
W=$(mktemp -d)
trap 'rm -rf "$D" "$W"' EXIT
. "$TOP/selftests/cli/lib.sh"

# What make deps installs: their absence is a failure, not a reason to skip.
CLANG=$(command -v clang-19)
for tool in "$CLANG" pkg-config readelf unshare; do
	command -v "$tool" >/dev/null || { fail framework_tools "$tool missing: run make deps"; exit 1; }
done

out=$(mk install DESTDIR="$D" PREFIX=/usr 2>&1) ||
	{ fail framework_install "make install: $(oneline "$(printf '%s\n' "$out" | tail -n 5)")"; exit 1; }
BQ=$D/usr/sbin/bpfqdisc

# new: the start of a qdisc, in a directory that is not the tree's.
out=$(cd "$W" && "$BQ" new myq 2>&1)
if [ $? = 0 ] && [ -f "$W/myq.bpf.c" ] && grep -q 'BQ_QDISC_OPS(myq,' "$W/myq.bpf.c"; then
	pass new_writes
else
	fail new_writes "bpfqdisc new myq: $(oneline "$out")"
fi
# Its build line, printed and in the file, names the compiler make deps
# installs: Debian's clang-19 provides no clang (issue 38.9).
if printf '%s\n' "$out" | grep -q '^  clang-19 -target bpf ' && grep -q '[*]	clang-19 -target bpf ' "$W/myq.bpf.c"; then
	pass new_clang19
else
	fail new_clang19 "bpfqdisc new myq said '$(oneline "$out")'; the file: $(oneline "$(grep -- '-target bpf' "$W/myq.bpf.c")")"
fi

check_new() { # name expected_exit regex args...
	name=$1 code=$2 re=$3
	shift 3
	err=$(cd "$W" && "$BQ" new "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" != "$code" ]; then
		fail "$name" "exit $rc, expected $code: $err"
	elif ! printf '%s\n' "$err" | grep -Eq -- "$re" || [ "$(printf '%s\n' "$err" | wc -l)" != 1 ]; then
		fail "$name" "said '$(oneline "$err")', expected one line /$re/"
	else
		pass "$name"
	fi
}
sum=$(md5sum <"$W/myq.bpf.c")
check_new new_exists 1 "cannot create myq.bpf.c: File exists" myq
[ "$(md5sum <"$W/myq.bpf.c")" = "$sum" ] || fail new_exists_kept "myq.bpf.c was changed"
# A symlink in its place is not followed: nothing is written through it.
ln -s "$W/elsewhere" "$W/sym.bpf.c"
check_new new_symlink 1 "cannot create sym.bpf.c: File exists" sym
[ ! -e "$W/elsewhere" ] || fail new_symlink_kept "new wrote through the symlink sym.bpf.c"
rm "$W/sym.bpf.c"
check_new new_builtin 2 "bad qdisc name 'fifo': a built-in kind has that name" fifo
check_new new_param 2 "bad qdisc name 'quantum': a parameter has that name" quantum
check_new new_bad_char 2 "bad qdisc name 'my-q': expected a lowercase letter" my-q
check_new new_upper 2 "bad qdisc name 'Myq'" Myq
# load's name rules (issue 38.10): hbm and digits are hbm's pin directories.
check_new new_hbm_digits 2 "bad qdisc name 'hbm1'" hbm1
check_new new_path 2 "bad qdisc name '../x'" ../x
check_new new_long 2 "bad qdisc name 'abcdefghijkl': expected 1 to 11 characters" abcdefghijkl
check_new new_empty 2 "bad qdisc name '': expected 1 to 11" ""
check_new new_no_name 2 "usage: bpfqdisc new NAME" 
[ "$(cd "$W" && ls)" = myq.bpf.c ] || fail new_no_litter "files left: $(oneline "$(ls "$W")")"

# The build, with the tree out of reach: only the DESTDIR's .pc, its
# headers, and libbpf's from the system (its own .pc, which bpfqdisc.pc
# requires). -MD lists every header clang read; -Wall: not a warning.
export PKG_CONFIG_PATH="$D/usr/lib/pkgconfig"
cflags=$(pkg-config --cflags bpfqdisc 2>&1) || { fail framework_pkgconfig "$cflags"; exit 1; }
case $cflags in
*"$TOP"*) fail framework_pkgconfig "cflags name the tree: $cflags" ;;
*) pass framework_pkgconfig ;;
esac
[ "$(id -u)" = 0 ] && ns="unshare -m" || ns="unshare -rm"
# shellcheck disable=SC2086 # cflags are words
out=$(cd "$W" && $ns sh -c 'mount -t tmpfs none "$1" && shift && "$@"' sh "$TOP" \
	"$CLANG" -target bpf -O2 -g $cflags -Wall -MD -MF myq.d -c myq.bpf.c -o myq.bpf.o 2>&1)
rc=$?
if [ $rc != 0 ] || [ ! -s "$W/myq.bpf.o" ] || [ -n "$out" ]; then
	fail framework_build "exit $rc: $(oneline "$(printf '%s\n' "$out" | head -n 5)")"
	exit 1
elif grep -q "$TOP" "$W/myq.d" || ! grep -q "$D/usr/lib/pkgconfig/../../include/bq/core.bpf.h" "$W/myq.d"; then
	fail framework_build "headers not from $D: $(oneline "$(grep -o '[^ ]*\.h' "$W/myq.d" | head)")"
else
	pass framework_build
fi

# new --rank: a kind made of a rank function (bpf_sp's source), which builds
# the same way, from the installed rank part.
out=$(cd "$W" && "$BQ" new myr --rank 2>&1 >/dev/null) &&
	grep -q 'BQ_RANK_QDISC(myr, struct myr_sched, myr_rank,' "$W/myr.bpf.c" &&
	! grep -v "from bpf_sp's source" "$W/myr.bpf.c" | grep -q '\<sp_\|bpf_sp\>' &&
	# shellcheck disable=SC2086 # cflags are words
	out=$(cd "$W" && $ns sh -c 'mount -t tmpfs none "$1" && shift && "$@"' sh "$TOP" \
		"$CLANG" -target bpf -O2 -g $cflags -Wall -c myr.bpf.c -o myr.bpf.o 2>&1) &&
	[ -z "$out" ] && readelf -x .struct_ops.link "$W/myr.bpf.o" | grep -q 'bpf_myr' &&
	pass new_rank_build || fail new_rank_build "$(oneline "$out")"

# Its framework sections: the tables the loader reads, the version first.
secs=$(readelf -SW "$W/myq.bpf.o" | grep -o '\.rodata\.bq_[a-z]*\|\.struct_ops\.link' | sort -u | tr '\n' ' ')
want=".rodata.bq_maps .rodata.bq_params .rodata.bq_version .rodata.bq_xstats .struct_ops.link "
[ "$secs" = "$want" ] && pass framework_sections || fail framework_sections "sections '$secs', expected '$want'"
ver=$(readelf -x .rodata.bq_version "$W/myq.bpf.o" | sed -n 's/^ *0x0*0 \([0-9a-f]* [0-9a-f]*\) .*/\1/p')
want=$("$BQ" --version | sed -n 's/.*(framework \([0-9]*\)\.\([0-9]*\))$/\1 \2/p' |
	{ read -r ma mi; printf '%02x000000 %02x000000' "$ma" "$mi"; })
[ -n "$ver" ] && [ "$ver" = "$want" ] && pass framework_version ||
	fail framework_version ".rodata.bq_version holds '$ver', expected '$want' (bpfqdisc --version)"
if readelf -p .rodata.bq_params "$W/myq.bpf.o" | grep -q ' limit$' &&
	readelf -x .struct_ops.link "$W/myq.bpf.o" | grep -q 'bpf_myq'; then
	pass framework_tables
else
	fail framework_tables "no parameter 'limit' or no kind bpf_myq in the object"
fi

# Objects built for a framework this loader cannot read: refused before
# their tables are read, with both versions named (bpfqdisc_fwtest's kinds).
FW=$TOP/bin/bpfqdisc_fwtest
fw=$("$BQ" --version | sed -n 's/.*(framework \([0-9.]*\))$/\1/p')
major=${fw%.*} minor=${fw#*.}
check_refused() { # name expected_message command...
	name=$1 re=$2
	shift 2
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc != 1 ] || ! printf '%s\n' "$err" | grep -qx -- "$re"; then
		fail "$name" "exit $rc, said '$(oneline "$err")', expected exit 1 and '$re'"
	else
		pass "$name"
	fi
}
reads="this bpfqdisc reads $major.0 to $major.$minor"
check_refused version_major "bpfqdisc: bpf_fwmajor was built for the bpfqdisc framework $((major + 1)).$minor; $reads" \
	"$FW" params fwmajor
check_refused version_minor "bpfqdisc: bpf_fwminor was built for the bpfqdisc framework $major.$((minor + 1)); $reads" \
	"$FW" params fwminor
# load refuses before it looks at privileges, the kernel or the pins.
check_refused version_load "bpfqdisc: bpf_fwmajor was built for the bpfqdisc framework $((major + 1)).$minor; $reads" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$FW" load fwmajor
# An object of a minor before 2.2 ignores --user-slots: user namespaces
# only with no bound per user, said before privileges are looked at.
old="bpfqdisc: bpf_fw21 was built for the bpfqdisc framework 2.1, which cannot bound user namespaces per user: rebuild it, or give --user-slots 4"
err=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$FW" load fw21 --userns-slots 4 2>&1 >/dev/null)
rc=$?
[ $rc = 2 ] && [ "$err" = "$old" ] && pass user_slots_old ||
	fail user_slots_old "exit $rc, said '$(oneline "$err")', expected exit 2 and '$old'"
err=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$FW" load fw21 --userns-slots 4 --user-slots 4 2>&1 >/dev/null)
printf '%s\n' "$err" | grep -q "missing capability" && pass user_slots_old_none ||
	fail user_slots_old_none "with --user-slots 4 it said '$(oneline "$err")', expected the capability check next"

exit $failed
