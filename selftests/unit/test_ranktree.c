// SPDX-License-Identifier: GPL-2.0
/*
 * The rank tree's root (include/bq/ranktree.bpf.h), natively, against an
 * exact two-level PIFO tree. Random traces push packets of up to 16
 * classes, each with a root rank (rising within its class, as STFQ's start
 * tags do, and often equal across classes) and a leaf rank, and pop. The
 * tree under test keeps each class's references as a FIFO and pops the
 * least first reference by bq_rt_least(); the exact tree keeps every
 * reference in one PIFO sorted by (rank, arrival). Both pop their class's
 * least leaf rank (earliest among equal ones): the leaves are rank queues,
 * which test_rank checks. The departures must be the same.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "bpfqdisc.h"
#include "unit.h"
#define __noinline __attribute__((noinline))
#define bpf_for(i, start, end)	for ((i) = (start); (i) < (end); (i)++)
#include "bq/ranktree.bpf.h"

#define PKTS	12000

struct pkt {
	__u32 class;
	__u64 root, leaf;	/* the ranks it was pushed with */
	bool held;		/* in its leaf */
	bool ref;		/* its reference is in the exact root */
};

static struct pkt pkts[PKTS];
static __u32 npkts;

/* The tree under test: per class a FIFO of references, and their heads. */
static struct bq_rt_token ring[BQ_RT_LEAVES][PKTS], head[BQ_RT_LEAVES];
static __u32 first[BQ_RT_LEAVES], end[BQ_RT_LEAVES], busy;

/* Class c's held packet of least (leaf rank, arrival); PKTS if none. */
static __u32 leaf_least(__u32 c)
{
	__u32 best = PKTS;

	for (__u32 i = 0; i < npkts; i++)
		if (pkts[i].held && pkts[i].class == c &&
		    (best == PKTS || pkts[i].leaf < pkts[best].leaf))
			best = i;
	return best;
}

/* The exact root: the class of the least (rank, arrival) of every reference; PKTS if none. */
static __u32 exact_root(void)
{
	__u32 best = PKTS;

	for (__u32 i = 0; i < npkts; i++)
		if (pkts[i].ref && (best == PKTS || pkts[i].root < pkts[best].root))
			best = i;
	if (best != PKTS)
		pkts[best].ref = false;
	return best == PKTS ? PKTS : pkts[best].class;
}

static void tree_push(__u32 c, __u64 root, __u64 leaf)
{
	struct bq_rt_token t = { root, npkts };

	pkts[npkts++] = (struct pkt){ c, root, leaf, true, true };
	if (first[c] == end[c])
		head[c] = t;
	ring[c][end[c]++] = t;
	busy |= 1U << c;
}

/* The class bq_rt_least() pops, its head moved on; PKTS if none. */
static __u32 tree_root(void)
{
	__u32 c = bq_rt_least(head, busy);

	if (c == BQ_RQ_NONE)
		return PKTS;
	if (++first[c] != end[c])
		head[c] = ring[c][first[c]];
	else
		busy &= ~(1U << c);
	return c;
}

/*
 * A trace of n events over `classes` classes: each class's root rank rises
 * by 0..rise a push (0: ties within and across classes), leaf ranks spread
 * over 0..spread; pops in runs, so that the tree fills and drains. The
 * departures, class by class, must be the exact tree's.
 */
static void against_exact(__u32 classes, __u64 rise, __u64 spread, unsigned int seed)
{
	__u64 root[BQ_RT_LEAVES] = { 0 };
	__u32 i, c, want, got, pops = 0;
	int bias = 0;

	memset(pkts, 0, sizeof(pkts));
	memset(first, 0, sizeof(first));
	memset(end, 0, sizeof(end));
	npkts = busy = 0;
	srand(seed);
	for (i = 0; npkts < PKTS - 1; i++) {
		if (i % 2048 == 0)
			bias = rand() % 3 - 1;
		if (rand() % 4 >= 2 - bias) {
			c = rand() % classes;
			root[c] += rise ? rand() % (rise + 1) : 0;
			tree_push(c, root[c], spread ? rand() % spread : 0);
			continue;
		}
		want = exact_root();
		got = tree_root();
		EXPECT(got == want, "pop %u: class %u, the exact tree's %u", pops, got, want);
		if (got != want)
			break;
		if (want == PKTS)	/* both empty */
			continue;
		pkts[leaf_least(want)].held = false;
		pops++;
	}
	EXPECT(pops > PKTS / 4, "only %u pops", pops);
}

/* 16 classes, rising root ranks, few ties. */
static void ranktree_rising(void)
{
	against_exact(BQ_RT_LEAVES, 1000, 5000, 21);
}

/* Equal root ranks within and across classes: arrival order decides. */
static void ranktree_ties(void)
{
	against_exact(BQ_RT_LEAVES, 2, 3, 22);
	against_exact(3, 0, 10, 23);
}

/* Two classes, as bpf_hpfq's test: the root alternates by rank. */
static void ranktree_two(void)
{
	against_exact(2, 40, 100, 24);
}

/* No busy leaf, no pop; one busy leaf is the least whatever its head. */
static void ranktree_least_edges(void)
{
	struct bq_rt_token h[BQ_RT_LEAVES] = { [15] = { ~0ULL, ~0ULL } };

	EXPECT(bq_rt_least(h, 0) == BQ_RQ_NONE, "a pop of an empty root");
	EXPECT(bq_rt_least(h, 1U << 15) == 15, "the only busy leaf");
	h[3] = (struct bq_rt_token){ 5, 9 };
	h[7] = (struct bq_rt_token){ 5, 8 };
	EXPECT(bq_rt_least(h, 1U << 3 | 1U << 7 | 1U << 15) == 7, "equal ranks: the earlier");
}

int main(void)
{
	unit_file = "ranktree";
	RUN(ranktree_least_edges);
	RUN(ranktree_rising);
	RUN(ranktree_ties);
	RUN(ranktree_two);
	return unit_failed;
}
