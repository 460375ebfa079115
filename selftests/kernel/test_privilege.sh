# Without the capabilities the CLI names what is missing; without bpffs
# mounted it mounts it.
. "$(dirname "$0")/lib.sh"

command -v setpriv >/dev/null || skip "setpriv is not in the VM"
expect_err 1 "missing capability CAP_BPF" setpriv --inh-caps=-all --bounding-set=-all "$BQ" load fifo
expect_err 1 "missing capability CAP_BPF" setpriv --reuid=65534 --regid=65534 --clear-groups "$BQ" list
expect_err 1 "missing capability CAP_NET_ADMIN" \
	setpriv --inh-caps=-net_admin --bounding-set=-net_admin "$BQ" load fifo

umount /sys/fs/bpf
expect "$BQ" load fifo
grep -q ' /sys/fs/bpf bpf ' /proc/mounts || fail "bpffs was not mounted"
[ "$(stat -c %a /sys/fs/bpf/bpfqdisc)" = 700 ] || fail "pin dir mode $(stat -c %a /sys/fs/bpf/bpfqdisc)"
for f in /sys/fs/bpf/bpfqdisc/fifo /sys/fs/bpf/bpfqdisc/fifo/*; do
	m=$(stat -c %a "$f")
	case $m in 600|700) ;; *) fail "$f has mode $m: not root-only" ;; esac
done

# An unprivileged user can neither read nor change the maps, even with
# unprivileged BPF allowed.
sysctl -qw kernel.unprivileged_bpf_disabled=0 2>/dev/null || true
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
# limit 1000 (0x3e8, little endian), the other parameters 0, in a value of
# the map's size (BQ_MAX_PARAMS u64s).
vsz=$(bpftool map show pinned /sys/fs/bpf/bpfqdisc/fifo/bq_defaults -j | "$JGET" .bytes_value)
value="0xe8 0x03 $(seq $((vsz - 2)) | sed 's/.*/0/' | tr '\n' ' ')"
# The same commands work for root, so the refusals below are about privilege.
expect bpftool map dump pinned /sys/fs/bpf/bpfqdisc/fifo/bq_slots >/dev/null
expect bpftool map update pinned /sys/fs/bpf/bpfqdisc/fifo/bq_defaults key 0 0 0 0 value $value
nobody bpftool map dump pinned /sys/fs/bpf/bpfqdisc/fifo/bq_slots >/dev/null 2>&1 &&
	fail "nobody read bq_slots"
nobody bpftool map update pinned /sys/fs/bpf/bpfqdisc/fifo/bq_defaults key 0 0 0 0 value $value \
	>/dev/null 2>&1 && fail "nobody changed bq_defaults"
"$BQ" list | grep -q 'defaults: limit 1000' || fail "defaults changed"
exit 0
