/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc ring: a FIFO of skb kptrs, for a qdisc with one queue (bpf_fifo).
 * Each instance owns a region of bq_ring_slots entries of bq_ring; head and
 * tail (struct bq_ring) live in the kind's state. The ops of one instance
 * run under its qdisc lock, so an index needs no atomics, and one
 * bpf_kptr_xchg() stores or takes an skb: no allocation per packet.
 */
#ifndef BQ_RING_BPF_H
#define BQ_RING_BPF_H

#include "bq/core.bpf.h"

struct bq_skb_slot {
	struct sk_buff __kptr *skb;
};

BQ_SLOT_MAP(bq_ring, BPF_MAP_TYPE_ARRAY, u32, struct bq_skb_slot, BQ_PER_RING, 0);

/* Per instance, in the kind's state; all zero is an empty ring. */
struct bq_ring {
	__u32 head;		/* next ring index to dequeue */
	__u32 tail;		/* next ring index to fill */
};

static __always_inline struct bq_skb_slot *bq_ring_slot(const struct bq_instance *inst,
							u32 idx)
{
	return bq_region_lookup(&bq_ring, inst, bq_ring_slots, idx);
}

static __always_inline u32 bq_ring_len(const struct bq_ring *r)
{
	return r->tail - r->head;
}

/*
 * Queue skb at the tail. The caller checked the limit, which the loader
 * keeps below bq_ring_slots; a full ring still drops rather than overwrite.
 */
static __always_inline int bq_ring_push(struct Qdisc *sch, struct bq_instance *inst,
					struct bq_ring *r, struct sk_buff *skb,
					struct bpf_sk_buff_ptr *to_free)
{
	struct bq_skb_slot *s;
	u32 len = bq_pkt_len(skb);

	if (bq_ring_len(r) >= bq_ring_slots)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_OVERLIMIT);
	s = bq_ring_slot(inst, r->tail);
	if (!s)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_NOMEM);
	skb = bpf_kptr_xchg(&s->skb, skb);
	if (skb)	/* slot unexpectedly busy: the old skb is lost state */
		bpf_kfree_skb(skb);
	r->tail++;
	bq_enqueued(sch, inst, len);
	return NET_XMIT_SUCCESS;
}

/* The oldest skb, or NULL; pass it to bq_dequeued(). */
static __always_inline struct sk_buff *bq_ring_pop(const struct bq_instance *inst,
						   struct bq_ring *r)
{
	struct bq_skb_slot *s;

	if (!bq_ring_len(r))
		return NULL;
	s = bq_ring_slot(inst, r->head);
	if (!s)
		return NULL;
	r->head++;
	return bpf_kptr_xchg(&s->skb, NULL);
}

/* Free every queued skb (the kind's purge hook: reset and destroy). */
static __always_inline void bq_ring_purge(struct Qdisc *sch, const struct bq_instance *inst,
					  struct bq_ring *r)
{
	struct sk_buff *skb;
	u32 n = bq_ring_len(r), i;

	bpf_for(i, 0, n) {
		skb = bq_ring_pop(inst, r);
		if (skb)
			bq_purged(sch, skb);
	}
	r->head = r->tail = 0;
}

#endif /* BQ_RING_BPF_H */
