# bpf_hbm with shared_default on: a key without a class is key 0, shared
# by every unclassed sender. A listener's SYN-ACKs leave from its request
# socket, which is no full socket; they must count as the listener's
# cgroup, as the kernel's cgroup egress programs see them (skb_to_full_sk),
# not as key 0: else an unprivileged user in a cgroup without a class,
# flooding within key 0's rate, drops every SYN-ACK of every classed
# service on the host. A TCP server (netserver) in cgroup /hbmsyn_svc
# with a class of 100 Mbit/s; key 0 at rate 10 Mbit/s; uid 65534 in
# /hbmsyn_att (no class) floods 1400- and 60-byte UDP, which keeps key
# 0's clock at the drop horizon for packets of 120 bytes or less. Its
# connection rate (netperf TCP_CRR from b, 1 s) under the flood must stay
# at half of what it is alone or more.
. "$(dirname "$0")/lib.sh"

CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CG" ] || skip "no cgroup2 mount"
command -v setpriv >/dev/null && command -v netperf >/dev/null ||
	skip "setpriv or netperf is not in the VM"
SRV= FLOODS=
cleanup() {
	kill $FLOODS $SRV 2>/dev/null || true
	for p in $FLOODS $SRV; do wait "$p" 2>/dev/null || true; done
	rmdir "$CG/hbmsyn_svc" "$CG/hbmsyn_att" 2>/dev/null || true
}
trap cleanup EXIT
mkdir -p "$CG/hbmsyn_svc" "$CG/hbmsyn_att"
[ "$(sysctl -n net.core.wmem_max)" -ge 4194304 ] || expect sysctl -qw net.core.wmem_max=4194304

veth_pair
quiet_va
expect "$BQ" load hbm
expect "$BQ" -n a qdisc add dev va root bpf_hbm rate 10mbit shared_default on
expect "$BQ" -n a class add dev va cgroup /hbmsyn_svc rate 100mbit
in_cgroup "$CG/hbmsyn_svc" ip netns exec a netserver -D >/dev/null 2>&1 &
SRV=$!
sleep 0.5

# crr: TCP_CRR transactions per second from b to the server, for 1 s.
crr() {
	ip netns exec b netperf -H $A -t TCP_CRR -l 1 -P 0 -- -r 64,64 |
		awk 'NF >= 6 { printf "%d", $6; exit }'
}
alone=$(crr)
[ "${alone:-0}" -gt 0 ] || fail "no TCP_CRR transaction without a flood"
for size in 1400 60; do
	in_cgroup "$CG/hbmsyn_att" nsenter --net=/run/netns/a \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		nice -n 19 "$TOP/bin/udpflood" $B 9 3 $size 0 >/dev/null &
	FLOODS="$FLOODS $!"
done
sleep 0.5
flooded=$(crr)
note "TCP_CRR of a classed server: $alone/s alone, ${flooded:-0}/s beside uid 65534's flood in key 0"
[ $((${flooded:-0} * 2)) -ge "$alone" ] ||
	fail "an unclassed flood in key 0 cut a classed server's connections from $alone/s to ${flooded:-0}/s"
exit 0
