# bpf_fq's limit is per band, as sch_fq's: a queue of more than limit
# packets in all, each band under it, is no excess. uid 65534 opens 12
# connected UDP sockets and sends 100 datagrams on each with SO_TXTIME
# 9 s ahead, half of them at priority 0 (band 1), half at SO_PRIORITY 6
# (band 0): 600 packets held in each band, under limit 1024, 1200 in all,
# well within the pool (--ring-slots 2048). Two victim sockets each send
# one datagram a millisecond meanwhile, one in band 1 and one in band 2
# (SO_PRIORITY 1), through the flow path (maxrate 1gbit, which limits
# none of them, keeps every packet off the fast path, as TCP's are while
# a flow is throttled); counted at the receiver from 1 s to 4 s (the held
# packets come at 0.5 s), each must get at least 80% of what it gets
# without them, in the same boot. The trim that a lowered limit asks for
# (test_limit_trim) must not drop them.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

held_setup

expect "$BQ" -n a qdisc replace dev va root bpf_fq limit 1024 maxrate 1gbit
# shellcheck disable=SC2046
set -- $(held_victims "")
base1=$1 base2=$2
[ "$base1" -gt 0 ] && [ "$base2" -gt 0 ] || fail "the victims got $base1 and $base2 bytes alone"
# shellcheck disable=SC2046
set -- $(held_victims "" -f 6 -n 600 -t 9000000000)
trimmed=$(bstat a va drops.overlimit)
note "victim bytes from 1 s to 4 s, band 1: $base1 alone, $1 beside 1200 held packets; band 2: $base2 alone, $2 ($trimmed overlimit drops)"
bad=
[ $(($1 * 100)) -ge $((base1 * 80)) ] || bad="band 1's victim got $1 of $base1 bytes;"
[ $(($2 * 100)) -ge $((base2 * 80)) ] || bad="$bad band 2's victim got $2 of $base2 bytes;"
[ -z "$bad" ] || fail "600 packets held in each of two bands (limit 1024 a band): $bad $trimmed overlimit drops"
exit 0
