#!/bin/dash
# The PIFO table of docs/writing-a-qdisc.md: each kind made of a rank
# function (BQ_RANK_QDISC) or a shaping transaction (BQ_SHAPER_QDISC) has
# a row, whose count of our lines is what tools/rank-lines counts in its
# source, and which is at most PIFO's lines + 2 (issue 48). PIFO's are the
# row's own (programmable-scheduling/pifo-machine's transactions). No
# build, no VM.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/selftests/cli/lib.sh"
DOC=$TOP/docs/writing-a-qdisc.md
T=$(mktemp)
trap 'rm -f "$T"' EXIT

if ! counts=$("$TOP/tools/rank-lines" 2>&1) || [ -z "$counts" ]; then
	fail rank_lines "tools/rank-lines found nothing: $(oneline "$counts")"
	exit 1
fi
echo "$counts" | while read -r kind lines rank served; do
	row=$(grep "^| [^|]* | $kind | [0-9]* | " "$DOC")
	pifo=$(echo "$row" | awk -F' [|] ' '{ print $3 }')
	ours=$(echo "$row" | awk -F' [|] ' '{ split($4, w, " "); print w[1] }')
	if [ -z "$row" ]; then
		fail "rank_lines_$kind" "no row for $kind in the PIFO table of docs/writing-a-qdisc.md"
	elif [ "$ours" != "$lines" ]; then
		fail "rank_lines_$kind" "the table says $ours lines, the source has $lines (rank $rank, served $served)"
	elif [ "$lines" -gt $((pifo + 2)) ]; then
		fail "rank_lines_$kind" "$lines lines, more than PIFO's $pifo + 2"
	else
		pass "rank_lines_$kind"
	fi
done >"$T"
cat "$T"
! grep -q '^FAIL' "$T"
