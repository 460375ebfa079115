// SPDX-License-Identifier: GPL-2.0
/*
 * nlqdisc DEV KIND PAYLOAD [I=V]...: one raw RTM_NEWQDISC (create, excl)
 * of KIND as DEV's root, with the TCA_OPTIONS PAYLOAD says, as any user
 * with a netlink socket could send it, without bpfqdisc's checks:
 *	none	no TCA_OPTIONS at all (tc without options)
 *	empty	TCA_OPTIONS of length 0
 *	valid	a struct bq_options giving v[I] = V for each I=V (bit I set)
 *	short	the same, 8 bytes short
 *	long	the same, 8 bytes more
 *	magic	the same, with another magic
 *	garbage	61 bytes of noise
 * Exits 0 when the kernel created the qdisc, else with its errno (22:
 * EINVAL, 34: ERANGE), and 100 for a usage or socket error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/types.h>
#include "bpfqdisc.h"

#define USAGE_EXIT	100

struct req {
	struct nlmsghdr nh;
	struct tcmsg tc;
	char attrs[512];
};

static void add_attr(struct nlmsghdr *nh, unsigned short type, const void *data, size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

static int usage(const char *why)
{
	fprintf(stderr, "nlqdisc: %s\nusage: nlqdisc DEV KIND none|empty|valid|short|long|magic|garbage [I=V]...\n",
		why);
	return USAGE_EXIT;
}

/* The options of payload kind what, in buf; their length, or -1. */
static int build(const char *what, int argc, char **argv, unsigned char *buf, size_t cap)
{
	struct bq_options o = { .magic = BQ_OPT_MAGIC };
	size_t len = sizeof(o);

	for (int i = 0; i < argc; i++) {
		unsigned int idx;
		unsigned long long v;

		if (sscanf(argv[i], "%u=%llu", &idx, &v) != 2 || idx >= 32)
			return -1;
		o.given |= 1U << idx;
		if (idx < BQ_MAX_PARAMS)
			o.v[idx] = v;
	}
	if (!strcmp(what, "garbage")) {
		len = 61;
		for (size_t i = 0; i < len; i++)
			buf[i] = (unsigned char)(i * 151 + 17);
		return len;
	}
	if (!strcmp(what, "short"))
		len -= 8;
	else if (!strcmp(what, "long"))
		len += 8;
	else if (!strcmp(what, "magic"))
		o.magic ^= 1;
	else if (strcmp(what, "valid"))
		return -1;
	if (len > cap)
		return -1;
	memset(buf, 0xa5, len);
	memcpy(buf, &o, len < sizeof(o) ? len : sizeof(o));
	return len;
}

int main(int argc, char **argv)
{
	struct req r = {
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)),
		.nh.nlmsg_type = RTM_NEWQDISC,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
		.tc.tcm_family = AF_UNSPEC,
		.tc.tcm_parent = TC_H_ROOT,
	};
	unsigned char opts[256];
	char reply[4096];
	struct nlmsghdr *nh = (struct nlmsghdr *)reply;
	int fd, len = 0, err;
	ssize_t n;

	if (argc < 4)
		return usage("too few arguments");
	r.tc.tcm_ifindex = if_nametoindex(argv[1]);
	if (!r.tc.tcm_ifindex)
		return usage("no such device");
	add_attr(&r.nh, TCA_KIND, argv[2], strlen(argv[2]) + 1);
	if (strcmp(argv[3], "none")) {
		len = strcmp(argv[3], "empty") ? build(argv[3], argc - 4, argv + 4, opts, sizeof(opts)) : 0;
		if (len < 0)
			return usage("bad payload or I=V");
		add_attr(&r.nh, TCA_OPTIONS, opts, len);
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0 || send(fd, &r, r.nh.nlmsg_len, 0) < 0) {
		perror("nlqdisc");
		return USAGE_EXIT;
	}
	n = recv(fd, reply, sizeof(reply), 0);
	close(fd);
	if (n < 0 || !NLMSG_OK(nh, (size_t)n) || nh->nlmsg_type != NLMSG_ERROR)
		return usage("no answer from the kernel");
	err = -((struct nlmsgerr *)NLMSG_DATA(nh))->error;
	printf("%s %s %s: %s\n", argv[1], argv[2], argv[3], err ? strerror(err) : "created");
	return err;
}
