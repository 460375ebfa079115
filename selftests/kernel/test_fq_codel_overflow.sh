# Overflow: at limit, bpf_fq_codel drops a batch from the head of the
# fattest flow, as sch_fq_codel does: up to half its backlog, at most
# drop_batch packets. One UDP flood fills a queue of limit 200 (CoDel held
# off: target 10s) with equal packets, so every overflow takes exactly
# drop_batch of them (half of 201 is more): the drops are a multiple of it,
# for the kernel's fq_codel and ours in the same boot, and they are counted
# as fq_codel counts them (drop_overlimit, qdisc drops). Then memory_limit:
# drops by memory counted as drop_overmemory.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"
. "$TOP/selftests/progs/fq_codel_lib.sh"

fqc_setup

# overflow KIND BATCH: drops of KIND at limit 200 under a flood of 4 s.
overflow() {
	ip netns exec a tc qdisc del dev va root 2>/dev/null || true	# fresh counters
	fqc_root "$1" limit 200 target 10s interval 10s drop_batch "$2"
	udp_flood 4
	max=0
	for i in 1 2 3 4 5 6 7 8 9 10; do
		q=$(tc_stat a va qlen)
		[ "$q" -le "$max" ] || max=$q
		sleep 0.2
	done
	stop_floods
	drops=$(tc_stat a va drops)
	[ "$1" = fq_codel ] && over=$(kstat a va drop_overlimit) || over=$(bstat a va drop_overlimit)
	note "$1 drop_batch $2: drops $drops, drop_overlimit $over, max qlen $max"
	[ "$drops" -gt 0 ] || fail "$1: no drop at limit 200 under a flood"
	[ "$over" = "$drops" ] || fail "$1: drop_overlimit $over, drops $drops"
	[ $((drops % $2)) = 0 ] || fail "$1: $drops drops, not in batches of $2"
	[ "$max" -le 200 ] || fail "$1: qlen $max over limit 200"
}

for batch in 64 5; do
	overflow fq_codel $batch
	overflow bpf_fq_codel $batch
	[ "$(bstat a va drops.overlimit)" = "$drops" ] || fail "drops.overlimit $(bstat a va drops.overlimit), qdisc drops $drops"
	[ "$(bstat a va drops.codel)" = 0 ] || fail "CoDel dropped with target 10s"
done

# Memory: 64 KB of skbs is a few dozen packets, far below limit 10240.
expect ip netns exec a tc qdisc del dev va root
expect "$BQ" -n a qdisc add dev va root bpf_fq_codel memory_limit 64k target 10s interval 10s
udp_flood 3
sleep 2
max=$(bstat a va memory_used)
stop_floods
mem=$(bstat a va drop_overmemory)
note "memory_limit 64k: drop_overmemory $mem of drops $(tc_stat a va drops); memory_used $max"
[ "$mem" -gt 0 ] || fail "no drop counted at memory_limit"
[ "$mem" = "$(bstat a va drop_overlimit)" ] || fail "drop_overmemory $mem, drop_overlimit $(bstat a va drop_overlimit)"
[ "$max" -le $((64 * 1024 + 70000)) ] || fail "memory_used $max with memory_limit 64k"
exit 0
