# hbm: bad input gets one line on stderr and exit 2 (1 when the system is
# at fault); an id in use is refused; a run cleans up after itself; --keep
# leaves the limit in force until --remove; -s, -j and -d print what they
# promise.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hbm_lib.sh"

for r in 0 -5 0.5 100001 1e12 abc 50x ""; do
	expect_err 2 "^hbm: -r takes a rate from 1 to 100000 Mbit/s" "$HBM" -r "$r" -t 1
done
expect_err 2 "^hbm: -n takes an id" "$HBM" -n abc
expect_err 2 "^hbm: -n takes an id" "$HBM" -n -1
expect_err 2 "^hbm: -t takes seconds" "$HBM" -t -1
expect_err 2 "^hbm: option -r needs a value" "$HBM" -r
expect_err 2 "^hbm: unknown option --bogus" "$HBM" --bogus
expect_err 2 "^hbm: -w needs the NIC" "$HBM" -w -r 50
expect_err 2 "^hbm: --nic-rate takes" "$HBM" -w --nic lo --nic-rate 0
expect_err 2 "^hbm: cannot open BPF object /nonexistent.bpf.o" "$HBM" -t 1 --object /nonexistent.bpf.o
expect_err 2 "^hbm: the BPF object's hbm_config has 8-byte values, this hbm expects 32" \
	"$HBM" -n 7 -t 1 --object "$TOP/.output/hbm_old_layout.bpf.o"
[ ! -e "$CG/hbm7" ] || fail "hbm made $CG/hbm7 for an object it refused"
expect_err 2 "^hbm: no kept hbm with id 42" "$HBM" -n 42 --remove
# No cgroup2 mount: an environment failure. The mount namespace is private.
expect_err 1 "^hbm: no cgroup2 file system is mounted" \
	unshare -m sh -c "umount -l '$CG' && exec '$HBM' -r 50 -t 1"
left=$(ls -d "$PINS/hbm1" "$CG/hbm1" "$PINS/hbm42" "$CG/hbm42" 2>/dev/null || true)
[ -z "$left" ] || fail "bad input left $left"

# An id in use, by a running hbm or by a kept one, is refused.
hbm_bg -n 7 -r 50
expect_err 2 "^hbm: id 7 is in use" "$HBM" -n 7 -r 50 -t 1
[ "$(stat -c %a "$PINS/hbm7")" = 700 ] || fail "pin directory mode $(stat -c %a "$PINS/hbm7")"
[ -d "$CG/hbm7" ] || fail "no cgroup $CG/hbm7"
kill -TERM $HBM_PID
wait $HBM_PID || fail "hbm exited $? on SIGTERM"
HBM_PIDS=
[ ! -e "$PINS/hbm7" ] || fail "hbm left $PINS/hbm7"
[ ! -e "$CG/hbm7" ] || fail "hbm left $CG/hbm7"

! grep -q "no options" "$TMPD/hbm.7.err" || fail "hbm -n 7 -r 50 said it had none: $(cat "$TMPD/hbm.7.err")"

# Bare, as the 2019 tool: its default limiter, and it says so (issue 38.15).
hbm_bg
grep -q "^hbm: no options: starting the 2019 tool's default limiter, cgroup /hbm1 at 1000 Mbit/s" \
	"$TMPD/hbm.1.err" || fail "bare hbm said: $(cat "$TMPD/hbm.1.err")"
kill -TERM $HBM_PID
wait $HBM_PID || fail "bare hbm exited $? on SIGTERM"
HBM_PIDS=

# -s and -l: ping over lo in the cgroup is judged, with the stats' names.
hbm_bg -n 5 -r 50 -l -s -d
in_cgroup "$CG/hbm5" ping -c 3 -i 0.2 -q 127.0.0.1 >/dev/null ||
	fail "ping in the cgroup failed"
kill -TERM $HBM_PID
wait $HBM_PID || fail "hbm -s exited $?"
HBM_PIDS=
out="$TMPD/hbm.5.out"
for k in id rate_mbps duration packets bytes_MB pkts_dropped bytes_dropped_MB \
	pkts_marked_percent bytes_marked_percent pkts_dropped_percent bytes_dropped_percent \
	pkts_ecn_ce "avg cwnd" "avg rtt" "avg credit" DROP_PKT ALLOW_PKT DROP_PKT_CWR ALLOW_PKT_CWR; do
	grep -q "^$k:" "$out" || fail "hbm -s has no '$k:': $(cat "$out")"
done
pk=$(sed -n 's/^packets://p' "$out")
[ "$pk" -ge 3 ] || fail "hbm -s -l counted $pk packets for 3 pings over lo"
grep -q "hbm: rate 6250000 bytes/s" "$TMPD/hbm.5.err" || fail "hbm -d printed no BPF trace: $(cat "$TMPD/hbm.5.err")"
# The cgroup had a process when hbm exited; once empty it can go.
rmdir "$CG/hbm5" 2>/dev/null || true

# --keep: the limit outlives hbm; --remove -j prints its stats and undoes it.
expect "$HBM" -n 9 -r 75 --edt -t 1 --keep 2>/dev/null
[ -e "$PINS/hbm9/link" ] || fail "--keep left no pinned link"
[ -d "$CG/hbm9" ] || fail "--keep left no cgroup"
bpftool cgroup show "$CG/hbm9" | grep -q egress || fail "--keep: nothing attached to $CG/hbm9"
expect_err 2 "^hbm: id 9 is in use" "$HBM" -n 9 -r 50 -t 1
"$HBM" -n 9 --remove -j >"$TMPD/rm.json" || fail "--remove exited $?"
jq -e '.id == 9 and .mode == "edt" and .limit_mbps == 75 and has("avg_credit_ms")
	and has("pkts_turn") and (.return_values | has("ALLOW_PKT_CWR"))' "$TMPD/rm.json" >/dev/null ||
	fail "--remove -j printed $(cat "$TMPD/rm.json")"
[ ! -e "$PINS/hbm9" ] || fail "--remove left $PINS/hbm9"
[ ! -e "$CG/hbm9" ] || fail "--remove left $CG/hbm9"
exit 0
