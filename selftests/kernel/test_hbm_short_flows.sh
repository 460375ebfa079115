# HBM EDT mode: short flows cannot outrun the limit. A flow with nothing
# queued sends its first 10 MTU ahead of the cgroup's clock
# (bpf/hbm_cg_edt.bpf.c); a web server's load is all such flows. Four
# netperf TCP_CRR (a new connection for each 10 KB request, 1 byte back) in
# cgroup /hbm1: their request bytes alone may not pass the limit, and the
# same load without hbm must be able to (else there is nothing to judge).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hbm_lib.sh"

command -v netperf >/dev/null || skip "no netperf (bookworm non-free)"
RATE=10		# Mbit/s
SECS=4
SRV=198.51.100.2

"$HT" setup >/dev/null || fail "hbm-test setup failed"
ip netns exec hbmc tc qdisc replace dev eth0 root fq || fail "no fq on hbmc eth0"
ip netns exec hbms netserver -D -L $SRV -p 12865 >/dev/null 2>&1 &
HOLD_PIDS="$HOLD_PIDS $!"
sleep 0.3
mkdir -p "$CG/hbm1"

# crr_mbps: request goodput (Mbit/s) of four TCP_CRR clients in /hbm1.
crr_mbps() {
	pids=
	for i in 1 2 3 4; do
		in_cgroup "$CG/hbm1" ip netns exec hbmc netperf -H $SRV -l $SECS -t TCP_CRR -P 0 -- \
			-r 10240,1 -k TRANSACTION_RATE >"$TMPD/crr.$i" 2>&1 &
		pids="$pids $!"
	done
	for p in $pids; do wait "$p" || fail "netperf TCP_CRR failed: $(cat "$TMPD"/crr.*)"; done
	awk -F= '/^TRANSACTION_RATE=/ { t += $2; n++ }
		END { if (n == 4) printf "%.2f", t * 10240 * 8 / 1e6 }' "$TMPD"/crr.*
}

free=$(crr_mbps)
[ -n "$free" ] || fail "netperf printed no transaction rate: $(cat "$TMPD"/crr.*)"
note "four TCP_CRR clients, 10 KB requests, no limit: $free Mbit/s of requests"
fge "$free" $((RATE * 3 / 2)) || skip "the load reached only $free Mbit/s without a limit of $RATE"

hbm_bg --edt -n 1 -r $RATE
held=$(crr_mbps)
[ -n "$held" ] || fail "netperf printed no transaction rate: $(cat "$TMPD"/crr.*)"
note "the same in /hbm1 at $RATE Mbit/s (EDT, fq): $held Mbit/s of requests"
fge "$(awk -v r=$RATE 'BEGIN { print r * 1.01 }')" "$held" ||
	fail "short flows got $held Mbit/s of requests through a limit of $RATE"
fge "$held" "$(awk -v r=$RATE 'BEGIN { print r * 0.5 }')" ||
	fail "short flows got only $held Mbit/s through a limit of $RATE"
exit 0
