#!/bin/sh
# rank_pps.sh [SECS]: 64-byte frames per second through bpf_fifo, bpf_sp,
# bpf_wfq, bpf_edf, bpf_las and bpf_srpt on a's va, one unpaced UDP
# sender (udp_pps, selftests/progs/fq_lib.sh), on the virtual clock
# (tools/vmtest --icount -- selftests/progs/rank_pps.sh), and each rank
# kind's rate against bpf_fifo's. A measurement, not a test.
. "$(dirname "$0")/../kernel/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

SECS=${1:-3}
for k in fifo sp wfq edf las srpt; do expect "$BQ" load $k; done
veth_pair
quiet_va
for k in fifo sp wfq edf las srpt; do
	ip netns exec a tc qdisc del dev va root 2>/dev/null || true
	expect "$BQ" -n a qdisc add dev va root bpf_$k
	pps=$(udp_pps)
	[ $k = fifo ] && fifo=$pps
	echo "bpf_$k $pps pps $(awk -v a=$pps -v b=$fifo 'BEGIN { printf "%.3fx", a / b }')"
done
