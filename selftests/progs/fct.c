// SPDX-License-Identifier: GPL-2.0
/*
 * fct: flow completion times of short TCP transfers.
 *
 * fct -l IPV4ADDR PORT: serve on ADDR:PORT until killed: read each
 * connection to its end, then close it (one at a time, as the client
 * makes them).
 *
 * fct [-n N] [-s BYTES] [-g US] IPV4ADDR PORT: N transfers (default 20)
 * one after another, each a new connection that writes BYTES (default
 * 50000), shuts its sending side and waits for the server's close, with
 * US microseconds between them (default 0). A transfer's completion time
 * runs from before connect() to the server's close: the handshake, the
 * data and the last acknowledgement. Prints one line per transfer, "us
 * T", then "n N mean_us M p50_us P max_us X".
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Read fd until the peer closes; -1 on an error. */
static int drain(int fd)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	return n < 0 ? -1 : 0;
}

static void serve(const struct sockaddr_in *addr)
{
	int one = 1, l = socket(AF_INET, SOCK_STREAM, 0), c;

	if (l < 0)
		die("socket");
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (const struct sockaddr *)addr, sizeof(*addr)) || listen(l, 16))
		die("bind/listen");
	for (;;) {
		c = accept(l, NULL, NULL);
		if (c < 0)
			die("accept");
		drain(c);
		close(c);
	}
}

/* One transfer of size bytes; its completion time in us. */
static uint64_t transfer(const struct sockaddr_in *addr, size_t size)
{
	static char buf[65536];
	uint64_t t0 = mono_us();
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	size_t sent = 0;
	ssize_t n;

	if (fd < 0)
		die("socket");
	if (connect(fd, (const struct sockaddr *)addr, sizeof(*addr)))
		die("connect");
	while (sent < size) {
		n = write(fd, buf, size - sent < sizeof(buf) ? size - sent : sizeof(buf));
		if (n < 0)
			die("write");
		sent += n;
	}
	if (shutdown(fd, SHUT_WR) || drain(fd))
		die("shutdown/read");
	close(fd);
	return mono_us() - t0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n = 20, size = 50000, gap = 0, i;
	struct sockaddr_in addr = { .sin_family = AF_INET };
	uint64_t *t, sum = 0;
	int opt, listen_mode = 0;

	while ((opt = getopt(argc, argv, "ln:s:g:")) != -1) {
		switch (opt) {
		case 'l': listen_mode = 1; break;
		case 'n': n = atol(optarg); break;
		case 's': size = atol(optarg); break;
		case 'g': gap = atol(optarg); break;
		default: goto usage;
		}
	}
	if (argc - optind != 2 || inet_pton(AF_INET, argv[optind], &addr.sin_addr) != 1 ||
	    n < 1 || size < 1 || gap < 0)
		goto usage;
	addr.sin_port = htons(atoi(argv[optind + 1]));
	if (listen_mode)
		serve(&addr);
	t = calloc(n, sizeof(*t));
	if (!t)
		die("calloc");
	for (i = 0; i < n; i++) {
		t[i] = transfer(&addr, size);
		sum += t[i];
		printf("us %llu\n", (unsigned long long)t[i]);
		if (gap)
			usleep(gap);
	}
	qsort(t, n, sizeof(*t), cmp_u64);
	printf("n %ld mean_us %llu p50_us %llu max_us %llu\n", n, (unsigned long long)(sum / n),
	       (unsigned long long)t[n / 2], (unsigned long long)t[n - 1]);
	return 0;
usage:
	fprintf(stderr, "usage: fct -l IPV4ADDR PORT | fct [-n N] [-s BYTES] [-g US] IPV4ADDR PORT\n");
	return 2;
}
