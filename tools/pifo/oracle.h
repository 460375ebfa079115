/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exact PIFO: what a rank queue (include/bq/rank.bpf.h) must do with a
 * trace of pushes and pops. Packets leave sorted by (bucket, arrival),
 * the bucket being rank >> shift, clamped into the window of 2^order
 * buckets that starts at the last popped bucket (at the pushed one when
 * the queue is empty), as the rank queue's contract says. A binary heap,
 * nothing of the rank queue's buckets or bitmaps.
 */
#ifndef PIFO_ORACLE_H
#define PIFO_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One event of a trace: a push of rank (the packet's id is its push's number), or a pop. */
struct pifo_ev {
	bool pop;
	uint64_t rank;
};

struct pifo_window {
	unsigned int shift;	/* granularity 2^shift */
	unsigned int order;	/* 2^order buckets */
};

/*
 * The departures of the trace's n events through an exact PIFO: out[k]
 * the id of the k-th packet popped (a pop of an empty queue gives none).
 * Returns how many left; *clamped counts the pushes out of the window.
 * out needs room for every push.
 */
size_t pifo_replay(const struct pifo_ev *ev, size_t n, struct pifo_window w, uint32_t *out,
		   uint64_t *clamped);

/*
 * The same trace with the departures dep[0..ndep) of a queue under test:
 * at each pop, how many packets in the window then held should have left
 * before the one that did (inversions, as SP-PIFO counts them), among
 * packets whose rank was in the window when pushed. -1 if dep is not a
 * possible order at all (a packet not held, too few or too many).
 */
long pifo_inversions(const struct pifo_ev *ev, size_t n, struct pifo_window w,
		     const uint32_t *dep, size_t ndep, uint64_t *clamped);

#endif
