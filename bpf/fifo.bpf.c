// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_fifo: first in, first out, with a packet limit.
 *
 * Enqueue appends to the instance's ring unless `limit` packets are already
 * queued, in which case the new packet is dropped (tail drop) and counted as
 * an overlimit drop. Dequeue takes the oldest packet. All the plumbing
 * (ring, counters, per-instance state) is the framework's; this file is the
 * whole policy and the reference for docs/writing-a-qdisc.md.
 */
#include "bpfqdisc.bpf.h"

char LICENSE[] SEC("license") = "GPL";

enum { FIFO_LIMIT };

BQ_PARAMS(
	{ "limit", BQ_UNIT_COUNT, 1000, 1, BQ_DEFAULT_RING_SLOTS },
);

enum { FIFO_QLEN_MAX };

BQ_XSTATS(
	{ "qlen_max", BQ_GAUGE },	/* high-water mark: how close to limit */
);

SEC("struct_ops")
int BPF_PROG(fifo_enqueue, struct sk_buff *skb, struct Qdisc *sch,
	     struct bpf_sk_buff_ptr *to_free)
{
	struct bq_instance *q = bq_instance(sch);
	const struct bq_params *p = q ? bq_params_of(q) : NULL;
	int ret;

	if (!p)
		return bq_drop(sch, q, skb, to_free, BQ_DROP_NO_INSTANCE);
	if (sch->q.qlen >= p->v[FIFO_LIMIT])
		return bq_drop(sch, q, skb, to_free, BQ_DROP_OVERLIMIT);
	ret = bq_fifo_push(sch, q, skb, to_free);
	/* after the push: a full ring refuses the packet and qlen stays */
	if (sch->q.qlen > q->cnt.x[FIFO_QLEN_MAX])
		q->cnt.x[FIFO_QLEN_MAX] = sch->q.qlen;
	return ret;
}

SEC("struct_ops")
struct sk_buff *BPF_PROG(fifo_dequeue, struct Qdisc *sch)
{
	struct bq_instance *q;

	/* The kernel dequeues until NULL: the last call finds nothing to find. */
	if (!sch->q.qlen)
		return NULL;
	q = bq_instance(sch);
	if (!q)
		return NULL;
	return bq_dequeued(sch, q, bq_fifo_pop(q));
}

BQ_QDISC_OPS(fifo);
