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
#include <unistd.h>
#include <net/if.h>
#include "lib.h"

static enum bq_need verb_needs(const struct bq_class_req *r)
{
	return strcmp(r->verb, "show") ? BQ_NEED_LOAD : BQ_NEED_READ;
}

/* dev DEV [root | parent X:Y | handle X:] [SELECTOR VALUE] [FIELD VALUE ...] [-j] */
static int parse_args(int argc, char **argv, struct bq_class_req *r)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool field = false;
		int by = -1;

		for (size_t s = 0; s < BQ_BY_KEYS; s++)
			if (!strcmp(a, bq_class_selectors[s]))
				by = s;
		if (!strcmp(a, "root")) {
			r->parent = TC_H_ROOT;
			continue;
		}
		if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			r->json = true;
			continue;
		}
		if (by < 0 && strcmp(a, "dev") && strcmp(a, "parent") && strcmp(a, "handle")) {
			/* Without privilege the kinds loaded from files are unseen: a
			 * field of theirs would be called unknown. */
			if (!bq_class_known_field(a))
				return bq_check_caps(verb_needs(r)) ?: bq_invalid("unknown argument '%s'", a);
			field = true;
		}
		if (!v)
			return bq_invalid("'%s' needs a value", a);
		i++;
		if (by >= 0) {
			r->by = by;
			r->what = v;
		} else if (field) {
			if (r->nwords == BQ_MAX_CLASS_FIELDS)
				return bq_invalid("%s", "too many fields");
			r->word[r->nwords] = a;
			r->text[r->nwords++] = v;
		} else if (a[0] == 'd') {
			r->dev = v;
		} else if (bq_parse_handle(v, a[0] == 'p' ? &r->parent : &r->handle)) {
			return bq_invalid("bad handle '%s' (expected MAJOR:[MINOR] in hex)", v);
		}
	}
	if (!r->dev)
		return bq_invalid("%s", "which device? (dev DEV)");
	r->ifindex = if_nametoindex(r->dev);
	if (!r->ifindex)
		return bq_invalid("no such device '%s'", r->dev);
	return 0;
}

/* What each verb needs, checked before anything is touched. */
static int check_args(struct bq_class_req *r)
{
	bool show = !strcmp(r->verb, "show"), del = !strcmp(r->verb, "del");

	if (show && (r->by >= 0 || r->nwords))
		return bq_invalid("%s", "class show takes dev, root, parent, handle and -j only");
	if (!show && r->by < 0)
		return bq_invalid("%s", "which aggregate? (cgroup PATH, mark N or priority N)");
	if (del && r->nwords)
		return bq_invalid("class del takes no %s", r->word[0]);
	if (r->json && !show)
		return bq_invalid("%s", "-j is for class show");
	return bq_class_check_fields(r) ?: (r->by >= 0 ? bq_class_parse_selector(r) : 0);
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
	struct bq_class_req r = { .verb = argc > 1 ? argv[1] : "show", .parent = TC_H_ROOT, .by = -1,
			       .classes = -1, .aggs = -1 };
	int err;

	if (!strcmp(r.verb, "list") || !strcmp(r.verb, "ls"))
		r.verb = "show";
	if (strcmp(r.verb, "add") && strcmp(r.verb, "change") && strcmp(r.verb, "del") &&
	    strcmp(r.verb, "show"))
		return bq_invalid("unknown class command '%s' (add, change, del, show)", r.verb);
	err = parse_args(argc - 2, argv + 2, &r) ?: check_args(&r) ?:
	      bq_check_caps(verb_needs(&r)) ?:
	      bq_check_kernel() ?: bq_ensure_bpffs() ?: bq_class_find_qdisc(&r);
	if (!err)
		err = strcmp(r.verb, "show") ? bq_class_write(&r) : show(&r);
	if (r.classes >= 0)
		close(r.classes);
	if (r.aggs >= 0)
		close(r.aggs);
	return err;
}
