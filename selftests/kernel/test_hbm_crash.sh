# hbm -w killed (SIGKILL, as the OOM killer does) after it raised the limit:
# nothing it made stays in force (the kernel detaches the program with the
# last fd of its link), and a new hbm takes the id over. A clean exit with
# --keep leaves the limit at -r, the floor, not at where -w had raised it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hbm_lib.sh"

# raised ID: wait (5 s at most) until hbm -d -w said it raised the limit.
raised() {
	i=0
	until grep -q 'limit 10.0 -> ' "$TMPD/hbm.$1.err"; do
		i=$((i + 1))
		[ $i -le 100 ] || fail "hbm -w did not raise the limit: $(tail -3 "$TMPD/hbm.$1.err")"
		sleep 0.05
	done
}
attached() { bpftool cgroup show "$CG/hbm$1" | grep -q egress; }
# flood ID: UDP over lo from cgroup /hbmID (a socket stays in the cgroup it
# was made in) for 5 s; $FLOOD is the sender itself (in_cgroup, a shell
# function, would put a subshell in between).
flood() {
	sh -c 'echo $$ >"$1" && shift && exec "$@"' sh "$CG/hbm$1/cgroup.procs" \
		"$TOP/bin/udpflood" 127.0.0.1 9 5 1400 5000 >/dev/null &
	FLOOD=$!
}
stop_flood() { kill $FLOOD 2>/dev/null || true; wait $FLOOD 2>/dev/null || true; }

# A UDP flood over lo from the cgroup (-l judges lo) uses the limit while
# lo, said to carry 10 Gbit/s, is idle: -w raises the limit.
WC="-r 10 -l -d -w --nic lo --nic-rate 10000"
hbm_bg -n 7 $WC
flood 7
raised 7
kill -KILL $HBM_PID
wait $HBM_PID 2>/dev/null || true
HBM_PIDS=
note "killed while: $(grep 'limit 10.0 -> ' "$TMPD/hbm.7.err" | tail -1)"
if attached 7; then
	fail "hbm killed by SIGKILL left its program on $CG/hbm7: $(bpftool cgroup show "$CG/hbm7")"
fi
stop_flood
expect "$HBM" -n 7 -r 10 -t 1 2>/dev/null
attached 7 && fail "the second hbm -n 7 left its program on $CG/hbm7"

# --keep: the limit kept at a clean exit is -r.
hbm_bg -n 8 $WC --keep -t 3
flood 8
raised 8
wait $HBM_PID || fail "hbm --keep exited $?"
HBM_PIDS=
stop_flood
rate=$(bpftool map dump pinned "$PINS/hbm8/config" -j | jq '.[0].formatted.value.rate // .[0].value.rate')
[ "$rate" = 1250000 ] || fail "--keep -w kept $rate bytes/s, -r 10 is 1250000"
attached 8 || fail "--keep left nothing on $CG/hbm8"
expect "$HBM" -n 8 --remove
exit 0
