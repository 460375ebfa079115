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

/*
 * The lowest bit of w that is 0, which the caller knows there is: BPF has
 * no count of trailing zeroes, so a de Bruijn multiply numbers the bit and
 * a table of 64 (in .rodata) names it, a few instructions where a binary
 * search of the word took 35 (a flow's index in bq_idmap costs three).
 */
#define BQ_DEBRUIJN64	0x03f79d71b4cb0a89ULL
static const __u8 bq_debruijn64[64] = {
	0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4,
	62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
	63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
	46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6,
};

static __always_inline __u32 bq_lowest_zero(__u64 w)
{
	return bq_debruijn64[((~w & (w + 1)) * BQ_DEBRUIJN64) >> 58];
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
