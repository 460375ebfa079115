# README's commands, as a newcomer runs them: every command of README.md's
# shell code blocks (its trailing comment left out) must be in the table
# below, which says how this test runs it, or why it cannot; a command
# README gains that is in neither fails the test, and so does a command
# that fails. They run in README's order, in the test VM only (they install
# into /): sudo is the VM's root itself, and eth0 is a veth in a network
# namespace of its own, where README's commands run.
# BPFQDISC_README=FILE reads FILE instead, to see the test fail.
. "$(dirname "$0")/lib.sh"
README=${BPFQDISC_README:-$TOP/README.md}
[ "${VMTEST:-}" = 1 ] || skip "installs bpfqdisc into /: runs in the test VM only"
[ "$(id -u)" = 0 ] || fail "not root"

# How each command runs:
#   vm      as written, in namespace readme (eth0), sudo being the VM's root
#   install sudo make install: make stages it on the host with README's
#           PREFIX (the Makefile's .output/readme rule, make install
#           DESTDIR=.output/readme/root); here its files go onto the VM's /
#           and every one is removed at the end
#   inner   tools/vmtest -- CMD: CMD, in this VM (what tools/vmtest boots)
#   skip    not run, for the reason on the comment line above it
TABLE=$(cat <<'EOT'
# Installs packages and downloads kernels as root: the suite needs it done
# before it runs (.ci/run runs it, then make test).
skip sudo make deps
# The suite this test is part of.
skip make test
install sudo make install
vm sudo bpfqdisc load fq
vm sudo tc qdisc replace dev eth0 root bpf_fq quantum 3028
vm tc -s qdisc show dev eth0
vm sudo bpfqdisc qdisc change dev eth0 root maxrate 200mbit
vm sudo bpfqdisc qdisc show dev eth0 -s
vm sudo tc qdisc del dev eth0 root
vm sudo bpfqdisc unload fq
inner tools/vmtest -- tools/demo fq
# Edits the node's CNI conflist in /etc/cni/net.d, which the VM has none
# of; test_cni_conflist runs it on flannel's, Calico's and kindnet's.
skip sudo bpfqdisc-bandwidth conflist add
EOT
)

# README's commands: the lines of its ``` blocks without a language (or
# sh), comments and blank lines left out; a block in another language
# (yaml) is skipped to its closing fence.
readme_commands() {
	awk '/^```/ { if (inblock) { inblock = 0 } else if (other) { other = 0 } else if ($0 ~ /^```(sh|shell)?$/) { inblock = 1 } else { other = 1 }; next }
	     inblock { sub(/[ \t]+#.*$/, ""); sub(/^#.*$/, ""); sub(/[ \t]+$/, ""); if ($0 != "") print }' "$README"
}

W=$(mktemp -d)
STAGE=$TOP/.output/readme/root
installed=
cleanup() {
	[ -z "$installed" ] || (cd "$STAGE" && find . ! -type d) | while read -r f; do rm -f "/${f#./}"; done
	rm -rf "$W"
}
trap cleanup EXIT

readme_commands >"$W/readme"
[ -s "$W/readme" ] || fail "found no commands in README.md's code blocks"
# Each README command in the table, with a reason if skipped.
printf '%s\n' "$TABLE" | awk '
	/^#/ { why = 1; next }
	$1 == "skip" && !why { print "skip without a reason: " $0 }
	{ why = 0 }' >"$W/bad"
[ ! -s "$W/bad" ] || fail "the table: $(cat "$W/bad")"
while IFS= read -r cmd; do
	printf '%s\n' "$TABLE" | grep -v '^#' | cut -d' ' -f2- | grep -qxF -- "$cmd" ||
		fail "README runs '$cmd', which this test neither runs nor lists as skipped (add it to TABLE)"
done <"$W/readme"
# And nothing in the table that README no longer has.
stale=$(printf '%s\n' "$TABLE" | grep -v '^#' | cut -d' ' -f2- | while IFS= read -r cmd; do
	grep -qxF -- "$cmd" "$W/readme" || echo "'$cmd'"
done)
[ -z "$stale" ] || fail "TABLE lists $stale, which README no longer has"

# sudo, for the VM's root: the command itself.
mkdir "$W/bin"
printf '#!/bin/sh\nexec "$@"\n' >"$W/bin/sudo"
chmod +x "$W/bin/sudo"
ip netns add readme
ip -n readme link add eth0 type veth peer name eth1
ip -n readme link set eth0 up
ip -n readme link set eth1 up
# The installed plugin, as on a user's machine: none from the build tree.
unset TC_LIB_DIR

n=0
while IFS= read -r cmd; do
	how=$(printf '%s\n' "$TABLE" | grep -v '^#' | awk -v c="$cmd" '{ w = $1; sub(/^[^ ]+ /, ""); if ($0 == c) { print w; exit } }')
	case $how in
	skip) note "skipped: $cmd"; continue ;;
	install)
		[ -d "$STAGE" ] || fail "no $STAGE: make stages README's install on the host"
		installed=1
		cp -af "$STAGE/." / || fail "$cmd: copying $STAGE onto / failed"
		;;
	vm)
		out=$(PATH=$W/bin:$PATH nsenter --net=/run/netns/readme dash -c "$cmd" 2>&1) ||
			fail "README's '$cmd' failed: $(printf '%s\n' "$out" | tail -n 3)"
		;;
	inner)
		out=$(cd "$TOP" && PATH=$W/bin:$PATH dash -c "${cmd#tools/vmtest -- }" 2>&1) ||
			fail "README's '$cmd' failed: $(printf '%s\n' "$out" | tail -n 3)"
		;;
	*) fail "no way to run '$cmd' ('$how')" ;;
	esac
	n=$((n + 1))
	note "ran: $cmd"
done <"$W/readme"
[ $n -ge 5 ] || fail "ran only $n of README's commands"
