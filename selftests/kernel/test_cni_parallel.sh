#!/bin/dash
# A runtime starts pods side by side: 8 ADDs of bpfqdisc-bandwidth at once
# on a node where bpf_hbm is not loaded yet. Each succeeds (one of them
# loads the kind, the others use that load), each pod gets its qdiscs, and
# 8 DELs at once leave nothing.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/cni_lib.sh"
. "$TOP/selftests/kernel/cni_bw_lib.sh"

N=8
[ ! -e /sys/fs/bpf/bpfqdisc/hbm/link ] || fail "bpf_hbm loaded before the test"
i=0
while [ $i -lt $N ]; do
	cni_pod_add par$i >/tmp/par$i.json
	i=$((i + 1))
done
# run_all CMD: the plugin for every pod at once; each one's exit in /tmp/par$i.rc.
run_all() {
	i=0
	while [ $i -lt $N ]; do
		( bw "$1" "$(bw_conf 1.0.0 "$LIMITS" "$(cat /tmp/par$i.json)")" par$i
		  echo "$rc $out" >/tmp/par$i.rc ) &
		i=$((i + 1))
	done
	wait
}
run_all ADD
i=0
while [ $i -lt $N ]; do
	read -r rc rest </tmp/par$i.rc
	[ "$rc" = 0 ] || fail "parallel ADD par$i: exit $rc: $rest"
	[ "$(root_kind par$i eth0)" = bpf_hbm ] || fail "par$i: eth0 has $(root_kind par$i eth0)"
	i=$((i + 1))
done
[ "$(tc qdisc show | grep -c bpf_hbm)" = $N ] || fail "$(tc qdisc show | grep -c bpf_hbm) bpf_hbm on the node, not $N"
run_all DEL
i=0
while [ $i -lt $N ]; do
	read -r rc rest </tmp/par$i.rc
	[ "$rc" = 0 ] || fail "parallel DEL par$i: exit $rc: $rest"
	cni_pod_del par$i
	rm -f /tmp/par$i.json /tmp/par$i.rc
	i=$((i + 1))
done
[ -z "$(tc qdisc show | grep bpf_hbm)" ] || fail "qdiscs left: $(tc qdisc show | grep bpf_hbm)"
[ -z "$(ls "$STATE_DIR")" ] || fail "records left: $(ls "$STATE_DIR")"
[ -z "$(pins)" ] || fail "pins left: $(pins)"
note "$N ADDs at once on a node without bpf_hbm, then $N DELs at once"
