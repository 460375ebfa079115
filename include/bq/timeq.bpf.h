/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc time queue: a min-heap of (time, value) per instance that holds
 * each value at most once.
 *
 * For what must happen in time order: flows throttled until their next
 * departure (fq), aggregates until their next departure (hbm). A value is
 * the index of an entry of a per-instance region, below bq_ring_slots
 * (or the kind's BQ_TIMEQ_SLOTS, below).
 * The heap keeps where each value is, so setting a value's time moves it
 * rather than adding a second item, and a value can be taken out: the
 * heap never holds more items than there are distinct values, so a kind
 * that changes its mind leaves nothing stale behind to fill it (as sch_fq
 * keeps a flow in its delayed tree once). Each instance owns n entries of
 * bq_timeq (bq_ring_slots), so n - 1 items: values 1 .. n - 1
 * always fit. set, remove and pop cost O(log n) array steps, peek O(1).
 * Equal times come out in no particular order.
 *
 * BQ_TIMEQ_OPS() needs only __u32, __u64 and bpf_for:
 * selftests/unit/test_parts.c checks it natively against a model.
 */
#ifndef BQ_TIMEQ_BPF_H
#define BQ_TIMEQ_BPF_H

#define BQ_TQ_MAX_DEPTH		32

/*
 * Entry i is both heap slot i (1 .. len: its item's time and value) and
 * where value i is: pos, which only counts while slot pos holds value i.
 */
struct bq_tq_ent {
	__u64 time;
	__u32 val;
	__u32 pos;
};

/* Per instance, in the qdisc's own state; zero is empty. */
struct bq_tq {
	__u32 len;
	__u32 pad;
};

/*
 * BQ_TIMEQ_OPS(bq_tq, bq_tq_ent, bq_ring_slots) defines bq_tq_set(),
 * bq_tq_remove(), bq_tq_peek() and bq_tq_pop() over a region of n entries
 * found by index with struct bq_tq_ent *at(const struct bq_instance *inst,
 * __u32 i), or with any pointer to a struct bq_tq_ent that at returns (an
 * arena's: bq/pages.bpf.h).
 */
#define BQ_TIMEQ_OPS(name, at, n)					\
	/* Slot i holds (time, val), and val knows where it is. */	\
	static __always_inline void name##_put(const struct bq_instance *inst, \
					       __u32 i, __u64 time, __u32 val) \
	{								\
		__typeof__(at(inst, 0)) e = at(inst, i), v = at(inst, val); \
									\
		if (e) {						\
			e->time = time;					\
			e->val = val;					\
		}							\
		if (v)							\
			v->pos = i;					\
	}								\
	/* Hole i moves up past the parents later than time: where it stops. */ \
	static __always_inline __u32 name##_up(const struct bq_instance *inst, \
					       __u32 i, __u64 time)	\
	{								\
		__typeof__(at(inst, 0)) pe;				\
		__u32 k;						\
									\
		/* The root: no iterator (its calls cost more than this). */ \
		if (i <= 1)						\
			return i;					\
		bpf_for(k, 0, BQ_TQ_MAX_DEPTH) {			\
			if (i <= 1)					\
				break;					\
			pe = at(inst, i >> 1);				\
			if (!pe || pe->time <= time)			\
				break;					\
			name##_put(inst, i, pe->time, pe->val);		\
			i >>= 1;					\
		}							\
		return i;						\
	}								\
	/* Hole i moves down past the children earlier than time. */	\
	static __always_inline __u32 name##_down(const struct bq_instance *inst, \
						 __u32 len, __u32 i, __u64 time) \
	{								\
		__typeof__(at(inst, 0)) ce, ce2;			\
		__u32 c, k;						\
									\
		/* A leaf, as every item of a heap of one. */		\
		if (i << 1 > len)					\
			return i;					\
		bpf_for(k, 0, BQ_TQ_MAX_DEPTH) {			\
			c = i << 1;					\
			if (c > len)					\
				break;					\
			ce = at(inst, c);				\
			if (!ce)					\
				break;					\
			if (c + 1 <= len) {				\
				ce2 = at(inst, c + 1);			\
				if (ce2 && ce2->time < ce->time) {	\
					ce = ce2;			\
					c++;				\
				}					\
			}						\
			if (time <= ce->time)				\
				break;					\
			name##_put(inst, i, ce->time, ce->val);		\
			i = c;						\
		}							\
		return i;						\
	}								\
	/* (time, val) into hole i, up or down to where it belongs. */	\
	static __always_inline void name##_place(const struct bq_instance *inst, \
						 const struct bq_tq *tq, __u32 i, \
						 __u64 time, __u32 val)	\
	{								\
		__u32 j = name##_up(inst, i, time);			\
									\
		if (j == i)						\
			j = name##_down(inst, tq->len, i, time);	\
		name##_put(inst, j, time, val);				\
	}								\
	/* The slot of val; 0 if it is not in the heap. */		\
	static __always_inline __u32 name##_slot(const struct bq_instance *inst, \
						 const struct bq_tq *tq, __u32 val) \
	{								\
		__typeof__(at(inst, 0)) v = at(inst, val), e;		\
		__u32 i;						\
									\
		if (!v)							\
			return 0;					\
		i = v->pos;						\
		if (!i || i > tq->len)					\
			return 0;					\
		e = at(inst, i);					\
		return e && e->val == val ? i : 0;			\
	}								\
	/*								\
	 * val is due at time: added, or moved if it is in already. 0;	\
	 * -EINVAL for a value not below n; -ENOSPC when it is not in	\
	 * and n - 1 others are (so never for values 1 .. n - 1).	\
	 */								\
	static __always_inline int name##_set(const struct bq_instance *inst, \
					      struct bq_tq *tq, __u64 time, __u32 val) \
	{								\
		__u32 i;						\
									\
		if (val >= (n))						\
			return -EINVAL;					\
		i = name##_slot(inst, tq, val);				\
		if (!i) {						\
			if (tq->len + 1 >= (n))				\
				return -ENOSPC;				\
			i = ++tq->len;					\
		}							\
		name##_place(inst, tq, i, time, val);			\
		return 0;						\
	}								\
	/* The item in slot i leaves; the last one takes its place. */	\
	static __always_inline void name##_take(const struct bq_instance *inst, \
						struct bq_tq *tq, __u32 i) \
	{								\
		__typeof__(at(inst, 0)) last = at(inst, tq->len);	\
									\
		if (!last)						\
			return;						\
		tq->len--;						\
		if (i <= tq->len)					\
			name##_place(inst, tq, i, last->time, last->val); \
	}								\
	/* val leaves the heap, if it is in. */				\
	static __always_inline void name##_remove(const struct bq_instance *inst, \
						  struct bq_tq *tq, __u32 val) \
	{								\
		__u32 i = name##_slot(inst, tq, val);			\
									\
		if (i)							\
			name##_take(inst, tq, i);			\
	}								\
	/* The earliest item; false if empty. */			\
	static __always_inline bool name##_peek(const struct bq_instance *inst, \
						const struct bq_tq *tq,	\
						__u64 *time, __u32 *val) \
	{								\
		__typeof__(at(inst, 0)) e;				\
									\
		if (!tq->len)						\
			return false;					\
		e = at(inst, 1);					\
		if (!e)							\
			return false;					\
		*time = e->time;					\
		*val = e->val;						\
		return true;						\
	}								\
	/* The earliest item leaves. */					\
	static __always_inline void name##_pop(const struct bq_instance *inst, \
					       struct bq_tq *tq)	\
	{								\
		if (tq->len)						\
			name##_take(inst, tq, 1);			\
	}

/*
 * A kind that keeps its heap elsewhere (bpf_fq: in arena pages, beside the
 * flows its values name) defines BQ_TIMEQ_OPS_ONLY before including this,
 * and BQ_TIMEQ_OPS() over its own entries: no bq_timeq region then.
 */
#if defined(__bpf__) && !defined(BQ_TIMEQ_OPS_ONLY)
#include "bq/core.bpf.h"

/*
 * bq_timeq's region: bq_ring_slots entries, as many as packets. A kind
 * whose values are fewer defines, before including this, BQ_TIMEQ_PER_SLOT
 * (BQ_SLOT_MAP's n) and BQ_TIMEQ_SLOTS (the entries it gives): bpf_hbm's
 * heap holds aggregates, twice --class-slots.
 */
#ifndef BQ_TIMEQ_PER_SLOT
#define BQ_TIMEQ_PER_SLOT	BQ_PER_RING
#define BQ_TIMEQ_SLOTS		bq_ring_slots
#endif

BQ_SLOT_MAP(bq_timeq, BPF_MAP_TYPE_ARRAY, u32, struct bq_tq_ent, BQ_TIMEQ_PER_SLOT, 0);

static __always_inline struct bq_tq_ent *bq_tq_ent(const struct bq_instance *inst, u32 i)
{
	return bq_region_lookup(&bq_timeq, inst, BQ_TIMEQ_SLOTS, i);
}

BQ_TIMEQ_OPS(bq_tq, bq_tq_ent, BQ_TIMEQ_SLOTS)
#endif /* __bpf__ && !BQ_TIMEQ_OPS_ONLY */
#endif /* BQ_TIMEQ_BPF_H */
