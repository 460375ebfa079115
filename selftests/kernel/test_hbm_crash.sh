# hbm -w killed (SIGKILL, as the OOM killer does) after it raised the limit:
# nothing it made stays in force (the kernel detaches the program with the
# last fd of its link), and a new hbm takes the id over. A clean exit with
# --keep leaves the limit at -r, the floor, not at where -w had raised it.
# hbm -w --keep killed the same way leaves the limit in force, and back at
# -r once the raise's lease runs out, also from a time namespace: a local
# user who can bring the OOM killer on cannot lift a limit root asked to keep.
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
# raised_to ID MBPS: wait (5 s at most) until hbm -d -w raised the limit to
# MBPS or more.
raised_to() {
	i=0
	until awk -v m="$2" '/limit .* -> / { sub(/.* -> /, ""); if ($1 + 0 >= m) f = 1 }
		END { exit !f }' "$TMPD/hbm.$1.err"; do
		i=$((i + 1))
		[ $i -le 100 ] || fail "hbm -w did not raise the limit to $2: $(tail -3 "$TMPD/hbm.$1.err")"
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

# passed ID: bytes the program of /hbmID let through, from its pinned stats.
passed() {
	bpftool map dump pinned "$PINS/hbm$1/stats" -j |
		jq '[.[0].formatted.values[].value | .bytes - .bytes_dropped] | add'
}
now_ns() { date +%s%N; }

# --keep, killed: the limit stays, and at -r (1250000 bytes/s) once the
# lease of the raise (200 ms) ran out: the flood (7 MB/s) passes at most
# 1.5 times that over 0.5 s (credit mode's burst is 150 KB), and at least
# 0.8 times (the flood still runs).
# The third run is in a time namespace whose CLOCK_MONOTONIC is 100 s
# ahead of the kernel's bpf_ktime_get_ns(), which the lease is judged by.
printf '#!/bin/sh\nexec unshare -T --monotonic 100 --fork --kill-child %s "$@"\n' "$HBM" \
	>"$TMPD/hbm-timens"
chmod +x "$TMPD/hbm-timens"
id=9
for label in credit edt timens; do
	hbm=$HBM mode=
	[ $label = edt ] && mode=--edt
	[ $label = timens ] && HBM=$TMPD/hbm-timens
	hbm_bg -n $id $WC --keep $mode
	HBM=$hbm
	flood $id
	raised_to $id 20
	kill -KILL $HBM_PID
	wait $HBM_PID 2>/dev/null || true
	HBM_PIDS=
	note "$label: killed at $(grep 'limit .* -> ' "$TMPD/hbm.$id.err" | tail -1)"
	attached $id || fail "hbm --keep ($label) killed by SIGKILL left no limit on $CG/hbm$id"
	sleep 0.3
	b0=$(passed $id) t0=$(now_ns)
	sleep 0.5
	b1=$(passed $id) t1=$(now_ns)
	stop_flood
	bps=$(awk -v b="$((b1 - b0))" -v t="$((t1 - t0))" 'BEGIN { printf "%d", b * 1e9 / t }')
	note "$label: after the lease, $bps bytes/s passed (-r 10: 1250000)"
	[ "$bps" -le 1875000 ] || fail "hbm --keep ($label) killed: $bps bytes/s pass, -r 10 is 1250000"
	[ "$bps" -ge 1000000 ] || fail "hbm --keep ($label) killed: only $bps bytes/s pass, is the flood on?"
	expect_err 2 "^hbm: id $id is in use: its limit was kept" "$HBM" -n $id -r 10 -t 1
	expect "$HBM" -n $id --remove
	attached $id 2>/dev/null && fail "--remove left the program on $CG/hbm$id"
	id=$((id + 1))
done
exit 0
