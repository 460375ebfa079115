# bpf_hbm's packet limit is shared by every aggregate: no aggregate may
# hold all of it (agg_limit, default 1000 packets; drop reason agg_limit).
# Two unprivileged senders in cgroups with classes of 1 Mbit/s flood
# 64-byte UDP. Their 92-byte IP packets are under 120 bytes, so only the
# horizon drops them: 125 KB of burst and 625 KB of horizon at 1 Mbit/s are
# 8150 packets per aggregate, and the two filled the 10000 of the qdisc
# (9998 held). A third cgroup's burst of 500 datagrams then got 199 through
# (500 without the flood). With the cap the floods hold 2000 and leave
# 8000 free: no path of the qdisc drops the burst (no class: not limited),
# so all 500 must pass.
. "$(dirname "$0")/lib.sh"

CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CG" ] || skip "no cgroup2 mount"
command -v setpriv >/dev/null || skip "setpriv is not in the VM"
FLOODS=
cleanup() {
	kill $FLOODS 2>/dev/null || true
	for p in $FLOODS; do wait "$p" 2>/dev/null || true; done
	for d in "$CG/hbmfl1" "$CG/hbmfl2" "$CG/hbmburst/c1" "$CG/hbmburst"; do
		rmdir "$d" 2>/dev/null || true
	done
}
trap cleanup EXIT
mkdir -p "$CG/hbmfl1" "$CG/hbmfl2" "$CG/hbmburst/c1"
# One socket's send buffer must hold a flood: an attacker opens more
# sockets where wmem_max is smaller.
[ "$(sysctl -n net.core.wmem_max)" -ge 4194304 ] || expect sysctl -qw net.core.wmem_max=4194304

veth_pair
quiet_va
expect "$BQ" load hbm
expect "$BQ" -n a qdisc add dev va root bpf_hbm
for i in 1 2; do
	expect "$BQ" -n a class add dev va cgroup /hbmfl$i rate 1mbit
	in_cgroup "$CG/hbmfl$i" nsenter --net=/run/netns/a \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		nice -n 19 "$TOP/bin/udpflood" $B 9 4 64 20000 >/dev/null &
	FLOODS="$FLOODS $!"
done
wait_backlog a va 1900 5 || fail "the floods queued only $(tc_stat a va qlen) packets"
# Time for the floods to fill what they may.
sleep 0.5
held=$(tc_stat a va qlen)
expect "$TOP/bin/sockfleet" -n a $B 9 1 500 0 cgroup "$CG/hbmburst"
show=$("$BQ" -n a class show dev va -j)
json=$("$BQ" -n a stats dev va -j)
got=$(echo "$show" | jq '[.[] | select(.cgroup == "/hbmburst/c1") | .pkts] | add // 0')
capped=$(echo "$json" | "$JGET" '.[0].bpf.drops.agg_limit' 2>/dev/null || echo none)
note "two floods held $held packets; the burst got $got of 500 through; agg_limit drops: $capped"
[ "$got" = 500 ] || fail "a third aggregate's burst got $got of 500 through beside two floods holding $held packets"
[ "$held" -le 2100 ] || fail "two floods held $held packets, agg_limit is 1000 each"
[ "$capped" != none ] && [ "$capped" -gt 0 ] || fail "no agg_limit drops counted: $json"
echo "$show" | jq -e 'all(.[] | select(.cgroup | startswith("/hbmfl")); .dropped > 0)' >/dev/null ||
	fail "a flood's aggregate counted no drops: $show"
"$BQ" params hbm | grep -q "agg_limit" || fail "bpfqdisc params hbm shows no agg_limit: $("$BQ" params hbm)"
exit 0
