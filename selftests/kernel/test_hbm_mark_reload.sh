# bpf_hbm's marker (hbm_mark, tcx egress) after a reload: systemctl restart
# (unload --force, load) under a live bpf_hbm, then the qdisc made again,
# still gets CE marks; and once no bpf_hbm is left on a device, the next
# bpfqdisc command takes hbm_mark off it, also after a plain tc qdisc del.
. "$(dirname "$0")/lib.sh"

ce() { "$BQ" -n a stats dev va -j | "$JGET" '.[0].bpf.ce_marked'; }
marker_on() { ip netns exec a bpftool net show dev va | grep -q 'tcx/egress.*hbm_mark'; }
# ecn_flows: 2 s of 2 ECN flows a -> b through bpf_hbm at 20 Mbit/s.
ecn_flows() { iperf_server b; iperf_mbps a $B 2 -P 2 >/dev/null; }

expect "$BQ" load hbm
veth_pair
ip netns exec a sysctl -qw net.ipv4.tcp_ecn=1
expect "$BQ" -n a qdisc add dev va root bpf_hbm rate 20mbit
marker_on || fail "no hbm_mark on va: $(ip netns exec a bpftool net show dev va)"
ecn_flows
before=$(ce)
[ "$before" -gt 0 ] || fail "no CE marks before the reload: $("$BQ" -n a stats dev va)"

expect "$BQ" unload hbm --force
expect "$BQ" load hbm
expect ip netns exec a tc qdisc del dev va root
expect "$BQ" -n a qdisc add dev va root bpf_hbm rate 20mbit
ecn_flows
after=$(ce)
note "CE marks: $before before the reload, $after after it"
[ "$after" -gt 0 ] || fail "no CE marks after unload --force, load and a new qdisc: $("$BQ" -n a stats dev va)"

expect ip netns exec a tc qdisc del dev va root
expect "$BQ" list >/dev/null
sleep 0.5	# an unpinned link is detached by a work item
marker_on && fail "hbm_mark stayed on va after its bpf_hbm went: $(ip netns exec a bpftool net show dev va)"
exit 0
