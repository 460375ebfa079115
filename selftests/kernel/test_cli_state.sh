# The CLI when the system is at fault: one line on stderr, non-zero exit,
# nothing done. No kernel BTF (libbpf's own warnings stay quiet); a kind
# whose instances cannot be read (unload refuses without --force, list
# fails); a kind's directory that cannot be opened to lock it (said so, not
# "another bpfqdisc is changing"); a program the verifier refuses as too
# large (said so, not a map allocation failure); a full class map (said
# so, not a bare E2BIG).
. "$(dirname "$0")/lib.sh"
PINS=/sys/fs/bpf/bpfqdisc

# No BTF: the private mount namespace hides /sys/kernel/btf.
expect_err 1 "cannot read this kernel.s .* BTF at /sys/kernel/btf/vmlinux" \
	unshare -m sh -c "mount -t tmpfs none /sys/kernel/btf && exec '$BQ' load fifo"

# The instances cannot be read: bq_slots is out of its place.
expect "$BQ" load fifo
veth_pair
expect "$BQ" -n a qdisc add dev va root bpf_fifo
mv "$PINS/fifo/bq_slots" "$PINS/fifo/bq_slots_moved"
expect_err 1 "cannot read the instances of bpf_fifo .*--force" "$BQ" unload fifo
[ -e "$PINS/fifo/link" ] || fail "unload without --force unloaded a kind it could not read"
expect_err 1 "cannot read the instances of bpf_fifo" "$BQ" list
mv "$PINS/fifo/bq_slots_moved" "$PINS/fifo/bq_slots"
expect "$BQ" list >/dev/null
expect_err 1 "bpf_fifo has 1 live qdisc" "$BQ" unload fifo

# The kind's directory cannot be opened to lock it, and nobody holds the
# lock: root without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH may only
# search (x) it.
chmod 0100 "$PINS/fifo"
expect_err 2 "cannot open $PINS/fifo to lock it: Permission denied" \
	setpriv --bounding-set -dac_override,-dac_read_search "$BQ" -n a qdisc change dev va root limit 7
chmod 0700 "$PINS/fifo"
expect "$BQ" unload fifo --force

# A program the verifier refuses as too large (E2BIG) after every map was
# made: bpf_toobig (selftests/bpf/toobig.bpf.c), which only the tests' CLI
# knows.
expect_err 1 "cannot load bpf_toobig: a program is too large for the verifier" \
	"$TOP/bin/bpfqdisc_test" load toobig
[ ! -e "$PINS/toobig/link" ] || fail "bpf_toobig is registered"

# A full class map: one instance's worth of classes (HBM_AGGS, 256).
expect "$BQ" load hbm --max-instances 1
expect "$BQ" -n b qdisc add dev vb root bpf_hbm rate 1mbit classify 1
map=$PINS/hbm/hbm_classes
entries=$(bpftool map show pinned "$map" -j | "$JGET" .max_entries)
[ "$entries" = 256 ] || fail "hbm_classes has $entries entries, expected 256"
i=1
fill=$(mktemp)
: >"$fill"
while [ $i -lt 256 ]; do
	# key: slot, pad, generation (any: the map is full either way), id
	echo "map update pinned $map key hex 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 $(printf '%02x %02x' $((i % 256)) $((i / 256))) 00 00 00 00 00 00 value hex 40 42 0f 00 00 00 00 00" >>"$fill"
	i=$((i + 1))
done
expect bpftool batch file "$fill" >/dev/null
expect "$BQ" -n b class add dev vb mark 1000 rate 1mbit
expect_err 1 "the class map of bpf_hbm is full \(256 classes" "$BQ" -n b class add dev vb mark 1001 rate 1mbit
