# One bpf_fq holds as many flows as the kernel's fq, whatever the load's
# sizes: 60000 4-tuples of unconnected UDP (orphan_mask raised; maxrate
# set, since fq's fast path makes no flow on an idle qdisc) make 60000
# flows in each, counted as fq counts them, with bpf_fq loaded with
# --ring-slots 1024. A flow is an entry of arena pages allocated with use
# (include/bq/pages.bpf.h), not of a region sized at load: before them,
# an instance held at most --ring-slots - 1 flows (16383 by default).
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

FLOWS=60000
load_fq --ring-slots 1024
veth_pair
ip netns exec a ping -q -c 1 -W 2 $B >/dev/null || fail "no ping"
spray() { # FLOWS datagrams, each to a port of its own
	ip netns exec a "$FQSEND" -n $FLOWS -p $FLOWS -s 64 $B 1024 >/dev/null
}

expect ip netns exec a tc qdisc replace dev va root fq orphan_mask 4294967295 maxrate 10gbit
spray
kflows=$(kstat a va flows)
expect "$BQ" -n a qdisc replace dev va root bpf_fq orphan_mask 4294967295 maxrate 10gbit
spray
flows=$(bstat a va flows) nomem=$(bstat a va drops.nomem)
note "$FLOWS ports, flows: fq $kflows, bpf_fq $flows (nomem drops $nomem)"
[ "$kflows" -ge $FLOWS ] || fail "fq made $kflows flows of $FLOWS ports: the method, not bpf_fq"
[ "$flows" -ge $FLOWS ] || fail "bpf_fq made $flows flows of $FLOWS ports (fq: $kflows)"
[ "$nomem" = 0 ] || fail "bpf_fq dropped $nomem datagrams for want of a flow"
exit 0
