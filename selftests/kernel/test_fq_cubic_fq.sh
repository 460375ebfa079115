# cubic_fq (bpf/cubic_fq.bpf.c): cubic plus SK_PACING_FQ, registered with
# bpftool. One flow through bpf_fq with each congestion control: cubic's
# sockets stay SK_PACING_NONE, and bpf_fq stamps their packets itself on
# a clock per socket (both are throttled now), cubic_fq's get EDT
# timestamps from TCP at sk_pacing_rate, some in the future, so bpf_fq
# throttles the flow: as under sch_fq. Both must carry the flow (no
# collapse).
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

pin=/sys/fs/bpf/cubic_fq
bpftool struct_ops register "$TOP/.output/cubic_fq.bpf.o" /sys/fs/bpf >/dev/null 2>&1 ||
	skip "cubic_fq does not register on $(uname -r)"
trap 'rm -f $pin' EXIT
grep -qw cubic_fq /proc/sys/net/ipv4/tcp_available_congestion_control || fail "cubic_fq registered but not available"
load_fq
veth_pair
expect "$BQ" -n a qdisc replace dev va root bpf_fq
res=
for cc in cubic cubic_fq; do
	t0=$(bstat a va throttled)
	iperf_server b
	m=$(iperf_mbps a $B 2 -C $cc)
	t=$(($(bstat a va throttled) - t0))
	res="$res $cc: $m Mbit/s, $t throttles;"
	[ "$m" -ge 100 ] || fail "$cc carried $m Mbit/s:$res"
	[ $cc = cubic ] || [ "$t" -gt 0 ] || fail "cubic_fq never throttled: no EDT timestamps?$res"
done
note "one flow through bpf_fq:$res"
exit 0
