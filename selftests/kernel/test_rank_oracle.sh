# The rank queue in the kernel against the exact PIFO (tools/pifo). bpf_rankmark
# (selftests/bpf/rankmark.bpf.c, in bin/bpfqdisc_test) ranks a packet by
# its mark and holds what it queues while its parameter hold is on. A
# trace of 1500 datagrams, each with a random mark below 1000 and its
# number in the payload (bin/udpseq), is queued whole, then released by
# hold 0 and one more datagram; the receiver reads the numbers in the
# order they came. That order must be bin/pifo-oracle's for the same
# marks with the same window, with 0 inversions, and the qdisc's clamped
# the oracle's count of marks out of the window: with 1024 buckets of one
# rank (every mark in the window, none clamped), with 64 (most clamped to
# the window's ends) and with 256 buckets of 4 ranks. And a qdisc
# destroyed with the trace held gives back its skbs and arena pages.
. "$(dirname "$0")/lib.sh"

BQT="$TOP/bin/bpfqdisc_test"
N=1500
T=$(mktemp -d)
backlog=$(sysctl -n net.core.netdev_max_backlog)
trap 'rm -rf "$T"; sysctl -qw net.core.netdev_max_backlog=$backlog' EXIT
# The released burst goes to b's backlog at once: room for all of it.
sysctl -qw net.core.netdev_max_backlog=10000
expect "$BQT" load rankmark
veth_pair
quiet_va
awk -v n=$((N + 1)) 'BEGIN { srand(48); for (i = 0; i < n; i++) print int(rand() * 1000) }' >"$T/marks"
{ sed 's/^/push /' "$T/marks"; for i in $(seq $((N + 1))); do echo pop; done; } >"$T/trace"

# replay SHIFT ORDER: the trace through bpf_rankmark with that window,
# against the oracle's.
replay() {
	ip netns exec a tc qdisc del dev va root 2>/dev/null || true
	expect "$BQT" -n a qdisc add dev va root bpf_rankmark limit 2000 hold 1 \
		rank_shift "$1" rank_order "$2"
	ip netns exec b "$TOP/bin/udpseq" recv 9000 $((N + 1)) 10 >"$T/got" &
	rx=$!
	sleep 0.2
	head -n $N "$T/marks" | ip netns exec a "$TOP/bin/udpseq" send $B 9000 >/dev/null ||
		fail "udpseq send failed"
	wait_backlog a va $N 10 || fail "shift $1 order $2: $(tc_stat a va qlen) of $N queued"
	expect "$BQT" -n a qdisc change dev va root hold 0
	tail -n 1 "$T/marks" | ip netns exec a "$TOP/bin/udpseq" send $B 9000 $N >/dev/null
	wait $rx || fail "shift $1 order $2: $(wc -l <"$T/got") of $((N + 1)) datagrams received"
	"$TOP/bin/pifo-oracle" --shift "$1" --order "$2" <"$T/trace" >"$T/want"
	want_clamped=$(sed -n 's/^clamped //p' "$T/want")
	sed -i '/^clamped /d' "$T/want"
	clamped=$("$BQT" -n a stats -j | "$JGET" '.[0].bpf.clamped')
	check=$("$TOP/bin/pifo-oracle" --shift "$1" --order "$2" --check "$T/got" <"$T/trace" || true)
	first=$(paste "$T/want" "$T/got" | awk '$1 != $2 { print "departure " NR ": " $2 ", the oracle " $1; exit }')
	[ -z "$first" ] || fail "shift $1 order $2: $first; $check"
	[ "$check" = "inversions 0 clamped $want_clamped" ] || fail "shift $1 order $2: $check"
	[ "$clamped" = "$want_clamped" ] ||
		fail "shift $1 order $2: clamped $clamped, the oracle $want_clamped"
	echo "$clamped"
}

# held: the trace's first N datagrams queued, held.
held() {
	ip netns exec a tc qdisc del dev va root 2>/dev/null || true
	expect "$BQT" -n a qdisc add dev va root bpf_rankmark limit 2000 hold 1 rank_order 10
	head -n $N "$T/marks" | ip netns exec a "$TOP/bin/udpseq" send $B 9000 >/dev/null ||
		fail "udpseq send failed"
	wait_backlog a va $N 10 || fail "$(tc_stat a va qlen) of $N queued"
}

# A destroy frees what the queue holds: its skbs and its arena pages.
skbs=$(skb_slab)
held
arena=$(BQ=$BQT kind_memory rankmark arena)
[ "${arena:-0}" -gt 0 ] || fail "no arena pages with $N packets held: '$arena'"
expect ip netns exec a tc qdisc del dev va root
wait_slab_below $((skbs + 64)) 5 || fail "skbuff slab $(skb_slab) after the destroy, $skbs before the trace"
[ "$(BQ=$BQT kind_memory rankmark arena)" = 0 ] ||
	fail "arena $(BQ=$BQT kind_memory rankmark arena) bytes after the destroy, $arena with the trace"

wide=$(replay 0 10)
narrow=$(replay 0 6)
coarse=$(replay 2 8)
[ "$wide" = 0 ] || fail "1024 buckets clamped $wide"
[ "$narrow" -gt 0 ] || fail "64 buckets clamped nothing"
note "$((N + 1)) datagrams in the oracle's order, 0 inversions; clamped: 1024 buckets $wide, 64 $narrow, 256 of 4 ranks $coarse; destroyed holding $N: arena $arena bytes, then 0"
exit 0
