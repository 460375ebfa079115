// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_toobig: a qdisc whose enqueue the verifier refuses as too large
 * (E2BIG), with every map made. Only bin/bpfqdisc_test knows it
 * (selftests/bpf/qdiscs.def), for test_cli_state: bpfqdisc load must say
 * the program is too large, not that the maps could not be allocated.
 *
 * Too large by its number of functions: 272 subprograms, past the
 * verifier's 256 (BPF_MAX_SUBPROGS). The verifier counts them before it
 * walks a single instruction, so the refusal costs nothing. Too large by
 * length instead (a loop the verifier walks 1M instructions of) took the
 * test VM 70 s on the virtual clock.
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

/* Each depends on its argument, so clang keeps every call. */
#define TOOBIG_SUB(n) \
	static __noinline __u32 toobig_sub_##n(__u32 x) { return x * 3 + 0x##n; }
#define TOOBIG_CALL(n) sum += toobig_sub_##n(sum);
#define TOOBIG_16(fn, h) fn(h##0) fn(h##1) fn(h##2) fn(h##3) fn(h##4) fn(h##5) \
	fn(h##6) fn(h##7) fn(h##8) fn(h##9) fn(h##a) fn(h##b) fn(h##c) fn(h##d) \
	fn(h##e) fn(h##f)
#define TOOBIG_272(fn) TOOBIG_16(fn, 0) TOOBIG_16(fn, 1) TOOBIG_16(fn, 2) \
	TOOBIG_16(fn, 3) TOOBIG_16(fn, 4) TOOBIG_16(fn, 5) TOOBIG_16(fn, 6) \
	TOOBIG_16(fn, 7) TOOBIG_16(fn, 8) TOOBIG_16(fn, 9) TOOBIG_16(fn, a) \
	TOOBIG_16(fn, b) TOOBIG_16(fn, c) TOOBIG_16(fn, d) TOOBIG_16(fn, e) \
	TOOBIG_16(fn, f) TOOBIG_16(fn, 10)

TOOBIG_272(TOOBIG_SUB)

/* It never loads: every packet would be dropped, the queue always empty. */
BQ_ENQUEUE(toobig)
{
	const struct toobig_params *p;
	struct bq_instance *inst;
	__u32 sum = skb->len;

	bq_enter(sch, &inst, &p);
	TOOBIG_272(TOOBIG_CALL)
	/* sum is used, or clang would drop the calls as pure. */
	return bq_drop(sch, inst, skb, to_free, sum ? BQ_DROP_OVERLIMIT : BQ_DROP_NOMEM);
}

BQ_DEQUEUE(toobig)
{
	return NULL;
}

static int toobig_setup(struct Qdisc *sch, struct bq_instance *inst, struct toobig_sched *q)
{
	return 0;
}

static __always_inline void toobig_purge(struct Qdisc *sch, struct bq_instance *inst,
					 struct toobig_sched *q)
{
}

BQ_QDISC_OPS(toobig, toobig_setup, toobig_purge);
