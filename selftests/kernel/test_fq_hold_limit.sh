# An unprivileged sender must not take every other sender's room in bpf_fq
# by filling it with packets that are not due. uid 65534 opens 22
# connected UDP sockets and sends 100 datagrams on each (flow_limit) with
# SO_TXTIME 9 s ahead (within the horizon: none is dropped for it), half
# of the sockets at priority 0 (band 1), half at SO_PRIORITY 6 (band 0).
# That is past limit (1024 a band) in both bands, and past the pool
# (--ring-slots 2048: 2047 packets in all), so nothing else fits until
# they leave, 9 s later. Two victim sockets each send one datagram a
# millisecond meanwhile, one in band 1 and one in band 2 (SO_PRIORITY 1);
# counted at the receiver from 1 s to 4 s (the attack is made at 0.5 s),
# each must get at least 80% of what it gets without the attack, in the
# same boot.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

command -v setpriv >/dev/null || skip "setpriv is not in the VM"
TMP=$(mktemp -d)
trap 'rm -rf $TMP' EXIT
load_fq --ring-slots 2048
veth_pair
quiet_va

# victims [ATTACK]: "BAND1 BAND2", the victims' bytes at the receiver
# from 1 s to 4 s; with ATTACK, uid 65534's sockets fill the qdisc at 0.5 s.
victims() {
	for port in 7000 7001 7002; do
		ip netns exec b "$FQSEND" -l -d 4 -w 1 $B $port >$TMP/$port &
	done
	sleep 0.3
	ip netns exec a "$FQSEND" -c -d 3 -i 1000 $B 7000 >/dev/null &
	ip netns exec a "$FQSEND" -c -d 3 -i 1000 -P 1 $B 7001 >/dev/null &
	sleep 0.5
	if [ "${1:-}" ]; then
		for prio in 0 6; do
			expect ip netns exec a setpriv --reuid=65534 --regid=65534 --clear-groups \
				"$FQSEND" -c -f 11 -n 1100 -P $prio -t 9000000000 $B 7002 >/dev/null
		done
	fi
	wait
	for port in 7000 7001; do
		awk '{ n += $2 } END { printf "%d ", n }' $TMP/$port
	done
}

expect "$BQ" -n a qdisc replace dev va root bpf_fq limit 1024
# shellcheck disable=SC2046
set -- $(victims)
base1=$1 base2=$2
[ "$base1" -gt 0 ] && [ "$base2" -gt 0 ] || fail "the victims got $base1 and $base2 bytes without an attack"
# shellcheck disable=SC2046
set -- $(victims attack)
held=$(tc_stat a va qlen)
note "victim bytes from 1 s to 4 s, band 1: $base1 alone, $1 under attack; band 2: $base2 alone, $2 under attack ($held packets held)"
bad=
[ $(($1 * 100)) -ge $((base1 * 80)) ] || bad="band 1's victim got $1 of $base1 bytes;"
[ $(($2 * 100)) -ge $((base2 * 80)) ] || bad="$bad band 2's victim got $2 of $base2 bytes;"
[ -z "$bad" ] || fail "uid 65534's datagrams due in 9 s held $held packets: $bad"
exit 0
