// SPDX-License-Identifier: GPL-2.0
/* What bpfqdisc's commands share: dispatch, help, options, tc's words for a place. */
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"

/* Whether argv asks for help: -h or --help anywhere, or help first. */
static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") ||
		    (i == 1 && !strcmp(argv[i], "help")))
			return true;
	return false;
}

int cmd_select(const struct cmd *cmds, int argc, char **argv, const char *what, const char *hint)
{
	if (argc < 1)
		return cmds[0].fn(argc, argv);
	for (const struct cmd *c = cmds; c->name; c++) {
		if (strcmp(argv[0], c->name))
			continue;
		if (!c->help || !wants_help(argc, argv))
			return c->fn(argc, argv);
		/* The command's lines of bpfqdisc --help, under "Usage:". */
		printf("Usage: bpfqdisc [-n NETNS]\n%s", c->help);
		return 0;
	}
	return bq_invalid("unknown %s '%s' (%s)", what, argv[0], hint);
}

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *opts, int *li,
	       const char *unknown)
{
	int c;

	opterr = 0;
	c = getopt_long(argc, argv, shortopts, opts, li);
	if (c == ':')
		return bq_invalid("%s needs a value", argv[optind - 1]);
	if (c == '?')
		return bq_invalid("%s '%s'", unknown, argv[optind - 1]);
	return c;
}

int parse_place(int argc, char **argv, int *i, struct place *p)
{
	const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;

	if (!strcmp(a, "root")) {
		p->parent = TC_H_ROOT;
		*i += 1;
		return 1;
	}
	if (strcmp(a, "dev") && strcmp(a, "parent") && strcmp(a, "handle"))
		return 0;
	if (!v)
		return bq_invalid("'%s' needs a value", a);
	if (a[0] == 'd')
		p->dev = v;
	else if (bq_parse_handle(v, a[0] == 'p' ? &p->parent : &p->handle))
		return bq_invalid("bad handle '%s' (expected MAJOR:[MINOR] in hex)", v);
	*i += 2;
	return 1;
}

int place_ifindex(const struct place *p, int *ifindex)
{
	if (!p->dev)
		return bq_invalid("%s", "which device? (dev DEV)");
	*ifindex = if_nametoindex(p->dev);
	if (!*ifindex)
		return bq_invalid("no such device '%s'", p->dev);
	return 0;
}

const char *handle_str(__u32 h, char *buf, size_t len)
{
	if (h == TC_H_ROOT)
		snprintf(buf, len, "root");
	else if (h & 0xffff)
		snprintf(buf, len, "%x:%x", h >> 16, h & 0xffff);
	else
		snprintf(buf, len, "%x:", h >> 16);
	return buf;
}
