# The inactive gauge when the packet pool is full. With --ring-slots 4096
# bpf_fq holds 4095 packets, fewer than its limit of 10000: 41 sockets
# fill the pool with 4100 datagrams held 2 s (SO_TXTIME), then 500 new
# sockets send one datagram each: the full pool makes room by pushing out
# held packets (drops.pushed_out; each new datagram leaves at once, so a
# few make room for all), and none is dropped for want of a slot (before
# push-out they were, nomem, and inactive had to count a new flow whose
# only packet was dropped). Counters must stay exact through it: after
# the held packets left every flow is inactive
# (inactive = flows); 3 s later one socket sends 100 datagrams, 1 ms
# apart, and each enqueue collects up to 8 idle flows: then only that
# socket's flow is left, inactive (a gauge below its true value wraps
# around when the collector frees what it did not count). maxrate
# keeps the new flows off the fast path, so that they are classified.
# The link carries nothing else (quiet_va), and flows and inactive are
# compared from one snapshot (an ARP or IPv6 packet between two reads
# once made them differ).
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

veth_pair
quiet_va
load_fq --ring-slots 4096
expect "$BQ" -n a qdisc replace dev va root bpf_fq maxrate 10gbit
ip netns exec a "$FQSEND" -f 41 -c -n 4100 -t 2000000000 $B 9 >/dev/null
qlen=$(tc_stat a va qlen)
[ "$qlen" -ge 4090 ] || fail "only $qlen datagrams held: the pool was not filled"
nomem0=$(bstat a va drops.nomem)
ip netns exec a "$FQSEND" -C -n 500 $B 9 >/dev/null
nomem=$(($(bstat a va drops.nomem) - nomem0))
pushed=$(bstat a va drops.pushed_out)
[ "$nomem" = 0 ] && [ "$pushed" -gt 0 ] ||
	fail "500 datagrams to new flows into a full pool: $nomem nomem drops, $pushed held packets pushed out"
gauges() { "$BQ" -n a stats dev va -j | jq -r '.[0].bpf | "flows \(.flows), inactive \(.inactive)"'; }
# all_inactive: in one snapshot, every flow is inactive.
all_inactive() { gauges | awk '{ exit !($2 + 0 == $4 + 0) }'; }
full=$(gauges)

idle() { [ "$(tc_stat a va qlen)" = 0 ]; }
wait_for 10 idle || fail "the held packets never left: qlen $(tc_stat a va qlen)"
drained=$(gauges)
all_inactive || fail "nothing queued, yet $(gauges)"
sleep 3.5
ip netns exec a "$FQSEND" -c -n 100 -i 1000 $B 9 >/dev/null
wait_for 10 idle || fail "qlen $(tc_stat a va qlen) after the collector's run"
[ "$(bstat a va flows)" -le 8 ] || fail "idle flows not collected: $(gauges)"
all_inactive || fail "collected, nothing queued, yet $(gauges)"
note "pool full: $full, $pushed pushed out, $nomem nomem drops; drained: $drained; collected: $(gauges)"
exit 0
