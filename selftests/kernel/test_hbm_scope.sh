# HBM scope: loopback traffic is exempt without -l and limited with it; two
# cgroups at different rates are each held to their own; -w lets a cgroup
# use what the NIC has spare.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hbm_lib.sh"

# iperf3 over the client namespace's lo, from inside cgroup /hbm1.
ht -r=50 -t=3 -s=127.0.0.1
note "lo without -l: goodput $GOODPUT Mbit/s, $EXEMPT packets exempt"
fge "$GOODPUT" 100 || fail "lo without -l: goodput $GOODPUT Mbit/s, limit 50 (exempt $EXEMPT)"
[ "$EXEMPT" -gt 100 ] || fail "lo without -l: only $EXEMPT packets exempt"
# lo has no fq, so credit mode; its ~0.1 ms RTT leaves TCP at 2 segments, so
# only drops (and TCP's probe timer) hold it: the limit holds, not 95% of it.
ht -r=50 -t=3 -s=127.0.0.1 -l
note "lo with -l: goodput $GOODPUT Mbit/s"
fge 50.5 "$GOODPUT" || fail "lo with -l: goodput $GOODPUT Mbit/s over the limit of 50"
fge "$GOODPUT" 10 || fail "lo with -l: goodput $GOODPUT Mbit/s"

# Two cgroups side by side through one fq, EDT at 40 and 80 Mbit/s.
"$HT" setup -q=fq
"$HT" -i=1 -r=40 --edt -t=5 -O=1 -p=5201 >"$TMPD/a.out" 2>&1 &
a=$!
"$HT" -i=2 -r=80 --edt -t=5 -O=1 -p=5301 >"$TMPD/b.out" 2>&1 &
b=$!
wait $a || fail "cgroup 1's run failed: $(tail -3 "$TMPD/a.out")"
wait $b || fail "cgroup 2's run failed: $(tail -3 "$TMPD/b.out")"
g1=$(sed -n 's/^AGGREGATE_GOODPUT://p' "$TMPD/a.out")
g2=$(sed -n 's/^AGGREGATE_GOODPUT://p' "$TMPD/b.out")
note "two cgroups: /hbm1 $g1 Mbit/s of 40 ($(pct "$g1" 40)%), /hbm2 $g2 Mbit/s of 80 ($(pct "$g2" 80)%)"
fge 40.4 "$g1" || fail "/hbm1 got $g1 Mbit/s, limit 40"
fge 80.8 "$g2" || fail "/hbm2 got $g2 Mbit/s, limit 80"
# Both share 2 vCPUs: held near their rates, with room for the host's noise.
fge "$g1" 32 || fail "/hbm1 got only $g1 Mbit/s of 40"
fge "$g2" 64 || fail "/hbm2 got only $g2 Mbit/s of 80"
"$HT" teardown

# Work conserving: 50 Mbit/s grows while eth0 (said to carry 400) is idle.
ht -r=50 -t=4 --edt -w --nic-rate=400
note "-w: goodput $GOODPUT Mbit/s, limit at the end $LIMIT Mbit/s"
fge "$GOODPUT" 75 || fail "-w: goodput $GOODPUT Mbit/s, expected well over 50"
fge 380.01 "$LIMIT" || fail "-w: the limit grew to $LIMIT, over 95% of the NIC's 400"
exit 0
