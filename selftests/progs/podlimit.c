// SPDX-License-Identifier: GPL-2.0
/*
 * podlimit: what pod_police (bpf/pod_police.bpf.c) counts for a pod, for
 * the tests, from the pinned map pod_limits that the CNI plugin writes: one
 * entry per pod's host-side veth DEV, keyed by this netns's cookie and
 * DEV's ifindex.
 *
 *   podlimit MAP get DEV              rate burst pkts bytes drops drop_bytes
 *
 * Raw bpf(2) calls: the generic selftests/progs rule links no libbpf.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/types.h>
#include "pod_police.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static __u64 netns_cookie(void)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	__u64 cookie = 0;
	socklen_t len = sizeof(cookie);

	if (s < 0 || getsockopt(s, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len))
		cookie = 0;
	if (s >= 0)
		close(s);
	return cookie;
}

static int usage(void)
{
	fprintf(stderr, "usage: podlimit MAP get DEV\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct pod_police_key key = {};
	struct pod_police val = {};
	union bpf_attr a = {};
	int fd, err;

	if (argc < 4)
		return usage();
	a.pathname = (__u64)(unsigned long)argv[1];
	fd = sys_bpf(BPF_OBJ_GET, &a);
	if (fd < 0) {
		fprintf(stderr, "podlimit: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	key.netns_cookie = netns_cookie();
	key.ifindex = if_nametoindex(argv[3]);
	if (!key.netns_cookie || !key.ifindex) {
		fprintf(stderr, "podlimit: no device %s here\n", argv[3]);
		return 1;
	}
	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (__u64)(unsigned long)&key;
	a.value = (__u64)(unsigned long)&val;
	if (!strcmp(argv[2], "get") && argc == 4) {
		err = sys_bpf(BPF_MAP_LOOKUP_ELEM, &a);
		if (!err)
			printf("%llu %llu %llu %llu %llu %llu\n", (unsigned long long)val.rate * 8,
			       (unsigned long long)val.burst, (unsigned long long)val.pkts,
			       (unsigned long long)val.bytes, (unsigned long long)val.drops,
			       (unsigned long long)val.drop_bytes);
	} else {
		return usage();
	}
	if (err) {
		fprintf(stderr, "podlimit: %s %s: %s\n", argv[2], argv[3], strerror(errno));
		return 1;
	}
	return 0;
}
