/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host Bandwidth Manager (HBM): what the cgroup egress programs
 * (bpf/hbm_cg.bpf.c, bpf/hbm_cg_edt.bpf.c) and the hbm tool (src/hbm/) share.
 *
 * Maps of every HBM object, found by name so that `hbm --object PROG.o` can
 * load an object built elsewhere with the same layout:
 *   hbm_config  ARRAY, 1 entry    struct hbm_config: rate and flags, written
 *                                 by user space, live (-w leases raises)
 *   hbm_stats   PERCPU_ARRAY, 1   struct hbm_stats: per-CPU counters, summed
 *                                 by user space
 *   hbm_queue   CGROUP_STORAGE    struct hbm_vqueue: the virtual queue of
 *                                 the cgroup the program is attached to
 *
 * Rates count IP bytes: every IP packet as it will be on the wire, headers
 * included, without the link-layer header. A GSO packet counts the headers
 * of each segment it will be cut into. TCP goodput over a 1500-byte MTU with
 * timestamps is therefore 1448/1500 = 96.5% of the rate.
 *
 * Included by BPF (after vmlinux.h) and user space (after linux/types.h).
 */
#ifndef HBM_H
#define HBM_H

/* Packets up to this size (SYNs, ACKs) keep headroom below the drop level. */
#define HBM_SMALL_PKT	120	/* bytes */

/* hbm_config.flags */
#define HBM_F_LOOPBACK	(1U << 0)	/* also limit traffic over lo */
#define HBM_F_NO_CN	(1U << 1)	/* never return the CN bit */
#define HBM_F_DEBUG	(1U << 2)	/* bpf_printk() notable events */
#define HBM_F_EDT	(1U << 3)	/* EDT object: for the tool, BPF ignores it */

/* The bounds the tool accepts for a rate, in Mbit/s. */
#define HBM_MIN_RATE_MBPS	1
#define HBM_MAX_RATE_MBPS	100000	/* 100 Gbit/s */

/*
 * The rate in force is lease_rate until lease_end, then rate, the floor.
 * A raise (hbm -w) is a lease that hbm renews while it runs, so that it
 * ends with hbm however hbm ends, while the floor outlives it (--keep).
 */
struct hbm_config {
	__u64 rate;		/* IP bytes per second; 0 = not configured yet */
	__u32 flags;		/* HBM_F_* */
	__u32 pad;
	__u64 lease_rate;	/* IP bytes per second, if above rate */
	__u64 lease_end;	/* ns, bpf_ktime_get_ns() (CLOCK_MONOTONIC) */
};

/*
 * The rate in force at now_ns. A lease only raises: the floor also holds
 * when the program reads a config that user space is rewriting half old,
 * half new (the map's value is copied without a lock).
 */
static inline __u64 hbm_rate_at(const struct hbm_config *cfg, __u64 now_ns)
{
	__u64 raised = cfg->lease_rate;

	return now_ns < cfg->lease_end && raised > cfg->rate ? raised : cfg->rate;
}

/* Return values of a cgroup skb egress program: bit 0 = pass, bit 1 = CN. */
enum hbm_verdict {
	HBM_DROP,		/* drop */
	HBM_PASS,		/* pass */
	HBM_DROP_CN,		/* drop, and TCP reduces its cwnd */
	HBM_PASS_CN,		/* pass, and TCP reduces its cwnd */
	HBM_VERDICTS,
};

/*
 * Per-CPU counters of one program. "Credit" is the virtual queue's state as
 * the packet saw it: bytes of credit in credit mode (negative = debt), and in
 * EDT mode nanoseconds by which its departure time was ahead of now
 * (positive = queued).
 */
struct hbm_stats {
	__u64 pkts;		/* every packet the program judged */
	__u64 bytes;		/* their IP bytes (what the rate counts) */
	__u64 pkts_marked;	/* congestion signalled: CE, CN or drop */
	__u64 bytes_marked;
	__u64 pkts_dropped;
	__u64 bytes_dropped;
	__u64 pkts_ecn_ce;	/* CE actually set */
	__u64 verdicts[HBM_VERDICTS];
	__u64 sum_cwnd;		/* TCP packets with a full socket */
	__u64 cnt_cwnd;
	__u64 sum_rtt_us;	/* smoothed RTT of those sockets */
	__u64 cnt_rtt;
	__s64 sum_credit;
	__u64 first_ns;		/* ktime of the first and last packet */
	__u64 last_ns;
	__u64 pkts_exempt;	/* loopback packets let through unjudged */
	__u64 pkts_turn;	/* sent in a flow's turn (EDT: ahead of the clock) */
};

#endif /* HBM_H */
