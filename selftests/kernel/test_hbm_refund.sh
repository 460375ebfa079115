# A dropped packet gives its credit (credit mode) or time (EDT mode) back,
# and that refund must not be lost to a CPU updating the same cgroup's
# queue at the same moment. Two UDP floods far over the limit, pinned to
# the two vCPUs, in one cgroup at 20 Mbit/s: nearly every packet is
# dropped, so refunds and updates interleave all the time. What passed must
# be the rate over the run, plus at most the burst and the depth UDP may
# reach, as in 2019 (credit mode: 100 MTU of credit, UDP over 120 bytes
# dropped once in debt; EDT mode: 125 KB, and UDP dropped past the mark
# threshold, 2 x 64 KiB, still queued in fq at the end; before: 40 MTU and
# the 600 KB horizon deeper) and a packet or two of rounding,
# and no less than 98% of the rate: each lost refund is bytes of the limit
# lost for good.
# Rate verdicts: run on the virtual clock (tools/vmtest --icount).
# vmtest: smp 2
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hbm_lib.sh"

[ "${VMTEST_ICOUNT:-0}" = 1 ] || skip "rate verdicts need the virtual clock (vmtest --icount)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
RATE=20 SECS=4
mkdir -p "$CG/hbm1"

# flood CPU: UDP as fast as it goes from CPU, in cgroup /hbm1 in hbmc.
flood() {
	sh -c 'echo $$ >"$1/cgroup.procs" &&
		exec taskset -c "$2" ip netns exec hbmc "$3" 198.51.100.2 9 "$4" 1400 0' \
		sh "$CG/hbm1" "$1" "$TOP/bin/udpflood" $SECS >/dev/null &
}

# refund_case MODE ALLOWANCE_BYTES HBM_ARGS...
refund_case() {
	mode=$1 allow=$2
	shift 2
	hbm_bg -n 1 -r $RATE -j "$@"
	flood 0
	f0=$!
	flood 1
	f1=$!
	wait $f0 $f1 || true
	kill $HBM_PID
	wait $HBM_PID || true
	out="$TMPD/hbm.1.out"
	eval "$(jq -r '"R=\(.rate_mbps) T=\(.duration) D=\(.pkts_dropped_percent)"' "$out")"
	note "$mode: passed $R Mbit/s over $T s, $D% of packets dropped"
	awk -v r="$R" -v t="$T" -v l=$RATE -v a="$allow" 'BEGIN {
		b = r * t * 1e6 / 8; lim = l * t * 1e6 / 8
		exit !(b >= 0.98 * lim && b <= lim + a + 3000) }' ||
		FAILS="$FAILS; $mode passed $R Mbit/s over $T s of $RATE (allowance $allow B)"
}

"$HT" setup -q=fq
FAILS=
refund_case credit $((100 * 1500))
refund_case edt $((125000 + 131072)) --edt
[ -z "$FAILS" ] || fail "${FAILS#; }"
exit 0
