// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_rankmark (bin/bpfqdisc_test only): a kind made of a rank function,
 * the packet's mark, its window from the parameters rank_shift and
 * rank_order, and a hold: while hold is on, dequeue gives nothing. So
 * test_rank_oracle queues a whole trace of marks, lets it go, and compares
 * the order the packets reach the receiver in with the exact PIFO's
 * (tools/pifo), and the statistic clamped with its count of ranks out of
 * the window.
 */
#define BQ_RANK_HOLD(p)	((p)->hold)
#include "bq/core.bpf.h"
#include "bq/rank.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct rankmark_params {
	__u64 limit, hold, rank_shift, rank_order;
};

BQ_PARAMS(struct rankmark_params,
	BQ_RANK_LIMIT_PARAM(1000),
	BQ_PARAM(hold, BQ_UNIT_BOOL, 0, 0, 1),
	BQ_RANK_WINDOW_PARAMS(0),
);

BQ_RANK_XSTATS();

struct rankmark_sched {
	struct bq_pifo pifo;
};

BQ_STATE(struct rankmark_sched);

BQ_RANK(rankmark, struct rankmark_sched)
{
	return skb->mark;
}

BQ_RANK_WINDOW_SETUP(rankmark_setup, struct rankmark_sched)

BQ_RANK_QDISC(rankmark, struct rankmark_sched, rankmark_rank, BQ_RANK_NOTHING_SERVED,
	      rankmark_setup, BQ_NO_RELEASE);
