# bpf_edf serves the earliest deadline first. Behind a slow receiver, 8
# bulk sockets at priority 0 and one socket at priority 7, each kept full
# (ctl_share, selftests/progs/fq_lib.sh), classes by priority: with a
# deadline of 1 ms for priority 7 and 5 s for the rest, the priority-7
# socket's packets go ahead of every bulk packet that arrived in the 5 s
# before, all the test's 4 s: it gets nearly all (at least 90%); with the
# deadlines the other way round, nearly nothing (at most 5%); with one
# deadline for all, the queue is a FIFO and the shares are what the
# sockets' queues make them (between 10% and 80%). The window, 2^18
# buckets of 65.5 us (rank_shift 16), spans 17 s: nothing is clamped.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

[ "${VMTEST_ICOUNT:-0}" = 1 ] || skip "shares are judged on the virtual clock (tools/vmtest --icount)"
expect "$BQ" load edf
veth_pair
slow_receiver
ctl=$(mktemp) bulk=$(mktemp)
trap 'rm -f $ctl $bulk' EXIT

# edf_share PRIO: the priority-7 socket's share with a deadline of 1 ms
# for priority PRIO (none: no class), 5 s for the rest.
edf_share() {
	# A new qdisc, not a change of the last one (replace of the same kind), whose classes stay.
	ip netns exec a tc qdisc del dev va root 2>/dev/null || true
	expect "$BQ" -n a qdisc add dev va root bpf_edf classify 2 deadline 5s rank_shift 16 \
		2>/dev/null
	[ -z "${1:-}" ] || expect "$BQ" -n a class add dev va priority "$1" deadline 1ms 2>/dev/null
	ctl_share
	c=$("$BQ" -n a stats -j | "$JGET" '.[0].bpf.clamped')
	[ "$c" = 0 ] || fail "$c clamped with a deadline of 1 ms for priority ${1:-none}"
}

early=$(edf_share 7)
late=$(edf_share 0)
fifo=$(edf_share)
res="priority 7 against 8 bulk sockets at 0: deadline 1 ms against 5 s $early%, 5 s against 1 ms $late%, 5 s for all $fifo%"
[ "$early" -ge 90 ] && [ "$late" -le 5 ] && [ "$fifo" -ge 10 ] && [ "$fifo" -le 80 ] || fail "$res"
note "$res"
exit 0
