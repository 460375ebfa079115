// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_hbm: HBM's EDT rate limiter (bpf/hbm_cg_edt.bpf.c) inside a qdisc.
 *
 * Aggregates. Every packet belongs to one aggregate, named by a key the
 * classify parameter picks: the cgroup v2 id of the sending socket (0), the
 * skb mark (1) or the skb priority (2). The cgroup is read from the skb's
 * socket (sk->sk_cgrp_data), never from the current task: sends clocked by
 * ACKs run in softirq, in whatever task was interrupted. A SYN-ACK counts
 * as its listener's (bq_charged_sock, bq/classify.bpf.h); packets without a full socket
 * (forwarded, TIME_WAIT RSTs) have key 0. A socket's key is the deepest
 * cgroup with a class among its own and its ancestors (bq_cgroup_key), so that
 * a child cgroup is no way out of a class. An aggregate's rate is its
 * class's (`bpfqdisc class add ... rate`, the hbm_classes map, declared
 * with BQ_CLASSES) or else the rate parameter; rate 0 is not limited. A
 * qdisc has at most HBM_AGGS - 1 aggregates (load --class-slots; 256
 * unless given, 2 for qdiscs whose senders are one aggregate, as a pod's
 * with shared_default: the overflow's and key 0's); an idle one is reused for a
 * new key (agg_reclaim), and a key with no room (counted: agg_overflow)
 * fails closed: with a class it shares the overflow aggregate (entry 0) at
 * the lower of its class's rate and the parameter, without one it shares
 * aggregate 1 (key 0's), at the parameter.
 *
 * Who picks the key. A cgroup is the admin's (a process moves only where it
 * may write cgroup.procs), a mark needs CAP_NET_RAW or CAP_NET_ADMIN, but
 * any sender sets its priority (SO_PRIORITY 0-6, IP_TOS). With the
 * shared_default parameter a key without a class is key 0 (agg_key): a
 * sender that leaves its class shares one aggregate with every other
 * unclassed one, rather than getting the rate parameter, 0 by default,
 * for each key it picks.
 *
 * The limit parameter counts the packets of every aggregate: an aggregate
 * of small packets stays under its horizon for thousands of them. So each
 * aggregate holds at most agg_limit (drop reason agg_limit), as fq's
 * flow_limit caps a flow.
 *
 * Pacing, per aggregate, as the cgroup EDT program does: a departure clock
 * that each packet moves by len / rate, with len in IP bytes (include/hbm.h:
 * each GSO segment's headers counted, the link-layer header not). An idle
 * aggregate's clock falls behind now by at most the burst, so idle time is
 * credit for 100 us (or 125 KB at low rates) and no more. The burst
 * parameter (bytes; auto: those) replaces that: the clock lags by at most
 * burst / rate (a pod's burst, docs/kubernetes.md). Enqueue moves the
 * clock (info.clock: when the aggregate's backlog will have left), and
 * judges the packet by it as a FIFO would. Dequeue sends the aggregate's
 * packets one every len / rate from its next departure time (next): a heap
 * (the framework's time queue) holds each backlogged aggregate at that
 * time, and the watchdog is armed for the earliest when nothing is due.
 * Both clocks advance by the same lengths, so dequeue lateness (timer
 * slack) does not lower the rate: no clock depends on when packets left.
 *
 * Flows within an aggregate. Which packet leaves at the aggregate's next
 * departure time is not the oldest one: the aggregate's sockets take turns
 * (deficit round robin, HBM_QUANTUM bytes a turn) among HBM_FLOWS queues.
 * One departure clock alone would serve an RPC's 10 KB request after every
 * byte of bulk transfer queued before it, as htb's FIFO does; in turns it
 * waits for a quantum of each busy flow. A socket keeps its queue while it
 * has packets there (no reordering) and else takes a free queue among
 * HBM_PROBES next to its hash; with none free it shares its home queue.
 * Packets without a socket are told apart by skb->hash.
 *
 * A sparse flow does not wait for the skb in flight. The aggregate's next
 * departure time moves by a whole skb at once, and TCP builds 64 KB skbs
 * whatever the device's GSO setting (it always uses GSO; the segments are
 * cut after the qdisc) and whatever the rate: its TSO autosizing adds a
 * full 64 KB for a flow whose min RTT is under 512 us (tcp_tso_rtt_log),
 * as on veth. At 20 Mbit/s one such skb holds the aggregate for 26 ms, so
 * a ping beside one bulk flow waited 13 ms, whatever the turns. So the
 * aggregate is due on the heap up to HBM_SPARSE_LEAD_BYTES early when its
 * sparse flow has a packet (agg_due): that packet leaves at once, charged
 * to the clock like any other (next moves by its length), so the rate and
 * the burst hold, and the aggregate runs at most that lead ahead of them.
 * It is stamped with the time it leaves, not the FIFO's.
 *
 * Thresholds, on how far ahead of now the aggregate's clock is (the delay
 * its FIFO would give the packet; times and byte floors as in
 * bpf/hbm_edt.bpf.h; the verdict is include/hbm_verdict.h's, as the cgroup
 * EDT program's, with is_tcp and ECN from the IP header):
 *   over 50 us   counted as marked (marks, marked). A qdisc cannot write
 *                packet data, so the CE mark itself comes from hbm_mark
 *                below, which sees the same clock just before enqueue.
 *                Non-TCP packets over 120 bytes that are not ECT are
 *                dropped there.
 *   over 480 us (packets over 120 bytes) or 500 us: dropped (horizon) and
 *                not charged to the clock. Except a TCP packet whose socket
 *                has at most one packet in flight (tcp_sock, read through
 *                the skb's socket): it passes (exempt), marked, so every
 *                flow keeps its ACK clock instead of waiting for a probe
 *                timer.
 *
 * Marking (hbm_mark): a tc egress program on the same device, attached
 * by bpfqdisc with the qdisc. tc egress runs just before the root qdisc's
 * enqueue, on the same skb, and may set CE (bpf_skb_ecn_set_ce). It finds
 * the qdisc from skb->dev->qdisc (under mq: the child of the socket's tx
 * queue), classifies with the same function, and marks ECT packets when
 * the aggregate's clock is more than the mark threshold ahead of now: the
 * delay the qdisc is about to give them.
 *
 * Subnets (the subnets parameter, for bpfqdisc-bandwidth's shapedSubnets and
 * unshapedSubnets): a packet whose destination the device's entries in
 * hbm_subnets say is not shaped (include/pod_subnets.h) is in no
 * aggregate. It waits in one direct queue, which dequeue serves first and
 * at once, as sch_htb's direct queue, at most agg_limit packets; no clock
 * is charged for it and hbm_mark leaves it alone. The reference plugin's
 * HTB gives such traffic a class of 100 Gbit/s, no limit in practice.
 * Without the parameter no packet is looked up: the cost is one LPM trie
 * lookup per packet (hbm_mark's and enqueue's) for the qdiscs that have it.
 *
 * Memory: packets in the framework's skb pool (HBM_FLOWS queues per
 * aggregate), aggregates in a per-instance region of hbm_aggs, found by key
 * through the framework's key table (keytab.bpf.h), which hbm_mark reads
 * without the qdisc's lock. Nothing is allocated per packet.
 */
#include "bq/class.bpf.h"
#include "bq/pool.bpf.h"

#define HBM_AGGS_DEFAULT	256	/* aggregates per qdisc; entry 0: the overflow */
#define HBM_AGGS		bq_class_slots	/* as loaded: a power of two, >= 2 */
BQ_CLASS_SLOTS(HBM_AGGS_DEFAULT);
/* The heap of backlogged aggregates: values 0 .. HBM_AGGS - 1, each at most once. */
#define BQ_TIMEQ_PER_SLOT	BQ_PER_CLASS_SHIFT(HBM_AGGS_DEFAULT, 1)
#define BQ_TIMEQ_SLOTS		(2 * HBM_AGGS)
#include "bq/timeq.bpf.h"
#include "bq/keytab.bpf.h"
#include <bpf/bpf_endian.h>
#include "hbm.h"
#include "hbm_verdict.h"
#include "hbm_edt.bpf.h"
#include "pod_subnets.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define ETH_P_IP		0x0800
#define ETH_P_IPV6		0x86DD
#define IPPROTO_TCP		6
#define INET_ECN_MASK		3
#define TCP_TIME_WAIT		6
#define TCP_NEW_SYN_RECV	12
#define TC_ACT_OK		0

#define HBM_MAX_RATE		12500000000ULL	/* bytes per second: 100 Gbit/s */
#define HBM_AGG_OVERFLOW	0	/* classes the table has no room for */
#define HBM_AGG_DEFAULT		1	/* key 0, and other keys with no room */
#define HBM_AGE_SCAN		16	/* aggregates a new key may look at */
#define HBM_AGG_IDLE_NS		HBM_NSEC_PER_SEC	/* idle this long: reusable */
#define TIMER_SLACK_NS		(10 * HBM_NSEC_PER_USEC)
#define RATE_WINDOW_NS		(100 * 1000 * HBM_NSEC_PER_USEC)

#define HBM_FLOWS_BITS		4
#define HBM_FLOWS		(1 << HBM_FLOWS_BITS)	/* flow queues per aggregate */
#define HBM_PROBES		4	/* of them, those a socket may take */
#define HBM_QUANTUM		3028	/* IP bytes per turn: 2 MTU, as fq */
#define HBM_MAX_BURST		0xffffffffULL	/* bytes: the reference CNI plugin's 4 GB */
/* Turns until some flow may send: 16 flows owing a 64 KB GSO skb each. */
#define HBM_DRR_VISITS		(HBM_FLOWS * (65536 / HBM_QUANTUM + 2))

struct hbm_params {
	__u64 rate;		/* bytes per second of an aggregate without a class */
	__u64 classify;		/* enum bq_class_by: what names an aggregate */
	__u64 limit;		/* packets */
	__u64 agg_limit;	/* packets of one aggregate */
	__u64 shared_default;	/* keys without a class share key 0's aggregate */
	__u64 burst;		/* bytes an idle aggregate may send at once; auto: built in */
	__u64 subnets;		/* hbm_subnets decides which destinations are limited */
};

BQ_PARAMS(struct hbm_params,
	BQ_PARAM(rate, BQ_UNIT_RATE, 0, 0, HBM_MAX_RATE),	/* 0: not limited */
	BQ_PARAM(classify, BQ_UNIT_COUNT, BQ_BY_CGROUP, BQ_BY_CGROUP, BQ_BY_PRIORITY),
	BQ_PARAM(limit, BQ_UNIT_COUNT, 10000, 1, 1 << 24),
	BQ_PARAM(agg_limit, BQ_UNIT_COUNT, 1000, 1, 1 << 24),
	BQ_PARAM(shared_default, BQ_UNIT_BOOL, 0, 0, 1),
	BQ_PARAM(burst, BQ_UNIT_BYTES, BQ_AUTO, 0, HBM_MAX_BURST),
	BQ_PARAM(subnets, BQ_UNIT_BOOL, 0, 0, 1),
);

enum { X_RATE, X_MARKED, X_DROPPED, X_CE, X_EXEMPT, X_AGGS, X_OVERFLOW, X_AGED };

BQ_XSTATS(
	{ "rate_bytes_per_second", BQ_GAUGE },	/* IP bytes dequeued, last >= 100 ms */
	{ "marked", BQ_COUNTER },		/* departure > mark threshold ahead */
	{ "dropped", BQ_COUNTER },		/* beyond the drop horizon */
	{ "ce_marked", BQ_COUNTER },		/* of those, CE set by hbm_mark */
	{ "exempt", BQ_COUNTER },		/* beyond the horizon, <= 1 in flight */
	{ "aggregates", BQ_GAUGE },
	{ "agg_overflow", BQ_COUNTER },		/* packets of keys with no room */
	{ "aggs_aged", BQ_COUNTER },		/* idle aggregates reused */
);

enum { HBM_DROP_HORIZON = BQ_DROP_KIND, HBM_DROP_AGG_LIMIT };

BQ_DROP_REASONS(
	{ "horizon" },		/* departure beyond the drop horizon */
	{ "agg_limit" },	/* its aggregate holds agg_limit packets */
);

/* Per instance. */
struct hbm_sched {
	struct bq_pool_state pool;
	struct bq_tq ready;		/* backlogged aggregates, by head time */
	struct bq_skbq direct;		/* packets no limit holds (subnets) */
	__u32 naggs;			/* entries 1..naggs of the region used */
	__u32 age_cursor;		/* where agg_reclaim looks next */
	__u64 win_start, win_bytes;	/* the rate_bytes_per_second window */
};

/* A class: the rate of one key of one qdisc, written by `bpfqdisc class`. */
struct hbm_class {
	__u64 rate;		/* IP bytes per second, > 0 */
};

/* What class show prints of an aggregate, and test_slot_reuse reads. */
struct hbm_agg_info {
	__u64 id;		/* the key; aggregate 1 also takes unclassed overflow */
	__u64 rate;		/* the rate its last packet saw (0: not limited) */
	__u64 clock;		/* departure clock, ns (CLOCK_MONOTONIC) */
	__u64 mark_ns;		/* the mark threshold at that rate */
	__u64 pkts, bytes;	/* accepted: skbs, IP bytes */
	__u64 drops;		/* beyond the drop horizon, or over agg_limit */
	__u64 marks;		/* beyond the mark threshold */
	__u64 ce;		/* CE set by the companion marker */
};

struct hbm_flowq {
	struct bq_skbq q;
	s32 credit;			/* bytes left in its turn; < 0: owed */
	u64 owner;			/* its socket, or skb->hash without one */
};

struct hbm_agg {
	struct hbm_agg_info info;	/* what class show reads */
	u64 next;			/* departure time of its next packet */
	u64 idle_after;			/* empty until then: reusable */
	u32 qlen;			/* packets in all its flow queues */
	u16 turn;			/* the flow queue whose turn it is */
	u16 sparse;			/* 1 + a new flow's queue, served first */
	u32 hnext;			/* its chain in the key table */
	struct hbm_flowq flows[HBM_FLOWS];
};

BQ_STATE(struct hbm_sched);

/*
 * Aggregates, their key table's buckets and classes: HBM_AGGS per instance.
 * The buckets are pinned too, so that a later load shares them: hbm_mark
 * on a device serves the qdiscs of every load there (mq children made
 * before and after systemctl restart).
 */
BQ_SLOT_MAP(hbm_aggs, BPF_MAP_TYPE_ARRAY, u32, struct hbm_agg, BQ_PER_CLASS(HBM_AGGS_DEFAULT),
	    BQ_MAP_PIN);
BQ_SLOT_MAP(hbm_agg_buckets, BPF_MAP_TYPE_ARRAY, u32, __u32, BQ_PER_CLASS(HBM_AGGS_DEFAULT),
	    BQ_MAP_PIN);
/* Per device, not per slot: written by bpfqdisc-bandwidth before the qdisc. */
POD_SUBNET_DECLARE(hbm_subnets, BQ_DEFAULT_MAX_INSTANCES * POD_SUBNETS_PER_SLOT);
BQ_SLOT_MAP_DESC(hbm_subnets, POD_SUBNETS_PER_SLOT, BQ_MAP_PIN);
BQ_CLASSES(hbm_classes, struct hbm_class, BQ_PER_CLASS(HBM_AGGS_DEFAULT), BQ_CLASS_BY_PARAM(classify),
	BQ_CLASS_FIELD(rate, BQ_UNIT_RATE, 1, HBM_MAX_RATE, "rate", "unlimited"),
);
#include "bq/classify.bpf.h"

/* Aggregate 0 is the overflow's, shared: class show starts at 1. */
BQ_CLASS_AGGS(hbm_aggs, struct hbm_agg, info.id, 1, "aggregates",
	BQ_CLASS_COUNTER("pkts", info.pkts),
	BQ_CLASS_COUNTER("bytes", info.bytes),
	BQ_CLASS_COUNTER("marked", info.marks),
	BQ_CLASS_COUNTER("ce_marked", info.ce),
	BQ_CLASS_COUNTER("dropped", info.drops),
);

void *bpf_cast_to_kern_ctx(void *obj) __ksym;

/* --- the packet ---------------------------------------------------------- */

/*
 * The aggregate key; the same function serves the qdisc and hbm_mark. With
 * shared_default, a key without a class is key 0: a sender that picks its
 * own key (a priority) gets no more than the unclassed traffic's one rate.
 */
static __always_inline u64 agg_key(const struct bq_instance *inst, struct sk_buff *skb,
				   const struct hbm_params *p)
{
	u64 key = bq_sender_key(inst, skb, p->classify);

	if (p->shared_default && key && !bq_class(inst, key))
		return 0;
	return key;
}

/*
 * IP bytes, what rates count (hbm_ip_bytes): tc's pkt_len is skb->len, link
 * layer and one segment's headers included, plus segs - 1 more copies of the
 * link-layer, IP and transport headers (qdisc_pkt_len_init). A GSO packet
 * whose segments are counted in pkt_len only (gso_segs 0: SKB_GSO_DODGY,
 * from a guest) counts pkt_len, over by their link-layer headers; packets
 * that are not GSO have gso_segs 0 or 1 and pkt_len == skb->len.
 */
static __always_inline u64 ip_len(struct sk_buff *skb)
{
	u32 len = skb->len, pkt_len = bq_pkt_len(skb), mac_len, seg_hdr = 0;
	u64 shinfo;
	u16 segs = 1;

	mac_len = (u16)(skb->network_header - skb->mac_header);
	if (len <= mac_len || pkt_len < len)
		return len;
	shinfo = (u64)BPF_CORE_READ(skb, head) + BPF_CORE_READ(skb, end);
	if (bpf_probe_read_kernel(&segs, sizeof(segs),
				  (void *)(shinfo + bpf_core_field_offset(struct skb_shared_info,
									  gso_segs))))
		segs = 1;
	if (!segs)
		return pkt_len - mac_len;
	if (segs > 1) {
		/* Division only here: a GSO packet stands for segs wire packets. */
		u32 hdr = (pkt_len - len) / (segs - 1);

		seg_hdr = hdr > mac_len ? hdr - mac_len : 0;
	}
	return hbm_ip_bytes(len - mac_len, segs, seg_hdr);
}

/* A TCP packet whose socket has at most one packet in flight. */
static __always_inline bool few_in_flight(struct sk_buff *skb)
{
	struct tcp_sock *tp = bq_tcp_sock(skb);
	u32 in_flight;

	if (!tp)
		return false;
	in_flight = hbm_in_flight(tp->packets_out, tp->sacked_out, tp->lost_out, tp->retrans_out);
	return in_flight <= 1;
}

/*
 * Whether a limit holds skb: without the subnets parameter, yes; with it,
 * as the device's entry for its destination says (see the top).
 */
static __always_inline bool dst_shaped(const struct bq_instance *inst, struct sk_buff *skb,
				       const struct hbm_params *p)
{
	struct pod_subnet_key k;
	u16 proto;
	void *nh;

	if (!p->subnets)
		return true;
	/* skb is trusted: its head read directly, one helper call fewer. */
	nh = skb->head + skb->network_header;
	proto = bpf_ntohs(skb->protocol);
	pod_subnet_key_init(&k, inst->where.netns_cookie, inst->where.ifindex);
	if (proto == ETH_P_IP && !bpf_probe_read_kernel(k.addr, 4, nh + 16))
		k.family = POD_SUBNET_IPV4;
	else if (proto == ETH_P_IPV6 && !bpf_probe_read_kernel(k.addr, 16, nh + 24))
		k.family = POD_SUBNET_IPV6;
	return pod_subnet_shaped(&hbm_subnets, &k);
}

/* Whether skb is TCP, and ECN-capable, from its IP header. */
static __always_inline void ip_info(struct sk_buff *skb, bool *is_tcp, bool *ect)
{
	void *nh = BPF_CORE_READ(skb, head) + skb->network_header;
	u16 proto = bpf_ntohs(skb->protocol);
	u8 hdr[8] = {};

	if ((proto != ETH_P_IP && proto != ETH_P_IPV6) ||
	    bpf_probe_read_kernel(hdr, sizeof(hdr), nh))
		return;
	if (proto == ETH_P_IP) {
		*ect = hdr[1] & INET_ECN_MASK;		/* tos */
		if (bpf_probe_read_kernel(hdr, 1, nh + 9))	/* protocol */
			return;
		*is_tcp = hdr[0] == IPPROTO_TCP;
	} else {
		*ect = (hdr[1] >> 4) & INET_ECN_MASK;	/* traffic class, low bits */
		*is_tcp = hdr[6] == IPPROTO_TCP;	/* next header */
	}
}

/* The verdict (include/hbm_verdict.h) on skb, ahead ns ahead of now. */
static __always_inline struct hbm_verdict_flags judge(struct sk_buff *skb, u64 len, s64 ahead,
						      const struct hbm_thresholds *t)
{
	struct hbm_judged j = { .depth = ahead, .len = len };
	struct hbm_rules rules;

	hbm_edt_rules(&rules, t);
	ip_info(skb, &j.is_tcp, &j.ect);
	j.few_in_flight = j.is_tcp && few_in_flight(skb);
	return hbm_judge(&rules, &j);
}

/* --- aggregates ---------------------------------------------------------- */

static __always_inline struct hbm_agg *agg_at(const struct bq_instance *inst, u32 idx)
{
	return bq_region_lookup(&hbm_aggs, inst, HBM_AGGS, idx);
}

static __always_inline u32 *agg_bucket(const struct bq_instance *inst, u64 id)
{
	return bq_region_lookup(&hbm_agg_buckets, inst, HBM_AGGS, bq_hash32(id));
}

BQ_KEYTAB_OPS(agg_tab, struct hbm_agg, agg_at, agg_bucket, info.id)

/*
 * An aggregate to reuse for a new key: one idle since its idle_after, its
 * key forgotten (counted: aggs_aged). Scans HBM_AGE_SCAN of them from where
 * the last scan stopped; 0 if none is idle. Aggregate 1 (key 0) stays.
 */
static __noinline u32 agg_reclaim(struct bq_instance *inst, struct hbm_sched *q, u64 now)
{
	struct hbm_agg *a;
	u32 i, idx;

	if (HBM_AGGS <= 2)	/* the overflow's and key 0's: none to reuse */
		return 0;
	bpf_for(i, 0, HBM_AGE_SCAN) {
		idx = 2 + q->age_cursor++ % (HBM_AGGS - 2);
		a = agg_at(inst, idx);
		if (!a || a->qlen || (s64)(now - a->idle_after) < 0 || !agg_tab_remove(inst, a, idx))
			continue;
		inst->cnt.x[X_AGED]++;
		return idx;
	}
	return 0;
}

/*
 * The aggregate of key id: found, created on first sight, or an idle one
 * reused. When the table has no room (counted: agg_overflow), a key with a
 * class shares HBM_AGG_OVERFLOW, the others HBM_AGG_DEFAULT: the rate
 * parameter is theirs anyway.
 */
static __noinline u32 agg_find(struct bq_instance *inst, struct hbm_sched *q, u64 id, u64 now)
{
	struct hbm_agg *a;
	u32 idx;

	idx = agg_tab_find(inst, id);
	if (idx)
		return idx;
	idx = q->naggs + 1 < HBM_AGGS ? q->naggs + 1 : agg_reclaim(inst, q, now);
	a = idx ? agg_at(inst, idx) : NULL;
	if (a)
		__builtin_memset(a, 0, sizeof(*a));
	if (!a || !agg_tab_insert(inst, a, idx, id)) {
		inst->cnt.x[X_OVERFLOW]++;
		return bq_class(inst, id) ? HBM_AGG_OVERFLOW : HBM_AGG_DEFAULT;
	}
	if (idx > q->naggs) {
		q->naggs = idx;
		inst->cnt.x[X_AGGS] = idx;
	}
	return idx;
}

/*
 * The rate of key id: its class's, or the qdisc's rate parameter. The
 * overflow aggregate fails closed: the lower of the two, so that a full
 * table never lifts a limit (0 is not limited, never the lower).
 */
static __always_inline u64 agg_rate(const struct bq_instance *inst, const struct hbm_params *p,
				    u32 idx, u64 id)
{
	struct hbm_class *c = bq_class(inst, id);
	u64 def = p->rate;

	if (!c)
		return def;
	if (idx == HBM_AGG_OVERFLOW && def && def < c->rate)
		return def;
	return c->rate;
}

/*
 * The departure time of a packet of len IP bytes, or false to drop it
 * (beyond the horizon). *next is the clock after it, for the caller to
 * commit once the packet is queued.
 */
static __always_inline bool agg_schedule(struct bq_instance *inst, struct hbm_agg *a,
					 struct sk_buff *skb, u64 len, u64 rate, u64 burst, u64 now,
					 u64 *send, u64 *next)
{
	struct hbm_verdict_flags v;
	struct hbm_thresholds t;

	a->info.rate = rate;
	if (!rate) {
		*send = *next = now;
		a->idle_after = now + HBM_AGG_IDLE_NS;
		return true;
	}
	hbm_get_thresholds(&t, rate);
	if (burst != BQ_AUTO)
		t.burst = hbm_tx_time_ns(burst, rate);
	a->info.mark_ns = t.mark;
	*send = hbm_clamp_idle(a->info.clock, now, t.burst);
	v = judge(skb, len, (s64)(*send - now), &t);
	if (v.drop)
		return false;
	if (v.exempt)
		inst->cnt.x[X_EXEMPT]++;
	if (v.marked) {
		a->info.marks++;
		inst->cnt.x[X_MARKED]++;
		inst->cnt.marks++;
	}
	*next = *send + hbm_tx_time_ns(len, rate);
	/* From then on the clock has no credit or debt a new aggregate lacks. */
	a->idle_after = *next + t.burst + HBM_AGG_IDLE_NS;
	return true;
}

/* --- flows within an aggregate ------------------------------------------ */

/* The flow queue for skb in a (see the top: flows within an aggregate). */
static __always_inline u32 flow_of(struct hbm_agg *a, struct sk_buff *skb)
{
	u64 owner = (u64)BPF_CORE_READ(skb, sk) ?: BPF_CORE_READ(skb, hash);
	u32 home = bq_hash32(owner) >> (32 - HBM_FLOWS_BITS), free = HBM_FLOWS, i, k;
	struct hbm_flowq *f;

	for (i = 0; i < HBM_PROBES; i++) {
		k = (home + i) & (HBM_FLOWS - 1);
		f = &a->flows[k];
		if (f->q.len && f->owner == owner)
			return k;
		if (!f->q.len && free == HBM_FLOWS)
			free = k;
	}
	if (free == HBM_FLOWS)
		return home & (HBM_FLOWS - 1);
	f = &a->flows[free];
	if (f->owner != owner) {
		f->owner = owner;
		f->credit = 0;	/* a debt stays with its socket's queue */
	}
	return free;
}

/*
 * The sparse flow still has packets. Once it has none, a->sparse is stale
 * until dequeue next looks, which an aggregate that went empty never does.
 */
static __always_inline bool sparse_pending(struct hbm_agg *a)
{
	return a->sparse && a->flows[(a->sparse - 1) & (HBM_FLOWS - 1)].q.len;
}

/*
 * Whether a packet for queue k would make it a sparse flow: a queue that
 * starts owing nothing (a new socket, or one whose queue emptied before its
 * credit ran out), an RPC's request or a ping, when no other flow is the
 * sparse one.
 */
static __always_inline bool starts_sparse(struct hbm_agg *a, u32 k)
{
	struct hbm_flowq *f = &a->flows[k & (HBM_FLOWS - 1)];

	return !f->q.len && !f->credit && !sparse_pending(a);
}

/*
 * f got a packet. A queue that starts owing nothing goes first, for an
 * initial quantum, as sch_fq's new flows do.
 */
static __always_inline void flow_queued(struct hbm_agg *a, u32 k)
{
	struct hbm_flowq *f = &a->flows[k & (HBM_FLOWS - 1)];

	if (f->q.len != 1 || f->credit)
		return;
	f->credit = HBM_INITIAL_QUANTUM;
	if (!sparse_pending(a))
		a->sparse = 1 + k;
}

/* The sparse flow has a packet it may send in its turn. */
static __always_inline bool sparse_ready(struct hbm_agg *a)
{
	struct hbm_flowq *f = &a->flows[(a->sparse - 1) & (HBM_FLOWS - 1)];

	return a->sparse && f->q.len && f->credit > 0;
}

/* How far ahead of a's clock its sparse flow may send (see the top). */
static __always_inline u64 sparse_lead(const struct hbm_agg *a)
{
	return a->info.rate ? hbm_tx_time_ns(HBM_SPARSE_LEAD_BYTES, a->info.rate) : 0;
}

/*
 * When a is due on the heap: its next departure time, or up to the sparse
 * lead earlier while its sparse flow has a packet.
 */
static __always_inline u64 agg_due(struct hbm_agg *a)
{
	u64 lead = sparse_lead(a);

	if (!sparse_ready(a))
		return a->next;
	return a->next > lead ? a->next - lead : 0;
}

/* The flow queue whose turn it is, by deficit round robin; NULL if none yet. */
static __always_inline struct hbm_flowq *flow_next(struct hbm_agg *a)
{
	struct hbm_flowq *f;
	u32 i;

	if (a->sparse) {
		f = &a->flows[(a->sparse - 1) & (HBM_FLOWS - 1)];
		if (f->q.len && f->credit > 0)
			return f;
		a->sparse = 0;
	}
	bpf_for(i, 0, HBM_DRR_VISITS) {
		f = &a->flows[a->turn & (HBM_FLOWS - 1)];
		if (f->q.len && f->credit > 0)
			return f;
		if (f->q.len)
			f->credit += HBM_QUANTUM;
		a->turn++;
	}
	return NULL;
}

/* --- enqueue, dequeue ---------------------------------------------------- */

/*
 * A packet no limit holds, into the direct queue (see the top). Stamped
 * with now, as a shaped one is with its departure time: a delivery time
 * of the sender's would hold it in a qdisc that sends at skb->tstamp.
 */
static __always_inline int direct_push(struct Qdisc *sch, struct bq_instance *inst,
				       struct hbm_sched *q, const struct hbm_params *p,
				       struct sk_buff *skb, struct bpf_sk_buff_ptr *to_free, u64 now)
{
	if (q->direct.len >= p->agg_limit)
		return bq_drop(sch, inst, skb, to_free, HBM_DROP_AGG_LIMIT);
	skb->tstamp = now;
	return bq_skbq_push(sch, inst, &q->pool, &q->direct, skb, now, ip_len(skb), to_free);
}

BQ_ENQUEUE(hbm)
{
	const struct hbm_params *p;
	struct bq_instance *inst;
	struct hbm_sched *q = bq_enter(sch, &inst, &p);
	u64 now, len, send, next, key, due;
	struct hbm_agg *a;
	bool sparse;
	u32 idx, k;
	int ret;

	if (!q)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_NO_INSTANCE);
	if (sch->q.qlen >= p->limit)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_OVERLIMIT);
	now = bpf_ktime_get_ns();
	if (!dst_shaped(inst, skb, p))
		return direct_push(sch, inst, q, p, skb, to_free, now);
	key = agg_key(inst, skb, p);
	idx = agg_find(inst, q, key, now);
	a = agg_at(inst, idx);
	if (!a)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_NOMEM);
	/* The limit is shared: no aggregate may hold all of it. */
	if (a->qlen >= p->agg_limit) {
		a->info.drops++;
		return bq_drop(sch, inst, skb, to_free, HBM_DROP_AGG_LIMIT);
	}

	len = ip_len(skb);
	if (!agg_schedule(inst, a, skb, len, agg_rate(inst, p, idx, key), p->burst, now, &send,
			  &next)) {
		a->info.drops++;
		inst->cnt.x[X_DROPPED]++;
		return bq_drop(sch, inst, skb, to_free, HBM_DROP_HORIZON);
	}
	/*
	 * The time its aggregate's FIFO would send it (tstamp is writable at
	 * enqueue only; the turns move it by a few quanta either way), or a
	 * sparse flow's, which goes ahead: when it is due. Queued in arrival
	 * order, the length beside it for dequeue.
	 */
	k = flow_of(a, skb);
	sparse = starts_sparse(a, k);
	due = a->qlen ? a->next : send;
	if (sparse && due > now)
		due = due > now + sparse_lead(a) ? due - sparse_lead(a) : now;
	skb->tstamp = sparse ? due : send;
	ret = bq_skbq_push(sch, inst, &q->pool, &a->flows[k & (HBM_FLOWS - 1)].q, skb, now, len,
			   to_free);
	if (ret != NET_XMIT_SUCCESS)
		return ret;
	flow_queued(a, k);
	a->info.clock = next;
	a->info.pkts++;
	a->info.bytes += len;
	/* The heap holds each backlogged aggregate once: room is checked at init. */
	if (!a->qlen++)
		a->next = send;
	if (a->qlen == 1 || sparse)
		bq_tq_set(inst, &q->ready, agg_due(a), idx);
	return NET_XMIT_SUCCESS;
}

/* rate_bytes_per_second over windows of at least RATE_WINDOW_NS. */
static __always_inline void rate_sample(struct bq_instance *inst, struct hbm_sched *q,
					u64 bytes, u64 now)
{
	u64 span = now - q->win_start;

	q->win_bytes += bytes;
	if (span < RATE_WINDOW_NS)
		return;
	inst->cnt.x[X_RATE] = q->win_bytes * HBM_NSEC_PER_SEC / span;
	q->win_start = now;
	q->win_bytes = 0;
}

/*
 * a's packet for its departure time, from the flow queue whose turn it is;
 * the time moves on by its length, and a goes back on the heap if it has
 * more. NULL (a back on the heap at once) while every flow still owes.
 */
static __always_inline struct sk_buff *agg_pop(struct bq_instance *inst, struct hbm_sched *q,
					       struct hbm_agg *a, u32 idx, u64 now)
{
	struct hbm_flowq *f = flow_next(a);
	struct sk_buff *skb;
	struct bq_pkt *head;
	u64 send = a->next;
	u32 len;

	if (!f) {
		bq_tq_set(inst, &q->ready, send, idx);
		return NULL;
	}
	head = bq_skbq_head(inst, &f->q);
	len = head ? head->aux : 0;
	skb = bq_skbq_pop(inst, &q->pool, &f->q);
	a->qlen--;
	f->credit -= len;
	if (!f->q.len && f->credit > 0)
		f->credit = 0;		/* DRR: an emptied queue banks nothing */
	if (a->info.rate)
		a->next = send + hbm_tx_time_ns(len, a->info.rate);
	if (a->qlen)
		bq_tq_set(inst, &q->ready, agg_due(a), idx);
	if (skb)
		rate_sample(inst, q, len, now);
	return skb;
}

/* The direct queue's first packet (see the top). */
static __always_inline struct sk_buff *direct_pop(struct bq_instance *inst, struct hbm_sched *q)
{
	struct bq_pkt *head = bq_skbq_head(inst, &q->direct);
	u32 len = head ? head->aux : 0;
	struct sk_buff *skb = bq_skbq_pop(inst, &q->pool, &q->direct);

	if (skb)
		rate_sample(inst, q, len, bpf_ktime_get_ns());
	return skb;
}

BQ_DEQUEUE(hbm)
{
	struct bq_instance *inst = bq_instance(sch);
	struct hbm_sched *q = inst ? bq_state(inst) : NULL;
	struct sk_buff *skb;
	struct hbm_agg *a;
	u64 now, time;
	u32 idx;

	if (!q || !sch->q.qlen)
		return NULL;
	if (q->direct.len)
		return bq_dequeued(sch, inst, direct_pop(inst, q));
	if (!bq_tq_peek(inst, &q->ready, &time, &idx))
		return NULL;
	now = bpf_ktime_get_ns();
	if (time > now) {
		bpf_qdisc_watchdog_schedule(sch, time, TIMER_SLACK_NS);
		inst->cnt.overlimits++;
		return NULL;
	}
	bq_tq_pop(inst, &q->ready);
	a = agg_at(inst, idx);
	if (!a)
		return NULL;
	skb = agg_pop(inst, q, a, idx, now);
	if (!skb && a->qlen)	/* its flows' credit grew: try again */
		bpf_qdisc_watchdog_schedule(sch, now, TIMER_SLACK_NS);
	return bq_dequeued(sch, inst, skb);
}

/* --- init, reset, destroy ------------------------------------------------- */

/* Aggregate 1 (key 0) always exists, and the overflow aggregate starts empty. */
static int hbm_setup(struct Qdisc *sch, struct bq_instance *inst, struct hbm_sched *q)
{
	struct hbm_agg *over = agg_at(inst, HBM_AGG_OVERFLOW);

	if (!over)
		return -EINVAL;
	__builtin_memset(over, 0, sizeof(*over));
	agg_find(inst, q, 0, 0);
	return 0;
}

/* Free every packet and aggregate. */
static __noinline void hbm_purge(struct Qdisc *sch, struct bq_instance *inst, struct hbm_sched *q)
{
	bq_pool_purge(sch, inst, &q->pool);
	__builtin_memset(&q->direct, 0, sizeof(q->direct));
	bq_region_each(inst, agg_at, q->naggs, agg_tab_forget);
	inst->cnt.x[X_AGGS] = 0;
}

/* Classes are configuration: a reset keeps them, the qdisc's end does not. */
static __always_inline void hbm_release(struct bq_instance *inst, struct hbm_sched *q)
{
	bq_classes_forget(inst);
}

BQ_QDISC_OPS(hbm, hbm_setup, hbm_purge, hbm_release);

/* --- the companion marker ------------------------------------------------- */

/*
 * The bpf_hbm instance skb is about to meet: the device's root, or under mq
 * the child of the tx queue the skb's socket has cached. tc egress runs
 * before the queue is picked, and netdev_pick_tx takes the cached one
 * unless the socket may move (ooo_okay: nothing in flight); a packet that
 * moves is judged by the clock of the queue it left.
 */
static __always_inline struct bq_instance *mark_instance(struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;
	struct bq_instance *inst = bq_instance(dev->qdisc);
	u64 txq, child = 0;
	struct sock *sk;
	u16 i;

	sk = BPF_CORE_READ(skb, sk);
	if (inst || !sk)
		return inst;
	i = BPF_CORE_READ(sk, __sk_common.skc_tx_queue_mapping);
	if (i >= dev->real_num_tx_queues)
		return NULL;
	txq = (u64)BPF_CORE_READ(dev, _tx) + i * bpf_core_type_size(struct netdev_queue);
	if (bpf_probe_read_kernel(&child, sizeof(child),
				  (void *)(txq + bpf_core_field_offset(struct netdev_queue,
								       qdisc_sleeping))) ||
	    !child)
		return NULL;
	return bq_instance(bpf_core_cast((void *)child, struct Qdisc));
}

/*
 * tc egress on the qdisc's device (see the top): CE for ECT packets of an
 * aggregate whose clock is more than its mark threshold ahead. Reads the
 * qdisc's state without its lock: a stale clock moves a mark by a packet.
 */
SEC("tc")
int hbm_mark(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);
	struct bq_instance *inst = mark_instance(skb);
	const struct hbm_params *p = inst ? bq_kind_params(bq_params_of(inst)) : NULL;
	struct hbm_agg *a;
	u32 idx;

	if (!p || !dst_shaped(inst, skb, p))
		return TC_ACT_OK;
	idx = agg_tab_find(inst, agg_key(inst, skb, p));
	a = idx ? agg_at(inst, idx) : NULL;
	if (!a || !a->info.rate ||
	    (s64)(a->info.clock - bpf_ktime_get_ns()) <= (s64)a->info.mark_ns)
		return TC_ACT_OK;
	if (bpf_skb_ecn_set_ce(ctx)) {
		__sync_fetch_and_add(&a->info.ce, 1);
		__sync_fetch_and_add(&inst->cnt.x[X_CE], 1);
	}
	return TC_ACT_OK;
}
