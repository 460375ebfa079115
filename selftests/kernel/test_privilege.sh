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
exit 0
