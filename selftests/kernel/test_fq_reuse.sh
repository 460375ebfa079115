# Flows beyond the table (docs/fq.md, "When the flow table is full"). With
# flows_max 32, an unprivileged user (uid 65534) opens a new connected
# socket for every datagram, one each 100 us or so: the table cycles every
# few milliseconds, and idle flows are reused at once.
#  1. Limits hold for flows with packets: a flow with a packet queued is
#     never reused. Two backlogged senders beside the churn, under maxrate
#     5mbit: a plain socket (held by maxrate) and one with
#     SO_MAX_PACING_RATE 2 Mbit/s. Each keeps, at the receiver, what the
#     kernel's fq gives it in the same boot (within 5%), at most 5% over
#     its limit; nothing is dropped for want of a flow.
#  2. What reuse loses: the rate clock of a flow left empty while the table
#     cycles. Under maxrate 100kbit (1442 bytes: 115 ms a datagram), a
#     socket sends 3 datagrams 30 ms apart, each due when sent (SO_TXTIME).
#     Held by its clock, the last leaves ~170 ms late, as under fq. With
#     the churn its flow is reused between datagrams and each leaves on
#     time: what a new socket per datagram gets under fq (shown). None
#     leaves before its own departure time.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

command -v setpriv >/dev/null || skip "setpriv is not in the VM"
plain=$(mktemp) paced=$(mktemp) edt=$(mktemp)
trap 'rm -f $plain $paced $edt' EXIT
load_fq
veth_pair
quiet_va

# churn SECS: the unprivileged user's new socket per datagram, to b:9.
churn() {
	ip netns exec a setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$FQSEND" -C -d "$1" -s 64 -i 100 $B 9 >/dev/null
}

# victims: "PLAIN PACED", payload Mbit/s at the receiver from 1 s to 3 s,
# with the churn from 0.5 s on.
victims() {
	ip netns exec b "$FQSEND" -l -d 3 -w 1 $B 7000 >$plain &
	ip netns exec b "$FQSEND" -l -d 3 -w 1 $B 7001 >$paced &
	sleep 0.3
	ip netns exec a "$FQSEND" -c -d 3 -s 1400 -b 60000 $B 7000 >/dev/null &
	ip netns exec a "$FQSEND" -c -d 3 -s 1400 -b 60000 -R 250000 $B 7001 >/dev/null &
	sleep 0.5
	churn 2
	wait
	for f in $plain $paced; do
		awk '{ s += $2 } END { printf "%.2f ", s * 8 / 2 / 1e6 }' $f
	done
}

# idle_victim CHURN [-C]: the most lateness (us) of 3 datagrams 30 ms apart
# (from one socket, or with -C a new socket each), with the churn (1) or
# without (0); fails if one left before its departure time.
idle_victim() {
	ip netns exec b "$FQSEND" -l -d 1 -e $B 7002 >$edt &
	sleep 0.2
	[ "$1" = 0 ] || churn 1 &
	sleep 0.2
	ip netns exec a "$FQSEND" ${2:--c} -t 0 -n 3 -i 30000 -s 1400 $B 7002 >/dev/null
	wait
	set -- $(cat $edt)
	[ "$2" = 3 ] || fail "$2 of 3 datagrams arrived: $*"
	[ "$4" = 0 ] || fail "$4 datagrams left before their departure time: $*"
	echo "${10}"
}

expect ip netns exec a tc qdisc replace dev va root fq maxrate 5mbit
set -- $(victims)
expect "$BQ" -n a qdisc replace dev va root bpf_fq flows_max 32 maxrate 5mbit
set -- "$@" $(victims)
flows=$(bstat a va flows) gc=$(bstat a va gc_flows) nomem=$(bstat a va drops.nomem)
note "backlogged beside the churn, payload Mbit/s, maxrate 5 / SO_MAX_PACING_RATE 2: fq $1 / $2, bpf_fq $3 / $4"
note "bpf_fq: flows $flows, gc_flows $gc, nomem drops $nomem"
[ "$flows" -le 32 ] || fail "$flows flows, flows_max 32"
[ "$gc" -ge 1000 ] || fail "only $gc flows reused: the churn did not cycle the table"
[ "$nomem" = 0 ] || fail "$nomem datagrams dropped for want of a flow"
# Payload bytes: the limits count 1442 bytes on the wire for 1400 of payload.
near "$3" "$1" 5 || fail "maxrate'd socket: $3 Mbit/s, under fq $1"
near "$4" "$2" 5 || fail "SO_MAX_PACING_RATE socket: $4 Mbit/s, under fq $2"
ge $((5 * 1400 * 105)) "$(echo "$3" | awk '{ print $1 * 1442 * 100 }')" ||
	fail "maxrate'd socket: $3 Mbit/s of payload, over maxrate 5mbit"
ge $((2 * 1400 * 105)) "$(echo "$4" | awk '{ print $1 * 1442 * 100 }')" ||
	fail "SO_MAX_PACING_RATE socket: $4 Mbit/s of payload, over 2 Mbit/s"

expect ip netns exec a tc qdisc replace dev va root fq maxrate 100kbit
fq0=$(idle_victim 0) fq1=$(idle_victim 0 -C)
expect "$BQ" -n a qdisc replace dev va root bpf_fq flows_max 32 maxrate 100kbit
bpf0=$(idle_victim 0)
bpf1=$(idle_victim 1)
note "3 datagrams 30 ms apart under maxrate 100kbit, lateness of the last, us: fq $fq0 (a new socket each: $fq1), bpf_fq $bpf0 (beside the churn: $bpf1)"
[ "$bpf0" -ge 150000 ] || fail "bpf_fq, no churn: the last datagram $bpf0 us late; its clock holds it ~170 ms"
[ "$bpf1" -le 10000 ] || fail "bpf_fq, churn: the last datagram $bpf1 us late; docs/fq.md says a reused flow starts afresh"
exit 0
