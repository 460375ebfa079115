// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_toobig: a qdisc whose enqueue the verifier refuses as too large
 * (E2BIG: more than its 1M processed instructions), with every map made.
 * Only bin/bpfqdisc_test knows it (selftests/bpf/qdiscs.def), for
 * test_cli_state: bpfqdisc load must say the program is too large, not
 * that the maps could not be allocated.
 */
#include "bq/core.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct toobig_params {
	__u64 limit;
};

BQ_PARAMS(struct toobig_params,
	BQ_PARAM(limit, BQ_UNIT_COUNT, 1000, 1, 1 << 20),
);

struct toobig_sched {
	__u64 unused;
};

BQ_STATE(struct toobig_sched);

/* It never loads: every packet would be dropped, the queue always empty. */
BQ_ENQUEUE(toobig)
{
	const struct toobig_params *p;
	struct bq_instance *inst;
	volatile u64 sum = 0;

	bq_enter(sch, &inst, &p);

	/* A counter the verifier knows exactly: it walks every iteration. */
#pragma clang loop unroll(disable)
	for (u32 i = 0; i < 1000000; i++)
		sum += i;
	return bq_drop(sch, inst, skb, to_free, BQ_DROP_OVERLIMIT);
}

BQ_DEQUEUE(toobig)
{
	return NULL;
}

static int toobig_setup(struct bq_instance *inst, struct toobig_sched *q)
{
	return 0;
}

static __always_inline void toobig_purge(struct Qdisc *sch, struct bq_instance *inst,
					 struct toobig_sched *q)
{
}

BQ_QDISC_OPS(toobig, toobig_setup, toobig_purge);
