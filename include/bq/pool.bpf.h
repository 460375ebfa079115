/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc pool: packets of one instance in linked queues.
 *
 * For qdiscs with many queues (one per flow, per class...). Each instance
 * owns a region of bq_ring_slots entries of the bq_pool map; an entry holds
 * one queued skb (kptr), its departure time and the index of the next entry
 * of its queue. A queue (struct bq_skbq) is a head, a tail and a length,
 * kept wherever the qdisc wants (a flow, a class). Nothing is allocated per
 * packet, no lock is taken: the ops of one instance run under its qdisc
 * lock. Index 0 is never used, so 0 ends a queue and zeroed memory is a set
 * of empty queues; an instance holds at most bq_ring_slots - 1 packets.
 * Queues are kept in departure-time order: a packet due earlier than the
 * tail is inserted in order (a walk of at most BQ_SKBQ_SORT_MAX entries;
 * in-order arrival, as from one socket, costs nothing).
 */
#ifndef BQ_POOL_BPF_H
#define BQ_POOL_BPF_H

#include "bq/core.bpf.h"
#include "bq/ids.bpf.h"

#define BQ_SKBQ_SORT_MAX	1024

struct bq_pkt {
	struct sk_buff __kptr *skb;
	__u64 time;		/* departure time (ns, CLOCK_MONOTONIC): the order */
	__u32 next;		/* next entry of the same queue; 0 ends it */
	__u32 aux;		/* the qdisc's own, per packet */
};

BQ_SLOT_MAP(bq_pool, BPF_MAP_TYPE_ARRAY, u32, struct bq_pkt, BQ_PER_RING, 0);

/* Per instance, in the qdisc's own state; all zero is an empty pool. */
struct bq_pool_state {
	struct bq_ids ids;	/* entries holding a packet; free ones linked by next */
};

struct bq_skbq {
	__u32 head;
	__u32 tail;
	__u32 len;
};

static __always_inline struct bq_pkt *bq_pkt(const struct bq_instance *inst, u32 idx)
{
	return bq_region_lookup(&bq_pool, inst, bq_ring_slots, idx);
}

/*
 * An unused entry and its index (*idx), or NULL when the instance's region
 * is full. One lookup: a free-list entry is the one whose link was read.
 */
static __always_inline struct bq_pkt *bq_pool_alloc(const struct bq_instance *inst,
						    struct bq_pool_state *ps, u32 *idx)
{
	struct bq_pkt *p = ps->ids.free ? bq_pkt(inst, ps->ids.free) : NULL;

	*idx = bq_ids_alloc(&ps->ids, bq_ring_slots, p ? p->next : BQ_IDS_UNREAD);
	if (!*idx)
		return NULL;
	return p ?: bq_pkt(inst, *idx);
}

/* Links entry idx (time already set) into sq in time order. */
static __always_inline void bq_skbq_link(const struct bq_instance *inst, struct bq_skbq *sq,
					 struct bq_pkt *p, u32 idx)
{
	struct bq_pkt *t, *c, *prevp;
	u32 prev = 0, cur, i;

	p->next = 0;
	if (!sq->len || !sq->head) {
		sq->head = sq->tail = idx;
		sq->len = 1;
		return;
	}
	sq->len++;
	t = bq_pkt(inst, sq->tail);
	if (!t || p->time >= t->time) {
		if (t)
			t->next = idx;
		sq->tail = idx;
		return;
	}
	/* Due before the tail: find the first entry due later than p. */
	cur = sq->head;
	bpf_for(i, 0, BQ_SKBQ_SORT_MAX) {
		c = bq_pkt(inst, cur);
		if (!c || c->time > p->time)
			break;
		prev = cur;
		cur = c->next;
		if (!cur)
			break;
	}
	p->next = cur;
	if (!cur)
		sq->tail = idx;
	if (!prev) {
		sq->head = idx;
		return;
	}
	prevp = bq_pkt(inst, prev);
	if (prevp)
		prevp->next = idx;
}

/*
 * Queue skb on sq, due at time, with the qdisc's aux beside it. Counts it
 * (bq_enqueued) or, with the instance's region full, drops it as
 * BQ_DROP_NOMEM.
 */
static __always_inline int bq_skbq_push(struct Qdisc *sch, struct bq_instance *inst,
					struct bq_pool_state *ps, struct bq_skbq *sq,
					struct sk_buff *skb, u64 time, u32 aux,
					struct bpf_sk_buff_ptr *to_free)
{
	u32 len = bq_pkt_len(skb), idx;
	struct bq_pkt *p;

	p = bq_pool_alloc(inst, ps, &idx);
	if (!p)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_NOMEM);
	p->time = time;
	p->aux = aux;
	skb = bpf_kptr_xchg(&p->skb, skb);
	if (skb)	/* entry unexpectedly busy: that skb is lost state */
		bpf_kfree_skb(skb);
	bq_skbq_link(inst, sq, p, idx);
	bq_enqueued(sch, inst, len);
	return NET_XMIT_SUCCESS;
}

/* sq's first entry, to read before a pop; NULL if sq is empty. */
static __always_inline struct bq_pkt *bq_skbq_head(const struct bq_instance *inst,
						   const struct bq_skbq *sq)
{
	return sq->len ? bq_pkt(inst, sq->head) : NULL;
}

/* Departure time of sq's first packet; false if sq is empty. */
static __always_inline bool bq_skbq_head_time(const struct bq_instance *inst,
					      const struct bq_skbq *sq, u64 *time)
{
	struct bq_pkt *p = bq_skbq_head(inst, sq);

	if (!p)
		return false;
	*time = p->time;
	return true;
}

/* Take sq's first packet (NULL if empty); pass it to bq_dequeued(). */
static __always_inline struct sk_buff *bq_skbq_pop(const struct bq_instance *inst,
						   struct bq_pool_state *ps,
						   struct bq_skbq *sq)
{
	struct bq_pkt *p;
	u32 idx = sq->head;

	if (!sq->len || !idx)
		return NULL;
	p = bq_pkt(inst, idx);
	if (!p)
		return NULL;
	sq->head = p->next;
	if (!--sq->len)
		sq->head = sq->tail = 0;
	bq_ids_put(&ps->ids, &p->next, idx);
	return bpf_kptr_xchg(&p->skb, NULL);
}

/*
 * Free every packet of the instance, whatever queue holds it (reset,
 * destroy); the caller then empties its queues. The pool is empty after.
 */
static __always_inline void bq_pool_purge(struct Qdisc *sch, const struct bq_instance *inst,
					  struct bq_pool_state *ps)
{
	struct sk_buff *skb;
	struct bq_pkt *p;
	u32 i;

	bpf_for(i, 1, ps->ids.hwm + 1) {
		p = bq_pkt(inst, i);
		if (!p)
			continue;
		skb = bpf_kptr_xchg(&p->skb, NULL);
		if (skb)
			bq_purged(sch, skb);
	}
	__builtin_memset(&ps->ids, 0, sizeof(ps->ids));
}
/*
 * The same for a queue kept in an arena (a flow's in bq/pages.bpf.h),
 * which the functions above cannot take: it goes through a copy on the
 * stack, three words each way.
 */
#ifndef __arena
#define __arena __attribute__((address_space(1)))
#endif

static __always_inline int bq_askbq_push(struct Qdisc *sch, struct bq_instance *inst,
					 struct bq_pool_state *ps, struct bq_skbq __arena *asq,
					 struct sk_buff *skb, u64 time, u32 aux,
					 struct bpf_sk_buff_ptr *to_free)
{
	struct bq_skbq sq = *asq;
	int ret = bq_skbq_push(sch, inst, ps, &sq, skb, time, aux, to_free);

	*asq = sq;
	return ret;
}

static __always_inline struct bq_pkt *bq_askbq_head(const struct bq_instance *inst,
						    const struct bq_skbq __arena *asq)
{
	struct bq_skbq sq = *asq;

	return bq_skbq_head(inst, &sq);
}

static __always_inline struct sk_buff *bq_askbq_pop(const struct bq_instance *inst,
						    struct bq_pool_state *ps,
						    struct bq_skbq __arena *asq)
{
	struct bq_skbq sq = *asq;
	struct sk_buff *skb = bq_skbq_pop(inst, ps, &sq);

	*asq = sq;
	return skb;
}

#endif /* BQ_POOL_BPF_H */
