// SPDX-License-Identifier: GPL-2.0
/* bpfqdisc qdisc add|replace|change|show: tc's syntax, with parameters. */
#include <stdio.h>
#include <string.h>
#include "cli.h"

const char qdisc_help[] =
	"  qdisc add|replace dev DEV [root | parent X:Y] [handle X:] KIND [PARAM VALUE]...\n"
	"      Create a qdisc as tc would, with its parameters applied from its first\n"
	"      packet on. replace on a qdisc of the same kind changes its parameters.\n"
	"  qdisc change dev DEV [root | parent X:Y | handle X:] PARAM VALUE...\n"
	"      Change parameters of a live qdisc; the next packets see them.\n"
	"  qdisc show [dev DEV] [-s] [-j]\n"
	"      Every qdisc, as tc shows it, with BPF qdiscs' parameters and counters.\n"
	;

/* dev DEV [root | parent X:Y] [handle X:] [KIND] [PARAM VALUE]... */
static int parse_req(int argc, char **argv, struct bq_qdisc_req *r, bool need_kind)
{
	struct place p = { .parent = TC_H_ROOT };
	int i = 0, took = 0;

	memset(r, 0, sizeof(*r));
	while (i < argc && (took = parse_place(argc, argv, &i, &p)) > 0)
		;
	if (took < 0)
		return took;
	if (i < argc && (r->kind = bq_kind_find(argv[i])))
		i++;
	else if (i < argc && need_kind)
		return bq_kind_lookup(argv[i], &r->kind);
	r->dev = p.dev;
	r->parent = p.parent;
	r->handle = p.handle;
	if (!r->dev)
		return bq_invalid("%s", "which device? (dev DEV)");
	if (need_kind && !r->kind)
		return bq_invalid("%s", "which qdisc? (e.g. bpf_fifo)");
	r->nparams = argc - i;
	r->params = argv + i;
	return place_ifindex(&p, &r->ifindex);
}

/* add, replace, change: argv[0] is the verb. */
static int write_qdisc(int argc, char **argv)
{
	bool change = !strcmp(argv[0], "change");
	struct bq_qdisc_req r;
	int err = parse_req(argc - 1, argv + 1, &r, !change);

	if (err)
		return err;
	if (change && !r.nparams)
		return bq_invalid("%s", "nothing to change: give PARAM VALUE pairs");
	err = bq_prepare(BQ_NEED_LOAD) ?: (r.kind ? bq_require_loaded(r.kind) : 0);
	if (err)
		return err;
	if (change)
		return bq_qdisc_change_req(&r);
	return bq_qdisc_create(&r, !strcmp(argv[0], "replace"));
}

int do_qdisc(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "show", do_qdisc_show, NULL }, { "list", do_qdisc_show, NULL },
		{ "ls", do_qdisc_show, NULL }, { "add", write_qdisc, NULL },
		{ "replace", write_qdisc, NULL }, { "change", write_qdisc, NULL },
		{ NULL },
	};

	return cmd_select(cmds, argc - 1, argv + 1, "qdisc command", "add, replace, change, show");
}
