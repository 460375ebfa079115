# bpf_hpfq's tree has 16 leaves, one per class that holds packets; a
# packet of a 17th class is dropped (drops.nomem), and a leaf that empties
# serves the next class. A burst of 2000 UDP datagrams (bin/udpseq) of 20
# classes by mark, 1 to 20 in turn, from a into bpf_hpfq on va (classify
# 1) behind a slow receiver: the queue holds packets of 16 classes at
# once and drops the rest, so nomem > 0; every datagram is either dropped
# or received at b (none lost between leaves taken and given back), the
# queue ends empty, and its arena pages go with the qdisc.
. "$(dirname "$0")/lib.sh"

N=2000
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
expect "$BQ" load hpfq
veth_pair
quiet_va
slow_receiver
expect "$BQ" -n a qdisc add dev va root bpf_hpfq classify 1 2>/dev/null
awk -v n=$N 'BEGIN { for (i = 0; i < n; i++) print i % 20 + 1 }' >"$T/marks"
# Until all came or 8 s passed: some are dropped, so 8 s, far more than the
# queue takes to drain.
ip netns exec b "$TOP/bin/udpseq" recv 9000 $N 8 >"$T/got" &
rx=$!
sleep 0.2
ip netns exec a "$TOP/bin/udpseq" send $B 9000 <"$T/marks" >/dev/null || fail "udpseq send failed"
arena=$(kind_memory hpfq arena)
wait $rx || true	# not all came: it says so, and exits 1
qlen=$(tc_stat a va qlen)
nomem=$("$BQ" -n a stats -j | "$JGET" '.[0].bpf.drops.nomem')
dropped=$(tc_stat a va drops)
got=$(wc -l <"$T/got")
res="$N datagrams of 20 classes: $got received, $dropped dropped ($nomem nomem), $qlen left queued; arena $arena bytes with the queue"
note "$res"
[ "$qlen" = 0 ] || fail "the queue did not drain: $res"
[ "${nomem:-0}" -gt 0 ] || fail "no packet of a 17th class dropped: $res"
[ $((got + dropped)) = $N ] || fail "datagrams lost or doubled: $res"
[ "${arena:-0}" -gt 0 ] || fail "no arena pages with the burst queued: $res"
expect ip netns exec a tc qdisc del dev va root
[ "$(kind_memory hpfq arena)" = 0 ] || fail "arena $(kind_memory hpfq arena) bytes after the destroy: $res"
exit 0
