#!/bin/dash
# fq_ab: bpf_fq variants against each other and the kernel's fq, in one boot.
#
# A cost change to bpf_fq is only visible side by side: under TCG the same
# figure swings 2x between rounds and boots. So a variant of bpf/fq.bpf.c
# (the old object, or one with a part changed) is built as its own kind,
# bpf_NAME, registered beside bpf_fq, and every kind takes its turn in
# every round (the order rotating).
#
#   selftests/progs/fq_ab.sh build NAME FILE     (host) FILE, a copy of
#       bpf/fq.bpf.c, as kind bpf_NAME: .output/fq_ab/NAME.bpf.o, programs
#       NAME_enqueue and NAME_dequeue
#   tools/vmtest -- selftests/progs/fq_ab.sh run [NAME...]     (in the VM)
#       one line per kind, test and round:
#       KIND TEST ROUND VALUE nspp NS [enq NS deq NS dpe DEQUEUES_PER_ENQUEUE]
#       (nspp: CPU ns, not idle, per packet va's qdisc sent; on the
#       virtual clock, --icount, guest instructions per packet)
#
# Env for run: ROUNDS (5), SECS (2), KINDS (fq bpf_fq; the variants are
# added), FQ_PARAMS (bpfqdisc load fq's defaults, which the variants get
# too: "maxrate 10gbit" keeps 64-byte UDP off the fast path), NOSTATS_TESTS
# (run first, bpf_stats off), TESTS (then with bpf_stats on: ns/op; default
# "tcp1 pps"). Tests: tcp1, tcp8, tcp32 (iperf3 Mbit/s), tcp1rtt20 (one
# flow, 20 ms of netem delay on the ACK path, no TCP metrics cached), rtt
# (sockperf TCP ping-pong p50 and p99, µs), pps (64-byte UDP frames per second),
# paced (16 UDP sockets paced at 1 MB/s each by the qdisc, every packet
# throttled: the throttled heap's cost; datagrams per second sent), flows:N
# (64-byte UDP over N flows, as tools/bench's scale table sends them:
# pkt/s at the receiver; with FQ_PARAMS and FQ_KPARAMS
# "orphan_mask 4294967295 maxrate 10gbit" every port is a flow and both
# qdiscs stay off their fast path). FQ_KPARAMS: the kernel fq's parameters.
# FQ_TABLE: bpfqdisc load's table options for bpf_fq and every variant
# (flows:1000000 needs "--max-instances 2 --ring-slots 1048576"); the
# variants are then loaded by path, not registered by bpftool, which
# cannot size their maps.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OBJS=$TOP/.output/fq_ab

usage() { echo "usage: fq_ab.sh build NAME FILE | run [NAME...]" >&2; exit 2; }

build() {
	case $1 in '' | *[!a-z0-9]*) echo "fq_ab: NAME is lower-case letters and digits, at most 12" >&2; exit 2 ;; esac
	[ ${#1} -le 12 ] || { echo "fq_ab: NAME is at most 12 characters" >&2; exit 2; }
	[ -r "$2" ] || { echo "fq_ab: cannot read $2" >&2; exit 2; }
	mkdir -p "$OBJS" || exit 1
	sed -e "s/\bfq_enqueue\b/$1_enqueue/g; s/\bfq_dequeue\b/$1_dequeue/g" \
	    -e "s/^BQ_\(ENQUEUE\|DEQUEUE\)(fq)/BQ_\1($1)/" \
	    -e "s/^BQ_QDISC_OPS(fq,/BQ_QDISC_OPS($1,/" "$2" >"$OBJS/$1.c"
	grep -q "^BQ_QDISC_OPS($1," "$OBJS/$1.c" ||
		{ echo "fq_ab: $2 has no BQ_QDISC_OPS(fq, ...)" >&2; exit 2; }
	cd "$TOP" && clang-19 -g -O2 -target bpf -D__TARGET_ARCH_x86 -mcpu=v3 -fms-extensions \
		-Wno-microsoft-anon-tag -Wall -Werror -Iinclude -Ibpf -I.output -I.cache/libbpf/include \
		-c "$OBJS/$1.c" -o "$OBJS/$1.tmp.o" &&
		bpftool gen object "$OBJS/$1.bpf.o" "$OBJS/$1.tmp.o" && rm -f "$OBJS/$1.tmp.o"
}

case ${1:-} in
build) [ $# = 3 ] || usage; build "$2" "$3"; exit ;;
run) shift ;;
*) usage ;;
esac
for t in ${NOSTATS_TESTS:-} ${TESTS-tcp1 pps}; do
	case $t in tcp1 | tcp8 | tcp32 | tcp1rtt20 | rtt | pps | paced | flows:[1-9]*) ;; *) echo "fq_ab: unknown test '$t'" >&2; exit 2 ;; esac
done
for v; do
	[ -r "$OBJS/$v.bpf.o" ] || { echo "fq_ab: no $OBJS/$v.bpf.o: fq_ab.sh build $v FILE first" >&2; exit 2; }
done

. "$TOP/selftests/kernel/lib.sh"
. "$TOP/selftests/progs/fq_lib.sh"
set +eu
ROUNDS=${ROUNDS:-5} SECS=${SECS:-2} TESTS=${TESTS-"tcp1 pps"}
modprobe sch_fq
# shellcheck disable=SC2086 # FQ_PARAMS is a list of words
"$BQ" load fq ${FQ_TABLE:-} ${FQ_PARAMS:-} >/dev/null || { echo "fq_ab: cannot load fq" >&2; exit 1; }

# A kind registered by bpftool starts with zero parameters: it gets bpf_fq's.
defaults=$(bpftool map dump pinned /sys/fs/bpf/bpfqdisc/fq/bq_defaults -j | jq -r '.[0].value | join(" ")')
for v; do
	if [ -n "${FQ_TABLE:-}" ]; then
		# load PATH takes only a root-owned file nobody else may write.
		o=$(mktemp -d)/$v.bpf.o
		cp "$OBJS/$v.bpf.o" "$o" && chmod 644 "$o" || exit 1
		# shellcheck disable=SC2086 # lists of words
		"$BQ" load "$o" $FQ_TABLE ${FQ_PARAMS:-} >/dev/null || { echo "fq_ab: cannot load $v" >&2; exit 1; }
		continue
	fi
	bpftool struct_ops register "$OBJS/$v.bpf.o" /sys/fs/bpf >/dev/null || { echo "fq_ab: cannot register $v" >&2; exit 1; }
	m=$(bpftool map show -j | jq -r '[.[] | select(.name == "bq_defaults")] | max_by(.id) | .id')
	# shellcheck disable=SC2086
	bpftool map update id "$m" key 0 0 0 0 value $defaults || exit 1
done
veth_pair
ip netns exec a ping -q -c 1 -W 2 $B >/dev/null
ip netns exec b sockperf sr --tcp -i $B -p 11111 --daemonize >/dev/null 2>&1
KINDS="${KINDS:-fq bpf_fq} $(for v; do printf 'bpf_%s ' "$v"; done)"

pps() { udp_pps; }
tcp1() { iperf_server b; iperf_mbps a $B $SECS; }
tcp8() { iperf_server b; iperf_mbps a $B $SECS -P 8; }
tcp32() { iperf_server b; iperf_mbps a $B $SECS -P 32; }
tcp1rtt20() {
	ip netns exec a ip tcp_metrics flush all 2>/dev/null
	ip netns exec b tc qdisc replace dev vb root netem delay 20ms limit 100000
	iperf_server b
	iperf_mbps a $B $SECS
	ip netns exec b tc qdisc del dev vb root
}
paced() {
	n0=$(tc_stat a va packets)
	ip netns exec b "$FQSEND" -l -d $((SECS + 1)) $B 7000 >/dev/null &
	sleep 0.2
	ip netns exec a "$FQSEND" -f 16 -c -R 1000000 -s 1000 -d $SECS $B 7000 >/dev/null
	echo $(( ($(tc_stat a va packets) - n0) / SECS ))
	wait $!
}
flows() {
	n0=$(rx_packets) t0=$(date +%s.%N)
	fq_scale_send $1
	echo "$n0 $(rx_packets) $t0 $(date +%s.%N)" | awk '{ printf "%.0f", ($2 - $1) / ($4 - $3) }'
}
rtt() {
	f=$(mktemp)
	ip netns exec a sockperf pp --tcp --no-rdtsc --full-rtt -i $B -p 11111 -t $((SECS > 2 ? SECS : 2)) >"$f" 2>&1
	echo "$(awk '/percentile 50.000 =/ { print $NF; exit }' "$f") p99 $(awk '/percentile 99.000 =/ { print $NF; exit }' "$f")"
	rm -f "$f"
}

# busy_ns: CPU time not idle since boot, all CPUs (/proc/stat, in USER_HZ
# ticks of 10 ms). On the virtual clock that is instructions: the whole
# path's cost, kernel and qdisc, whichever qdisc it is.
busy_ns() { awk '/^cpu / { print ($2 + $3 + $4 + $7 + $8) * 10000000; exit }' /proc/stat; }

# measure KIND TEST ROUND: one figure, the busy ns per packet va's root
# qdisc sent (tc's count: GSO segments) meanwhile, and with bpf_stats on
# KIND's ns/op.
measure() {
	p=
	case $1 in bpf_*) [ "$STATS" = 1 ] && p=${1#bpf_} ;; esac
	[ -n "$p" ] && e0=$(prog_cost "${p}_enqueue") d0=$(prog_cost "${p}_dequeue")
	n0=$(tc_stat a va packets) b0=$(busy_ns)
	case $2 in
	flows:*) v=$(flows ${2#flows:}) ;;
	*) v=$($2) ;;
	esac
	v="$v nspp $(echo "$b0 $(busy_ns) $n0 $(tc_stat a va packets)" | awk '$4 > $3 { printf "%.0f", ($2 - $1) / ($4 - $3) }')"
	if [ -n "$p" ]; then
		echo "$1 $2 $3 $v enq $(cost_since "${p}_enqueue" "$e0") deq $(cost_since "${p}_dequeue" "$d0")" \
			"dpe $(deq_per_enq "$p" "$e0" "$d0")"
	else
		echo "$1 $2 $3 $v"
	fi
}

rounds() {
	for r in $(seq $ROUNDS); do
		for k in $(rotate $r $KINDS); do
			ip netns exec a tc qdisc del dev va root 2>/dev/null
			case $k in
			bpf_*) ip netns exec a tc qdisc add dev va root $k ;;
			# shellcheck disable=SC2086 # a list of words
			*) ip netns exec a tc qdisc add dev va root $k ${FQ_KPARAMS:-} ;;
			esac
			for t in $1; do measure $k $t $r; done
		done
	done
}

STATS=0
sysctl -qw kernel.bpf_stats_enabled=0
[ -n "${NOSTATS_TESTS:-}" ] && rounds "$NOSTATS_TESTS"
STATS=1
sysctl -qw kernel.bpf_stats_enabled=1
[ -n "$TESTS" ] && rounds "$TESTS"
pkill sockperf
