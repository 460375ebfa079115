# tc's own fq and fq_codel commands against the kernel's qdisc (on tw0) and
# its BPF twin (bpf_ in front, on tw1), in one boot: create, change and
# replace with each option agree on accept or refuse and on every value
# reported (the kernel's by tc -j qdisc show, the twin's by bpfqdisc qdisc
# show -j). Where the twin cannot do what the kernel's does it refuses
# with one line, the cases marked "bpf" (docs/bpfqdisc.8, TC PLUGIN).
. "$(dirname "$0")/lib.sh"

export TC_LIB_DIR="$TOP/bin/tc"
expect "$BQ" load fq
expect "$BQ" load fq_codel
trap 'for d in tw0 tw1; do ip link del $d 2>/dev/null || true; done' EXIT
for d in tw0 tw1; do
	ip link add $d type dummy
	ip link set $d up
done

# kernel_val KIND NAME: NAME of tw0's root as the twin keeps it (ns, 0/1).
kernel_val() {
	js=$(tc -j qdisc show dev tw0 root)
	case "$2" in
	pacing) [ "$(echo "$js" | "$JGET" '.[0].options.pacing')" = false ] && echo 0 || echo 1 ;;
	horizon_drop) echo "$js" | grep -q '"horizon_cap"' && echo 0 || echo 1 ;;
	refill_delay|ce_threshold|horizon|target|interval)
		echo $(($(echo "$js" | "$JGET" ".[0].options.$2") * 1000)) ;;
	*) echo "$js" | "$JGET" ".[0].options.$2" ;;
	esac
}

# sch_fq keeps refill_delay in jiffies, up from the time given: a jiffy
# is what it makes of 1us.
expect tc qdisc replace dev tw0 root fq refill_delay 1
JIFFY=$(kernel_val fq refill_delay)
expect tc qdisc del dev tw0 root
note "a jiffy is $JIFFY ns"

# twin_val KIND NAME: NAME of tw1's root, rounded as the kernel's qdisc
# keeps it: sch_fq reports times in us and refill_delay in jiffies, CoDel
# keeps times in 1024 ns units.
twin_val() {
	v=$("$BQ" qdisc show -j dev tw1 | "$JGET" ".[0].options.$2")
	case "$1:$2" in
	fq_codel:target|fq_codel:interval) echo $(((v >> 10 << 10) / 1000 * 1000)) ;;
	fq:refill_delay) echo $(((v + JIFFY - 1) / JIFFY * JIFFY)) ;;
	fq:ce_threshold|fq:horizon) echo $((v / 1000 * 1000)) ;;
	*) echo "$v" ;;
	esac
}

# run VERB KIND OPTS: tc VERB on both; "kernel:RC twin:RC".
run() {
	verb=$1 kind=$2
	shift 2
	set +e
	tc qdisc "$verb" dev tw0 root "$kind" "$@" 2>/dev/null
	k=$?
	terr=$(tc qdisc "$verb" dev tw1 root "bpf_$kind" "$@" 2>&1 >/dev/null)
	t=$?
	set -e
}

# compare KIND NAMES: each NAME agrees.
compare() {
	for n in $2; do
		kv=$(kernel_val "$1" "$n")
		tv=$(twin_val "$1" "$n")
		[ "$kv" = "$tv" ] || fail "$1 $case: $n is $kv in the kernel's, $tv in the twin"
	done
}

checked=0
# KIND|OPTS|NAMES compared|same, or bpf: the twin refuses what the kernel takes
while IFS='|' read -r kind case names how; do
	[ -n "$kind" ] || continue
	tc qdisc del dev tw0 root 2>/dev/null || true
	tc qdisc del dev tw1 root 2>/dev/null || true
	# shellcheck disable=SC2086
	run replace "$kind" $case
	if [ "$how" = bpf ]; then
		[ $k = 0 ] || fail "$kind $case: the kernel's refused it"
		[ $t != 0 ] || fail "$kind $case: the twin took it"
		[ "$(echo "$terr" | wc -l)" = 1 ] || fail "$kind $case: the twin said $terr"
		continue
	fi
	[ $((k == 0)) = $((t == 0)) ] ||
		fail "$kind $case: kernel's exit $k, twin's $t ($terr)"
	[ $k = 0 ] && compare "$kind" "$names"
	checked=$((checked + 1))
done <<'CASES'
fq|limit 500|limit|same
fq|limit 0x10|limit|same
fq|limit 010|limit|same
fq|flow_limit 50|flow_limit|same
fq|quantum 3028|quantum|same
fq|quantum 100|quantum|same
fq|quantum 2000000|quantum|same
fq|initial_quantum 0x8000|initial_quantum|same
fq|initial_quantum 1048577||same
fq|maxrate 1gbit|maxrate|same
fq|low_rate_threshold 0x100|low_rate_threshold|same
fq|refill_delay 100|refill_delay|same
fq|refill_delay 20ms|refill_delay|same
fq|ce_threshold 100|ce_threshold|same
fq|timer_slack 100|timer_slack|same
fq|timer_slack 50us|timer_slack|same
fq|horizon 100|horizon|same
fq|horizon_cap|horizon_drop|same
fq|horizon_drop|horizon_drop|same
fq|nopacing|pacing|same
fq|pacing|pacing|same
fq|orphan_mask 0x3ff|orphan_mask|same
fq|defrate 1mbit|limit|same
fq|limit 500 flow_limit 20 nopacing horizon_cap|limit flow_limit pacing horizon_drop|same
fq|limit||same
fq|limit abc||same
fq|nosuch 1||same
fq|limit 0||bpf
fq|flow_limit 0||bpf
fq|limit 20000000||bpf
fq|buckets 2048||bpf
fq|timer_slack 2s||bpf
fq|refill_delay 3601s||bpf
fq_codel|limit 500|limit|same
fq_codel|limit 0x100|limit|same
fq_codel|flows 16|flows|same
fq_codel|quantum 0x1000|quantum|same
fq_codel|quantum 10|quantum|same
fq_codel|quantum 1048577||same
fq_codel|target 10ms|target|same
fq_codel|interval 200ms|interval|same
fq_codel|target 0 interval 0|target interval|same
fq_codel|memory_limit 0x1000|memory_limit|same
fq_codel|drop_batch 0x10|drop_batch|same
fq_codel|drop_batch 0|drop_batch|same
fq_codel|noecn|limit|same
fq_codel|target 1.5ms|target|same
fq_codel|ecn||bpf
fq_codel|ce_threshold 1ms||bpf
fq_codel|limit 20000||bpf
fq_codel|flows 65536||bpf
fq_codel|memory_limit 0||bpf
CASES
[ $checked -ge 40 ] || fail "only $checked cases checked"

# Change, and replace onto the same kind (which the kernel routes to
# change): the values given change, the others stay.
for kind in fq fq_codel; do
	case=create
	run replace $kind limit 500
	[ $k = 0 ] && [ $t = 0 ] || fail "$kind limit 500: $k $t $terr"
	case="change flow_limit/target"
	if [ $kind = fq ]; then run change fq flow_limit 77 nopacing; names="limit flow_limit pacing"
	else run change fq_codel target 7ms; names="limit target"; fi
	[ $k = 0 ] && [ $t = 0 ] || fail "$kind change: $k $t $terr"
	compare $kind "$names"
	case="replace limit 600"
	run replace $kind limit 600
	[ $k = 0 ] && [ $t = 0 ] || fail "$kind replace: $k $t $terr"
	compare $kind "$names"
	case="change limit 0x"
	run change $kind limit 0x
	[ $k != 0 ] && [ $t != 0 ] || fail "$kind change limit 0x: $k $t"
	compare $kind "$names"
	run del $kind
	[ $k = 0 ] && [ $t = 0 ] || fail "$kind del: $k $t $terr"
done
exit 0
