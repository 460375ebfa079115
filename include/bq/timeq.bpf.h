/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc time queue: a min-heap of (time, value) per instance.
 *
 * For what must happen in time order: flows throttled until their next
 * departure (fq), aggregates until their next departure (hbm). Each
 * instance owns bq_ring_slots entries of bq_timeq (so bq_ring_slots - 1
 * items); push and pop cost O(log n) array steps, peek O(1). Equal times
 * come out in no particular order. There is no removal by value: a qdisc
 * that changes its mind marks the item stale in its own state and skips it
 * when it comes out (as fq does).
 */
#ifndef BQ_TIMEQ_BPF_H
#define BQ_TIMEQ_BPF_H

#include "bq/core.bpf.h"

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

static __always_inline struct bq_tq_ent *bq_tq_ent(const struct bq_instance *inst, u32 i)
{
	return bq_region_lookup(&bq_timeq, inst, bq_ring_slots, i);
}

/* Entry i becomes (time, val): where a sift ends. */
static __always_inline void bq_tq_set(const struct bq_instance *inst, u32 i, u64 time, u32 val)
{
	struct bq_tq_ent *e = bq_tq_ent(inst, i);

	if (e) {
		e->time = time;
		e->val = val;
	}
}

/* 0, or -ENOSPC when the instance's heap is full. */
static __always_inline int bq_tq_push(const struct bq_instance *inst, struct bq_tq *tq,
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
		pe = bq_tq_ent(inst, par);
		ce = bq_tq_ent(inst, i);
		if (!pe || !ce || pe->time <= time)
			break;
		*ce = *pe;
		i = par;
	}
	bq_tq_set(inst, i, time, val);
	return 0;
}

/* The earliest item; false if empty. */
static __always_inline bool bq_tq_peek(const struct bq_instance *inst, const struct bq_tq *tq,
				       u64 *time, u32 *val)
{
	struct bq_tq_ent *e;

	if (!tq->len)
		return false;
	e = bq_tq_ent(inst, 1);
	if (!e)
		return false;
	*time = e->time;
	*val = e->val;
	return true;
}

/* Remove the earliest item. */
static __always_inline void bq_tq_pop(const struct bq_instance *inst, struct bq_tq *tq)
{
	struct bq_tq_ent *e, *ce, *ce2, *ie;
	u64 ltime;
	u32 lval, i = 1, c, k, len;

	if (!tq->len)
		return;
	e = bq_tq_ent(inst, tq->len);
	len = --tq->len;
	if (!e || !len)
		return;
	ltime = e->time;
	lval = e->val;
	bpf_for(k, 0, BQ_TQ_MAX_DEPTH) {
		c = i << 1;
		if (c > len)
			break;
		ce = bq_tq_ent(inst, c);
		if (!ce)
			break;
		if (c + 1 <= len) {
			ce2 = bq_tq_ent(inst, c + 1);
			if (ce2 && ce2->time < ce->time) {
				ce = ce2;
				c++;
			}
		}
		if (ltime <= ce->time)
			break;
		ie = bq_tq_ent(inst, i);
		if (!ie)
			break;
		*ie = *ce;
		i = c;
	}
	bq_tq_set(inst, i, ltime, lval);
}
#endif /* BQ_TIMEQ_BPF_H */
