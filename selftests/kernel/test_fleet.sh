# net.core.default_qdisc=bpf_fq, as a fleet sets fq: a multi-queue device
# that comes up after the sysctl gets mq with a bpf_fq child per tx queue,
# each its own instance with the kind's defaults; one up before keeps its
# qdiscs until `tc qdisc replace dev X root mq`. Every child is told apart
# by (netns, ifindex, parent, handle) in list, stats -j and Prometheus,
# though all have handle 0: with traffic on several queues of a 4-queue
# veth, each child's BPF counters are its own (its dequeued bytes are tc's
# bytes of it), and no Prometheus series repeats.
. "$(dirname "$0")/lib.sh"

old=$(sysctl -n net.core.default_qdisc)
restore() { sysctl -qw net.core.default_qdisc="$old"; }
trap restore EXIT
children() { # NS DEV KIND: how many children of kind KIND DEV's root mq has
	ip netns exec "$1" tc qdisc show dev "$2" | grep -Ec "^qdisc $3 [0-9a-f]*: parent [0-9a-f]*:[1-4]( |$)" || true
}

expect "$BQ" load fq
expect ip netns add c
# ifb: multi-queue, and not noqueue by default (veth and dummy are).
expect ip -n c link add ifb0 numtxqueues 4 type ifb
expect ip -n c link set ifb0 up
expect sysctl -qw net.core.default_qdisc=bpf_fq
expect ip -n c link add ifb1 numtxqueues 4 type ifb
expect ip -n c link set ifb1 up
[ "$(children c ifb1 bpf_fq)" = 4 ] || fail "ifb1, up after the sysctl: $(ip netns exec c tc qdisc show dev ifb1)"
[ "$(children c ifb0 "$old")" = 4 ] || fail "ifb0, up before the sysctl: $(ip netns exec c tc qdisc show dev ifb0)"
expect ip netns exec c tc qdisc replace dev ifb0 root mq
[ "$(children c ifb0 bpf_fq)" = 4 ] || fail "ifb0 after replace root mq: $(ip netns exec c tc qdisc show dev ifb0)"
defaults=$("$BQ" list | awk '/^  defaults:/ { sub(/^  defaults:/, ""); print; exit }')
# An "auto" default is worked out at the first packet (a router
# solicitation can reach a child): any value matches it.
defaults=$(echo "$defaults" | sed 's/ \([a-z_0-9]*\) auto/ \1 [^ ]*/g')
n=$("$BQ" -n c list | grep -c "^  dev ifb[01] handle 0:0 parent [0-9a-f]*:[1-4]$defaults$")
[ "$n" = 8 ] || fail "$n of 8 children listed with the defaults: $("$BQ" -n c list)"

# veth is noqueue by default; replace root mq gives the default children.
veth_pair 4
expect ip netns exec a tc qdisc replace dev va root mq
[ "$(children a va bpf_fq)" = 4 ] || fail "va after replace root mq: $(ip netns exec a tc qdisc show dev va)"
expect iperf_server b
ip netns exec a iperf3 -c $B -t 3 -P 8 >/dev/null || fail "iperf3 failed"
json=$("$BQ" -n a stats -j)
echo "$json" | jq -e 'length == 4 and ([.[] | .parent] | unique | length) == 4 and
	all(.[]; .handle == "0:" and .bpf.dequeued_bytes == .bytes) and
	([.[] | select(.bytes > 0)] | length) >= 2' >/dev/null ||
	fail "children's counters are not each their own: $json"
note "bytes per child: $(echo "$json" | jq -c '[.[] | .bytes]')"
expect "$BQ" -n a qdisc change dev va parent "$(echo "$json" | "$JGET" '.[1].parent')" limit 77
[ "$("$BQ" -n a stats -j | jq -c '[.[] | .options.limit] | sort')" = "[77,10000,10000,10000]" ] ||
	fail "change of one child: $("$BQ" -n a stats -j | jq -c '[.[] | .options.limit]')"

prom=$("$BQ" -n a stats --prometheus)
dup=$(echo "$prom" | grep '^bpfqdisc_' | sed 's/ [0-9]*$//' | sort | uniq -d)
[ -z "$dup" ] || fail "repeated Prometheus series: $dup"
lint=$(echo "$prom" | promtool check metrics 2>&1 || true)
# Issue 38.13: not a word from promtool, warnings included.
[ -z "$lint" ] || fail "promtool: $lint"
for m in throttled_total resets_total; do
	echo "$prom" | grep -q "^bpfqdisc_$m{.*kind=\"bpf_fq\"" || fail "no bpfqdisc_$m (docs/fq.md) in: $prom"
done

# Unregistered, the default kind is still what the kernel creates: unload
# refuses without --force, and with it (systemctl restart) what the kernel
# creates then stays visible, before and after the kind is loaded again.
expect_err 1 "bpf_fq is net.core.default_qdisc" "$BQ" unload fq
expect "$BQ" unload fq --force
expect ip -n c link add ifb2 numtxqueues 4 type ifb
expect ip -n c link set ifb2 up
[ "$(children c ifb2 bpf_fq)" = 4 ] || fail "ifb2 after unload: $(ip netns exec c tc qdisc show dev ifb2)"
n=$("$BQ" -n c stats -j | jq '[.[] | select(.dev == "ifb2" and .bpf != null)] | length')
[ "$n" = 4 ] || fail "$n of ifb2's 4 children in stats after unload --force"
expect "$BQ" load fq
n=$("$BQ" -n c stats -j | jq '[.[] | select(.dev == "ifb2" and .bpf != null)] | length')
[ "$n" = 4 ] || fail "$n of ifb2's 4 children in stats after the load"
