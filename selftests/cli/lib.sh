# The helpers of the CLI tests that report a line per check and build with
# make (test_install.sh, test_framework.sh, test_deb.sh): sourced after TOP
# is set. failed is the test's exit status.
failed=0

pass() { echo "PASS cli/$1"; }
fail() { echo "FAIL cli/$1: $2"; failed=1; }
# Multi-line tool output on one report line.
oneline() { printf '%s' "$1" | tr '\n' ';' | sed 's/;/; /g'; }

# A make of our own, not a sub-make of whatever ran the suite: the parent's
# MAKEFLAGS could carry its own variables (PREFIX=...) or a jobserver.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$TOP" --no-print-directory "$@"; }
