#!/bin/dash
# tools/bench-report --rewrite on the committed docs/benchmarks.json and
# docs/bench-kernels.json gives the committed docs/benchmarks.md: its
# generated blocks emptied, the report fills them again as they are, and
# keeps the hand-written text between them; a changed figure changes the
# document; section 7 (the CNI plugins) says where ours does not beat the
# reference; section 8 (memory) says how many children a kind made; every
# "why" link has its hand-written section; the rank section's tables; a broken document is refused and
# left as it was. No VM, no benchmark: seconds.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$TOP/selftests/cli/lib.sh"
DOC=$TOP/docs/benchmarks.md
HAND="A hand-written line that every report keeps."

# copy DIR: the committed report's inputs and its document, blocks emptied.
copy() {
	mkdir -p "$1"
	cp "$TOP/docs/benchmarks.json" "$TOP/docs/bench-kernels.json" "$1/"
	sed '/^<!-- begin bench-report /,/^<!-- end bench-report /{/^<!-- /!d}' "$DOC" >"$1/benchmarks.md"
}

copy "$T/a"
grep -q '^| ' "$T/a/benchmarks.md" && fail bench_report_doc "the blocks of the copy were not emptied"
printf '%s\n' "$HAND" >>"$T/a/benchmarks.md"
if ! out=$("$TOP/tools/bench-report" --rewrite "$T/a" 2>&1 >/dev/null); then
	fail bench_report_doc "--rewrite failed: $(oneline "$out")"
elif ! grep -qxF "$HAND" "$T/a/benchmarks.md"; then
	fail bench_report_doc "the hand-written line is gone"
elif ! grep -vxF "$HAND" "$T/a/benchmarks.md" | cmp -s - "$DOC"; then
	fail bench_report_doc "docs/benchmarks.md is not what the report makes of docs/benchmarks.json (tools/bench-report --rewrite docs): $(oneline "$(grep -vxF "$HAND" "$T/a/benchmarks.md" | diff "$DOC" - | head -n 6 | cut -c1-160)")"
elif ! cmp -s "$T/a/benchmarks.json" "$TOP/docs/benchmarks.json"; then
	fail bench_report_doc "the rewritten benchmarks.json differs from docs/benchmarks.json"
else
	pass bench_report_doc
fi

# The first cover figure doubled: the document must say so.
copy "$T/b"
jq '(first(.records[] | select(.t == "cover" and .m == "tcp1"))).v *= 2' \
	"$TOP/docs/benchmarks.json" >"$T/b/benchmarks.json"
"$TOP/tools/bench-report" --rewrite "$T/b" >/dev/null 2>&1
if cmp -s "$T/b/benchmarks.md" "$DOC" || ! grep -q '^| ' "$T/b/benchmarks.md"; then
	fail bench_report_figures "a changed figure left the document as committed"
else
	pass bench_report_figures
fi

missing=
for id in $(grep -o '](#[A-Za-z0-9_-]*)' "$DOC" | sed 's/^](#\(.*\))$/\1/' | sort -u); do
	grep -qF "<a id=\"$id\"></a>" "$DOC" || missing="$missing $id"
done
if [ -n "$missing" ]; then
	fail bench_report_links "links without a hand-written section:$missing"
else
	pass bench_report_links
fi

# cni_rec CASE METRIC VALUE [TABLE]: a figure of a tools/bench cni run (or of TABLE's).
cni_rec() { printf '{"t":"%s","c":"%s","m":"%s","r":1,"v":%s,"b":1}\n' "${4:-cni}" "$1" "$2" "$3"; }

# A CNI run merged in whose ours is slower to ADD than the reference, and
# better in the rest: section 7 and the Targets table say which row misses.
copy "$T/d"
{
	cni_rec limit mbit 20
	for p in ref ours; do
		cni_rec "$p:200000:egress" first "$([ $p = ours ] && echo 19.8 || echo 19.3)"
		cni_rec "$p:200000:egress" steady "$([ $p = ours ] && echo 19.3 || echo 19.1)"
		cni_rec "$p:200000:egress" retrans "$([ $p = ours ] && echo 0 || echo 19)"
		cni_rec "$p:200000:egress" ping_med "$([ $p = ours ] && echo 0.024 || echo 22.4)"
		cni_rec "$p:200000:egress" ping_p90 "$([ $p = ours ] && echo 0.027 || echo 27)"
		[ $p = ref ] || cni_rec "$p:200000:ingress" first 19.5
		cni_rec "$p" add_ms "$([ $p = ours ] && echo 300 || echo 200)" cni_pods
		cni_rec "$p" del_ms "$([ $p = ours ] && echo 10 || echo 200)" cni_pods
		cni_rec "$p" kmem_kb "$([ $p = ours ] && echo 100 || echo 500)" cni_pods
	done
} >"$T/d/cni.jsonl"
"$TOP/tools/bench-report" --merge "$T/d/cni.jsonl" "$T/d" "tools/bench quick --merge cni" >/dev/null 2>&1
block=$(sed -n '/^<!-- begin bench-report cni -->/,/^<!-- end bench-report cni -->/p' "$T/d/benchmarks.md")
if ! printf '%s\n' "$block" | grep -q '^| ADD ms per pod | 300 | 200 | 1.5× | lower | no |$'; then
	fail bench_report_cni "section 7 does not say ours' ADD misses: $(oneline "$(printf '%s\n' "$block" | grep '^| ADD' | head -n 3)")"
elif ! printf '%s\n' "$block" | grep -q '^| 200000 bits, egress, ping median ms | 0.024 | 22.4 | 0.00107× | lower | yes |$'; then
	fail bench_report_cni "section 7 lacks the ping row: $(oneline "$(printf '%s\n' "$block" | grep ping | head -n 3)")"
elif printf '%s\n' "$block" | grep -q 'ingress'; then
	fail bench_report_cni "a row only one plugin ran (ingress) is in section 7"
elif ! grep -q '^| bpfqdisc-bandwidth against the reference plugin | better on every row | 7 of 8 rows | missed | not better in ADD ms per pod (no: 300 vs 200)\. \[why\](#why-cni) |$' "$T/d/benchmarks.md"; then
	fail bench_report_cni "the Targets row does not name the miss: $(oneline "$(grep 'against the reference plugin' "$T/d/benchmarks.md")")"
elif ! grep -q '^| cubic | 200 | 2 |' "$T/d/benchmarks.md"; then
	fail bench_report_cni "the merge lost the other tables"
else
	pass bench_report_cni
fi

# A memory run merged in: a BPF kind that made none of mq's 128 children
# says 0 beside the kernel's 128, with what it held all the same; a kernel
# figure within the probe's spread gets no ratio.
copy "$T/e"
{
	cni_rec idle:128:fq children 128 memory
	cni_rec idle:128:fq kmem_kb 1100 memory
	cni_rec idle:128:bpf_fq children 0 memory
	cni_rec idle:128:bpf_fq kmem_kb 130000 memory
	cni_rec idle:1:fq kmem_kb -4 memory
	cni_rec idle:1:bpf_fq kmem_kb 130000 memory
} >"$T/e/memory.jsonl"
"$TOP/tools/bench-report" --merge "$T/e/memory.jsonl" "$T/e" "tools/bench quick --merge memory" >/dev/null 2>&1
block=$(sed -n '/^<!-- begin bench-report memory -->/,/^<!-- end bench-report memory -->/p' "$T/e/benchmarks.md")
if ! printf '%s\n' "$block" | grep -q '^| 128 idle | fq | 128 | 1100 | bpf_fq | 0 | 130000 | 118.18× |$'; then
	fail bench_report_memory "no row of 0 children beside 128: $(oneline "$block")"
elif ! printf '%s\n' "$block" | grep -q '^| 1 idle | fq | – | -4 | bpf_fq | – | 130000 | – |$'; then
	fail bench_report_memory "a ratio of a figure within the spread: $(oneline "$block")"
elif printf '%s\n' "$block" | grep -q 'pfifo_fast'; then
	fail bench_report_memory "a pair the run did not measure is in the table"
else
	pass bench_report_memory
fi

# A rank run merged in: push and pop of both queues by depth, and their
# sum's ratio; each kind's rates against bpf_fifo's, bpf_fifo first.
copy "$T/f"
{
	cni_rec cost:64000:rank enq_ns 474 rank
	cni_rec cost:64000:rank deq_ns 705 rank
	cni_rec cost:64000:rbtree enq_ns 1264 rank
	cni_rec cost:64000:rbtree deq_ns 446 rank
	cni_rec kind:bpf_sp pps 71680 rank
	cni_rec kind:bpf_sp tcp1 2439 rank
	cni_rec kind:bpf_fifo pps 76096 rank
	cni_rec kind:bpf_fifo tcp1 2439 rank
} >"$T/f/rank.jsonl"
"$TOP/tools/bench-report" --merge "$T/f/rank.jsonl" "$T/f" "tools/bench quick --merge rank" >/dev/null 2>&1
block=$(sed -n '/^<!-- begin bench-report rank -->/,/^<!-- end bench-report rank -->/p' "$T/f/benchmarks.md")
if ! printf '%s\n' "$block" | grep -q '^| 64000 | 474 | 705 | 1264 | 446 | 1.45× |$'; then
	fail bench_report_rank "no row of 64000 queued at 1.45×: $(oneline "$block")"
elif ! printf '%s\n' "$block" | grep -A1 '^| bpf_fifo | 76096 | 1.000× | 2439 | 1.000× |$' |
	grep -q '^| bpf_sp | 71680 | 0.942× | 2439 | 1.000× |$'; then
	fail bench_report_rank "the rates are not bpf_fifo's, then bpf_sp's against it: $(oneline "$block")"
else
	pass bench_report_rank
fi

copy "$T/c"
printf '<!-- begin bench-report cover -->\n' >>"$T/c/benchmarks.md"
cp "$T/c/benchmarks.md" "$T/c/before.md"
err=$("$TOP/tools/bench-report" --rewrite "$T/c" 2>&1 >/dev/null)
rc=$?
if [ $rc != 2 ] || [ "$(printf '%s\n' "$err" | wc -l)" != 1 ] || ! cmp -s "$T/c/benchmarks.md" "$T/c/before.md"; then
	fail bench_report_bad_doc "a second cover block: exit $rc, '$(oneline "$err")', or the document changed"
else
	pass bench_report_bad_doc
fi
exit $failed
