# Lowering limit on a live bpf_fq or bpf_fq_codel with a standing queue
# trims the excess at the next dequeue (docs/fq.md, docs/fq_codel.md):
# sch_fq's and sch_fq_codel's change drop it at once, but qdisc change
# writes parameters from a syscall program, which cannot touch a packet.
# A slow receiver (about 2800 packets/s) keeps the queue standing and the
# device asking for packets; 10 ms after qdisc change the queue must be
# within the new limit (draining alone would take 0.6 s), and every packet
# trimmed counted as an overlimit drop.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

# trims KIND PARAMS...: a queue of >= 1000 under KIND, then limit 100.
trims() {
	kind=$1
	shift
	expect "$BQ" -n a qdisc replace dev va root "bpf_$kind" "$@"
	udp_flood 30
	wait_backlog a va 1000 10 || fail "$kind: no queue built: $(ip netns exec a tc -s qdisc show dev va)"
	# The flood stops: no arrival competes with the receiver (nice 19 both),
	# and the queue stands for 0.6 s more.
	stop_floods
	drops0=$(bstat a va drops.overlimit)
	sent0=$(bstat a va dequeued)
	before=$(tc_stat a va qlen)
	expect "$BQ" -n a qdisc change dev va root limit 100
	# While the test's commands run, the receiver does not: 10 ms hands it
	# the CPU.
	sleep 0.01
	after=$(tc_stat a va qlen)
	drops=$(($(bstat a va drops.overlimit) - drops0))
	sent=$(($(bstat a va dequeued) - sent0))
	note "bpf_$kind: qlen $before, after limit 100: $after; $drops overlimit drops, $sent packets sent meanwhile"
	[ "$sent" -ge 1 ] || fail "bpf_$kind: the receiver took no packet in 10 ms"
	# 101: the kernel may hold one packet it peeked, counted in qlen.
	[ "$after" -le 101 ] || fail "bpf_$kind: qlen $after after limit 100 (was $before)"
	[ "$drops" -ge $((before - after - sent - 1)) ] ||
		fail "bpf_$kind: $drops overlimit drops counted, $sent sent, for $before packets cut to $after"
	expect ip netns exec a tc qdisc del dev va root
}

expect "$BQ" load fq
expect "$BQ" load fq_codel
veth_pair
quiet_va
slow_receiver
trims fq flow_limit 10000
# CoDel held off, so that only the limit drops.
trims fq_codel target 10s interval 10s
exit 0
