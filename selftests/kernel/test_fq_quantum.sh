# Default quanta as sch_fq's: 2 and 10 times psched_mtu (the device's MTU
# plus its link header), compared with the kernel's fq on the same devices
# in the same boot: a veth with a 9000-byte MTU (18028 and 90140) and lo
# (65536: 131100 and 655500). bpf_fq works them out when it is made, as
# fq does, so qdisc show gives them before any packet (where the kernel
# bypasses a qdisc, the first may come much later); a quantum the user
# gives stays as given.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

load_fq
veth_pair
ip -n a link set va mtu 9000
ip -n b link set vb mtu 9000

# quanta NS DEV: "QUANTUM INITIAL" of DEV's root fq, then of bpf_fq before any packet.
quanta() {
	ip netns exec $1 tc qdisc replace dev $2 root fq || fail "fq on $2"
	ip netns exec $1 tc -j qdisc show dev $2 root | jq -r '.[0].options | "\(.quantum) \(.initial_quantum)"'
	"$BQ" -n $1 qdisc replace dev $2 root bpf_fq || fail "bpf_fq on $2"
	"$BQ" -n $1 qdisc show dev $2 -j | jq -r '.[0].options | "\(.quantum) \(.initial_quantum)"'
}

quiet_va	# nothing of va's own before the first qdisc show
set -- $(quanta a va)
res="veth mtu 9000: fq $1 $2, bpf_fq $3 $4"
[ "$1 $2" = "18028 90140" ] || fail "fq's quanta are not what this test expects: $res"
[ "$1 $2" = "$3 $4" ] || fail "$res"
ip netns add l
ip -n l link set lo up
set -- $(quanta l lo)
res="$res; lo: fq $1 $2, bpf_fq $3 $4"
[ "$1 $2" = "$3 $4" ] || fail "$res"

expect "$BQ" -n a qdisc replace dev va root bpf_fq quantum 4500
before=$("$BQ" -n a qdisc show dev va -j | jq -r '.[0].options | "\(.quantum) \(.initial_quantum)"')
ip netns exec a ping -q -c 1 -W 2 $B >/dev/null || fail "ping"
after=$("$BQ" -n a qdisc show dev va -j | jq -r '.[0].options | "\(.quantum) \(.initial_quantum)"')
[ "$before" = "4500 90140" ] && [ "$after" = "$before" ] ||
	fail "quantum 4500 given: before a packet '$before', after '$after'"
note "$res; quantum 4500 given: '$before', then '$after'"
exit 0
