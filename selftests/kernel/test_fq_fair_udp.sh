# Round robin where it shows: a slow receiver makes the queue build at va,
# and UDP sockets that each keep their socket buffer full (fqsend -f, non-
# blocking) share the link by the qdisc's choice alone. Half the sockets
# have a 5x larger buffer: a FIFO gives them a share in proportion (pfifo,
# shown as the control), fair queueing equal shares. Shares are counted at
# the receiver once queues have filled. Jain's index >= 0.95 for bpf_fq
# with 2 and 8 sockets (fq shown alongside, "!": below 0.95); then 2 sockets whose packets all carry the
# same skb hash (a tc program sets it before the qdisc): bpf_fq tells them
# apart by socket anyway. The buffers are large because the receiver's
# 256-packet ring is a FIFO too: only what does not fit there waits in the
# qdisc, and a socket's writer wakes only when half its buffer is free.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

set_root() {
	case $1 in
	bpf_fq) expect "$BQ" -n a qdisc replace dev va root bpf_fq flow_limit 2000 ;;
	fq) expect ip netns exec a tc qdisc replace dev va root fq flow_limit 2000 ;;
	pfifo) expect ip netns exec a tc qdisc replace dev va root pfifo limit 10000 ;;
	esac
}

# share N: N sockets for 4 s, counted over the last 3 s; Jain's index,
# >= 0.95?
share() {
	ip netns exec b "$FQSEND" -l -d 4 -w 1 $B 7000 >$out &
	sleep 0.3
	ip netns exec a "$FQSEND" -c -f $1 -d 4 -s 1400 -b 400000,2000000 $B 7000 >/dev/null
	wait $!
	if [ "$(wc -l <$out)" != $1 ]; then
		echo "$1 senders, the receiver saw $(wc -l <$out)"
		return 1
	fi
	j=$(awk '{ s += $2; q += $2 * $2; n++ } END { printf "%.3f\n", s * s / (n * q) }' $out)
	echo "$j"
	ge "$j" 0.95
}

load_fq
veth_pair
slow_receiver
out=$(mktemp)
trap 'rm -f $out' EXIT
res=
for run in pfifo/2 fq/2 bpf_fq/2 fq/8 bpf_fq/8; do
	kind=${run%/*} n=${run#*/}
	set_root $kind
	res="$res $run: $(judge $kind share $n)"
done
note "UDP through a bottleneck, Jain index:$res"

expect ip netns exec a tc qdisc add dev va clsact
expect ip netns exec a tc filter add dev va egress bpf da obj "$TOP/.output/set_hash.bpf.o" sec tc
res=
for kind in fq bpf_fq; do
	set_root $kind
	res="$res $kind: $(judge $kind share 2)"
done
flows=$(bstat a va flows)
note "2 UDP flows with one skb hash, Jain index:$res; bpf_fq flows $flows"
[ "$flows" -ge 2 ] || fail "bpf_fq merged the flows: $flows flows"
exit 0
