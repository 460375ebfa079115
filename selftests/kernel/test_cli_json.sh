# Names from users (a delegated cgroup's, a device's) stay strings in the
# admin's output: class show -j and qdisc show -j parse as the same rows with
# the names intact, stats --prometheus passes promtool, and text output
# (qdisc show, stats, list, class show) writes their odd bytes as \ooo.
. "$(dirname "$0")/lib.sh"

CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CG" ] || skip "no cgroup2 mount"
hostile='x","id":1,"rate":0,"class":false,"y":"\'
esc=$(printf 'd\033x')
cleanup() { rmdir "$CG/$hostile" "$CG/$esc" 2>/dev/null || true; }
trap cleanup EXIT
mkdir "$CG/$hostile" "$CG/$esc"

expect "$BQ" load hbm
veth_pair
expect "$BQ" -n a qdisc add dev va root bpf_hbm rate 1mbit classify 0
expect "$BQ" -n a class add dev va cgroup "/$hostile" rate 10mbit
show=$("$BQ" -n a class show dev va -j)
# printf, not dash's echo, which would turn the backslashes into escapes.
printf '%s\n' "$show" | jq -e --arg n "/$hostile" \
	'map(select(.class)) | length == 1 and .[0].cgroup == $n and .[0].rate == 1250000 and
	 (.[0] | has("y") | not)' \
	>/dev/null || fail "class show -j with a hostile cgroup name: $show"

# A device name may hold quotes, backslashes and control characters.
dev=$(printf 'd"\\\001}')
expect ip -n a link add "$dev" type dummy
expect ip -n a link set "$dev" up
expect "$BQ" -n a qdisc add dev "$dev" root bpf_hbm rate 1mbit
show=$("$BQ" -n a qdisc show -j)
printf '%s\n' "$show" | jq -e --arg d "$dev" 'map(select(.dev == $d and .kind == "bpf_hbm")) | length == 1' \
	>/dev/null || fail "qdisc show -j with a hostile device name: $show"
prom=$("$BQ" -n a stats --prometheus)
lint=$(printf '%s\n' "$prom" | promtool check metrics 2>&1 || true)
# Issue 38.13: not a word from promtool, warnings included.
[ -z "$lint" ] || fail "promtool: $lint"
n=$(printf '%s\n' "$prom" | grep -c '^bpfqdisc_sent_packets_total{')
[ "$n" = 2 ] || fail "$n sent_packets_total series for 2 qdiscs: $prom"

# Text: an escape byte in a device's and a cgroup's name reaches no terminal.
# raw_controls: control bytes but newlines in stdin.
raw_controls() { LC_ALL=C tr -d '\n' | LC_ALL=C tr -dc '\000-\037\177' | wc -c; }
expect ip -n a link add "$esc" type dummy
expect ip -n a link set "$esc" up
expect "$BQ" -n a qdisc add dev "$esc" root bpf_hbm rate 1mbit classify 0
expect "$BQ" -n a class add dev "$esc" cgroup "/$esc" rate 10mbit
for cmd in "qdisc show" "stats" "list" "class show dev $esc"; do
	# shellcheck disable=SC2086
	out=$("$BQ" -n a $cmd) || fail "bpfqdisc $cmd failed: $out"
	n=$(printf '%s\n' "$out" | raw_controls)
	[ "$n" = 0 ] || fail "bpfqdisc $cmd wrote $n raw control bytes: $(printf '%s\n' "$out" | od -c | head -20)"
	printf '%s\n' "$out" | grep -qF 'd\033x' || fail "bpfqdisc $cmd: no d\\033x in: $out"
	# printf: note's echo (dash) would turn \033 back into the byte.
	printf '# bpfqdisc %s: %s\n' "${cmd%% dev *}" "$(printf '%s\n' "$out" | grep -F 'd\033x' | head -1)"
done
