#!/bin/dash
# bpfqdisc-bandwidth conflist add, the node installer, on the conflists
# flannel, Calico and kindnet write (selftests/cli/cni-conflists): the
# plugin in place of "bandwidth" (its other fields kept) or right after the
# main plugin, every other field as it was, the file's mode kept, a second
# run changing no byte; and in a directory, the first config by name, as
# the runtime picks it. Needs no root. One PASS/FAIL line per check.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PLUGIN="$TOP/bin/bpfqdisc-bandwidth"
FIX="$TOP/selftests/cli/cni-conflists"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
. "$TOP/selftests/cli/lib.sh"

# case NAME FILE TYPES: after conflist add, the plugin types are TYPES.
case_() {
	name=$1 src=$FIX/$2 want=$3
	f=$D/$2
	cp "$src" "$f"
	chmod 0640 "$f"
	out=$("$PLUGIN" conflist add "$f" 2>&1) || { fail "$name" "exit $?: $out"; return; }
	got=$(jq -c '[.plugins[].type]' "$f" 2>&1)
	[ "$got" = "$want" ] || { fail "$name" "types $got, expected $want ($out)"; return; }
	# Everything but the plugin's entry (or, where it replaced the
	# reference's, its type) is as it was.
	i=$(jq '[.plugins[].type] | index("bpfqdisc-bandwidth")' "$f")
	if jq -e '[.plugins[].type] | index("bandwidth")' "$src" >/dev/null; then
		rest=$(jq -S ".plugins[$i].type = \"bandwidth\"" "$f")
	else
		rest=$(jq -S "del(.plugins[$i])" "$f")
	fi
	[ "$rest" = "$(jq -S . "$src")" ] || { fail "$name" "other content changed"; return; }
	jq -e ".plugins[$i].capabilities.bandwidth == true" "$f" >/dev/null ||
		{ fail "$name" "no bandwidth capability"; return; }
	[ "$(stat -c %a "$f")" = 640 ] || { fail "$name" "mode $(stat -c %a "$f"), was 640"; return; }
	sum=$(md5sum <"$f")
	out=$("$PLUGIN" conflist add "$f" 2>&1) || { fail "$name" "second run: exit $?: $out"; return; }
	[ "$(md5sum <"$f")" = "$sum" ] || { fail "$name" "second run changed the file"; return; }
	echo "$out" | grep -q 'already there' || { fail "$name" "second run said: $out"; return; }
	pass "$name"
}

case_ conflist_flannel 10-flannel.conflist '["flannel","bpfqdisc-bandwidth","portmap"]'
case_ conflist_calico 10-calico.conflist '["calico","portmap","bpfqdisc-bandwidth"]'
case_ conflist_kindnet 10-kindnet.conflist '["ptp","bpfqdisc-bandwidth","portmap"]'

# A directory: the first config by name, as containerd and CRI-O pick it.
mkdir "$D/net.d"
cp "$FIX/10-kindnet.conflist" "$D/net.d/20-kindnet.conflist"
cp "$FIX/10-flannel.conflist" "$D/net.d/10-flannel.conflist"
echo junk >"$D/net.d/05-notes.txt"
out=$("$PLUGIN" conflist add "$D/net.d" 2>&1)
if [ "$(jq -c '[.plugins[].type]' "$D/net.d/10-flannel.conflist")" = '["flannel","bpfqdisc-bandwidth","portmap"]' ] &&
	cmp -s "$FIX/10-kindnet.conflist" "$D/net.d/20-kindnet.conflist" &&
	[ -z "$(ls -A "$D/net.d" | grep -v -e conflist -e notes)" ]; then
	pass conflist_dir
else
	fail conflist_dir "$out; $(ls -A "$D/net.d")"
fi

# Refusals: one line, non-zero, the file untouched.
refuses() { # name regex content
	printf '%s' "$3" >"$D/bad.conflist"
	err=$("$PLUGIN" conflist add "$D/bad.conflist" 2>&1 >/dev/null)
	rc=$?
	if [ $rc = 0 ] || ! echo "$err" | grep -Eq "$2" || [ "$(echo "$err" | wc -l)" != 1 ] ||
		[ "$(cat "$D/bad.conflist")" != "$3" ]; then
		fail "$1" "exit $rc: $err"
	else
		pass "$1"
	fi
}
refuses conflist_single '"plugins" array' '{"cniVersion":"0.4.0","name":"n","type":"bridge"}'
refuses conflist_broken 'not JSON' '{"cniVersion":"0.4.0","plugins":[{"type":"a"}'
refuses conflist_old 'cniVersion' '{"cniVersion":"0.2.0","plugins":[{"type":"a"}]}'
mkdir "$D/empty"
err=$("$PLUGIN" conflist add "$D/empty" 2>&1 >/dev/null)
if [ $? != 0 ] && echo "$err" | grep -q 'no CNI config'; then pass conflist_none; else fail conflist_none "$err"; fi

exit $failed
