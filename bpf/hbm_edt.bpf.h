/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The thresholds of HBM's EDT design, shared by the cgroup EDT program
 * (bpf/hbm_cg_edt.bpf.c, whose top comment explains them) and the bpf_hbm
 * qdisc (bpf/hbm.bpf.c). Each is a time from the 2019 design and a floor in
 * bytes, so that at low rates it grows as 1/rate: a 64 KB GSO skb takes
 * 10.5 ms at 50 Mbit/s, and fixed microseconds would drop every second one.
 */
#ifndef HBM_EDT_BPF_H
#define HBM_EDT_BPF_H

#include "hbm_verdict.h"

#define HBM_NSEC_PER_USEC	1000ULL
#define HBM_NSEC_PER_SEC	1000000000ULL
#define HBM_KB			1000ULL

#define HBM_BURST_NS		(100 * HBM_NSEC_PER_USEC)
#define HBM_BURST_BYTES		(125 * HBM_KB)		/* 100 us at 10 Gbit/s */
#define HBM_MARK_NS		(50 * HBM_NSEC_PER_USEC)
#define HBM_MARK_BYTES		(2 * 65536ULL)		/* two GSO skbs */
#define HBM_DROP_NS		(500 * HBM_NSEC_PER_USEC)
#define HBM_DROP_BYTES		(625 * HBM_KB)
#define HBM_LARGE_DROP_NS	(480 * HBM_NSEC_PER_USEC)	/* packets > 120 B */
#define HBM_LARGE_DROP_BYTES	(600 * HBM_KB)

/*
 * A flow none of whose packets is queued (an RPC's request, say) sends this
 * much first, ahead of the bulk queued before it: 10 MTU, as sch_fq's new
 * flows. IP bytes.
 */
#define HBM_INITIAL_QUANTUM	15140

/*
 * How far ahead of its aggregate's clock a sparse flow may send in bpf_hbm
 * (bpf/hbm.bpf.c says why): a 64 KiB GSO skb, in IP bytes.
 */
#define HBM_SPARSE_LEAD_BYTES	(72 * 1024)

/* The thresholds at one rate, in ns ahead of now. */
struct hbm_thresholds {
	__u64 burst, mark, large_drop, drop;
};

/* Time to send len bytes at rate bytes/s; len * 1e9 fits in 64 bits. */
static __always_inline __u64 hbm_tx_time_ns(__u64 len, __u64 rate)
{
	return len * HBM_NSEC_PER_SEC / rate;
}

/* A threshold at this rate: its time, or its bytes' time if longer. */
static __always_inline __u64 hbm_threshold_ns(__u64 ns, __u64 bytes, __u64 rate)
{
	__u64 bytes_ns = hbm_tx_time_ns(bytes, rate);

	return bytes_ns > ns ? bytes_ns : ns;
}

static __always_inline void hbm_get_thresholds(struct hbm_thresholds *t, __u64 rate)
{
	t->burst = hbm_threshold_ns(HBM_BURST_NS, HBM_BURST_BYTES, rate);
	t->mark = hbm_threshold_ns(HBM_MARK_NS, HBM_MARK_BYTES, rate);
	t->large_drop = hbm_threshold_ns(HBM_LARGE_DROP_NS, HBM_LARGE_DROP_BYTES, rate);
	t->drop = hbm_threshold_ns(HBM_DROP_NS, HBM_DROP_BYTES, rate);
}

/*
 * The verdict's rules (include/hbm_verdict.h) at these thresholds, in ns
 * ahead: as in 2019, non-TCP packets that are not ECN-capable are dropped
 * past the mark threshold, but (as 2019's credit mode) only those over
 * HBM_SMALL_PKT: 2019's EDT mode dropped a ping next to a busy TCP flow.
 * Unlike 2019, TCP gets no CN by chance there (bpf/hbm_cg_edt.bpf.c says
 * why).
 */
static __always_inline void hbm_edt_rules(struct hbm_rules *r, const struct hbm_thresholds *t)
{
	r->mark = t->mark;
	r->large_drop = t->large_drop;
	r->drop = t->drop;
	r->other_drop = t->mark;
	r->cn_chance = false;
	r->keep_ack_clock = true;
	r->small_other_pass = true;
}

#endif /* HBM_EDT_BPF_H */
