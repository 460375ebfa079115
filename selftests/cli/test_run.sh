#!/bin/dash
# selftests/run itself: a unit test counts as failed when it exits non-zero,
# whether or not it printed a FAIL line. Runs a copy of the runner over a
# tree of stand-in tests.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/selftests" "$tmp/bin"
cp "$TOP/selftests/run" "$tmp/selftests/run"

stand_in() { # name body
	printf '#!/bin/sh\n%s\n' "$2" >"$tmp/bin/test_$1"
	chmod +x "$tmp/bin/test_$1"
}

verdict() { # name expected_exit regex
	out=$("$tmp/selftests/run" --unit 2>&1)
	rc=$?
	if [ "$rc" != "$2" ]; then
		echo "FAIL cli/run_$1: runner exited $rc, expected $2: $out"
	elif ! printf '%s\n' "$out" | grep -Eq -- "$3"; then
		echo "FAIL cli/run_$1: runner said '$out', expected /$3/"
	else
		echo "PASS cli/run_$1"
	fi
}

stand_in ok 'echo "PASS stand/ok"'
verdict passing 0 '^1 passed, 0 failed'
stand_in silent 'exit 1'
verdict silent_exit 1 'FAIL .*test_silent: exit 1'
rm "$tmp/bin/test_silent"
stand_in crash 'echo "PASS stand/half"; kill -SEGV $$'
verdict crash 1 'FAIL .*test_crash: exit 139'
rm "$tmp/bin/test_crash"
stand_in failed 'echo "FAIL stand/failed"; exit 1'
verdict fail_line 1 '^1 passed, 1 failed'
