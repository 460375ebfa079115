# bpfqdisc load PATH refuses, with one line and nothing left pinned: a file
# not root's or writable by group or others, an object with two Qdisc_ops
# maps, with no .id or one not bpf_NAME, named as a built-in or an already
# loaded kind, built for another kernel's struct Qdisc_ops, or for another
# framework major (.output/oot/fwnext.bpf.o, built like myq), or with a
# name the CLI would misread (myq renamed: .output/oot/{limit,dupstat,qlen,
# longstat}.bpf.o); and a kind whose pins someone else may have written is
# not found. The objects
# are selftests/bpf/plain_*.bpf.c, plain_fifo built wrong in one way each.
. "$(dirname "$0")/lib.sh"
PINS=/sys/fs/bpf/bpfqdisc
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cp "$TOP"/.output/plain_*.bpf.o "$TOP"/.output/oot/fwnext.bpf.o "$W/"
for o in limit dupstat qlen longstat; do cp "$TOP/.output/oot/$o.bpf.o" "$W/"; done
cd "$W"
nothing_pinned() { [ -z "$(ls -A $PINS 2>/dev/null)" ] || fail "after $1: pinned $(ls -R $PINS)"; }
refused() { # name code regex object [option]
	expect_err "$2" "$3" "$BQ" load "$4" ${5:-}
	nothing_pinned "$1"
	note "$1: $err"
}

expect chown 65534 plain_fifo.bpf.o
refused not_root 2 "refusing \./plain_fifo\.bpf\.o: it is owned by uid 65534" ./plain_fifo.bpf.o
expect chown 0 plain_fifo.bpf.o
expect chmod g+w plain_fifo.bpf.o
refused group_writable 2 "refusing \./plain_fifo\.bpf\.o: it is writable by group or others" ./plain_fifo.bpf.o
expect chmod 0644 plain_fifo.bpf.o
refused two_ops 1 "plain_twoops\.bpf\.o has 2 struct_ops maps of Qdisc_ops" ./plain_twoops.bpf.o
refused no_id 1 "plain_noid\.bpf\.o: its Qdisc_ops has no \.id" ./plain_noid.bpf.o
refused bad_id 1 'plain_badid\.bpf\.o: its Qdisc_ops \.id is "plainfifo": a loaded kind.s is bpf_NAME' \
	./plain_badid.bpf.o
refused builtin 1 "bpf_fifo is a built-in kind" ./plain_builtin.bpf.o
refused other_btf 1 "built for another kernel's types: its struct Qdisc_ops sets bq_no_such_op" \
	./plain_otherbtf.bpf.o --unguarded
fw=$("$BQ" --version | sed -n 's/.*(framework \([0-9]*\)\.[0-9]*)$/\1/p')
refused framework 1 "bpf_fwnext was built for the bpfqdisc framework $((fw + 1))\.0; this bpfqdisc reads $fw\.0" \
	./fwnext.bpf.o

# Names the CLI would misread: bpfqdisc qdisc change dev D limit 5 would
# take bpf_limit for the kind; a statistic "dequeued" would be a second
# key of stats -j's "bpf"; bpf_qlen's gauge "packets" would be Prometheus'
# bpfqdisc_qlen_packets, the core metric; a name with no NUL in its field.
refused kind_is_param 1 "bpf_limit: its name is a parameter's \(limit of bpf_fifo" ./limit.bpf.o
refused stat_is_core 1 "bpf_dupstat: statistic \"dequeued\" is a counter every kind has" ./dupstat.bpf.o
refused prom_is_core 1 "bpf_qlen: statistic \"packets\" would be Prometheus' bpfqdisc_qlen_packets" ./qlen.bpf.o
refused unterminated 1 "bpf_longstat: statistic 0 has no name of 1 to 23 letters, digits or _" ./longstat.bpf.o

# The same kind twice: the second load is refused and the first stays.
expect "$BQ" load ./plain_fifo.bpf.o --unguarded
cp plain_fifo.bpf.o again.o
expect_err 1 "bpf_plainfifo is loaded already, from $W/plain_fifo\.bpf\.o: unload it first" "$BQ" load again.o --unguarded
[ "$(ls $PINS/plainfifo | tr '\n' ' ')" = "bq_object link " ] || fail "pins: $(ls $PINS/plainfifo)"
# A kind's directory someone else owns (or may write) is no kind of ours.
expect chown 65534 $PINS/plainfifo
expect_err 2 "unknown qdisc 'plainfifo'" "$BQ" params plainfifo
expect chown 0 $PINS/plainfifo
expect chmod g+w $PINS/plainfifo/bq_object
expect_err 2 "unknown qdisc 'plainfifo'" "$BQ" params plainfifo
expect chmod g-w $PINS/plainfifo/bq_object
expect "$BQ" unload plainfifo
nothing_pinned unload
