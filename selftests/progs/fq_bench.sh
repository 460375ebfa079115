#!/bin/dash
# bpf_fq against the kernel's fq, in one boot, rounds interleaved, medians:
#   TCP throughput with 1 and 8 flows (iperf3, veth, 3 s);
#   TCP_RR latency (netperf, 1-byte request/response, P50/P99);
#   small-packet rate (udpflood, 64-byte UDP from 2 senders, packets/s);
#   BPF cost per enqueue and dequeue (bpf_stats run_time_ns / run_cnt)
#   with 1 flow, and with 1k, 10k and 100k flows in the table at once (a
#   slow receiver keeps the queue full; orphan_mask 0xffffffff makes every
#   destination port a flow; 100k needs --ring-slots 131072).
# Run it in the test VM: tools/vmtest -- selftests/progs/fq_bench.sh [ROUNDS]
# It takes about 3 minutes with 3 rounds.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/kernel/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"
set +e
ROUNDS=${1:-3}

sysctl -qw kernel.bpf_stats_enabled=1
load_fq >/dev/null
veth_pair
ip netns exec a ping -q -c 1 -W 2 $B >/dev/null
ip netns exec b netserver >/dev/null 2>&1

set_kind() {
	if [ $1 = bpf_fq ]; then
		"$BQ" -n a qdisc replace dev va root bpf_fq ${2:-}
	else
		ip netns exec a tc qdisc replace dev va root fq ${2:-}
	fi
}

for r in $(seq $ROUNDS); do
	for kind in fq bpf_fq; do
		set_kind $kind
		iperf_server b
		eval "t1_$kind=\"\${t1_$kind:-} $(iperf_mbps a $B 3)\""
		iperf_server b
		eval "t8_$kind=\"\${t8_$kind:-} $(iperf_mbps a $B 3 -P 8)\""
		set -- $(ip netns exec a netperf -H $B -l 3 -t TCP_RR -- -r 1,1 \
			-o P50_LATENCY,P99_LATENCY 2>/dev/null | tail -1 | tr ',' ' ')
		eval "p50_$kind=\"\${p50_$kind:-} $1\" p99_$kind=\"\${p99_$kind:-} $2\""
		e0=$(prog_cost fq_enqueue) d0=$(prog_cost fq_dequeue)
		n0=$(tc_stat a va packets)
		udp_flood 3
		sleep 3
		stop_floods
		n1=$(tc_stat a va packets)
		eval "pps_$kind=\"\${pps_$kind:-} $(( (n1 - n0) / 3 ))\""
		if [ $kind = bpf_fq ]; then
			enq1="${enq1:-} $(cost_since fq_enqueue "$e0")"
			deq1="${deq1:-} $(cost_since fq_dequeue "$d0")"
		fi
	done
done
for kind in fq bpf_fq; do
	eval "echo \"$kind: TCP 1 flow \$(echo \$t1_$kind | median) Mbit/s (\$t1_$kind)," \
		"8 flows \$(echo \$t8_$kind | median) Mbit/s (\$t8_$kind);" \
		"TCP_RR P50 \$(echo \$p50_$kind | median) us, P99 \$(echo \$p99_$kind | median) us;" \
		"64-byte UDP \$(echo \$pps_$kind | median) pkt/s (\$pps_$kind)\""
done
echo "bpf_fq cost, 1 flow (udpflood): enqueue $(echo $enq1 | median) ns, dequeue $(echo $deq1 | median) ns"

# Many flows with packets queued at once.
slow_receiver
for n in 1 1000 10000; do
	set_kind bpf_fq "orphan_mask 4294967295"
	e0=$(prog_cost fq_enqueue) d0=$(prog_cost fq_dequeue)
	ip netns exec a "$FQSEND" -n 60000 -p $n -s 64 $B 10000 >/dev/null
	echo "bpf_fq cost, $n flows: enqueue $(cost_since fq_enqueue "$e0") ns," \
		"dequeue $(cost_since fq_dequeue "$d0") ns; flows $(bstat a va flows)," \
		"qlen $(tc_stat a va qlen)"
	ip netns exec a tc qdisc del dev va root
done

# 100k flows need a bigger table: 4 instances of 131072 entries. Behind a
# slow receiver most datagrams would meet a full queue (limit) and never
# make a flow: here the queue drains, and maxrate keeps the fast path from
# skipping the table. Flows idle for 3 s are collected meanwhile, so the
# table holds what was sent in the last 3 s.
"$BQ" unload fq >/dev/null
"$BQ" load fq --max-instances 4 --ring-slots 131072 >/dev/null
ip -n b link set dev vb xdpdrv off
set_kind bpf_fq "orphan_mask 4294967295 maxrate 10gbit"
e0=$(prog_cost fq_enqueue) d0=$(prog_cost fq_dequeue)
ip netns exec a "$FQSEND" -f 2 -n 100000 -p 50000 -s 64 $B 10000 >/dev/null
echo "bpf_fq cost, 100000 flows: enqueue $(cost_since fq_enqueue "$e0") ns," \
	"dequeue $(cost_since fq_dequeue "$d0") ns; flows $(bstat a va flows)," \
	"qlen $(tc_stat a va qlen)"
