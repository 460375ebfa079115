# bpf_las and bpf_srpt give short flows a lower completion time than
# bpf_fifo does, as in pFabric's experiments: behind a slow receiver
# (slow_rx5000), on a's va (TSO and GSO off: MTU-sized packets), 3 bulk
# UDP sockets kept full (fqsend, each its SO_SNDBUF's worth in the qdisc,
# about 2,360 packets in all) and, one after another, N_SHORT TCP
# transfers of 50 kB (bin/fct: connect, write, shut down, wait for the
# close). A transfer's completion time is its handshake, data and last
# acknowledgement. Under a FIFO each of its rounds waits behind the bulk
# backlog; under LAS its flow has sent less than any bulk socket, under
# SRPT its socket has fewer unacknowledged bytes (at most 50 kB) than a
# packet without a TCP socket is taken to have (the parameter remaining,
# 4 MB): both serve it first, and what is left of its wait is veth's ring
# of 256 packets behind the qdisc. The mean and the median of each must
# be at most half of bpf_fifo's mean; three boots read 0.10x, 0.10x and
# 0.13x (bpf_fifo 2.57 s each time; LAS and SRPT 0.26 s, 0.26 s, 0.32 s:
# the virtual clock repeats them only within 25% here). LAS's clamped is
# printed, not judged: the bulk sockets' counts (about 4.5 MB a second
# each) pass its window's 16 MB near the end of its run, and boots read
# 20, 1331 and 1784.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

command -v ethtool >/dev/null || skip "no ethtool to turn va's TSO off"
[ "${VMTEST_ICOUNT:-0}" = 1 ] || skip "completion times are judged on the virtual clock (tools/vmtest --icount)"
FCT="$TOP/bin/fct"
N_SHORT=10
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT

for k in fifo las srpt; do expect "$BQ" load $k; done
veth_pair
expect ip netns exec a ethtool -K va tso off gso off
slow_receiver slow_rx5000
ip netns exec b "$FCT" -l $B 7100 &
server=$!
ip netns exec b "$FQSEND" -l -d 600 $B 7000 >/dev/null &
sink=$!
wait_listeners b 7100 1 || fail "no fct server on 7100"

# fct_under KIND: the short transfers' summary line with KIND on va,
# the bulk sockets sending all along; "qlen Q" is appended, va's queue
# midway (the bulk backlog), and the clamped count.
fct_under() {
	ip netns exec a tc qdisc del dev va root 2>/dev/null || true
	expect "$BQ" -n a qdisc add dev va root "bpf_$1" limit 10000 2>/dev/null
	ip netns exec a "$FQSEND" -c -f 3 -d 600 -s 1400 -b 1000000 $B 7000 >/dev/null &
	bulk=$!
	sleep 1
	ip netns exec a timeout 50 "$FCT" -n $N_SHORT -s 50000 $B 7100 >"$TMPD/$1" &
	short=$!
	sleep 1
	q=$(tc_stat a va qlen)
	wait $short || fail "fct under bpf_$1 failed: $(tail -1 "$TMPD/$1")"
	kill $bulk
	wait $bulk 2>/dev/null || true
	c=$("$BQ" -n a stats -j | "$JGET" '.[0].bpf.clamped' 2>/dev/null || echo -)
	echo "bpf_$1: $(tr '\n' ' ' <"$TMPD/$1") qlen $q clamped $c" >&2
	echo "$(tail -1 "$TMPD/$1") qlen $q clamped $c"
}

las=$(fct_under las)
srpt=$(fct_under srpt)
fifo=$(fct_under fifo)
kill $server $sink 2>/dev/null || true
res="$N_SHORT transfers of 50 kB behind 3 bulk UDP sockets: bpf_fifo: $fifo; bpf_las: $las; bpf_srpt: $srpt"
note "$res"
# field NAME SUMMARY: the value after NAME in a summary line.
field() { echo "$2" | awk -v n="$1" '{ for (i = 1; i < NF; i++) if ($i == n) print $(i + 1) }'; }
[ "$(field qlen "$fifo")" -ge 1000 ] || fail "bpf_fifo queued only $(field qlen "$fifo") packets: no bottleneck; $res"
for k in las srpt; do
	eval v=\$$k
	awk -v f="$(field mean_us "$fifo")" -v m="$(field mean_us "$v")" -v p="$(field p50_us "$v")" \
		'BEGIN { exit !(f > 0 && m > 0 && m <= f / 2 && p > 0 && p <= f / 2) }' ||
		fail "bpf_$k's mean or median completion time is more than half of bpf_fifo's mean: $res"
done
exit 0
