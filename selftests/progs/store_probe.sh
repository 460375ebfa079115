#!/bin/dash
# The storage candidates of selftests/bpf/store_probe.bpf.c beside bpf_floor
# (an ARRAY ring: today's storage) and pfifo_fast, in one boot, ROUNDS
# rounds: 64-byte UDP from two senders as fast as they go for 2 s, the
# packets the qdisc sent per second, and the BPF cost of an enqueue and a
# dequeue (bpf_stats: on the virtual clock, instructions).
# Run it in the test VM:
#   tools/vmtest --icount --smp 1 --mem 2048 -- selftests/progs/store_probe.sh [ROUNDS]
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/kernel/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"
set +e
ROUNDS=${1:-2}
STORES="1 2 3 4 5"

sysctl -qw kernel.bpf_stats_enabled=1
veth_pair
ip netns exec a ping -q -c 1 -W 2 $B >/dev/null
floor_register
for n in $STORES; do
	bpftool struct_ops register "$TOP/.output/store_probe$n.bpf.o" /sys/fs/bpf >/dev/null ||
		echo "store_probe$n: not registered"
done

# flood: 64-byte UDP from two senders for 2 s, as fast as they go.
flood() {
	ip netns exec a "$TOP/bin/udpflood" $B 9 2 64 0 >/dev/null &
	ip netns exec a "$TOP/bin/udpflood" $B 9 2 64 0 >/dev/null &
	wait
}

for r in $(seq $ROUNDS); do
	for kind in pfifo_fast bpf_floor $(for n in $STORES; do echo bpf_st$n; done); do
		ip netns exec a tc qdisc replace dev va root $kind || continue
		prog=${kind#bpf_}
		[ $kind = bpf_floor ] && prog=floor
		e0=$(prog_cost ${prog}_enqueue) d0=$(prog_cost ${prog}_dequeue)
		n0=$(tc_stat a va packets)
		flood
		n1=$(tc_stat a va packets)
		echo "round $r $kind: $(( (n1 - n0) / 2 )) pkt/s," \
			"enqueue $(cost_since ${prog}_enqueue "$e0") ns, dequeue $(cost_since ${prog}_dequeue "$d0") ns"
	done
done
