// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_maxlen: a FIFO that drops packets longer than their mark's maxlen,
 * for test_class_fields: classes that are not bpf_hbm's, driven by
 * `bpfqdisc class` as they are declared here. Only bin/bpfqdisc_test knows
 * it (selftests/bpf/qdiscs.def).
 *
 * Its classes are keyed by skb mark, always (no parameter picks it), and
 * have two fields unlike bpf_hbm's one: maxlen, a __u32 in bytes that an
 * aggregate without a class takes from the maxlen parameter, and tag, a
 * __u64 count that does nothing and prints as "none" when 0. Its
 * aggregates, one per mark seen (at most MAXLEN_AGGS, then the packets go
 * uncounted), count packets accepted and too long, with the key last in
 * the entry and entry 0 in use, where bpf_hbm has it first and starts at 1.
 */
#include "bq/class.bpf.h"
#include "bq/ring.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define MAXLEN_AGGS	16

struct maxlen_params {
	__u64 limit;
	__u64 maxlen;
};

BQ_PARAMS(struct maxlen_params,
	BQ_PARAM(limit, BQ_UNIT_COUNT, 1000, 1, BQ_DEFAULT_RING_SLOTS),
	BQ_PARAM(maxlen, BQ_UNIT_BYTES, 65535, 1, 65535),
);

enum { X_MARKS };

BQ_XSTATS(
	{ "marks", BQ_GAUGE },		/* aggregates: entries 0 .. marks - 1 */
);

enum { MAXLEN_DROP_LONG = BQ_DROP_KIND };

BQ_DROP_REASONS(
	{ "too_long" },
);

struct maxlen_sched {
	struct bq_ring ring;
	__u32 naggs;
};

BQ_STATE(struct maxlen_sched);

struct maxlen_class {
	__u32 maxlen;
	__u32 pad;
	__u64 tag;
};

struct maxlen_agg {
	__u64 pkts;
	__u64 too_long;
	__u64 mark;
};

BQ_SLOT_MAP(maxlen_aggs, BPF_MAP_TYPE_ARRAY, u32, struct maxlen_agg, MAXLEN_AGGS, BQ_MAP_PIN);
BQ_CLASSES(maxlen_classes, struct maxlen_class, MAXLEN_AGGS, BQ_CLASS_BY(BQ_BY_MARK),
	BQ_CLASS_FIELD(maxlen, BQ_UNIT_BYTES, 1, 65535, "maxlen", ""),
	BQ_CLASS_FIELD(tag, BQ_UNIT_COUNT, 0, 1000000, "", "none"),
);
BQ_CLASS_AGGS(maxlen_aggs, struct maxlen_agg, mark, 0, "marks",
	BQ_CLASS_COUNTER("pkts", pkts),
	BQ_CLASS_COUNTER("too_long", too_long),
);

/* The aggregate of mark, found or made; NULL when all MAXLEN_AGGS are taken. */
static __noinline struct maxlen_agg *agg_of(struct bq_instance *inst, struct maxlen_sched *q,
					    u64 mark)
{
	struct maxlen_agg *a;
	u32 i;

	bpf_for(i, 0, MAXLEN_AGGS) {
		a = bq_region_lookup(&maxlen_aggs, inst, MAXLEN_AGGS, i);
		if (!a)
			return NULL;
		if (i < q->naggs && a->mark == mark)
			return a;
		if (i == q->naggs) {
			__builtin_memset(a, 0, sizeof(*a));
			a->mark = mark;
			q->naggs = inst->cnt.x[X_MARKS] = i + 1;
			return a;
		}
	}
	return NULL;
}

BQ_ENQUEUE(maxlen)
{
	const struct maxlen_params *p;
	struct bq_instance *inst;
	struct maxlen_sched *q = bq_enter(sch, &inst, &p);
	struct maxlen_class *c;
	struct maxlen_agg *a;
	u64 maxlen;

	if (!q)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_NO_INSTANCE);
	if (sch->q.qlen >= p->limit)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_OVERLIMIT);
	c = bq_class(inst, skb->mark);
	maxlen = c ? c->maxlen : p->maxlen;
	a = agg_of(inst, q, skb->mark);
	if (bq_pkt_len(skb) > maxlen) {
		if (a)
			a->too_long++;
		return bq_drop(sch, inst, skb, to_free, MAXLEN_DROP_LONG);
	}
	if (a)
		a->pkts++;
	return bq_ring_push(sch, inst, &q->ring, skb, to_free);
}

/* bpf_fifo's dequeue: the kernel dequeues until NULL. */
BQ_DEQUEUE(maxlen)
{
	struct bq_instance *inst = sch->q.qlen ? bq_instance(sch) : NULL;
	struct maxlen_sched *q = inst ? bq_state(inst) : NULL;

	return q ? bq_dequeued(sch, inst, bq_ring_pop(inst, &q->ring)) : NULL;
}

/* A zeroed state is empty: the ring, no aggregate. */
static int maxlen_setup(struct Qdisc *sch, struct bq_instance *inst, struct maxlen_sched *q)
{
	return 0;
}

static __always_inline void maxlen_purge(struct Qdisc *sch, struct bq_instance *inst,
					 struct maxlen_sched *q)
{
	bq_ring_purge(sch, inst, &q->ring);
	inst->cnt.x[X_MARKS] = 0;
}

static __always_inline void maxlen_release(struct bq_instance *inst, struct maxlen_sched *q)
{
	bq_classes_forget(inst);
}

BQ_QDISC_OPS(maxlen, maxlen_setup, maxlen_purge, maxlen_release);
