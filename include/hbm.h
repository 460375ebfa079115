/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host Bandwidth Manager (HBM): what the cgroup egress programs
 * (bpf/hbm_cg.bpf.c, bpf/hbm_cg_edt.bpf.c) and the hbm tool (src/hbm/) share.
 *
 * Maps of every HBM object, found by name so that `hbm PROG.o` can load an
 * object built elsewhere with the same layout:
 *   hbm_config  ARRAY, 1 entry    struct hbm_config: rate and flags, written
 *                                 by user space, live (-w changes the rate)
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

struct hbm_config {
	__u64 rate;		/* IP bytes per second; 0 = not configured yet */
	__u32 flags;		/* HBM_F_* */
	__u32 pad;
};

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

/*
 * The bpf_hbm qdisc (bpf/hbm.bpf.c) and `bpfqdisc class` (src/class.c).
 * An aggregate is the traffic of one key: a cgroup id, an skb mark or an skb
 * priority, as the qdisc's classify parameter says.
 *   hbm_classes  HASH   struct hbm_class_key -> struct hbm_class: a rate
 *                       for one key of one qdisc, written by user space
 *   hbm_aggs     ARRAY  slot * HBM_AGGS + i -> aggregate i of that qdisc;
 *                       its first bytes are a struct hbm_agg_info
 */
#define HBM_AGGS	256	/* aggregates per qdisc; entry 0: the overflow */

enum hbm_classify {
	HBM_BY_CGROUP,		/* cgroup v2 id of the sending socket */
	HBM_BY_MARK,		/* skb->mark (SO_MARK, iptables MARK) */
	HBM_BY_PRIORITY,	/* skb->priority (SO_PRIORITY) */
};

/*
 * gen, in hbm_classes: the created_ns of the qdisc the class is for. A
 * class written for a qdisc that tc replaced meanwhile, whose slot a new
 * one took, is then one the new qdisc never reads. 0 in hbm_agg_ids.
 */
struct hbm_class_key {
	__u32 slot;		/* the qdisc's bq_instance.slot */
	__u32 pad;
	__u64 gen;
	__u64 id;		/* cgroup id, mark or priority */
};

struct hbm_class {
	__u64 rate;		/* IP bytes per second, > 0 */
};

struct hbm_agg_info {
	__u64 id;		/* the key; aggregate 1 also takes unclassed overflow */
	__u64 rate;		/* the rate its last packet saw (0: not limited) */
	__u64 clock;		/* departure clock, ns (CLOCK_MONOTONIC) */
	__u64 mark_ns;		/* the mark threshold at that rate */
	__u64 pkts, bytes;	/* accepted: skbs, IP bytes */
	__u64 drops;		/* beyond the drop horizon */
	__u64 marks;		/* beyond the mark threshold */
	__u64 ce;		/* CE set by the companion marker */
};

#endif /* HBM_H */
