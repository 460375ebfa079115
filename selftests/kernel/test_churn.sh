# Churn under load: 8 iperf3 flows while va's root qdisc cycles through
# pfifo_fast, bpf_fifo, bpf_fq, bpf_fq_codel and bpf_hbm (when `bpfqdisc load hbm`
# succeeds; a note says so when it does not), one replace every 100 ms for
# BPFQDISC_CHURN_SECS (default 10; make stress: 60). Every second of the
# run moves bytes, every flow gets through, the kernel logs no WARN, BUG or
# lockup, the qdisc left at the end is idle at rest (qlen and backlog 0),
# and once it is deleted no instance, skb or map memory is left.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"

secs=${BPFQDISC_CHURN_SECS:-10}
out=$(mktemp)
veth_pair
leak_baseline
load_kinds fifo fq fq_codel
kinds="pfifo_fast bpf_fifo bpf_fq bpf_fq_codel" loaded="fifo fq fq_codel"
if err=$("$BQ" load hbm 2>&1 >/dev/null); then
	kinds="$kinds bpf_hbm" loaded="$loaded hbm"
else
	note "NOTE: bpf_hbm left out of the cycle, 'bpfqdisc load hbm' failed: $(echo "$err" | tail -1)"
fi
dmesg_mark

iperf_server b
ip netns exec a iperf3 -J -c $B -P 8 -i 1 -t $((secs + 2)) >"$out" &
iperf=$!
sleep 1
end=$(($(date +%s) + secs)) cycles=0
while [ "$(date +%s)" -lt $end ]; do
	for kind in $kinds; do
		ip netns exec a tc qdisc replace dev va root $kind || fail "replace with $kind failed"
		sleep 0.1
	done
	cycles=$((cycles + 1))
done
wait $iperf || fail "iperf3 failed: $(jq -r .error "$out" 2>/dev/null)"
note "$cycles cycles of $kinds in $secs s"

# Bytes in every 1 s interval, and in every flow.
per_s=$(jq -r '[.intervals[].sum.bytes] | map(. / 1e6 | floor) | join(" ")' "$out")
note "MB per second: $per_s"
stalled=$(jq '[.intervals[] | select(.sum.bytes == 0)] | length' "$out")
[ "$stalled" = 0 ] || fail "$stalled seconds without a byte: $per_s"
idle=$(jq '[.end.streams[] | select(.receiver.bytes == 0)] | length' "$out")
[ "$idle" = 0 ] || fail "$idle of 8 flows got nothing through"
rm -f "$out"

# At rest: whatever is root now holds nothing.
last=$(qdisc_kind a va)
ip netns exec a ping -q -c 3 -i 0.2 -W 2 $B >/dev/null || fail "no ping through $last after the churn"
[ "$(tc_stat a va qlen)" = 0 ] || fail "$last: qlen $(tc_stat a va qlen) at rest"
[ "$(tc_stat a va backlog)" = 0 ] || fail "$last: backlog $(tc_stat a va backlog) at rest"
expect ip netns exec a tc qdisc del dev va root
expect_dmesg_clean
# shellcheck disable=SC2086
expect_no_leak $loaded
exit 0
