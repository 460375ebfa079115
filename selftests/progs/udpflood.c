// SPDX-License-Identifier: GPL-2.0
/*
 * udpflood ADDR PORT SECONDS [SIZE [PPS [PRIORITY]]]: send UDP datagrams to
 * ADDR:PORT at up to PPS packets per second (default 20000; 0: as fast as
 * possible) for SECONDS, ignoring ENOBUFS from qdisc drops (iperf3 gives up
 * on the first one), with SO_PRIORITY PRIORITY if given. For tests that
 * need a queue to build: a slow receiver fills at a few thousand pps, and
 * an unpaced sender would starve the test itself. Its send buffer is 4 MB,
 * forced when it may (CAP_NET_ADMIN), else up to net.core.wmem_max: it
 * also runs as an unprivileged sender.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	char buf[65536] = { 0 };
	int sndbuf = 4 << 20, prio, fd;
	unsigned long sent = 0, failed = 0;
	double end, pps, next;
	size_t size;

	if (argc < 4 || inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1) {
		fprintf(stderr, "usage: udpflood IPV4ADDR PORT SECONDS [SIZE [PPS [PRIORITY]]]\n");
		return 2;
	}
	dst.sin_port = htons(atoi(argv[2]));
	end = now() + atof(argv[3]);
	size = argc > 4 ? strtoul(argv[4], NULL, 0) : 200;
	pps = argc > 5 ? strtod(argv[5], NULL) : 20000;
	if (size > sizeof(buf))
		size = sizeof(buf);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)) &&
		       setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)))) {
		perror("udpflood: socket");
		return 1;
	}
	prio = argc > 6 ? atoi(argv[6]) : 0;
	if (argc > 6 && setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio))) {
		perror("udpflood: SO_PRIORITY");
		return 1;
	}
	for (next = now(); now() < end; next += pps > 0 ? 64 / pps : 0) {
		double wait = next - now();

		if (wait > 0)
			usleep(wait * 1e6);
		for (int i = 0; i < 64; i++) {
			if (sendto(fd, buf, size, 0, (struct sockaddr *)&dst, sizeof(dst)) < 0)
				failed++;
			else
				sent++;
		}
	}
	printf("sent %lu failed %lu\n", sent, failed);
	return 0;
}
