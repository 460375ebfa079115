# Fairness at a bottleneck where a queue forms (slow_receiver: about 2800
# packets/s get through): 8 UDP flows, 4 sending 500 and 4 sending 2000
# packets/s, every one above its share (about 350). A FIFO delivers in
# proportion to what each sends (Jain about 0.74); fq_codel's round robin
# gives each bucket its quantum per turn, whatever it sends. Received
# packets per flow are counted on vb's ingress (u32 filters by port).
# Jain's index must be >= 0.95 under bpf_fq_codel, and pfifo_fast's in the
# same boot below 0.9 (else the scenario judges nothing); the kernel's
# fq_codel is shown beside them. UDP, not TCP: at this bottleneck TSQ keeps
# each TCP socket's packets in the qdisc to a couple, and the queue that
# forms is the veth ring's, a FIFO whatever the qdisc (8 TCP streams, 4 of
# them 20 ms further: fq_codel 0.68, pfifo_fast 0.79, measured).
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"
. "$TOP/selftests/progs/fq_codel_lib.sh"

fqc_setup
expect ip netns exec b tc qdisc add dev vb ingress
for i in 1 2 3 4 5 6 7 8; do
	expect ip netns exec b tc filter add dev vb parent ffff: protocol ip prio $i u32 \
		match ip dport $((9000 + i)) 0xffff action pass
done

# received: packets counted by each port's filter, one line each.
received() {
	ip netns exec b tc -s -j filter show dev vb ingress |
		jq '.[] | select(.options.actions) | .options.actions[0].stats.packets'
}

# jain_of KIND: Jain's index of the 8 flows' packets received through KIND.
jain_of() {
	# 8 flows in 1024 buckets collide in 2.7% of boots (the hash seed is
	# random), and two in one bucket share its turn: 16383 buckets, 0.2%.
	fqc_root "$1" flows 16383
	before=$(received | tr '\n' ' ')
	for i in 1 2 3 4 5 6 7 8; do
		[ $i -le 4 ] && pps=500 || pps=2000
		ip netns exec a nice -n 19 "$TOP/bin/udpflood" $B $((9000 + i)) 4 200 $pps >/dev/null &
		FLOODS="${FLOODS:-} $!"
	done
	wait
	FLOODS=
	sleep 1	# the queue drains
	received | paste -d' ' - - - - - - - - | awk -v b="$before" '{
		split(b, b0, " ")
		for (i = 1; i <= NF; i++) { x = $i - b0[i]; s += x; q += x * x; l = l " " x }
		printf "%.3f%s\n", s * s / (NF * q), l
	}'
}

set -- $(jain_of fq_codel); k=$1
set -- $(jain_of bpf_fq_codel); b=$1; shift; per_flow="$*"
set -- $(jain_of pfifo_fast); p=$1; shift; p_flow="$*"
note "8 UDP flows (4 at 500, 4 at 2000 packets/s), Jain of packets received: fq_codel $k, bpf_fq_codel $b (per flow $per_flow), pfifo_fast $p (per flow $p_flow)"
awk -v j="$b" 'BEGIN { exit !(j >= 0.95) }' || fail "bpf_fq_codel's Jain index $b < 0.95"
awk -v j="$p" 'BEGIN { exit !(j < 0.9) }' || fail "pfifo_fast's Jain index $p: the flows were not held by the bottleneck"
exit 0
