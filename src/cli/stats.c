// SPDX-License-Identifier: GPL-2.0
/*
 * bpfqdisc qdisc show / bpfqdisc stats: the kernel's view of each qdisc
 * (rtnetlink: kind, handle, bstats, qstats) joined with the BPF instance's
 * parameters and counters, as text, JSON (like tc -j) or Prometheus text.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include "cli.h"

const char stats_help[] =
	"  stats [dev DEV] [-j | --prometheus] [--interval N]\n"
	"      The BPF qdiscs' stats: tc's and their own (drops by reason, marks...).\n"
	"      --prometheus writes the text format for node_exporter's textfile collector.\n"
	;

enum fmt { FMT_TEXT, FMT_JSON, FMT_PROM };

struct opts {
	int ifindex;
	bool stats, ours_only;
	enum fmt fmt;
	unsigned interval;
};


/* One qdisc, as tc -s shows it with the BPF instance's parameters and counters, or tc -j. */
static void print_qdisc(const struct bq_qdisc_view *v, bool stats)
{
	const struct bq_counters *c = &v->inst.cnt;
	char h[16], p[16];

	print_string(PRINT_ANY, "kind", "qdisc %s", v->tc.kind);
	print_string(PRINT_ANY, "handle", " %s", handle_str(v->tc.handle, h, sizeof(h)));
	/* parent: JSON has it before dev, text after it (as tc), and "root" bare. */
	print_string(PRINT_JSON, "parent", NULL, handle_str(v->tc.parent, p, sizeof(p)));
	print_string(PRINT_ANY, "dev", " dev %s", v->tc.dev);
	print_string(PRINT_TEXT, NULL, v->tc.parent == TC_H_ROOT ? " %s" : " parent %s", p);
	print_uint(PRINT_JSON, "ifindex", NULL, v->tc.ifindex);
	print_uint(PRINT_JSON, "netns", NULL, v->netns);
	if (v->kind) {
		open_json_object("options");
		print_params(&v->set, &v->set.val);
		close_json_object();
	}
	print_nl();
	if (!stats)
		return;
	print_uint(PRINT_ANY, "bytes", " Sent %llu bytes", v->tc.bytes);
	print_uint(PRINT_ANY, "packets", " %llu pkt", v->tc.packets);
	print_uint(PRINT_ANY, "drops", " (dropped %llu", v->tc.drops);
	print_uint(PRINT_ANY, "overlimits", ", overlimits %llu", v->tc.overlimits);
	print_uint(PRINT_ANY, "requeues", " requeues %llu)\n", v->tc.requeues);
	print_uint(PRINT_ANY, "backlog", " backlog %llub", v->tc.backlog);
	print_uint(PRINT_ANY, "qlen", " %llup", v->tc.qlen);
	print_uint(PRINT_TEXT, NULL, " requeues %llu\n", v->tc.requeues);	/* tc says it twice */
	if (!v->kind)
		return;
	open_json_object("bpf");
	print_uint(PRINT_ANY, "enqueued", " enqueued %llu", c->enqueued);
	print_uint(PRINT_ANY, "dequeued", " dequeued %llu", c->dequeued);
	print_uint(PRINT_JSON, "dequeued_bytes", NULL, c->dequeued_bytes);
	print_uint(PRINT_ANY, "marks", " marks %llu", c->marks);
	print_uint(PRINT_ANY, "throttled", " throttled %llu", c->overlimits);
	print_uint(PRINT_ANY, "resets", " resets %llu", c->resets);
	if (v->memory)
		print_uint(PRINT_ANY, "memory_bytes", " memory %llub", v->memory);
	print_nl();
	print_string(PRINT_TEXT, NULL, " drops", NULL);
	open_json_object("drops");
	for (size_t i = 0; i < v->meta->ndrops; i++)
		print_named_uint(" %s %llu", v->meta->drops[i].name, c->drops[i]);
	close_json_object();
	print_nl();
	for (size_t i = 0; i < v->meta->nxstats; i++)
		print_named_uint(" %s %llu", v->meta->xstats[i].name, c->x[i]);
	if (v->meta->nxstats)
		print_nl();
	close_json_object();
}

/*
 * One Prometheus sample, of val / per_unit. Its labels identify the qdisc:
 * netns, ifindex, parent and handle (mq's default children all have
 * handle 0), besides dev and kind; then extra's, then pod's: those of the
 * pod the qdisc is for ("" if none, pod_labels()).
 */
static void prom_scaled(const struct bq_qdisc_view *v, const char *pod, const char *name,
			const char *extra, __u64 val, unsigned long long per_unit)
{
	char h[16], p[16];

	handle_str(v->tc.handle, h, sizeof(h));
	handle_str(v->tc.parent, p, sizeof(p));
	printf("bpfqdisc_%s{dev=", name);
	bq_prom_label(stdout, v->tc.dev);
	printf(",kind=");
	bq_prom_label(stdout, v->tc.kind);
	printf(",netns=\"%llu\",ifindex=\"%d\",parent=\"%s\",handle=\"%s\"%s%s} %llu",
	       (unsigned long long)v->netns, v->tc.ifindex, p, h, extra, pod,
	       (unsigned long long)(val / per_unit));
	if (per_unit == 1000000000)
		printf(".%09llu", (unsigned long long)(val % per_unit));
	printf("\n");
}

static void prom(const struct bq_qdisc_view *v, const char *pod, const char *name,
		 const char *extra, __u64 val)
{
	prom_scaled(v, pod, name, extra, val, 1);
}

/* A kind's own statistics, as bpfqdisc_<kind>_<name> in base units (bq_prom_xstat_name()). */
static void print_prom_xstats(const struct bq_kind *k, const struct bq_qdisc_view *v,
			      char *const *pod, size_t n)
{
	const struct bq_kind_meta *meta = bq_kind_meta(k);
	char name[64];

	for (size_t x = 0; meta && x < meta->nxstats; x++) {
		bool counter = meta->xstats[x].type == BQ_COUNTER;
		unsigned long long per_unit = bq_prom_xstat_name(k, &meta->xstats[x], name, sizeof(name));
		bool any = false;

		for (size_t i = 0; i < n; i++) {
			if (v[i].kind != k)
				continue;
			if (!any)
				printf("# HELP bpfqdisc_%s %s's %s.\n# TYPE bpfqdisc_%s %s\n", name,
				       k->kind, meta->xstats[x].name, name, counter ? "counter" : "gauge");
			any = true;
			prom_scaled(&v[i], pod[i], name, "", v[i].inst.cnt.x[x], per_unit);
		}
	}
}

/* What each loaded kind's maps hold, with or without qdiscs (bq_kind_memory()). */
static void print_prom_kinds(void)
{
	struct bq_kind_memory m;

	printf("# HELP bpfqdisc_kind_memory_bytes Bytes of the kind's BPF maps (memlock) and arena pages, its qdiscs' included.\n"
	       "# TYPE bpfqdisc_kind_memory_bytes gauge\n");
	for (size_t i = 0; i < bq_nkinds; i++) {
		if (!bq_has_state(&bq_kinds[i]) || bq_kind_memory(&bq_kinds[i], &m))
			continue;
		printf("bpfqdisc_kind_memory_bytes{kind=");
		bq_prom_label(stdout, bq_kinds[i].kind);
		printf("} %llu\n", (unsigned long long)m.bytes);
	}
}

static void print_prom(const struct bq_qdisc_view *v, char *const *pod, size_t n)
{
	char reason[64];

	for (size_t j = 0; j < BQ_NCORE_METRICS; j++) {
		const char *name = bq_core_metrics[j].name;

		printf("# HELP bpfqdisc_%s %s\n# TYPE bpfqdisc_%s %s\n", name, bq_core_metrics[j].help,
		       name, bq_core_metrics[j].type);
		for (size_t i = 0; i < n; i++) {
			const struct bq_counters *c = &v[i].inst.cnt;

			switch (j) {
			case 0: prom(&v[i], pod[i], name, "", v[i].tc.bytes); break;
			case 1: prom(&v[i], pod[i], name, "", v[i].tc.packets); break;
			case 2: prom(&v[i], pod[i], name, "", v[i].tc.backlog); break;
			case 3: prom(&v[i], pod[i], name, "", v[i].tc.qlen); break;
			case 4: prom(&v[i], pod[i], name, "", c->enqueued); break;
			case 5: prom(&v[i], pod[i], name, "", c->dequeued); break;
			case 6:
				for (size_t r = 0; v[i].meta && r < v[i].meta->ndrops; r++) {
					snprintf(reason, sizeof(reason), ",reason=\"%s\"",
						 v[i].meta->drops[r].name);
					prom(&v[i], pod[i], name, reason, c->drops[r]);
				}
				break;
			case 7: prom(&v[i], pod[i], name, "", c->marks); break;
			case 8: prom(&v[i], pod[i], name, "", c->overlimits); break;
			case 9: prom(&v[i], pod[i], name, "", c->resets); break;
			case 10:
				if (v[i].memory)
					prom(&v[i], pod[i], name, "", v[i].memory);
				break;
			}
		}
	}
	for (size_t i = 0; i < bq_nkinds; i++)
		print_prom_xstats(&bq_kinds[i], v, pod, n);
	print_prom_kinds();
}

/* Appends the n views of more to *v (*nv of them). 0 or -ENOMEM. */
static int append_views(struct bq_qdisc_view **v, size_t *nv, const struct bq_qdisc_view *more,
			size_t n)
{
	struct bq_qdisc_view *all = n ? realloc(*v, (*nv + n) * sizeof(**v)) : *v;

	if (!all)
		return -ENOMEM;
	memcpy(all + *nv, more, n * sizeof(*more));
	*v = all;
	*nv += n;
	return 0;
}

/* Whether r's node side (its qdiscs and backstop outside the pod) is in
 * netns here: then the pod's own qdiscs are shown with this netns's. */
static bool node_side_in(const struct bq_pod_record *r, __u64 here)
{
	for (int i = 0; i < r->p.n; i++)
		if (!r->p.q[i].in_pod && r->p.q[i].netns_cookie == here)
			return true;
	return false;
}

/*
 * The qdiscs the pods of recs have in their own netns (their egress), for
 * the pods whose node side is here, appended to *v: each pod's netns
 * entered by its record's path, if it is still the netns of the record. A
 * netns that went is no error; failing to come back is.
 */
static int add_pod_views(const struct bq_pod_record *recs, size_t nrecs,
			 struct bq_qdisc_view **v, size_t *nv)
{
	__u64 here = bq_self_netns_cookie();

	for (size_t i = 0; i < nrecs; i++) {
		const struct bq_pod_record *r = &recs[i];

		if (!node_side_in(r, here))
			continue;
		for (int j = 0; j < r->p.n; j++) {
			const struct bq_pod_qdisc *q = &r->p.q[j];
			struct bq_qdisc_view *pv = NULL;
			size_t pn = 0;
			int back, err;

			if (!q->in_pod || q->netns_cookie == here || access(r->netns, F_OK) ||
			    bq_netns_enter_path(r->netns, &back))
				continue;
			if (bq_self_netns_cookie() == q->netns_cookie &&
			    bq_qdisc_views(q->ifindex, true, &pv, &pn))
				pn = 0;
			err = bq_netns_return(back) ?: append_views(v, nv, pv, pn);
			free(pv);
			if (err)
				return err;
		}
	}
	return 0;
}

/* The labels of the pod each of the n views is for, "" if none (lib.h,
 * "pods"); NULL if out of memory. */
static char **pod_labels(const struct bq_qdisc_view *v, size_t n,
			 const struct bq_pod_record *recs, size_t nrecs)
{
	char **pod = calloc(n ? n : 1, sizeof(*pod));

	for (size_t i = 0; pod && i < n; i++) {
		const struct bq_pod_record *r;
		const struct bq_pod_qdisc *q = bq_pod_qdisc_find(recs, nrecs, v[i].netns, &v[i].tc, &r);
		size_t len;
		FILE *f = open_memstream(&pod[i], &len);

		if (f && q)
			bq_pod_prom_labels(f, r, q);
		if (!f || fclose(f)) {
			for (size_t j = 0; j <= i; j++)
				free(pod[j]);
			free(pod);
			return NULL;
		}
	}
	return pod;
}

/*
 * Prometheus text of the views, of this netns and of the pods' whose node
 * side is here (none with dev DEV), each labelled with its pod if it is
 * one that bpfqdisc-bandwidth made for a pod.
 */
static int show_prom(const struct opts *o, struct bq_qdisc_view **v, size_t *n)
{
	struct bq_pod_record *recs;
	size_t nrecs;
	char **pod;
	int err = bq_pod_records(&recs, &nrecs);

	if (!err && !o->ifindex)
		err = add_pod_views(recs, nrecs, v, n);
	pod = err ? NULL : pod_labels(*v, *n, recs, nrecs);
	free(recs);
	if (!pod)
		return err ?: -ENOMEM;
	print_prom(*v, pod, *n);
	for (size_t i = 0; i < *n; i++)
		free(pod[i]);
	free(pod);
	return 0;
}

static int show_once(const struct opts *o)
{
	struct bq_qdisc_view *v;
	size_t n;
	int err = bq_qdisc_views(o->ifindex, o->ours_only, &v, &n);

	if (err) {
		bq_err("cannot list qdiscs: %s", strerror(-err));
		return BQ_EXIT_FAIL;
	}
	if (o->fmt == FMT_PROM) {
		err = show_prom(o, &v, &n);
		if (err) {
			free(v);
			bq_err("cannot list qdiscs: %s", strerror(-err));
			return BQ_EXIT_FAIL;
		}
	} else {
		print_set_json(o->fmt == FMT_JSON);
		open_json_array(NULL);
		for (size_t i = 0; i < n; i++) {
			open_json_object(NULL);
			print_qdisc(&v[i], o->stats);
			close_json_object();
		}
		close_json_array();
	}
	free(v);
	fflush(stdout);
	return 0;
}

/* [dev DEV] and the options, before or after it. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option opts[] = {
		{ "stats", no_argument, NULL, 's' }, { "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "interval", required_argument, NULL, 'i' },
		{},
	};
	struct place p = { .parent = TC_H_ROOT };
	const char *why;
	__u64 secs;
	int c, i;

	optind = 0;
	while ((c = cli_getopt(argc, argv, ":sj", opts, NULL, "unexpected")) != -1) {
		if (c < 0)
			return c;
		if (c == 's')
			o->stats = true;
		else if (c == 'j')
			o->fmt = FMT_JSON;
		else if (c == 'p')
			o->fmt = FMT_PROM;
		else if (bq_parse_value(BQ_UNIT_COUNT, optarg, &secs, &why) || !secs || secs > 86400)
			return bq_invalid("bad --interval '%s': expected 1..86400 seconds", optarg);
		else
			o->interval = secs;
	}
	for (i = optind; i < argc;) {
		int took = parse_place(argc, argv, &i, &p);

		if (took < 0)
			return took;
		if (!took || p.parent != TC_H_ROOT || p.handle)
			return bq_invalid("unexpected '%s'", argv[i - (took ? 2 : 0)]);
	}
	return p.dev ? place_ifindex(&p, &o->ifindex) : 0;
}

static int run(struct opts *o, int argc, char **argv)
{
	int err = parse_opts(argc, argv, o);

	if (err)
		return err;
	err = bq_prepare(BQ_NEED_READ);
	if (err)
		return err;
	for (;;) {
		err = show_once(o);
		if (err || !o->interval)
			return err;
		sleep(o->interval);
	}
}

/* qdisc show [dev DEV] [-s] [-j] */
int do_qdisc_show(int argc, char **argv)
{
	struct opts o = { 0 };

	return run(&o, argc, argv);
}

/* stats [dev DEV] [-j] [--prometheus] [--interval N]: BPF qdiscs only. */
int do_stats(int argc, char **argv)
{
	struct opts o = { .stats = true, .ours_only = true };

	return run(&o, argc, argv);
}
