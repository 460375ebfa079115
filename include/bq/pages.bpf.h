/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc pages: tables of fixed-size entries, numbered from 0, in the
 * kind's arena (bq_arena), whose pages are allocated when an entry on
 * them is first reached and given back when the instance is purged. A
 * table costs nothing until it is used and what it has reached after:
 * an idle instance holds no page of it, and a table of flows holds the
 * pages its highest index reached (ids.bpf.h hands out freed indexes
 * before new ones, so that is the most flows it held at once).
 *
 * What a table needs of the kind's state is a struct bq_pages: the arena
 * offsets of its directory pages, each of which holds the offsets of
 * BQ_PAGES_PER_DIR pages of entries. Looking an entry up (bq_pages_at)
 * reads one of them, then the directory, and no map. The verifier cannot
 * follow an arena pointer, and a bad one reads zeroes and writes nothing,
 * so an entry's index need only be bounded, not checked against what was
 * allocated.
 *
 * An entry must not hold a kptr (an arena cannot). A table holds at most
 * BQ_PAGES_DIRS * BQ_PAGES_PER_DIR pages; bq_pages_capacity() gives its
 * entries. Allocation may fail in the ops' context (the kernel takes
 * pages without sleeping): bq_pages_reach() then returns NULL, which the
 * caller treats as a full table.
 */
#ifndef BQ_PAGES_BPF_H
#define BQ_PAGES_BPF_H

#include "bq/core.bpf.h"

#ifndef __arena
#define __arena __attribute__((address_space(1)))
#endif

#define BQ_PAGE_SIZE		4096
#define BQ_PAGES_PER_DIR	(BQ_PAGE_SIZE / sizeof(__u32))
#define BQ_PAGES_DIRS		32
/* 4 GiB of address space, the most an arena has: nothing is allocated until used. */
#define BQ_ARENA_PAGES		(1U << 20)

struct {
	__uint(type, BPF_MAP_TYPE_ARENA);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, BQ_ARENA_PAGES);
} bq_arena SEC(".maps");

/* Per table, in the kind's state; all zero is an empty table. */
struct bq_pages {
	__u32 dir[BQ_PAGES_DIRS];	/* arena offsets of directory pages; 0: none */
};

/* Entries of size sz a table can hold. */
#define bq_pages_capacity(sz)						\
	((__u32)(BQ_PAGES_DIRS * BQ_PAGES_PER_DIR * (BQ_PAGE_SIZE / (sz))))

/* An arena offset as a pointer; the offset is what the arena maps. */
#define bq_arena_ptr(T, off)	((T __arena *)(__u64)(off))

/*
 * n new zeroed pages of the arena, one after the other, as the offset of
 * the first; 0 without memory. A kind keeps a block for what it reaches by
 * arithmetic alone (bpf_fq's socket clocks), and gives it back with
 * bq_pages_block_free(). The arena spans 4 GiB, so it starts on a 4 GiB
 * boundary and its first page is at offset 0, which reads as "none":
 * that page is kept, never used, and others taken.
 */
static __always_inline __u32 bq_pages_block(__u32 n)
{
	__u64 p = (__u64)bpf_arena_alloc_pages(&bq_arena, NULL, n, -1, 0);

	if (p && !(__u32)p) {
		if (n > 1)
			bpf_arena_free_pages(&bq_arena, (void *)(p + BQ_PAGE_SIZE), n - 1);
		p = (__u64)bpf_arena_alloc_pages(&bq_arena, NULL, n, -1, 0);
	}
	return (__u32)p;
}

static __always_inline void bq_pages_block_free(__u32 off, __u32 n)
{
	bpf_arena_free_pages(&bq_arena, (void *)(__u64)off, n);
}

/*
 * Entry idx of size sz of table t, or NULL if its page was never reached:
 * no allocation. A kind reaches an entry (bq_pages_reach) before it looks
 * it up. Inline, with sz a constant: a multiply and shifts, two loads. It
 * names the arena, as every program that casts an arena pointer must
 * (a dequeue may only look up).
 */
static __always_inline void __arena *bq_pages_at(const struct bq_pages *t, __u32 idx, __u32 sz)
{
	__u32 per = BQ_PAGE_SIZE / sz, page = idx / per, d = page / BQ_PAGES_PER_DIR, off;

	asm volatile("" :: "r"(&bq_arena));
	if (d >= BQ_PAGES_DIRS || !t->dir[d])
		return NULL;
	off = bq_arena_ptr(__u32, t->dir[d])[page % BQ_PAGES_PER_DIR];
	return off ? bq_arena_ptr(void, off + idx % per * sz) : NULL;
}

/*
 * bq_pages_at() as a global function, which the verifier checks once, not
 * at each lookup of a loop (a heap's steps): there the branches of the
 * inline one multiply the states of a large program past the verifier's
 * limit. The offset of the entry, 0 for none.
 */
__noinline __u64 bq_pages_entry(const struct bq_pages *t, __u32 idx, __u32 sz)
{
	if (!t || !sz || sz > BQ_PAGE_SIZE)
		return 0;
	return (__u64)bq_pages_at(t, idx, sz) & 0xffffffff;
}

/* bq_pages_at(), out of line (bq_pages_entry). */
static __always_inline void __arena *bq_pages_at_noinline(const struct bq_pages *t, __u32 idx,
							  __u32 sz)
{
	__u64 off = bq_pages_entry(t, idx, sz);

	return off ? bq_arena_ptr(void, off) : NULL;
}

/*
 * Entry idx of size sz of table t, its pages allocated if need be; NULL
 * without. Arena pages come zeroed. A failed allocation stores nothing:
 * the verifier refuses one store instruction for two kinds of pointer,
 * which the compiler would make of two alike failure paths.
 */
static __always_inline void __arena *bq_pages_reach(struct bq_pages *t, __u32 idx, __u32 sz)
{
	__u32 per = BQ_PAGE_SIZE / sz, page = idx / per, d = page / BQ_PAGES_PER_DIR;
	__u32 dir, off;
	__u32 __arena *slot;

	if (d >= BQ_PAGES_DIRS)
		return NULL;
	dir = t->dir[d];
	if (!dir) {
		dir = bq_pages_block(1);
		if (!dir)
			return NULL;
		t->dir[d] = dir;
	}
	slot = bq_arena_ptr(__u32, dir) + page % BQ_PAGES_PER_DIR;
	off = *slot;
	if (!off) {
		off = bq_pages_block(1);
		if (!off)
			return NULL;
		*slot = off;
	}
	return bq_arena_ptr(void, off + idx % per * sz);
}

/* Give back every page of t (the kind's purge); t is empty after. */
static __always_inline void bq_pages_free(struct bq_pages *t)
{
	__u32 d, i, off;
	__u32 __arena *dir;

	bpf_for(d, 0, BQ_PAGES_DIRS) {
		if (!t->dir[d])
			continue;
		dir = bq_arena_ptr(__u32, t->dir[d]);
		bpf_for(i, 0, BQ_PAGES_PER_DIR) {
			off = dir[i];
			if (off)
				bq_pages_block_free(off, 1);
		}
		bq_pages_block_free(t->dir[d], 1);
	}
	__builtin_memset(t, 0, sizeof(*t));
}

#endif /* BQ_PAGES_BPF_H */
