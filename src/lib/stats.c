// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics: the kernel's view of each qdisc (rtnetlink: kind, handle,
 * bstats, qstats) joined with the BPF instance's parameters and counters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib.h"

const struct bq_core_metric bq_core_metrics[BQ_NCORE_METRICS] = {
	{ "sent_bytes_total", "counter", "Bytes dequeued, as tc -s counts them." },
	{ "sent_packets_total", "counter", "Packets (GSO segments) dequeued." },
	{ "backlog_bytes", "gauge", "Bytes queued." },
	{ "qlen_packets", "gauge", "Packets queued." },
	{ "enqueued_total", "counter", "skbs the BPF qdisc queued." },
	{ "dequeued_total", "counter", "skbs the BPF qdisc released." },
	{ "drops_total", "counter", "skbs the BPF qdisc dropped, by reason." },
	{ "marks_total", "counter", "skbs the BPF qdisc wanted congestion-marked." },
	{ "throttled_total", "counter", "Times the BPF qdisc held a packet back (tc's overlimits)." },
	{ "resets_total", "counter", "Times the BPF qdisc was reset, dropping what it held." },
	{ "memory_bytes", "gauge", "Bytes the qdisc holds: its share of the kind's BPF maps, and its arena pages (bpfqdisc(8), list)." },
};

/*
 * Statistics in bytes whose names say no unit: a unit in the table's
 * entry (struct bq_xstat_desc) would change its size, which the objects
 * of every released minor fix. Prometheus' base unit goes on their names.
 */
static const char *const bytes_xstats[][2] = {
	{ "fq_codel", "memory_used" }, { "fq_codel", "maxpacket" },
};

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), e = strlen(end);

	return n >= e && !strcmp(s + n - e, end);
}

static bool in_bytes(const struct bq_kind *k, const char *stat)
{
	for (size_t i = 0; i < sizeof(bytes_xstats) / sizeof(bytes_xstats[0]); i++)
		if (!strcmp(k->name, bytes_xstats[i][0]) && !strcmp(stat, bytes_xstats[i][1]))
			return true;
	return false;
}

unsigned long long bq_prom_xstat_name(const struct bq_kind *k, const struct bq_xstat_desc *d,
				      char *buf, size_t len)
{
	const char *unit = "";
	size_t stem = strlen(d->name);
	unsigned long long per_unit = 1;

	if (ends_with(d->name, "_ns")) {
		stem -= strlen("_ns");
		unit = "_seconds";
		per_unit = 1000000000;
	} else if (in_bytes(k, d->name)) {
		unit = "_bytes";
	}
	/* A counter's _total ends it once: new_flow_count is new_flow_total. */
	if (d->type == BQ_COUNTER && ends_with(d->name, "_count"))
		stem -= strlen("_count");
	snprintf(buf, len, "%s_%.*s%s%s", k->name, (int)stem, d->name, unit,
		 d->type == BQ_COUNTER ? "_total" : "");
	return per_unit;
}

/* The keys of stats -j's "bpf" that every kind has. */
static const char *const core_counters[] = {
	"enqueued", "dequeued", "dequeued_bytes", "marks", "throttled", "resets", "drops",
	"memory_bytes",
};

bool bq_core_name(const char *name, bool prometheus)
{
	size_t n = prometheus ? BQ_NCORE_METRICS : sizeof(core_counters) / sizeof(core_counters[0]);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, prometheus ? bq_core_metrics[i].name : core_counters[i]))
			return true;
	return false;
}

bool bq_same_qdisc(const struct bq_instance *q, __u64 netns, const struct bq_qdisc_info *tc)
{
	/* mq's children all have handle 0 when created by default. */
	return q->where.netns_cookie == netns && (int)q->where.ifindex == tc->ifindex &&
	       q->where.parent == tc->parent && q->handle == tc->handle;
}

static bool join_instance(struct bq_qdisc_view *v, __u64 netns)
{
	struct bq_instance_info *inst;
	size_t n;
	bool found = false;

	if (!v->kind || bq_instances(v->kind, &inst, &n))
		return false;
	for (size_t i = 0; i < n && !found; i++) {
		found = bq_same_qdisc(&inst[i].inst, netns, &v->tc);
		if (found)
			v->inst = inst[i].inst;
	}
	free(inst);
	v->meta = bq_kind_meta(v->kind);
	return found && v->meta && !bq_kind_params(v->kind, &v->set) &&
	       !bq_read_params(v->kind, v->inst.slot, &v->set.val);
}

#define MEMORY_UNREAD	(~0ULL)

/* What an instance of k holds: its kind's figure, read once for all its qdiscs into cache. */
static __u64 instance_memory(const struct bq_kind *k, __u64 *cache)
{
	__u64 *c = &cache[k - bq_kinds];
	struct bq_kind_memory m;

	if (*c == MEMORY_UNREAD)
		*c = bq_kind_memory(k, &m) ? 0 : m.per_instance;
	return *c;
}

int bq_qdisc_views(int ifindex, bool ours_only, struct bq_qdisc_view **out, size_t *n)
{
	__u64 cache[bq_nkinds];
	struct bq_qdisc_info *tc;
	size_t ntc, m = 0;
	__u64 netns = bq_self_netns_cookie();
	int err = bq_nl_qdisc_list(ifindex, &tc, &ntc);

	*out = NULL;
	*n = 0;
	if (err)
		return err;
	memset(cache, 0xff, sizeof(cache));	/* MEMORY_UNREAD */
	*out = calloc(ntc ? ntc : 1, sizeof(**out));
	if (!*out) {
		free(tc);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ntc; i++) {
		struct bq_qdisc_view *v = &(*out)[m];
		const struct bq_kind *k = bq_kind_find(tc[i].kind);

		v->tc = tc[i];
		v->netns = netns;
		v->kind = k && !strcmp(k->kind, tc[i].kind) && bq_has_state(k) ? k : NULL;
		if (!join_instance(v, netns))
			v->kind = NULL;
		if (v->kind)
			v->memory = instance_memory(v->kind, cache) +
				    bq_arena_bytes(v->kind, v->inst.slot);
		if (v->kind || !ours_only)
			m++;
	}
	free(tc);
	*n = m;
	return 0;
}
