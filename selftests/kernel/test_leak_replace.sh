# Replacing the root qdisc BPFQDISC_REPLACES times (default 50; make
# stress: 1000) under full load, bpf_fifo and bpf_fq in turn: a UDP flood
# into a slow receiver keeps the queue full, so nearly every replace
# destroys a qdisc with packets queued. Only the live qdisc holds a slot;
# afterwards the skbuff slab and the BPF maps' memory are back to their
# baselines (reliability_lib.sh says how).
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"

n=${BPFQDISC_REPLACES:-50}
veth_pair
slow_receiver
leak_baseline
load_kinds fifo fq
expect ip netns exec a tc qdisc replace dev va root bpf_fifo
udp_flood 600
wait_backlog a va 200 10 || fail "no queue built: $(ip netns exec a tc -s qdisc show dev va)"

i=0 sampled=0 full=0 t0=$(date +%s)
while [ $i -lt $n ]; do
	# Every 10th time, see that the qdisc about to go still holds packets.
	if [ $((i % 10)) = 0 ]; then
		sampled=$((sampled + 1))
		[ "$(tc_stat a va qlen)" -lt 50 ] || full=$((full + 1))
	fi
	kind=bpf_fifo
	[ $((i % 2)) = 1 ] || kind=bpf_fq
	ip netns exec a tc qdisc replace dev va root $kind ||
		fail "replace $i with $kind failed"
	i=$((i + 1))
done
note "$n replacements in $(($(date +%s) - t0)) s, $full of $sampled sampled ones destroyed >= 50 queued packets"
[ $((full * 2)) -ge $sampled ] || fail "the queue was not full: $full of $sampled samples"
used=$(($(slots_used fifo) + $(slots_used fq)))
[ "$used" = 1 ] || fail "$used slots owned with one qdisc live"
[ "$(qdisc_kind a va)" = "$kind" ] || fail "root is $(qdisc_kind a va), not $kind"

stop_floods
expect ip netns exec a tc qdisc del dev va root
expect_no_leak fifo fq
exit 0
