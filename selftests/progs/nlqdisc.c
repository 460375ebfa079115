// SPDX-License-Identifier: GPL-2.0
/*
 * nlqdisc [-r] DEV KIND PAYLOAD [I=V]...: one raw RTM_NEWQDISC (create,
 * excl; with -r create, replace: onto a root of the same kind, the
 * kernel's change) of KIND as DEV's root, with the TCA_OPTIONS PAYLOAD
 * says, as any user with a netlink socket could send it, without
 * bpfqdisc's checks:
 *	none	no TCA_OPTIONS at all (tc without options)
 *	empty	TCA_OPTIONS of length 0
 *	valid	a struct bq_options giving v[I] = V for each I=V (bit I set)
 *	short	the same, 8 bytes short
 *	long	the same, 8 bytes more
 *	magic	the same, with another magic
 *	garbage	61 bytes of noise
 * Exits 0 when the kernel created the qdisc, else with its errno (22:
 * EINVAL, 34: ERANGE), and 100 for a usage error.
 */
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include "lib.h"

#define USAGE_EXIT	100

static int usage(const char *why)
{
	fprintf(stderr, "nlqdisc: %s\nusage: nlqdisc [-r] DEV KIND none|empty|valid|short|long|magic|garbage [I=V]...\n",
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
	unsigned char opts[200];
	char msg[256];
	int ifindex, len = 0, err;
	bool replace = argc > 1 && !strcmp(argv[1], "-r");

	argc -= replace;
	argv += replace;
	if (argc < 4)
		return usage("too few arguments");
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex)
		return usage("no such device");
	if (strcmp(argv[3], "none") && strcmp(argv[3], "empty")) {
		len = build(argv[3], argc - 4, argv + 4, opts, sizeof(opts));
		if (len < 0)
			return usage("bad payload or I=V");
	}
	err = -bq_nl_qdisc_new(ifindex, TC_H_ROOT, 0, argv[2], replace,
			       strcmp(argv[3], "none") ? opts : NULL, len, msg, sizeof(msg));
	printf("%s %s %s: %s\n", argv[1], argv[2], argv[3], err ? strerror(err) : "created");
	return err;
}
