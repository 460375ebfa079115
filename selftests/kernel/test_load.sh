# load, list, unload, and the errors around them.
. "$(dirname "$0")/lib.sh"

expect_err 2 "unknown qdisc 'nosuch' \(known: fifo" "$BQ" load nosuch
expect_err 2 "unknown qdisc 'nosuch'" "$BQ" unload nosuch
expect_err 2 "unknown command" "$BQ" frobnicate
expect_err 2 "out of range" "$BQ" load fifo limit 0
expect_err 1 "bpf_fifo is not loaded" "$BQ" unload fifo

"$BQ" list | grep -q '^bpf_fifo  *not loaded' || fail "list before load: $("$BQ" list)"
expect "$BQ" load fifo
[ -e /sys/fs/bpf/bpfqdisc/fifo/link ] || fail "no pinned link"
"$BQ" list | grep -q '^bpf_fifo  *loaded' || fail "list after load: $("$BQ" list)"
"$BQ" list | grep -q 'defaults: limit 1000' || fail "list shows no defaults"
expect_err 1 "bpf_fifo is already loaded" "$BQ" load fifo

# The registration outlives the loader process: tc can use the kind.
expect tc qdisc add dev lo root bpf_fifo
tc qdisc show dev lo | grep -q bpf_fifo || fail "tc does not show bpf_fifo"
expect tc qdisc del dev lo root

expect "$BQ" unload fifo
[ ! -e /sys/fs/bpf/bpfqdisc/fifo ] || fail "pins left behind"
"$BQ" list | grep -q '^bpf_fifo  *not loaded' || fail "list after unload"
tc qdisc add dev lo root bpf_fifo 2>/dev/null && fail "kind still usable after unload"

# Defaults given at load reach new instances.
expect "$BQ" load fifo limit 77
expect tc qdisc add dev lo root bpf_fifo
"$BQ" list | grep -A1 'dev lo' | grep -q 'limit 77' || fail "instance lacks limit 77: $("$BQ" list)"
exit 0
