# HBM EDT mode: short flows cannot outrun the limit. A flow with nothing
# queued sends its first 10 MTU ahead of the cgroup's clock
# (bpf/hbm_cg_edt.bpf.c); a web server's load is all such flows. Four
# netperf TCP_CRR (a new connection for each 10 KB request, 1 byte back) in
# cgroup /hbm1: the IP bytes the server receives from them may not pass the
# limit, and the same load without hbm must be able to (else there is
# nothing to judge). The bytes are counted on the server's device in a
# window that opens once all four clients run: each netperf reports its
# own rate over its own run, and under a loaded host their starts are
# spread enough that the sum of the four passed the limit (10.48 of 10).
# Either of two rules keeps the turns within the rate (the turn clock, and
# no turn past the horizon); without both, 11.9 and 13.7 Mbit/s got through
# a limit of 5.
# Measured on the virtual clock, 1 vCPU (2026-12-01): 4.89 Mbit/s through
# the 5 Mbit/s limit, 470 without.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hbm_lib.sh"

command -v netperf >/dev/null || skip "no netperf (bookworm non-free)"
RATE=5		# Mbit/s
SECS=4
SRV=198.51.100.2

"$HT" setup >/dev/null || fail "hbm-test setup failed"
ip netns exec hbmc tc qdisc replace dev eth0 root fq || fail "no fq on hbmc eth0"
ip netns exec hbms netserver -D -L $SRV -p 12865 >/dev/null 2>&1 &
HOLD_PIDS="$HOLD_PIDS $!"
sleep 0.3
mkdir -p "$CG/hbm1"

# rx_sample: the server's received IP bytes and the time (s), one line.
rx_sample() {
	ip netns exec hbms awk '
		FILENAME == "/proc/uptime" { t = $1; next }
		sub(/^ *eth0:/, "") { b = $1; p = $2 }
		END { printf "%d %d %s\n", b - 14 * p, p, t }' /proc/net/dev /proc/uptime
}

# crr_mbps SECS: the IP Mbit/s four TCP_CRR clients in /hbm1 send, over
# SECS seconds that start a second after netserver has a child for each.
crr_mbps() {
	pids=
	for i in 1 2 3 4; do
		in_cgroup "$CG/hbm1" ip netns exec hbmc netperf -H $SRV -l $(($1 + 3)) -t TCP_CRR \
			-P 0 -- -r 10240,1 >"$TMPD/crr.$i" 2>&1 &
		pids="$pids $!"
	done
	i=0
	until [ "$(pgrep -x netserver | wc -l)" -ge 5 ]; do
		i=$((i + 1))
		[ $i -le 100 ] || fail "the four netperf clients did not connect in 10 s"
		sleep 0.1
	done
	sleep 1
	first=$(rx_sample)
	sleep $1
	last=$(rx_sample)
	for p in $pids; do wait "$p" || fail "netperf TCP_CRR failed: $(cat "$TMPD"/crr.*)"; done
	echo "$first $last" | awk '$6 > $3 { printf "%.2f", ($4 - $1) * 8 / ($6 - $3) / 1e6 }'
}

# Without a limit the load need only show that it could pass one (1.5x):
# 1 s of it, as it runs the CPU flat out (with 4 s, the test cost the
# host 119 s of wall time).
free=$(crr_mbps 1) || exit 1	# crr_mbps said why
[ -n "$free" ] || fail "no time passed between two samples of the server's bytes"
note "four TCP_CRR clients, 10 KB requests, no limit: the server got $free Mbit/s (IP)"
fge "$free" "$(awk -v r=$RATE 'BEGIN { print r * 1.5 }')" || skip "the load reached only $free Mbit/s without a limit of $RATE"

hbm_bg --edt -n 1 -r $RATE
held=$(crr_mbps $SECS) || exit 1
[ -n "$held" ] || fail "no time passed between two samples of the server's bytes"
note "the same in /hbm1 at $RATE Mbit/s (EDT, fq): $held Mbit/s"
fge "$(awk -v r=$RATE 'BEGIN { print r * 1.01 }')" "$held" ||
	fail "short flows got $held Mbit/s (IP) through a limit of $RATE"
fge "$held" "$(awk -v r=$RATE 'BEGIN { print r * 0.5 }')" ||
	fail "short flows got only $held Mbit/s through a limit of $RATE"
exit 0
