# An unprivileged sender must not stop the other flows by filling the heap
# of throttled flows. Two connected UDP sockets with SO_MAX_PACING_RATE and
# SO_TXTIME (no privilege needed) each send one datagram due in 6 s, then
# plain datagrams: each plain one is due before the packet its flow waits
# for, so the flow's time in the heap moves earlier and back to +6 s with
# every datagram. Kept once per flow, that is two items; had each move left
# a stale entry behind, the heap (--ring-slots 64: 63 items) would fill
# within 63 datagrams, and a flow that cannot be throttled would stop every
# band until the first stale entry is due. A victim socket sends one
# datagram a millisecond meanwhile; counted from 1 s on (after the attack),
# it must get at least 80% of what it gets under the kernel's fq, in the
# same boot.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

command -v setpriv >/dev/null || skip "setpriv is not in the VM"
out=$(mktemp)
trap 'rm -f $out' EXIT
load_fq --ring-slots 64
veth_pair
quiet_va

# victim_bytes: the victim's bytes at the receiver from 1 s to 4 s, with
# the attack made at 0.5 s.
victim_bytes() {
	ip netns exec b "$FQSEND" -l -d 4 -w 1 $B 7000 >$out &
	sink=$!
	ip netns exec b "$FQSEND" -l -d 4 $B 7001 >/dev/null &
	sleep 0.3
	ip netns exec a "$FQSEND" -c -d 3 -i 1000 $B 7000 >/dev/null &
	sleep 0.5
	expect ip netns exec a setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$FQSEND" -c -f 2 -R 100000000 -t 6000000000 -o -n 200 -i 100 $B 7001 >/dev/null
	wait $sink
	wait
	awk '{ n += $2 } END { print n + 0 }' $out
}

expect ip netns exec a tc qdisc replace dev va root fq
fq=$(victim_bytes)
expect "$BQ" -n a qdisc replace dev va root bpf_fq
bpf=$(victim_bytes)
note "victim bytes from 1 s to 4 s: fq $fq, bpf_fq $bpf"
[ "$fq" -gt 0 ] || fail "the victim got nothing through the kernel's fq"
[ $((bpf * 100)) -ge $((fq * 80)) ] || fail "bpf_fq: the victim got $bpf bytes, under fq $fq"
exit 0
