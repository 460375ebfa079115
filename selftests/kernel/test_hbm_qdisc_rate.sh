# bpf_hbm rate conformance: TCP goodput of one aggregate (cgroup /hbm1 with
# a class at the limit, tools/hbm-test -q=bpf_hbm) within 95-101% of the
# limit, drops under 1%; and two aggregates at 40 and 80 Mbit/s side by
# side, each held to its own. Rates count IP bytes, so goodput tops out at
# 1448/1500 = 96.5%. Measured once each, on the virtual clock.
#
# make test runs 3 cases (~1 min); BPFQDISC_HBM_FULL=1 runs 50, 100 and
# 200 Mbit/s x 1, 2 and 4 flows x cubic and dctcp (18 runs):
#   tools/vmtest --icount --smp 1 -- dash -c 'BPFQDISC_HBM_FULL=1 TEST_TIMEOUT=900 selftests/kernel/run test_hbm_qdisc_rate'
# Measured on the virtual clock, 1 vCPU (2026-12-01): 96.4-96.5% in all
# three cases, no drops: bar 95-101%.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hbm_lib.sh"

modprobe -q tcp_dctcp 2>/dev/null || true
grep -qw dctcp /proc/sys/net/ipv4/tcp_available_congestion_control || skip "no tcp_dctcp"
expect "$BQ" load hbm

# qdisc_case LIMIT ARGS: conform, and drops stay under 1%.
qdisc_case() {
	conform "$@" -q=bpf_hbm
	fge 1 "$DROP_PCT" || FAILS="$FAILS; $* dropped $DROP_PCT% of packets"
}

if [ "${BPFQDISC_HBM_FULL:-0}" = 1 ]; then
	for rate in 50 100 200; do
		for f in 1 2 4; do
			for cc in cubic dctcp; do qdisc_case $rate -f=$f $cc; done
		done
	done
else
	qdisc_case 50 -f=1 cubic
	qdisc_case 100 -f=2 cubic
	qdisc_case 100 -f=4 dctcp
fi

# Two aggregates through one bpf_hbm: cgroups /hbm1 at 40 and /hbm2 at 80.
two_limits bpf_hbm -q=bpf_hbm
conform_done
