# The memory a kind holds, as list, stats -j and Prometheus give it
# (bq_kind_memory(), docs/bpfqdisc.8): the kind's figure is the memlock of
# the maps its load made, as bpftool counts them, and most of the kernel
# memory the load took; an instance's share is the same in list, stats -j
# and Prometheus, grows with the ring a load gives each instance, and the
# kind's grows with its instances (--max-instances 2 below 4).
. "$(dirname "$0")/lib.sh"

map_ids() { bpftool map show -j | jq -c '[.[].id]'; }
# maps_since IDS: memlock of the maps made since IDS were all there were.
maps_since() {
	bpftool map show -j | jq --argjson old "$1" \
		'[.[] | select(.id as $i | $old | index($i) | not) | .bytes_memlock] | add // 0'
}
# load_fifo ARGS...: bpf_fifo loaded with ARGS; its list figures in $total
# and $inst, checked against the maps the load made.
load_fifo() {
	"$BQ" unload fifo >/dev/null 2>&1 || true
	ids=$(map_ids)
	expect "$BQ" load fifo "$@" >/dev/null
	total=$(kind_memory fifo total) inst=$(kind_memory fifo instance) made=$(maps_since "$ids")
	note "load fifo $*: list says $total bytes, $inst per instance; the load made maps of $made"
	[ -n "$total" ] && [ -n "$inst" ] && [ "$inst" -gt 0 ] || fail "no memory in list: $("$BQ" list)"
	[ "$total" = "$made" ] || fail "list's $total bytes for bpf_fifo, the maps its load made $made"
	[ $((inst * $1)) -le "$total" ] || fail "$1 instances of $inst bytes above the kind's $total"
}

load_fifo --max-instances 2
small_total=$total small_inst=$inst
load_fifo --max-instances 4
[ "$small_total" -lt "$total" ] || fail "2 instances: $small_total bytes, 4: $total"
# Each instance's regions are the same size whatever their number.
awk -v a="$small_inst" -v b="$inst" 'BEGIN { exit !(a > b * 0.95 && a < b * 1.05) }' ||
	fail "an instance holds $small_inst bytes of 2, $inst of 4"
load_fifo --max-instances 4 --ring-slots 1024
ring_inst=$inst
load_fifo --max-instances 4 --ring-slots 4096
[ "$inst" -gt "$ring_inst" ] || fail "an instance of 4096 ring slots holds $inst bytes, of 1024 $ring_inst"

veth_pair
expect ip netns exec a tc qdisc replace dev va root bpf_fifo
json=$("$BQ" -n a stats -j)
[ "$(echo "$json" | "$JGET" '.[0].bpf.memory_bytes')" = "$inst" ] ||
	fail "stats -j: $json, list: $inst bytes per instance"
prom=$("$BQ" -n a stats --prometheus)
echo "$prom" | grep -q "^bpfqdisc_memory_bytes{dev=\"va\",kind=\"bpf_fifo\",.*} $inst\$" ||
	fail "no bpfqdisc_memory_bytes of $inst for va in: $prom"
echo "$prom" | grep -q "^bpfqdisc_kind_memory_bytes{kind=\"bpf_fifo\"} $total\$" ||
	fail "no bpfqdisc_kind_memory_bytes of $total for bpf_fifo in: $prom"
lint=$(echo "$prom" | promtool check metrics 2>&1 || true)
[ -z "$lint" ] || fail "promtool: $lint"
expect ip netns exec a tc qdisc del dev va root

# Against the kernel's memory: the maps are most of what a load takes (the
# rest: programs, BTF, trampolines), and no more than it. What earlier
# tests freed late (seen after the CNI and iperf tests: 270 kB less than
# the load's own, in one window of the full suite) can only lower a
# load's figure: the largest of three loads is the load's.
grow=0
for i in 1 2 3; do
	"$BQ" unload fifo >/dev/null
	k0=$(kernel_mem_kb)
	expect "$BQ" load fifo >/dev/null
	k1=$(kernel_mem_kb)
	[ $((k1 - k0)) -le $grow ] || grow=$((k1 - k0))
done
total=$(kind_memory fifo total)
note "load fifo: kernel memory +$grow kB (the largest of 3 loads), its maps $((total / 1024)) kB"
awk -v m="$total" -v k=$grow 'BEGIN { exit !(m / 1024 <= k && m / 1024 >= k * 0.8) }' ||
	fail "the maps' $((total / 1024)) kB against the kernel's +$grow kB"
exit 0
