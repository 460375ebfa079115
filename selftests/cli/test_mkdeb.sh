#!/bin/bash
# tools/mkdeb's classifier of the files it strips, host_elf, sourced from
# mkdeb itself: true for x86-64 executables and shared objects, false for
# BPF objects and anything else, and never a broken pipe. With readelf's
# header piped into grep -q under pipefail, grep's early exit killed the
# writer (SIGPIPE, exit 141) in 10 of 400 calls on a busy host, and make
# deb then shipped an unstripped binary. A readelf whose header runs past
# a pipe's buffer makes that exit certain rather than rare; the real one
# is then called many times. Needs no root. One PASS/FAIL line per check.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$TOP/selftests/cli/lib.sh"

ELF=$TOP/bin/bpfqdisc BPF=$TOP/.output/fifo.bpf.o
for f in "$ELF" "$BPF"; do
	[ -s "$f" ] || { fail mkdeb_inputs "no $f: run make"; exit 1; }
done
printf 'not an ELF\n' >"$T/text"

# classify FILE...: host_elf's verdict on each, "yes", "no" or "exit N".
classify() {
	bash -c '. "$1" && set +e && shift && for f; do host_elf "$f"; rc=$?
		case $rc in 0) echo yes ;; 1) echo no ;; *) echo "exit $rc" ;; esac; done' \
		test_mkdeb "$TOP/tools/mkdeb" "$@" 2>&1
}

got=$(classify "$ELF" "$BPF" "$T/text" "$T/missing" | paste -sd' ')
if [ "$got" = "yes no no no" ]; then
	pass mkdeb_host_elf
else
	fail mkdeb_host_elf "bin/bpfqdisc, fifo.bpf.o, a text file, a missing file: '$got', expected 'yes no no no'"
fi

# The header and 200000 lines more: 5 MB, far past a pipe's 64 kB.
mkdir "$T/bin"
cat >"$T/bin/readelf" <<EOS
#!/bin/sh
$(command -v readelf) "\$@" || exit
yes '  Padding:                           past a pipe buffer' | head -n 200000
EOS
chmod +x "$T/bin/readelf"
got=$(PATH=$T/bin:$PATH classify "$ELF" "$ELF" "$BPF" | paste -sd' ')
if [ "$got" = "yes yes no" ]; then
	pass mkdeb_host_elf_long_header
else
	fail mkdeb_host_elf_long_header "with a 5 MB header: '$got', expected 'yes yes no' (141: SIGPIPE)"
fi

# The real readelf, 4 callers side by side 100 times each.
for i in 1 2 3 4; do
	classify $(yes "$ELF" | head -n 100) >"$T/run$i" &
done
wait
got=$(cat "$T"/run? | sort | uniq -c | sed 's/^ *//' | paste -sd,)
if [ "$got" = "400 yes" ]; then
	pass mkdeb_host_elf_repeat
else
	fail mkdeb_host_elf_repeat "400 calls on bin/bpfqdisc: $got"
fi
exit $failed
