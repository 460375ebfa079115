// SPDX-License-Identifier: GPL-2.0
/*
 * fqsend [options] IPV4ADDR PORT: UDP traffic shaped for fq tests.
 *
 *   -n N      datagrams in all (default 1; with -d, no limit)
 *   -d SECS   send for SECS seconds
 *   -s SIZE   payload bytes (default 200)
 *   -f N      spread over N sockets, round robin (default 1)
 *   -c        connect() the sockets (one flow per socket for fq); default
 *             is sendto() on unconnected sockets (fq hashes those)
 *   -C        churn: each datagram from a new connected socket, closed at
 *             once (-n of them): many short flows
 *   -p N      the i-th datagram of each socket goes to port PORT + i % N
 *             (unconnected sockets): N flows per socket for a qdisc that
 *             hashes them
 *   -t NS     SO_TXTIME: each datagram departs NS ns after it is sent
 *             (CLOCK_MONOTONIC, the clock fq uses); the departure time is
 *             also written in the first 8 bytes of the payload
 *   -T NS     with -t: datagram i departs NS * i later (negative: earlier)
 *   -a        with -t: count NS from the start of the run, not from each
 *             send: every datagram is due at the same time (with -T 0)
 *   -o        with -t: only each socket's first datagram has a departure
 *             time; the rest go out plain, due at once
 *   -R BPS    SO_MAX_PACING_RATE, bytes per second
 *   -P PRIO   SO_PRIORITY (7 is TC_PRIO_CONTROL)
 *   -i US     pause US microseconds between datagrams
 *   -b B[,B2] SO_SNDBUF of the sockets (alternately B and B2; default 4M).
 *             With -f and -d the sockets are non-blocking: each is kept
 *             full on its own, none waits behind another
 *
 * Prints "sent N failed M"; ENOBUFS from qdisc drops is counted, not fatal.
 *
 * fqsend -l -d SECS [-w SECS] [-e] IPV4ADDR PORT: receive on ADDR:PORT for
 * SECS seconds and print "SRCPORT BYTES" per sender, counting only after
 * the first -w seconds (the warm-up, while queues fill). With -e, check
 * the departure times senders wrote (-t) instead and print
 * "edt N early E inversions I min_us MIN max_us MAX": datagrams received,
 * those that arrived before their departure time, those that arrived
 * after one due later, and the least and most lateness.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/net_tstamp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "txtime.h"

#ifndef SO_MAX_PACING_RATE
#define SO_MAX_PACING_RATE 47
#endif

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct opts {
	long n, secs, size, socks, txtime, txstep, prio, gap_us, warmup, ports;
	uint64_t txbase;	/* -a: the start of the run; else 0: each send */
	long sndbuf[2];
	unsigned long rate;
	int connect, churn, listen, edt, first_only;
	struct sockaddr_in dst;
};

static int open_sock(const struct opts *o, long i)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0), v;

	if (fd < 0)
		return -1;
	v = o->sndbuf[i & 1];
	setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v));
	if (o->txtime >= 0) {
		struct sock_txtime st = { .clockid = CLOCK_MONOTONIC };

		if (setsockopt(fd, SOL_SOCKET, SO_TXTIME, &st, sizeof(st)))
			goto err;
	}
	if (o->rate) {
		unsigned long r = o->rate;

		if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &r, sizeof(r)))
			goto err;
	}
	if (o->prio >= 0) {
		v = o->prio;
		if (setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &v, sizeof(v)))
			goto err;
	}
	if ((o->connect || o->churn) &&
	    connect(fd, (const struct sockaddr *)&o->dst, sizeof(o->dst)))
		goto err;
	return fd;
err:
	perror("fqsend: setsockopt/connect");
	close(fd);
	return -1;
}

static int send_one(int fd, const struct opts *o, char *buf, long i)
{
	char control[TXTIME_SPACE] = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = o->size };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	struct sockaddr_in dst = o->dst;

	if (!o->connect && !o->churn) {
		if (o->ports > 1)
			dst.sin_port = htons(ntohs(o->dst.sin_port) + i % o->ports);
		msg.msg_name = &dst;
		msg.msg_namelen = sizeof(dst);
	}
	if (o->txtime >= 0 && !(o->first_only && i)) {
		uint64_t t = (o->txbase ?: mono_ns()) + o->txtime + o->txstep * i;

		if (o->size >= 2 * (long)sizeof(t)) {
			uint64_t seq = i;

			memcpy(buf, &t, sizeof(t));
			memcpy(buf + sizeof(t), &seq, sizeof(seq));
		}

		txtime_set(&msg, control, t);
	}
	return sendmsg(fd, &msg, 0) < 0 ? -1 : 0;
}

/* Receive for o->secs; bytes per source port after the warm-up. */
static int sink(const struct opts *o)
{
	static unsigned long bytes[65536];
	static char buf[65536];
	uint64_t start = mono_ns(), count_from = start + o->warmup * 1000000000ULL;
	uint64_t end = start + o->secs * 1000000000ULL;
	struct timeval tv = { .tv_usec = 100000 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), v = 4 << 20;
	unsigned long edt_n = 0, edt_early = 0, edt_inv = 0;
	int64_t lat, lat_min = INT64_MAX, lat_max = INT64_MIN;
	uint64_t last_t = 0;

	if (fd < 0 || bind(fd, (const struct sockaddr *)&o->dst, sizeof(o->dst))) {
		perror("fqsend: bind");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (mono_ns() < end) {
		struct sockaddr_in src;
		socklen_t sl = sizeof(src);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&src, &sl);

		uint64_t now = mono_ns(), t;

		if (n >= 2 * (ssize_t)sizeof(t) && o->edt) {
			memcpy(&t, buf, sizeof(t));
			if (getenv("FQSEND_VERBOSE")) {
				uint64_t seq;

				memcpy(&seq, buf + sizeof(t), sizeof(seq));
				fprintf(stderr, "seq %llu late_us %lld\n", (unsigned long long)seq,
					(long long)(int64_t)(now - t) / 1000);
			}
			edt_n++;
			edt_early += now < t;
			edt_inv += t < last_t;
			last_t = t > last_t ? t : last_t;
			lat = (int64_t)(now - t);
			lat_min = lat < lat_min ? lat : lat_min;
			lat_max = lat > lat_max ? lat : lat_max;
		} else if (n > 0 && now >= count_from) {
			bytes[ntohs(src.sin_port)] += n;
		}
	}
	if (o->edt) {
		printf("edt %lu early %lu inversions %lu min_us %lld max_us %lld\n", edt_n,
		       edt_early, edt_inv, edt_n ? (long long)lat_min / 1000 : 0,
		       edt_n ? (long long)lat_max / 1000 : 0);
		return 0;
	}
	for (long p = 0; p < 65536; p++)
		if (bytes[p])
			printf("%ld %lu\n", p, bytes[p]);
	return 0;
}

/* -f N -d SECS: keep every socket full, none waiting behind another. */
static void flood(const struct opts *o, int *fds, char *buf, uint64_t end,
		  unsigned long *sent, unsigned long *failed)
{
	struct pollfd *pfd = calloc(o->socks, sizeof(*pfd));

	for (long i = 0; i < o->socks; i++) {
		fcntl(fds[i], F_SETFL, O_NONBLOCK);
		pfd[i].fd = fds[i];
		pfd[i].events = POLLOUT;
	}
	while (mono_ns() < end) {
		int progress = 0;

		for (long i = 0; i < o->socks; i++) {
			for (int k = 0; k < 8; k++) {
				if (!send_one(fds[i], o, buf, 0)) {
					(*sent)++;
					progress = 1;
				} else if (errno == EAGAIN) {
					break;
				} else {
					(*failed)++;
				}
			}
		}
		if (!progress)
			poll(pfd, o->socks, 10);
	}
	free(pfd);
}

int main(int argc, char **argv)
{
	struct opts o = { .n = 1, .size = 200, .socks = 1, .txtime = -1, .prio = -1,
			  .sndbuf = { 4 << 20, 4 << 20 } };
	static char buf[65536];
	unsigned long sent = 0, failed = 0;
	uint64_t end = 0;
	int c, *fds;

	while ((c = getopt(argc, argv, "n:d:s:f:cCt:T:aoR:P:i:b:lw:ep:")) != -1) {
		switch (c) {
		case 'n': o.n = atol(optarg); break;
		case 'd': o.secs = atol(optarg); o.n = -1; break;
		case 's': o.size = atol(optarg); break;
		case 'f': o.socks = atol(optarg); break;
		case 'c': o.connect = 1; break;
		case 'C': o.churn = 1; break;
		case 't': o.txtime = atol(optarg); break;
		case 'R': o.rate = strtoul(optarg, NULL, 0); break;
		case 'P': o.prio = atol(optarg); break;
		case 'i': o.gap_us = atol(optarg); break;
		case 'b': {
			char *comma;

			o.sndbuf[0] = o.sndbuf[1] = strtol(optarg, &comma, 0);
			if (*comma == ',')
				o.sndbuf[1] = strtol(comma + 1, NULL, 0);
			break;
		}
		case 'l': o.listen = 1; break;
		case 'w': o.warmup = atol(optarg); break;
		case 'e': o.edt = 1; break;
		case 'p': o.ports = atol(optarg); break;
		case 'T': o.txstep = atol(optarg); break;
		case 'a': o.txbase = mono_ns(); break;
		case 'o': o.first_only = 1; break;
		default: goto usage;
		}
	}
	o.dst.sin_family = AF_INET;
	if (argc - optind != 2 || inet_pton(AF_INET, argv[optind], &o.dst.sin_addr) != 1 ||
	    o.size < 0 || o.size > (long)sizeof(buf) || o.socks < 1)
		goto usage;
	o.dst.sin_port = htons(atoi(argv[optind + 1]));
	if (o.listen)
		return o.secs ? sink(&o) : 2;
	if (o.secs)
		end = mono_ns() + o.secs * 1000000000ULL;

	fds = calloc(o.socks, sizeof(*fds));
	for (long i = 0; !o.churn && i < o.socks; i++)
		if ((fds[i] = open_sock(&o, i)) < 0)
			return 1;
	if (!o.churn && end && o.socks > 1) {
		flood(&o, fds, buf, end, &sent, &failed);
		printf("sent %lu failed %lu\n", sent, failed);
		return 0;
	}
	for (long i = 0; o.n < 0 || i < o.n; i++) {
		if (end && (i & 63) == 0 && mono_ns() >= end)
			break;
		if (o.churn) {
			int fd = open_sock(&o, i);

			if (fd < 0)
				return 1;
			send_one(fd, &o, buf, i) ? failed++ : sent++;
			close(fd);
		} else {
			send_one(fds[i % o.socks], &o, buf, i / o.socks) ? failed++ : sent++;
		}
		if (o.gap_us)
			usleep(o.gap_us);
	}
	printf("sent %lu failed %lu\n", sent, failed);
	return 0;
usage:
	fprintf(stderr, "usage: fqsend [-n N] [-d SECS] [-s SIZE] [-f SOCKS] [-c] [-C] "
		"[-p PORTS] [-t TXTIME_NS [-T STEP_NS] [-a] [-o]] [-R RATE_BPS] [-P PRIO] [-i GAP_US] [-b SNDBUF[,SNDBUF2]] "
		"IPV4ADDR PORT\n       fqsend -l -d SECS [-w WARMUP_SECS] [-e] IPV4ADDR PORT\n");
	return 2;
}
