// SPDX-License-Identifier: GPL-2.0
/*
 * Written by `bpfqdisc new newq23` from bpf_fifo's source, for the bpfqdisc
 * framework 2.3. Build it with the installed framework (make install, or
 * the bpfqdisc-dev package), clang and libbpf's headers:
 *	clang -target bpf -O2 -g $(pkg-config --cflags bpfqdisc) -c newq23.bpf.c -o newq23.bpf.o
 */
/*
 * bpf_newq23: first in, first out, with a packet limit.
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

struct newq23_params {
	__u64 limit;
};

BQ_PARAMS(struct newq23_params,
	BQ_PARAM(limit, BQ_UNIT_COUNT, 1000, 1, BQ_DEFAULT_RING_SLOTS),
);

enum { FIFO_QLEN_MAX };

BQ_XSTATS(
	{ "qlen_max", BQ_GAUGE },	/* high-water mark: how close to limit */
);

/* Per instance: its packets. */
struct newq23_sched {
	struct bq_ring ring;
};

BQ_STATE(struct newq23_sched);

BQ_ENQUEUE(newq23)
{
	const struct newq23_params *p;
	struct bq_instance *inst;
	struct newq23_sched *q = bq_enter(sch, &inst, &p);
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

BQ_DEQUEUE(newq23)
{
	struct bq_instance *inst;
	struct newq23_sched *q;

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
static int newq23_setup(struct Qdisc *sch, struct bq_instance *inst, struct newq23_sched *q)
{
	return 0;
}

static __always_inline void newq23_purge(struct Qdisc *sch, struct bq_instance *inst,
				       struct newq23_sched *q)
{
	bq_ring_purge(sch, inst, &q->ring);
}

BQ_QDISC_OPS(newq23, newq23_setup, newq23_purge);
