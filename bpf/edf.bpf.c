// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_edf: earliest deadline first, as a rank function.
 *
 * A packet's deadline is its arrival time plus its class's deadline, and
 * the rank is the deadline: the rank queue (bq/rank.bpf.h) serves the
 * earliest, equal deadlines in arrival order. A class with a short
 * deadline goes ahead of packets of longer ones that arrived up to the
 * difference before it, and no further: a packet that has waited long
 * enough goes before fresh ones of a tighter class, so nobody starves
 * (where strict priority would starve them). PIFO's transaction is one
 * line (p.rank = p.deadline; the issue's table has none for EDF); ours
 * is two, the class's lookup included.
 *
 * Classes as bpf_hbm's (bq/classify.bpf.h): the classify parameter picks
 * the key (cgroup, mark, priority), `bpfqdisc class add dev D root KEY
 * deadline 1ms` gives it a deadline, every other key has the deadline
 * parameter. Ranks are nanoseconds; the window (rank_shift 10, rank_order
 * 18: 2^18 buckets of 1.024 us, 268 ms) must hold the longest deadline
 * plus the queue's delay, or later deadlines are clamped to its end (the
 * statistic clamped) and served in arrival order there. The window is
 * read when the qdisc is created or reset.
 */
#include "bq/core.bpf.h"
#include "bq/rank.bpf.h"
#include "bq/class.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define EDF_CLASSES		256
#define EDF_DEADLINE_MAX	(60ULL * 1000000000)	/* 60 s */

BQ_CLASS_SLOTS(EDF_CLASSES);

struct edf_params {
	__u64 limit, classify, deadline, rank_shift, rank_order;
};

BQ_PARAMS(struct edf_params,
	BQ_RANK_LIMIT_PARAM(10000),
	BQ_RANK_CLASSIFY_PARAM,
	BQ_PARAM(deadline, BQ_UNIT_TIME, 100000000, 0, EDF_DEADLINE_MAX),
	BQ_RANK_WINDOW_PARAMS(10),
);

BQ_RANK_XSTATS();

struct edf_class {
	__u64 deadline;
};

BQ_CLASSES(edf_classes, struct edf_class, BQ_PER_CLASS(EDF_CLASSES), BQ_CLASS_BY_PARAM(classify),
	BQ_CLASS_FIELD(deadline, BQ_UNIT_TIME, 0, EDF_DEADLINE_MAX, "deadline", ""),
);
#include "bq/classify.bpf.h"

struct edf_sched {
	struct bq_pifo pifo;
};

BQ_STATE(struct edf_sched);

BQ_RANK(edf, struct edf_sched)
{
	struct edf_class *c = bq_class(inst, bq_sender_key(inst, skb, p->classify));

	return bpf_ktime_get_ns() + (c ? c->deadline : p->deadline);
}

BQ_RANK_WINDOW_SETUP(edf_setup, struct edf_sched)

/* Classes are configuration: a reset keeps them, the qdisc's end does not. */
BQ_RANK_QDISC(edf, struct edf_sched, edf_rank, BQ_RANK_NOTHING_SERVED, edf_setup, BQ_CLASSES_RELEASE);
