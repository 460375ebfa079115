# EDT: packets leave no earlier than their departure time (SO_TXTIME), in
# departure order even when one flow's timestamps go backwards, and a flow
# waiting for a later packet is woken for an earlier one that arrives
# meanwhile. Departure times beyond the horizon are dropped (counted as
# horizon drops) or, with horizon_drop off, capped to now + horizon
# (counted as horizon caps). bpf_fq and fq alike.
# Every check is made at the receiver or on counters, never by sampling
# the queue at a moment (a command can take seconds under a loaded TCG):
# each datagram carries the departure time its sender gave it (fqsend -t),
# and the receiver (fqsend -l -e) compares with CLOCK_MONOTONIC, the same
# clock in both namespaces.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

out=$(mktemp)
trap 'rm -f $out' EXIT
load_fq
veth_pair
ip netns exec a ping -q -c 1 -W 2 $B >/dev/null || fail "no ping"	# ARP resolved: no batching
res=
for kind in fq bpf_fq; do
	expect ip netns exec a tc qdisc replace dev va root $kind
	# 20 datagrams, one socket, due 3 s to 1.1 s after they are sent:
	# waiting for the first one's time would make the last 1.9 s late.
	ip netns exec b "$FQSEND" -l -e -d 5 $B 7000 >$out &
	sleep 0.3
	expect ip netns exec a "$FQSEND" -c -n 20 -t 3000000000 -T -100000000 $B 7000 >/dev/null
	# Meanwhile, beyond the default horizon (10 s): dropped.
	expect ip netns exec a "$FQSEND" -c -n 10 -t 20000000000 $B 9 >/dev/null
	wait $!
	set -- $(cat $out)
	[ "$2" = 20 ] || fail "$kind: the receiver got $2 of 20 datagrams: $*"
	[ "$4" = 0 ] || fail "$kind: $4 datagrams arrived before their departure time: $*"
	[ "$6" = 0 ] || fail "$kind: $6 datagrams arrived out of departure order: $*"
	[ "${10}" -lt 1000000 ] || fail "$kind: a datagram left ${10} us after its time: $*"
	res="$res $kind: lateness ${8}..${10} us"
	if [ $kind = fq ]; then
		d=$(kstat a va horizon_drops) t=$(kstat a va throttled)
	else
		d=$(bstat a va drops.horizon) t=$(bstat a va throttled)
	fi
	[ "$d" = 10 ] || fail "$kind counted $d horizon drops of 10"
	[ "$(tc_stat a va drops)" = 10 ] || fail "$kind: tc counts $(tc_stat a va drops) drops"
	[ "$t" -gt 0 ] || fail "$kind never throttled a flow"

	# horizon 2s, capped: due in 20 s, they leave 2 s after they are
	# sent, so they arrive 18 s "early", and not earlier.
	if [ $kind = fq ]; then
		expect ip netns exec a tc qdisc change dev va root fq horizon 2s horizon_cap
	else
		expect "$BQ" -n a qdisc change dev va root horizon 2s horizon_drop off
	fi
	ip netns exec b "$FQSEND" -l -e -d 4 $B 7001 >$out &
	sleep 0.3
	expect ip netns exec a "$FQSEND" -c -n 10 -t 20000000000 $B 7001 >/dev/null
	wait $!
	set -- $(cat $out)
	[ "$2" = 10 ] || fail "$kind: the receiver got $2 of 10 capped datagrams: $*"
	[ "$8" -ge -18000000 ] || fail "$kind: a capped datagram left before now + horizon: $*"
	[ "${10}" -le -17000000 ] || fail "$kind: a capped datagram waited more than 3 s: $*"
	if [ $kind = fq ]; then c=$(kstat a va horizon_caps); else c=$(bstat a va horizon_caps); fi
	[ "$c" = 10 ] || fail "$kind counted $c horizon caps of 10"
done
note "20 datagrams with departure times going backwards, none early, in order;$res"
exit 0
