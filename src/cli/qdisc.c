// SPDX-License-Identifier: GPL-2.0
/* bpfqdisc qdisc add|replace|change|show: tc's syntax, with parameters. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include "lib.h"

/* dev DEV [root | parent X:Y] [handle X:] [KIND] [PARAM VALUE]... */
static int parse_req(int argc, char **argv, struct bq_qdisc_req *r, bool need_kind)
{
	int i;

	memset(r, 0, sizeof(*r));
	r->parent = TC_H_ROOT;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "root")) {
			r->parent = TC_H_ROOT;
		} else if (!strcmp(a, "dev") || !strcmp(a, "parent") || !strcmp(a, "handle")) {
			if (!v)
				return bq_invalid("'%s' needs a value", a);
			if (a[0] == 'd')
				r->dev = v;
			else if (bq_parse_handle(v, a[0] == 'p' ? &r->parent : &r->handle))
				return bq_invalid("bad handle '%s' (expected MAJOR:[MINOR] in hex)", v);
			i++;
		} else if ((r->kind = bq_kind_find(a))) {
			i++;
			break;
		} else if (need_kind) {
			char names[256];

			bq_err("unknown qdisc '%s' (known: %s)", a, bq_kind_names(names, sizeof(names)));
			return BQ_EXIT_USAGE;
		} else {
			break;	/* parameters follow */
		}
	}
	if (!r->dev)
		return bq_invalid("%s", "which device? (dev DEV)");
	if (need_kind && !r->kind)
		return bq_invalid("%s", "which qdisc? (e.g. bpf_fifo)");
	r->ifindex = if_nametoindex(r->dev);
	if (!r->ifindex)
		return bq_invalid("no such device '%s'", r->dev);
	r->nparams = argc - i;
	r->params = argv + i;
	return 0;
}

int bq_cmd_qdisc(int argc, char **argv)
{
	const char *verb = argc > 1 ? argv[1] : "show";
	struct bq_qdisc_req r;
	int err;

	if (!strcmp(verb, "show") || !strcmp(verb, "list") || !strcmp(verb, "ls"))
		return bq_cmd_qdisc_show(argc - 1, argv + 1);
	if (strcmp(verb, "add") && strcmp(verb, "replace") && strcmp(verb, "change")) {
		bq_err("unknown qdisc command '%s' (add, replace, change, show)", verb);
		return BQ_EXIT_USAGE;
	}
	err = parse_req(argc - 2, argv + 2, &r, verb[0] != 'c');
	if (err)
		return err;
	if (verb[0] == 'c' && !r.nparams)
		return bq_invalid("%s", "nothing to change: give PARAM VALUE pairs");
	err = bq_prepare(BQ_NEED_LOAD) ?: (r.kind ? bq_require_loaded(r.kind) : 0);
	if (err)
		return err;
	if (verb[0] == 'c')
		return bq_qdisc_change_req(&r);
	return bq_qdisc_create(&r, verb[0] == 'r');
}
