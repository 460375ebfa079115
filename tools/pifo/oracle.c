// SPDX-License-Identifier: GPL-2.0
/*
 * The exact PIFO (oracle.h): a binary heap of (bucket, arrival), and an
 * inversion count over a Fenwick tree of the packets held, in that order.
 */
#include <stdlib.h>
#include "oracle.h"

struct item {
	uint64_t bucket;
	uint32_t id;		/* its push's number: arrival order */
};

static bool before(struct item a, struct item b)
{
	return a.bucket < b.bucket || (a.bucket == b.bucket && a.id < b.id);
}

struct heap {
	struct item *a;
	size_t len;
};

static void heap_push(struct heap *h, struct item it)
{
	size_t i = h->len++;

	for (; i && before(it, h->a[(i - 1) / 2]); i = (i - 1) / 2)
		h->a[i] = h->a[(i - 1) / 2];
	h->a[i] = it;
}

static struct item heap_pop(struct heap *h)
{
	struct item top = h->a[0], last = h->a[--h->len];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < h->len) {
		if (c + 1 < h->len && before(h->a[c + 1], h->a[c]))
			c++;
		if (!before(h->a[c], last))
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	h->a[i] = last;
	return top;
}

/*
 * The window: 2^order buckets from base, which a pop moves up to the
 * popped bucket and a push below it moves down, but never so far that
 * the highest bucket pushed since the queue was empty (hi) falls out.
 */
struct win {
	struct pifo_window w;
	uint64_t base, hi;
	uint64_t clamped;
};

/* rank's bucket clamped into the window; *out whether it was outside. */
static uint64_t win_bucket(struct win *v, uint64_t rank, bool empty, bool *out)
{
	uint64_t b = rank >> v->w.shift, span = (1ULL << v->w.order) - 1, lowest;

	if (empty)
		v->base = v->hi = b;
	lowest = v->hi > span ? v->hi - span : 0;
	*out = b < lowest || b > v->base + span;
	v->clamped += *out;
	if (b < lowest)
		b = lowest;
	else if (b > v->base + span)
		b = v->base + span;
	if (b < v->base)
		v->base = b;
	if (b > v->hi)
		v->hi = b;
	return b;
}

static size_t count_pushes(const struct pifo_ev *ev, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += !ev[i].pop;
	return k;
}

size_t pifo_replay(const struct pifo_ev *ev, size_t n, struct pifo_window w, uint32_t *out,
		   uint64_t *clamped)
{
	struct heap h = { calloc(count_pushes(ev, n) + 1, sizeof(struct item)), 0 };
	struct win v = { .w = w };
	uint32_t id = 0;
	size_t nout = 0;
	bool outside;

	for (size_t i = 0; i < n; i++) {
		if (!ev[i].pop) {
			struct item it = { win_bucket(&v, ev[i].rank, !h.len, &outside), id++ };

			heap_push(&h, it);
		} else if (h.len) {
			struct item it = heap_pop(&h);

			v.base = it.bucket;
			out[nout++] = it.id;
		}
	}
	free(h.a);
	*clamped = v.clamped;
	return nout;
}

/* Fenwick tree over positions 1..n: how many held packets sort before a position. */
static void fen_add(long *f, size_t n, size_t i, long d)
{
	for (; i <= n; i += i & -i)
		f[i] += d;
}

static long fen_sum(const long *f, size_t i)
{
	long s = 0;

	for (; i; i -= i & -i)
		s += f[i];
	return s;
}

/* What sorting the pushes by (true bucket, arrival) needs: their keys. */
static const uint64_t *sort_keys;

static int by_key(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (sort_keys[x] != sort_keys[y])
		return sort_keys[x] < sort_keys[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

long pifo_inversions(const struct pifo_ev *ev, size_t n, struct pifo_window w,
		     const uint32_t *dep, size_t ndep, uint64_t *clamped)
{
	size_t np = count_pushes(ev, n), k = 0, held = 0;
	uint64_t *key = calloc(np + 1, sizeof(*key)), *bucket = calloc(np + 1, sizeof(*bucket));
	uint32_t *order = calloc(np + 1, sizeof(*order)), *pos = calloc(np + 1, sizeof(*pos));
	bool *in = calloc(np + 1, 1), *inwin = calloc(np + 1, 1), outside;
	long *fen = calloc(np + 2, sizeof(*fen)), inv = 0;
	struct win v = { .w = w };
	uint32_t id = 0;

	for (size_t i = 0; i < n; i++)
		if (!ev[i].pop)
			key[id++] = ev[i].rank >> w.shift;
	for (uint32_t i = 0; i < np; i++)
		order[i] = i;
	sort_keys = key;
	qsort(order, np, sizeof(*order), by_key);
	for (uint32_t i = 0; i < np; i++)
		pos[order[i]] = i + 1;
	id = 0;
	for (size_t i = 0; i < n && inv >= 0; i++) {
		if (!ev[i].pop) {
			bucket[id] = win_bucket(&v, ev[i].rank, !held, &outside);
			inwin[id] = !outside;
			in[id] = true;
			held++;
			if (inwin[id])
				fen_add(fen, np, pos[id], 1);
			id++;
			continue;
		}
		if (!held)
			continue;
		if (k >= ndep || dep[k] >= id || !in[dep[k]]) {
			inv = -1;
			break;
		}
		uint32_t p = dep[k++];

		if (inwin[p]) {
			inv += fen_sum(fen, pos[p] - 1);
			fen_add(fen, np, pos[p], -1);
		}
		in[p] = false;
		held--;
		v.base = bucket[p];
	}
	if (k != ndep)
		inv = -1;
	*clamped = v.clamped;
	free(key), free(bucket), free(order), free(pos), free(in), free(inwin), free(fen);
	return inv;
}
