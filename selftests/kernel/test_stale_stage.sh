# Parameters staged by a bpfqdisc that died between staging them and
# creating the qdisc (written here straight into bq_pending, as it would
# have): a later tc qdisc add there gets the kind's defaults, not them, and
# a later bpfqdisc qdisc add there works (it failed with "File exists"
# until the kind was unloaded) and leaves nothing staged.
. "$(dirname "$0")/lib.sh"
PENDING=/sys/fs/bpf/bpfqdisc/fifo/bq_pending

hex_le() { # BYTES VALUE: VALUE as BYTES little-endian hex bytes
	n=$1 v=$2 out=
	while [ $n -gt 0 ]; do
		out="$out $(printf '%02x' $((v & 255)))"
		v=$((v >> 8))
		n=$((n - 1))
	done
	echo "$out"
}

limit_of() { "$BQ" -n a qdisc show dev va -j | "$JGET" '.[0].options.limit'; }

expect "$BQ" load fifo
veth_pair
ifindex=$(ip -n a -j link show va | "$JGET" '.[0].ifindex')
# The netns cookie, from an instance's own record of where it sits.
expect "$BQ" -n a qdisc add dev va root bpf_fifo
cookie=$(bpftool map dump pinned /sys/fs/bpf/bpfqdisc/fifo/bq_slots -j |
	jq ".[] | .formatted.value.slot.inst | select(.where.ifindex == $ifindex) | .where.netns_cookie")
[ -n "$cookie" ] || fail "no instance on va in bq_slots"
expect ip netns exec a tc qdisc del dev va root
default=1000

# A dead writer's entry: limit 7 at root of va, expired long ago (whatever
# follows the parameters is 0).
stage_dead() {
	size=$(bpftool map show pinned $PENDING -j | "$JGET" .bytes_value)
	value="$(hex_le 8 7)$(hex_le $((size - 8)) 0)"
	expect bpftool map update pinned $PENDING key hex $(hex_le 8 "$cookie") $(hex_le 4 "$ifindex") \
		ff ff ff ff value hex $value
}

stage_dead
expect ip netns exec a tc qdisc add dev va root bpf_fifo
[ "$(limit_of)" = $default ] || fail "tc qdisc add took a dead writer's limit $(limit_of), not $default"
expect ip netns exec a tc qdisc del dev va root

stage_dead
expect "$BQ" -n a qdisc add dev va root bpf_fifo limit 9
[ "$(limit_of)" = 9 ] || fail "limit $(limit_of), expected 9"
[ "$(bpftool map dump pinned $PENDING -j | jq length)" = 0 ] || fail "staged entries left: $(bpftool map dump pinned $PENDING)"
