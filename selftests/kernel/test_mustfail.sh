# The rules a BPF qdisc is held to, as the kernel enforces them: each case
# of selftests/bpf/mustfail.bpf.c breaks one (an skb neither queued nor
# dropped, bstats at enqueue, the to-free list at dequeue, a write to the
# handle, no .init) and must be refused, for that reason; the valid case
# must register, so that the runner is seen to tell them apart. Cases tied
# to a kernel patch (tools/kernel-patches/: .init reading a NULL opt,
# bypass asked for outside .init) are refused where the kernel's BTF shows
# the patch and register where it does not; their safe forms register on both.
. "$(dirname "$0")/lib.sh"

out=$("$TOP/bin/bq_mustfail" "$TOP/.output/mustfail.bpf.o" 2>&1) || fail "$out"
echo "$out" | sed 's/^/# /'
[ "$(echo "$out" | grep -c '^ok ')" = 10 ] || fail "expected 10 cases: $out"
exit 0
