#!/bin/sh
# rank_pps.sh [SECS]: each rank kind (bpf_sp, bpf_wfq, bpf_edf, bpf_las,
# bpf_srpt, bpf_hpfq) against bpf_fifo on a's va, on the virtual clock
# (tools/vmtest --icount -- selftests/progs/rank_pps.sh): 64-byte frames
# per second from one unpaced UDP sender (udp_pps,
# selftests/progs/fq_lib.sh), and one TCP flow's Mbit/s (iperf3, SECS
# after 1 s left out), each with its ratio to bpf_fifo's. One line a kind:
# "bpf_KIND PPS pps RATIO TCP Mbit/s RATIO". A measurement, not a test.
. "$(dirname "$0")/../kernel/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

SECS=${1:-3}
for k in fifo sp wfq edf las srpt hpfq; do expect "$BQ" load $k; done
veth_pair
quiet_va
for k in fifo sp wfq edf las srpt hpfq; do
	ip netns exec a tc qdisc del dev va root 2>/dev/null || true
	expect "$BQ" -n a qdisc add dev va root bpf_$k
	pps=$(udp_pps)
	iperf_server b
	tcp=$(iperf_mbps a $B "$SECS" -O 1)
	[ $k = fifo ] && fifo=$pps fifo_tcp=$tcp
	echo "bpf_$k $pps pps $(awk -v a=$pps -v b=$fifo 'BEGIN { printf "%.3fx", a / b }')" \
		"$tcp Mbit/s $(awk -v a=$tcp -v b=$fifo_tcp 'BEGIN { printf "%.3fx", a / b }')"
done
