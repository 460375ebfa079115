// SPDX-License-Identifier: GPL-2.0
/*
 * udpseq: a trace of UDP datagrams whose order a receiver reads, for
 * test_rank_oracle.
 *
 *   udpseq send IPV4ADDR PORT [FIRST] < MARKS
 *					datagram i carries FIRST + i (FIRST
 *					default 0) and leaves with SO_MARK the
 *					i-th line of MARKS
 *   udpseq recv PORT N SECS		prints the number each datagram carries,
 *					a line each, in the order they came,
 *					until N came or SECS passed
 *
 * Both need CAP_NET_ADMIN: send for SO_MARK and a send buffer of 256 MB
 * (SO_SNDBUFFORCE: a qdisc that holds the trace holds the buffer too),
 * recv for a receive buffer of 32 MB (SO_RCVBUFFORCE), so that the burst
 * a released qdisc sends is not dropped.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int send_trace(const char *addr, int port, unsigned int seq)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), size = 256 << 20;
	unsigned int mark, first = seq;
	char buf[32];

	if (fd < 0 || inet_pton(AF_INET, addr, &to.sin_addr) != 1 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size))) {
		perror("udpseq send");
		return 1;
	}
	while (scanf("%u", &mark) == 1) {
		int len = snprintf(buf, sizeof(buf), "%u", seq);

		if (setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)) ||
		    sendto(fd, buf, len, 0, (struct sockaddr *)&to, sizeof(to)) != len) {
			fprintf(stderr, "udpseq send: datagram %u: %m\n", seq);
			return 1;
		}
		seq++;
	}
	printf("sent %u\n", seq - first);
	return 0;
}

static int recv_trace(int port, unsigned int n, int secs)
{
	struct sockaddr_in me = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), size = 32 << 20;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[64];
	unsigned int got;

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) ||
	    bind(fd, (struct sockaddr *)&me, sizeof(me))) {
		perror("udpseq recv");
		return 1;
	}
	for (got = 0; got < n && poll(&p, 1, secs * 1000) == 1; got++) {
		ssize_t len = recv(fd, buf, sizeof(buf) - 1, 0);

		if (len < 0) {
			perror("udpseq recv");
			return 1;
		}
		buf[len] = 0;
		printf("%s\n", buf);
		fflush(stdout);
	}
	return got == n ? 0 : 1;
}

int main(int argc, char **argv)
{
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "send"))
		return send_trace(argv[2], atoi(argv[3]), argc == 5 ? strtoul(argv[4], NULL, 10) : 0);
	if (argc == 5 && !strcmp(argv[1], "recv"))
		return recv_trace(atoi(argv[2]), strtoul(argv[3], NULL, 10), atoi(argv[4]));
	fprintf(stderr, "usage: udpseq send IPV4ADDR PORT [FIRST] < MARKS | udpseq recv PORT N SECS\n");
	return 2;
}
