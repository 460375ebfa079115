#!/bin/dash
# Issue 50.9: the DaemonSet's metrics container serves the per-pod series.
# It is busybox httpd with the image's document root (tools/mkimage --www,
# deploy/kubernetes/metrics.cgi as its CGI), run here as the manifest runs
# it, on the port and path of the pod template's prometheus.io annotations.
# Every scrape passes promtool. The CGI reads the series when scraped, so a
# pod's series are in the first scrape after its ADD returns and gone from
# the first after its DEL returns: within one scrape interval, whatever the
# interval. Another pod's stay. /metrics (no slash) reaches the same page.
# A failure to read the series is a 500, not a page without them, which
# would look as if every pod had gone.
. "$(dirname "$0")/lib.sh"
. "$TOP/selftests/kernel/cni_lib.sh"
. "$TOP/selftests/kernel/cni_bw_lib.sh"

MANIFEST=$TOP/deploy/kubernetes/bpfqdisc-bandwidth.yaml
T=$(mktemp -d)
SRV=
trap '[ -z "$SRV" ] || kill $SRV 2>/dev/null; rm -rf "$T"' EXIT

# annotation NAME: the value of the pod template's prometheus.io/NAME.
annotation() { sed -n "s|^ *prometheus.io/$1: \"\{0,1\}\([^\"]*\)\"\{0,1\}\$|\1|p" "$MANIFEST"; }
port=$(annotation port)
path=$(annotation path)
[ "$(annotation scrape)" = true ] && [ -n "$port" ] && [ -n "$path" ] ||
	fail "the DaemonSet's pod template has no prometheus.io scrape, port and path annotations"
grep -q "httpd.*-p.*$port.*-h.*/usr/lib/bpfqdisc/www" "$MANIFEST" ||
	fail "no container of the manifest runs busybox httpd on port $port with /usr/lib/bpfqdisc/www"
"$TOP/tools/mkimage" --www "$T/www" || fail "tools/mkimage --www: exit $?"

# serve PATHDIR: busybox httpd on the manifest's port (on loopback), the
# bpfqdisc tools found first in PATHDIR, until the next serve or the end.
serve() {
	[ -z "$SRV" ] || { kill $SRV; wait $SRV 2>/dev/null || true; }
	PATH=$1:$PATH busybox httpd -f -p 127.0.0.1:$port -h "$T/www" &
	SRV=$!
	i=0
	until [ -n "$(ss -Hltn "sport = :$port")" ]; do
		i=$((i + 1))
		[ $i -le 100 ] || fail "busybox httpd does not listen on $port"
		sleep 0.05
	done
}

# scrape [PATH]: GET it (default: the annotated path) into $T/page; fails
# the test unless it succeeds and promtool has nothing to say about it.
scrape() {
	busybox wget -q -O "$T/page" "http://127.0.0.1:$port${1:-$path}" 2>"$T/err" ||
		fail "GET ${1:-$path}: $(cat "$T/err")"
	lint=$(promtool check metrics <"$T/page" 2>&1 || true)
	[ -z "$lint" ] || fail "promtool on GET ${1:-$path}: $lint"
}

# series ID [DIRECTION]: the scraped series of pod sandbox ID (of DIRECTION).
series() { grep "container_id=\"$1\"" "$T/page" | grep "${2:+direction=\"$2\"}" || true; }

# has_pod ID WHAT: the page has pod ID's traffic series, both ways, and its info.
has_pod() {
	for dir in ingress egress; do
		series "$1" $dir | grep -q '^bpfqdisc_sent_bytes_total{.*pod_name="web-'"$1"'"' ||
			fail "$2: no $dir bpfqdisc_sent_bytes_total of $1: $(grep -c . "$T/page") lines, $(series "$1" | head -3)"
	done
	series "$1" | grep -q '^bpfqdisc_pod_info{' || fail "$2: no bpfqdisc_pod_info of $1"
}

pod_add() { # NAME
	res=$(cni_pod_add "$1")
	printf '%s' "$res" >"$T/$1.json"
	BW_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=shop;K8S_POD_NAME=web-$1" \
		bw ADD "$(bw_conf 1.0.0 "$LIMITS" "$res")" "$1"
	[ "$rc" = 0 ] || fail "ADD $1: exit $rc: $out"
}

pod_del() { # NAME
	bw DEL "$(bw_conf 1.0.0 "$LIMITS" "$(cat "$T/$1.json")")" "$1"
	[ "$rc" = 0 ] || fail "DEL $1: exit $rc: $out"
}

serve "$TOP/bin"
scrape
[ -z "$(grep container_id= "$T/page")" ] || fail "series of pods before any ADD: $(grep container_id= "$T/page" | head -3)"

pod_add m1
scrape
has_pod m1 "the first scrape after m1's ADD"
pod_add m2
scrape
has_pod m1 "after m2's ADD"
has_pod m2 "the first scrape after m2's ADD"
note "scrape with 2 pods: $(grep -c '^bpfqdisc' "$T/page") samples, promtool: nothing to say"

pod_del m1
scrape
[ -z "$(series m1)" ] || fail "the first scrape after m1's DEL still has: $(series m1 | head -3)"
has_pod m2 "after m1's DEL"

# Prometheus, wget and curl -L follow /metrics's redirect to the page.
scrape /metrics
has_pod m2 "GET /metrics"

pod_del m2
cni_pod_del m1
cni_pod_del m2
scrape
[ -z "$(series m2)" ] || fail "the first scrape after m2's DEL still has: $(series m2 | head -3)"

# The series cannot be read: a 500 with no page, not an empty 200.
mkdir "$T/broken"
printf '#!/bin/sh\necho "bpfqdisc: stats: broken for the test" >&2\nexit 1\n' >"$T/broken/bpfqdisc"
chmod +x "$T/broken/bpfqdisc"
serve "$T/broken:$TOP/bin"
! busybox wget -q -O "$T/page" "http://127.0.0.1:$port$path" 2>"$T/err" ||
	fail "GET $path answered though bpfqdisc stats failed: $(head -3 "$T/page")"
grep -q ' 500 ' "$T/err" || fail "GET $path when stats fails: $(cat "$T/err"), not a 500"
note "stats failing: the scrape gets $(grep -o 'HTTP/1.1 500.*' "$T/err")"
