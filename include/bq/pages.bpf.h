/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc pages: tables of fixed-size entries, numbered from 0, in the
 * kind's arena (bq_arena), whose pages are allocated when an entry on
 * them is first reached and given back when nothing holds them, or when
 * the instance is purged. A table costs nothing until it is used: an idle
 * instance holds no page of it.
 *
 * What a table needs of the kind's state is a struct bq_pages: the arena
 * offsets of its directory pages, each of which holds the offsets of
 * BQ_PAGES_PER_DIR pages of entries. Looking an entry up (bq_pages_at)
 * reads one of them, then the directory, and no map. The verifier cannot
 * follow an arena pointer, and a bad one reads zeroes and writes nothing,
 * so an entry's index need only be bounded, not checked against what was
 * allocated.
 *
 * A page may be held (bq_pages_hold) for each live entry on it, as a slab
 * page is by its objects, and freed once none is: as sch_fq's flows go
 * back to the slab once collected. Not at the last release: indexes are
 * reused lowest first, so a page emptied by a collection is often the
 * next one needed, and freeing then reallocating it would cost the
 * kernel's page allocator, a mapping and a TLB flush each time a flow
 * came and went at a page's edge. A sweep (bq_pages_sweep, a few slots a
 * call) frees a page found empty on two passes running. The count and those two marks are the low
 * bits of the page's directory slot, which a page-aligned offset leaves
 * free. A page reached and never held stays until the purge.
 *
 * A table whose entries are free by their own account once nothing holds
 * their page (a rank queue's buckets, each empty at length 0) may set
 * recycle: its page whose last hold goes is taken out of the directory at
 * once and kept as the table's spare, and the next page the table needs
 * is that one, unzeroed, instead of a new one. A window of ranks that
 * slides on, a page a packet, then moves one page about rather than
 * allocating and freeing one a packet; the spare stays until the purge.
 * Free entries must then be found without reading the entries, whose page
 * may be gone: struct bq_idmap hands out indexes, lowest first, which
 * also packs the live entries into the fewest pages.
 *
 * Every page an instance holds is counted in bq_arena_held by its slot,
 * which bpfqdisc list and stats read: the kernel reports none of an
 * arena's pages (they are neither slab, per-CPU nor vmalloc memory).
 *
 * An entry must not hold a kptr (an arena cannot). A table holds at most
 * BQ_PAGES_DIRS * BQ_PAGES_PER_DIR pages; bq_pages_capacity() gives its
 * entries. Allocation may fail in the ops' context (the kernel takes
 * pages without sleeping): bq_pages_reach() then returns NULL, which the
 * caller treats as a full table.
 */
#ifndef BQ_PAGES_BPF_H
#define BQ_PAGES_BPF_H

#include "bq/bits.bpf.h"

#ifndef __arena
#define __arena __attribute__((address_space(1)))
#endif

#define BQ_PAGE_SIZE		4096
#define BQ_PAGES_PER_DIR	(BQ_PAGE_SIZE / sizeof(__u32))
#define BQ_PAGES_DIRS		32
/* A directory slot: the page's offset, and in the bits below a page: */
#define BQ_PAGE_META		(BQ_PAGE_SIZE - 1)
#define BQ_PAGE_HOLDS		0x3ffU	/* the holds of it */
#define BQ_PAGE_EMPTY		0x400U	/* held once, by none now */
#define BQ_PAGE_SWEPT		0x800U	/* found empty by the last sweep */
/* 4 GiB of address space, the most an arena has: nothing is allocated until used. */
#define BQ_ARENA_PAGES		(1U << 20)

/*
 * The arena, its pointers and the count of its pages, from the kernel. A
 * native test (selftests/unit/test_pages.c) defines them itself, before
 * including this, over a fake arena: bq_arena, bpf_arena_alloc_pages(),
 * bpf_arena_free_pages(), bq_arena_ptr(), bq_pages_count(), and bpf_for.
 */
#ifdef __bpf__
#include "bq/core.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARENA);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, BQ_ARENA_PAGES);
} bq_arena SEC(".maps");

/* Pages of the arena each instance holds, by slot: what user space reports. */
BQ_SLOT_MAP(bq_arena_held, BPF_MAP_TYPE_ARRAY, u32, __u64, 1, BQ_MAP_PIN);

static __always_inline void bq_pages_count(const struct bq_instance *inst, int n)
{
	__u64 *held = bq_region_lookup(&bq_arena_held, inst, 1, 0);

	if (held)
		*held += n;
}

/* An arena offset as a pointer; the offset is what the arena maps. */
#define bq_arena_ptr(T, off)	((T __arena *)(__u64)(off))
#endif /* __bpf__ */

/* Per table, in the kind's state; all zero is an empty table. */
struct bq_pages {
	__u32 dir[BQ_PAGES_DIRS];	/* arena offsets of directory pages; 0: none */
	__u32 empty;			/* pages marked BQ_PAGE_EMPTY */
	__u32 sweep;			/* the next page the sweep looks at */
	__u32 spare;			/* arena offset of a page to reuse; 0: none */
	__u32 recycle;			/* entries are free when their page is unheld */
};

/* Entries of size sz a table can hold. */
#define bq_pages_capacity(sz)						\
	((__u32)(BQ_PAGES_DIRS * BQ_PAGES_PER_DIR * (BQ_PAGE_SIZE / (sz))))

/*
 * n new zeroed pages of the arena, one after the other, as the offset of
 * the first; 0 without memory. A kind keeps a block for what it reaches by
 * arithmetic alone (bpf_fq's socket clocks), and gives it back with
 * bq_pages_block_free(). The arena spans 4 GiB, so it starts on a 4 GiB
 * boundary and its first page is at offset 0, which reads as "none":
 * that page is kept, never used, and others taken.
 */
static __always_inline __u32 bq_pages_block(const struct bq_instance *inst, __u32 n)
{
	__u64 p = (__u64)bpf_arena_alloc_pages(&bq_arena, NULL, n, -1, 0);

	if (p && !(__u32)p) {
		if (n > 1)
			bpf_arena_free_pages(&bq_arena, (void *)(p + BQ_PAGE_SIZE), n - 1);
		p = (__u64)bpf_arena_alloc_pages(&bq_arena, NULL, n, -1, 0);
	}
	if ((__u32)p)
		bq_pages_count(inst, n);
	return (__u32)p;
}

static __always_inline void bq_pages_block_free(const struct bq_instance *inst, __u32 off,
						__u32 n)
{
	bpf_arena_free_pages(&bq_arena, (void *)(__u64)off, n);
	bq_pages_count(inst, -(int)n);
}

/* The directory slot of entry idx's page, a page there or not; NULL without its directory. */
static __always_inline __u32 __arena *bq_pages_slot_of(const struct bq_pages *t, __u32 idx,
						       __u32 sz)
{
	__u32 page = idx / (BQ_PAGE_SIZE / sz), d = page / BQ_PAGES_PER_DIR;

	asm volatile("" :: "r"(&bq_arena));
	if (d >= BQ_PAGES_DIRS || !t->dir[d])
		return NULL;
	return bq_arena_ptr(__u32, t->dir[d]) + page % BQ_PAGES_PER_DIR;
}

/* Entry idx of size sz on the page at arena offset off. */
static __always_inline void __arena *bq_pages_page_entry(__u32 off, __u32 idx, __u32 sz)
{
	return bq_arena_ptr(void, off + idx % (BQ_PAGE_SIZE / sz) * sz);
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
	__u32 __arena *slot = bq_pages_slot_of(t, idx, sz);
	__u32 off = slot ? *slot & ~BQ_PAGE_META : 0;

	return off ? bq_pages_page_entry(off, idx, sz) : NULL;
}

/* The directory slot of entry idx's page, NULL if the page is not there. */
static __always_inline __u32 __arena *bq_pages_dir_slot(const struct bq_pages *t, __u32 idx,
							__u32 sz)
{
	__u32 __arena *slot = bq_pages_slot_of(t, idx, sz);

	return slot && *slot ? slot : NULL;
}

/* Entry idx of size sz on the page of directory slot slot. */
static __always_inline void __arena *bq_pages_slot_entry(__u32 __arena *slot, __u32 idx, __u32 sz)
{
	return bq_pages_page_entry(*slot & ~BQ_PAGE_META, idx, sz);
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
 * The directory slot of the page of entry idx of size sz of table t, as
 * an arena offset, the page allocated if need be; 0 without memory. Arena
 * pages come zeroed. Global, so that the verifier checks it once: inline,
 * its failure paths multiplied the states of bpf_fq's enqueue past the
 * verifier's limit. A failed allocation stores nothing: the verifier
 * refuses one store instruction for two kinds of pointer, which the
 * compiler would make of two alike failure paths.
 */
__noinline __u64 bq_pages_slot(const struct bq_instance *inst, struct bq_pages *t, __u32 idx,
			       __u32 sz)
{
	__u32 page, d, dir, off;
	__u32 __arena *slot;

	if (!inst || !t || !sz || sz > BQ_PAGE_SIZE)
		return 0;
	page = idx / (BQ_PAGE_SIZE / sz);
	d = page / BQ_PAGES_PER_DIR;
	if (d >= BQ_PAGES_DIRS)
		return 0;
	dir = t->dir[d];
	if (!dir) {
		dir = bq_pages_block(inst, 1);
		if (!dir)
			return 0;
		t->dir[d] = dir;
	}
	slot = bq_arena_ptr(__u32, dir) + page % BQ_PAGES_PER_DIR;
	if (!*slot) {
		off = t->spare ?: bq_pages_block(inst, 1);
		if (!off)
			return 0;
		t->spare = 0;
		*slot = off;
	}
	return (__u64)slot & 0xffffffff;
}

/*
 * The directory slot of entry idx's page, the page allocated if need be;
 * NULL without. Found inline if it is there, the usual case.
 */
static __always_inline __u32 __arena *bq_pages_slot_reach(const struct bq_instance *inst,
							  struct bq_pages *t, __u32 idx, __u32 sz)
{
	__u32 __arena *slot = bq_pages_dir_slot(t, idx, sz);
	__u64 off;

	if (slot)
		return slot;
	off = bq_pages_slot(inst, t, idx, sz);
	return off ? bq_arena_ptr(__u32, off) : NULL;
}

/* Entry idx of size sz of table t, its page allocated if need be; NULL without. */
static __always_inline void __arena *bq_pages_reach(const struct bq_instance *inst,
						    struct bq_pages *t, __u32 idx, __u32 sz)
{
	__u32 __arena *slot = bq_pages_slot_reach(inst, t, idx, sz);

	return slot ? bq_pages_slot_entry(slot, idx, sz) : NULL;
}

/*
 * bq_pages_reach(), and a hold of the page for the entry, which a
 * bq_pages_release() of the same index gives back. A page's count stops
 * at BQ_PAGE_HOLDS: a page of 4-byte entries (bpf_fq's chains) has more
 * of them, and a count that wrapped to 0 would let the sweep free the
 * page under its live entries. A page held that often stays until the
 * purge, its count no longer told.
 */
static __always_inline void __arena *bq_pages_hold(const struct bq_instance *inst,
						   struct bq_pages *t, __u32 idx, __u32 sz)
{
	__u32 __arena *slot = bq_pages_slot_reach(inst, t, idx, sz);
	__u32 v;

	if (!slot)
		return NULL;
	v = *slot;
	if (v & BQ_PAGE_EMPTY)
		t->empty--;
	if ((v & BQ_PAGE_HOLDS) != BQ_PAGE_HOLDS)
		*slot = (v & ~(BQ_PAGE_EMPTY | BQ_PAGE_SWEPT)) + 1;
	return bq_pages_slot_entry(slot, idx, sz);
}

/*
 * Give back a hold of the page of entry idx: after the last, the page is
 * empty, for bq_pages_sweep() to free, or the spare of a table that
 * recycles and has none. Global, as bq_pages_slot().
 */
__noinline int bq_pages_release(struct bq_pages *t, __u32 idx, __u32 sz)
{
	__u32 __arena *slot;
	__u32 v;

	if (!t || !sz || sz > BQ_PAGE_SIZE)
		return 0;
	slot = bq_pages_slot_of(t, idx, sz);
	if (!slot)
		return 0;
	v = *slot;
	if (!(v & BQ_PAGE_HOLDS) || (v & BQ_PAGE_HOLDS) == BQ_PAGE_HOLDS)
		return 0;
	if (!(--v & BQ_PAGE_HOLDS) && t->recycle && !t->spare) {
		t->spare = v & ~BQ_PAGE_META;
		v = 0;
	} else if (!(v & BQ_PAGE_HOLDS)) {
		v |= BQ_PAGE_EMPTY;
		t->empty++;
	}
	*slot = v;
	return 0;
}

/*
 * Look at the next n pages of t (as a clock hand, over every directory):
 * an empty one is marked, and freed if it was already (it stayed empty a
 * whole turn). Nothing to do, and no cost but a test, while no page is
 * empty. A page never held is never marked empty, so never swept: it
 * stays until the purge. Global, as bq_pages_slot().
 */
__noinline int bq_pages_sweep(const struct bq_instance *inst, struct bq_pages *t, __u32 n)
{
	__u32 i, page, d, v;
	__u32 __arena *slot;

	if (!inst || !t || !t->empty)
		return 0;
	bpf_for(i, 0, n) {
		page = t->sweep++ % (BQ_PAGES_DIRS * BQ_PAGES_PER_DIR);
		d = page / BQ_PAGES_PER_DIR;
		if (!t->dir[d]) {	/* a whole directory missing: on to the next */
			t->sweep = (d + 1) * BQ_PAGES_PER_DIR;
			continue;
		}
		slot = bq_arena_ptr(__u32, t->dir[d]) + page % BQ_PAGES_PER_DIR;
		v = *slot;
		if (!(v & BQ_PAGE_EMPTY))
			continue;
		if (!(v & BQ_PAGE_SWEPT)) {
			*slot = v | BQ_PAGE_SWEPT;
			continue;
		}
		*slot = 0;
		t->empty--;
		bq_pages_block_free(inst, v & ~BQ_PAGE_META, 1);
	}
	return 0;
}

/* Give back every page of t (the kind's purge); t is empty after. */
static __always_inline void bq_pages_free(const struct bq_instance *inst, struct bq_pages *t)
{
	__u32 d, i, off;
	__u32 __arena *dir;

	bpf_for(d, 0, BQ_PAGES_DIRS) {
		if (!t->dir[d])
			continue;
		dir = bq_arena_ptr(__u32, t->dir[d]);
		bpf_for(i, 0, BQ_PAGES_PER_DIR) {
			off = dir[i] & ~BQ_PAGE_META;
			if (off)
				bq_pages_block_free(inst, off, 1);
		}
		bq_pages_block_free(inst, t->dir[d], 1);
	}
	if (t->spare)
		bq_pages_block_free(inst, t->spare, 1);
	__builtin_memset(t, 0, sizeof(*t));
}

/*
 * struct bq_idmap: indexes 1 .. n - 1 of a table, handed out lowest first
 * from a bitmap in arena pages (a bit a used index) under two levels of
 * summary: a bit of level 1 for each full word of the bitmap, a bit of
 * top for each full word of level 1. The lowest free index is a word of
 * each level away (Eiffel's cFFS), and nothing of the entries is read:
 * their pages may be gone. Words of level 1 are the bitmap table's first
 * BQ_IDMAP_L1, of level 0 the rest; the table's pages stay until a purge
 * (an index a bit: 8 KiB for 60000 entries).
 */
#define BQ_IDMAP_TOP		8
#define BQ_IDMAP_L1		(BQ_IDMAP_TOP * 64)
#define BQ_IDMAP_MAX		(BQ_IDMAP_L1 * 64 * 64)

/* Per table, in the kind's state; all zero is empty. */
struct bq_idmap {
	__u64 top[BQ_IDMAP_TOP];
	struct bq_pages bits;
	__u32 used;		/* handed out and not put back */
	__u32 pad;
};

/*
 * The lowest free index below n (at most BQ_IDMAP_MAX + 1), the bitmap's
 * pages for it reached; 0 if there is none, or no memory. Not handed out
 * until bq_idmap_take(), so that the caller can first get its entry.
 * Global, as bq_pages_slot(): each turn of its loop would be a state of
 * the caller's to go on from.
 */
__noinline __u32 bq_idmap_peek(const struct bq_instance *inst, struct bq_idmap *m, __u32 n)
{
	__u64 __arena *l1, *l0;
	__u32 w, i1, i0, id;

	if (!inst || !m)
		return 0;
	for (w = 0; w < BQ_IDMAP_TOP; w++)
		if (~m->top[w])
			break;
	if (w >= BQ_IDMAP_TOP)
		return 0;
	i1 = w * 64 + bq_lowest_zero(m->top[w]);
	l1 = bq_pages_reach(inst, &m->bits, i1, sizeof(__u64));
	if (!l1)
		return 0;
	i0 = i1 * 64 + bq_lowest_zero(*l1);
	l0 = bq_pages_reach(inst, &m->bits, BQ_IDMAP_L1 + i0, sizeof(__u64));
	if (!l0)
		return 0;
	id = i0 * 64 + bq_lowest_zero(*l0) + 1;
	return id < n ? id : 0;
}

/* The words of each level that index id's bit is in; false if one is not there. */
static __always_inline bool bq_idmap_words(struct bq_idmap *m, __u32 id, __u64 __arena **l0,
					   __u64 __arena **l1)
{
	__u32 i0 = (id - 1) / 64;

	*l0 = bq_pages_at(&m->bits, BQ_IDMAP_L1 + i0, sizeof(__u64));
	*l1 = bq_pages_at(&m->bits, i0 / 64, sizeof(__u64));
	return id && id <= BQ_IDMAP_MAX && *l0 && *l1;
}

/*
 * The word of top for word i1 of level 1. The mask is for the verifier,
 * which the compiler would drop: it knows i1 is in range, from a check on
 * another register that the verifier does not link to this one.
 */
static __always_inline __u64 *bq_idmap_top(struct bq_idmap *m, __u32 i1)
{
	__u32 w = i1 / 64;

	asm volatile("" : "+r"(w));
	return &m->top[w & (BQ_IDMAP_TOP - 1)];
}

/* Hand out index id, which bq_idmap_peek() gave. Global, as bq_idmap_peek(). */
__noinline int bq_idmap_take(struct bq_idmap *m, __u32 id)
{
	__u32 i = id - 1, i0 = i / 64, i1 = i0 / 64;
	__u64 __arena *l0, *l1;

	if (!m || !bq_idmap_words(m, id, &l0, &l1) || (*l0 & 1ULL << i % 64))
		return 0;
	*l0 |= 1ULL << i % 64;
	m->used++;
	if (~*l0)
		return 0;
	*l1 |= 1ULL << i0 % 64;
	if (~*l1)
		return 0;
	*bq_idmap_top(m, i1) |= 1ULL << i1 % 64;
	return 0;
}

/* Give index id back. Global, as bq_idmap_peek(). */
__noinline int bq_idmap_put(struct bq_idmap *m, __u32 id)
{
	__u32 i = id - 1, i0 = i / 64, i1 = i0 / 64;
	__u64 __arena *l0, *l1;

	if (!m || !bq_idmap_words(m, id, &l0, &l1) || !(*l0 & 1ULL << i % 64))
		return 0;
	*l0 &= ~(1ULL << i % 64);
	*l1 &= ~(1ULL << i0 % 64);
	*bq_idmap_top(m, i1) &= ~(1ULL << i1 % 64);
	m->used--;
	return 0;
}

/* Give back the bitmap's pages (the kind's purge); m is empty after. */
static __always_inline void bq_idmap_free(const struct bq_instance *inst, struct bq_idmap *m)
{
	bq_pages_free(inst, &m->bits);
	__builtin_memset(m, 0, sizeof(*m));
}

#endif /* BQ_PAGES_BPF_H */
