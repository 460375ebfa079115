// SPDX-License-Identifier: GPL-2.0
/*
 * The framework's arena tables (include/bq/pages.bpf.h), natively, over a
 * fake arena, against a model: pages held by live entries, swept, purged
 * and counted; the index bitmap (struct bq_idmap); its lowest zero bit.
 *
 * The fake arena is what the kernel's is to the header: 4 GiB of address
 * space on a 4 GiB boundary, so that a pointer's low 32 bits are its
 * offset, pages handed out lowest first (so the first is offset 0, which
 * the header keeps), zeroed, and inaccessible while not handed out: a
 * stale pointer into a freed page ends the test with a message.
 */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/types.h>
#include "bpfqdisc.h"
#include "unit.h"

#define ARENA_SPAN	(1ULL << 32)
#define FAKE_PAGES	16384		/* those it hands out: 64 MiB, what the tests reach */
#define INSTANCES	2

static struct fake_arena {
	char *base;
	bool out[FAKE_PAGES];	/* handed out and not taken back */
	__u32 nout;
	__u32 fail_one_in;	/* refuse one allocation in this many; 0: none */
	__u32 failed;		/* allocations refused */
	__u32 bad_frees;	/* frees of a page not handed out */
} bq_arena;

/* What the header's count adds to: bq_arena_held, by slot. */
static __s64 bq_arena_held[INSTANCES];

/* The kernel's kfuncs, over the fake arena (below, with the header's page size). */
static void *bpf_arena_alloc_pages(void *map, void *addr, __u32 n, int node, __u64 flags);
static void bpf_arena_free_pages(void *map, void *ptr, __u32 n);

static void bq_pages_count(const struct bq_instance *inst, int n)
{
	bq_arena_held[inst->slot] += n;
}

#define bq_arena_ptr(T, off)	((T *)(bq_arena.base + (__u32)(off)))
#define bpf_for(i, start, end)	for ((i) = (start); (i) < (end); (i)++)
#define __noinline		__attribute__((noinline))
#define __arena
#include "bq/pages.bpf.h"

static bool arena_refuses(void)
{
	if (!bq_arena.fail_one_in || rand() % bq_arena.fail_one_in)
		return false;
	bq_arena.failed++;
	return true;
}

/* The first run of n pages not handed out, as the kernel's range tree finds it; -1 if none. */
static int arena_run(__u32 n)
{
	__u32 p, len = 0;

	for (p = 0; p < FAKE_PAGES; p++) {
		len = bq_arena.out[p] ? 0 : len + 1;
		if (len == n)
			return p + 1 - n;
	}
	return -1;
}

static void *bpf_arena_alloc_pages(void *map, void *addr, __u32 n, int node, __u64 flags)
{
	int first = n ? arena_run(n) : -1;
	char *p;

	if (first < 0 || arena_refuses())
		return NULL;
	p = bq_arena.base + (size_t)first * BQ_PAGE_SIZE;
	if (mprotect(p, (size_t)n * BQ_PAGE_SIZE, PROT_READ | PROT_WRITE))
		abort();
	for (__u32 i = 0; i < n; i++)
		bq_arena.out[first + i] = true;
	bq_arena.nout += n;
	return p;
}

/* As the kernel's: only the low 32 bits of ptr, the offset, count. */
static void bpf_arena_free_pages(void *map, void *ptr, __u32 n)
{
	__u32 first = (__u32)(uintptr_t)ptr / BQ_PAGE_SIZE;

	for (__u32 p = first; p < first + n; p++) {
		char *page = bq_arena.base + (size_t)p * BQ_PAGE_SIZE;

		if (p >= FAKE_PAGES || !bq_arena.out[p]) {
			bq_arena.bad_frees++;
			continue;
		}
		/* Zeroed for the next, and out of reach meanwhile. */
		if (madvise(page, BQ_PAGE_SIZE, MADV_DONTNEED) || mprotect(page, BQ_PAGE_SIZE, PROT_NONE))
			abort();
		bq_arena.out[p] = false;
		bq_arena.nout--;
	}
}

/*
 * A touch of a page not handed out: what a page freed under a holder
 * would get. Any other fault is left to crash as it would.
 */
static void arena_fault(int sig, siginfo_t *si, void *uc)
{
	static const char msg[] = "  touched a page of the fake arena that is not handed out\n";

	if ((uintptr_t)si->si_addr - (uintptr_t)bq_arena.base >= ARENA_SPAN) {
		signal(SIGSEGV, SIG_DFL);
		return;
	}
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(2);
}

static void arena_map(void)
{
	struct sigaction sa = { .sa_sigaction = arena_fault, .sa_flags = SA_SIGINFO };
	char *p = mmap(NULL, 2 * ARENA_SPAN, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		abort();
	bq_arena.base = (char *)(((uintptr_t)p + ARENA_SPAN - 1) & ~(uintptr_t)(ARENA_SPAN - 1));
	sigaction(SIGSEGV, &sa, NULL);
}

static struct bq_instance insts[INSTANCES] = { { .slot = 0 }, { .slot = 1 } };

/* What the arena holds beyond page 0, which the header keeps for good once it has it. */
static __u32 arena_held_pages(void)
{
	return bq_arena.nout - bq_arena.out[0];
}

/* Every page back: none counted, none handed out but page 0, nothing freed twice. */
static void check_all_back(const char *when)
{
	for (int i = 0; i < INSTANCES; i++)
		EXPECT(bq_arena_held[i] == 0, "%s: instance %d counts %lld pages", when, i,
		       (long long)bq_arena_held[i]);
	EXPECT(arena_held_pages() == 0, "%s: %u pages still out", when, arena_held_pages());
	EXPECT(bq_arena.bad_frees == 0, "%s: %u frees of pages not handed out", when,
	       bq_arena.bad_frees);
}

/*
 * The first allocation gets page 0, which reads as "none": a block keeps
 * it and takes others, and counts only those.
 */
static void block_skips_page_zero(void)
{
	__u32 off = bq_pages_block(&insts[0], 3);

	EXPECT(off && off % BQ_PAGE_SIZE == 0, "block at offset %#x", off);
	EXPECT(bq_arena.out[0], "page 0 not kept");
	for (__u32 p = off / BQ_PAGE_SIZE; off && p < off / BQ_PAGE_SIZE + 3; p++)
		EXPECT(p < FAKE_PAGES && bq_arena.out[p], "page %u of the block not handed out", p);
	EXPECT(bq_arena_held[0] == 3 && arena_held_pages() == 3, "counted %lld, out %u",
	       (long long)bq_arena_held[0], arena_held_pages());
	bq_pages_block_free(&insts[0], off, 3);
	check_all_back("after the block's free");
}

/*
 * A table under a model: entries 0..n-1 of size sz, which are live
 * (held), the holds of each page, and since when each page is empty, in
 * how far the sweep's hand had gone (travel).
 */
#define NOT_EMPTY	(~0ULL)

struct model {
	struct bq_pages t;
	const struct bq_instance *inst;
	__u32 sz, n, pages;
	bool *live, *present;
	__u32 *holds;
	__u64 *emptied_at;
	__u64 travel;
};

/* Slots the hand goes round: every page a table can have. */
#define TURN	(BQ_PAGES_DIRS * BQ_PAGES_PER_DIR)

static __u32 per_page(const struct model *m)
{
	return BQ_PAGE_SIZE / m->sz;
}

static void model_init(struct model *m, const struct bq_instance *inst, __u32 sz, __u32 n)
{
	memset(m, 0, sizeof(*m));
	m->inst = inst;
	m->sz = sz;
	m->n = n;
	m->pages = (n + per_page(m) - 1) / per_page(m);
	m->live = calloc(n, sizeof(*m->live));
	m->present = calloc(m->pages, sizeof(*m->present));
	m->holds = calloc(m->pages, sizeof(*m->holds));
	m->emptied_at = malloc(m->pages * sizeof(*m->emptied_at));
	for (__u32 p = 0; p < m->pages; p++)
		m->emptied_at[p] = NOT_EMPTY;
}

static void model_fini(struct model *m)
{
	free(m->live);
	free(m->present);
	free(m->holds);
	free(m->emptied_at);
}

/*
 * Page p's directory slot, read as the header's comment lays the table
 * out (not with its own lookup, which this checks); 0 if none.
 */
static __u32 slot_value(const struct bq_pages *t, __u32 p)
{
	__u32 dir = t->dir[p / BQ_PAGES_PER_DIR];

	return dir ? ((__u32 *)(bq_arena.base + dir))[p % BQ_PAGES_PER_DIR] : 0;
}

/* Entry idx where the layout puts it, at its place on its page; NULL without the page. */
static void *model_entry(const struct model *m, __u32 idx)
{
	__u32 off = slot_value(&m->t, idx / per_page(m)) & ~BQ_PAGE_META;

	return off ? bq_arena.base + off + idx % per_page(m) * m->sz : NULL;
}

/* e is entry idx, as the model and either lookup find it. */
static bool is_entry(const struct model *m, __u32 idx, void *e)
{
	return e == model_entry(m, idx) && e == bq_pages_at(&m->t, idx, m->sz) &&
	       e == bq_pages_at_noinline(&m->t, idx, m->sz);
}

/* What the entry of idx holds while it is live: its own index, to find an overlap or a lost page. */
static void stamp(__u32 idx, void *e)
{
	*(__u32 *)e = idx ^ 0x5a5a5a5a;
}

static bool stamped(const struct model *m, __u32 idx)
{
	__u32 *e = model_entry(m, idx);

	return e && *e == (idx ^ 0x5a5a5a5a);
}

static void model_hold(struct model *m, __u32 idx, int op)
{
	__u32 failed = bq_arena.failed, p = idx / per_page(m);
	void *e = bq_pages_hold(m->inst, &m->t, idx, m->sz);

	if (!e) {
		EXPECT(bq_arena.failed != failed, "op %d: hold of %u failed with memory", op, idx);
		return;
	}
	EXPECT(is_entry(m, idx, e), "op %d: hold of %u gave another entry", op, idx);
	stamp(idx, e);
	m->live[idx] = true;
	m->holds[p]++;
	m->present[p] = true;
	m->emptied_at[p] = NOT_EMPTY;
}

static void model_release(struct model *m, __u32 idx)
{
	__u32 p = idx / per_page(m);

	bq_pages_release(&m->t, idx, m->sz);
	if (!m->live[idx])	/* only of a page none holds: nothing happens */
		return;
	m->live[idx] = false;
	if (!--m->holds[p])
		m->emptied_at[p] = m->travel;
}

static void model_reach(struct model *m, __u32 idx, int op)
{
	__u32 failed = bq_arena.failed;
	void *e = bq_pages_reach(m->inst, &m->t, idx, m->sz);

	EXPECT(e || bq_arena.failed != failed, "op %d: reach of %u failed with memory", op, idx);
	EXPECT(!e || is_entry(m, idx, e), "op %d: reach of %u gave another entry", op, idx);
	if (e)
		m->present[idx / per_page(m)] = true;
}

/* A sweep of n < 32 slots: the hand goes at most a directory a slot, less than a turn. */
static void model_sweep(struct model *m, __u32 n)
{
	__u32 before = m->t.sweep;

	bq_pages_sweep(m->inst, &m->t, n);
	m->travel += (m->t.sweep - before) % TURN;
}

/*
 * Page p against the model: held, its holds those of its live entries;
 * emptied, gone after more than a turn of the hand and by two; otherwise
 * there as long as it was reached.
 */
static void check_page(struct model *m, __u32 p, int op)
{
	__u32 v = slot_value(&m->t, p);
	__u64 since = m->travel - m->emptied_at[p];

	if (m->holds[p]) {
		EXPECT(v && (v & BQ_PAGE_HOLDS) == m->holds[p] && !(v & BQ_PAGE_EMPTY),
		       "op %d: page %u slot %#x, model %u holds", op, p, v, m->holds[p]);
	} else if (m->emptied_at[p] != NOT_EMPTY) {
		EXPECT(!v || ((v & BQ_PAGE_EMPTY) && !(v & BQ_PAGE_HOLDS)),
		       "op %d: emptied page %u slot %#x", op, p, v);
		EXPECT(v || since > TURN, "op %d: page %u freed %llu slots of the hand after its last entry",
		       op, p, (unsigned long long)since);
		EXPECT(!v || since < 2 * TURN, "op %d: page %u still there two turns after its last entry",
		       op, p);
		if (!v) {
			m->present[p] = false;
			m->emptied_at[p] = NOT_EMPTY;
		}
	} else {
		EXPECT(!v == !m->present[p] && !(v & BQ_PAGE_META), "op %d: page %u slot %#x, model %s",
		       op, p, v, m->present[p] ? "reached" : "never reached");
	}
}

/* A page of the table's: handed out, and not twice (seen is per arena page). */
static void check_owned(__u32 off, bool *seen, int op)
{
	__u32 p = off / BQ_PAGE_SIZE;

	EXPECT(p && p < FAKE_PAGES && bq_arena.out[p] && !seen[p],
	       "op %d: the table has page %u, %s", op, p,
	       p >= FAKE_PAGES || !bq_arena.out[p] ? "not handed out" : "twice");
	if (p < FAKE_PAGES)
		seen[p] = true;
}

/* The table's pages (its directories and theirs) checked and counted. */
static __u32 check_table_pages(const struct bq_pages *t, bool *seen, int op)
{
	__u32 n = 0;

	for (__u32 d = 0; d < BQ_PAGES_DIRS; d++) {
		if (!t->dir[d])
			continue;
		check_owned(t->dir[d], seen, op);
		n++;
		for (__u32 i = 0; i < BQ_PAGES_PER_DIR; i++) {
			__u32 off = slot_value(t, d * BQ_PAGES_PER_DIR + i) & ~BQ_PAGE_META;

			if (off) {
				check_owned(off, seen, op);
				n++;
			}
		}
	}
	return n;
}

/*
 * The models' tables against the arena: each instance counts the pages of
 * its tables, and those are all the arena has handed out (beyond page 0).
 */
static void check_counts(struct model *ms, int nm, int op)
{
	static bool seen[FAKE_PAGES];
	__s64 pages[INSTANCES] = {};
	__u32 all = 0;

	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < nm; i++) {
		__u32 n = check_table_pages(&ms[i].t, seen, op);

		pages[ms[i].inst->slot] += n;
		all += n;
	}
	for (int i = 0; i < INSTANCES; i++)
		EXPECT(bq_arena_held[i] == pages[i], "op %d: instance %d counts %lld pages, has %lld",
		       op, i, (long long)bq_arena_held[i], (long long)pages[i]);
	EXPECT(arena_held_pages() == all, "op %d: arena hands out %u pages, tables have %u", op,
	       arena_held_pages(), all);
	EXPECT(!bq_arena.bad_frees, "op %d: %u frees of pages not handed out", op, bq_arena.bad_frees);
}

static void check_model(struct model *m, int op, bool entries)
{
	__u32 empty = 0;

	for (__u32 p = 0; p < m->pages; p++) {
		check_page(m, p, op);
		empty += m->emptied_at[p] != NOT_EMPTY;
	}
	EXPECT(m->t.empty == empty, "op %d: table counts %u empty pages, model %u", op, m->t.empty,
	       empty);
	for (__u32 i = 0; entries && i < m->n; i++)
		EXPECT(!m->live[i] || stamped(m, i), "op %d: live entry %u lost its contents", op, i);
}

/* One random step on m: holds are likelier while hold_bias is high. */
static void model_step(struct model *m, int hold_bias, int op)
{
	__u32 idx = rand() % m->n;
	int what = rand() % 100;

	if (what < 3)
		model_reach(m, idx, op);
	else if (what < 50 && !m->live[idx] && rand() % 100 < hold_bias)
		model_hold(m, idx, op);
	else if (what < 50 && (m->live[idx] || !m->holds[idx / per_page(m)]))
		model_release(m, idx);
	else
		model_sweep(m, 1 + rand() % 31);
}

#define OPS		60000
#define PHASE		6000	/* ops of filling, then as many of emptying */

/*
 * Two instances' tables in one arena, random holds, releases, reaches and
 * sweeps, with one allocation in 64 refused: entries of 1 KiB over four
 * directories (and the hand passes 28 missing ones), and of 680 bytes (6
 * to a page, 16 bytes left).
 */
static void pages_against_model(void)
{
	struct model ms[2];

	model_init(&ms[0], &insts[0], 1024, 3 * 4096 + 777);
	model_init(&ms[1], &insts[1], 680, 40 * 6 + 5);
	bq_arena.fail_one_in = 64;
	srand(5);
	for (int op = 0; op < OPS && !unit_current_failed; op++) {
		struct model *m = &ms[rand() % 2];

		model_step(m, (op / PHASE) % 2 ? 20 : 80, op);
		check_model(m, op, op % 1000 == 0);
		check_counts(ms, 2, op);
	}
	bq_arena.fail_one_in = 0;
	for (int i = 0; i < 2; i++) {
		bq_pages_free(ms[i].inst, &ms[i].t);
		EXPECT(!memcmp(&ms[i].t, &(struct bq_pages){}, sizeof(ms[i].t)),
		       "table %d not empty after its free", i);
		model_fini(&ms[i]);
	}
	check_all_back("after bq_pages_free");
}

/*
 * A table whose entries all go: every page is freed once the hand has
 * gone round twice, and none before it went round once.
 */
static void pages_sweep_drains(void)
{
	struct model m;
	int op;

	model_init(&m, &insts[1], 2048, 2 * 2048 + 9);	/* three directories */
	for (__u32 i = 0; i < m.n; i += 3)
		model_hold(&m, i, -1);
	for (__u32 i = 0; i < m.n; i += 3)
		model_release(&m, i);
	check_model(&m, -1, false);
	for (op = 0; m.t.empty && m.travel < 3 * TURN; op++) {
		model_sweep(&m, 31);
		check_model(&m, op, false);
		check_counts(&m, 1, op);
	}
	EXPECT(!m.t.empty, "%u pages still empty after %llu slots of the hand", m.t.empty,
	       (unsigned long long)m.travel);
	bq_pages_free(m.inst, &m.t);
	model_fini(&m);
	check_all_back("after the drain");
}

/* Three turns of the sweep's hand over every directory. */
static void sweep_turns(struct bq_pages *t)
{
	for (__u32 n = 0; n < 3 * BQ_PAGES_DIRS * BQ_PAGES_PER_DIR; n += 64)
		bq_pages_sweep(&insts[0], t, 64);
}

/*
 * Every entry of a page of 4-byte entries held: more holds than the count
 * has. Another page emptied meanwhile sets the sweep going.
 */
static void pages_saturated(void)
{
	const __u32 per = BQ_PAGE_SIZE / 4;
	struct bq_pages t = {};

	for (__u32 i = 0; i < per; i++)
		EXPECT(bq_pages_hold(&insts[0], &t, i, 4), "entry %u of %u not held", i, per);
	bq_pages_hold(&insts[0], &t, per, 4);
	bq_pages_release(&t, per, 4);
	sweep_turns(&t);
	EXPECT(slot_value(&t, 0) && !slot_value(&t, 1) && t.empty == 0,
	       "all %u entries held, and another page emptied: slots %#x %#x, %u empty, after sweeps",
	       per, slot_value(&t, 0), slot_value(&t, 1), t.empty);
	for (__u32 i = 0; i < per; i++)
		bq_pages_release(&t, i, 4);
	bq_pages_hold(&insts[0], &t, per, 4);
	bq_pages_release(&t, per, 4);
	sweep_turns(&t);
	EXPECT(slot_value(&t, 0) && t.empty == 0,
	       "a page held to the count's limit freed or counted empty: slot %#x, %u empty",
	       slot_value(&t, 0), t.empty);
	bq_pages_free(&insts[0], &t);
}

/*
 * The table's limits: the last entry of the last directory, none past it,
 * sizes out of range; holds on a page of 4-byte entries, which has more
 * entries than its count can tell (1024): one short of the count's
 * limit, released, leave the page empty; at the limit it stays until the
 * purge, whatever is released or swept, rather than wrap to empty and be
 * freed under live entries.
 */
static void pages_bounds(void)
{
	struct bq_pages t = {};
	__u32 last = bq_pages_capacity(BQ_PAGE_SIZE) - 1, out = bq_arena.nout;

	EXPECT(bq_pages_hold(&insts[0], &t, last, BQ_PAGE_SIZE), "the last entry not held");
	EXPECT(!bq_pages_hold(&insts[0], &t, last + 1, BQ_PAGE_SIZE), "an entry past the last held");
	EXPECT(bq_arena.nout == out + 2 && bq_arena_held[0] == 2, "out %u, counted %lld",
	       bq_arena.nout - out, (long long)bq_arena_held[0]);
	EXPECT(!bq_pages_entry(&t, last, 0) && !bq_pages_entry(&t, last, BQ_PAGE_SIZE + 1),
	       "an entry of size 0 or past a page");
	EXPECT(!bq_pages_slot(NULL, &t, 0, 8) && !bq_pages_slot(&insts[0], &t, 0, 0),
	       "a slot without an instance or a size");
	bq_pages_free(&insts[0], &t);
	for (__u32 i = 0; i < BQ_PAGE_HOLDS - 1; i++)
		bq_pages_hold(&insts[0], &t, i, 4);
	EXPECT(slot_value(&t, 0) % BQ_PAGE_SIZE == BQ_PAGE_HOLDS - 1, "slot %#x after %u holds",
	       slot_value(&t, 0), BQ_PAGE_HOLDS - 1);
	for (__u32 i = 0; i < BQ_PAGE_HOLDS - 1; i++)
		bq_pages_release(&t, i, 4);
	EXPECT(slot_value(&t, 0) % BQ_PAGE_SIZE == BQ_PAGE_EMPTY && t.empty == 1,
	       "slot %#x, %u empty after the last release", slot_value(&t, 0), t.empty);
	bq_pages_free(&insts[0], &t);
	pages_saturated();
	check_all_back("after the bounds");
}

/*
 * A table that recycles: the page whose last hold goes leaves the
 * directory for the spare at once, and the next page the table needs is
 * that one, as it was (a rank queue's buckets, empty at length 0), with
 * nothing allocated; with the spare taken, an emptied page waits for the
 * sweep as in any table; the purge frees the spare.
 */
static void pages_recycle(void)
{
	const __u32 sz = 64, per = BQ_PAGE_SIZE / sz;
	struct bq_pages t = { .recycle = 1 };
	__u32 out, page;
	char *e;

	e = bq_pages_hold(&insts[0], &t, 1, sz);
	EXPECT(e, "entry 1 not held");
	page = slot_value(&t, 0) & ~BQ_PAGE_META;
	e[0] = 7;	/* what the page's entries say when it comes back */
	bq_pages_release(&t, 1, sz);
	EXPECT(t.spare == page && !slot_value(&t, 0) && !t.empty && bq_arena_held[0] == 2,
	       "unheld: spare %#x (page %#x), slot %#x, %u empty, %lld counted", t.spare, page,
	       slot_value(&t, 0), t.empty, (long long)bq_arena_held[0]);
	out = bq_arena.nout;
	e = bq_pages_hold(&insts[0], &t, 5 * per + 1, sz);
	EXPECT(e && (slot_value(&t, 5) & ~BQ_PAGE_META) == page && !t.spare && e[0] == 7 &&
	       bq_arena.nout == out, "page 5 is not the spare as it was: slot %#x, spare %#x, "
	       "entry %d, %u allocated", slot_value(&t, 5), t.spare, e ? e[0] : -1,
	       bq_arena.nout - out);
	bq_pages_hold(&insts[0], &t, 6 * per, sz);
	bq_pages_release(&t, 5 * per + 1, sz);
	bq_pages_release(&t, 6 * per, sz);
	EXPECT(t.spare == page && (slot_value(&t, 6) & BQ_PAGE_EMPTY) && t.empty == 1,
	       "two pages unheld: spare %#x (page %#x), page 6's slot %#x, %u empty", t.spare,
	       page, slot_value(&t, 6), t.empty);
	sweep_turns(&t);
	EXPECT(!slot_value(&t, 6) && !t.empty && bq_arena_held[0] == 2,
	       "after the sweep: page 6's slot %#x, %u empty, %lld counted", slot_value(&t, 6),
	       t.empty, (long long)bq_arena_held[0]);
	bq_pages_free(&insts[0], &t);
	check_all_back("after the recycling table's purge");
}

/* The lowest 0 bit, one bit at a time. */
static __u32 naive_lowest_zero(__u64 w)
{
	__u32 b = 0;

	while (w & 1ULL << b)
		b++;
	return b;
}

static __u64 rand64(void)
{
	return (__u64)rand() << 42 ^ (__u64)rand() << 21 ^ rand();
}

/* Each bit position as the lowest zero, under ones and above random bits. */
static void lowest_zero_every_bit(void)
{
	srand(6);
	for (__u32 b = 0; b < 64; b++)
		for (int i = 0; i < 100; i++) {
			__u64 above = b == 63 ? 0 : rand64() << (b + 1);
			__u64 w = above | ((1ULL << b) - 1);

			if (i == 0)
				w = (1ULL << b) - 1;
			EXPECT(bq_lowest_zero(w) == naive_lowest_zero(w), "word %#llx: %u, not %u",
			       (unsigned long long)w, bq_lowest_zero(w), naive_lowest_zero(w));
		}
}

/* The lowest index of 1..n-1 not used in the model; 0 if none. */
static __u32 model_lowest(const char *used, __u32 n)
{
	const char *p = n > 1 ? memchr(used + 1, 0, n - 1) : NULL;

	return p ? p - used : 0;
}

/* peek against the model, and take what it gave: false if nothing. */
static bool idmap_take_lowest(struct bq_idmap *m, char *used, __u32 n, __u32 *nused, int op)
{
	__u32 failed = bq_arena.failed, id = bq_idmap_peek(&insts[0], m, n);
	__u32 want = model_lowest(used, n);

	EXPECT(id == want || (!id && bq_arena.failed != failed), "op %d: peek %u, lowest free %u",
	       op, id, want);
	if (!id || id != want)
		return false;
	bq_idmap_take(m, id);
	used[id] = 1;
	++*nused;
	return true;
}

/* Takes and puts that must change nothing: used, unused, 0 and past the bitmap. */
static void idmap_noops(struct bq_idmap *m, const char *used, __u32 n, int op)
{
	__u32 before = m->used, id = 1 + rand() % (n - 1);

	if (used[id])
		bq_idmap_take(m, id);
	else
		bq_idmap_put(m, id);
	bq_idmap_take(m, 0);
	bq_idmap_put(m, 0);
	bq_idmap_take(m, BQ_IDMAP_MAX + 1);
	bq_idmap_put(m, BQ_IDMAP_MAX + 1);
	EXPECT(m->used == before, "op %d: used %u after no-ops, was %u", op, m->used, before);
}

#define IDS		(3 * 4096 + 77)	/* three words of level 1 and some */
#define IDS_PHASE	16000		/* ops to fill them, then as many of emptying */

/*
 * Random takes of the lowest free index and puts of used ones, filling
 * and emptying by turns, with one allocation in 64 refused: peek is the
 * model's lowest free, and used its count.
 */
static void idmap_against_model(void)
{
	struct bq_idmap m = {};
	char *used = calloc(IDS, 1);
	__u32 nused = 0;

	bq_arena.fail_one_in = 64;
	srand(7);
	for (int op = 0; op < OPS && !unit_current_failed; op++) {
		int bias = (op / IDS_PHASE) % 2 ? 30 : 95;
		__u32 id = 1 + rand() % (IDS - 1);

		if (rand() % 100 < bias)
			idmap_take_lowest(&m, used, IDS, &nused, op);
		else if (used[id]) {
			bq_idmap_put(&m, id);
			used[id] = 0;
			nused--;
		} else
			idmap_noops(&m, used, IDS, op);
		EXPECT(m.used == nused, "op %d: used %u, model %u", op, m.used, nused);
	}
	bq_arena.fail_one_in = 0;
	bq_idmap_free(&insts[0], &m);
	EXPECT(!memcmp(&m, &(struct bq_idmap){}, sizeof(m)), "idmap not empty after its free");
	free(used);
	check_all_back("after bq_idmap_free");
}

/* The next peek is want, and is taken. */
static void idmap_next(struct bq_idmap *m, __u32 n, __u32 want)
{
	__u32 id = bq_idmap_peek(&insts[0], m, n);

	EXPECT(id == want, "peek %u, not %u", id, want);
	bq_idmap_take(m, id);
}

/*
 * Every index of the bitmap, 1..BQ_IDMAP_MAX, handed out in order; none
 * once full, nor below a smaller n; a few put back come out lowest first.
 */
static void idmap_fills(void)
{
	static const __u32 back[] = { 1, 64, 65, 4097, 200000, BQ_IDMAP_MAX };
	struct bq_idmap m = {};
	__u32 n = BQ_IDMAP_MAX + 1, id, i;

	EXPECT(!bq_idmap_peek(&insts[0], &m, 1), "an index below 1");
	for (id = 1; id < n && !unit_current_failed; id++)
		idmap_next(&m, n, id);
	EXPECT(!bq_idmap_peek(&insts[0], &m, n) && m.used == BQ_IDMAP_MAX, "full: used %u", m.used);
	for (i = sizeof(back) / sizeof(back[0]); i--;)
		bq_idmap_put(&m, back[i]);
	EXPECT(m.used == BQ_IDMAP_MAX - 6, "used %u after 6 puts", m.used);
	/* Only an index below n: 1 is, 64 is not below 64. */
	EXPECT(!bq_idmap_peek(&insts[0], &m, 1), "an index below 1 with 1 free");
	idmap_next(&m, 2, 1);
	EXPECT(!bq_idmap_peek(&insts[0], &m, 64), "an index below 64 with 64 the lowest free");
	for (i = 1; i < sizeof(back) / sizeof(back[0]); i++)
		idmap_next(&m, n, back[i]);
	EXPECT(!bq_idmap_peek(&insts[0], &m, n) && m.used == BQ_IDMAP_MAX, "full again: used %u",
	       m.used);
	bq_idmap_free(&insts[0], &m);
	check_all_back("after the full bitmap's free");
}

int main(void)
{
	unit_file = "pages";
	arena_map();
	RUN(block_skips_page_zero);
	RUN(pages_bounds);
	RUN(pages_against_model);
	RUN(pages_sweep_drains);
	RUN(pages_recycle);
	RUN(lowest_zero_every_bit);
	RUN(idmap_against_model);
	RUN(idmap_fills);
	return unit_failed;
}
