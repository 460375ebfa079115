# A BPF qdisc is root or mq child only: under htb the kernel refuses it.
. "$(dirname "$0")/lib.sh"

expect "$BQ" load fifo
veth_pair
expect ip netns exec a tc qdisc replace dev va root handle 1: htb default 10
expect ip netns exec a tc class add dev va parent 1: classid 1:10 htb rate 100mbit
set +e
msg=$(ip netns exec a tc qdisc add dev va parent 1:10 bpf_fifo 2>&1)
rc=$?
set -e
note "tc said: $msg"
[ $rc != 0 ] || fail "bpf_fifo accepted under htb"
echo "$msg" | grep -q "BPF qdisc only supported on root or mq" || fail "unexpected message: $msg"
n=$("$BQ" list | grep -c '^  \(dev\|ifindex\)' || true)
[ "$n" = 0 ] || fail "a refused qdisc left $n instance(s)"
exit 0
