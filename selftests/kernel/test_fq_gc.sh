# Flow memory: a churn of 100k short flows (one datagram each to 100k
# different 4-tuples; orphan_mask 0xffffffff makes each its own flow) never
# takes bpf_fq past flows_max (4096 here), drops nothing for want of a flow
# (idle flows are reclaimed, oldest first), and once the flows have been
# idle for 3 s, ordinary traffic frees them (8 per packet) until the flows
# gauge is back near zero.
# The kernel's fq is shown alongside, after a churn of 50k (for time).
# Both have maxrate set: their fast path would otherwise create no flow at
# all while the queue is empty.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

load_fq
veth_pair
ip netns exec a ping -q -c 1 -W 2 $B >/dev/null || fail "no ping"
churn() { # N datagrams: 2 sockets x N/2 destination ports
	ip netns exec a "$FQSEND" -f 2 -n $1 -p $(($1 / 2)) -s 64 $B 10000 >/dev/null
}
after_idle() { # 3.5 s idle, then 600 datagrams of one flow
	sleep 3.5
	ip netns exec a "$FQSEND" -n 600 -s 64 $B 9 >/dev/null
}

expect "$BQ" -n a qdisc replace dev va root bpf_fq orphan_mask 4294967295 flows_max 4096 maxrate 10gbit
churn 100000
flows=$(bstat a va flows) gc=$(bstat a va gc_flows) nomem=$(bstat a va drops.nomem)
note "bpf_fq after the churn: flows $flows, gc_flows $gc, nomem drops $nomem"
[ "$flows" -le 4096 ] || fail "bpf_fq: $flows flows, flows_max 4096"
[ "$nomem" = 0 ] || fail "bpf_fq dropped $nomem datagrams for want of a flow"
[ $((flows + gc)) -ge 100000 ] || fail "bpf_fq: $flows flows + $gc freed, for 100000 4-tuples"
after_idle
flows=$(bstat a va flows) gc=$(bstat a va gc_flows)
note "bpf_fq 3.5 s later, after 600 datagrams: flows $flows, gc_flows $gc"
[ "$flows" -le 8 ] || fail "bpf_fq: $flows flows left after 3.5 s idle and 600 datagrams"

expect ip netns exec a tc qdisc replace dev va root fq orphan_mask 4294967295 maxrate 10gbit
churn 50000
k1="flows $(kstat a va flows), gc $(kstat a va gc)"
after_idle
note "fq after the churn: $k1; 3.5 s later, after 600 datagrams: flows $(kstat a va flows), gc $(kstat a va gc)"
exit 0
