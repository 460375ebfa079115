#!/bin/dash
# make deb into a scratch directory: the two packages are named by
# bpfqdisc --version, hold between them exactly the files of make install
# PREFIX=/usr (the man page gzip'd, plus the copyright, changelog and
# lintian override that Debian's policy asks for), the framework in
# bpfqdisc-dev only, a packaged bpfqdisc runs, and lintian finds no error.
# Needs no root and no BPF qdisc kernel. One PASS/FAIL line per check.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$TOP/selftests/cli/lib.sh"

# make deps installs these: missing, they fail the test rather than skip it.
for tool in dpkg-deb dpkg-shlibdeps lintian; do
	command -v $tool >/dev/null || { fail deb_tools "$tool missing: run make deps"; exit 1; }
done

version=$("$TOP/bin/bpfqdisc" --version | sed -n 's/^bpfqdisc \([^ ]*\) .*/\1/p')
out=$(mk deb DEB_DIR="$T/out" 2>&1)
rc=$?
MAIN=$T/out/bpfqdisc_${version}_amd64.deb
DEV=$T/out/bpfqdisc-dev_${version}_amd64.deb
if [ $rc != 0 ]; then
	fail deb_build "make deb exit $rc: $(oneline "$(printf '%s\n' "$out" | tail -n 5)")"
	exit 1
elif [ -z "$version" ] || [ ! -f "$MAIN" ] || [ ! -f "$DEV" ]; then
	fail deb_build "no $(basename "$MAIN") and $(basename "$DEV") (bpfqdisc --version: '$version'): $(oneline "$(ls "$T/out")")"
	exit 1
fi
pass deb_build

# The files of each package, without the leading ./ of dpkg-deb -c.
files() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { sub(/^\.\//, "", $6); print $6 }' | sort; }

mk install DESTDIR="$T/inst" PREFIX=/usr >/dev/null 2>&1 || { fail deb_files "make install failed"; exit 1; }
want=$(cd "$T/inst" && find . ! -type d | sed 's|^\./||' | sort)
policy=$(printf '%s\n' usr/share/doc/bpfqdisc/changelog.gz usr/share/doc/bpfqdisc/copyright \
	usr/share/doc/bpfqdisc-dev/changelog.gz usr/share/doc/bpfqdisc-dev/copyright \
	usr/share/lintian/overrides/bpfqdisc | sort)
got=$({ files "$MAIN"; files "$DEV"; } | sed 's|^\(usr/share/man/.*\)\.gz$|\1|' | sort)
printf '%s\n' "$want" >"$T/want"
printf '%s\n%s\n' "$want" "$policy" | sort >"$T/want+policy"
printf '%s\n' "$got" >"$T/got"
if cmp -s "$T/want+policy" "$T/got"; then
	pass deb_files
else
	fail deb_files "packages differ from make install (+ policy files): $(oneline "$(diff "$T/want+policy" "$T/got" | grep '^[<>]')")"
fi

# The framework in -dev, nothing else of the install there.
dev=$(files "$DEV" | grep -v '^usr/share/doc/bpfqdisc-dev/')
stray=$(printf '%s\n' "$dev" | grep -v '^usr/include/\|^usr/lib/pkgconfig/bpfqdisc\.pc$' |
	grep -v '^usr/lib/[^/]*/\(libbpfqdisc\.so\|libbpfqdisc\.a\|pkgconfig/libbpfqdisc\.pc\)$' |
	grep -v '^usr/share/man/man3/libbpfqdisc\.3\.gz$')
if [ -n "$stray" ] || ! printf '%s\n' "$dev" | grep -qx usr/include/bq/core.bpf.h; then
	fail deb_split "bpfqdisc-dev holds $(oneline "$dev")"
else
	pass deb_split
fi

# What dpkg would install runs: the stripped CLI, with its version.
dpkg-deb -x "$MAIN" "$T/x"
if [ "$("$T/x/usr/sbin/bpfqdisc" --version 2>&1)" = "$("$TOP/bin/bpfqdisc" --version)" ] &&
	[ "$(dpkg-deb -f "$MAIN" Version)" = "$version" ]; then
	pass deb_runs
else
	fail deb_runs "packaged bpfqdisc --version: $("$T/x/usr/sbin/bpfqdisc" --version 2>&1)"
fi

# Every x86-64 ELF file of the packages stripped (Debian policy 10.1; the BPF
# objects keep their BTF): no symbol table and no debug sections; the static
# library, whose symbols a link needs, no debug sections. lintian says so
# too, but this names the file, and fails on each build that ships one.
dpkg-deb -x "$DEV" "$T/x"
unstripped=$(find "$T/x" -type f | while read -r f; do
	h=$(readelf -h "$f" 2>/dev/null) || continue
	case $h in *"Machine:"*"X86-64"*) ;; *) continue ;; esac
	case $h in *"Type:"*"REL "*) sections='debug_[a-z]*' ;; *) sections='symtab|debug_[a-z]*' ;; esac
	! readelf -S -W "$f" | grep -Eq " \\.($sections) " || printf ' %s' "${f#"$T/x/"}"
done)
elves=$(find "$T/x" -type f -exec sh -c 'readelf -h "$1" 2>/dev/null | grep -q "X86-64"' sh {} \; -print | wc -l)
if [ -n "$unstripped" ]; then
	fail deb_stripped "unstripped:$unstripped"
elif [ "$elves" -lt 3 ]; then
	fail deb_stripped "found $elves x86-64 ELF files, expected bpfqdisc, hbm and q_bpf.so"
else
	pass deb_stripped
fi

# lintian's errors; warnings are allowed (docs/writing-a-qdisc.md lists them).
out=$(lintian "$MAIN" "$DEV" 2>&1)
rc=$?
errors=$(printf '%s\n' "$out" | grep '^E: ')
if [ -n "$errors" ] || [ $rc -gt 2 ]; then
	fail deb_lintian "exit $rc: $(oneline "${errors:-$out}")"
else
	pass deb_lintian
fi

exit $failed
