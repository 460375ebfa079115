# The per-instance ring full (--ring-slots 256): what a qdisc holds is
# bounded by the ring whatever its limit, the packets that do not fit are
# dropped and counted, traffic keeps flowing, and nothing leaks.
#   - bpf_fifo, limit 1000 in a ring of 256 (the ring is bq_ring): a
#     UDP flood into a slow receiver queues 256 at most (qlen may count one
#     more, requeued), the rest are overlimit drops, packets keep leaving;
#   - bpf_fq (its packets live in bq_pool, 255 entries here): 8 flows of 64
#     datagrams each held 4 s (SO_TXTIME) offer 512 packets that are all
#     under limit and flow_limit; 255 are queued, the rest are dropped,
#     as drops.nomem or, where a leaner flow's arrival takes a fatter held
#     flow's head, drops.pushed_out; every datagram is either sent or
#     counted as a drop.
# After each: no slot owned, the skbuff slab and the maps' memory back to
# their baselines.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

veth_pair
quiet_va # its drop counts are compared across reads: only the test sends
slow_receiver
leak_baseline
expect "$BQ" load fifo --ring-slots 256 >/dev/null
expect "$BQ" -n a qdisc replace dev va root bpf_fifo limit 1000
udp_flood 20
wait_backlog a va 200 10 || fail "no queue built: $(ip netns exec a tc -s qdisc show dev va)"
p0=$(tc_stat a va packets) d0=$(bstat a va drops.overlimit) qmax=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	q=$(tc_stat a va qlen)
	[ "$q" -le "$qmax" ] || qmax=$q
	sleep 0.2
done
p1=$(tc_stat a va packets) over=$(($(bstat a va drops.overlimit) - d0))
stop_floods
json=$("$BQ" -n a stats dev va -j)
note "bpf_fifo, ring 256, limit 1000: qlen at most $qmax in 10 samples, $over overlimit drops and $((p1 - p0)) packets sent in 2 s"
[ "$qmax" -le 257 ] || fail "qlen $qmax in a ring of 256"
[ "$qmax" -ge 200 ] || fail "the ring never filled: qlen at most $qmax"
[ "$over" -gt 0 ] || fail "a full ring dropped nothing: $json"
[ "$((p1 - p0))" -gt 0 ] || fail "no packet left a full ring in 2 s"
echo "$json" | jq -e '.[0].bpf.drops | .overlimit > 0 and .nomem == 0 and .no_instance == 0' >/dev/null ||
	fail "drops counted in the wrong place: $json"
echo "$json" | jq -e '.[0].drops == .[0].bpf.drops.overlimit' >/dev/null ||
	fail "tc -s and bpfqdisc disagree on the drops: $json"
expect ip netns exec a tc qdisc del dev va root
expect_no_leak fifo

ip -n b link set dev vb xdpdrv off
leak_baseline
load_fq --ring-slots 256
expect "$BQ" -n a qdisc replace dev va root bpf_fq maxrate 10gbit
ip netns exec a ping -q -c 1 -W 2 $B >/dev/null || fail "no ping"
base=$(tc_stat a va packets)
sent=$(ip netns exec a "$FQSEND" -f 8 -c -n 512 -t 4000000000 $B 9)
qlen=$(tc_stat a va qlen) drops=$(tc_stat a va drops)
json=$("$BQ" -n a stats dev va -j)
nomem=$(echo "$json" | "$JGET" '.[0].bpf.drops.nomem')
pushed=$(echo "$json" | "$JGET" '.[0].bpf.drops.pushed_out')
note "bpf_fq, ring 256: 8 flows x 64 datagrams held 4 s: fqsend '$sent', queued $qlen, nomem drops $nomem, pushed out $pushed"
[ "$qlen" -le 256 ] || fail "$qlen packets queued in a pool of 255"
[ "$qlen" -ge 200 ] || fail "only $qlen packets queued: the pool holds 255"
[ $((nomem + pushed)) -ge 200 ] || fail "drops.nomem $nomem + pushed_out $pushed for 512 datagrams in a pool of 255: $json"
echo "$json" | jq -e '.[0].bpf.drops | .overlimit == 0 and .flow_limit == 0' >/dev/null ||
	fail "drops counted in the wrong place: $json"
[ "$drops" -ge $((nomem + pushed)) ] || fail "tc -s shows $drops drops, bpf_fq counted $nomem + $pushed"
idle() { [ "$(tc_stat a va qlen)" = 0 ]; }
wait_for 10 idle || fail "the held packets never left: qlen $(tc_stat a va qlen)"
out=$(($(tc_stat a va packets) - base))
offered=$(echo "$sent" | awk '{ print $2 + $4 }')
note "then $out packets left; offered $offered, dropped $drops"
[ "$out" -ge 200 ] || fail "only $out of the queued packets left"
seen=$((out + drops))
[ "$seen" -ge "$offered" ] && [ "$seen" -le $((offered + 10)) ] ||
	fail "offered $offered datagrams, qdisc sent $out + dropped $drops"
expect ip netns exec a tc qdisc del dev va root
expect_no_leak fq
exit 0
