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
#include "lib.h"

/* dev DEV [root | parent X:Y | handle X:] [SELECTOR VALUE] [FIELD VALUE ...] [-j] */
static int parse_args(int argc, char **argv, struct bq_class_req *r)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int err;

		if (!strcmp(a, "root")) {
			r->parent = TC_H_ROOT;
			continue;
		}
		if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			r->json = true;
			continue;
		}
		if (strcmp(a, "dev") && strcmp(a, "parent") && strcmp(a, "handle")) {
			err = bq_class_arg(r, a, v);
			if (err)
				return err;
		} else if (!v) {
			return bq_invalid("'%s' needs a value", a);
		} else if (a[0] == 'd') {
			r->dev = v;
		} else if (bq_parse_handle(v, a[0] == 'p' ? &r->parent : &r->handle)) {
			return bq_invalid("bad handle '%s' (expected MAJOR:[MINOR] in hex)", v);
		}
		i++;
	}
	return bq_class_place(r);
}

static void show_json(const struct bq_class_req *r, const struct bq_class_row *a)
{
	const struct bq_kind_classes *cl = r->cl;

	printf("{\"dev\":");
	bq_json_str(stdout, r->dev);
	printf(",\"%s\":", bq_class_selectors[r->by]);
	bq_json_str(stdout, a->name);
	printf(",\"id\":%llu", (unsigned long long)a->id);
	for (size_t i = 0; i < cl->nfields; i++)
		printf(",\"%s\":%llu", cl->fields[i].name, (unsigned long long)a->val[i]);
	printf(",\"class\":%s", a->class ? "true" : "false");
	for (size_t i = 0; i < cl->ncounters; i++)
		printf(",\"%s\":%llu", cl->counters[i].name, (unsigned long long)a->cnt[i]);
	printf("}");
}

static void show_text(const struct bq_class_req *r, const struct bq_class_row *a)
{
	const struct bq_kind_classes *cl = r->cl;
	char buf[32], shown[BQ_TEXT_LEN(sizeof(a->name))];

	printf("%s %s", bq_class_selectors[r->by], bq_text_str(a->name, shown, sizeof(shown)));
	for (size_t i = 0; i < cl->nfields; i++) {
		const struct bq_class_field *f = &cl->fields[i];

		printf(" %s %s", f->name, !a->val[i] && f->zero[0] ? f->zero :
		       bq_format_value(f->unit, a->val[i], buf, sizeof(buf)));
	}
	printf("%s", a->class ? "" : " (default)");
	for (size_t i = 0; i < cl->ncounters; i++)
		printf(" %s %llu", cl->counters[i].name, (unsigned long long)a->cnt[i]);
	printf("\n");
}

static int show(struct bq_class_req *r)
{
	struct bq_class_row *v;
	size_t n;
	int err = bq_class_rows(r, &v, &n);

	if (err)
		return err;
	if (r->json)
		printf("[");
	for (size_t i = 0; i < n; i++) {
		if (r->json) {
			printf("%s", i ? "," : "");
			show_json(r, &v[i]);
		} else {
			show_text(r, &v[i]);
		}
	}
	if (r->json)
		printf("]\n");
	free(v);
	return 0;
}

int bq_cmd_class(int argc, char **argv)
{
	struct bq_class_req r;
	int err;

	bq_class_init(&r, argc > 1 ? argv[1] : "show");
	if (!strcmp(r.verb, "list") || !strcmp(r.verb, "ls"))
		r.verb = "show";
	if (strcmp(r.verb, "add") && strcmp(r.verb, "change") && strcmp(r.verb, "del") &&
	    strcmp(r.verb, "show"))
		return bq_invalid("unknown class command '%s' (add, change, del, show)", r.verb);
	err = parse_args(argc - 2, argv + 2, &r) ?:
	      (r.json && strcmp(r.verb, "show") ? bq_invalid("%s", "-j is for class show") : 0) ?:
	      bq_class_check(&r) ?: bq_prepare(bq_class_needs(&r)) ?: bq_class_find_qdisc(&r);
	if (!err)
		err = strcmp(r.verb, "show") ? bq_class_write(&r) : show(&r);
	bq_class_close(&r);
	return err;
}
