// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_toobig: a qdisc whose enqueue the verifier refuses as too large
 * (E2BIG: more than its 1M processed instructions), with every map made.
 * Only bin/bpfqdisc_test knows it (selftests/bpf/qdiscs.def), for
 * test_cli_state: bpfqdisc load must say the program is too large, not
 * that the maps could not be allocated.
 */
#include "bpfqdisc.bpf.h"

char LICENSE[] SEC("license") = "GPL";

BQ_PARAMS(
	{ "limit", BQ_UNIT_COUNT, 1000, 1, BQ_DEFAULT_RING_SLOTS },
);

/* It never loads: every packet would be dropped, the queue always empty. */
SEC("struct_ops")
int BPF_PROG(toobig_enqueue, struct sk_buff *skb, struct Qdisc *sch,
	     struct bpf_sk_buff_ptr *to_free)
{
	volatile u64 sum = 0;

	/* A counter the verifier knows exactly: it walks every iteration. */
#pragma clang loop unroll(disable)
	for (u32 i = 0; i < 1000000; i++)
		sum += i;
	return bq_drop(sch, bq_instance(sch), skb, to_free, BQ_DROP_OVERLIMIT);
}

SEC("struct_ops")
struct sk_buff *BPF_PROG(toobig_dequeue, struct Qdisc *sch)
{
	return NULL;
}

BQ_QDISC_OPS(toobig);
