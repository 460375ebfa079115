# HBM rate conformance: aggregate TCP goodput through hbm within 95-101% of
# the limit. Rates count IP bytes, so goodput tops out at 1448/1500 = 96.5%.
# EDT mode runs with fq, or bpf_fq, on the client's eth0. Credit mode delays
# nothing, so TCP's window alone must hold the rate: netem adds 1 ms on the
# server's egress, or veth's ~0.3 ms RTT would leave TCP's 2-segment minimum
# window above 50 Mbit/s. EDT drops must stay under 1%.
#
# make test runs a representative subset (~1 min, one case per mode and
# qdisc); BPFQDISC_HBM_FULL=1 runs the issue's matrix, 50, 100 and 200
# Mbit/s x 1, 2 and 4 flows x cubic and dctcp x credit, EDT+fq and
# EDT+bpf_fq (54 runs, ~10-15 min):
#   tools/vmtest --icount --smp 1 -- dash -c 'BPFQDISC_HBM_FULL=1 TEST_TIMEOUT=900 selftests/kernel/run test_hbm_rate'
# Credit mode with a single cubic flow is reported, not judged here: credit
# mode is a 100-MTU token bucket with no queue, and its target is 2019's
# share of the limit and htb's at tc's default burst, which
# test_hbm_credit_target judges; two flows or dctcp reach 95% at 50 and
# 100 Mbit/s.
# Measured on the virtual clock, 1 vCPU (2026-12-01): 96.4-96.6% of the
# limit in every case, drops under 0.1%: bars 95-101% and 1%.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hbm_lib.sh"

modprobe -q tcp_dctcp 2>/dev/null || true
grep -qw dctcp /proc/sys/net/ipv4/tcp_available_congestion_control || skip "no tcp_dctcp"
BPF_FQ=
"$BQ" load fq >/dev/null 2>&1 && BPF_FQ=1
"$BQ" unload fq >/dev/null 2>&1 || true

# edt_case LIMIT ARGS: conform, and EDT drops stay under 1%.
edt_case() {
	conform "$@" --edt
	fge 1 "$DROP_PCT" || FAILS="$FAILS; $* --edt dropped $DROP_PCT% of packets"
}

# informational LIMIT ARGS: one run, reported only.
informational() {
	limit=$1
	shift
	ht -r="$limit" -O=1 -t=4 "$@"
	note "(not judged) -r=$limit $*: goodput $GOODPUT Mbit/s = $(pct "$GOODPUT" "$limit")% of the limit, drops $DROP_PCT%, CN $CN"
}

if [ "${BPFQDISC_HBM_FULL:-0}" = 1 ]; then
	for rate in 50 100 200; do
		for f in 1 2 4; do
			for cc in cubic dctcp; do
				edt_case $rate -f=$f $cc
				[ -z "$BPF_FQ" ] || edt_case $rate -f=$f $cc -q=bpf_fq
				if [ $f = 1 ] && [ $cc = cubic ]; then
					informational $rate -f=$f $cc -d=1
				else
					conform $rate -f=$f $cc -d=1
				fi
			done
		done
	done
else
	edt_case 100 -f=2 cubic
	if [ -n "$BPF_FQ" ]; then edt_case 50 -f=1 dctcp -q=bpf_fq; else edt_case 50 -f=1 dctcp; fi
	conform 100 -f=2 cubic -d=1
	conform 50 -f=2 dctcp -d=1
fi
[ -n "$BPF_FQ" ] || note "bpf_fq cannot be loaded here: EDT ran with fq only"
conform_done
