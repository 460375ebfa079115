// SPDX-License-Identifier: GPL-2.0
/*
 * sockfleet [-n NETNS] IPV4ADDR PORT N ROUNDS INTERVAL_MS (cgroup DIR | mark FIRST | none -):
 * N UDP sockets of network namespace NETNS (ip netns's name; its own if
 * none), each its own aggregate for bpf_hbm: socket i (1..N)
 * created in cgroup DIR/ci (the process moves there first, and stays in
 * the last one), or marked FIRST + i - 1; with none, only its own port,
 * as any user may. Then ROUNDS rounds (0: until
 * killed), INTERVAL_MS apart, of one 64-byte datagram from each socket.
 * One process instead of N pings: under TCG each process started costs
 * the test VM about a tenth of a second. It enters NETNS itself, where
 * `ip netns exec` would hide the cgroup tree behind a sysfs of its own.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Move this process into cgroup directory dir. */
static int enter_cgroup(const char *dir)
{
	char path[4096 + sizeof("/cgroup.procs")];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, "0", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

static int open_socket(int i, const char *how, const char *arg)
{
	char dir[4096];
	int fd, mark;

	if (!strcmp(how, "cgroup")) {
		snprintf(dir, sizeof(dir), "%s/c%d", arg, i);
		if (enter_cgroup(dir)) {
			fprintf(stderr, "sockfleet: cannot enter %s: %s\n", dir, strerror(errno));
			return -1;
		}
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("sockfleet: socket");
		return -1;
	}
	if (!strcmp(how, "mark")) {
		mark = atoi(arg) + i - 1;
		if (setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark))) {
			perror("sockfleet: SO_MARK");
			return -1;
		}
	}
	return fd;
}

int main(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	char buf[64] = { 0 }, ns[4096];
	long n, rounds, interval;
	int *fds, fd;

	if (argc > 2 && !strcmp(argv[1], "-n")) {
		snprintf(ns, sizeof(ns), "/run/netns/%s", argv[2]);
		fd = open(ns, O_RDONLY);
		if (fd < 0 || setns(fd, CLONE_NEWNET)) {
			fprintf(stderr, "sockfleet: cannot enter %s: %s\n", ns, strerror(errno));
			return 1;
		}
		close(fd);
		argv += 2;
		argc -= 2;
	}
	if (argc != 8 || inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1 ||
	    (strcmp(argv[6], "cgroup") && strcmp(argv[6], "mark") && strcmp(argv[6], "none"))) {
		fprintf(stderr, "usage: sockfleet [-n NETNS] IPV4ADDR PORT N ROUNDS INTERVAL_MS (cgroup DIR | mark FIRST | none -)\n");
		return 2;
	}
	dst.sin_port = htons(atoi(argv[2]));
	n = strtol(argv[3], NULL, 10);
	rounds = strtol(argv[4], NULL, 10);
	interval = strtol(argv[5], NULL, 10);
	fds = calloc(n > 0 ? n : 1, sizeof(*fds));
	if (n < 1 || rounds < 0 || interval < 0 || !fds) {
		fprintf(stderr, "sockfleet: N must be at least 1, ROUNDS and INTERVAL_MS not negative\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		fds[i] = open_socket(i + 1, argv[6], argv[7]);
		if (fds[i] < 0)
			return 1;
	}
	for (long r = 0; !rounds || r < rounds; r++) {
		if (r)
			usleep(interval * 1000);
		/* A qdisc's drop (ENOBUFS) is no reason to stop. */
		for (long i = 0; i < n; i++)
			sendto(fds[i], buf, sizeof(buf), 0, (struct sockaddr *)&dst, sizeof(dst));
	}
	return 0;
}
