// SPDX-License-Identifier: GPL-2.0
/*
 * Written by `bpfqdisc new newq24` from bpf_fifo's source, for the bpfqdisc
 * framework 2.4. Build it with the installed framework (make install, or
 * the bpfqdisc-dev package), clang-19 and libbpf's headers:
 *	clang-19 -target bpf -O2 -g $(pkg-config --cflags bpfqdisc) -c newq24.bpf.c -o newq24.bpf.o
 */
/*
 * bpf_newq24: first in, first out, with a packet limit.
 *
 * Enqueue appends to the instance's ring unless `limit` packets are already
 * queued, in which case the new packet is dropped (tail drop) and counted as
 * an overlimit drop. Dequeue takes the oldest packet. All the plumbing
 * (ring, counters, per-instance state) is the framework's; this file is the
 * whole policy and the reference for docs/writing-a-qdisc.md.
 */
/* Work-conserving, qlen exact: an empty queue may be bypassed (bq/core.bpf.h). */
#define BQ_CAN_BYPASS 1
#include "bq/core.bpf.h"
#include "bq/ring.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct newq24_params {
	__u64 limit;
};

BQ_PARAMS(struct newq24_params,
	BQ_PARAM(limit, BQ_UNIT_COUNT, 1000, 1, BQ_DEFAULT_RING_SLOTS),
);

enum { FIFO_QLEN_MAX };

BQ_XSTATS(
	{ "qlen_max", BQ_GAUGE },	/* high-water mark: how close to limit */
);

/* Per instance: its packets. */
struct newq24_sched {
	struct bq_ring ring;
};

BQ_STATE(struct newq24_sched);

BQ_ENQUEUE(newq24)
{
	const struct newq24_params *p;
	struct bq_instance *inst;
	struct newq24_sched *q = bq_enter(sch, &inst, &p);
	int ret;

	if (!q)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_NO_INSTANCE);
	if (sch->q.qlen >= p->limit)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_OVERLIMIT);
	ret = bq_ring_push(sch, inst, &q->ring, skb, to_free);
	/* after the push: a full ring refuses the packet and qlen stays */
	if (sch->q.qlen > inst->cnt.x[FIFO_QLEN_MAX])
		inst->cnt.x[FIFO_QLEN_MAX] = sch->q.qlen;
	return ret;
}

BQ_DEQUEUE(newq24)
{
	struct bq_instance *inst;
	struct newq24_sched *q;

	/* The kernel dequeues until NULL: the last call finds nothing to find. */
	if (!sch->q.qlen)
		return NULL;
	inst = bq_instance(sch);
	q = inst ? bq_state(inst) : NULL;
	if (!q)
		return NULL;
	return bq_dequeued(sch, inst, bq_ring_pop(inst, &q->ring));
}

/* A zeroed ring is empty: nothing to set up. */
static int newq24_setup(struct Qdisc *sch, struct bq_instance *inst, struct newq24_sched *q)
{
	return 0;
}

static __always_inline void newq24_purge(struct Qdisc *sch, struct bq_instance *inst,
				       struct newq24_sched *q)
{
	bq_ring_purge(sch, inst, &q->ring);
}

BQ_QDISC_OPS(newq24, newq24_setup, newq24_purge);
