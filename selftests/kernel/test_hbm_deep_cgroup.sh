# bpf_hbm charges a socket to its nearest cgroup with a class among the
# first 32 levels of its ancestors (cgroup_key): a class on a cgroup at
# level 32 or deeper holds only that cgroup's own sockets, and a user it is
# delegated to escapes it by making a child. class add must refuse such a
# cgroup with one line, and take one at level 31; class del still
# names one. A path longer than class add reads is refused too, not cut
# to a shorter one that may be another cgroup (a delegated user's).
. "$(dirname "$0")/lib.sh"

CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CG" ] || skip "no cgroup2 mount"
# /hbmdeep is level 1; /hbmdeep/2/.../32 is level 32.
path=/hbmdeep
for i in $(seq 2 32); do path=$path/$i; done
deep=$path
level31=${deep%/32}
cleanup() {
	p=$deep
	while [ -n "$p" ]; do rmdir "$CG$p" 2>/dev/null || true; p=${p%/*}; done
	rmdir "$CG$cut" "$CG/hbmlong" 2>/dev/null || true
}
# $cut: the first 511 bytes of $CG$long, a cgroup of its own.
long=/hbmlong/$(printf '%0250d' 0)/$(printf '%0300d' 0)
cut=$(printf '%s' "$CG$long" | cut -c1-511)
cut=${cut#"$CG"}
trap cleanup EXIT
expect mkdir -p "$CG$deep" "$CG$cut"

veth_pair
expect "$BQ" load hbm
expect "$BQ" -n a qdisc add dev va root bpf_hbm
expect "$BQ" -n a class add dev va cgroup "$level31" rate 10mbit
out=$("$BQ" -n a class add dev va cgroup "$deep" rate 10mbit 2>&1) &&
	fail "class add took a cgroup at level 32, whose children escape it: $out"
note "level 32: $out"
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "not one line: $out"
# class del still names one, as an older bpfqdisc may have taken it.
out=$("$BQ" -n a class del dev va cgroup "$deep" 2>&1) || true
case $out in *"levels deep"*) fail "class del refused by depth: $out" ;; esac
"$BQ" -n a class show dev va | grep -q "/32 " && fail "a class on level 32 stayed: $("$BQ" -n a class show dev va)"
out=$("$BQ" -n a class add dev va cgroup "$long" rate 10mbit 2>&1) &&
	fail "class add of a ${#long}-byte path took a class: $("$BQ" -n a class show dev va)"
note "long path: $out"
exit 0
