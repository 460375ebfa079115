#!/bin/dash
# make in a fresh clone, before make deps: a copy of the tree's files (as
# git tracks them, with this tree's changes) and no .cache. make must stop
# with its own one-line advice, "run 'make deps'", and a non-zero exit,
# not with make's "No rule to make target '.cache/kernel/default/vmlinux'".
# Also with a .cache whose libbpf is there but whose kernel is not. And
# make deps takes KERNEL as make's argument, which sudo passes on (sudo
# drops it from the environment): tools/setup must get it.
# Needs no root. One PASS/FAIL line per check.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$TOP/selftests/cli/lib.sh"

git -C "$TOP" ls-files -z | tar -C "$TOP" --null -T - -cf - | tar -C "$T" -xf - ||
	{ fail fresh_copy "cannot copy the tree's files to $T"; exit 1; }
[ ! -e "$T/.cache" ] || { fail fresh_copy ".cache is a tracked file"; exit 1; }

# fresh_make NAME ARGS...: make in the copy fails, advising make deps.
fresh_make() {
	name=$1
	shift
	out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$T" --no-print-directory "$@" 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		fail "$name" "make exited 0"
	elif ! printf '%s\n' "$out" | grep -q "run 'make deps'"; then
		fail "$name" "exit $rc without \"run 'make deps'\": $(oneline "$(printf '%s\n' "$out" | tail -n 3)")"
	elif printf '%s\n' "$out" | grep -q 'No rule to make target'; then
		fail "$name" "$(printf '%s\n' "$out" | grep 'No rule to make target')"
	else
		pass "$name"
	fi
}

fresh_make fresh_make
rm -rf "$T/.output" "$T/bin"
fresh_make fresh_make_no_kernel LIBBPF_DIR="$TOP/.cache/libbpf" KERNEL_DIR="$T/.cache/kernel/default"
# tools/setup replaced, in the copy, by one that says what it got.
printf '#!/bin/sh\necho "KERNEL=$KERNEL $*"\n' >"$T/tools/setup"
out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u KERNEL make -C "$T" --no-print-directory deps KERNEL=7.2.13+deb14 2>&1)
if printf '%s\n' "$out" | grep -q '^KERNEL=7.2.13+deb14 '; then
	pass deps_kernel
else
	fail deps_kernel "make deps KERNEL=7.2.13+deb14 ran tools/setup with: $(oneline "$out")"
fi
exit $failed
