/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc ids: hands out the indexes of a per-instance region of entries,
 * 1 to n - 1. Index 0 is never handed out: 0 ends a list, and zeroed
 * memory is an empty allocator. Freed indexes go on a free list linked
 * through the entries themselves, by a u32 of each that the caller names,
 * so one allocator serves any entry type (the pool's packets, fq's flows);
 * never-used ones come from a high-water mark, so nothing walks entries
 * that were never used, and a purge need look at 1..hwm only.
 *
 * Needs only __u32: selftests/unit/test_parts.c checks it natively
 * against a model.
 */
#ifndef BQ_IDS_BPF_H
#define BQ_IDS_BPF_H

/* Per instance, in the kind's state; all zero is empty. */
struct bq_ids {
	__u32 free;		/* first free index, linked by the entries; 0: none */
	__u32 hwm;		/* highest index ever handed out */
	__u32 used;		/* handed out and not put back */
	__u32 pad;
};

/* What the caller gives for the free list's link when its lookup failed. */
#define BQ_IDS_UNREAD	(~0U)

/*
 * An unused index below n, or 0 when there is none. free_next is the link
 * of entry ids->free, which the caller reads when ids->free is not 0
 * (BQ_IDS_UNREAD if it could not: then nothing is handed out). A value,
 * not a pointer: the verifier cannot follow a pointer into an entry that
 * was chosen by a NULL check.
 */
static __always_inline __u32 bq_ids_alloc(struct bq_ids *ids, __u32 n, __u32 free_next)
{
	__u32 idx = ids->free;

	if (idx) {
		if (free_next == BQ_IDS_UNREAD)
			return 0;
		ids->free = free_next;
	} else if (ids->hwm + 1 < n) {
		idx = ++ids->hwm;
	} else {
		return 0;
	}
	ids->used++;
	return idx;
}

/* Give idx back; next is the link of its entry, which the free list takes. */
static __always_inline void bq_ids_put(struct bq_ids *ids, __u32 *next, __u32 idx)
{
	*next = ids->free;
	ids->free = idx;
	ids->used--;
}

#endif /* BQ_IDS_BPF_H */
