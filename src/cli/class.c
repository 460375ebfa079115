// SPDX-License-Identifier: GPL-2.0
/*
 * bpfqdisc class add|change|del|show: settings per aggregate, for kinds that
 * declare classes (the library's class.c says how they are kept). The
 * arguments are checked before the qdisc is looked up (and before
 * privileges are, but for a word no kind in sight has as a field), against
 * every registered kind with classes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

const char class_help[] =
	"  class add|change dev DEV [root | handle X:] cgroup PATH | mark N | priority N\n"
	"        FIELD VALUE... (bpf_hbm: rate RATE)\n"
	"      A class, for kinds that declare them: bpf_hbm's is a rate for one\n"
	"      aggregate (by what its classify parameter says: 0 cgroup, 1 mark,\n"
	"      2 priority); others get its rate.\n"
	"  class del dev DEV [root | handle X:] cgroup PATH | mark N | priority N\n"
	"  class show dev DEV [root | handle X:] [-j]\n"
	"      The aggregates a qdisc with classes has seen, their fields and counters.\n"
	;

/* dev DEV [root | parent X:Y | handle X:] [SELECTOR VALUE] [FIELD VALUE ...] [-j] */
static int parse_args(int argc, char **argv, struct bq_class_req *r)
{
	struct place p = { .parent = TC_H_ROOT };

	for (int i = 0; i < argc;) {
		int took = parse_place(argc, argv, &i, &p);

		if (took < 0)
			return took;
		if (took)
			continue;
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json")) {
			r->json = true;
			i++;
			continue;
		}
		took = bq_class_arg(r, argv[i], i + 1 < argc ? argv[i + 1] : NULL);
		if (took)
			return took;
		i += 2;
	}
	r->dev = p.dev;
	r->parent = p.parent;
	r->handle = p.handle;
	return bq_class_place(r);
}

/* One aggregate: "SELECTOR NAME FIELD VALUE... [(default)] COUNTER N..." or a JSON object. */
static void show_row(const struct bq_class_req *r, const struct bq_class_row *a)
{
	const struct bq_kind_classes *cl = r->cl;

	print_string(PRINT_JSON, "dev", NULL, r->dev);
	print_named_string("%s %s", bq_class_selectors[r->by], a->name);
	print_uint(PRINT_JSON, "id", NULL, a->id);
	for (size_t i = 0; i < cl->nfields; i++)
		print_value(" %s %s", cl->fields[i].name, cl->fields[i].unit, a->val[i],
			    cl->fields[i].zero);
	print_bool(PRINT_ANY, "class", " (default)", "", a->class);
	for (size_t i = 0; i < cl->ncounters; i++)
		print_named_uint(" %s %llu", cl->counters[i].name, a->cnt[i]);
	print_nl();
}

static int show(struct bq_class_req *r)
{
	struct bq_class_row *v;
	size_t n;
	int err = bq_class_rows(r, &v, &n);

	if (err)
		return err;
	print_set_json(r->json);
	open_json_array(NULL);
	for (size_t i = 0; i < n; i++) {
		open_json_object(NULL);
		show_row(r, &v[i]);
		close_json_object();
	}
	close_json_array();
	free(v);
	return 0;
}

/* add, change, del, show: argv[0] is the verb. */
static int run(int argc, char **argv)
{
	struct bq_class_req r;
	int err;

	bq_class_init(&r, strcmp(argv[0], "list") && strcmp(argv[0], "ls") ? argv[0] : "show");
	err = parse_args(argc - 1, argv + 1, &r) ?:
	      (r.json && strcmp(r.verb, "show") ? bq_invalid("%s", "-j is for class show") : 0) ?:
	      bq_class_check(&r) ?: bq_prepare(bq_class_needs(&r)) ?: bq_class_find_qdisc(&r);
	if (!err)
		err = strcmp(r.verb, "show") ? bq_class_write(&r) : show(&r);
	bq_class_close(&r);
	return err;
}

/* No verb: show, with no device, which says what it needs. */
static int show_none(int argc, char **argv)
{
	char *show[] = { "show" };

	return run(1, show);
}

int do_class(int argc, char **argv)
{
	static const struct cmd cmds[] = {
		{ "", show_none, NULL },
		{ "show", run, NULL }, { "list", run, NULL }, { "ls", run, NULL },
		{ "add", run, NULL }, { "change", run, NULL }, { "del", run, NULL },
		{ NULL },
	};

	return cmd_select(cmds, argc - 1, argv + 1, "class command", "add, change, del, show");
}
