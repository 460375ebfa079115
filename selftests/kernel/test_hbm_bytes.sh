# hbm_ip_bytes (include/hbm_verdict.h) fed by both contexts: TCP with TSO
# packets through a cgroup with hbm's egress program and a bpf_hbm root
# qdisc on the same veth, neither limiting, count the same IP bytes for
# the cgroup's traffic. The cgroup program counts from the headers it
# parses, the qdisc from tc's pkt_len. Packets of the kernel's own (ARP,
# IPv6, the TIME_WAIT ACKs of its control socket) reach the qdisc only;
# quiet_va keeps the first two off, and the third is in another aggregate.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hbm_lib.sh"

ID=3
expect "$BQ" load hbm
veth_pair
quiet_va
expect "$BQ" -n a qdisc add dev va root bpf_hbm
ip netns exec a ethtool -k va | grep -q "tcp-segmentation-offload: on" ||
	skip "va has no TSO: no GSO packets to count"
hbm_bg -n $ID -r 100000 -j
# The cgroup's id, the qdisc's key for it: hbm removes the cgroup at exit.
id=$(stat -c %i "$CG/hbm$ID")
iperf_server b
in_cgroup "$CG/hbm$ID" ip netns exec a iperf3 -c $B -t 2 >/dev/null || fail "iperf3 failed"
# The last FIN and ACKs, then hbm's stats at its exit.
sleep 0.5
kill -TERM $HBM_PID
wait $HBM_PID || fail "hbm exited $?"
HBM_PIDS=
cg=$(cat "$TMPD/hbm.$ID.out")
aggs=$("$BQ" -n a class show dev va -j)
qd=$(echo "$aggs" | jq -c --argjson id "$id" '[.[] | select(.id == $id)][0] // {pkts: 0, bytes: 0}')
note "hbm (cgroup egress): $(echo "$cg" | jq -c '{packets, bytes, pkts_dropped}')"
note "bpf_hbm, aggregate of /hbm$ID: $qd; all: $(echo "$aggs" | jq -c '[.[] | {id, pkts, bytes}]')"
echo "$cg" | jq -e '.pkts_dropped == 0' >/dev/null || fail "hbm dropped packets: $cg"
qpkts=$(echo "$qd" | "$JGET" .pkts) qbytes=$(echo "$qd" | "$JGET" .bytes)
cpkts=$(echo "$cg" | "$JGET" .packets) cbytes=$(echo "$cg" | "$JGET" .bytes)
[ "$qpkts" -gt 0 ] || fail "bpf_hbm counted no packets of /hbm$ID: $aggs"
# Over 1500 bytes a packet on average: the traffic had GSO packets to count.
[ "$qbytes" -gt $((qpkts * 1500)) ] || fail "no GSO: $qpkts packets, $qbytes bytes"
[ "$qpkts" = "$cpkts" ] || fail "packets: hbm $cpkts, bpf_hbm $qpkts"
[ "$qbytes" = "$cbytes" ] || fail "IP bytes: hbm $cbytes, bpf_hbm $qbytes ($((qbytes - cbytes)))"
exit 0
