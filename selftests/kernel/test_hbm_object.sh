# hbm runs only its built-in objects, or a file named with --object that
# only root can have written: a file an unprivileged user plants in the
# working directory under a built-in's name is not loaded, and --object
# refuses a file another user owns or may write.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hbm_lib.sh"

nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# runs ID PROG: cgroup /hbmID has the egress program PROG (its function name).
runs() { bpftool cgroup show "$CG/hbm$1" | grep -q " $2 *\$"; }

# The attacker: a credit-mode object as ./hbm_cg_edt in a directory anyone
# may write, where root then asks for EDT mode by the built-in's name.
pub="$TMPD/pub"
chmod 0711 "$TMPD"
mkdir -m 1777 "$pub"
nobody cp "$TOP/.output/hbm_cg.bpf.o" "$pub/hbm_cg_edt"
cd "$pub"
hbm_bg -n 3 -r 50 hbm_cg_edt
cd "$TOP"
runs 3 hbm_edt || fail "hbm hbm_cg_edt in $pub ran $(bpftool cgroup show "$CG/hbm3")"
grep -q "(edt mode)" "$TMPD/hbm.3.err" || fail "hbm hbm_cg_edt said: $(cat "$TMPD/hbm.3.err")"
kill -TERM $HBM_PID
wait $HBM_PID || fail "hbm exited $? on SIGTERM"
HBM_PIDS=

# --object: the file must be root's (or hbm's user's) and not writable by others.
expect_err 2 "^hbm: refusing $pub/hbm_cg_edt: it is owned by uid 65534" \
	"$HBM" -n 3 -t 1 --object "$pub/hbm_cg_edt"
cp "$TOP/.output/hbm_cg.bpf.o" "$TMPD/mine.o"
chmod 0664 "$TMPD/mine.o"
expect_err 2 "^hbm: refusing $TMPD/mine.o: it is writable by group or others" \
	"$HBM" -n 3 -t 1 --object "$TMPD/mine.o"
expect_err 2 "^hbm: 'hbm_cg_edt.o' is not a built-in object" "$HBM" -n 3 -t 1 hbm_cg_edt.o
chmod 0644 "$TMPD/mine.o"
hbm_bg -n 4 -r 50 --object "$TMPD/mine.o"
runs 4 hbm_credit || fail "hbm --object ran $(bpftool cgroup show "$CG/hbm4")"
kill -TERM $HBM_PID
wait $HBM_PID || fail "hbm --object exited $? on SIGTERM"
HBM_PIDS=
left=$(ls -d "$PINS"/hbm3 "$PINS"/hbm4 "$CG"/hbm3 "$CG"/hbm4 2>/dev/null || true)
[ -z "$left" ] || fail "hbm left $left"
exit 0
