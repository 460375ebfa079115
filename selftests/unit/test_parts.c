// SPDX-License-Identifier: GPL-2.0
/*
 * The framework's index allocator (include/bq/ids.bpf.h) and index-linked
 * lists (include/bq/list.bpf.h), natively, against a model: random
 * operations on a region of N entries, the structures checked after each.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "bpfqdisc.h"
#include "unit.h"
#include "bq/ids.bpf.h"
#include "bq/list.bpf.h"

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

int main(void)
{
	unit_file = "parts";
	RUN(ids_against_model);
	RUN(lists_against_model);
	return unit_failed;
}
