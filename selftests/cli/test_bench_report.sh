#!/bin/dash
# tools/bench-report --rewrite on the committed docs/benchmarks.json and
# docs/bench-kernels.json gives the committed docs/benchmarks.md: its
# generated blocks emptied, the report fills them again as they are, and
# keeps the hand-written text between them; a changed figure changes the
# document; every "why" link has its hand-written section; a broken
# document is refused and left as it was. No VM, no benchmark: seconds.
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
