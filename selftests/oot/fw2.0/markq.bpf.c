// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_markq: a FIFO that gives each skb mark a quota of packets, for
 * test_load_class. It is built outside the tree like any user's qdisc (the
 * Makefile's out-of-tree rule: the installed headers and pkg-config only)
 * and loaded by path, so that `bpfqdisc class` is shown to work from the
 * tables of a kind bpfqdisc was not built with.
 *
 * A mark's aggregate counts the packets it queued (sent) and those refused
 * because it had queued its quota already (over). Its class sets the
 * quota; a mark without one has the quota parameter's, 0 being none. A
 * mark seen after MARKQ_AGGS others gets no aggregate, and so no quota.
 * (Not named quota: `bpfqdisc qdisc change ... quota 4` would read that
 * quota as the kind.)
 */
#include "bq/class.bpf.h"
#include "bq/ring.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define MARKQ_AGGS	8

struct markq_params {
	__u64 limit;
	__u64 quota;
};

BQ_PARAMS(struct markq_params,
	BQ_PARAM(limit, BQ_UNIT_COUNT, 1000, 1, BQ_DEFAULT_RING_SLOTS),
	BQ_PARAM(quota, BQ_UNIT_COUNT, 0, 0, 1000000000),
);

enum { MARKQ_X_AGGS };

BQ_XSTATS(
	{ "aggregates", BQ_GAUGE },	/* in use: entries 0 .. aggregates - 1 */
);

enum { MARKQ_DROP_OVER = BQ_DROP_KIND };

BQ_DROP_REASONS(
	{ "over_quota" },
);

struct markq_sched {
	struct bq_ring ring;
};

BQ_STATE(struct markq_sched);

struct markq_class {
	__u64 quota;
};

struct markq_agg {
	__u64 mark;
	__u64 sent;
	__u64 over;
};

BQ_SLOT_MAP(markq_aggs, BPF_MAP_TYPE_ARRAY, u32, struct markq_agg, MARKQ_AGGS, BQ_MAP_PIN);
BQ_CLASSES(markq_classes, struct markq_class, MARKQ_AGGS, BQ_CLASS_BY(BQ_BY_MARK),
	BQ_CLASS_FIELD(quota, BQ_UNIT_COUNT, 1, 1000000000, "quota", "none"),
);
BQ_CLASS_AGGS(markq_aggs, struct markq_agg, mark, 0, "aggregates",
	BQ_CLASS_COUNTER("sent", sent),
	BQ_CLASS_COUNTER("over", over),
);

/* The aggregate of mark, found or taken; NULL when all are taken. */
static __noinline struct markq_agg *markq_agg(struct bq_instance *inst, u64 mark)
{
	struct markq_agg *a;
	u32 i;

	bpf_for(i, 0, MARKQ_AGGS) {
		a = bq_region_lookup(&markq_aggs, inst, MARKQ_AGGS, i);
		if (!a)
			return NULL;
		if (i == inst->cnt.x[MARKQ_X_AGGS]) {
			__builtin_memset(a, 0, sizeof(*a));
			a->mark = mark;
			inst->cnt.x[MARKQ_X_AGGS] = i + 1;
			return a;
		}
		if (a->mark == mark)
			return a;
	}
	return NULL;
}

BQ_ENQUEUE(markq)
{
	const struct markq_params *p;
	struct bq_instance *inst;
	struct markq_sched *q = bq_enter(sch, &inst, &p);
	struct markq_class *c;
	struct markq_agg *a;
	u64 quota;

	if (!q)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_NO_INSTANCE);
	if (sch->q.qlen >= p->limit)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_OVERLIMIT);
	c = bq_class(inst, skb->mark);
	quota = c ? c->quota : p->quota;
	a = markq_agg(inst, skb->mark);
	if (a && quota && a->sent >= quota) {
		a->over++;
		return bq_drop(sch, inst, skb, to_free, MARKQ_DROP_OVER);
	}
	if (a)
		a->sent++;
	return bq_ring_push(sch, inst, &q->ring, skb, to_free);
}

BQ_DEQUEUE(markq)
{
	struct bq_instance *inst = sch->q.qlen ? bq_instance(sch) : NULL;
	struct markq_sched *q = inst ? bq_state(inst) : NULL;

	return q ? bq_dequeued(sch, inst, bq_ring_pop(inst, &q->ring)) : NULL;
}

/* A zeroed state is an empty ring. */
static int markq_setup(struct bq_instance *inst, struct markq_sched *q)
{
	return 0;
}

/* A reset empties the queue and forgets the counts; the classes stay. */
static __always_inline void markq_purge(struct Qdisc *sch, struct bq_instance *inst,
					struct markq_sched *q)
{
	bq_ring_purge(sch, inst, &q->ring);
	inst->cnt.x[MARKQ_X_AGGS] = 0;
}

/* Classes are the qdisc's configuration: they end with it. */
static __always_inline void markq_release(struct bq_instance *inst, struct markq_sched *q)
{
	bq_classes_forget(inst);
}

BQ_QDISC_OPS(markq, markq_setup, markq_purge, markq_release);
