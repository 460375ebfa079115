# bpfqdisc load PATH with a struct_ops Qdisc_ops written without the
# framework (selftests/bpf/plain_fifo.bpf.c, a minimal FIFO): registered,
# its link and object pinned; tc makes a qdisc of it that carries traffic;
# list shows it with tc's counters; the commands that need the framework's
# tables say it has none; unload refuses while it is live, in any network
# namespace, and then leaves nothing pinned.
. "$(dirname "$0")/lib.sh"
PINS=/sys/fs/bpf/bpfqdisc
W=$(mktemp -d)
trap 'umount "$W/ns/net" "$W/ns" 2>/dev/null; rm -rf "$W"' EXIT
cp "$TOP/.output/plain_fifo.bpf.o" "$W/"
cd "$W"

# Without the framework's .init, any user namespace could create its
# qdiscs: root must say --unguarded, and nothing else.
unguarded="bpf_plainfifo has none of the bpfqdisc framework: every user namespace .*--unguarded"
expect_err 2 "$unguarded" "$BQ" load ./plain_fifo.bpf.o
expect_err 2 "$unguarded" "$BQ" load ./plain_fifo.bpf.o limit 5
expect_err 2 "$unguarded" "$BQ" load ./plain_fifo.bpf.o --unguarded --max-instances 4
[ ! -e $PINS/plainfifo ] || fail "a refused load left $(ls $PINS/plainfifo)"
expect "$BQ" load ./plain_fifo.bpf.o --unguarded
[ "$(ls $PINS/plainfifo | tr '\n' ' ')" = "bq_object link " ] || fail "pins: $(ls $PINS/plainfifo)"
veth_pair
quiet_va
expect ip netns exec a tc qdisc replace dev va root bpf_plainfifo
[ "$(qdisc_kind a va)" = bpf_plainfifo ] || fail "va has $(qdisc_kind a va)"
ip netns exec a ping -q -c 5 -i 0.1 -W 2 $B >/dev/null || fail "ping through bpf_plainfifo"
list=$("$BQ" -n a list)
printf '%s\n' "$list" | grep -q "^bpf_plainfifo loaded     from $W/plain_fifo.bpf.o, without the framework" ||
	fail "list: $list"
sent=$(printf '%s\n' "$list" | grep -A1 '^  dev va handle' | sed -n 's/.*sent [0-9]* bytes \([0-9]*\) pkt dropped 0 .*/\1/p')
[ "${sent:-0}" -ge 5 ] || fail "list shows no 5 packets sent on va: $list"

none="bpf_plainfifo has none of the bpfqdisc framework's tables"
expect_err 1 "$none" "$BQ" params plainfifo
expect ip -n a link add d0 type dummy
expect_err 1 "$none" "$BQ" -n a qdisc add dev d0 root bpf_plainfifo

expect_err 1 "bpf_plainfifo has 1 live qdisc\(s\) \(1 in this network namespace\)" "$BQ" -n a unload plainfifo
# Issue 38.3: from another network namespace (the initial one) too, and
# with one more in a namespace that has no name in /run/netns and no
# process: a bind mount of it elsewhere alone keeps it.
expect_err 1 "bpf_plainfifo has 1 live qdisc\(s\) \(0 in this network namespace\)" "$BQ" unload plainfifo
mkdir "$W/ns"
expect mount --bind "$W/ns" "$W/ns"
expect mount --make-private "$W/ns"
touch "$W/ns/net"
expect unshare --net="$W/ns/net" dash -c 'ip link add d1 type dummy && tc qdisc add dev d1 root bpf_plainfifo'
expect_err 1 "bpf_plainfifo has 2 live qdisc\(s\) \(0 in this network namespace\)" "$BQ" unload plainfifo
expect nsenter --net="$W/ns/net" tc qdisc del dev d1 root
expect ip netns exec a tc qdisc del dev va root
expect "$BQ" -n a unload plainfifo
[ ! -e $PINS/plainfifo ] || fail "left pinned: $(ls $PINS/plainfifo)"
ip netns exec a tc qdisc add dev va root bpf_plainfifo 2>/dev/null && fail "bpf_plainfifo still registered"
true
