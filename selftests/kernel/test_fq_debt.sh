# Thousands of flows deep in debt must not stall dequeue. 4000 connected
# sockets each send two 8900-byte datagrams, all due at the same time 1 s
# ahead (SO_TXTIME), through quantum 256 and initial_quantum 0 on a
# 9000-byte MTU: once every flow has sent its first one, each must come
# round 35 times for credit before its second may go, 140000 steps of the
# round robin before anything is ready. sch_fq's loop has no bound; a
# bounded search that gives up must leave a wake-up behind, or the qdisc
# sleeps with packets queued until something else is sent. Nothing else is
# sent here (no IPv6 on va, whose router solicitations would wake the
# qdisc, and a permanent neighbour entry, so no ARP): 2 s after the
# datagrams were sent (1 s after they were due) every one must have left,
# under fq and bpf_fq alike.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

[ "${VMTEST_ICOUNT:-0}" = 1 ] || skip "the drain time is judged on the virtual clock (tools/vmtest --icount)"
ulimit -n 8192 || skip "cannot open 4000 sockets"
load_fq
veth_pair
ip -n a link set va mtu 9000
ip -n b link set vb mtu 9000
quiet_va
res=

# drains: all 8000 datagrams left 2 s after they were sent (due after 1 s)?
drains() {
	base=$(tc_stat a va packets)
	sent=$(ip netns exec a "$FQSEND" -f 4000 -c -n 8000 -s 8900 -a -t 1000000000 $B 9)
	queued=$(tc_stat a va qlen)
	sleep 2
	left=$(($(tc_stat a va packets) - base))
	echo "$queued queued ($sent), $left left, $(tc_stat a va qlen) still queued"
	[ "$left" -ge 8000 ] && [ "$(tc_stat a va qlen)" = 0 ]
}

expect ip netns exec a tc qdisc replace dev va root fq quantum 256 initial_quantum 0
res="fq: $(drains)" || fail "$res"
expect "$BQ" -n a qdisc replace dev va root bpf_fq quantum 256 initial_quantum 0
res="$res; bpf_fq: $(drains)" || fail "$res"
note "4000 flows in debt, 2 datagrams each: $res"
exit 0
