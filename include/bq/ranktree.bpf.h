/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc rank tree: a two-level PIFO tree (Sivaraman et al., SIGCOMM
 * 2016, section 3), for hierarchical policies such as HPFQ. A root PIFO
 * over classes, and a leaf PIFO of packets per class. Enqueue finds the
 * packet's class, pushes the packet into the class's leaf at the leaf
 * transaction's rank, and pushes a reference to the class (not the
 * packet) into the root at the root transaction's rank. Dequeue pops the
 * root for a class, then pops that class's leaf: the packet that leaves
 * is the leaf's least, not necessarily the one whose enqueue pushed the
 * reference.
 *
 * The leaves are rank queues (bq/rank.bpf.h): struct bq_rq each, their
 * buckets and bitmaps in arena pages, their packets in the one pool of
 * the instance, each with the window the kind sets (bq_ranktree_window).
 * BQ_RT_LEAVES (16) per instance, 8 KiB of the kind's state (their pages
 * apart). A leaf holds a class while it has packets and is free again
 * when it empties, so 16 classes may be backlogged at once; a packet of
 * a 17th is dropped (as nomem, the tree's room). A class that returns
 * may get another leaf: what a policy keeps per class (a clock) it keeps
 * by key, not by leaf.
 *
 * The root holds class references, not packets: a reference is a (rank,
 * seq) token, seq the tree's count of references pushed, which orders
 * equal ranks by arrival as a PIFO does. A class's references are a ring
 * in arena pages (the leaf's tokens, one per packet of the leaf, so the
 * ring never holds more than the leaf), taken in the order pushed; the
 * first of each is copied beside the busy bitmap (head[]), and the root's
 * pop is the least head of the busy leaves, a scan of at most 16. That is
 * PIFO's order exactly when a class's root ranks do not fall from one
 * packet to the next: STFQ's start tags (HPFQ), a class's fixed priority,
 * a departure time. A root rank lower than its class's previous waits
 * behind it. The root compares whole ranks: it has no window and clamps
 * nothing; only the leaves do (the statistic clamped). So the root is no
 * rank queue: with at most 16 entries to order, a scan costs less than
 * the bitmaps' three levels, and a bucketed root would clamp ranks and
 * merge near ones, which the classes' shares would feel.
 *
 * Memory follows use: the tokens' pages are held by the references on
 * them and swept once empty, as the leaves' buckets are. bq_rt_least()
 * needs only __u32 and __u64: selftests/unit/test_ranktree.c checks the
 * root natively against an exact PIFO of every reference.
 */
#ifndef BQ_RANKTREE_BPF_H
#define BQ_RANKTREE_BPF_H

#include "bq/rank.bpf.h"

#define BQ_RT_LEAVES	16

/* A reference to a class in the root: its rank, and its place in the arrival order. */
struct bq_rt_token {
	__u64 rank;
	__u64 seq;
};

/* a leaves the root before b: a lower rank, or the same pushed earlier. */
static __always_inline bool bq_rt_before(const struct bq_rt_token *a, const struct bq_rt_token *b)
{
	return a->rank < b->rank || (a->rank == b->rank && a->seq < b->seq);
}

/* The root's pop: the busy leaf (bit of busy) of the least head; BQ_RQ_NONE if none is busy. */
static __always_inline __u32 bq_rt_least(const struct bq_rt_token *head, __u32 busy)
{
	__u32 i, best = BQ_RQ_NONE;

	bpf_for(i, 0, BQ_RT_LEAVES) {
		if (!(busy & (1U << i)))
			continue;
		if (best == BQ_RQ_NONE ||
		    bq_rt_before(&head[i & (BQ_RT_LEAVES - 1)], &head[best & (BQ_RT_LEAVES - 1)]))
			best = i;
	}
	return best;
}

#if defined(__bpf__)

#define BQ_RT_TOKEN_SIZE	sizeof(struct bq_rt_token)
/* A ring's entries; a leaf never holds as many packets (the pool holds fewer). */
#define BQ_RT_TOKENS		bq_pages_capacity(BQ_RT_TOKEN_SIZE)

struct bq_rt_leaf {
	struct bq_rq rq;		/* the class's packets, by leaf rank */
	struct bq_pages tokens;		/* its references in the root: a ring of struct bq_rt_token */
	__u64 key;			/* the class it holds while busy */
	__u32 first, end;		/* the ring's references: first .. end - 1, free running */
};

/* In the kind's state; all zero is empty. */
struct bq_ranktree {
	struct bq_pool_state pool;
	struct bq_rt_leaf leaf[BQ_RT_LEAVES];
	struct bq_rt_token head[BQ_RT_LEAVES];	/* each busy leaf's first reference */
	__u64 seq;				/* references pushed */
	__u32 busy;				/* bit i: leaf i holds packets */
	__u32 pad;
};

/* Every leaf's window: granularity 2^shift ranks a bucket, 2^order buckets. */
static __always_inline void bq_ranktree_window(struct bq_ranktree *t, __u32 shift, __u32 order)
{
	__u32 i;

	bpf_for(i, 0, BQ_RT_LEAVES)
		bq_rq_window_set(&t->leaf[i & (BQ_RT_LEAVES - 1)].rq.map, shift, order);
}

/* The leaf of class key (*idx): the busy one that holds it, else the first free one; NULL if none. */
static __always_inline struct bq_rt_leaf *bq_rt_leaf_of(struct bq_ranktree *t, __u64 key,
							__u32 *idx)
{
	__u32 i, free = BQ_RQ_NONE;

	bpf_for(i, 0, BQ_RT_LEAVES) {
		if (!(t->busy & (1U << i))) {
			if (free == BQ_RQ_NONE)
				free = i;
		} else if (t->leaf[i & (BQ_RT_LEAVES - 1)].key == key) {
			*idx = i;
			return &t->leaf[i & (BQ_RT_LEAVES - 1)];
		}
	}
	if (free == BQ_RQ_NONE)
		return NULL;
	*idx = free;
	t->leaf[free & (BQ_RT_LEAVES - 1)].key = key;
	return &t->leaf[free & (BQ_RT_LEAVES - 1)];
}

/* Push a reference to leaf idx into the root at rank; false without memory. */
static __always_inline bool bq_rt_ref_push(const struct bq_instance *inst, struct bq_ranktree *t,
					   __u32 idx, __u64 rank)
{
	struct bq_rt_leaf *l = &t->leaf[idx & (BQ_RT_LEAVES - 1)];
	struct bq_rt_token __arena *k;

	if (l->end - l->first >= BQ_RT_TOKENS)
		return false;
	k = bq_pages_hold(inst, &l->tokens, l->end % BQ_RT_TOKENS, BQ_RT_TOKEN_SIZE);
	if (!k)
		return false;
	k->rank = rank;
	k->seq = t->seq++;
	if (l->first == l->end)
		t->head[idx & (BQ_RT_LEAVES - 1)] = (struct bq_rt_token){ rank, k->seq };
	l->end++;
	return true;
}

/* Take back leaf l's last reference: its packet was not queued. */
static __always_inline void bq_rt_ref_unpush(struct bq_rt_leaf *l)
{
	bq_pages_release(&l->tokens, --l->end % BQ_RT_TOKENS, BQ_RT_TOKEN_SIZE);
}

/* Pop leaf idx's first reference; the next, if any, becomes its head. */
static __always_inline void bq_rt_ref_pop(const struct bq_instance *inst, struct bq_ranktree *t,
					  __u32 idx)
{
	struct bq_rt_leaf *l = &t->leaf[idx & (BQ_RT_LEAVES - 1)];
	struct bq_rt_token __arena *k;

	if (l->first == l->end)
		return;
	bq_pages_release(&l->tokens, l->first++ % BQ_RT_TOKENS, BQ_RT_TOKEN_SIZE);
	k = l->first != l->end ?
	    bq_pages_at(&l->tokens, l->first % BQ_RT_TOKENS, BQ_RT_TOKEN_SIZE) : NULL;
	if (k)
		t->head[idx & (BQ_RT_LEAVES - 1)] = (struct bq_rt_token){ k->rank, k->seq };
	bq_pages_sweep(inst, &l->tokens, BQ_RQ_SWEEP);
}

/*
 * Queue skb in leaf idx at leaf rank, and a reference to the leaf in the
 * root at root rank. Counts it, or drops it as BQ_DROP_NOMEM (no room in
 * the pool or the arena); the leaf's clamped ranks go to the statistic.
 */
static __always_inline int bq_rt_push(struct Qdisc *sch, struct bq_instance *inst,
				      struct bq_ranktree *t, __u32 idx, struct sk_buff *skb,
				      __u64 root, __u64 leaf, struct bpf_sk_buff_ptr *to_free)
{
	struct bq_rt_leaf *l = &t->leaf[idx & (BQ_RT_LEAVES - 1)];
	__u64 clamped = l->rq.map.clamped;
	int ret;

	if (!bq_rt_ref_push(inst, t, idx, root))
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_NOMEM);
	ret = bq_rq_push(sch, inst, &t->pool, &l->rq, skb, leaf, to_free);
	if (ret != NET_XMIT_SUCCESS) {
		bq_rt_ref_unpush(l);
		return ret;
	}
	t->busy |= 1U << (idx & (BQ_RT_LEAVES - 1));
	inst->cnt.x[BQ_RANK_CLAMPED] += l->rq.map.clamped - clamped;
	return ret;
}

/*
 * The root's least reference and its leaf's least packet (NULL if the
 * tree is empty); *key gets the class, *root and *leaf the two ranks.
 * Pass the packet to bq_dequeued(). A leaf emptied is free again.
 */
static __always_inline struct sk_buff *bq_rt_pop(const struct bq_instance *inst,
						 struct bq_ranktree *t, __u64 *key,
						 __u64 *root, __u64 *leaf)
{
	__u32 idx = bq_rt_least(t->head, t->busy);
	struct bq_rt_leaf *l;
	struct sk_buff *skb;

	if (idx == BQ_RQ_NONE)
		return NULL;
	idx &= BQ_RT_LEAVES - 1;
	l = &t->leaf[idx];
	*key = l->key;
	*root = t->head[idx].rank;
	skb = bq_rq_pop(inst, &t->pool, &l->rq, leaf);
	bq_rt_ref_pop(inst, t, idx);
	if (!l->rq.map.len)
		t->busy &= ~(1U << idx);
	return skb;
}

/* Give back the tree's pages (the kind's purge, after the pool's); it is empty after. */
static __always_inline void bq_ranktree_free(const struct bq_instance *inst, struct bq_ranktree *t)
{
	struct bq_rt_leaf *l;
	__u32 i;

	bpf_for(i, 0, BQ_RT_LEAVES) {
		l = &t->leaf[i & (BQ_RT_LEAVES - 1)];
		bq_rq_free(inst, &l->rq);
		bq_pages_free(inst, &l->tokens);
		l->first = l->end = 0;
	}
	t->busy = 0;
}

/* --- a qdisc from a root and a leaf transaction ----------------------------- *
 *
 * BQ_RANKTREE_QDISC(hpfq, struct hpfq_sched, hpfq_class, hpfq_root_rank,
 * hpfq_root_served, hpfq_leaf_rank, hpfq_leaf_served, hpfq_setup, release)
 * makes kind bpf_hpfq whole, as BQ_RANK_QDISC does a one-level kind: the
 * state has a struct bq_ranktree `tree`, the parameters a `limit`, the
 * statistics start with "clamped" (BQ_RANK_XSTATS). The policy's functions,
 * opened by the macros below (sch, inst, q, p, skb in scope as in BQ_RANK;
 * key, the class, in the ranks and the served):
 *	__u64 class(sch, inst, q, p, skb)		the packet's class key
 *	__u64 root_rank(sch, inst, q, p, skb, key)	the class reference's rank
 *	__u64 leaf_rank(sch, inst, q, p, skb, key)	the packet's rank in its class
 *	void root_served(inst, q, key, rank)		a reference of rank left the root
 *	void leaf_served(inst, q, key, rank)		a packet of rank left key's leaf
 *	int setup(sch, inst, q)				the leaves' window
 *							(bq_ranktree_window), the
 *							policy's own state
 * and release, BQ_QDISC_OPS'.
 */
#define BQ_RANKTREE_QDISC(name, T, class, root_rank, root_served, leaf_rank, leaf_served, \
			  setup, release)					\
	BQ_ENQUEUE(name)						\
	{								\
		__u64 key;						\
		__u32 idx;						\
		BQ_RANK_ADMIT(T);					\
									\
		key = class(sch, inst, q, p, skb);			\
		if (!bq_rt_leaf_of(&q->tree, key, &idx))		\
			return bq_drop(sch, inst, skb, to_free, BQ_DROP_NOMEM); \
		return bq_rt_push(sch, inst, &q->tree, idx, skb,	\
				  root_rank(sch, inst, q, p, skb, key),	\
				  leaf_rank(sch, inst, q, p, skb, key), to_free); \
	}								\
	BQ_DEQUEUE(name)						\
	{								\
		struct bq_instance *inst = NULL;			\
		T *q = BQ_RANK_DEQUEUING(sch, inst);			\
		__u64 key, root, leaf;					\
		struct sk_buff *skb;					\
									\
		if (!q)							\
			return NULL;					\
		skb = bq_rt_pop(inst, &q->tree, &key, &root, &leaf);	\
		if (skb) {						\
			root_served(inst, q, key, root);		\
			leaf_served(inst, q, key, leaf);		\
		}							\
		return bq_dequeued(sch, inst, skb);			\
	}								\
	static __always_inline void name##_purge(struct Qdisc *sch, struct bq_instance *inst, \
						 T *q)			\
	{								\
		bq_pool_purge(sch, inst, &q->tree.pool);		\
		bq_ranktree_free(inst, &q->tree);			\
	}								\
	BQ_QDISC_OPS(name, setup, name##_purge, release)

/* The policy's functions, opened as BQ_RANK opens a rank function. */
#define BQ_RANKTREE_CLASS(name, T)					\
	static __always_inline __u64 name##_class(struct Qdisc *sch, struct bq_instance *inst, \
						  T *q, const bq_kind_params_t *p, \
						  struct sk_buff *skb)
#define BQ_RANKTREE_ROOT(name, T)					\
	static __always_inline __u64 name##_root_rank(struct Qdisc *sch, struct bq_instance *inst, \
						      T *q, const bq_kind_params_t *p, \
						      struct sk_buff *skb, __u64 key)
#define BQ_RANKTREE_LEAF(name, T)					\
	static __always_inline __u64 name##_leaf_rank(struct Qdisc *sch, struct bq_instance *inst, \
						      T *q, const bq_kind_params_t *p, \
						      struct sk_buff *skb, __u64 key)
#define BQ_RANKTREE_ROOT_SERVED(name, T)				\
	static __always_inline void name##_root_served(struct bq_instance *inst, T *q, \
						       __u64 key, __u64 rank)
#define BQ_RANKTREE_LEAF_SERVED(name, T)				\
	static __always_inline void name##_leaf_served(struct bq_instance *inst, T *q, \
						       __u64 key, __u64 rank)
#endif /* __bpf__ */
#endif /* BQ_RANKTREE_BPF_H */
