# flow_limit and limit drops, counted apart: one socket that sends faster
# than a slow receiver takes fills its flow to flow_limit and no further
# (flow_limit drops); eight such sockets against limit 200 hit the qdisc
# limit first (overlimit drops). bpf_fq's reasons add up to tc's drops;
# the kernel's fq (flows_plimit) is shown alongside, not judged. In both,
# the fast path queue (no flow_limit, up to 8 packets) can add to a flow's
# 100, and the kernel holds one peeked skb: 109 at most (both were seen).
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

load_fq
veth_pair
quiet_va # its drop counts are compared across reads: only the test sends
slow_receiver
maxq() { # samples qlen N times, prints the largest
	m=0
	for i in $(seq $1); do
		q=$(tc_stat a va qlen)
		[ "$q" -le "$m" ] || m=$q
	done
	echo $m
}
# fill FQSEND_ARGS...: 3 s of fqsend against the slow receiver; sets m (the
# largest qlen seen) and drops; kernel_fq_line says what fq did.
fill() {
	ip netns exec a "$FQSEND" -c "$@" -d 3 -s 1000 $B 9 >/dev/null &
	sleep 1
	m=$(maxq 3)
	wait $!
	drops=$(tc_stat a va drops)
}
kernel_fq_line() { echo " fq: max qlen $m, $drops drops, $(kstat a va flows_plimit) flows_plimit;"; }

# One socket, flow_limit 100 (the default).
res=
for kind in fq bpf_fq; do
	expect ip netns exec a tc qdisc replace dev va root $kind
	fill
	if [ $kind = fq ]; then
		res="$res$(kernel_fq_line)"
		continue
	fi
	fl=$(bstat a va drops.flow_limit) ol=$(bstat a va drops.overlimit)
	res="$res bpf_fq: max qlen $m, $drops drops, flow_limit $fl, overlimit $ol;"
	[ "$ol" = 0 ] || fail "bpf_fq: $ol overlimit drops from one flow"
	[ "$m" -le 109 ] || fail "bpf_fq: one flow held $m packets, flow_limit 100 (+8 fast path +1 peeked);$res"
	[ "$fl" -gt 0 ] && [ "$fl" = "$drops" ] || fail "bpf_fq: $fl flow-limit drops, tc $drops"
done
note "one flow:$res"

# Eight sockets, limit 200: the total, not the flows, is the limit.
res=
for kind in fq bpf_fq; do
	if [ $kind = fq ]; then
		expect ip netns exec a tc qdisc replace dev va root fq limit 200
	else
		expect "$BQ" -n a qdisc replace dev va root bpf_fq limit 200
	fi
	fill -f 8
	if [ $kind = fq ]; then
		res="$res$(kernel_fq_line)"
	else
		[ "$m" -le 201 ] || fail "bpf_fq: qlen $m, limit 200"
		[ "$drops" -gt 0 ] || fail "bpf_fq: no drops at limit 200"
		fl=$(bstat a va drops.flow_limit) ol=$(bstat a va drops.overlimit)
		res="$res bpf_fq: max qlen $m, $drops drops, overlimit $ol, flow_limit $fl;"
		[ "$ol" -gt 0 ] || fail "bpf_fq: no overlimit drops at limit 200"
		[ $((ol + fl)) = "$drops" ] || fail "bpf_fq: overlimit $ol + flow_limit $fl != tc drops $drops"
		[ "$(tc_stat a va overlimits)" = "$ol" ] || fail "tc overlimits $(tc_stat a va overlimits), bpf_fq $ol"
	fi
done
note "8 flows, limit 200:$res"
exit 0
