#!/bin/dash
# fq_prof: where bpf_fq's instructions go, path by path, for one and eight
# TCP flows; variants side by side in one boot.
#
#   selftests/progs/fq_prof.sh build NAME FILE   (host) FILE, a copy of
#       bpf/fq.bpf.c, with clock reads around its paths (fq_prof.py), as
#       kind bpf_NAME (fq_ab.sh build)
#   tools/vmtest --icount --smp 1 --mem 2048 -- sh -c \
#       'env ROUNDS=2 dash selftests/progs/fq_prof.sh run NAME...'
#       per round, variant and flow count (1, 8), one iperf3 run of SECS
#       (2) s: Mbit/s and bpf_stats' ns/op (the reads' cost included),
#       then per section the runs and ns a run, the clock read it ends
#       with taken off (a section holding others pays theirs too).
#
# On the virtual clock a nanosecond is an instruction: the figures are
# instruction counts, exact for a path, so a change to one path shows in
# one boot although throughput's rounds spread wider than it.
TOP=$(cd "$(dirname "$0")/../.." && pwd)

usage() { echo "usage: fq_prof.sh build NAME FILE | run NAME..." >&2; exit 2; }

case ${1:-} in
build)
	[ $# = 3 ] || usage
	mkdir -p "$TOP/.output/fq_prof" || exit 1
	python3 "$TOP/selftests/progs/fq_prof.py" "$3" "$TOP/.output/fq_prof/$2.c" || exit 1
	exec "$TOP/selftests/progs/fq_ab.sh" build "$2" "$TOP/.output/fq_prof/$2.c" ;;
run) shift; [ $# -ge 1 ] || usage ;;
*) usage ;;
esac

. "$TOP/selftests/kernel/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"
set +eu
"$BQ" load fq >/dev/null || { echo "fq_prof: cannot load fq" >&2; exit 1; }
for v; do
	# load PATH takes only a root-owned file nobody else may write.
	o=$(mktemp -d)/$v.bpf.o
	cp "$TOP/.output/fq_ab/$v.bpf.o" "$o" && chmod 644 "$o" || exit 1
	"$BQ" load "$o" --max-instances 8 >/dev/null || { echo "fq_prof: cannot load $v" >&2; exit 1; }
done
veth_pair
ip netns exec a ping -q -c 1 -W 2 "$B" >/dev/null
sysctl -qw kernel.bpf_stats_enabled=1

SECTION_NAMES="enqueue:to_the_fast_path_test enqueue:fast_path enqueue:flow_path enqueue:fq_classify \
dequeue:fast_path_packet dequeue:flow_path_to_fq_pick fq_pick:nothing_due fq_pick:a_flow \
dequeue:nothing_due,_watchdog_armed - dequeue:after_fq_pick_with_packet dequeue:flow_path_packet"
prof_ns() {
	bpftool map dump name "$1.bss" -j |
		jq -r '[.. | objects | select(has("prof_ns")) | .prof_ns][0] | map(tostring) | join(" ")'
}

for r in $(seq "${ROUNDS:-1}"); do
	for v; do
		for p in 1 8; do
			ip netns exec a tc qdisc del dev va root 2>/dev/null
			ip netns exec a tc qdisc add dev va root "bpf_$v" || exit 1
			e0=$(prog_cost "${v}_enqueue") d0=$(prog_cost "${v}_dequeue") s0=$(prof_ns "$v")
			iperf_server b
			echo "$v P$p round $r $(iperf_mbps a "$B" "${SECS:-2}" -P $p) Mbit/s" \
				"enq $(cost_since "${v}_enqueue" "$e0") deq $(cost_since "${v}_dequeue" "$d0")"
			echo "$s0 $(prof_ns "$v")" | awk -v names="$SECTION_NAMES" '
				BEGIN { split(names, n, " ") }
				{ for (i = 1; i <= 32; i++) d[i - 1] = $(i + 32) - $i
				  cal = d[19] ? d[18] / d[19] : 0
				  for (k = 0; k <= 11; k++) if (k != 9 && d[2 * k + 1])
					printf "  %-40s %8d runs %7.0f ns\n", n[k + 1], d[2 * k + 1], d[2 * k] / d[2 * k + 1] - cal
				  printf "  %-40s %8s      %7.0f ns\n", "(one clock read)", "", cal }'
		done
	done
done
