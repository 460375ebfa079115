# Bands as sch_fq's (since 29f834aa326e): priority -> band by priomap
# (default: 7 and 6 to band 0, 0 and 4 and 8..15 to band 1, the rest to
# band 2), bands served by WRR of their weights (589824, 196608, 65536
# bytes). Behind a slow receiver, 8 bulk sockets at priority 0 (band 1)
# and one socket at priority 7 (TC_PRIO_CONTROL, band 0), each kept full:
# the share of the bytes the priority-7 socket gets, counted at the
# receivers after 1 s. With both bands always backlogged, WRR alone sets
# it: 3:1 (the defaults, and 48:16 KB) gives the priority-7 socket 75%,
# 1:1 50%, and priomap sending 7 to band 2 (16 KB against band 1's 48 KB)
# 25%, each judged within 5 points (measured 74-75, 50, 27 in two boots),
# and so is the kernel's fq at its default weights beside bpf_fq's
# (iproute2 6.1 cannot set fq's priomap or weights).
#
# Nothing may be dropped: flow_limit is above what a socket buffer holds.
# A dropped datagram frees its buffer at once, so a sender that meets
# flow_limit never blocks; it spins, and on one vCPU who then gets the CPU
# decides what is queued (the kernel's fq at flow_limit 100 gave the
# priority-7 socket 0%, and the same test on 2 vCPUs once gave 3:1 0%).
# Blocked on full buffers, the senders sleep and the receiver runs. The
# priority-7 socket has a large buffer: the receiver's 256-packet ring is
# a FIFO, and a socket whose packets all sit there has none left to go
# first.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

[ "${VMTEST_ICOUNT:-0}" = 1 ] || skip "shares are judged on the virtual clock (tools/vmtest --icount)"
load_fq
veth_pair
slow_receiver
ctl=$(mktemp) bulk=$(mktemp)
trap 'rm -f $ctl $bulk' EXIT

nodrop="limit 10000 flow_limit 5000"
expect ip netns exec a tc qdisc replace dev va root fq $nodrop
fq=$(ctl_share)
expect "$BQ" -n a qdisc replace dev va root bpf_fq $nodrop
def=$(ctl_share)
w="weight2 16384"
expect "$BQ" -n a qdisc replace dev va root bpf_fq $nodrop weight0 49152 weight1 16384 $w
wrr=$(ctl_share)
expect "$BQ" -n a qdisc replace dev va root bpf_fq $nodrop weight0 16384 weight1 16384 $w
equal=$(ctl_share)
expect "$BQ" -n a qdisc replace dev va root bpf_fq $nodrop weight0 16384 weight1 49152 $w \
	priomap 1222120211111111
low=$(ctl_share)
res="priority 7 against 8 bulk sockets, defaults: fq $fq%, bpf_fq $def%; bpf_fq 3:1 $wrr%, 1:1 $equal%, 7 in band 2 at 1:3 $low%"
# about SHARE TARGET: SHARE is within 5 points of TARGET.
about() { [ "$1" -ge $(($2 - 5)) ] && [ "$1" -le $(($2 + 5)) ]; }
about "$fq" 75 && about "$def" 75 && about "$wrr" 75 && about "$equal" 50 && about "$low" 25 || fail "$res"
expect_err 2 "priomap" "$BQ" -n a qdisc change dev va root bpf_fq priomap 1222120311111111
expect_err 2 "weight0" "$BQ" -n a qdisc change dev va root bpf_fq weight0 100
note "$res"
exit 0
