// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_rankq: a qdisc made of a rank function (bq/rank.bpf.h), as framework
 * 2.4 first had it: packets leave by their mark, the lowest first, equal
 * marks in arrival order; 256 buckets of one rank, marks past them
 * clamped. Frozen: a later minor must still build and load it
 * (test_load_frozen).
 */
#include "bq/core.bpf.h"
#include "bq/rank.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct rankq_params {
	__u64 limit;
};

BQ_PARAMS(struct rankq_params,
	BQ_RANK_LIMIT_PARAM(1000),
);

BQ_RANK_XSTATS();

struct rankq_sched {
	struct bq_pifo pifo;
};

BQ_STATE(struct rankq_sched);

BQ_RANK(rankq, struct rankq_sched)
{
	return skb->mark;
}

static int rankq_setup(struct Qdisc *sch, struct bq_instance *inst, struct rankq_sched *q)
{
	bq_pifo_window(&q->pifo, 0, 8);
	return 0;
}

BQ_RANK_QDISC(rankq, struct rankq_sched, rankq_rank, BQ_RANK_NOTHING_SERVED, rankq_setup,
	      BQ_NO_RELEASE);
