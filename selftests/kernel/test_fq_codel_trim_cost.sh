# The trim after a lowered limit (docs/fq_codel.md) runs inside one
# dequeue, in softirq, under the qdisc's lock: its cost must grow with the
# packets it drops, not with packets times buckets. sch_fq_codel's change
# drops through its dequeue, a few hundred ns a packet. Here 2000 UDP
# sockets of uid 65534 (two processes, for the fd limit) spread about
# 6000 packets over as many of 16383 buckets as they hash to,
# behind the slow receiver, then limit 16000 -> 1. On the virtual clock
# (1 ns an instruction) bpf_stats' run_time_ns of the dequeue program over
# the trim must stay under 300 ms: a scan of every bucket per batch took
# 1.3 s here (5 s for 11000 packets), one CPU held that long.
. "$(dirname "$0")/lib.sh"

[ "${VMTEST_ICOUNT:-0}" = 1 ] || skip "needs the virtual clock (tools/vmtest --icount)"
command -v setpriv >/dev/null || skip "setpriv is not in the VM"
# run_time_ns: total of fq_codel_dequeue's runs so far.
deq_ns() {
	bpftool prog show name fq_codel_dequeue |
		awk '{ for (i = 1; i < NF; i++) if ($i == "run_time_ns") print $(i + 1) }'
}

expect "$BQ" load fq_codel
veth_pair
quiet_va
slow_receiver
sysctl -qw kernel.bpf_stats_enabled=1
expect "$BQ" -n a qdisc replace dev va root bpf_fq_codel flows 16383 limit 16000 \
	target 10s interval 10s
for i in 1 2; do
	ip netns exec a setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TOP/bin/sockfleet" $B 9 1000 3 0 none - &
done
wait
before=$(tc_stat a va qlen)
[ "$before" -ge 4000 ] || fail "only $before packets queued"
ns0=$(deq_ns)
expect "$BQ" -n a qdisc change dev va root limit 1
sleep 0.05
after=$(tc_stat a va qlen)
ns=$(($(deq_ns) - ns0))
note "qlen $before, after limit 1: $after; dequeue ran $((ns / 1000000)) ms meanwhile"
[ "$after" -le 2 ] || fail "qlen $after after limit 1 (was $before)"
[ "$ns" -lt 300000000 ] || fail "trimming $before packets took the dequeue $((ns / 1000000)) ms"
exit 0
