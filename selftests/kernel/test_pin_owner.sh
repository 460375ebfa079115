# Pin directories on a bpffs mounted without mode= (1777, as the CLI's own
# hint mounts it): an unprivileged user who makes /sys/fs/bpf/bpfqdisc
# first, or a directory others may write, is refused with one line, by
# bpfqdisc (every command, class too) and by hbm; the directories bpfqdisc makes are 0700 and root's,
# and the unprivileged user can then neither unlink a kind's link nor make
# anything in them. Runs in a mount namespace of its own, on a fresh bpffs.
if [ "${1:-}" != private ]; then
	exec unshare -m --propagation private dash "$0" private
fi
. "$(dirname "$0")/lib.sh"
HBM="$TOP/bin/hbm"
PINS=/sys/fs/bpf/bpfqdisc
nobody() { setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }

expect mount -t bpf bpf /sys/fs/bpf
[ "$(stat -c %a /sys/fs/bpf)" = 1777 ] || skip "a fresh bpffs is mode $(stat -c %a /sys/fs/bpf), not 1777"

# Made first by someone else.
expect nobody mkdir $PINS
expect_err 1 "refusing $PINS: it is owned by uid 65534" "$BQ" load fifo
expect_err 1 "refusing $PINS: it is owned by uid 65534" "$HBM" -n 3 -r 10 -t 1
expect_err 1 "refusing $PINS: it is owned by uid 65534" "$BQ" list
[ -z "$(ls -A $PINS)" ] || fail "pins in a directory of uid 65534: $(ls -A $PINS)"
expect rmdir $PINS

# Root's, but writable by others.
expect mkdir -m 0777 $PINS
expect_err 1 "refusing $PINS: it is writable by group or others \(mode 0777" "$BQ" load fifo
expect rmdir $PINS

# Made by bpfqdisc: 0700 and root's; others cannot touch what is inside.
expect "$BQ" load fifo
[ "$(stat -c '%a %u' $PINS)" = "700 0" ] || fail "$PINS is $(stat -c '%a %u' $PINS)"
[ "$(stat -c '%a %u' $PINS/fifo)" = "700 0" ] || fail "$PINS/fifo is $(stat -c '%a %u' $PINS/fifo)"
nobody rm -f $PINS/fifo/link 2>/dev/null || true
nobody mkdir $PINS/hbm3 2>/dev/null || true
[ -e $PINS/fifo/link ] || fail "an unprivileged user unlinked the link"
[ ! -e $PINS/hbm3 ] || fail "an unprivileged user made $PINS/hbm3"

# A kind's directory of someone else's (made while the root was open).
expect mkdir $PINS/fq
expect chown 65534 $PINS/fq
expect_err 1 "refusing $PINS/fq: it is owned by uid 65534" "$BQ" load fq
[ -z "$(ls -A $PINS/fq)" ] || fail "pins in a directory of uid 65534: $(ls -A $PINS/fq)"
expect rmdir $PINS/fq

# class reads and writes pinned maps too: with a live bpf_hbm whose pin
# directory someone else owns or may write, it refuses like the others.
expect ip netns add po
expect "$BQ" load hbm
expect "$BQ" -n po qdisc add dev lo root bpf_hbm classify 1
expect chmod 0777 $PINS
expect_err 1 "refusing $PINS: it is writable by group or others" "$BQ" -n po class add dev lo mark 1 rate 1mbit
expect_err 1 "refusing $PINS: it is writable by group or others" "$BQ" -n po class show dev lo
expect chmod 0700 $PINS
expect chown 65534 $PINS
expect_err 1 "refusing $PINS: it is owned by uid 65534" "$BQ" -n po class add dev lo mark 1 rate 1mbit
expect chown 0 $PINS
expect "$BQ" -n po class add dev lo mark 1 rate 1mbit
expect ip netns exec po tc qdisc del dev lo root
expect ip netns del po
expect "$BQ" unload hbm

# The parent itself writable by others without the sticky bit.
expect "$BQ" unload fifo
expect chmod 0777 /sys/fs/bpf
expect_err 1 "/sys/fs/bpf is writable by others without the sticky bit" "$BQ" load fifo
expect chmod 1777 /sys/fs/bpf
expect "$BQ" load fifo
expect "$BQ" unload fifo
