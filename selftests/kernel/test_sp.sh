# bpf_sp serves a higher band first, as prio does. Behind a slow
# receiver, 8 bulk sockets at priority 0 (band 1 by the default priomap)
# and one socket at priority 7 (band 0), each kept full (ctl_share,
# selftests/progs/fq_lib.sh): strict priority gives the priority-7 socket
# all it can send, the bulk sockets the rest; a FIFO would split the
# bytes by what each socket has queued. With a priomap that sends 7 to
# band 2, below the bulk sockets' band 1, it gets next to nothing. The
# kernel's prio is judged the same way beside it (its bands' pfifos hold
# txqueuelen packets: 10000, so that nothing is dropped).
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"

[ "${VMTEST_ICOUNT:-0}" = 1 ] || skip "shares are judged on the virtual clock (tools/vmtest --icount)"
modprobe sch_prio 2>/dev/null || true
expect "$BQ" load sp
veth_pair
slow_receiver
expect ip -n a link set va txqueuelen 10000
ctl=$(mktemp) bulk=$(mktemp)
trap 'rm -f $ctl $bulk' EXIT

low_map="1 2 2 2 1 2 0 2 1 1 1 1 1 1 1 1"
expect ip netns exec a tc qdisc replace dev va root prio
prio=$(ctl_share)
expect ip netns exec a tc qdisc replace dev va root prio priomap $low_map
prio_low=$(ctl_share)
expect "$BQ" -n a qdisc replace dev va root bpf_sp limit 10000
sp=$(ctl_share)
clamped=$("$BQ" -n a stats -j | "$JGET" '.[0].bpf.clamped')
expect "$BQ" -n a qdisc replace dev va root bpf_sp limit 10000 priomap "$(echo $low_map | tr -d ' ')"
sp_low=$(ctl_share)
res="priority 7 against 8 bulk sockets at 0: prio $prio%, bpf_sp $sp%; 7 below them: prio $prio_low%, bpf_sp $sp_low%; clamped $clamped"
[ "$sp" -ge 90 ] && [ "$prio" -ge 90 ] && [ "$sp_low" -le 5 ] && [ "$prio_low" -le 5 ] || fail "$res"
[ "$clamped" = 0 ] || fail "$res"
note "$res"
exit 0
