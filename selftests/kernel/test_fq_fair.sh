# Fairness of TCP: 2, 8 and 32 iperf3 streams get equal shares under bpf_fq,
# Jain's index of the per-stream bytes >= 0.95; the kernel's fq is shown
# alongside ("!" after a figure: below 0.95).
# Without a bottleneck on veth the CPUs are the limit; what the qdisc adds
# is pacing (sk_pacing_rate) and round robin when packets wait.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

load_fq
veth_pair
out=$(mktemp)
trap 'rm -f $out' EXIT

fair() { # N: Jain index of N streams, >= 0.95?
	iperf_server b
	iperf_json a $B $out 3 -P $1
	j=$(jain $out)
	echo "$j ($(jq '.end.sum_received.bits_per_second / 1e6 | floor' $out) Mbit/s)"
	ge "$j" 0.95 && return
	echo "MB per stream $(jq -c '[.end.streams[].receiver.bytes / 1e6 | floor]' $out)"
	return 1
}

res=
for n in 2 8 32; do
	for kind in fq bpf_fq; do
		expect ip netns exec a tc qdisc replace dev va root $kind
		res="$res $kind/$n: $(judge $kind fair $n)"
	done
done
note "TCP, Jain index (total):$res"
exit 0
