# bpfqdisc stats: JSON checked by jq against tc's own numbers, Prometheus
# text checked by promtool, --interval repeats.
. "$(dirname "$0")/lib.sh"

expect "$BQ" load fifo
veth_pair
expect "$BQ" -n a qdisc add dev va root bpf_fifo
expect ip netns exec a ping -c 20 -i 0.05 -q $B >/dev/null

json=$("$BQ" -n a stats -j)
echo "$json" | jq -e 'length == 1 and .[0].kind == "bpf_fifo" and .[0].dev == "va"' >/dev/null ||
	fail "stats -j: $json"
# No GSO on ping: kernel and BPF count the same packets. A snapshot is two
# reads (netlink, then the map), and an IPv6 or ARP packet may leave between
# them; a miscount would show in every snapshot, so three are allowed.
# Where the kernel lets bpf_fifo take the bypass (tools/kernel-patches/0002,
# test_bypass), every ping finds it empty and only the kernel counts them.
same='.[0].packets >= 20 and .[0].bpf.dequeued == .[0].packets and .[0].bpf.dequeued_bytes == .[0].bytes'
qlen_max='[1-9][0-9]*'
if kernel_bypasses; then
	same='.[0].packets >= 20 and .[0].bpf.dequeued == 0 and .[0].bpf.dequeued_bytes == 0'
	qlen_max='0'
fi
for try in 1 2 3; do
	echo "$json" | jq -e "$same" >/dev/null && break
	[ $try = 3 ] && fail "BPF counters disagree with the kernel's: $json"
	sleep 0.5
	json=$("$BQ" -n a stats -j)
done
[ "$(tc_stat a va packets)" -ge "$(echo "$json" | "$JGET" '.[0].packets')" ] || fail "tc saw fewer packets"

# Each kind counts the framework's drop reasons and its own (BQ_DROP_REASONS),
# and no other kind's: bpf_fifo has no flow_limit, bpf_fq has one.
reasons=$(echo "$json" | jq -c '.[0].bpf.drops | keys')
[ "$reasons" = '["no_instance","nomem","overlimit"]' ] || fail "bpf_fifo's drop reasons: $reasons"
expect "$BQ" load fq
expect ip -n a link add vb2 type dummy
expect ip netns exec a tc qdisc add dev vb2 root bpf_fq
reasons=$("$BQ" -n a stats -j | jq -c '.[] | select(.dev == "vb2") | .bpf.drops | keys')
[ "$reasons" = '["flow_limit","horizon","no_instance","nomem","overlimit","pushed_out"]' ] || fail "bpf_fq's drop reasons: $reasons"
"$BQ" -n a stats --prometheus | grep -q '^bpfqdisc_drops_total{dev="vb2",kind="bpf_fq",.*,reason="flow_limit"} 0$' ||
	fail "no flow_limit sample for bpf_fq: $("$BQ" -n a stats --prometheus | grep drops_total)"
! "$BQ" -n a stats --prometheus | grep -q 'kind="bpf_fifo",.*reason="flow_limit"' ||
	fail "bpf_fifo has a flow_limit sample"
# Text and JSON print each field with one call (src/cli/print.c): stats
# says in text what stats -j says, rebuilt here from the JSON (options by
# name: text gives their values in units). Two reads, so three tries.
text_from_json='.[] | "qdisc \(.kind) \(.handle) dev \(.dev) \(if .parent == "root" then "root" else "parent \(.parent)" end)" +
	([.options // {} | keys_unsorted[] | " \(.)"] | join("")),
	" Sent \(.bytes) bytes \(.packets) pkt (dropped \(.drops), overlimits \(.overlimits) requeues \(.requeues))",
	" backlog \(.backlog)b \(.qlen)p requeues \(.requeues)",
	(.bpf // empty | " enqueued \(.enqueued) dequeued \(.dequeued) marks \(.marks) throttled \(.throttled) resets \(.resets)" +
	   (if .memory_bytes then " memory \(.memory_bytes)b" else "" end),
	 " drops" + ([.drops | to_entries[] | " \(.key) \(.value)"] | join("")),
	 ([del(.enqueued, .dequeued, .dequeued_bytes, .marks, .throttled, .resets, .drops, .memory_bytes) | to_entries[] |
	   " \(.key) \(.value)"] | join("") | select(. != "")))'
option_names='/^qdisc/ { n = $6 == "parent" ? 7 : 6; s = $1
	for (i = 2; i <= NF; i++) if (i <= n || (i - n) % 2) s = s " " $i
	print s; next } { print }'
for try in 1 2 3; do
	text=$("$BQ" -n a stats | awk "$option_names")
	from_json=$("$BQ" -n a stats -j | jq -r "$text_from_json")
	[ -n "$text" ] && [ "$text" = "$from_json" ] && break
	[ $try = 3 ] && fail "stats and stats -j disagree: text
$text
JSON as text
$from_json"
	sleep 0.5
done
expect ip -n a link del vb2

"$BQ" -n a stats --prometheus > /tmp/metrics
grep -q '^bpfqdisc_dequeued_total{dev="va",kind="bpf_fifo",netns="[0-9]*",ifindex="[0-9]*",parent="root",handle="[0-9a-f]*:"} [0-9]' /tmp/metrics ||
	fail "no dequeued sample: $(cat /tmp/metrics)"
grep -q "^bpfqdisc_fifo_qlen_max{dev=\"va\",kind=\"bpf_fifo\",netns=\"[0-9]*\",ifindex=\"[0-9]*\",parent=\"root\",handle=\"[0-9a-f]*:\"} $qlen_max\$" /tmp/metrics ||
	fail "no qlen_max sample: $(cat /tmp/metrics)"
if command -v promtool >/dev/null; then
	out=$(promtool check metrics < /tmp/metrics 2>&1) || fail "promtool: $out"
	[ -z "$out" ] || fail "promtool lint: $out"
else
	# The exposition format, strictly: HELP/TYPE comments and samples only.
	bad=$(grep -Ev '^# (HELP|TYPE) bpfqdisc_[a-z_]+ .+$|^bpfqdisc_[a-z_]+\{([a-z_]+="[^"]*",?)+\} [0-9]+$' /tmp/metrics)
	[ -z "$bad" ] || fail "malformed lines: $bad"
fi

n=$(timeout 3.5 "$BQ" -n a stats -j --interval 1 | wc -l)
[ "$n" -ge 3 ] || fail "--interval 1 printed $n reports in 3.5 s"
expect_err 2 "bad --interval '0'" "$BQ" stats --interval 0
expect_err 2 "unexpected 'bogus'" "$BQ" stats bogus
exit 0
