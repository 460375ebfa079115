# Shared by the kernel tests; sourced by dash. Each test is a script that
# exits 0 (pass), 4 (skip; last line of output says why) or anything else.
# Test hosts are network namespaces joined by veth, addressed from the
# documentation ranges only (192.0.2.0/24, 2001:db8::/32).

set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BQ="$TOP/bin/bpfqdisc"
# One value of a JSON document: jget (selftests/progs/jget.c) for the
# helpers' reads of single counters, which jq took 0.29 s of the VM each to start.
JGET="$TOP/bin/jget"
A=192.0.2.1
B=192.0.2.2

# kernel_has SYMBOL: the kernel has a symbol of the patches in
# tools/kernel-patches. /proc/kallsyms costs the test VM 0.5 s to read, a
# tenth of a short test: the first lib.sh of a run (selftests/kernel/run's)
# reads it and exports what it found to the tests.
if [ -z "${BQ_KSYMS+set}" ]; then
	BQ_KSYMS=" $(grep -ow -e Qdisc_ops__dump -e bpf_qdisc_set_can_bypass /proc/kallsyms |
		sort -u | tr '\n' ' ')"
	export BQ_KSYMS
fi
kernel_has() { case $BQ_KSYMS in *" $1 "*) return 0 ;; esac; return 1; }
# stderr: a failure inside $(...) still reaches the log
# A kernel with tools/kernel-patches/0003 dumps a BPF qdisc's options, which
# tc without bpfqdisc's plugin prints as text even under -j, breaking its
# JSON ("[Unknown qdisc, optlen=...]"): there tc gets the plugin.
if kernel_has Qdisc_ops__dump; then export TC_LIB_DIR="$TOP/bin/tc"; fi
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 4; }
note() { echo "# $*"; }

# expect CMD...: run it, fail unless it succeeds.
expect() { "$@" || fail "'$*' exited $?"; }
# wait_stopped PID: until PID is stopped (state T: BPFQDISC_STOP_AT, bq_stop_at), up to 20 s.
wait_stopped() {
	i=0
	until [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = T ]; do
		i=$((i + 1))
		[ $i -le 200 ] && [ -e "/proc/$1" ] || return 1
		sleep 0.1
	done
}

# wait_rc PID: wait for background job PID; its exit status in $rc.
wait_rc() {
	set +e
	wait "$1"
	rc=$?
	set -e
}

# in_cgroup DIR CMD...: CMD as a process of cgroup v2 directory DIR.
in_cgroup() { sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$@"; }

# hold_netstamp: keep netstamp_needed_key on until $HOLD is killed. Every
# ping that is the only timestamping socket flips it, and under TCG patching
# a static key while the other vCPU runs through it can Oops (int3 in
# netif_rx_internal and __netif_receive_skb_core, seen when a test started
# 300 pings). The holder is a ping in a namespace of its own, whose name is
# gone as soon as the ping is in it, so that no test sees either.
hold_netstamp() {
	ip netns add stamphold && ip -n stamphold link set lo up || return
	ip netns exec stamphold ping -q -i 10 127.0.0.1 >/dev/null 2>&1 &
	HOLD=$!
	local i=0
	until [ -n "$(ip netns pids stamphold)" ] || [ $i -ge 100 ]; do
		i=$((i + 1))
		sleep 0.01
	done
	ip netns del stamphold
}

# expect_err CODE REGEX CMD...: fail unless CMD exits CODE with stderr
# matching REGEX on one line.
expect_err() {
	code=$1 re=$2
	shift 2
	set +e
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	set -e
	[ "$rc" = "$code" ] || fail "'$*' exited $rc, expected $code (stderr: $err)"
	echo "$err" | grep -Eq -- "$re" || fail "'$*' said '$err', expected /$re/"
	[ "$(echo "$err" | wc -l)" -eq 1 ] || fail "'$*' printed more than one error line: $err"
}

# veth_pair [QUEUES]: netns "a" and "b" joined by va <-> vb, addresses $A
# and $B, each end with QUEUES tx and rx queues (default 1).
veth_pair() {
	q="numtxqueues ${1:-1} numrxqueues ${1:-1}"
	ip netns add a
	ip netns add b
	ip -n a link add va $q type veth peer name vb netns b $q
	ip -n a addr add $A/24 dev va
	ip -n b addr add $B/24 dev vb
	ip -n a link set va up
	ip -n b link set vb up
	ip -n a link set lo up
	ip -n b link set lo up
}

R1=192.0.2.254 R2=198.51.100.254 B2=198.51.100.2

# routed_path: a -> r -> b, va <-> vra and vrb <-> vb, r forwarding, b at
# $B2. A qdisc under test on r's vrb holds forwarded packets, which TSQ
# does not keep in the sender's veth ring as it keeps a sender's own
# (test_fq_codel_rtt); a sends MTU-sized packets (TSO and GSO off), not
# 64 KB super-packets; no TCP metrics are kept between connections.
routed_path() {
	for ns in a r b; do ip netns add $ns; done
	ip -n a link add va type veth peer name vra netns r
	ip -n r link add vrb type veth peer name vb netns b
	ip -n a addr add $A/24 dev va
	ip -n r addr add $R1/24 dev vra
	ip -n r addr add $R2/24 dev vrb
	ip -n b addr add $B2/24 dev vb
	for l in "a va" "a lo" "r vra" "r vrb" "r lo" "b vb" "b lo"; do
		set -- $l
		ip -n $1 link set $2 up
	done
	ip -n a route add default via $R1
	ip -n b route add default via $R2
	ip netns exec r sysctl -qw net.ipv4.ip_forward=1
	# Each kind's flows start afresh, not from the last one's ssthresh.
	ip netns exec a sysctl -qw net.ipv4.tcp_no_metrics_save=1
	expect ip netns exec a ethtool -K va tso off gso off
}

# quiet_va: no packets of the kernel's own on va (IPv6's router and
# listener messages, ARP), so that a count of its qdisc's flows or packets
# is the test's alone: IPv6 off and a permanent neighbour entry for $B.
quiet_va() {
	ip netns exec a sysctl -qw net.ipv6.conf.va.disable_ipv6=1
	expect ip -n a neigh replace $B dev va nud permanent \
		lladdr "$(ip -n b -j link show dev vb | "$JGET" '.[0].address')"
}

# mq_of KIND: mq as the root of a's va (made by veth_pair 4) with KIND on
# each of its 4 queues.
mq_of() {
	expect ip netns exec a tc qdisc replace dev va root handle 1: mq
	for i in 1 2 3 4; do
		expect ip netns exec a tc qdisc replace dev va parent 1:$i "$1"
	done
	n=$(ip netns exec a tc qdisc show dev va | grep -c "$1")
	[ "$n" = 4 ] || fail "expected 4 $1 children, tc shows $n"
}

# qdisc_kind NS DEV: the kind of DEV's root qdisc.
qdisc_kind() { ip netns exec "$1" tc qdisc show dev "$2" root | awk '{print $2; exit}'; }

# carries KIND: KIND, made va's root, carries ping and one TCP flow a->b
# for 2 s; prints the flow's Mbit/s.
carries() {
	expect ip netns exec a tc qdisc replace dev va root "$1"
	[ "$(qdisc_kind a va)" = "$1" ] || fail "va has $(qdisc_kind a va), not $1"
	ip netns exec a ping -q -c 3 -i 0.2 -W 2 $B >/dev/null || fail "ping through $1"
	iperf_server b
	iperf_mbps a $B 2
}

# tc_stat NS DEV FIELD: a field of the root qdisc's tc -s -j output.
tc_stat() {
	ip netns exec "$1" tc -s -j qdisc show dev "$2" root | "$JGET" ".[0].$3"
}

# iperf_mbps NS_CLIENT SERVER_ADDR SECS [args]: TCP throughput in Mbit/s.
# A client that fails fails the test, saying iperf3's error: past a pipe
# its exit status was lost and its figure was 0.
iperf_mbps() {
	ns=$1 srv=$2 secs=$3
	shift 3
	json=$(ip netns exec "$ns" iperf3 -J -c "$srv" -t "$secs" "$@") ||
		fail "iperf3 -c $srv -t $secs $* in $ns: $(echo "$json" | "$JGET" .error)"
	echo "$json" | "$JGET" .end.sum_received.bits_per_second | awk '{ printf "%d\n", $1 / 1e6 }'
}

# near VALUE TARGET PERCENT: VALUE is within PERCENT% of TARGET.
near() {
	awk -v v="$1" -v t="$2" -v p="$3" 'BEGIN { d = v - t; if (d < 0) d = -d; exit !(d * 100 <= t * p) }'
}

# median: the median of the numbers on stdin (whitespace separated).
median() { tr -s ' \t' '\n\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# held_to DIR LIMIT WHAT: one TCP flow (iperf3, 3 s after 1 s left out)
# from a process of cgroup v2 directory DIR in netns a to $B must get
# 90-101% of LIMIT Mbit/s; WHAT names the case in the note and the failure.
held_to() {
	ip netns exec b iperf3 -s -1 >/dev/null 2>&1 &
	srv=$!
	sleep 0.3
	json=$(in_cgroup "$1" ip netns exec a iperf3 -J -c $B -t 3 -O 1) ||
		fail "$3: iperf3: $(echo "$json" | "$JGET" .error)"
	wait $srv || true
	g=$(echo "$json" | "$JGET" .end.sum_received.bits_per_second | awk '{ print $1 / 1e6 }')
	note "$3: $g Mbit/s under a class of $2"
	awk -v g="$g" -v l="$2" 'BEGIN { exit !(g <= l * 1.01 && g >= l * 0.9) }' ||
		fail "$3: $g Mbit/s, its class allows $2"
}

# bytes_received NS FILTER: "PORT BYTES" for each local port of NS's
# established TCP sockets that ss's FILTER selects, the bytes received by
# its busiest socket (an iperf3 server's data connection, not its
# control's): sampled twice, what each flow got in a window common to all.
bytes_received() {
	ip netns exec "$1" ss -tinH state established "$2" |
		awk '/^[0-9]/ { port = $3; sub(/.*:/, "", port) }
		     { for (i = 1; i <= NF; i++) if ($i ~ /^bytes_received:/) {
				v = substr($i, 16) + 0; if (v > max[port]) max[port] = v } }
		     END { for (p in max) print p, max[p] }'
}

# bytes_between T1 T2: "PORT BYTES" for each port of bytes_received's
# sample T2 (a file), what it got since sample T1.
bytes_between() { awk 'FNR == NR { v[$1] = $2; next } { print $1, $2 - v[$1] }' "$1" "$2"; }

# wait_listeners NS PORT N: until netns NS has N TCP listeners on PORT (0:
# the port is free), up to 5 s.
wait_listeners() {
	local i=0
	until [ "$(ip netns exec "$1" ss -Htln "sport = :$2" | wc -l)" -eq "$3" ]; do
		i=$((i + 1))
		[ $i -le 100 ] || return 1
		sleep 0.05
	done
}

# iperf_server NS: a one-off iperf3 server (-1: gone after one client) in
# netns NS, listening on 5201 when this returns. With -D, iperf3 returns
# before it binds, and a server that cannot bind exits without a word,
# leaving the next client to whatever holds the port: so the port must be
# free first (a one-off server exits just after its client), and the new
# listener is waited for, not a set time.
iperf_server() {
	wait_listeners "$1" 5201 0 ||
		fail "iperf_server $1: port 5201 still taken: $(ip netns exec "$1" ss -Htlnp 'sport = :5201')"
	ip netns exec "$1" iperf3 -s -D -1 >/dev/null
	wait_listeners "$1" 5201 1 || fail "iperf_server $1: no iperf3 listening on 5201 after 5 s"
}

# skb_slab: skbs allocated now. Shrinking first flushes the per-CPU slabs,
# whose free objects /proc/slabinfo would count as in use.
skb_slab() {
	for c in /sys/kernel/slab/skbuff_head_cache /sys/kernel/slab/skbuff_fclone_cache; do
		[ -w $c/shrink ] && echo 1 > $c/shrink
	done
	awk '/^skbuff_(head|fclone)_cache / { n += $2 } END { print n + 0 }' /proc/slabinfo
}

# kernel_mem_kb: kB of memory the kernel holds for its objects (devices,
# qdiscs, BPF maps): SUnreclaim + Percpu + VmallocUsed of /proc/meminfo. Read
# once the page caches are dropped and every slab cache has given back its
# empty slabs (loading a kind leaves MBs of freed objects there, the
# verifier's), and once the deferred frees are done (a map's memory goes
# after its id, in a work queue): steady within 64 kB for 1 s, 30 s at most.
kernel_mem_kb() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	for s in /sys/kernel/slab/*/shrink; do echo 1 >"$s"; done 2>/dev/null
	a=$(meminfo_kernel_kb) n=0
	while [ $n -lt 30 ]; do
		sleep 1
		b=$(meminfo_kernel_kb) n=$((n + 1))
		[ $((a - b)) -gt 64 ] || [ $((b - a)) -gt 64 ] || break
		a=$b
	done
	echo "$b"
}

# kind_memory KIND WHAT: what bpfqdisc list says bpf_KIND holds: its maps'
# and arena pages' bytes (WHAT total), the arena pages' (arena) or an
# instance's share of the maps (instance); nothing without that line.
kind_memory() {
	"$BQ" list | awk -v k="bpf_$1" -v w="$2" '$1 == k { in_k = 1; next } /^[^ ]/ { in_k = 0 }
		in_k && /^  memory / {
			v = w == "total" ? $2 : w == "arena" ? $9 : $(NF - 2)
			gsub(/[(),b]/, "", v); print v; exit
		}'
}

# builtin_kinds: the kinds of src/lib/qdiscs.def, built into bpfqdisc.
builtin_kinds() { grep ^BQ_QDISC "$TOP/src/lib/qdiscs.def" | cut -d, -f1 | cut -c10-; }
# test_kinds: those only bin/bpfqdisc_test has (selftests/bpf/qdiscs.def).
test_kinds() { grep ^BQ_QDISC "$TOP/selftests/bpf/qdiscs.def" | cut -d, -f1 | cut -c10-; }

# kernel_arena_kb: kernel_mem_kb, and the arena pages every loaded kind's
# instances hold (bpfqdisc list; include/bq/pages.bpf.h counts them): the
# kernel counts those in none of meminfo's figures.
kernel_arena_kb() {
	local kb=$(kernel_mem_kb) k a
	for k in $(builtin_kinds); do
		a=$(kind_memory $k arena)
		kb=$((kb + ${a:-0} / 1024))
	done
	echo $kb
}

meminfo_kernel_kb() { awk '/^(SUnreclaim|Percpu|VmallocUsed):/ { s += $2 } END { print s }' /proc/meminfo; }

# wait_slab_below LIMIT SECS: the skbuff caches drain to LIMIT objects.
wait_slab_below() {
	local i=0
	while [ "$(skb_slab)" -gt "$1" ]; do
		i=$((i + 1))
		[ $i -le $(($2 * 10)) ] || return 1
		sleep 0.1
	done
}

# Everything a test may leave behind. Deleting a namespace returns before
# the kernel has torn down its devices, and a deleted veth's threaded NAPI
# thread can outlive it: after test_leak's flood, the next test's
# slow_receiver found the old napi/vb thread and it was gone by the renice.
# So wait (up to 10 s) until no NAPI thread is left; fails if one is.
cleanup_all() {
	# Their processes would keep the namespaces alive.
	for p in udpflood iperf3 sockperf; do pkill "$p" 2>/dev/null || true; done
	for ns in $(ip netns list | awk '{print $1}'); do ip netns del "$ns"; done
	local i=0
	while [ -n "$(pgrep '^napi/')" ]; do
		[ $i -lt 100 ] || { echo "cleanup: $(pgrep -l '^napi/' | tr '\n' ' ')outlived their devices" >&2; return 1; }
		i=$((i + 1))
		sleep 0.1
	done
	tc qdisc del dev lo root 2>/dev/null || true
	# And the kinds loaded from object files (bpfqdisc load PATH).
	for k in $(builtin_kinds) $(cd /sys/fs/bpf/bpfqdisc 2>/dev/null && ls -d */bq_object 2>/dev/null |
					  cut -d/ -f1); do
		"$BQ" unload "$k" --force >/dev/null 2>&1 || true
	done
	# bpfqdisc does not know these, so its commands never tidy their pins.
	for k in $(test_kinds); do
		"$TOP/bin/bpfqdisc_test" unload "$k" --force >/dev/null 2>&1 || true
	done
	return 0
}

# slow_receiver [OBJ]: make vb a slow consumer so that va's qdisc really queues.
# XDP puts veth in NAPI mode with a 256-entry ring and qdisc backpressure;
# threaded NAPI moves the (deliberately slow) XDP work off the sending CPU.
# The spinning NAPI thread runs at nice 19 so the test's own commands still
# get the CPUs. OBJ (default slow_rx) is a build of selftests/bpf/slow_rx.bpf.c:
# slow_rx5000 spins a quarter as long.
slow_receiver() {
	ip -n b link set dev vb xdpdrv obj "$TOP/.output/${1:-slow_rx}.bpf.o" sec xdp
	ip netns exec b sh -c 'echo 1 > /sys/class/net/vb/threaded'
	for p in $(pgrep '^napi/vb'); do renice -n 19 -p "$p" >/dev/null; done
}

# udp_flood SECS: UDP from a to b as fast as it goes, in the background,
# for SECS seconds; one sender outruns the slow receiver, and at nice 19 it
# leaves CPU for the test. Nobody listens on b: the far end discards them.
udp_flood() {
	ip netns exec a nice -n 19 "$TOP/bin/udpflood" $B 9 "$1" >/dev/null &
	FLOODS="${FLOODS:-} $!"
}

stop_floods() {
	kill $FLOODS 2>/dev/null || true
	wait
	FLOODS=
}

# reset_empties NS DEV: take DEV down, which resets its root qdisc, and
# check that the kernel's qlen and backlog are 0. The kernel zeroes them
# itself: packets the qdisc forgot show in the skbuff slab, which the
# callers check once the qdisc is gone. DEV stays down; $queued is its
# qlen before.
reset_empties() {
	queued=$(tc_stat "$1" "$2" qlen)
	expect ip -n "$1" link set "$2" down
	[ "$(tc_stat "$1" "$2" qlen)" = 0 ] || fail "qlen $(tc_stat "$1" "$2" qlen) after reset"
	[ "$(tc_stat "$1" "$2" backlog)" = 0 ] || fail "backlog $(tc_stat "$1" "$2" backlog) after reset"
}

# kernel_bypasses: the kernel lets a BPF qdisc set TCQ_F_CAN_BYPASS
# (tools/kernel-patches/0002); bpf_fifo and bpf_fq_codel then never see a
# packet that finds them empty (test_bypass).
kernel_bypasses() { kernel_has bpf_qdisc_set_can_bypass; }

# wait_stat NS DEV STAT MIN SECS: until tc's STAT of DEV's root qdisc
# (tc_stat) is MIN at least, up to SECS.
wait_stat() {
	local i=0
	while [ "$(tc_stat "$1" "$2" "$3")" -lt "$4" ]; do
		i=$((i + 1))
		[ $i -le $(($5 * 10)) ] || return 1
		sleep 0.1
	done
}

# wait_backlog NS DEV PACKETS SECS: until DEV's root qdisc queues PACKETS.
wait_backlog() { wait_stat "$1" "$2" qlen "$3" "$4"; }

# tcp_quiet NS: until no TCP socket of netns NS has a packet left to send
# (listeners and TIME_WAIT only: a closing connection's last ACK has gone
# out), up to 5 s. A client that has exited may still owe the server's FIN
# its ACK, which a count read "at rest" would catch on its way.
tcp_quiet() {
	local i=0
	while [ -n "$(ip netns exec "$1" ss -Htan state connected exclude time-wait)" ]; do
		i=$((i + 1))
		[ $i -le 50 ] || return 1
		sleep 0.1
	done
}
