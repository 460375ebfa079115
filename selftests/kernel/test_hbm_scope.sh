# HBM scope: loopback traffic is exempt without -l and limited with it; two
# cgroups at different rates are each held to their own (95-101%); -w lets
# a cgroup use what the NIC has spare.
# Measured on the virtual clock, 1 vCPU (2026-12-01): /hbm1 96.8%, /hbm2
# 96.4% of their limits; lo with -l 29.7 Mbit/s of 50: bars 95-101% and
# 10-50.5 Mbit/s.
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
two_limits fq --edt

# Work conserving: 50 Mbit/s grows while eth0 (said to carry 400) is idle.
ht -r=50 -t=4 --edt -w --nic-rate=400
note "-w: goodput $GOODPUT Mbit/s, limit at the end $LIMIT Mbit/s"
fge "$GOODPUT" 75 || fail "-w: goodput $GOODPUT Mbit/s, expected well over 50"
fge 380.01 "$LIMIT" || fail "-w: the limit grew to $LIMIT, over 95% of the NIC's 400"
conform_done
