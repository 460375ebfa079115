// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_tbf: a token bucket filter as a shaping transaction (PIFO's token
 * bucket): tbf's rate and burst, the departure time a packet's rank.
 *
 * Tokens, in bytes, fill the bucket at rate up to burst; a packet leaves
 * once the bucket holds its length, which it takes. The bucket is kept as
 * one time, full: when it would be full again if nothing more were sent.
 * At time t before full it holds burst - (full - t) * rate; so a packet
 * of length len may leave at full - (burst - len) / rate, or now if that
 * has passed, and moves full on by len / rate (from now if the bucket was
 * already full). That time is its rank, and BQ_SHAPER_QDISC
 * (bq/rank.bpf.h) holds it until then, the qdisc's watchdog armed for the
 * earliest: the departures are EDT, as bpf_fq's. Departure times rise
 * with arrivals (each is the last's plus the packet's own len / rate, or
 * now), so the rank queue is a FIFO here and its window only has to hold
 * the backlog's time. PIFO's transaction is 7 lines; ours is 4.
 *
 * The rate holds whatever the watchdog's lateness: full follows the
 * bucket, not the moments packets went out, so packets the watchdog kept
 * past their times leave together once it fires, and the next keep theirs.
 *
 * Differences from the kernel's tbf:
 *  - limit counts packets (10000 by default, as the other rank kinds),
 *    where tbf's limit is bytes of backlog, and its latency (the longest
 *    a packet may wait) a way of giving that limit: limit = rate *
 *    latency + burst. A backlog of limit packets waits limit * len / rate.
 *  - A packet longer than burst is sent once the bucket is full, leaving
 *    it in debt (full moves on by its whole len / rate), where tbf drops
 *    it (or segments a GSO packet). The rate holds either way.
 *  - No peakrate and mtu (tbf's second bucket), and no child qdisc: the
 *    queue is the rank queue, FIFO.
 *  - Lengths are qdisc_pkt_len, as tbf's (the Ethernet header counted).
 *  - A change of rate or burst applies from the next packet queued; those
 *    queued keep their times. A reset fills the bucket, as tbf's.
 *
 * Ranks are ns; the window (rank_shift 20, rank_order 18: 2^18 buckets of
 * 1.05 ms, 275 s) must span the backlog's wait, or later packets are
 * clamped to its end (the statistic clamped) and leave too early: below
 * about 440kbit, 10000 frames of 1514 bytes wait longer, and want a
 * lower limit or a larger rank_shift. Since departures keep their
 * arrival order, a coarse bucket costs no order, and a backlog of a
 * second spans few buckets (pages). Keep rank_shift at 32 or below: the
 * rank queue keeps 32 bits of a rank below its bucket's, and a packet
 * whose rank needed more would leave at its bucket's start.
 */
#include "bq/core.bpf.h"
#include "bq/rank.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define TBF_MAX_RATE	12500000000ULL		/* bytes per second: 100 Gbit/s */
#define TBF_MAX_BURST	0xffffffffULL		/* bytes */
#define TBF_NSEC	1000000000ULL

struct tbf_params {
	__u64 limit, rate, burst, rank_shift, rank_order;
};

BQ_PARAMS(struct tbf_params,
	BQ_RANK_LIMIT_PARAM(10000),
	BQ_PARAM(rate, BQ_UNIT_RATE, 125000, 1, TBF_MAX_RATE),	/* 1mbit */
	BQ_PARAM(burst, BQ_UNIT_BYTES, 32768, 1, TBF_MAX_BURST),
	BQ_RANK_WINDOW_PARAMS(20),
);

BQ_RANK_XSTATS();

struct tbf_sched {
	struct bq_pifo pifo;
	__u64 full;		/* when the bucket is full again, if nothing more is sent */
};

BQ_STATE(struct tbf_sched);

/* ns to send bytes at rate (bytes per second). */
static __always_inline __u64 tbf_ns(__u64 bytes, __u64 rate)
{
	return bytes * TBF_NSEC / rate;
}

BQ_RANK(tbf, struct tbf_sched)
{
	__u64 now = bpf_ktime_get_ns(), cost = tbf_ns(bq_pkt_len(skb), p->rate);
	__u64 depart = q->full + cost - tbf_ns(p->burst, p->rate);

	q->full = ((__s64)(q->full - now) > 0 ? q->full : now) + cost;
	return (__s64)(depart - now) > 0 ? depart : now;
}

BQ_RANK_WINDOW_SETUP(tbf_setup, struct tbf_sched)

BQ_SHAPER_QDISC(tbf, struct tbf_sched, tbf_rank, tbf_setup, BQ_NO_RELEASE);
