# The fast path for TCP (sch_fq's fq_fastpath_check admits TCP whatever its
# pacing; it refuses only non-TCP sockets with SO_MAX_PACING_RATE, and
# maxrate). One cubic flow over veth, 2 s, with pacing on and with pacing
# off: the share of its packets that took bpf_fq's fast path (packets due
# now to a qdisc with nothing else ready). Under the virtual clock at least
# half of them do, as TCP's small queues leave the qdisc empty between
# bursts; with maxrate none may. Throughput against the kernel's fq is
# make bench's (iproute2 6.1 does not show fq's fastpath count anyway).
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

[ "${VMTEST_ICOUNT:-0}" = 1 ] || skip "shares are judged on the virtual clock (tools/vmtest --icount)"
load_fq
veth_pair
res=

# share: % of the packets of one 2 s cubic flow that took the fast path.
share() {
	f0=$(bstat a va fastpath_packets) e0=$(bstat a va enqueued)
	iperf_server b
	m=$(iperf_mbps a $B 2 -C cubic)
	f1=$(bstat a va fastpath_packets) e1=$(bstat a va enqueued)
	echo "$m $(( (f1 - f0) * 100 / (e1 - e0) ))"
}

for pacing in on off; do
	expect "$BQ" -n a qdisc replace dev va root bpf_fq pacing $pacing
	set -- $(share)
	res="$res; pacing $pacing: $1 Mbit/s with $2% on the fast path"
	[ "$2" -ge 50 ] || fail "pacing $pacing: $2% of cubic packets on the fast path ($res)"
done
expect "$BQ" -n a qdisc change dev va root bpf_fq maxrate 10gbit
set -- $(share)
res="$res; maxrate: $2%"
[ "$2" = 0 ] || fail "maxrate set, yet $2% on the fast path"
note "one cubic flow$res"
exit 0
