// SPDX-License-Identifier: GPL-2.0
/*
 * The rank queue (include/bq/rank.bpf.h), natively, against the exact
 * PIFO of tools/pifo/oracle.c: random traces of pushes and pops through
 * its window, bitmaps and buckets, the departure order compared with the
 * oracle's (the same, so 0 inversions), and its clamp counter with the
 * oracle's count of ranks out of the window. The buckets' FIFOs here are
 * arrays, as the pool's queues are in BPF.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "bpfqdisc.h"
#include "unit.h"
#define __noinline __attribute__((noinline))
#include "bq/rank.bpf.h"
#include "../../tools/pifo/oracle.h"

#define WORDS	(BQ_RQ_L1 + (1 << BQ_RQ_MAX_ORDER) / 64)
#define PKTS	200000

/* A rank queue whose words are an array, each there once reached, as an arena page would be. */
struct native_rq {
	struct bq_rq_map map;
	__u64 words[WORDS];
	bool reached[WORDS];
	__u32 head[1 << BQ_RQ_MAX_ORDER], tail[1 << BQ_RQ_MAX_ORDER], len[1 << BQ_RQ_MAX_ORDER];
	__u32 next[PKTS];
	__u32 words_reached;
};

static __u64 *word_at(const struct bq_instance *inst, struct native_rq *rq, __u32 i, bool reach)
{
	if (i >= WORDS)
		return NULL;
	if (reach && !rq->reached[i]) {
		rq->reached[i] = true;
		rq->words_reached++;
	}
	return rq->reached[i] ? &rq->words[i] : NULL;
}

BQ_RQ_OPS(nrq, struct native_rq, word_at)

static struct native_rq rq;
/* What the functions take for the instance, which the native words do not read. */
static const struct bq_instance *const inst = (const void *)&rq;

static void rq_init(struct pifo_window w)
{
	memset(&rq, 0, sizeof(rq));
	bq_rq_window_set(&rq.map, w.shift, w.order);
}

/* What bq_rq_push() does, with an array for the pool's queue. */
static void rq_push(__u32 id, __u64 rank)
{
	__u32 slot = bq_rq_bucket_of(&rq.map, rank) & bq_rq_mask(&rq.map);

	if (!rq.len[slot]) {
		EXPECT(nrq_set(inst, &rq, slot), "no word for slot %u", slot);
		rq.head[slot] = id;
	} else {
		rq.next[rq.tail[slot]] = id;
	}
	rq.tail[slot] = id;
	rq.len[slot]++;
	rq.map.len++;
}

/* What bq_rq_pop() does; false if empty. */
static bool rq_pop(__u32 *id)
{
	__u32 slot = rq.map.len ? nrq_first(inst, &rq) : BQ_RQ_NONE;

	if (slot == BQ_RQ_NONE)
		return false;
	EXPECT(rq.len[slot], "slot %u found busy is empty", slot);
	rq.map.base = bq_rq_bucket_at(&rq.map, slot);
	*id = rq.head[slot];
	rq.head[slot] = rq.next[*id];
	if (!--rq.len[slot])
		nrq_clear(inst, &rq, slot);
	rq.map.len--;
	return true;
}

/* The trace's departures through the rank queue; how many. */
static size_t rq_replay(const struct pifo_ev *ev, size_t n, struct pifo_window w, __u32 *out)
{
	size_t nout = 0;
	__u32 id = 0;

	rq_init(w);
	for (size_t i = 0; i < n; i++) {
		if (!ev[i].pop)
			rq_push(id++, ev[i].rank);
		else if (rq_pop(&out[nout]))
			nout++;
	}
	return nout;
}

/*
 * n events: pushes of ranks from a floor that rises by `rise` a push,
 * plus up to spread, pops as often as pushes but in runs, so that the
 * queue fills to thousands and drains to empty again and again.
 */
static struct pifo_ev *trace(size_t n, __u64 floor, __u64 rise, __u64 spread, unsigned int seed)
{
	struct pifo_ev *ev = calloc(n, sizeof(*ev));
	int bias = 0;

	srand(seed);
	for (size_t i = 0; i < n; i++) {
		if (i % 4096 == 0)
			bias = rand() % 3 - 1;	/* filling, draining or level */
		ev[i].pop = rand() % 4 < 2 - bias;
		if (!ev[i].pop) {
			ev[i].rank = floor + (spread ? (__u64)rand() * rand() % spread : 0);
			floor += rise;
		}
	}
	return ev;
}

/*
 * The rank queue against the oracle on one trace: the same departures,
 * so no inversion, and the clamp counts equal. Returns the oracle's.
 */
static uint64_t against_oracle(const struct pifo_ev *ev, size_t n, struct pifo_window w,
			    const char *what)
{
	static __u32 want[PKTS], got[PKTS];
	size_t nwant, ngot, i;
	uint64_t clamped, checked;
	long inv;

	nwant = pifo_replay(ev, n, w, want, &clamped);
	ngot = rq_replay(ev, n, w, got);
	EXPECT(ngot == nwant, "%s: %zu departures, oracle %zu", what, ngot, nwant);
	for (i = 0; i < ngot && i < nwant && got[i] == want[i]; i++)
		;
	EXPECT(i == nwant, "%s: departure %zu is packet %u, oracle %u", what, i,
	       i < ngot ? got[i] : 0, i < nwant ? want[i] : 0);
	inv = pifo_inversions(ev, n, w, got, ngot, &checked);
	EXPECT(inv == 0, "%s: %ld inversions within the window", what, inv);
	EXPECT(rq.map.clamped == clamped && checked == clamped,
	       "%s: clamped %llu, oracle %llu", what, (unsigned long long)rq.map.clamped,
	       (unsigned long long)clamped);
	return clamped;
}

static void rank_lowest_one(void)
{
	srand(5);
	for (int b = 0; b < 64; b++) {
		__u64 w = 1ULL << b, r = ((__u64)rand() << 33 ^ (__u64)rand()) << b;

		EXPECT(bq_lowest_one(w) == (__u32)b, "bit %d alone: %u", b, bq_lowest_one(w));
		EXPECT(bq_lowest_one(w | r) == (__u32)b, "bit %d and above: %u", b,
		       bq_lowest_one(w | r));
		EXPECT(bq_lowest_zero(~w) == (__u32)b, "zero %d: %u", b, bq_lowest_zero(~w));
	}
}

/* Ranks within the window (g = 1, 2^12 buckets): exact, nothing clamped. */
static void rank_exact_in_window(void)
{
	struct pifo_window w = { 0, 12 };
	size_t n = 150000;
	struct pifo_ev *ev = trace(n, 1000, 0, 4000, 6);

	EXPECT(against_oracle(ev, n, w, "in window") == 0, "the trace left the window");
	free(ev);
}

/* Equal ranks in bulk: the buckets' FIFOs are the order. */
static void rank_ties_fifo(void)
{
	struct pifo_window w = { 0, 6 };
	size_t n = 100000;
	struct pifo_ev *ev = trace(n, 0, 0, 8, 7);

	against_oracle(ev, n, w, "ties");
	free(ev);
}

/* Granularity 2^4: ranks in one bucket leave by arrival, across buckets by rank. */
static void rank_granularity(void)
{
	struct pifo_window w = { 4, 10 };
	size_t n = 100000;
	struct pifo_ev *ev = trace(n, 1 << 20, 0, 16 << 10, 8);

	EXPECT(against_oracle(ev, n, w, "granularity") == 0, "the trace left the window");
	free(ev);
}

/*
 * Ranks that keep rising (virtual times) through the ring seventy times,
 * each push within reach of the queue's least (at most 500 held, 3 a
 * push apart, spread over 1000): the window follows, the ring wraps,
 * nothing clamped.
 */
static void rank_rising_window(void)
{
	struct pifo_window w = { 0, 12 };
	size_t n = 200000, held = 0;
	struct pifo_ev *ev = calloc(n, sizeof(*ev));
	__u64 floor = 5;

	srand(9);
	for (size_t i = 0; i < n; i++) {
		ev[i].pop = held >= 500 || (held && rand() % 2);
		held += ev[i].pop ? -1 : 1;
		if (!ev[i].pop) {
			ev[i].rank = floor + rand() % 1000;
			floor += 3;
		}
	}
	EXPECT(against_oracle(ev, n, w, "rising") == 0, "the trace left the window");
	EXPECT(rq.map.base > 70ULL << w.order, "the window moved only to %llu",
	       (unsigned long long)rq.map.base);
	free(ev);
}

/* Ranks spread past the window both ways: clamped to its ends, and counted as the oracle counts. */
static void rank_clamped(void)
{
	struct pifo_window w = { 0, 8 };
	size_t n = 100000;
	struct pifo_ev *ev = trace(n, 1 << 30, 3, 600, 10);

	EXPECT(against_oracle(ev, n, w, "clamped") > 1000, "too few clamped to tell");
	free(ev);
}

/* 2^18 buckets, every level of the bitmap, 64k packets queued, then drained. */
static void rank_deep(void)
{
	struct pifo_window w = { 0, BQ_RQ_MAX_ORDER };
	size_t n = 2 * 65536 + 1000, i;
	struct pifo_ev *ev = calloc(n, sizeof(*ev));

	srand(11);
	for (i = 0; i < 65536; i++)
		ev[i].rank = 77 + (__u64)rand() % ((1 << BQ_RQ_MAX_ORDER) - 1);
	for (; i < n; i++)
		ev[i].pop = true;
	EXPECT(against_oracle(ev, n, w, "deep") == 0, "the trace left the window");
	EXPECT(!rq.map.len && !rq.map.top, "drained, %u left, top %llx", rq.map.len,
	       (unsigned long long)rq.map.top);
	free(ev);
}

/*
 * The window's edges, 4 buckets: 13 then 10 fit (hi - 10 = 3), 9 does not
 * and joins 10's bucket; 13 is the last bucket, 14 joins it.
 */
static void rank_window_edges(void)
{
	struct pifo_ev ev[] = {
		{ .rank = 13 }, { .rank = 10 }, { .rank = 9 }, { .rank = 14 }, { .rank = 13 },
		{ .pop = true }, { .pop = true }, { .pop = true }, { .pop = true }, { .pop = true },
	};
	struct pifo_window w = { 0, 2 };
	__u32 got[5], want[] = { 1, 2, 0, 3, 4 };

	EXPECT(against_oracle(ev, 10, w, "edges") == 2, "clamped %llu, not 2",
	       (unsigned long long)rq.map.clamped);
	EXPECT(rq_replay(ev, 10, w, got) == 5 && !memcmp(got, want, sizeof(want)),
	       "departures %u %u %u %u %u", got[0], got[1], got[2], got[3], got[4]);
}

/* The check itself: two departures swapped are one inversion, an impossible order is refused. */
static void oracle_sees_wrong_order(void)
{
	struct pifo_ev ev[] = {
		{ .rank = 5 }, { .rank = 3 }, { .rank = 3 }, { .pop = true }, { .pop = true },
		{ .pop = true },
	};
	struct pifo_window w = { 0, 8 };
	__u32 want[3], right[] = { 1, 2, 0 }, ties[] = { 2, 1, 0 }, ghost[] = { 1, 7, 0 };
	uint64_t clamped;

	EXPECT(pifo_replay(ev, 6, w, want, &clamped) == 3 && !memcmp(want, right, sizeof(right)),
	       "oracle order %u %u %u", want[0], want[1], want[2]);
	EXPECT(pifo_inversions(ev, 6, w, right, 3, &clamped) == 0, "the right order has inversions");
	EXPECT(pifo_inversions(ev, 6, w, ties, 3, &clamped) == 1, "equal ranks out of arrival order");
	EXPECT(pifo_inversions(ev, 6, w, ghost, 3, &clamped) == -1, "a packet never pushed left");
}

int main(void)
{
	unit_file = "rank";
	RUN(rank_lowest_one);
	RUN(oracle_sees_wrong_order);
	RUN(rank_exact_in_window);
	RUN(rank_ties_fifo);
	RUN(rank_granularity);
	RUN(rank_rising_window);
	RUN(rank_clamped);
	RUN(rank_deep);
	RUN(rank_window_edges);
	return unit_failed;
}
