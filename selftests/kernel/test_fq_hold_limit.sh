# An unprivileged sender must not take every other sender's room in bpf_fq
# by filling it with packets that are not due. uid 65534 opens 22
# connected UDP sockets and sends 100 datagrams on each (flow_limit), half
# of the sockets at priority 0 (band 1), half at SO_PRIORITY 6 (band 0),
# held in one of two ways: with SO_TXTIME 9 s ahead (within the horizon:
# none is dropped for it), or with SO_MAX_PACING_RATE 1 byte/s (each flow
# throttled 1 s a packet, no horizon applies). That is past limit (1024 a
# band) in both bands, and past the pool (--ring-slots 2048: 2047 packets
# in all), so nothing else fits until they leave. Two victim sockets each
# send one datagram a millisecond meanwhile: one in band 1, due at once,
# which takes the fast path (no flow lookup) whenever no other flow is
# ready, and one in band 2 (SO_PRIORITY 1) with a pacing rate of 1 MB/s,
# which never does (flow path). Counted at the receiver from 1 s to 4 s (the attack is made at
# 0.5 s), each must get at least 80% of what it gets without the attack,
# in the same boot; the room is made by pushing out the attacker's packets
# (drops.pushed_out), and some victim datagrams took the fast path
# (fastpath_packets: those queued) meanwhile.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

held_setup

# victims [HOLD]: held_victims on a fresh bpf_fq, 100 datagrams on each
# of 11 sockets a priority with HOLD, the band-2 victim paced at 1 MB/s.
victims() {
	expect ip netns exec a tc qdisc replace dev va root pfifo
	expect "$BQ" -n a qdisc replace dev va root bpf_fq limit 1024
	if [ "$#" -gt 0 ]; then
		held_victims "-R 1000000" -f 11 -n 1100 "$@"
	else
		held_victims "-R 1000000"
	fi
}

# shellcheck disable=SC2046
set -- $(victims)
base1=$1 base2=$2
[ "$base1" -gt 0 ] && [ "$base2" -gt 0 ] || fail "the victims got $base1 and $base2 bytes without an attack"

bad=
for hold in "-t 9000000000" "-R 1"; do
	# shellcheck disable=SC2046,SC2086
	set -- $(victims $hold)
	held=$(cat $TMP/held)
	pushed=$(bstat a va drops.pushed_out)
	fast=$(bstat a va fastpath_packets)
	note "fqsend $hold: victim bytes from 1 s to 4 s, band 1 (fast path): $base1 alone, $1 under attack ($fast fast-path packets); band 2 (flow path): $base2 alone, $2 under attack; $held packets held after the attack, $pushed pushed out"
	[ $(($1 * 100)) -ge $((base1 * 80)) ] || bad="$bad fqsend $hold: band 1's victim got $1 of $base1 bytes;"
	[ $(($2 * 100)) -ge $((base2 * 80)) ] || bad="$bad fqsend $hold: band 2's victim got $2 of $base2 bytes;"
	[ "$held" -ge 2000 ] || bad="$bad fqsend $hold: only $held packets held;"
	[ "$pushed" -gt 0 ] && [ "$fast" -gt 0 ] ||
		bad="$bad fqsend $hold: $pushed pushed out, $fast on the fast path;"
done
[ -z "$bad" ] || fail "uid 65534's packets held for later:$bad"
exit 0
