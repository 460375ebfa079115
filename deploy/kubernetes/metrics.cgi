#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The page Prometheus scrapes from the DaemonSet's metrics container
# (docs/kubernetes.md, "Metrics"): busybox httpd runs this CGI for each GET
# of /metrics/ (its cgi-bin/index.cgi, tools/mkimage --www). The series are
# read now, not from a file refreshed on a timer: a pod's are in the first
# scrape after its ADD and gone from the first after its DEL, and counters
# are as fresh as the scrape. It reads no input, so a request can ask it
# for nothing else.
#
# All of it or nothing: a page missing some series would read as if those
# pods had gone, so a failure is a 500 (the scrape's `up` is 0) and the
# tools' own one-line errors go to the container's log (httpd's stderr).

# The image's places after the caller's: a test serves the tree's tools.
PATH=$PATH:/usr/sbin:/usr/lib/cni

if page=$(bpfqdisc stats --prometheus && bpfqdisc-bandwidth pods --prometheus); then
	printf 'Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n\r\n'
	[ -z "$page" ] || printf '%s\n' "$page"
else
	printf 'Status: 500 Internal Server Error\r\nContent-Type: text/plain\r\n\r\n'
	echo "bpfqdisc: the series could not be read; the metrics container's log says why"
fi
