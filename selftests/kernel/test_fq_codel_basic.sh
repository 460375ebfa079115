# bpf_fq_codel carries traffic like the kernel's fq_codel (ping and TCP over
# veth), counts what tc -s shows for fq_codel, takes every parameter
# through bpfqdisc qdisc add/change with fq_codel's units and defaults, and
# refuses bad input with one line, changing nothing.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

opt() { "$BQ" -n a qdisc show dev va -j | "$JGET" ".[0].options.$1"; }

modprobe sch_fq_codel 2>/dev/null || true
expect "$BQ" load fq_codel
veth_pair
quiet_va	# the counts at rest below are the test's traffic alone
for kind in fq_codel bpf_fq_codel; do
	m=$(carries $kind)	# fails the test, where inside note's words it would not
	note "$kind: 1 TCP flow, $m Mbit/s"
done
[ "$(tc_stat a va packets)" -gt 1000 ] || fail "carried $(tc_stat a va packets) packets"
tcp_quiet a || fail "TCP sockets still sending: $(ip netns exec a ss -tan)"
[ "$(tc_stat a va backlog)" = 0 ] || fail "backlog $(tc_stat a va backlog) at rest"
s=$("$BQ" -n a stats dev va -j)
echo "$s" | jq -e '.[0] as $q | $q.bpf.enqueued == $q.bpf.dequeued + ($q.bpf.drops | add) and
	($q.bpf.drops | add) == $q.drops' >/dev/null || fail "enqueued != dequeued + drops at rest: $s"
note "$("$BQ" -n a stats dev va | tail -n +2 | tr -s ' \n' ' ')"
# Over a plain veth the qdisc is empty at every packet: they take the
# direct path (test_fq_codel_direct, where a queue stands, checks the
# buckets' counters), or, where the kernel bypasses, never reach it.
if kernel_bypasses; then
	[ "$(bstat a va enqueued)" -lt $(($(tc_stat a va packets) / 100)) ] ||
		fail "enqueued $(bstat a va enqueued) of $(tc_stat a va packets) on a plain veth, with the kernel's bypass"
else
	[ "$(bstat a va direct_packets)" -ge 1 ] || fail "no direct packet counted"
fi
[ "$(bstat a va memory_used)" = 0 ] || fail "memory_used $(bstat a va memory_used) at rest"
[ "$(bstat a va new_flows_len)" = 0 ] && [ "$(bstat a va old_flows_len)" = 0 ] ||
	fail "flows listed at rest: new $(bstat a va new_flows_len) old $(bstat a va old_flows_len)"
[ "$(bstat a va drops.no_instance)" = 0 ] || fail "no_instance drops"

# Defaults as fq_codel's; quantum is psched_mtu: veth's 1500 + 14.
show=$("$BQ" -n a qdisc show dev va)
note "defaults: $show"
for kv in limit=10240 flows=1024 quantum=1514 drop_batch=64; do
	[ "$(opt "${kv%=*}")" = "${kv#*=}" ] || fail "${kv%=*} $(opt "${kv%=*}"), expected ${kv#*=}: $show"
done
echo "$show" | grep -q "target 5ms" || fail "target: $show"
echo "$show" | grep -q "interval 100ms" || fail "interval: $show"
echo "$show" | grep -Eq "memory_limit (32mb|32Mb|33554432)" || fail "memory_limit: $show"

# Every parameter at add, and live with change.
expect "$BQ" -n a qdisc replace dev va root bpf_fq_codel limit 2000 flows 256 quantum 3000 \
	target 10ms interval 200ms memory_limit 4mb drop_batch 8
show=$("$BQ" -n a qdisc show dev va)
for kv in limit=2000 flows=256 quantum=3000 drop_batch=8; do
	[ "$(opt "${kv%=*}")" = "${kv#*=}" ] || fail "add: ${kv%=*} $(opt "${kv%=*}"): $show"
done
echo "$show" | grep -q "target 10ms" && echo "$show" | grep -q "interval 200ms" ||
	fail "add: $show"
expect "$BQ" -n a qdisc change dev va root target 2ms interval 50ms limit 500 quantum 1000
show=$("$BQ" -n a qdisc show dev va)
echo "$show" | grep -q "target 2ms" && echo "$show" | grep -q "interval 50ms" ||
	fail "change: $show"
[ "$(opt limit)" = 500 ] && [ "$(opt quantum)" = 1000 ] && [ "$(opt flows)" = 256 ] ||
	fail "change: $show"
ip netns exec a ping -q -c 3 -i 0.2 -W 2 $B >/dev/null || fail "ping after change"

# Bad input: exit 2, one line, nothing changed.
expect_err 2 "quantum 2mb is out of range" "$BQ" -n a qdisc change dev va root quantum 2mb
expect_err 2 "flows 16384 is out of range" "$BQ" -n a qdisc change dev va root flows 16384
expect_err 2 "bad value '5x' for target" "$BQ" -n a qdisc change dev va root target 5x
expect_err 2 "never marks ECN: it always behaves as noecn" "$BQ" -n a qdisc change dev va root ecn
expect_err 2 "never marks ECN" "$BQ" -n a qdisc add dev va root bpf_fq_codel ce_threshold 1ms
[ "$("$BQ" -n a qdisc show dev va)" = "$show" ] || fail "bad input changed: $("$BQ" -n a qdisc show dev va)"
# Below 256 bytes, quantum is raised to 256, as sch_fq_codel raises it.
expect "$BQ" -n a qdisc change dev va root quantum 100
[ "$(opt quantum)" = 256 ] || fail "quantum 100 became $(opt quantum), not 256"
expect ip netns exec a tc qdisc del dev va root
[ "$("$BQ" list | grep -c "^  ifindex" || true)" = 0 ] || fail "instances left: $("$BQ" list)"
exit 0
