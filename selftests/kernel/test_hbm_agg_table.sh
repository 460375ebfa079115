# bpf_hbm's aggregate table (HBM_AGGS - 1 = 255 per qdisc) full of busy
# cgroups must not switch off a class set later: 300 cgroups send (an
# aggregate each, while the table has room), then a class on a 301st.
# Its TCP flow is held to the class's rate in the overflow aggregate (fail
# closed: not key 0's rate, here unlimited), counted in agg_overflow; once
# the 300 stop, their idle aggregates are reused (aggs_aged) and the
# class gets an aggregate of its own, still held to its rate.
# Rate verdicts: run on the virtual clock (tools/vmtest --icount).
. "$(dirname "$0")/lib.sh"

CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CG" ] || skip "no cgroup2 mount"
command -v iperf3 >/dev/null || skip "no iperf3"
[ "${VMTEST_ICOUNT:-0}" = 1 ] || skip "rate verdicts need the virtual clock (vmtest --icount)"
D="$CG/hbmtab" PINGS= HOLD=
stop_pings() {
	[ -z "$PINGS" ] || kill $PINGS 2>/dev/null || true
	for p in $PINGS; do wait "$p" 2>/dev/null || true; done
	PINGS=
}
cleanup() {
	stop_pings
	[ -z "$HOLD" ] || kill "$HOLD" 2>/dev/null || true
	for d in "$D"/c*; do rmdir "$d" 2>/dev/null || true; done
	rmdir "$D" 2>/dev/null || true
}
trap cleanup EXIT
hold_netstamp

veth_pair
expect ip netns exec b tc qdisc add dev vb root netem delay 1ms limit 10000
expect "$BQ" load hbm
expect "$BQ" -n a qdisc add dev va root bpf_hbm
hstat() { "$BQ" -n a stats dev va -j | "$JGET" ".[0].bpf.$1"; }

i=1
while [ $i -le 301 ]; do mkdir -p "$D/c$i"; i=$((i + 1)); done
# A datagram every 0.2 s from a socket in each of c1..c300 (one process,
# not 300 pings: it took the test 120 s of wall time to start those).
expect ip netns exec a ping -q -c 1 -W 2 $B >/dev/null	# ARP first
"$TOP/bin/sockfleet" -n a $B 9 300 0 200 cgroup "$D" &
PINGS=$!
i=0
until [ "$(hstat aggregates)" = 255 ]; do
	i=$((i + 1))
	[ $i -le 100 ] || fail "300 busy cgroups made $(hstat aggregates) aggregates"
	sleep 0.1
done
expect "$BQ" -n a class add dev va cgroup /hbmtab/c301 rate 20mbit

held_to "$D/c301" 20 "table full: /hbmtab/c301"
over=$(hstat agg_overflow)
note "agg_overflow $over, aggs_aged $(hstat aggs_aged)"
[ "$over" -gt 0 ] || fail "a full table counted no overflow"

stop_pings
sleep 1.5
held_to "$D/c301" 20 "pings stopped: /hbmtab/c301"
aged=$(hstat aggs_aged)
note "aggs_aged $aged"
[ "$aged" -gt 0 ] || fail "no idle aggregate was reused"
show=$("$BQ" -n a class show dev va -j)
echo "$show" | jq -e 'any(.[]; .cgroup == "/hbmtab/c301" and .class and .pkts > 0)' >/dev/null ||
	fail "/hbmtab/c301 has no aggregate once the table has idle ones: $(echo "$show" | jq -c '.[] | select(.cgroup == "/hbmtab/c301")')"
exit 0
