# Bands as sch_fq's (since 29f834aa326e): priority -> band by priomap
# (default: 7 and 6 to band 0, 0 and 4 and 8..15 to band 1, the rest to
# band 2), bands served by WRR of their weights (589824, 196608, 65536
# bytes). Behind a slow receiver, 8 bulk sockets at priority 0 (band 1)
# and one socket at priority 7 (TC_PRIO_CONTROL, band 0), all sending as
# fast as they can: the share of the bytes the priority-7 socket gets,
# counted at the receivers after 1 s. At the defaults bpf_fq's share is
# within 10 points of the kernel's fq in the same boot (iproute2 6.1 cannot
# set fq's priomap or weights); with equal weights bpf_fq's share falls,
# and with priomap sending 7 to band 2 (weight 65536 against band 1's
# 196608) it falls further. The priority-7 socket has a large buffer: the
# receiver's 256-packet ring is a FIFO, and a socket whose packets all sit
# there has none left to go first.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

[ "${VMTEST_ICOUNT:-0}" = 1 ] || skip "shares are judged on the virtual clock (tools/vmtest --icount)"
load_fq
veth_pair
slow_receiver
ctl=$(mktemp) bulk=$(mktemp)
trap 'rm -f $ctl $bulk' EXIT

ctl_share() { # % of the bytes the priority-7 socket got
	ip netns exec b "$FQSEND" -l -d 4 -w 1 $B 7000 >$bulk &
	ip netns exec b "$FQSEND" -l -d 4 -w 1 $B 7001 >$ctl &
	sleep 0.3
	ip netns exec a "$FQSEND" -c -f 8 -d 4 -s 1000 -b 200000 $B 7000 >/dev/null &
	ip netns exec a "$FQSEND" -c -d 4 -s 1000 -b 2000000 -P 7 $B 7001 >/dev/null
	wait
	c=$(awk '{ s += $2 } END { print s + 0 }' $ctl)
	b=$(awk '{ s += $2 } END { print s + 0 }' $bulk)
	awk -v c=$c -v b=$b 'BEGIN { printf "%.0f\n", c + b ? 100 * c / (c + b) : 0 }'
}

expect ip netns exec a tc qdisc replace dev va root fq
fq=$(ctl_share)
expect "$BQ" -n a qdisc replace dev va root bpf_fq
def=$(ctl_share)
expect "$BQ" -n a qdisc replace dev va root bpf_fq weight0 65536 weight1 65536 weight2 65536
equal=$(ctl_share)
expect "$BQ" -n a qdisc replace dev va root bpf_fq priomap 1222120211111111
low=$(ctl_share)
res="priority 7 against 8 bulk sockets: fq $fq%, bpf_fq $def%; equal weights $equal%; 7 in band 2 $low%"
d=$((def - fq))
[ ${d#-} -le 10 ] || fail "$res"
[ "$equal" -lt "$def" ] || fail "equal weights did not lower the share: $res"
[ "$low" -lt "$equal" ] || fail "band 2 did not lower the share below equal weights: $res"
expect_err 2 "priomap" "$BQ" -n a qdisc change dev va root bpf_fq priomap 1222120311111111
expect_err 2 "weight0" "$BQ" -n a qdisc change dev va root bpf_fq weight0 100
note "$res"
exit 0
