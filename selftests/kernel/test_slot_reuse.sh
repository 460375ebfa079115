# A write to a slot looked up earlier, whose qdisc tc deleted in between
# and replaced by another in the same slot: `qdisc change` and `class add`
# refuse it by the slot's generation, and the new qdisc keeps its defaults
# and has no class. The kinds are loaded with one slot, so the new qdisc
# must take the old one's. BPFQDISC_STOP_AT=write stops the CLI between its
# lookup and its write (bq_stop_at); the test replaces the qdisc there and
# lets it go on.
. "$(dirname "$0")/lib.sh"
PINS=/sys/fs/bpf/bpfqdisc

# replaced_meanwhile KIND CMD...: CMD (a bpfqdisc writer in netns a) is
# stopped before its write while va's root KIND is made anew by tc; its
# exit status in $rc, its stderr in $out.
replaced_meanwhile() {
	kind=$1
	shift
	err=$(mktemp)
	BPFQDISC_STOP_AT=write "$@" 2>"$err" &
	pid=$!
	wait_stopped $pid || fail "'$*' did not stop before its write: $(cat "$err")"
	expect ip netns exec a tc qdisc del dev va root
	expect ip netns exec a tc qdisc add dev va root "$kind"
	kill -CONT $pid
	set +e
	wait $pid
	rc=$?
	set -e
	out=$(cat "$err")
	note "$kind: '$*' with its qdisc replaced: exit $rc: $out"
}

# refused WHAT: the writer failed, in one line saying its qdisc was replaced.
refused() {
	[ "$rc" != 0 ] || fail "$1 succeeded on the qdisc that replaced its own"
	[ "$(echo "$out" | wc -l)" = 1 ] || fail "$1 printed more than one line: $out"
	echo "$out" | grep -q "on va was replaced meanwhile" ||
		fail "$1 said '$out', expected that its qdisc was replaced"
}

veth_pair

# qdisc change: the new bpf_fq keeps the default limit (10000).
expect "$BQ" load fq --max-instances 1
expect "$BQ" -n a qdisc add dev va root bpf_fq limit 500
replaced_meanwhile bpf_fq "$BQ" -n a qdisc change dev va root limit 1234
limit=$("$BQ" -n a qdisc show dev va -j | "$JGET" '.[0].options.limit')
[ "$limit" = 10000 ] || fail "the new bpf_fq has limit $limit: the change meant for the old one reached it"
refused "qdisc change"
expect ip netns exec a tc qdisc del dev va root
expect "$BQ" unload fq

# class add: the new bpf_hbm has no class (hbm_classes stays empty).
expect "$BQ" load hbm --max-instances 1
expect "$BQ" -n a qdisc add dev va root bpf_hbm classify 1
replaced_meanwhile bpf_hbm "$BQ" -n a class add dev va mark 5 rate 10mbit
classes=$(bpftool map dump pinned "$PINS/hbm/hbm_classes" -j | jq length)
[ "$classes" = 0 ] || fail "hbm_classes holds $classes class(es): the class meant for the old qdisc reached the new one"
refused "class add"
# What a write that raced the replace past both checks would leave: a class
# under the slot (0) but another qdisc's generation (1). The new bpf_hbm
# never reads it: mark 5's packets see its default rate, 0 (unlimited).
expect "$BQ" -n a qdisc change dev va root classify 1
expect bpftool map update pinned "$PINS/hbm/hbm_classes" \
	key 0 0 0 0 0 0 0 0 1 0 0 0 0 0 0 0 5 0 0 0 0 0 0 0 value 0xd0 0x12 0x13 0 0 0 0 0
expect ip netns exec a ping -q -c 3 -i 0.05 -m 5 $B >/dev/null
# An aggregate starts with its struct hbm_agg_info: id, then the rate its
# last packet saw (8 bytes each, little-endian).
seen=$(bpftool -j map dump pinned "$PINS/hbm/hbm_aggs" | jq -r '[.[].value |
	select(.[0:8] == ["0x05","0x00","0x00","0x00","0x00","0x00","0x00","0x00"]) | .[8:16] | join(" ")] | .[0]')
[ "$seen" != null ] || fail "no aggregate for mark 5 in hbm_aggs"
[ "$seen" = "0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00" ] ||
	fail "mark 5's packets saw rate bytes $seen: the new bpf_hbm read a class of another generation"
expect ip netns exec a tc qdisc del dev va root
expect "$BQ" unload hbm
