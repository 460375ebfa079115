# bpfqdisc load --class-slots: bpf_hbm's aggregates per qdisc as a load
# sizes them (the pods' load takes 2, bpf/hbm.bpf.c). Bad counts are
# refused with one line; list shows the count; the maps are sized by it;
# a qdisc with more keys than the table holds keeps HBM_AGGS - 1 of its
# own and counts the rest as overflow, which still gets through; a later
# load keeps the count of the maps that live qdiscs share.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/reliability_lib.sh"

entries() { bpftool map show pinned "/sys/fs/bpf/bpfqdisc/hbm/$1" -j | jq .max_entries; }

"$BQ" unload hbm >/dev/null 2>&1 || true
expect_err 2 "--class-slots 3 is not a power of two" "$BQ" load hbm --class-slots 3
expect_err 2 "bad value '1' for --class-slots" "$BQ" load hbm --class-slots 1
expect_err 2 "bad value 'x' for --class-slots" "$BQ" load hbm --class-slots x
expect_err 2 "--class-slots 2097152\) is too many for bpf_hbm: its map [a-z_]+ would exceed" \
	"$BQ" load hbm --class-slots 2097152
expect_err 2 "bpf_fifo has no classes to size" "$BQ" load fifo --class-slots 4
"$BQ" list | grep -q "^bpf_hbm *not loaded" || fail "a refused load left bpf_hbm loaded: $("$BQ" list)"

veth_pair
leak_baseline
expect "$BQ" load hbm --max-instances 4 --class-slots 4 >/dev/null
"$BQ" list | grep -q "^  4 slots of 4 classes, " || fail "list: $("$BQ" list)"
for m in hbm_aggs hbm_agg_buckets hbm_classes; do
	n=$(entries $m)
	[ "$n" = 16 ] || fail "$m has $n entries, not 4 slots x 4 classes"
done
# The heap of aggregates (not pinned): twice the classes, not --ring-slots.
n=$(bpftool map show name bq_timeq -j | jq .max_entries)
[ "$n" = 32 ] || fail "bq_timeq has $n entries, not 4 slots x 2 x 4 classes"
expect_err 1 "bpf_hbm is already loaded" "$BQ" load hbm --class-slots 8

# Marks 1 to 20 with the table's room for 3 (entry 0 is the overflow's).
agg_flood 20 3 17

# Unloaded under its live qdisc, a new load shares the maps: their count.
expect "$BQ" unload --force hbm >/dev/null
expect "$BQ" load hbm >/dev/null
"$BQ" list | grep -q "^  4 slots of 4 classes, " || fail "reload: $("$BQ" list)"
expect_err 1 "load it as before .*--class-slots" sh -c "'$BQ' unload --force hbm >/dev/null && '$BQ' load hbm --class-slots 8"

expect ip netns exec a tc qdisc del dev va root
"$BQ" load hbm >/dev/null 2>&1 || true
expect_no_leak hbm
exit 0
