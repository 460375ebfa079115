# bpfqdisc load PATH with a qdisc built outside the tree (issue 28): the
# Makefile builds .output/oot/myq.bpf.o on the host as a user would (make
# install into a DESTDIR, bpfqdisc new myq in a directory of its own,
# clang with only pkg-config --cflags bpfqdisc; the VM has no clang). Here
# it is loaded from a copy that then goes: every later command (a new
# process) reads its tables from its pins. A qdisc with a parameter through
# the CLI carries traffic, stats -j and --prometheus show it, the parameter
# changes live, plain tc makes one with its defaults, and unload leaves
# nothing pinned.
. "$(dirname "$0")/lib.sh"
OOT=$TOP/.output/oot
PINS=/sys/fs/bpf/bpfqdisc
[ -s "$OOT/myq.bpf.o" ] || fail "no $OOT/myq.bpf.o: make builds it, on the host"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cp "$OOT/myq.bpf.o" "$W/"
cd "$W"

expect "$BQ" load ./myq.bpf.o
rm myq.bpf.o
"$BQ" params myq | grep -Eq '^limit +count +1000 ' || fail "params myq: $("$BQ" params myq 2>&1)"
"$BQ" list | grep -q "^bpf_myq    loaded     from $W/myq.bpf.o" || fail "list: $("$BQ" list 2>&1)"

veth_pair
quiet_va
expect "$BQ" -n a qdisc add dev va root bpf_myq limit 50
ip netns exec a ping -q -c 5 -i 0.1 -W 2 $B >/dev/null || fail "ping through bpf_myq"
j=$("$BQ" -n a stats -j)
# bpfqdisc new's kind is bpf_fifo's, which a bypassing kernel (test_bypass)
# lets every ping, finding it empty, go past.
seen='.[0].packets'
kernel_bypasses && seen=0
printf '%s\n' "$j" | jq -e 'length == 1 and .[0].kind == "bpf_myq" and .[0].options.limit == 50 and
	.[0].packets >= 5 and .[0].bpf.dequeued == '"$seen"' and (.[0].bpf | has("qlen_max"))' >/dev/null ||
	fail "stats -j: $j"
prom=$("$BQ" -n a stats --prometheus)
printf '%s\n' "$prom" | grep -q '^bpfqdisc_myq_qlen_max{.*} [0-9]' || fail "no myq_qlen_max in: $prom"
sent=$(printf '%s\n' "$prom" | sed -n 's/^bpfqdisc_sent_packets_total{.*kind="bpf_myq".*} //p')
[ "${sent:-0}" -ge 5 ] || fail "no 5 sent packets of bpf_myq in: $prom"

expect "$BQ" -n a qdisc change dev va root limit 20
limit=$("$BQ" -n a stats -j | "$JGET" '.[0].options.limit')
[ "$limit" = 20 ] || fail "limit $limit after qdisc change, expected 20"
ip netns exec a ping -q -c 2 -i 0.1 -W 2 $B >/dev/null || fail "ping after the change"

# Plain tc: the kind's defaults.
expect ip netns exec a tc qdisc del dev va root
expect ip netns exec a tc qdisc add dev va root bpf_myq
limit=$("$BQ" -n a stats -j | "$JGET" '.[0].options.limit')
[ "$limit" = 1000 ] || fail "limit $limit of a qdisc tc made, expected the default 1000"

expect_err 1 "bpf_myq has 1 live qdisc" "$BQ" unload myq
expect ip netns exec a tc qdisc del dev va root
expect "$BQ" unload myq
[ ! -e $PINS/myq ] || fail "left pinned: $(ls $PINS/myq)"
expect_err 2 "unknown qdisc 'myq'" "$BQ" params myq
