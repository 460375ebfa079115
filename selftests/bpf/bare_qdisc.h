/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a measurement qdisc with no instance of the framework's keeps for
 * the kernel, and nothing more (bpf_floor, the storage probes, the
 * rbtree rank queue): qlen, backlog and the bytes sent.
 */
#ifndef BARE_QDISC_H
#define BARE_QDISC_H

static __always_inline void bare_enqueued(struct Qdisc *sch, u32 len)
{
	sch->q.qlen++;
	sch->qstats.backlog += len;
}

/* skb, taken off the queue (NULL: none), as dequeue returns it. */
static __always_inline struct sk_buff *bare_dequeued(struct Qdisc *sch, struct sk_buff *skb)
{
	if (!skb)
		return NULL;
	sch->q.qlen--;
	sch->qstats.backlog -= bq_pkt_len(skb);
	bpf_qdisc_bstats_update(sch, skb);
	return skb;
}

#endif
