/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc framework for BPF qdiscs on struct_ops Qdisc_ops.
 *
 * A qdisc file holds its policy and nothing else. This header owns:
 *   - the qdisc kfuncs, which the kernel only lets enqueue/dequeue call in
 *     the combinations noted below;
 *   - per-instance state: .init claims a slot (owned by the Qdisc pointer,
 *     remembered in Qdisc.limit) holding its struct bq_instance, parameters
 *     and the kind's state, which bq_instance() finds on the fast path with
 *     one array lookup; .destroy gives it back. Globals would be shared by
 *     every qdisc of this kind: both ends of a veth, every mq child. A
 *     kind's own state per instance is one line, BQ_STATE(struct T), found
 *     with bq_state(q); its maps with a
 *     region per instance are declared with BQ_SLOT_MAP(), and the loader
 *     sizes them all for --max-instances (and --ring-slots);
 *   - init, reset and destroy: BQ_QDISC_OPS(name) emits them with the
 *     struct_ops; a kind with state gives two hooks, one to set up a zeroed
 *     state and one to free what it holds (see BQ_QDISC_OPS below);
 *   - the skb plumbing: a FIFO ring of skb kptrs per instance. The ops of
 *     one instance run under its qdisc lock, so a ring index needs no atomics
 *     and one bpf_kptr_xchg() stores or takes an skb: no allocation per packet;
 *   - for qdiscs with many queues, opt-in: an skb pool with linked queues in
 *     departure-time order (BQ_WANT_POOL: bq_skbq_push/pop) and a min-heap
 *     of (time, value) per instance (BQ_WANT_TIMEQ: bq_tq_push/peek/pop);
 *     BQ_NO_FIFO leaves the ring out. Same rules: per-instance regions of
 *     ARRAY maps, index 0 never used, no locks, no allocation;
 *   - the standard counters and Qdisc qstats/bstats, updated in one place:
 *     bq_enqueued(), bq_dequeued(), bq_drop().
 */
#ifndef BPFQDISC_BPF_H
#define BPFQDISC_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bpfqdisc.h"

#define ENOMEM			12
#define ENOSPC			28

#define NET_XMIT_SUCCESS	0x00
#define NET_XMIT_DROP		0x01
#define NET_XMIT_CN		0x02

/* Every op. */
u32 bpf_skb_get_hash(struct sk_buff *skb) __ksym;
void bpf_kfree_skb(struct sk_buff *skb) __ksym;
/* .enqueue only: frees skb after the qdisc lock is dropped. */
void bpf_qdisc_skb_drop(struct sk_buff *skb, struct bpf_sk_buff_ptr *to_free_list) __ksym;
/* .enqueue and .dequeue. */
void bpf_qdisc_watchdog_schedule(struct Qdisc *sch, u64 expire, u64 delta_ns) __ksym;
/* .dequeue only. */
void bpf_qdisc_bstats_update(struct Qdisc *sch, const struct sk_buff *skb) __ksym;

/* Sizes the loader sets before load (bq_load() in src/). */
const volatile __u32 bq_ring_slots = BQ_DEFAULT_RING_SLOTS;
const volatile __u32 bq_max_instances = BQ_DEFAULT_MAX_INSTANCES;

/*
 * BQ_SLOT_MAP(map, BPF_MAP_TYPE_ARRAY, key, value, n, flags): a map with n
 * entries per instance slot (BQ_PER_RING: --ring-slots of them), so that
 * instance `slot` owns keys slot * n .. slot * n + n - 1 of an array. The
 * loader sizes it for --max-instances and pins it with BQ_MAP_PIN.
 */
#define BQ_SLOT_MAP_DEF(map, mtype, K, V, n)				\
	struct {							\
		__uint(type, mtype);					\
		__uint(max_entries, BQ_DEFAULT_MAX_INSTANCES *		\
				    ((n) ? (n) : BQ_DEFAULT_RING_SLOTS)); \
		__type(key, K);						\
		__type(value, V);					\
	} map SEC(".maps")
#define BQ_SLOT_MAP_DESC(map, n, flags)					\
	const struct bq_map_desc bq_slot_map_##map SEC(".rodata.bq_maps") = \
		{ #map, n, flags }
#define BQ_SLOT_MAP(map, mtype, K, V, n, flags)				\
	BQ_SLOT_MAP_DEF(map, mtype, K, V, n);				\
	BQ_SLOT_MAP_DESC(map, n, flags)

struct bq_skb_slot {
	struct sk_buff __kptr *skb;
};

/*
 * bq_slots: slot -> struct bq_slot_value { struct bq_slot slot; T state; },
 * the kind's state T last. Its value type is the kind's, so BQ_STATE(T)
 * defines it (BQ_QDISC_OPS() for a kind without state); the framework
 * reaches it through bq_slot_at(). User space changes the parameters in
 * place through mmap: a map update would overwrite the rest.
 */
#define BQ_SLOTS_MAP(...)						\
	struct bq_slot_value {						\
		struct bq_slot slot;					\
		__VA_ARGS__						\
	};								\
	struct {							\
		__uint(type, BPF_MAP_TYPE_ARRAY);			\
		__uint(map_flags, BPF_F_MMAPABLE);			\
		__uint(max_entries, BQ_DEFAULT_MAX_INSTANCES);		\
		__type(key, u32);					\
		__type(value, struct bq_slot_value);			\
	} bq_slots SEC(".maps");					\
	BQ_SLOT_MAP_DESC(bq_slots, 1, BQ_MAP_PIN);			\
	static __always_inline struct bq_slot *bq_slot_at(u32 slot)	\
	{								\
		return bpf_map_lookup_elem(&bq_slots, &slot);		\
	}
static __always_inline struct bq_slot *bq_slot_at(u32 slot);

/*
 * A qdisc that keeps its packets elsewhere (the skb pool below) defines
 * BQ_NO_FIFO before including this header: no ring, no memory for it.
 */
#ifndef BQ_NO_FIFO
BQ_SLOT_MAP(bq_fifo_ring, BPF_MAP_TYPE_ARRAY, u32, struct bq_skb_slot, BQ_PER_RING, 0);
#endif

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, struct bq_where);
	__type(value, struct bq_staged);
} bq_pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct bq_params);
} bq_defaults SEC(".maps");

/*
 * BQ_PARAMS({ "limit", BQ_UNIT_COUNT, 1000, 1, 16384 }, ...): the kind's
 * parameters, in the order of the index enum the policy reads them by.
 */
#define BQ_PARAMS(...) \
	const struct bq_param_desc bq_param_table[] SEC(".rodata.bq_params") = { __VA_ARGS__ }

/*
 * BQ_XSTATS({ "flows", BQ_GAUGE }, ...): names of the kind's own statistics,
 * in the order of the index enum it updates q->cnt.x[] by.
 */
#define BQ_XSTATS(...) \
	const struct bq_xstat_desc bq_xstat_table[] SEC(".rodata.bq_xstats") = { __VA_ARGS__ }

/* Packets that reached a qdisc with no state. Always 0 unless we have a bug. */
__u64 bq_orphan_drops;

static __always_inline u32 bq_pkt_len(const struct sk_buff *skb)
{
	return ((struct qdisc_skb_cb *)skb->cb)->pkt_len;
}

/*
 * The instance's slot is kept in Qdisc.limit: BPF cannot reach qdisc_priv(),
 * and limit is the one per-qdisc word it may write that the kernel never
 * reads for a BPF qdisc. One ARRAY lookup, which the verifier inlines, and
 * a check that the slot is still this qdisc's cost less than hashing the
 * Qdisc pointer on every packet.
 */
static __always_inline struct bq_instance *bq_instance(struct Qdisc *sch)
{
	struct bq_slot *s = bq_slot_at(sch->limit);

	if (!s || s->owner != (u64)sch)
		return NULL;
	return &s->inst;
}

/* The slot holding q: its parameters and state lie beside it. */
static __always_inline struct bq_slot *bq_slot_of(const struct bq_instance *q)
{
	return (void *)q - __builtin_offsetof(struct bq_slot, inst);
}

/* The instance's parameters; user space may change them between packets. */
static __always_inline const struct bq_params *bq_params_of(const struct bq_instance *q)
{
	return &bq_slot_of(q)->params;
}

/* --- counters: the one place that keeps qstats/bstats in step ---------- */

static __always_inline void bq_enqueued(struct Qdisc *sch, struct bq_instance *q,
					u32 len)
{
	sch->q.qlen++;
	sch->qstats.backlog += len;
	q->cnt.enqueued++;
}

/* Call with what dequeue returns; NULL passes through untouched. */
static __always_inline struct sk_buff *bq_dequeued(struct Qdisc *sch,
						   struct bq_instance *q,
						   struct sk_buff *skb)
{
	u32 len;

	if (!skb)
		return NULL;
	len = bq_pkt_len(skb);
	sch->q.qlen--;
	sch->qstats.backlog -= len;
	q->cnt.dequeued++;
	q->cnt.dequeued_bytes += len;
	bpf_qdisc_bstats_update(sch, skb);
	return skb;
}

/* Drop a packet that was never queued. q may be NULL (no instance). */
static __always_inline int bq_drop(struct Qdisc *sch, struct bq_instance *q,
				   struct sk_buff *skb,
				   struct bpf_sk_buff_ptr *to_free,
				   enum bq_drop_reason why)
{
	sch->qstats.drops++;
	if (why == BQ_DROP_OVERLIMIT)
		sch->qstats.overlimits++;
	if (q && why < BQ_DROP__MAX)
		q->cnt.drops[why]++;
	else
		__sync_fetch_and_add(&bq_orphan_drops, 1);
	bpf_qdisc_skb_drop(skb, to_free);
	return NET_XMIT_DROP;
}

/* Account for a queued packet freed by reset or destroy. */
static __always_inline void bq_purged(struct Qdisc *sch, struct sk_buff *skb)
{
	sch->q.qlen--;
	sch->qstats.backlog -= bq_pkt_len(skb);
	bpf_kfree_skb(skb);
}

/* --- FIFO ring of skb kptrs --------------------------------------------- */
#ifndef BQ_NO_FIFO

static __always_inline struct bq_skb_slot *bq_ring_slot(const struct bq_instance *q,
							u32 idx)
{
	u32 key = q->slot * bq_ring_slots + (idx & (bq_ring_slots - 1));

	return bpf_map_lookup_elem(&bq_fifo_ring, &key);
}

static __always_inline u32 bq_fifo_len(const struct bq_fifo *f)
{
	return f->tail - f->head;
}

/*
 * Queue skb at the tail. The caller checked the limit, which the loader
 * keeps below bq_ring_slots; a full ring still drops rather than overwrite.
 */
static __always_inline int bq_fifo_push(struct Qdisc *sch, struct bq_instance *q,
					struct sk_buff *skb,
					struct bpf_sk_buff_ptr *to_free)
{
	struct bq_skb_slot *s;
	u32 len = bq_pkt_len(skb);

	if (bq_fifo_len(&q->fifo) >= bq_ring_slots)
		return bq_drop(sch, q, skb, to_free, BQ_DROP_OVERLIMIT);
	s = bq_ring_slot(q, q->fifo.tail);
	if (!s)
		return bq_drop(sch, q, skb, to_free, BQ_DROP_NOMEM);
	skb = bpf_kptr_xchg(&s->skb, skb);
	if (skb)	/* slot unexpectedly busy: the old skb is lost state */
		bpf_kfree_skb(skb);
	q->fifo.tail++;
	bq_enqueued(sch, q, len);
	return NET_XMIT_SUCCESS;
}

static __always_inline struct sk_buff *bq_fifo_pop(struct bq_instance *q)
{
	struct bq_skb_slot *s;

	if (!bq_fifo_len(&q->fifo))
		return NULL;
	s = bq_ring_slot(q, q->fifo.head);
	if (!s)
		return NULL;
	q->fifo.head++;
	return bpf_kptr_xchg(&s->skb, NULL);
}

/* Free every queued skb; used by reset and destroy. */
static __always_inline void bq_fifo_purge(struct Qdisc *sch, struct bq_instance *q)
{
	struct sk_buff *skb;
	u32 n = bq_fifo_len(&q->fifo), i;

	bpf_for(i, 0, n) {
		skb = bq_fifo_pop(q);
		if (skb)
			bq_purged(sch, skb);
	}
	q->fifo.head = q->fifo.tail = 0;
}
#else
static __always_inline void bq_fifo_purge(struct Qdisc *sch, struct bq_instance *q)
{
}
#endif /* BQ_NO_FIFO */

/* --- skb pool: packets of one instance in linked queues ----------------- *
 *
 * For qdiscs with many queues (one per flow, per class...). Define
 * BQ_WANT_POOL before including this header. Each instance owns a region of
 * bq_ring_slots entries of the bq_pool map; an entry holds one queued skb
 * (kptr), its departure time and the index of the next entry of its queue.
 * A queue (struct bq_skbq) is a head, a tail and a length, kept wherever the
 * qdisc wants (a flow, a class). Nothing is allocated per packet, no lock is
 * taken: the ops of one instance run under its qdisc lock. Index 0 is never
 * used, so 0 ends a queue and zeroed memory is a set of empty queues; an
 * instance holds at most bq_ring_slots - 1 packets. Queues are kept in
 * departure-time order: a packet due earlier than the tail is inserted in
 * order (a walk of at most BQ_SKBQ_SORT_MAX entries; in-order arrival, as
 * from one socket, costs nothing).
 */
#ifdef BQ_WANT_POOL
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
	__u32 free;		/* first free entry, linked by next; 0: none */
	__u32 hwm;		/* highest entry ever handed out */
	__u32 used;		/* entries holding a packet */
	__u32 pad;
};

struct bq_skbq {
	__u32 head;
	__u32 tail;
	__u32 len;
};

static __always_inline struct bq_pkt *bq_pkt(const struct bq_instance *q, u32 idx)
{
	u32 key = q->slot * bq_ring_slots + (idx & (bq_ring_slots - 1));

	return bpf_map_lookup_elem(&bq_pool, &key);
}

/* An unused entry, or 0 when the instance's region is full. */
static __always_inline u32 bq_pool_alloc(const struct bq_instance *q, struct bq_pool_state *ps)
{
	struct bq_pkt *p;
	u32 idx = ps->free;

	if (idx) {
		p = bq_pkt(q, idx);
		if (!p)
			return 0;
		ps->free = p->next;
	} else if (ps->hwm + 1 < bq_ring_slots) {
		idx = ++ps->hwm;
	} else {
		return 0;
	}
	ps->used++;
	return idx;
}

static __always_inline void bq_pool_put(struct bq_pool_state *ps, struct bq_pkt *p, u32 idx)
{
	p->next = ps->free;
	ps->free = idx;
	ps->used--;
}

/* Links entry idx (time already set) into sq in time order. */
static __always_inline void bq_skbq_link(const struct bq_instance *q, struct bq_skbq *sq,
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
	t = bq_pkt(q, sq->tail);
	if (!t || p->time >= t->time) {
		if (t)
			t->next = idx;
		sq->tail = idx;
		return;
	}
	/* Due before the tail: find the first entry due later than p. */
	cur = sq->head;
	bpf_for(i, 0, BQ_SKBQ_SORT_MAX) {
		c = bq_pkt(q, cur);
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
	prevp = bq_pkt(q, prev);
	if (prevp)
		prevp->next = idx;
}

/*
 * Queue skb on sq, due at time, with the qdisc's aux beside it. Counts it
 * (bq_enqueued) or, with the instance's region full, drops it as
 * BQ_DROP_NOMEM.
 */
static __always_inline int bq_skbq_push(struct Qdisc *sch, struct bq_instance *q,
					struct bq_pool_state *ps, struct bq_skbq *sq,
					struct sk_buff *skb, u64 time, u32 aux,
					struct bpf_sk_buff_ptr *to_free)
{
	u32 len = bq_pkt_len(skb), idx;
	struct bq_pkt *p;

	idx = bq_pool_alloc(q, ps);
	if (!idx)
		return bq_drop(sch, q, skb, to_free, BQ_DROP_NOMEM);
	p = bq_pkt(q, idx);
	if (!p)
		return bq_drop(sch, q, skb, to_free, BQ_DROP_NOMEM);
	p->time = time;
	p->aux = aux;
	skb = bpf_kptr_xchg(&p->skb, skb);
	if (skb)	/* entry unexpectedly busy: that skb is lost state */
		bpf_kfree_skb(skb);
	bq_skbq_link(q, sq, p, idx);
	bq_enqueued(sch, q, len);
	return NET_XMIT_SUCCESS;
}

/* sq's first entry, to read before a pop; NULL if sq is empty. */
static __always_inline struct bq_pkt *bq_skbq_head(const struct bq_instance *q,
						   const struct bq_skbq *sq)
{
	return sq->len ? bq_pkt(q, sq->head) : NULL;
}

/* Departure time of sq's first packet; false if sq is empty. */
static __always_inline bool bq_skbq_head_time(const struct bq_instance *q,
					      const struct bq_skbq *sq, u64 *time)
{
	struct bq_pkt *p = bq_skbq_head(q, sq);

	if (!p)
		return false;
	*time = p->time;
	return true;
}

/* Take sq's first packet (NULL if empty); pass it to bq_dequeued(). */
static __always_inline struct sk_buff *bq_skbq_pop(const struct bq_instance *q,
						   struct bq_pool_state *ps,
						   struct bq_skbq *sq)
{
	struct bq_pkt *p;
	u32 idx = sq->head;

	if (!sq->len || !idx)
		return NULL;
	p = bq_pkt(q, idx);
	if (!p)
		return NULL;
	sq->head = p->next;
	if (!--sq->len)
		sq->head = sq->tail = 0;
	bq_pool_put(ps, p, idx);
	return bpf_kptr_xchg(&p->skb, NULL);
}

/*
 * Free every packet of the instance, whatever queue holds it (reset,
 * destroy); the caller then empties its queues. The pool is empty after.
 */
static __always_inline void bq_pool_purge(struct Qdisc *sch, const struct bq_instance *q,
					  struct bq_pool_state *ps)
{
	struct sk_buff *skb;
	struct bq_pkt *p;
	u32 i;

	bpf_for(i, 1, ps->hwm + 1) {
		p = bq_pkt(q, i);
		if (!p)
			continue;
		skb = bpf_kptr_xchg(&p->skb, NULL);
		if (skb)
			bq_purged(sch, skb);
	}
	ps->free = ps->hwm = ps->used = 0;
}
#endif /* BQ_WANT_POOL */

/* --- time queue: a min-heap of (time, value) per instance -------------- *
 *
 * For what must happen in time order: flows throttled until their next
 * departure (fq), packets held until their EDT timestamp. Define
 * BQ_WANT_TIMEQ. Each instance owns bq_ring_slots entries of bq_timeq (so
 * bq_ring_slots - 1 items); push and pop cost O(log n) array steps, peek
 * O(1). Equal times come out in no particular order. There is no removal
 * by value: a qdisc that changes its mind marks the item stale in its own
 * state and skips it when it comes out (as fq does).
 */
#ifdef BQ_WANT_TIMEQ
#define BQ_TQ_MAX_DEPTH		32

struct bq_tq_ent {
	__u64 time;
	__u32 val;
	__u32 pad;
};

BQ_SLOT_MAP(bq_timeq, BPF_MAP_TYPE_ARRAY, u32, struct bq_tq_ent, BQ_PER_RING, 0);

/* Per instance, in the qdisc's own state; zero is empty. */
struct bq_tq {
	__u32 len;
	__u32 pad;
};

static __always_inline struct bq_tq_ent *bq_tq_ent(const struct bq_instance *q, u32 i)
{
	u32 key = q->slot * bq_ring_slots + (i & (bq_ring_slots - 1));

	return bpf_map_lookup_elem(&bq_timeq, &key);
}

/* 0, or -ENOSPC when the instance's heap is full. */
static __always_inline int bq_tq_push(const struct bq_instance *q, struct bq_tq *tq,
				      u64 time, u32 val)
{
	struct bq_tq_ent *pe, *ce;
	u32 i, par, k;

	if (tq->len + 1 >= bq_ring_slots)
		return -ENOSPC;
	i = ++tq->len;
	bpf_for(k, 0, BQ_TQ_MAX_DEPTH) {
		if (i <= 1)
			break;
		par = i >> 1;
		pe = bq_tq_ent(q, par);
		ce = bq_tq_ent(q, i);
		if (!pe || !ce || pe->time <= time)
			break;
		ce->time = pe->time;
		ce->val = pe->val;
		i = par;
	}
	ce = bq_tq_ent(q, i);
	if (ce) {
		ce->time = time;
		ce->val = val;
	}
	return 0;
}

/* The earliest item; false if empty. */
static __always_inline bool bq_tq_peek(const struct bq_instance *q, const struct bq_tq *tq,
				       u64 *time, u32 *val)
{
	struct bq_tq_ent *e;

	if (!tq->len)
		return false;
	e = bq_tq_ent(q, 1);
	if (!e)
		return false;
	*time = e->time;
	*val = e->val;
	return true;
}

/* Remove the earliest item. */
static __always_inline void bq_tq_pop(const struct bq_instance *q, struct bq_tq *tq)
{
	struct bq_tq_ent *e, *ce, *ce2, *ie;
	u64 ltime;
	u32 lval, i = 1, c, k, len;

	if (!tq->len)
		return;
	e = bq_tq_ent(q, tq->len);
	len = --tq->len;
	if (!e || !len)
		return;
	ltime = e->time;
	lval = e->val;
	bpf_for(k, 0, BQ_TQ_MAX_DEPTH) {
		c = i << 1;
		if (c > len)
			break;
		ce = bq_tq_ent(q, c);
		if (!ce)
			break;
		if (c + 1 <= len) {
			ce2 = bq_tq_ent(q, c + 1);
			if (ce2 && ce2->time < ce->time) {
				ce = ce2;
				c++;
			}
		}
		if (ltime <= ce->time)
			break;
		ie = bq_tq_ent(q, i);
		if (!ie)
			break;
		ie->time = ce->time;
		ie->val = ce->val;
		i = c;
	}
	ie = bq_tq_ent(q, i);
	if (ie) {
		ie->time = ltime;
		ie->val = lval;
	}
}
#endif /* BQ_WANT_TIMEQ */

/* --- instance lifecycle ------------------------------------------------- */

static __always_inline struct bq_slot *bq_slot_claim(struct Qdisc *sch, u32 *slot)
{
	u32 i;

	bpf_for(i, 0, bq_max_instances) {
		struct bq_slot *s = bq_slot_at(i);

		if (s && __sync_val_compare_and_swap(&s->owner, 0, (u64)sch) == 0) {
			*slot = i;
			return s;
		}
	}
	return NULL;
}

/* Parameters given for a qdisc created here, else the kind's defaults. */
static __always_inline void bq_initial_params(struct bq_slot *s)
{
	struct bq_staged *staged = bpf_map_lookup_elem(&bq_pending, &s->inst.where);
	struct bq_params *initial = NULL;
	u32 zero = 0;

	if (staged && staged->expires_ns > bpf_ktime_get_ns())
		initial = &staged->params;
	if (!initial)
		initial = bpf_map_lookup_elem(&bq_defaults, &zero);
	if (initial)
		s->params = *initial;
}

/* .init: state for a new qdisc. */
static __always_inline int bq_instance_create(struct Qdisc *sch)
{
	u32 slot;
	struct bq_slot *s = bq_slot_claim(sch, &slot);

	if (!s)
		return -ENOSPC;
	__builtin_memset(&s->inst, 0, sizeof(s->inst));
	s->inst.slot = slot;
	s->inst.where.ifindex = BPF_CORE_READ(sch, dev_queue, dev, ifindex);
	s->inst.where.netns_cookie = BPF_CORE_READ(sch, dev_queue, dev, nd_net.net, net_cookie);
	s->inst.where.parent = sch->parent;
	s->inst.handle = sch->handle;
	bq_initial_params(s);
	/* Last: user space skips a slot claimed but not yet filled in. */
	s->inst.created_ns = bpf_ktime_get_ns();
	sch->limit = slot;
	return 0;
}

/* .reset: drop every queued packet; parameters and counters stay. */
static __always_inline void bq_instance_reset(struct Qdisc *sch)
{
	struct bq_instance *q = bq_instance(sch);

	if (!q)
		return;
	bq_fifo_purge(sch, q);
	q->cnt.resets++;
}

/* .destroy: after the policy freed its own state. */
static __always_inline void bq_instance_destroy(struct Qdisc *sch)
{
	struct bq_instance *q = bq_instance(sch);

	if (!q)
		return;
	bq_fifo_purge(sch, q);
	__builtin_memset(q, 0, sizeof(*q));
	bq_slot_of(q)->owner = 0;
}

/* --- the kind's own state -------------------------------------------------- *
 *
 * BQ_STATE(struct fq_sched), after the struct: one per instance, last in
 * its bq_slots value, found with bq_state(q) on the fast path (no lookup:
 * it lies beside the instance), or with the instance and its parameters
 * by bq_enter(sch, &q, &p). BQ_QDISC_OPS then takes the
 * kind's hooks: the framework zeroes the state and calls them.
 */
#define BQ_STATE(T)							\
	BQ_SLOTS_MAP(T state;)						\
	static __always_inline T *bq_state(const struct bq_instance *q)	\
	{								\
		return &((struct bq_slot_value *)bq_slot_of(q))->state;	\
	}								\
	/* What an op starts from: sch's instance, parameters, state. */ \
	static __always_inline T *bq_enter(struct Qdisc *sch,		\
					   struct bq_instance **q,	\
					   const struct bq_params **p)	\
	{								\
		*q = bq_instance(sch);					\
		*p = *q ? bq_params_of(*q) : NULL;			\
		return *p ? bq_state(*q) : NULL;			\
	}

/* --- the ops --------------------------------------------------------------- *
 *
 * BQ_QDISC_OPS(fifo) emits the struct_ops of kind bpf_fifo: fifo_enqueue
 * and fifo_dequeue are the kind's; init, reset and destroy the framework's.
 * A kind with BQ_STATE names its hooks too:
 *	BQ_QDISC_OPS(fq, fq_setup, fq_purge)
 *	BQ_QDISC_OPS(hbm, hbm_setup, hbm_purge, hbm_release)
 *   int setup(q, st)	   st is all zero: make it an empty state, at init
 *			   and after every reset. Non-zero refuses the qdisc
 *			   at init (as tc's error).
 *   void purge(sch, q, st) free every packet (bq_purged()) and entry the
 *			   state holds; at reset and at destroy.
 *   void release(q, st)   destroy only, after purge: what a reset keeps
 *			   (per-instance configuration).
 */
#define BQ_NO_RELEASE(q, st)

/* The five ops: init, reset and destroy each call one function of sch. */
#define BQ_OPS_EMIT(name, on_init, on_reset, on_destroy)		\
	SEC("struct_ops")						\
	int BPF_PROG(name##_init, struct Qdisc *sch, struct nlattr *opt, \
		     struct netlink_ext_ack *extack)			\
	{								\
		return on_init(sch);					\
	}								\
	SEC("struct_ops")						\
	void BPF_PROG(name##_reset, struct Qdisc *sch)			\
	{								\
		on_reset(sch);						\
	}								\
	SEC("struct_ops")						\
	void BPF_PROG(name##_destroy, struct Qdisc *sch)		\
	{								\
		on_destroy(sch);					\
	}								\
	SEC(".struct_ops.link")						\
	struct Qdisc_ops name = {					\
		.enqueue = (void *)name##_enqueue,			\
		.dequeue = (void *)name##_dequeue,			\
		.init = (void *)name##_init,				\
		.reset = (void *)name##_reset,				\
		.destroy = (void *)name##_destroy,			\
		.id = "bpf_" #name,					\
	}

#define BQ_OPS_STATELESS(name)						\
	BQ_SLOTS_MAP()							\
	BQ_OPS_EMIT(name, bq_instance_create, bq_instance_reset, bq_instance_destroy)

#define BQ_OPS_STATE(name, setup, purge, release)			\
	static __always_inline int name##_state_init(struct Qdisc *sch)	\
	{								\
		struct bq_instance *q;					\
		int err = bq_instance_create(sch);			\
									\
		if (err)						\
			return err;					\
		q = bq_instance(sch);					\
		__auto_type st = q ? bq_state(q) : NULL;		\
		if (!st) {						\
			err = -ENOMEM;					\
		} else {						\
			__builtin_memset(st, 0, sizeof(*st));		\
			err = setup(q, st);				\
		}							\
		if (err)						\
			bq_instance_destroy(sch);			\
		return err;						\
	}								\
	/* Reset leaves an empty state behind; destroy, nothing. */	\
	static __always_inline void name##_state_purge(struct Qdisc *sch, \
						       bool destroying)	\
	{								\
		struct bq_instance *q = bq_instance(sch);		\
		__auto_type st = q ? bq_state(q) : NULL;		\
									\
		if (!st)						\
			return;						\
		purge(sch, q, st);					\
		if (destroying) {					\
			release(q, st);					\
		} else {						\
			__builtin_memset(st, 0, sizeof(*st));		\
			setup(q, st);					\
		}							\
	}								\
	static __always_inline void name##_state_reset(struct Qdisc *sch) \
	{								\
		name##_state_purge(sch, false);				\
		bq_instance_reset(sch);					\
	}								\
	static __always_inline void name##_state_destroy(struct Qdisc *sch) \
	{								\
		name##_state_purge(sch, true);				\
		bq_instance_destroy(sch);				\
	}								\
	BQ_OPS_EMIT(name, name##_state_init, name##_state_reset, name##_state_destroy)

#define BQ_OPS_WITH_STATE(name, setup, purge)				\
	BQ_OPS_STATE(name, setup, purge, BQ_NO_RELEASE)
#define BQ_OPS_BAD_ARGS(...)						\
	_Static_assert(0, "BQ_QDISC_OPS(name) or (name, setup, purge[, release])")
#define BQ_OPS_PICK(_1, _2, _3, _4, ops, ...) ops
#define BQ_QDISC_OPS(...)						\
	BQ_OPS_PICK(__VA_ARGS__, BQ_OPS_STATE, BQ_OPS_WITH_STATE, BQ_OPS_BAD_ARGS, \
		    BQ_OPS_STATELESS, )(__VA_ARGS__)

#endif /* BPFQDISC_BPF_H */
