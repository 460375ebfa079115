// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_hpfq: hierarchical packet fair queueing (Bennett and Zhang, 1996)
 * as a two-level PIFO tree (bq/ranktree.bpf.h): weighted fair queueing
 * between classes at the root, fair queueing between the flows of each
 * class in its leaf. The PIFO paper's HPFQ: three nodes, each an STFQ
 * transaction (start-time fair queueing, Goyal et al. 1996).
 *
 * Root: a packet's class gets a start tag, the later of the root's
 * virtual time and the class's last finish tag; the class's finish tag
 * moves on by the packet's length over the class's weight; the rank of
 * the class's reference is the start tag, and the root's virtual time is
 * the rank of the reference it last served. So backlogged classes share
 * the link in proportion to their weights, whatever flows they hold.
 * Leaf: the same between the class's flows, with equal weights and the
 * class's own virtual time (the start tag of its last packet served): a
 * class's share is split equally between its backlogged flows, and a
 * class's many flows take nothing from another class. PIFO's HPFQ is 18
 * lines (3 nodes of 6); ours is 16 (hpfq_class 1, hpfq_root_rank 5,
 * hpfq_root_served 1, hpfq_leaf_rank 6, hpfq_leaf_served 3).
 *
 * Classes as bpf_wfq's (bq/classify.bpf.h): the classify parameter picks
 * the key, the sending socket's cgroup (0), the mark (1) or the priority
 * (2); `bpfqdisc class add dev D root KEY weight W` gives a key its
 * weight, every other key has the weight parameter. At most 16 classes
 * hold packets at once (the tree's leaves); a packet of a 17th is
 * dropped (nomem). A flow is the packet's hash (bpf_skb_get_hash: a
 * local socket's txhash, else the 4-tuple's), as fq_codel's.
 *
 * Tags are kept by key in LRU hashes (bq_rank_value): hpfq_class_tags
 * and hpfq_vtimes (a class's finish tag and virtual time, --class-slots
 * per instance), hpfq_flow_tags (a flow's finish tag, 16 per class
 * slot), named by the qdisc's generation and its resets, so that a reset
 * forgets them; a key a table lost starts at the virtual time, as an idle
 * one does.
 *
 * Ranks are bytes over weight: each leaf's window (rank_shift, rank_order:
 * 2^18 buckets of 256 by default, 64 MB) must hold the backlog of its
 * slowest flow; beyond it, ranks are clamped (the statistic clamped) and
 * a flow is served late or early, never lost. The root has no window.
 */
#include "bq/core.bpf.h"
#include "bq/ranktree.bpf.h"
#include "bq/class.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define HPFQ_CLASSES	256
#define HPFQ_WEIGHT_MAX	1000000

BQ_CLASS_SLOTS(HPFQ_CLASSES);

struct hpfq_params {
	__u64 limit, classify, weight, rank_shift, rank_order;
};

BQ_PARAMS(struct hpfq_params,
	BQ_RANK_LIMIT_PARAM(10000),
	BQ_RANK_CLASSIFY_PARAM,
	BQ_PARAM(weight, BQ_UNIT_COUNT, 1, 1, HPFQ_WEIGHT_MAX),
	BQ_RANK_WINDOW_PARAMS(8),
);

BQ_RANK_XSTATS();

struct hpfq_class {
	__u64 weight;
};

BQ_CLASSES(hpfq_classes, struct hpfq_class, BQ_PER_CLASS(HPFQ_CLASSES),
	BQ_CLASS_BY_PARAM(classify),
	BQ_CLASS_FIELD(weight, BQ_UNIT_COUNT, 1, HPFQ_WEIGHT_MAX, "weight", ""),
);
#include "bq/classify.bpf.h"

/* By key (bq_rank_value): a class's finish tag and virtual time, a flow's finish tag. */
BQ_SLOT_MAP(hpfq_class_tags, BPF_MAP_TYPE_LRU_HASH, struct bq_class_key, __u64,
	    BQ_PER_CLASS(HPFQ_CLASSES), 0);
BQ_SLOT_MAP(hpfq_vtimes, BPF_MAP_TYPE_LRU_HASH, struct bq_class_key, __u64,
	    BQ_PER_CLASS(HPFQ_CLASSES), 0);
BQ_SLOT_MAP(hpfq_flow_tags, BPF_MAP_TYPE_LRU_HASH, struct bq_class_key, __u64,
	    BQ_PER_CLASS_SHIFT(HPFQ_CLASSES, 4), 0);	/* 16 flows a class slot */

struct hpfq_sched {
	struct bq_ranktree tree;
	__u64 vtime;		/* the root's: the rank of the last reference served */
};

BQ_STATE(struct hpfq_sched);

BQ_RANKTREE_CLASS(hpfq, struct hpfq_sched)
{
	return bq_sender_key(inst, skb, p->classify);
}

BQ_RANKTREE_ROOT(hpfq, struct hpfq_sched)
{
	__u64 *f = bq_rank_value(&hpfq_class_tags, inst, key);
	__u64 start = f && *f > q->vtime ? *f : q->vtime;

	if (f)
		*f = start + bq_pkt_len(skb) / bq_class_or(inst, key, weight, p->weight);
	return start;
}

BQ_RANKTREE_ROOT_SERVED(hpfq, struct hpfq_sched)
{
	q->vtime = rank;
}

BQ_RANKTREE_LEAF(hpfq, struct hpfq_sched)
{
	__u64 *f = bq_rank_value(&hpfq_flow_tags, inst, bpf_skb_get_hash(skb));
	__u64 *v = bq_rank_value(&hpfq_vtimes, inst, key), vtime = v ? *v : 0;
	__u64 start = f && *f > vtime ? *f : vtime;

	if (f)
		*f = start + bq_pkt_len(skb);
	return start;
}

BQ_RANKTREE_LEAF_SERVED(hpfq, struct hpfq_sched)
{
	__u64 *v = bq_rank_value(&hpfq_vtimes, inst, key);

	if (v)
		*v = rank;
}

static int hpfq_setup(struct Qdisc *sch, struct bq_instance *inst, struct hpfq_sched *q)
{
	const struct hpfq_params *p = bq_kind_params(bq_params_of(inst));

	bq_ranktree_window(&q->tree, p->rank_shift, p->rank_order);
	return 0;
}

/* Classes are configuration: a reset keeps them, the qdisc's end does not. */
BQ_RANKTREE_QDISC(hpfq, struct hpfq_sched, hpfq_class, hpfq_root_rank, hpfq_root_served,
		  hpfq_leaf_rank, hpfq_leaf_served, hpfq_setup, BQ_CLASSES_RELEASE);
