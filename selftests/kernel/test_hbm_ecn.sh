# HBM congestion signals: with ECN (-E) the limiter CE-marks packets in both
# modes; without ECN credit mode returns CN to TCP, and --no_cn stops that.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hbm_lib.sh"

ht -r=50 -t=3 -f=2 --edt -E cubic
note "--edt -E: CE $CE, CN $CN, drops $DROP_PCT%, goodput $GOODPUT"
[ "$CE" -gt 0 ] || fail "--edt -E: no CE marks: $(cat "$TMPD/ht.out")"

ht -r=50 -t=3 -E cubic
note "credit -E: CE $CE, CN $CN, drops $DROP_PCT%, goodput $GOODPUT"
[ "$CE" -gt 0 ] || fail "credit -E: no CE marks: $(cat "$TMPD/ht.out")"

ht -r=50 -t=3 cubic
note "credit: CE $CE, CN $CN, drops $DROP_PCT%, goodput $GOODPUT"
[ "$CE" -eq 0 ] || fail "credit without ECN: $CE CE marks"
[ "$CN" -gt 0 ] || fail "credit without ECN: no CN: $(cat "$TMPD/ht.out")"

ht -r=50 -t=3 --no_cn cubic
note "credit --no_cn: CE $CE, CN $CN, drops $DROP_PCT%, goodput $GOODPUT"
[ "$CN" -eq 0 ] || fail "--no_cn: $CN packets returned CN"
exit 0
