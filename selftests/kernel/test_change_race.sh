# Two bpfqdisc qdisc change at once, each of another parameter: both
# changes hold (a change read and merged the parameters before it took the
# lock, so the later writer put back the value the earlier one changed).
# A change refused as busy ("another bpfqdisc is changing") is repeated.
. "$(dirname "$0")/lib.sh"

expect "$BQ" load fq
veth_pair
expect "$BQ" -n a qdisc add dev va root bpf_fq

change() { # PARAM VALUE: until it is not refused as busy
	until "$BQ" -n a qdisc change dev va root "$1" "$2" 2>"$err.$1"; do
		grep -q "another bpfqdisc is changing" "$err.$1" || { cat "$err.$1"; return 1; }
	done
}

err=$(mktemp)
lost=0
for i in $(seq 1 20); do
	change limit $((1000 + i)) &
	a=$!
	change flow_limit $((100 + i)) &
	b=$!
	wait $a || fail "change limit failed"
	wait $b || fail "change flow_limit failed"
	got=$("$BQ" -n a qdisc show dev va -j | jq -r '.[0].options | "\(.limit) \(.flow_limit)"')
	[ "$got" = "$((1000 + i)) $((100 + i))" ] || {
		note "round $i: limit flow_limit $got, expected $((1000 + i)) $((100 + i))"
		lost=$((lost + 1))
	}
done
[ $lost = 0 ] || fail "$lost of 20 rounds lost a change"
