# One bpf_fq holds as many flows as the kernel's fq, whatever the load's
# sizes: 60000 4-tuples of unconnected UDP (orphan_mask raised; maxrate
# set, since fq's fast path makes no flow on an idle qdisc) make 60000
# flows in each (those alive, and those already collected: spraying the
# ports can outlast the 3 s after which both collect an idle flow), counted
# as fq counts them, with bpf_fq loaded with
# --ring-slots 1024. A flow is an entry of arena pages allocated with use
# (include/bq/pages.bpf.h), not of a region sized at load: before them,
# an instance held at most --ring-slots - 1 flows (16383 by default).
# Once the flows have been idle past fq's 3 s and collected, their pages
# go back, as fq's slab objects do (stats, Prometheus and list count
# them): what the kind holds (maps and arena pages, bpfqdisc list) is
# within 10% of what it held with the idle
# qdisc, and its arena pages within 64 kB of the idle qdisc's (the
# bitmap of flow indexes and directory pages stay until a reset).
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
kflows=$(($(kstat a va flows) + $(kstat a va gc)))
expect "$BQ" -n a qdisc replace dev va root bpf_fq orphan_mask 4294967295 maxrate 10gbit
idle_total=$(kind_memory fq total) idle_arena=$(kind_memory fq arena)
spray
flows=$(($(bstat a va flows) + $(bstat a va gc_flows))) nomem=$(bstat a va drops.nomem)
busy_arena=$(kind_memory fq arena)
busy_qdisc=$(bstat a va memory_bytes) busy_prom=$("$BQ" -n a stats dev va --prometheus |
	awk '/^bpfqdisc_memory_bytes\{/ { print $NF; exit }')
note "$FLOWS ports, flows made (alive and collected): fq $kflows, bpf_fq $flows (nomem drops $nomem)"
[ "$kflows" -ge $FLOWS ] || fail "fq made $kflows flows of $FLOWS ports: the method, not bpf_fq"
[ "$flows" -ge $FLOWS ] || fail "bpf_fq made $flows flows of $FLOWS ports (fq: $kflows)"
[ "$nomem" = 0 ] || fail "bpf_fq dropped $nomem datagrams for want of a flow"

# Idle past the collection age, then each datagram of one port collects
# up to 8 idle flows (FQ_GC_MAX), as sch_fq's lookups do; the datagrams
# after those sweep the emptied pages away, 32 slots of a table a
# millisecond, each page at its second look: 2 turns of 2048 slots.
sleep 4
ip netns exec a "$FQSEND" -n $((FLOWS / 8 + 10000)) -p 1 -s 64 $B 1024 >/dev/null
left=$(bstat a va flows) total=$(kind_memory fq total) arena=$(kind_memory fq arena)
note "bpf_fq holds: idle $idle_total bytes (arena $idle_arena), with the flows arena $busy_arena, collected $total (arena $arena, $left flows)"
[ "$busy_arena" -ge $((FLOWS * 72)) ] || fail "arena pages of $FLOWS flows read $busy_arena bytes: not counted"
# The qdisc's own figure has them too, in stats and in Prometheus.
[ "$busy_qdisc" -ge "$busy_arena" ] || fail "stats: the qdisc holds $busy_qdisc bytes, its arena pages $busy_arena"
[ "$busy_prom" = "$busy_qdisc" ] || fail "Prometheus: bpfqdisc_memory_bytes $busy_prom, stats $busy_qdisc"
# Left: the sender's flow, and those the host itself used in the last 3 s.
[ "$left" -le 8 ] || fail "$left flows left after collection"
[ $((total * 10)) -le $((idle_total * 11)) ] ||
	fail "after collection bpf_fq holds $total bytes, more than 1.1x the idle qdisc's $idle_total"
[ "$arena" -le $((idle_arena + 65536)) ] ||
	fail "after collection $arena bytes of arena pages, the idle qdisc had $idle_arena"
exit 0
