# Helpers for the bpf_fq kernel tests (selftests/kernel/test_fq*.sh), sourced
# after lib.sh. The kernel's fq is the reference each test compares with.

FQSEND="$TOP/bin/fqsend"

# load_fq [PARAM VALUE]...: bpf_fq registered, and the kernel's fq available.
load_fq() {
	modprobe sch_fq 2>/dev/null || true
	expect "$BQ" load fq "$@"
}

# paced_path DELAY: for a test that judges bursts at the receiver, on the
# virtual clock only (skips elsewhere): $out, a file removed at exit;
# bpf_fq loaded; veth a <-> b with DELAY of netem on vb (the ACK path);
# no TCP metrics kept, so each connection starts afresh, with no ssthresh
# or RTT left by the one before.
paced_path() {
	[ "${VMTEST_ICOUNT:-0}" = 1 ] || skip "bursts are judged on the virtual clock (tools/vmtest --icount)"
	out=$(mktemp)
	trap 'rm -f $out' EXIT
	load_fq
	veth_pair
	for ns in a b; do
		expect ip netns exec $ns sysctl -qw net.ipv4.tcp_no_metrics_save=1
	done
	expect ip netns exec b tc qdisc replace dev vb root netem delay "$1"
}

# The floor's pair (docs/benchmarks.md, "The floor"): what the BPF ops'
# entry costs is bpf_floor against plug.
# plug_fifo NS DEV: sch_plug as DEV's root, released for good: a C FIFO
# that never bypasses and takes a GSO packet.
plug_fifo() {
	modprobe sch_plug 2>/dev/null
	ip netns exec "$1" tc qdisc replace dev "$2" root plug limit 100000000 &&
		ip netns exec "$1" tc qdisc change dev "$2" root plug release_indefinite
}

# floor_register: bpf_floor (selftests/bpf/fifo_floor.bpf.c), the cheapest
# BPF FIFO, registered once a boot; its link is pinned at
# /sys/fs/bpf/fifo_floor.
floor_register() {
	[ -e /sys/fs/bpf/fifo_floor ] ||
		bpftool struct_ops register "$TOP/.output/fifo_floor.bpf.o" /sys/fs/bpf >/dev/null
}

# bstat NS DEV FIELD: a field of bpfqdisc's stats for DEV's root bpf_fq
# (flows, inactive, gc_flows, drops.horizon, marks ...).
bstat() {
	"$BQ" -n "$1" stats dev "$2" -j | "$JGET" ".[0].bpf.$3"
}

# kstat NS DEV FIELD: a field of tc -s -j for the kernel's fq (flows,
# inactive, throttled, gc, highprio, flows_plimit, horizon_drops ...).
kstat() {
	ip netns exec "$1" tc -s -j qdisc show dev "$2" root | "$JGET" ".[0].$3" 0
}

# jain FILE: Jain's fairness index of the per-stream bytes of an iperf3 -J
# run: (sum x)^2 / (n sum x^2), 1 when all streams got the same.
jain() {
	jq '[.end.streams[].receiver.bytes] | (add * add) / (length * (map(. * .) | add)) * 1000 | floor / 1000' "$1"
}

# iperf_json NS SERVER OUT SECS [args]: iperf3 -J to OUT.
iperf_json() {
	ns=$1 srv=$2 out=$3 secs=$4
	shift 4
	ip netns exec "$ns" iperf3 -J -c "$srv" -t "$secs" "$@" >"$out" ||
		fail "iperf3 $*: $(jq -r .error "$out" 2>/dev/null)"
}

# ge A B: A >= B for decimals.
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

# judge KIND CMD...: CMD measures once and prints its figure, returning 0
# when the figure meets the bar; a miss by bpf_fq fails the test. The
# kernel's fq is the reference and only reported, "!" marking a miss. The
# bars hold on the virtual clock (docs/testing.md), where a figure repeats:
# a measurement is never taken twice. Prints the figure for the caller's
# note.
judge() {
	kind=$1
	shift
	if fig=$("$@"); then echo "$fig"; return 0; fi
	[ "$kind" = bpf_fq ] || { echo "$fig!"; return 0; }
	fail "$kind: $fig"
}

# prog_cost NAME: "run_time_ns run_cnt" of the newest struct_ops program NAME
# (kernel.bpf_stats_enabled=1 counts them).
prog_cost() {
	bpftool prog show -j | jq -r --arg n "$1" \
		'[.[] | select(.name == $n)] | max_by(.id) | "\(.run_time_ns // 0) \(.run_cnt // 0)"'
}

# cost_since NAME "NS0 CNT0": ns per run of NAME since prog_cost said that;
# nothing when NAME has not run since (a qdisc that bypassed it).
cost_since() {
	set -- "$1" $2 $(prog_cost "$1")
	awk -v t0=$2 -v c0=$3 -v t1=$4 -v c1=$5 'BEGIN { if (c1 > c0) printf "%.0f", (t1 - t0) / (c1 - c0) }'
}

# deq_per_enq PREFIX "NS0 CNT0" "NS0 CNT0": dequeue runs per enqueue run of
# PREFIX_enqueue/PREFIX_dequeue since prog_cost gave those two figures.
deq_per_enq() {
	echo "$2 $3 $(prog_cost "$1_enqueue") $(prog_cost "$1_dequeue")" |
		awk '$6 > $2 { printf "%.2f", ($8 - $4) / ($6 - $2) }'
}

# rotate ROUND WORDS...: WORDS, starting at the ROUND-th, so that each round
# of a side-by-side comparison runs them in another order.
rotate() {
	r=$(($1 % ($# - 1)))
	shift
	i=0
	for w; do [ $i -ge $r ] && printf '%s ' "$w"; i=$((i + 1)); done
	i=0
	for w; do [ $i -lt $r ] && printf '%s ' "$w"; i=$((i + 1)); done
}

# fq_scale_send N: N + 10000 64-byte UDP datagrams from a to b over N flows
# (for a qdisc that hashes unconnected sockets by 4-tuple), so that every
# flow is in the table at the end. Ports stay below 65536: beyond 50000
# flows each socket (its own source port) takes 50000 destination ports;
# 1M flows are 20 sockets x 50000 ports.
fq_scale_send() {
	socks=$(( ($1 + 49999) / 50000 ))
	ip netns exec a "$FQSEND" -f $socks -p $(( $1 / socks )) -n $(( $1 + 10000 )) -s 18 $B 10000 >/dev/null
}

# rx_packets: packets vb (b's veth end, made by veth_pair) has received.
rx_packets() { ip netns exec b cat /sys/class/net/vb/statistics/rx_packets; }

# udp_pps: 64-byte frames (18 bytes of UDP payload) per second that reach
# vb from one unpaced sender in SECS seconds. The receive side runs in the
# sender's softirq: one CPU (the last) does it all, pinned so it never
# migrates.
udp_pps() {
	n0=$(rx_packets)
	ip netns exec a taskset -c $(($(nproc) - 1)) "$TOP/bin/udpflood" $B 9 $SECS 18 0 >/dev/null
	echo $(( ($(rx_packets) - n0) / SECS ))
}

# held_setup: what held_victims needs, for a test that runs it: setpriv,
# $TMP (removed at exit), bpf_fq loaded with a 2048-packet pool, veth a <-> b.
held_setup() {
	command -v setpriv >/dev/null || skip "setpriv is not in the VM"
	TMP=$(mktemp -d)
	trap 'rm -rf $TMP' EXIT
	load_fq --ring-slots 2048
	veth_pair
	quiet_va
}

# held_victims V2OPTS [HOLD...]: "BAND1 BAND2", the bytes that b's
# receivers get from 1 s to 4 s from two connected sockets in a, each
# sending one datagram a millisecond from 0.3 s for 3 s: one at priority 0
# (band 1), one at SO_PRIORITY 1 (band 2) with fqsend options V2OPTS.
# With HOLD (fqsend options), uid 65534's connected sockets send at 0.5 s,
# at priorities 0 and 6 (bands 1 and 0), and a's va qlen right after is
# in $TMP/held.
held_victims() {
	v2=$1
	shift
	for port in 7000 7001 7002; do
		ip netns exec b "$FQSEND" -l -d 4 -w 1 $B $port >$TMP/$port &
	done
	sleep 0.3
	ip netns exec a "$FQSEND" -c -d 3 -i 1000 $B 7000 >/dev/null &
	# shellcheck disable=SC2086
	ip netns exec a "$FQSEND" -c -d 3 -i 1000 -P 1 $v2 $B 7001 >/dev/null &
	sleep 0.5
	if [ "$#" -gt 0 ]; then
		for prio in 0 6; do
			expect ip netns exec a setpriv --reuid=65534 --regid=65534 --clear-groups \
				"$FQSEND" -c -P $prio "$@" $B 7002 >/dev/null
		done
		tc_stat a va qlen >$TMP/held
	fi
	wait
	for port in 7000 7001; do
		awk '{ n += $2 } END { printf "%d ", n }' $TMP/$port
	done
}

# ctl_share [PRIO]: behind slow_receiver, on a's va, 8 bulk sockets at
# priority 0 and one at PRIO (default 7), each kept full for 4 s: the %
# of the bytes the PRIO socket got at the receivers. Fails if the qdisc
# dropped any (then the senders spin rather than block: see test_fq_prio).
# Needs $ctl and $bulk, files.
ctl_share() {
	ip netns exec b "$FQSEND" -l -d 4 -w 1 $B 7000 >$bulk &
	ip netns exec b "$FQSEND" -l -d 4 -w 1 $B 7001 >$ctl &
	sleep 0.3
	ip netns exec a "$FQSEND" -c -f 8 -d 4 -s 1000 -b 200000 $B 7000 >/dev/null &
	ip netns exec a "$FQSEND" -c -d 4 -s 1000 -b 2000000 -P ${1:-7} $B 7001 >/dev/null
	wait
	d=$(tc_stat a va drops)
	[ "$d" = 0 ] || fail "$(qdisc_kind a va) dropped $d: the senders did not block"
	c=$(awk '{ s += $2 } END { print s + 0 }' $ctl)
	b=$(awk '{ s += $2 } END { print s + 0 }' $bulk)
	awk -v c=$c -v b=$b 'BEGIN { printf "%.0f\n", c + b ? 100 * c / (c + b) : 0 }'
}
