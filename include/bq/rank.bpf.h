/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc rank queue: a PIFO (push-in first-out queue, Sivaraman et al.,
 * SIGCOMM 2016) of packets by rank, for schedulers written as rank
 * functions. Push a packet with a rank, pop the least rank; packets of
 * equal rank leave in arrival order.
 *
 * Buckets and bitmaps, as Eiffel's cFFS (NSDI 2019). A rank r falls in
 * bucket r >> shift (granularity g = 2^shift); 2^order buckets make the
 * window [base, base + 2^order) of buckets in which the order is exact
 * (to g). Each bucket is a FIFO (the pool's struct bq_skbq), so equal
 * ranks keep their arrival order. Buckets are slots of a ring: bucket b
 * is slot b mod 2^order. A bitmap of busy slots under two summary levels
 * (a bit of level 1 for each word of level 0 that is not 0, a bit of top
 * for each word of level 1 that is not 0) finds the least busy slot from
 * base's in a word of each level: push and pop are O(1), whatever the
 * queue holds.
 *
 * The window. It spans 2^order buckets from base, the bucket of the
 * least rank the queue may hold, and reaches no lower than 2^order - 1
 * buckets below hi, the highest bucket pushed since the queue was last
 * empty (held buckets must not share a slot). A pop moves base up to the
 * popped bucket (a pop never finds a lower one busy); a push below base
 * moves it down as far as hi allows; a push to an empty queue puts both
 * at its bucket. So the window follows ranks that keep rising (virtual
 * times, departure times) and costs nothing to move: the slots it leaves
 * are empty, and are the ones the buckets past its far end take. A rank
 * past either end is clamped to it and counted in clamped; clamped
 * packets keep FIFO order in their bucket.
 *
 * Memory follows use: buckets and bitmap words are in arena pages
 * (bq/pages.bpf.h). A page of buckets is held by its busy buckets; with
 * the last it becomes the table's spare, the next page of buckets a push
 * needs (ranks that slide on, a virtual time or a departure time, need a
 * new page as often as a packet: recycling one, they allocate none), or,
 * the spare taken, is freed by the sweep. The queue also keeps the page
 * of the bucket last emptied (bq_rq_keep); that, the spare and the
 * bitmap's pages (at most 9, for 2^18 buckets) stay until the purge.
 * Packets are in the pool (bq/pool.bpf.h).
 *
 * BQ_RQ_OPS() needs only __u32, __u64 and a word accessor:
 * selftests/unit/test_rank.c checks it natively against the exact PIFO
 * of tools/pifo/oracle.c.
 */
#ifndef BQ_RANK_BPF_H
#define BQ_RANK_BPF_H

#include "bq/bits.bpf.h"

/* Level 1's words come first in the word table, level 0's after them. */
#define BQ_RQ_L1		64
#define BQ_RQ_MAX_ORDER		18	/* 64 * 64 * 64 buckets: one word of top */
#define BQ_RQ_NONE		(~0U)

/* Which buckets are busy, and the window; all zero is empty, one bucket of g = 1. */
struct bq_rq_map {
	__u64 top;		/* bit i: word i of level 1 is not 0 */
	__u64 base;		/* the window's first bucket (rank >> shift) */
	__u64 hi;		/* the highest bucket pushed since the queue was empty */
	__u64 clamped;		/* ranks pushed outside the window */
	__u32 shift;		/* granularity: 2^shift ranks a bucket */
	__u32 order;		/* 2^order buckets */
	__u32 len;		/* packets held */
	__u32 pad;
};

static __always_inline __u32 bq_rq_mask(const struct bq_rq_map *m)
{
	return (1U << (m->order & 31)) - 1;
}

/* Granularity 2^shift, 2^order buckets (at most BQ_RQ_MAX_ORDER). */
static __always_inline void bq_rq_window_set(struct bq_rq_map *m, __u32 shift, __u32 order)
{
	m->shift = shift < 63 ? shift : 63;
	m->order = order < BQ_RQ_MAX_ORDER ? order : BQ_RQ_MAX_ORDER;
}

/*
 * The bucket a packet of rank goes to, clamped into the window (and
 * counted), which moves down to it if hi allows (the window's contract
 * above); differences, not sums: no overflow near 2^64.
 */
static __always_inline __u64 bq_rq_bucket_of(struct bq_rq_map *m, __u64 rank)
{
	__u64 b = rank >> (m->shift & 63), span = bq_rq_mask(m);

	if (!m->len)
		m->base = m->hi = b;
	if (b < m->base) {
		m->base = m->hi - b <= span ? b : m->hi - span;
		m->clamped += b != m->base;
		return m->base;
	}
	if (b - m->base > span) {
		m->clamped++;
		b = m->base + span;
	}
	if (b > m->hi)
		m->hi = b;
	return b;
}

/* The bucket in slot, which is in the window. */
static __always_inline __u64 bq_rq_bucket_at(const struct bq_rq_map *m, __u32 slot)
{
	return m->base + ((slot - (__u32)m->base) & bq_rq_mask(m));
}

/*
 * BQ_RQ_OPS(name, T, word) defines over T, which holds a struct
 * bq_rq_map `map`, the bitmap's operations on slots: name_set(),
 * name_clear() and name_first(). word(inst, rq, i, reach) is word i of
 * the word table (a __u64 pointer, an arena's or any other), or NULL if it
 * is not there; reach: allocate it if need be (its memory zeroed).
 * name_first() is a global function, which the verifier checks once
 * (see bq_pages_slot()).
 */
#define BQ_RQ_OPS(name, T, word)					\
	/* Word i's bits; 0 if it is not there. */			\
	static __always_inline __u64 name##_bits(const struct bq_instance *inst, \
						 T *rq, __u32 i)	\
	{								\
		__typeof__(word(inst, rq, 0, false)) w = word(inst, rq, i, false); \
									\
		return w ? *w : 0;					\
	}								\
	/* Slot becomes busy; false without memory for its words. */	\
	static __always_inline bool name##_set(const struct bq_instance *inst, \
					       T *rq, __u32 slot)	\
	{								\
		__u32 i0 = slot / 64, i1 = i0 / 64;			\
		__typeof__(word(inst, rq, 0, false)) l1 = word(inst, rq, i1, true), l0; \
									\
		l0 = l1 ? word(inst, rq, BQ_RQ_L1 + i0, true) : NULL;	\
		if (!l0)						\
			return false;					\
		*l0 |= 1ULL << (slot % 64);				\
		*l1 |= 1ULL << (i0 % 64);				\
		rq->map.top |= 1ULL << (i1 % 64);			\
		return true;						\
	}								\
	/* Slot is empty again; a summary bit goes with its word's last. */ \
	static __always_inline void name##_clear(const struct bq_instance *inst, \
						 T *rq, __u32 slot)	\
	{								\
		__u32 i0 = slot / 64, i1 = i0 / 64;			\
		__typeof__(word(inst, rq, 0, false)) l0 = word(inst, rq, BQ_RQ_L1 + i0, false), l1; \
									\
		if (!l0)						\
			return;						\
		*l0 &= ~(1ULL << (slot % 64));				\
		l1 = *l0 ? NULL : word(inst, rq, i1, false);		\
		if (!l1)						\
			return;						\
		*l1 &= ~(1ULL << (i0 % 64));				\
		if (!*l1)						\
			rq->map.top &= ~(1ULL << (i1 % 64));		\
	}								\
	/*								\
	 * The first busy slot at or after s, or BQ_RQ_NONE: in s's	\
	 * word of level 0, else the next busy word of its word of	\
	 * level 1, else the next busy word of top. (x << y << 1: the	\
	 * bits past y, with no shift by 64.)				\
	 */								\
	static __always_inline __u32 name##_from(const struct bq_instance *inst, \
						 T *rq, __u32 s)	\
	{								\
		__u32 i0 = s / 64, i1 = i0 / 64;			\
		__u64 v = name##_bits(inst, rq, BQ_RQ_L1 + i0) & (~0ULL << (s % 64)); \
									\
		if (v)							\
			return i0 * 64 + bq_lowest_one(v);		\
		v = name##_bits(inst, rq, i1) & (~0ULL << (i0 % 64) << 1); \
		if (!v) {						\
			v = rq->map.top & (~0ULL << (i1 % 64) << 1);	\
			if (!v)						\
				return BQ_RQ_NONE;			\
			i1 = bq_lowest_one(v);				\
			v = name##_bits(inst, rq, i1);			\
			if (!v)						\
				return BQ_RQ_NONE;			\
		}							\
		i0 = i1 * 64 + bq_lowest_one(v);			\
		v = name##_bits(inst, rq, BQ_RQ_L1 + i0);		\
		return v ? i0 * 64 + bq_lowest_one(v) : BQ_RQ_NONE;	\
	}								\
	/*								\
	 * The slot of the least busy bucket: the first busy slot from	\
	 * base's, round the ring. BQ_RQ_NONE if none is busy.		\
	 */								\
	__noinline __u32 name##_first(const struct bq_instance *inst, T *rq) \
	{								\
		__u32 s, slot;						\
									\
		/* inst too: unused, the compiler would leave it unset */ \
		if (!inst || !rq)					\
			return BQ_RQ_NONE;				\
		s = (__u32)rq->map.base & bq_rq_mask(&rq->map);	\
		slot = name##_from(inst, rq, s);			\
		if (slot == BQ_RQ_NONE && s)				\
			slot = name##_from(inst, rq, 0);		\
		return slot;						\
	}

#if defined(__bpf__)
#include "bq/pages.bpf.h"
#include "bq/pool.bpf.h"

/* Per rank queue, in the kind's state; all zero is empty. */
struct bq_rq {
	struct bq_rq_map map;
	struct bq_pages words;		/* the bitmap: level 1's words, then level 0's */
	struct bq_pages buckets;	/* a struct bq_skbq per slot */
	__u32 kept;			/* 1 + a slot whose page the queue holds; 0: none */
	__u32 pad;
};

static __always_inline __u64 __arena *bq_rq_word(const struct bq_instance *inst,
						 struct bq_rq *rq, __u32 i, bool reach)
{
	if (reach)
		return bq_pages_reach(inst, &rq->words, i, sizeof(__u64));
	return bq_pages_at(&rq->words, i, sizeof(__u64));
}

BQ_RQ_OPS(bq_rq, struct bq_rq, bq_rq_word)

#define BQ_RQ_BUCKET_SIZE	sizeof(struct bq_skbq)

/* The bucket of slot, busy for a push: its page held and its bit set; NULL without memory. */
static __always_inline struct bq_skbq __arena *bq_rq_fill(const struct bq_instance *inst,
							  struct bq_rq *rq, __u32 slot)
{
	struct bq_skbq __arena *b = bq_pages_at(&rq->buckets, slot, BQ_RQ_BUCKET_SIZE);

	if (b && b->len)
		return b;
	rq->buckets.recycle = 1;	/* an unheld page's buckets are all empty */
	b = bq_pages_hold(inst, &rq->buckets, slot, BQ_RQ_BUCKET_SIZE);
	if (b && !bq_rq_set(inst, rq, slot)) {
		bq_pages_release(&rq->buckets, slot, BQ_RQ_BUCKET_SIZE);
		return NULL;
	}
	return b;
}

/*
 * The queue keeps a hold of the page of the bucket it last emptied, so
 * that a queue one packet deep, whose one bucket fills and empties with
 * each packet, does not allocate and free a page each time (half its
 * packet rate, measured with selftests/progs/rank_pps.sh); it moves the
 * hold when the bucket emptied is on another page. Global, as
 * bq_pages_release(): one call for what would be two of its.
 */
__noinline int bq_rq_keep(const struct bq_instance *inst, struct bq_rq *rq, __u32 slot)
{
	__u32 per = BQ_PAGE_SIZE / BQ_RQ_BUCKET_SIZE;

	if (!inst || !rq || (rq->kept && (rq->kept - 1) / per == slot / per))
		return 0;
	if (!bq_pages_hold(inst, &rq->buckets, slot, BQ_RQ_BUCKET_SIZE))
		return 0;
	if (rq->kept)
		bq_pages_release(&rq->buckets, rq->kept - 1, BQ_RQ_BUCKET_SIZE);
	rq->kept = slot + 1;
	return 0;
}

/* Slots of the buckets' table a sweep looks at, each time a bucket empties. */
#define BQ_RQ_SWEEP	4

/*
 * The bucket of slot is empty: its bit cleared and its page's hold given
 * back, and a few slots swept (bq_pages_sweep: pages no bucket holds go
 * after two turns of it; nothing to do while none is empty).
 */
static __always_inline void bq_rq_emptied(const struct bq_instance *inst, struct bq_rq *rq,
					  __u32 slot)
{
	bq_rq_clear(inst, rq, slot);
	bq_rq_keep(inst, rq, slot);
	bq_pages_release(&rq->buckets, slot, BQ_RQ_BUCKET_SIZE);
	bq_pages_sweep(inst, &rq->buckets, BQ_RQ_SWEEP);
}

/*
 * Queue skb at rank. Counts it (bq_enqueued), or drops it as
 * BQ_DROP_NOMEM when the pool or the arena has no room. The bucket's
 * first rank is the pool's time (all equal in a bucket: a FIFO), the
 * rest of the rank the aux, so that a pop gives the rank back (a clamped
 * one as its bucket's first).
 */
static __always_inline int bq_rq_push(struct Qdisc *sch, struct bq_instance *inst,
				      struct bq_pool_state *ps, struct bq_rq *rq,
				      struct sk_buff *skb, __u64 rank,
				      struct bpf_sk_buff_ptr *to_free)
{
	__u64 clamped = rq->map.clamped, b = bq_rq_bucket_of(&rq->map, rank);
	__u32 shift = rq->map.shift & 63, slot = b & bq_rq_mask(&rq->map);
	__u64 first = b << shift, rest = rank - first;
	struct bq_skbq __arena *q = bq_rq_fill(inst, rq, slot);
	int ret;

	if (!q)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_NOMEM);
	if (clamped != rq->map.clamped || rest > 0xffffffffULL)
		rest = 0;
	ret = bq_askbq_push(sch, inst, ps, q, skb, first, rest, to_free);
	if (ret == NET_XMIT_SUCCESS)
		rq->map.len++;
	else if (!q->len)
		bq_rq_emptied(inst, rq, slot);
	return ret;
}

/* The least rank's first packet (NULL if empty) and its bucket's slot. */
static __always_inline struct bq_pkt *bq_rq_head(const struct bq_instance *inst,
						 struct bq_rq *rq, __u32 *slot)
{
	struct bq_skbq __arena *q;

	*slot = rq->map.len ? bq_rq_first(inst, rq) : BQ_RQ_NONE;
	if (*slot == BQ_RQ_NONE)
		return NULL;
	q = bq_pages_at(&rq->buckets, *slot, BQ_RQ_BUCKET_SIZE);
	return q ? bq_askbq_head(inst, q) : NULL;
}

/* The least rank (*rank) without taking its packet; false if empty. */
static __always_inline bool bq_rq_peek(const struct bq_instance *inst, struct bq_rq *rq,
				       __u64 *rank)
{
	__u32 slot;
	struct bq_pkt *h = bq_rq_head(inst, rq, &slot);

	if (!h)
		return false;
	*rank = h->time + h->aux;
	return true;
}

/*
 * Take the packet of least rank, which *rank gets (NULL if empty); pass
 * it to bq_dequeued(). The window moves up to its bucket.
 */
static __always_inline struct sk_buff *bq_rq_pop(const struct bq_instance *inst,
						 struct bq_pool_state *ps, struct bq_rq *rq,
						 __u64 *rank)
{
	struct bq_skbq __arena *q;
	struct sk_buff *skb;
	struct bq_pkt *h;
	__u32 slot;

	h = bq_rq_head(inst, rq, &slot);
	q = h ? bq_pages_at(&rq->buckets, slot, BQ_RQ_BUCKET_SIZE) : NULL;
	if (!q)
		return NULL;
	*rank = h->time + h->aux;
	rq->map.base = bq_rq_bucket_at(&rq->map, slot);
	skb = bq_askbq_pop(inst, ps, q);
	if (!q->len)
		bq_rq_emptied(inst, rq, slot);
	if (skb)
		rq->map.len--;
	return skb;
}

/*
 * Give back the queue's pages (the kind's purge, after bq_pool_purge()
 * freed the packets); it is empty after, its window as it was set.
 */
static __always_inline void bq_rq_free(const struct bq_instance *inst, struct bq_rq *rq)
{
	__u32 shift = rq->map.shift, order = rq->map.order;

	bq_pages_free(inst, &rq->words);
	bq_pages_free(inst, &rq->buckets);
	rq->kept = 0;
	__builtin_memset(&rq->map, 0, sizeof(rq->map));
	bq_rq_window_set(&rq->map, shift, order);
}
/* --- a qdisc from a rank function ---------------------------------------- *
 *
 * BQ_RANK_QDISC(sp, struct sp_sched, sp_rank, sp_served, sp_setup, release)
 * makes
 * kind bpf_sp whole: enqueue pushes each packet at the rank the policy
 * gives (its scheduling transaction), dequeue pops the least; the limit,
 * drops, counters, reset and destroy are the framework's. The kind's state
 * has a struct bq_pifo `pifo`, its parameters a `limit`, its statistics
 * start with "clamped" (BQ_RANK_XSTATS). The policy's three functions:
 *	__u64 rank(sch, inst, q, p, skb)	the packet's rank
 *	void served(inst, q, rank)		the packet of rank left (a virtual
 *						clock moves: STFQ); may do nothing
 *	int setup(sch, inst, q)			the window, bq_pifo_window(), and
 *						the policy's own state
 * and release, BQ_QDISC_OPS' (BQ_NO_RELEASE: none).
 */
struct bq_pifo {
	struct bq_pool_state pool;
	struct bq_rq rq;
};

/* Granularity 2^shift ranks a bucket, 2^order buckets (at most BQ_RQ_MAX_ORDER). */
static __always_inline void bq_pifo_window(struct bq_pifo *pifo, __u32 shift, __u32 order)
{
	bq_rq_window_set(&pifo->rq.map, shift, order);
}

/*
 * A test kind may hold its packets (dequeue gives none) while
 * BQ_RANK_HOLD(p), p its parameters, is true: it defines that before
 * including this part. test_rank_oracle so queues a whole trace, then
 * lets it go and compares the order it leaves in with the exact PIFO's.
 * Nothing for any other kind.
 */
#ifndef BQ_RANK_HOLD
#define BQ_RANK_HOLD(p)		0
#endif

enum { BQ_RANK_CLAMPED, BQ_RANK_XSTAT_KIND };

/*
 * The start of a rank kind's enqueue (BQ_ENQUEUE's scope): p, inst and q
 * (T *) declared, the packet dropped without an instance or over the
 * limit. Also the rank tree's (bq/ranktree.bpf.h).
 */
#define BQ_RANK_ADMIT(T)						\
	const bq_kind_params_t *p;					\
	struct bq_instance *inst;					\
	T *q = bq_enter(sch, &inst, &p);				\
									\
	if (!q)								\
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_NO_INSTANCE); \
	if (sch->q.qlen >= p->limit)					\
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_OVERLIMIT)

/*
 * The state to dequeue from (inst set), NULL if there is nothing to give:
 * the queue is empty (the kernel dequeues until NULL: the last call finds
 * nothing), there is no instance, or a test kind holds its packets.
 */
#define BQ_RANK_DEQUEUING(sch, inst)					\
	((sch)->q.qlen && ((inst) = bq_instance(sch)) &&		\
	 !BQ_RANK_HOLD(bq_kind_params(bq_params_of(inst))) ? bq_state(inst) : NULL)
#define BQ_RANK_XSTATS(...)	BQ_XSTATS({ "clamped", BQ_COUNTER }, ##__VA_ARGS__)

#define BQ_RANK_QDISC(name, T, rank, served, setup, release)	\
	BQ_RANK_QDISC_WHEN(name, T, rank, served, setup, release, BQ_RANK_ALWAYS_DUE)
/* due(sch, inst, pifo): the least rank may leave now (a shaper's, below). */
#define BQ_RANK_QDISC_WHEN(name, T, rank, served, setup, release, due)	\
	BQ_ENQUEUE(name)						\
	{								\
		__u64 clamped;						\
		int ret;						\
		BQ_RANK_ADMIT(T);					\
									\
		clamped = q->pifo.rq.map.clamped;			\
		ret = bq_rq_push(sch, inst, &q->pifo.pool, &q->pifo.rq, skb, \
				 rank(sch, inst, q, p, skb), to_free);	\
		inst->cnt.x[BQ_RANK_CLAMPED] += q->pifo.rq.map.clamped - clamped; \
		return ret;						\
	}								\
	BQ_DEQUEUE(name)						\
	{								\
		struct bq_instance *inst = NULL;			\
		T *q = BQ_RANK_DEQUEUING(sch, inst);			\
		struct sk_buff *skb;					\
		__u64 r;						\
									\
		if (!q || !due(sch, inst, &q->pifo))			\
			return NULL;					\
		skb = bq_rq_pop(inst, &q->pifo.pool, &q->pifo.rq, &r);	\
		if (skb)						\
			served(inst, q, r);				\
		return bq_dequeued(sch, inst, skb);			\
	}								\
	static __always_inline void name##_purge(struct Qdisc *sch, struct bq_instance *inst, \
						 T *q)			\
	{								\
		bq_pool_purge(sch, inst, &q->pifo.pool);		\
		bq_rq_free(inst, &q->pifo.rq);				\
	}								\
	BQ_QDISC_OPS(name, setup, name##_purge, release)

/* A policy with no clock to move at dequeue. */
#define BQ_RANK_NOTHING_SERVED(inst, q, rank)

/*
 * The policy's functions opened as BQ_ENQUEUE opens an op, with sch,
 * inst, q (T *), p (the kind's parameters) and skb in scope:
 *	BQ_RANK(sp, struct sp_sched) { return ...; }
 *	BQ_RANK_SERVED(wfq, struct wfq_sched) { q->vtime = rank; }
 */
#define BQ_RANK(name, T)						\
	static __always_inline __u64 name##_rank(struct Qdisc *sch, struct bq_instance *inst, \
						 T *q, const bq_kind_params_t *p, \
						 struct sk_buff *skb)
#define BQ_RANK_SERVED(name, T)						\
	static __always_inline void name##_served(struct bq_instance *inst, T *q, __u64 rank)

/*
 * Parameters every rank kind has, and those of a kind with classes (as
 * bpf_hbm's, bq/classify.bpf.h): __u64 limit (packets of every rank
 * together, default n; the pool holds --ring-slots - 1, past which a
 * packet is dropped as nomem), and __u64 classify (enum bq_class_by).
 */
#define BQ_RANK_LIMIT_PARAM(n)						\
	BQ_PARAM(limit, BQ_UNIT_COUNT, n, 1, 1 << 24)
#define BQ_RANK_CLASSIFY_PARAM						\
	BQ_PARAM(classify, BQ_UNIT_COUNT, BQ_BY_CGROUP, BQ_BY_CGROUP, BQ_BY_PRIORITY)

/*
 * A window set per instance by parameters: the kind's struct of
 * parameters has __u64 rank_shift, rank_order, its BQ_PARAMS
 * BQ_RANK_WINDOW_PARAMS(default shift), and BQ_RANK_WINDOW_SETUP(fn, T)
 * defines a setup hook that sets it (at init and reset: a change of the
 * parameters takes effect then).
 */
#define BQ_RANK_WINDOW_PARAMS(shift)					\
	BQ_RANK_WINDOW_PARAMS_ORDER(shift, BQ_RQ_MAX_ORDER)
/* The same with 2^order buckets by default (2.4). */
#define BQ_RANK_WINDOW_PARAMS_ORDER(shift, order)			\
	BQ_PARAM(rank_shift, BQ_UNIT_COUNT, shift, 0, 40),		\
	BQ_PARAM(rank_order, BQ_UNIT_COUNT, order, 1, BQ_RQ_MAX_ORDER)
#define BQ_RANK_WINDOW_SETUP(fn, T)					\
	static int fn(struct Qdisc *sch, struct bq_instance *inst, T *q)	\
	{								\
		const bq_kind_params_t *p = bq_kind_params(bq_params_of(inst)); \
									\
		bq_pifo_window(&q->pifo, p->rank_shift, p->rank_order);	\
		return 0;						\
	}

/*
 * A policy's value per flow or class that a reset forgets (bpf_wfq's
 * finish tags, bpf_las's attained service): a __u64 by key in an LRU hash
 * the kind declares,
 *	BQ_SLOT_MAP(map, BPF_MAP_TYPE_LRU_HASH, struct bq_class_key, __u64, n, 0);
 * named by the qdisc's generation and its resets, so that a new qdisc or
 * a reset starts every key at 0, and memory follows the keys in use (the
 * LRU forgets the least recent when full: that key starts at 0 again).
 * bq_rank_value(&map, inst, id): id's value, 0 when new; NULL without room (2.4).
 */
static __always_inline __u64 *bq_rank_value(void *map, const struct bq_instance *inst, __u64 id)
{
	struct bq_class_key k = { .slot = inst->slot, .gen = inst->created_ns + inst->cnt.resets,
				  .id = id };
	__u64 *v = bpf_map_lookup_elem(map, &k), zero = 0;

	if (v)
		return v;
	bpf_map_update_elem(map, &k, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, &k);
}

/* --- a shaper from a shaping transaction ---------------------------------- *
 *
 * BQ_SHAPER_QDISC(tbf, struct tbf_sched, tbf_rank, tbf_setup, release)
 * makes kind bpf_tbf whole as BQ_RANK_QDISC does, for a policy whose rank
 * is a departure time (PIFO's shaping transaction), in ns of
 * CLOCK_MONOTONIC (bpf_ktime_get_ns()). A packet is eligible from its
 * rank on, which is EDT, as bpf_fq's time queue does: dequeue gives the
 * least rank's packet once its time has come, else arms the qdisc's
 * watchdog for that time, counts it in throttled (as tbf's overlimits
 * count its throttled dequeues) and gives none. It looks at the least
 * rank (bq_rq_peek) before it takes it: a second search of the bitmap,
 * O(1) as the first. No served function: a shaper's clock is the real
 * one. The window must span the backlog's wait (limit packets at the
 * rate): a rank clamped to the window's end takes that end's bucket's
 * time, and leaves too early.
 */

#define BQ_RANK_ALWAYS_DUE(sch, inst, pifo)	true

/* The least rank is due; else the watchdog is armed for it. */
static __always_inline bool bq_shaper_due(struct Qdisc *sch, struct bq_instance *inst,
					  struct bq_pifo *pifo)
{
	__u64 rank;

	if (!bq_rq_peek(inst, &pifo->rq, &rank) || rank <= bpf_ktime_get_ns())
		return true;
	bpf_qdisc_watchdog_schedule(sch, rank, 0);
	inst->cnt.overlimits++;
	return false;
}

#define BQ_SHAPER_QDISC(name, T, rank, setup, release)			\
	BQ_RANK_QDISC_WHEN(name, T, rank, BQ_RANK_NOTHING_SERVED, setup, release, bq_shaper_due)
#endif /* __bpf__ */
#endif /* BQ_RANK_BPF_H */
