# Replacing the root qdisc BPFQDISC_REPLACES times (default 200; make
# stress: 1000) under full load, bpf_fifo and bpf_fq in turn: a UDP flood
# into a slow receiver keeps the queue full, so nearly every replace
# destroys a qdisc with packets queued. Only the live qdisc holds a slot;
# afterwards the skbuff slab and the BPF maps' memory are back to their
# baselines (reliability_lib.sh says how). The slab is taken at rest both
# times (flood stopped, queue gone), so its margin is 100: one skb leaked
# per replace is 200 over the baseline, which moved by -46 to +27 at rest
# (NAPI's per-CPU skb cache keeps up to 128 whatever the qdisc).
# BPFQDISC_LEAK_PROBE=1 leaks that many (reliability_lib.sh).
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"

n=${BPFQDISC_REPLACES:-200}
LEAK_OPS=$n
LEAK_MARGIN=100
veth_pair
slow_receiver
leak_baseline
load_kinds fifo fq
expect ip netns exec a tc qdisc replace dev va root bpf_fifo
udp_flood 600
wait_backlog a va 200 10 || fail "no queue built: $(ip netns exec a tc -s qdisc show dev va)"

i=0 sampled=0 full=0 t0=$(date +%s)
while [ $i -lt $n ]; do
	# The test's own commands run at nice 0 and starve the flood (nice 19):
	# a replace costs about 60 ms of guest time, after which the queue held
	# 0 packets in 6 of 10 samples. Sleeping hands the CPU to the flood,
	# which refilled it to at least 668 of 1000 in 10 ms (measured on the
	# virtual clock, 1 vCPU).
	sleep 0.02
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
[ $full = $sampled ] || fail "the queue was not full: $full of $sampled samples"
used=$(($(slots_used fifo) + $(slots_used fq)))
[ "$used" = 1 ] || fail "$used slots owned with one qdisc live"
[ "$(qdisc_kind a va)" = "$kind" ] || fail "root is $(qdisc_kind a va), not $kind"

stop_floods
expect ip netns exec a tc qdisc del dev va root
expect_no_leak fifo fq
exit 0
