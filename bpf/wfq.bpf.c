// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_wfq: weighted fair queueing between classes, as a rank function:
 * start-time fair queueing (STFQ, Goyal et al. 1996), the PIFO paper's
 * WFQ transaction.
 *
 * Each packet gets a start tag, the later of the virtual time and its
 * class's last finish tag; its class's finish tag moves on by the
 * packet's length over the class's weight; the rank is the start tag.
 * Dequeue serves the least start tag and sets the virtual time to it. So
 * backlogged classes share the link in proportion to their weights, and a
 * class that was idle starts at the virtual time, with no credit saved up.
 * PIFO's transaction is 6 lines; ours is 6 (wfq_rank, wfq_served).
 *
 * Classes as bpf_hbm's (bq/classify.bpf.h): the classify parameter picks
 * the key, the sending socket's cgroup (0, the deepest with a class), the
 * mark (1) or the priority (2); `bpfqdisc class add dev D root KEY weight
 * W` gives a key its weight, every other key has the weight parameter.
 * Finish tags are kept per key in an LRU hash (wfq_tags, --class-slots per
 * instance), named by the qdisc's generation and its resets, so that a
 * reset forgets them; a key the table lost starts at the virtual time, as
 * an idle one does.
 *
 * Ranks are bytes over weight: the window (rank_shift, rank_order: 2^18
 * buckets of 256 by default, 64 MB at weight 1) must hold the backlog of
 * the slowest class over its weight; beyond it, ranks are clamped (the
 * statistic clamped) and a class is served late or early, never lost.
 * The window is read when the qdisc is created or reset.
 */
#include "bq/core.bpf.h"
#include "bq/rank.bpf.h"
#include "bq/class.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define WFQ_CLASSES	256
#define WFQ_WEIGHT_MAX	1000000

BQ_CLASS_SLOTS(WFQ_CLASSES);

struct wfq_params {
	__u64 limit, classify, weight, rank_shift, rank_order;
};

BQ_PARAMS(struct wfq_params,
	BQ_RANK_LIMIT_PARAM(10000),
	BQ_RANK_CLASSIFY_PARAM,
	BQ_PARAM(weight, BQ_UNIT_COUNT, 1, 1, WFQ_WEIGHT_MAX),
	BQ_RANK_WINDOW_PARAMS(8),
);

BQ_RANK_XSTATS();

struct wfq_class {
	__u64 weight;
};

BQ_CLASSES(wfq_classes, struct wfq_class, BQ_PER_CLASS(WFQ_CLASSES), BQ_CLASS_BY_PARAM(classify),
	BQ_CLASS_FIELD(weight, BQ_UNIT_COUNT, 1, WFQ_WEIGHT_MAX, "weight", ""),
);
#include "bq/classify.bpf.h"

/* Finish tags by key: the last finish tag of each class that sent. */
BQ_SLOT_MAP(wfq_tags, BPF_MAP_TYPE_LRU_HASH, struct bq_class_key, __u64, BQ_PER_CLASS(WFQ_CLASSES), 0);

struct wfq_sched {
	struct bq_pifo pifo;
	__u64 vtime;		/* the start tag of the last packet served */
};

BQ_STATE(struct wfq_sched);

static __always_inline __u64 wfq_weight(const struct bq_instance *inst,
					const struct wfq_params *p, __u64 key)
{
	struct wfq_class *c = bq_class(inst, key);

	return c ? c->weight : p->weight;
}

BQ_RANK(wfq, struct wfq_sched)
{
	__u64 key = bq_sender_key(inst, skb, p->classify), *f = bq_rank_value(&wfq_tags, inst, key);
	__u64 start = f && *f > q->vtime ? *f : q->vtime;

	if (f)
		*f = start + bq_pkt_len(skb) / wfq_weight(inst, p, key);
	return start;
}

BQ_RANK_SERVED(wfq, struct wfq_sched)
{
	q->vtime = rank;
}

BQ_RANK_WINDOW_SETUP(wfq_setup, struct wfq_sched)

/* Classes are configuration: a reset keeps them, the qdisc's end does not. */
BQ_RANK_QDISC(wfq, struct wfq_sched, wfq_rank, wfq_served, wfq_setup, BQ_CLASSES_RELEASE);
