// SPDX-License-Identifier: GPL-2.0
/*
 * The framework's index allocator (include/bq/ids.bpf.h), index-linked
 * lists (include/bq/list.bpf.h), key table (include/bq/keytab.bpf.h) and
 * time queue (include/bq/timeq.bpf.h), natively, against a model: random
 * operations on a region of entries, the structures checked after each.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "bpfqdisc.h"
#include "unit.h"
#include "bq/ids.bpf.h"
#include "bq/list.bpf.h"

/* The verifier's bounded loop, natively. */
#define bpf_for(i, start, end) for ((i) = (start); (i) < (end); (i)++)
#include "bq/keytab.bpf.h"
#include "bq/timeq.bpf.h"

#define N	16	/* entries 1..N-1 */
#define OPS	20000

struct entry {
	struct bq_link link;
};

static struct entry region[N];

/* Entry idx, as a qdisc's lookup in its map gives it. */
static struct entry *entry_at(const struct bq_instance *q, __u32 idx)
{
	return idx < N ? &region[idx] : NULL;
}

BQ_LIST_OPS(entry_list, struct entry, entry_at)

static void ids_against_model(void)
{
	struct bq_ids ids = {};
	bool used[N] = {};
	__u32 nused = 0;

	srand(1);
	for (int op = 0; op < OPS; op++) {
		__u32 idx = 1 + rand() % (N - 1);

		if (rand() % 2) {
			idx = bq_ids_alloc(&ids, N, ids.free ? region[ids.free].link.next : BQ_IDS_UNREAD);
			if (nused == N - 1) {
				EXPECT(idx == 0, "op %d: handed out %u of a full region", op, idx);
				continue;
			}
			EXPECT(idx >= 1 && idx < N, "op %d: index %u out of 1..%d", op, idx, N - 1);
			if (idx < 1 || idx >= N)
				return;
			EXPECT(!used[idx], "op %d: %u handed out twice", op, idx);
			used[idx] = true;
			nused++;
		} else if (used[idx]) {
			bq_ids_put(&ids, &region[idx].link.next, idx);
			used[idx] = false;
			nused--;
		}
		EXPECT(ids.used == nused, "op %d: used %u, model %u", op, ids.used, nused);
		EXPECT(ids.hwm < N, "op %d: hwm %u", op, ids.hwm);
	}
	/* A failed lookup of the free list's head hands out nothing. */
	if (ids.free) {
		__u32 before = ids.used;

		EXPECT(bq_ids_alloc(&ids, N, BQ_IDS_UNREAD) == 0 && ids.used == before,
		       "alloc without the free entry's link");
	}
}

/* l against the model m[0..len): forwards by next, backwards by prev. */
static void check_list(const struct bq_list *l, const __u32 *m, int len, int op)
{
	__u32 cur = l->head;
	int i;

	for (i = 0; i < len && cur; i++, cur = region[cur].link.next)
		EXPECT(cur == m[i], "op %d: entry %d is %u, model %u", op, i, cur, m[i]);
	EXPECT(i == len && !cur, "op %d: %d entries forwards, model %d", op, i, len);
	cur = l->tail;
	for (i = len - 1; i >= 0 && cur; i--, cur = region[cur].link.prev)
		EXPECT(cur == m[i], "op %d: backwards entry %d is %u, model %u", op, i, cur, m[i]);
	EXPECT(i == -1 && !cur, "op %d: backwards stopped at %d", op, i);
}

static void lists_against_model(void)
{
	struct bq_list lists[2] = {};
	__u32 model[2][N];
	int len[2] = {}, on[N];

	memset(region, 0, sizeof(region));
	for (int i = 0; i < N; i++)
		on[i] = -1;
	srand(2);
	for (int op = 0; op < OPS; op++) {
		__u32 idx = 1 + rand() % (N - 1);
		int w = on[idx];

		if (w < 0) {
			w = rand() % 2;
			entry_list_add_tail(NULL, &lists[w], &region[idx], idx);
			model[w][len[w]++] = idx;
			on[idx] = w;
		} else {
			struct bq_link *e = &region[idx].link;
			int i = 0;

			entry_list_del(NULL, &lists[w], &region[idx], idx);
			EXPECT(!e->next && !e->prev, "op %d: deleted %u keeps links", op, idx);
			while (model[w][i] != idx)
				i++;
			memmove(&model[w][i], &model[w][i + 1], (len[w] - i - 1) * sizeof(__u32));
			len[w]--;
			on[idx] = -1;
		}
		check_list(&lists[0], model[0], len[0], op);
		check_list(&lists[1], model[1], len[1], op);
		if (unit_current_failed)
			return;
	}
}

/* The key table's entries, and its buckets: nbuckets of them, at most KB. */
#define KN	128
#define KB	8

struct kentry {
	__u64 key;
	__u32 hnext;
};

static struct kentry kregion[KN];
static __u32 kbuckets[KB], nbuckets;

static struct kentry *kentry_at(const struct bq_instance *q, __u32 idx)
{
	return idx && idx < KN ? &kregion[idx] : NULL;
}

static __u32 *kbucket(const struct bq_instance *q, __u64 key)
{
	return &kbuckets[key % nbuckets];
}

BQ_KEYTAB_OPS(ktab, struct kentry, kentry_at, kbucket, key)

/* Entries 1..n-1 hashed (model: hashed[i], key of entry i is key[i]). */
static void check_keytab(const bool *hashed, __u32 n, int op)
{
	__u32 seen = 0, want = 0, b, cur, steps;

	for (b = 0; b < nbuckets; b++)
		for (cur = kbuckets[b], steps = 0; cur && steps < KN; cur = kregion[cur].hnext, steps++) {
			EXPECT(cur < n && hashed[cur], "op %d: bucket %u chains entry %u, not hashed",
			       op, b, cur);
			EXPECT(kregion[cur].key % nbuckets == b, "op %d: entry %u in bucket %u", op, cur, b);
			seen++;
		}
	for (cur = 1; cur < n; cur++)
		want += hashed[cur];
	EXPECT(seen == want, "op %d: %u entries in the chains, model %u", op, seen, want);
}

/*
 * Random inserts, removes and finds of keys 0..KEYS-1 in KN - 1 entries
 * and 8 buckets, so that chains of about 16 form (within the walk's
 * bound: every key is found).
 */
static void keytab_against_model(void)
{
	enum { KEYS = 200 };
	bool hashed[KN] = {};
	int of_key[KEYS];

	memset(kregion, 0, sizeof(kregion));
	memset(kbuckets, 0, sizeof(kbuckets));
	nbuckets = KB;
	for (int k = 0; k < KEYS; k++)
		of_key[k] = 0;
	srand(3);
	for (int op = 0; op < OPS; op++) {
		__u64 key = rand() % KEYS;
		__u32 idx = ktab_find(NULL, key);

		EXPECT(idx == (__u32)of_key[key], "op %d: key %llu found at %u, model %d",
		       op, (unsigned long long)key, idx, of_key[key]);
		if (!of_key[key]) {
			for (idx = 1; idx < KN && hashed[idx]; idx++)
				;
			if (idx == KN)
				continue;
			EXPECT(ktab_insert(NULL, &kregion[idx], idx, key), "op %d: insert failed", op);
			hashed[idx] = true;
			of_key[key] = idx;
		} else if (rand() % 2) {
			idx = of_key[key];
			EXPECT(ktab_remove(NULL, &kregion[idx], idx), "op %d: remove of %u failed", op, idx);
			hashed[idx] = false;
			of_key[key] = 0;
		}
		check_keytab(hashed, KN, op);
		if (unit_current_failed)
			return;
	}
	/* forget for every hashed entry leaves every bucket empty. */
	for (__u32 i = 1; i < KN; i++)
		if (hashed[i])
			ktab_forget(NULL, &kregion[i]);
	for (__u32 b = 0; b < KB; b++)
		EXPECT(!kbuckets[b], "bucket %u not empty after forgetting every entry", b);
}

/*
 * One bucket, KN - 1 keys: a walk follows BQ_KEYTAB_CHAIN entries, so the
 * oldest keys are not found and cannot be removed, and a failed remove
 * leaves the chain whole.
 */
static void keytab_chain_bound(void)
{
	bool hashed[KN] = {};
	__u32 i, deep = 1, shallow = KN - 1;

	memset(kregion, 0, sizeof(kregion));
	memset(kbuckets, 0, sizeof(kbuckets));
	nbuckets = 1;
	for (i = 1; i < KN; i++) {
		EXPECT(ktab_insert(NULL, &kregion[i], i, 1000 + i), "insert of %u failed", i);
		hashed[i] = true;
	}
	/* Entry KN - 1 is first in the chain, entry i at depth KN - 1 - i. */
	EXPECT(ktab_find(NULL, 1000 + shallow) == shallow, "the newest key not found");
	EXPECT(ktab_find(NULL, 1000 + KN - BQ_KEYTAB_CHAIN) == KN - BQ_KEYTAB_CHAIN,
	       "the key at depth %d not found", BQ_KEYTAB_CHAIN - 1);
	EXPECT(ktab_find(NULL, 1000 + KN - 1 - BQ_KEYTAB_CHAIN) == 0,
	       "the key at depth %d found, past the bound", BQ_KEYTAB_CHAIN);
	EXPECT(ktab_find(NULL, 1000 + deep) == 0, "the oldest key found, past the bound");
	EXPECT(!ktab_remove(NULL, &kregion[deep], deep), "removed an entry past the bound");
	check_keytab(hashed, KN, -1);
	EXPECT(ktab_remove(NULL, &kregion[KN - 10], KN - 10), "remove at depth 9 failed");
	hashed[KN - 10] = false;
	check_keytab(hashed, KN, -2);
	EXPECT(ktab_remove(NULL, &kregion[shallow], shallow), "remove of the head failed");
	hashed[shallow] = false;
	check_keytab(hashed, KN, -3);
}

/* The time queue's region: values 0..TN-1, at most TN - 1 of them in. */
#define TN	16

static struct bq_tq_ent tregion[TN];

static struct bq_tq_ent *tent_at(const struct bq_instance *q, __u32 i)
{
	return i < TN ? &tregion[i] : NULL;
}

BQ_TIMEQ_OPS(tq, tent_at, TN)

/*
 * The heap against the model (value v in if in[v], due at[v]): each value
 * that is in has a slot holding its time, no other has one, as many items
 * as values (so none twice), and no slot is earlier than its parent.
 */
static void check_timeq(const struct bq_tq *q, const bool *in, const __u64 *at, int op)
{
	__u32 v, i, slot, n = 0;

	for (v = 0; v < TN; v++) {
		slot = tq_slot(NULL, q, v);
		n += in[v];
		EXPECT(!slot == !in[v], "op %d: value %u in slot %u, model %s", op, v, slot,
		       in[v] ? "in" : "out");
		if (in[v] && slot)
			EXPECT(tregion[slot].time == at[v], "op %d: value %u at %llu, model %llu",
			       op, v, (unsigned long long)tregion[slot].time,
			       (unsigned long long)at[v]);
	}
	EXPECT(q->len == n, "op %d: %u items, model %u", op, q->len, n);
	for (i = 2; i <= q->len && i < TN; i++)
		EXPECT(tregion[i >> 1].time <= tregion[i].time, "op %d: slot %u before its parent",
		       op, i);
}

/* The earliest time in the model; ~0 if none is in. */
static __u64 model_min(const bool *in, const __u64 *at)
{
	__u64 min = ~0ULL;

	for (__u32 v = 0; v < TN; v++)
		if (in[v] && at[v] < min)
			min = at[v];
	return min;
}

/*
 * Random sets (add or move), removes and pops of values 0..TN-1 with
 * times from a small range (so that equal times meet); a set of a value
 * not in while TN - 1 are is refused, any other succeeds.
 */
static void timeq_against_model(void)
{
	struct bq_tq q = {};
	bool in[TN] = {};
	__u64 at[TN], t;
	__u32 nin = 0, got;

	memset(tregion, 0, sizeof(tregion));
	srand(4);
	for (int op = 0; op < OPS; op++) {
		int what = rand() % 5, ret;
		__u32 v = (__u32)rand() % TN;

		if (what < 2) {
			t = rand() % 32;
			ret = tq_set(NULL, &q, t, v);
			if (!in[v] && nin == TN - 1) {
				EXPECT(ret == -ENOSPC, "op %d: set of a value past a full heap: %d",
				       op, ret);
			} else {
				EXPECT(ret == 0, "op %d: set of %u failed: %d", op, v, ret);
				nin += !in[v];
				in[v] = true;
				at[v] = t;
			}
		} else if (what < 3) {
			tq_remove(NULL, &q, v);
			nin -= in[v];
			in[v] = false;
		} else if (tq_peek(NULL, &q, &t, &got)) {
			EXPECT(got < TN && in[got] && at[got] == t && t == model_min(in, at),
			       "op %d: peek gave %u at %llu, model earliest %llu", op, got,
			       (unsigned long long)t, (unsigned long long)model_min(in, at));
			if (got >= TN)
				return;
			tq_pop(NULL, &q);
			nin -= in[got];
			in[got] = false;
		} else {
			EXPECT(!nin, "op %d: peek found nothing, model has %u", op, nin);
		}
		check_timeq(&q, in, at, op);
		if (unit_current_failed)
			return;
	}
	EXPECT(tq_set(NULL, &q, 1, TN) == -EINVAL, "a value past the region set");
	/* A zeroed queue (a reset) is empty, whatever the region still holds. */
	q.len = 0;
	memset(in, 0, sizeof(in));
	check_timeq(&q, in, at, -1);
}

/*
 * A value whose time moves earlier and later again and again, as a
 * throttled flow's does when packets due sooner keep coming, stays one
 * item; every value 1..TN-1 fits at once.
 */
static void timeq_moves_stay_one(void)
{
	struct bq_tq q = {};
	__u64 t;
	__u32 v;

	memset(tregion, 0, sizeof(tregion));
	for (v = 1; v < TN; v++)
		EXPECT(tq_set(NULL, &q, 1000 + v, v) == 0, "set of value %u failed", v);
	for (int i = 0; i < 1000; i++) {
		EXPECT(tq_set(NULL, &q, i % 2 ? 6000 : i, 7) == 0, "move %d failed", i);
		EXPECT(q.len == TN - 1, "move %d: %u items, not %d", i, q.len, TN - 1);
	}
	EXPECT(tq_peek(NULL, &q, &t, &v) && v == 1 && t == 1001, "earliest %u at %llu", v,
	       (unsigned long long)t);
	tq_remove(NULL, &q, 7);
	for (__u32 want = 1; want < TN; want++) {
		if (want == 7)
			continue;
		EXPECT(tq_peek(NULL, &q, &t, &v) && v == want, "popped %u, expected %u", v, want);
		tq_pop(NULL, &q);
	}
	EXPECT(!q.len, "%u items left", q.len);
}

int main(void)
{
	unit_file = "parts";
	RUN(ids_against_model);
	RUN(lists_against_model);
	RUN(keytab_against_model);
	RUN(keytab_chain_bound);
	RUN(timeq_against_model);
	RUN(timeq_moves_stay_one);
	return unit_failed;
}
