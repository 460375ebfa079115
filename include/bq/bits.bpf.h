/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc bits: find-first-set on a 64-bit word without a branch, for the
 * bitmaps with summary levels of bq/pages.bpf.h (struct bq_idmap: the
 * lowest free index) and bq/rank.bpf.h (the least busy bucket). Branch
 * free, so that a search costs the verifier one state, not one a bit.
 *
 * Needs only __u32 and __u64: selftests/unit/test_rank.c checks it natively.
 */
#ifndef BQ_BITS_BPF_H
#define BQ_BITS_BPF_H

/* 1 if v is not 0, without a branch. */
static __always_inline __u64 bq_nonzero(__u64 v)
{
	return (v | -v) >> 63;
}

/* The lowest bit of w that is 0, which the caller knows there is. */
static __always_inline __u32 bq_lowest_zero(__u64 w)
{
	__u64 x = ~w & (w + 1);

	return bq_nonzero(x & 0xaaaaaaaaaaaaaaaaULL) | bq_nonzero(x & 0xccccccccccccccccULL) << 1 |
	       bq_nonzero(x & 0xf0f0f0f0f0f0f0f0ULL) << 2 | bq_nonzero(x & 0xff00ff00ff00ff00ULL) << 3 |
	       bq_nonzero(x & 0xffff0000ffff0000ULL) << 4 | bq_nonzero(x & 0xffffffff00000000ULL) << 5;
}

/*
 * The lowest bit of w that is 1, which the caller knows there is: w - 1
 * turns it to 0 and the zeros below it to ones, so it is w - 1's lowest 0.
 */
static __always_inline __u32 bq_lowest_one(__u64 w)
{
	return bq_lowest_zero(w - 1);
}

#endif /* BQ_BITS_BPF_H */
