# HBM rate conformance: aggregate TCP goodput through hbm within 95-101% of
# the limit (rates count IP bytes, so goodput tops out at 1448/1500 = 96.5%
# of the limit). EDT mode runs with fq on the client's eth0; credit mode,
# which delays nothing, needs a path whose RTT lets TCP's 2-segment minimum
# window stay below the limit: netem adds 1 ms on the server's egress.
# EDT drops must stay under 1%.
# make test runs a representative subset (~1 min); BPFQDISC_HBM_FULL=1 runs
# the whole matrix, 50 and 100 Mbit/s x 1 and 2 flows x cubic and dctcp x
# credit and EDT (~3-5 min: TEST_TIMEOUT=600).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hbm_lib.sh"

modprobe -q tcp_dctcp 2>/dev/null || true
grep -qw dctcp /proc/sys/net/ipv4/tcp_available_congestion_control || skip "no tcp_dctcp"

# edt_case LIMIT ARGS: conform, and EDT drops stay under 1%.
edt_case() {
	conform "$@" --edt
	fge 1 "$DROP_PCT" || FAILS="$FAILS; $* --edt dropped $DROP_PCT% of packets"
}

if [ "${BPFQDISC_HBM_FULL:-0}" = 1 ]; then
	for rate in 50 100; do
		for f in 1 2; do
			for cc in cubic dctcp; do
				edt_case $rate -f=$f $cc
				conform $rate -f=$f $cc -d=1
			done
		done
	done
else
	edt_case 100 -f=2 cubic
	edt_case 50 -f=1 dctcp
	conform 100 -f=1 cubic -d=1
	conform 50 -f=2 dctcp -d=1
fi
conform_done
