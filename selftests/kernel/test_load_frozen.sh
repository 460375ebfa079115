# The framework's promise (docs/writing-a-qdisc.md, "What is stable"): a
# minor version never breaks a qdisc's source. selftests/oot/fwM.N/ keeps
# the sources of each released minor as they were: what bpfqdisc new
# wrote then, and a qdisc with classes (markq). The Makefile builds each
# with today's installed headers as a user would (the 2.0 to 2.2 sources
# write setup(inst, q), which today's is setup(sch, inst, q)); here each
# loads from a copy that then goes, takes a parameter, carries pings
# before and after a reset (link down and up: purge, then setup again),
# and unloads leaving nothing pinned. markq's class sets a mark's quota.
. "$(dirname "$0")/lib.sh"
OOT=$TOP/.output/oot
PINS=/sys/fs/bpf/bpfqdisc
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# Every frozen source has its object: one the build skipped fails here.
n=0
for src in "$TOP"/selftests/oot/fw*/*.bpf.c; do
	rel=${src#"$TOP/selftests/oot/"}
	[ -s "$OOT/${rel%.c}.o" ] || fail "no $OOT/${rel%.c}.o for selftests/oot/$rel: make builds it, on the host"
	n=$((n + 1))
done
[ $n -ge 6 ] || fail "found $n frozen sources in selftests/oot/fw*/, expected 2.0's to 2.4's"

veth_pair
quiet_va
# pings MARK N: how many of N pings of mark MARK got an answer.
pings() {
	ip netns exec a ping -c "$2" -i 0.1 -W 1 -m "$1" $B 2>/dev/null |
		sed -n 's/.* \([0-9]*\) received.*/\1/p'
}

for obj in "$OOT"/fw*/*.bpf.o; do
	name=$(basename "$obj" .bpf.o)
	what="${obj#"$OOT/"}"
	cp "$obj" "$W/"
	(cd "$W" && expect "$BQ" load "./$name.bpf.o")
	rm "$W/$name.bpf.o"
	expect "$BQ" -n a qdisc add dev va root "bpf_$name" limit 50
	[ "$(pings 0 3)" = 3 ] || fail "$what: pings lost through bpf_$name"
	limit=$("$BQ" -n a stats -j | "$JGET" '.[0].options.limit')
	[ "$limit" = 50 ] || fail "$what: limit $limit, expected 50"
	expect ip -n a link set va down
	expect ip -n a link set va up
	expect ip -n a neigh replace $B dev va nud permanent \
		lladdr "$(ip -n b -j link show dev vb | "$JGET" '.[0].address')"
	[ "$(pings 0 3)" = 3 ] || fail "$what: pings lost after a reset of bpf_$name"
	if [ "$name" = markq ]; then
		expect "$BQ" -n a class add dev va mark 5 quota 3
		n=$(pings 5 5)
		[ "$n" = 3 ] || fail "$what: $n of 5 pings of mark 5 answered under a class of quota 3"
	fi
	expect ip netns exec a tc qdisc del dev va root
	expect "$BQ" unload "$name"
	[ ! -e "$PINS/$name" ] || fail "$what: left pinned: $(ls "$PINS/$name")"
	note "$what: loaded, carried pings, reset, unloaded"
done
