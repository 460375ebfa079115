# .init with no options (opt NULL, which the verifier believes never is):
# mq's default children (net.core.default_qdisc = bpf_KIND) and a plain
# `tc qdisc add` without options, for every kind: created with the
# kind's defaults, traffic passes, no oops.
. "$(dirname "$0")/lib.sh"

trap 'sysctl -qw net.core.default_qdisc=pfifo_fast' EXIT

# The parameters of every BPF qdisc on va, one line each, as list prints
# its defaults.
params_on_va() {
	"$BQ" -n a qdisc show dev va | sed -n 's/^qdisc bpf_[a-z_]* [0-9a-f]*: dev va \(root\|parent [0-9a-f:]*\) //p'
}

# has_defaults KIND N: N qdiscs of KIND on va, each with KIND's defaults,
# the "auto" quanta worked out from va's MTU (1500 + 14), as fq and
# fq_codel do at init.
has_defaults() {
	want=$("$BQ" list | sed -n "/^bpf_$1 /,/^bpf_/ s/^  defaults: //p" | sed "$(auto_quanta $1)")
	[ -n "$want" ] || fail "no defaults of bpf_$1 in: $("$BQ" list)"
	got=$(params_on_va)
	[ "$(echo "$got" | grep -c .)" = "$2" ] || fail "expected $2 bpf_$1 on va: $("$BQ" -n a qdisc show dev va)"
	echo "$got" | while read -r line; do
		[ "$line" = "$want" ] || fail "bpf_$1 '$line', expected the defaults '$want'"
	done
}

auto_quanta() {
	case $1 in
	fq) printf '%s\n' 's/initial_quantum auto/initial_quantum 15140b/; s/\(^\| \)quantum auto/\1quantum 3028b/' ;;
	fq_codel) printf '%s\n' 's/\(^\| \)quantum auto/\1quantum 1514b/' ;;
	*) printf '%s\n' 's/^//' ;;
	esac
}

pings() { ip netns exec a ping -q -c 3 -i 0.2 -W 2 $B >/dev/null || fail "no ping through $1"; }

veth_pair 4
for k in fifo fq fq_codel hbm; do
	expect "$BQ" load $k
	expect sysctl -qw net.core.default_qdisc=bpf_$k
	expect ip netns exec a tc qdisc replace dev va root handle 1: mq
	has_defaults $k 4
	pings "mq's default bpf_$k children"
	expect ip netns exec a tc qdisc replace dev va root bpf_$k
	has_defaults $k 1
	pings "bpf_$k added by tc without options"
	expect ip netns exec a tc qdisc del dev va root
done
! dmesg | grep -E 'BUG:|Oops' || fail "the kernel oopsed"
exit 0
