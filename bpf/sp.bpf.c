// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_sp: strict priority as a rank function, prio's policy on a PIFO.
 *
 * The rank is the packet's band, and the rank queue (bq/rank.bpf.h) serves
 * the least rank first, equal ranks in arrival order: band 0 before band
 * 1 before band 2, each band a FIFO, which is what prio does with a pfifo
 * per band. The band is prio's without filters: a priority whose major is
 * the qdisc's handle names band minor - 1 (if below bands); any other
 * major, band priomap[0]; else priomap[priority & 15] (the default is
 * prio's, 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1). PIFO's transaction is one line
 * (p.rank = p.band); ours is three, the band's lookup included.
 *
 * The window is 16 buckets of one rank, every band: nothing is clamped.
 * limit counts every band's packets together, where prio's bands each
 * have their own; a full qdisc drops the arriving packet, whatever its
 * band (prio's child of that band would).
 */
#include "bq/core.bpf.h"
#include "bq/rank.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define SP_BANDS_MAX	16

struct sp_params {
	__u64 limit, bands, priomap;
};

BQ_PARAMS(struct sp_params,
	BQ_RANK_LIMIT_PARAM(1000),
	BQ_PARAM(bands, BQ_UNIT_COUNT, 3, 1, SP_BANDS_MAX),
	BQ_PARAM(priomap, BQ_UNIT_PRIOMAP, 0x1111111100212221ULL, 0, 0xffffffffffffffffULL),
);

BQ_RANK_XSTATS();

struct sp_sched {
	struct bq_pifo pifo;
};

BQ_STATE(struct sp_sched);

BQ_RANK(sp, struct sp_sched)
{
	__u32 prio = skb->priority, major = prio & 0xffff0000, band = (prio & 0xffff) - 1;

	return major == sch->handle && band < p->bands ? band :
	       (p->priomap >> (major ? 0 : 4 * (prio & 15))) & 0xf;
}

static int sp_setup(struct Qdisc *sch, struct bq_instance *inst, struct sp_sched *q)
{
	bq_pifo_window(&q->pifo, 0, 4);
	return 0;
}

BQ_RANK_QDISC(sp, struct sp_sched, sp_rank, BQ_RANK_NOTHING_SERVED, sp_setup, BQ_NO_RELEASE);
