// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_fq: fair queueing with per-flow pacing, sch_fq's semantics in BPF.
 *
 * Why this shape. sch_fq exists for hosts that send: it serves sockets
 * fairly and lets each leave no earlier than its departure time (EDT,
 * skb->tstamp) or its pacing rate allows. So a flow is a socket, not a hash:
 * two sockets whose hashes collide are still two flows, and a socket that is
 * freed and reused for another connection (sk_hash changes) starts afresh.
 * Packets without a full socket (forwarded, listener SYN-ACKs, TIME_WAIT
 * RSTs) and unconnected sockets (UDP sendto to anyone) have no stable
 * identity worth pacing; they are spread over orphan_mask + 1 flows by
 * packet hash. Bands, as sch_fq's: a packet's priority picks one of 3
 * bands (priomap), each with its own round robin, and the bands take turns
 * by weighted round robin of bytes (weight0..2); limit is per band. One
 * internal FIFO is sch_fq's fast path: a packet due now, to a qdisc with
 * nothing else ready, has no one to be fair to, and skips the flow table.
 *
 * Round robin with credits (DRR), in each band: a flow new to the
 * scheduler (or detached for longer than refill_delay) goes on its band's
 * new_flows, served before old_flows so a short exchange is not stuck
 * behind bulk; a flow that spent its credit gets `quantum` more and goes
 * to the back of old_flows. New flows start with initial_quantum so the
 * first window leaves at once.
 *
 * Pacing. A flow whose head packet is not due yet (its timestamp, or the
 * time its previous packet's length at its rate allows) leaves the round
 * robin for a time-ordered heap of throttled flows; dequeue moves the due
 * ones back to old_flows and arms the watchdog for the earliest otherwise.
 * The rate is the socket's sk_pacing_rate for packets without a timestamp,
 * capped by maxrate; a packet with a timestamp is paced by the sender (TCP
 * computes EDT itself) and only maxrate applies on top. But TCP computes
 * EDT only when asked to pace, and sch_fq asks by writing sk_pacing_status,
 * which we cannot: for the TCP sockets left unpaced (cubic) we compute the
 * stamps TCP would, on a clock per socket kept beside the flow table
 * (fq_clocks), from their first packet, so that a packet due later never
 * takes the fast path, whether or not the qdisc is idle. The opt-in
 * congestion control cubic_fq (bpf/cubic_fq.bpf.c) sets SK_PACING_FQ
 * instead: TCP stamps EDT, we honour it. A timestamp beyond the horizon
 * is a sender bug or an attack on memory: drop it, or cap it.
 *
 * Memory. Nothing is allocated per packet or per flow: packets sit in the
 * framework's skb pool, flows in a per-instance array with a free list, the
 * flow lookup is the framework's key table (keytab.bpf.h) over that array.
 * Both are bounded by the load-time --ring-slots (per instance), flows also
 * by flows_max. A flow without packets is only state (credit, pacing
 * clock); every enqueue frees up to 8 that have been empty for 3 s, from
 * the detached LRU list or the head of old_flows (sch_fq collects detached
 * ones while walking a hash bucket; old_flows is where served flows pile
 * up when new flows keep coming). When the table is full, the oldest idle
 * flow is reused at once; with none, the packet is dropped (nomem).
 *
 * What a BPF qdisc cannot do: write to the socket (SK_PACING_FQ, above),
 * orphan an skb, or set CE. ce_threshold therefore only counts the packets
 * sch_fq would have marked (marks). See docs/fq.md.
 */
#include "bq/core.bpf.h"
#include "bq/pool.bpf.h"
/* The heap of throttled flows is in arena pages, beside the flows: fq_tq below. */
#define BQ_TIMEQ_OPS_ONLY
#include "bq/timeq.bpf.h"
#include "bq/list.bpf.h"
#include "bq/keytab.bpf.h"
#include "bq/pages.bpf.h"
#include <bpf/bpf_endian.h>

char LICENSE[] SEC("license") = "GPL";

#define NSEC_PER_USEC		1000ULL
#define NSEC_PER_MSEC		1000000ULL
#define NSEC_PER_SEC		1000000000ULL
#define TC_PRIO_CONTROL		7
#define TC_PRIO_MAX		15

#define FQ_GC_MAX		8		/* detached flows freed per enqueue */
#define FQ_GC_AGE		(3 * NSEC_PER_SEC)
#define FQ_NONE			(~0ULL)

#define ETH_P_IP		0x0800
#define ETH_P_IPV6		0x86DD
#define IP_MF_OFFSET		0x3fff	/* a fragment: no ports to hash */

#define FQ_BANDS		3
#define FQ_MIN_WEIGHT		16384

struct fq_params {
	__u64 limit, flow_limit, quantum, initial_quantum, refill_delay;
	__u64 pacing, maxrate, low_rate_threshold, horizon, horizon_drop;
	__u64 orphan_mask, ce_threshold, timer_slack, flows_max, priomap;
	__u64 weight[FQ_BANDS];
};

BQ_PARAMS(struct fq_params,
	BQ_PARAM(limit, BQ_UNIT_COUNT, 10000, 1, 1 << 24),
	BQ_PARAM(flow_limit, BQ_UNIT_COUNT, 100, 1, 1 << 24),
	BQ_PARAM(quantum, BQ_UNIT_BYTES, BQ_AUTO, 256, 1 << 20),	/* 2 x psched_mtu */
	BQ_PARAM(initial_quantum, BQ_UNIT_BYTES, BQ_AUTO, 0, 1 << 20),	/* 10 x psched_mtu */
	BQ_PARAM(refill_delay, BQ_UNIT_TIME, 40 * NSEC_PER_MSEC, 0, 3600 * NSEC_PER_SEC),
	BQ_PARAM(pacing, BQ_UNIT_BOOL, 1, 0, 1),
	BQ_PARAM(maxrate, BQ_UNIT_RATE, 0, 0, ~0ULL),		/* 0: no cap */
	BQ_PARAM(low_rate_threshold, BQ_UNIT_RATE, 550000 / 8, 0, ~0ULL),
	BQ_PARAM(horizon, BQ_UNIT_TIME, 10 * NSEC_PER_SEC, 0, 3600 * NSEC_PER_SEC),
	BQ_PARAM(horizon_drop, BQ_UNIT_BOOL, 1, 0, 1),
	BQ_PARAM(orphan_mask, BQ_UNIT_COUNT, 1023, 0, 0xffffffff),
	BQ_PARAM(ce_threshold, BQ_UNIT_TIME, 0, 0, 3600 * NSEC_PER_SEC),	/* 0: off */
	BQ_PARAM(timer_slack, BQ_UNIT_TIME_NS, 10 * NSEC_PER_USEC, 0, NSEC_PER_SEC),
	BQ_PARAM(flows_max, BQ_UNIT_COUNT, 1 << 20, 1, 1 << 24),	/* and --ring-slots - 1 */
	/* The band of priorities 0..15, one digit each: sch_default_prio2band. */
	BQ_PARAM(priomap, BQ_UNIT_PRIOMAP, 0x1111111100212221ULL, 0, 0x2222222222222222ULL),
	/* Bytes of credit per band per round (sch_fq's weights). */
	BQ_PARAM_NAMED(weight[0], "weight0", BQ_UNIT_BYTES, 9 << 16, FQ_MIN_WEIGHT, 0x7fffffff),
	BQ_PARAM_NAMED(weight[1], "weight1", BQ_UNIT_BYTES, 3 << 16, FQ_MIN_WEIGHT, 0x7fffffff),
	BQ_PARAM_NAMED(weight[2], "weight2", BQ_UNIT_BYTES, 1 << 16, FQ_MIN_WEIGHT, 0x7fffffff),
);

enum {
	X_FLOWS, X_INACTIVE, X_THROTTLED, X_GC_FLOWS,
	X_HORIZON_CAPS, X_FASTPATH, X_UNTHROTTLE_LATENCY,
	X_BAND_DROPS,
};

BQ_XSTATS(
	{ "flows", BQ_GAUGE },			/* flow entries in use */
	{ "inactive", BQ_GAUGE },		/* of which with no packet */
	{ "throttled_flows", BQ_GAUGE },	/* waiting for their departure time */
	{ "gc_flows", BQ_COUNTER },		/* idle flows freed */
	{ "horizon_caps", BQ_COUNTER },		/* timestamps capped to the horizon */
	{ "fastpath_packets", BQ_COUNTER },	/* idle qdisc: no flow lookup */
	{ "unthrottle_latency_ns", BQ_GAUGE },	/* EWMA of watchdog lateness */
	{ "band_drops", BQ_COUNTER },		/* a band at its limit */
);

enum { FQ_DROP_FLOW_LIMIT = BQ_DROP_KIND, FQ_DROP_HORIZON, FQ_DROP_PUSHED_OUT };

BQ_DROP_REASONS(
	{ "flow_limit" },	/* the flow (or its band) at its limit */
	{ "horizon" },		/* departure time beyond the horizon */
	{ "pushed_out" },	/* a throttled flow's head, for a leaner flow's arrival */
);

/* Where a flow is. */
enum { F_FREE, F_IDLE, F_NEW, F_OLD, F_THROTTLED, F_DETACHED };	/* IDLE: just created */

struct fq_flow {
	__u64 key;		/* socket pointer, or (hash << 1) | 1 */
	__u64 time_next_packet;	/* pacing by rate: not before this */
	__u64 throttled_until;	/* while throttled: its time in the heap */
	struct bq_skbq q;	/* its packets, in departure order */
	__s32 credit;
	struct bq_link link;	/* in new, old or detached list; free list (next) */
	__u32 hnext;		/* hash chain */
	__u32 socket_hash;	/* sk_hash when created: detects reuse */
	__u32 age;		/* empty since, ns >> 20: for the collector */
	__u32 detached;		/* detached since, ns >> 20: for refill_delay */
	__u8 state;
	__u8 band;		/* of its latest packet: the lists it goes on */
};

/* sch_fq's bands: each its own round robin, served by WRR of credit. */
struct fq_band {
	struct bq_list new_flows, old_flows;
	__s32 credit;
	__u32 pad;
};

/* Per instance, indexed by slot. */
struct fq_sched {
	struct bq_pool_state pool;
	struct bq_tq delayed;		/* throttled flows by throttled_until */
	struct bq_skbq internal;	/* the fast path */
	struct fq_band bands[FQ_BANDS];
	__u32 band_nr;			/* the band being served */
	__u32 band_pkts[FQ_BANDS];	/* queued in each, fast path included */
	__u32 gc_checked;		/* age (ns >> 20) of the last GC check */
	struct bq_list detached;	/* LRU: oldest first */
	__u64 time_next_delayed_flow;	/* FQ_NONE: nothing throttled */
	__u64 sk_scratch;		/* see fq_sk_key() */
	__u64 hash_key[2];		/* see fq_pkt_hash() */
	__u64 limit_seen;		/* limit at the last dequeue: see fq_trim() */
	__u32 trimming;			/* a lowered limit's trim is not done */
	/* In arena pages allocated with use (bq/pages.bpf.h): */
	struct bq_idmap flow_ids;	/* indexes of flows in use */
	struct bq_pages flows;		/* struct fq_flow by index (flow_ids) */
	struct bq_pages buckets;	/* FQ_BUCKETS chains of the flow table */
	__u32 clocks;			/* arena offset of fq_clocks: 0 until a socket is clocked */
	struct bq_pages heap;		/* struct bq_tq_ent of delayed, by slot and by flow */
	/*
	 * A page of flows is held by its flows; a page of chains by its chains
	 * that are not empty; a page of heap entries by its flows and by the
	 * heap's slots 1 .. flow_ids.used (it may hold every flow:
	 * fq_heap_slot_first). Once none
	 * holds it, fq_gc's sweep frees it, as sch_fq's collected flows free
	 * their slab.
	 */
};

BQ_STATE(struct fq_sched);

/*
 * Chains of the flow table: 2^18, 4 bytes each in pages of 1024 allocated
 * when a flow first hashes to one of their chains; a million flows make
 * chains of 4 on average.
 */
#define FQ_BUCKET_BITS	18

/*
 * The departure clock of each TCP socket we pace (fq_sk_clocked): the
 * time TCP would stamp on its next packet had sch_fq marked it
 * SK_PACING_FQ (fq_clock_stamp). Direct-mapped by the socket's address,
 * so that the fast path finds it with one lookup, not the flow table;
 * sch_fq needs none, TCP keeping the clock in the socket, where we cannot
 * write. A socket that finds its slot held by another (or by an earlier
 * socket at its address: sk_hash differs) takes it and starts afresh, as
 * a new socket does; its packet then takes the flow path, where it keeps
 * its place behind the socket's queued ones (fq_clock_fresh). 4096
 * slots, 96 KB per instance: n sockets sending at once share a slot with
 * another with probability about n / 4096.
 */
#define FQ_CLOCK_BITS	12
#define FQ_CLOCK_SLOTS	4096	/* 1 << FQ_CLOCK_BITS */

struct fq_clock {
	__u64 key;		/* fq_sk_key of its socket */
	__u64 time_next;	/* the socket's next departure, at the earliest */
	__u32 socket_hash;	/* sk_hash: a reused socket starts afresh */
	__u32 pad;
};


/* TCP leaves its first packets unpaced (tcp_update_skb_after_send). */
#define FQ_CLOCK_FREE_SEGS	10

/* Per-packet flags in qdisc_skb_cb(skb)->data[0], its band in data[1]. */
#define FQ_CB_ORPHAN	1	/* no usable socket: no sk_pacing_rate */

static __always_inline u8 *fq_cb_flags(struct sk_buff *skb)
{
	return &((struct qdisc_skb_cb *)skb->cb)->data[0];
}

static __always_inline u8 *fq_cb_band(struct sk_buff *skb)
{
	return &((struct qdisc_skb_cb *)skb->cb)->data[1];
}

/*
 * Queue skb of band on queue (the fast path's or its flow's), counted in
 * the band: sch_fq's limit is per band, fast path included.
 */
static __always_inline int fq_band_push(struct Qdisc *sch, struct bq_instance *inst,
					struct fq_sched *q, struct bq_skbq *queue,
					struct sk_buff *skb, u64 time, u32 band,
					struct bpf_sk_buff_ptr *to_free)
{
	int ret;

	*fq_cb_band(skb) = band;
	/* The band in aux too: fq_push_victim reads it without the skb. */
	ret = bq_skbq_push(sch, inst, &q->pool, queue, skb, time, band, to_free);
	if (ret == NET_XMIT_SUCCESS)
		q->band_pkts[band]++;
	return ret;
}

/* A packet of its band (fq_cb_band) leaves. */
static __always_inline void fq_band_left(struct fq_sched *q, struct sk_buff *skb)
{
	u8 band = *fq_cb_band(skb);

	q->band_pkts[band < FQ_BANDS ? band : 0]--;
}

/* Band b of the state, any b: the verifier wants the index bounded. */
static __always_inline struct fq_band *fq_band(struct fq_sched *q, u32 b)
{
	return &q->bands[b < FQ_BANDS ? b : FQ_BANDS - 1];
}

/* sch_fq's prio2band: one digit (nibble) per priority. */
static __always_inline u32 fq_prio2band(const struct fq_params *p, u32 prio)
{
	u32 b = (p->priomap >> (4 * (prio & TC_PRIO_MAX))) & 0xf;

	return b < FQ_BANDS ? b : FQ_BANDS - 1;
}

/* The flows an instance may have at most: its table's capacity, less index 0. */
#define FQ_FLOWS_CAP	(bq_pages_capacity(sizeof(struct fq_flow)) - 1)

/* Flow idx, which fq_flow_alloc reached. */
static __always_inline struct fq_flow __arena *fq_flow(const struct bq_instance *inst, u32 idx)
{
	return bq_pages_at(&bq_state(inst)->flows, idx, sizeof(struct fq_flow));
}

/*
 * The time queue of throttled flows: values are flows, and it holds each
 * once, so slots 1 .. len and values alike are flow indexes that
 * fq_flow_alloc reached.
 */
static __always_inline struct bq_tq_ent __arena *fq_tq_ent(const struct bq_instance *inst, u32 i)
{
	return bq_pages_at_noinline(&bq_state(inst)->heap, i, sizeof(struct bq_tq_ent));
}

BQ_TIMEQ_OPS(fq_tq, fq_tq_ent, FQ_FLOWS_CAP + 1)

static __always_inline u32 fq_bucket_index(u64 fkey)
{
	return bq_hash32(fkey) >> (32 - FQ_BUCKET_BITS);
}

/* The chain of key fkey; NULL if no flow ever hashed to its page (fq_bucket_reach). */
static __always_inline u32 __arena *fq_bucket(const struct bq_instance *inst, u64 fkey)
{
	return bq_pages_at(&bq_state(inst)->buckets, fq_bucket_index(fkey), sizeof(u32));
}

static __always_inline bool fq_bucket_reach(const struct bq_instance *inst, struct fq_sched *q,
					    u64 fkey)
{
	return bq_pages_reach(inst, &q->buckets, fq_bucket_index(fkey), sizeof(u32));
}

static __always_inline u32 fq_age_now(u64 now)
{
	return (u32)(now >> 20);
}

/*
 * The socket pointer as a number. The verifier does no arithmetic on a
 * socket pointer, and hashing is arithmetic; but it lets a privileged
 * program store one in a map value, and what it loads from there is a
 * plain number.
 */
static __always_inline u64 fq_sk_key(struct fq_sched *q, struct sock *sk)
{
	*(volatile struct sock **)&q->sk_scratch = sk;
	return *(volatile u64 *)&q->sk_scratch;
}

#define FQ_CLOCK_PAGES	(FQ_CLOCK_SLOTS * sizeof(struct fq_clock) / BQ_PAGE_SIZE)
_Static_assert(FQ_CLOCK_PAGES * BQ_PAGE_SIZE == FQ_CLOCK_SLOTS * sizeof(struct fq_clock),
	       "fq_clocks fill their pages");

/*
 * The slot of fq_clocks that socket key (fq_sk_key) may hold; NULL
 * without memory. The clocks are one block of pages, allocated at the
 * first socket clocked, so that the fast path finds a slot by arithmetic.
 */
static __always_inline struct fq_clock __arena *fq_clock_slot(const struct bq_instance *inst, u64 key)
{
	struct fq_sched *q = bq_state(inst);

	if (!q->clocks)
		q->clocks = bq_pages_block(inst, FQ_CLOCK_PAGES);
	if (!q->clocks)
		return NULL;
	return bq_arena_ptr(struct fq_clock, q->clocks) + (bq_hash32(key) >> (32 - FQ_CLOCK_BITS));
}

static __always_inline bool fq_l4_hashable(u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP;
}

static __always_inline void fq_hash_in6(struct bq_sip *h, const struct in6_addr *a)
{
	bq_sip_word(h, (u64)a->in6_u.u6_addr32[0] << 32 | a->in6_u.u6_addr32[1]);
	bq_sip_word(h, (u64)a->in6_u.u6_addr32[2] << 32 | a->in6_u.u6_addr32[3]);
}

/*
 * The addresses, protocol and ports of an unfragmented IPv4 (no options)
 * or IPv6 (no extension header) TCP or UDP packet, read from its linear
 * part into h: the words hashed, 0 for any other packet. The headers are
 * read through read-only casts: each load is one instruction that cannot
 * fault, where a bpf_probe_read_kernel() call costs a hundred.
 */
static __always_inline u32 fq_hash_tuple(struct sk_buff *skb, struct bq_sip *h)
{
	u32 nh = skb->network_header, proto = bpf_ntohs(skb->protocol);
	unsigned char *head = skb->head;
	const struct ipv6hdr *ip6;
	const struct iphdr *ip4;
	const struct udphdr *l4;

	if (proto == ETH_P_IP) {
		if (nh + sizeof(*ip4) + 4 > skb->tail)
			return 0;
		ip4 = bpf_core_cast(head + nh, struct iphdr);
		if (*(const u8 *)ip4 != 0x45 || (ip4->frag_off & bpf_htons(IP_MF_OFFSET)) ||
		    !fq_l4_hashable(ip4->protocol))
			return 0;
		l4 = bpf_core_cast(head + nh + sizeof(*ip4), struct udphdr);
		bq_sip_word(h, (u64)ip4->saddr << 32 | ip4->daddr);
		bq_sip_word(h, ((u64)l4->source << 24) | ((u64)l4->dest << 8) | ip4->protocol);
		return 2;
	}
	if (proto == ETH_P_IPV6) {
		if (nh + sizeof(*ip6) + 4 > skb->tail)
			return 0;
		ip6 = bpf_core_cast(head + nh, struct ipv6hdr);
		if (!fq_l4_hashable(ip6->nexthdr))
			return 0;
		l4 = bpf_core_cast(head + nh + sizeof(*ip6), struct udphdr);
		fq_hash_in6(h, &ip6->saddr);
		fq_hash_in6(h, &ip6->daddr);
		bq_sip_word(h, ((u64)l4->source << 24) | ((u64)l4->dest << 8) | ip6->nexthdr);
		return 5;
	}
	return 0;
}

/*
 * The flow hash of a packet without a socket to be its flow. sch_fq
 * takes skb_get_hash(), which, for an skb that has no hash yet (every
 * datagram of an unconnected UDP socket), runs the flow dissector: 670 of
 * the 1190 ns of a flow-path enqueue on the virtual clock (docs/fq.md).
 * A hash the skb has (the NIC's, a tc program's) is taken as sch_fq takes
 * it; for plain TCP and UDP over IP we hash what the dissector would, the
 * addresses, protocol and ports, with SipHash under a key per instance
 * as the kernel keys its own (a sender cannot choose ports that share a
 * victim's flow); anything else goes to the dissector.
 */
static __always_inline u32 fq_pkt_hash(const struct fq_sched *q, struct sk_buff *skb)
{
	struct bq_sip h;
	u32 words;

	if (skb->hash)
		return skb->hash;
	bq_sip_init(&h, q->hash_key);
	words = fq_hash_tuple(skb, &h);
	return words ? bq_sip_final32(&h, words) : bpf_skb_get_hash(skb);
}

/* --- flow lists (doubly linked through the flow array) ----------------- */

BQ_LIST_OPS(fq_list, struct fq_flow __arena, fq_flow)

/* --- flow table --------------------------------------------------------- */

BQ_KEYTAB_OPS(fq_tab, struct fq_flow __arena, fq_flow, fq_bucket, key)

/*
 * Whether slot s of the heap is the first of its page that the slots
 * 1 .. flow_ids.used reach: they hold each of their pages once, by that
 * slot, not a hold a flow.
 */
static __always_inline bool fq_heap_slot_first(u32 s)
{
	return s == 1 || !(s % (BQ_PAGE_SIZE / sizeof(struct bq_tq_ent)));
}

/*
 * Flow idx gets its pages (its entry, its heap entry, and one more slot
 * of the heap) and its index: false without memory, and then nothing is
 * held.
 */
static __always_inline bool fq_flow_hold(const struct bq_instance *inst, struct fq_sched *q,
					 u32 idx)
{
	const u32 sz = sizeof(struct bq_tq_ent), s = q->flow_ids.used + 1;

	if (!bq_pages_hold(inst, &q->flows, idx, sizeof(struct fq_flow)))
		return false;
	if (!bq_pages_hold(inst, &q->heap, idx, sz))
		goto no_entry;
	if (fq_heap_slot_first(s) && !bq_pages_hold(inst, &q->heap, s, sz))
		goto no_slot;
	bq_idmap_take(&q->flow_ids, idx);
	return true;
no_slot:
	bq_pages_release(&q->heap, idx, sz);
no_entry:
	bq_pages_release(&q->flows, idx, sizeof(struct fq_flow));
	return false;
}

/* What fq_flow_hold() took, given back: its pages may go. */
static __always_inline void fq_flow_unhold(const struct bq_instance *inst, struct fq_sched *q,
					   u32 idx)
{
	const u32 sz = sizeof(struct bq_tq_ent), s = q->flow_ids.used;

	if (fq_heap_slot_first(s))
		bq_pages_release(&q->heap, s, sz);
	bq_idmap_put(&q->flow_ids, idx);
	bq_pages_release(&q->heap, idx, sz);
	bq_pages_release(&q->flows, idx, sizeof(struct fq_flow));
}

/* The chain of key has its first flow: it holds its page of chains. */
static __always_inline void fq_chain_held(const struct bq_instance *inst, struct fq_sched *q,
					  u64 key)
{
	bq_pages_hold(inst, &q->buckets, fq_bucket_index(key), sizeof(u32));
}

/* The chain of key lost a flow: if it was the last, the chain no longer holds its page. */
static __always_inline void fq_chain_left(const struct bq_instance *inst, struct fq_sched *q,
					  u64 key)
{
	u32 __arena *b = fq_bucket(inst, key);

	if (b && !*b)
		bq_pages_release(&q->buckets, fq_bucket_index(key), sizeof(u32));
}

/*
 * Unhash and free an empty flow that is on list l; false if it cannot be
 * unhashed (see keytab.bpf.h): then it stays.
 */
static __always_inline bool fq_flow_free(const struct bq_instance *inst, struct fq_sched *q,
					 struct bq_list *l, struct fq_flow __arena *f, u32 idx)
{
	if (!fq_tab_remove(inst, f, idx))
		return false;
	fq_chain_left(inst, q, f->key);
	fq_list_del(inst, l, f, idx);
	f->state = F_FREE;
	fq_flow_unhold(inst, q, idx);
	return true;
}

/*
 * The idle flow to free next if it is older than min_age (ns >> 20 units),
 * and where it is (*l, *idx): the least recently detached, else an empty
 * flow at the head of a band's old_flows. sch_fq collects detached flows only; but
 * while new flows keep arriving to an almost empty queue, old_flows is
 * never visited, and the flows served once pile up there, empty and never
 * detached (sch_fq's inactive flows). With a bounded table they must be
 * reclaimed too.
 */
static __always_inline struct fq_flow __arena *
fq_idle_flow(const struct bq_instance *inst, struct fq_sched *q, u32 age, u32 min_age,
	     struct bq_list **l, u32 *idx)
{
	struct fq_flow __arena *f;
	u32 b;

	*l = &q->detached;
	*idx = (*l)->head;
	f = *idx ? fq_flow(inst, *idx) : NULL;
	if (f && age - f->age >= min_age)
		return f;
	/* Unrolled: an open-coded iterator's calls cost more than the looks. */
	for (b = 0; b < FQ_BANDS; b++) {
		*l = &fq_band(q, b)->old_flows;
		*idx = (*l)->head;
		f = *idx ? fq_flow(inst, *idx) : NULL;
		if (f && !f->q.len && age - f->age >= min_age)
			return f;
	}
	return NULL;
}

/* Free the idle flow fq_idle_flow() finds; false if there is none. */
static __always_inline bool fq_reclaim(struct bq_instance *inst, struct fq_sched *q,
				       u32 age, u32 min_age)
{
	struct bq_list *l;
	struct fq_flow __arena *f;
	u32 idx;

	f = fq_idle_flow(inst, q, age, min_age, &l, &idx);
	if (!f || !fq_flow_free(inst, q, l, f, idx))
		return false;
	inst->cnt.x[X_FLOWS]--;
	inst->cnt.x[X_INACTIVE]--;
	inst->cnt.x[X_GC_FLOWS]++;
	return true;
}

#define FQ_GC_MIN_AGE	((u32)(FQ_GC_AGE >> 20) + 1)

/*
 * Slots of each table a sweep looks at (bq_pages_sweep): once a tick
 * (~1 ms) of enqueues, when no flow was old enough to collect, and only
 * while a page is empty. A page of flows then goes at most two turns of
 * its table's directories after its last flow, 64 ticks a directory.
 */
#define FQ_SWEEP	32

/* Up to FQ_GC_MAX flows idle for more than 3 s freed; how many. None: a sweep. */
static __noinline u32 fq_gc(struct bq_instance *inst, struct fq_sched *q, u32 age)
{
	u32 i;

	for (i = 0; i < FQ_GC_MAX; i++) {
		if (!fq_reclaim(inst, q, age, FQ_GC_MIN_AGE))
			break;
	}
	if (!i) {
		bq_pages_sweep(inst, &q->flows, FQ_SWEEP);
		bq_pages_sweep(inst, &q->heap, FQ_SWEEP);
		bq_pages_sweep(inst, &q->buckets, FQ_SWEEP);
	}
	return i;
}

/*
 * A free flow entry: from the free list, never used ones, or, with
 * flows_max flows (or FQ_FLOWS_CAP), an idle flow; 0 without one, or
 * without memory for its page.
 * That one is reused whatever its pacing clock: were an entry kept for a
 * clock still ahead, sockets with a low pacing rate could hold the table
 * with a packet a second each, and everyone else's new flows would be
 * dropped. Its socket then starts afresh, as a new socket would (docs/fq.md).
 */
static __always_inline u32 fq_flow_alloc(struct bq_instance *inst, struct fq_sched *q,
					 u64 flows_max, u64 now)
{
	u32 idx;

	if (flows_max > FQ_FLOWS_CAP)
		flows_max = FQ_FLOWS_CAP;
	if (q->flow_ids.used >= flows_max && !fq_reclaim(inst, q, fq_age_now(now), 0))
		return 0;
	idx = bq_idmap_peek(inst, &q->flow_ids, FQ_FLOWS_CAP + 1);
	return idx && fq_flow_hold(inst, q, idx) ? idx : 0;
}

/* The flow of key, created if new; 0 when none can be had. */
static __noinline u32 fq_classify(struct bq_instance *inst, struct fq_sched *q,
				  const struct fq_params *p, u64 key, u64 now)
{
	struct fq_flow __arena *f;
	u32 idx;

	idx = fq_tab_find(inst, key);
	if (idx || !fq_bucket_reach(inst, q, key))
		return idx;
	idx = fq_flow_alloc(inst, q, p->flows_max, now);
	f = idx ? fq_flow(inst, idx) : NULL;
	if (!f)
		return 0;
	if (!fq_tab_insert(inst, f, idx, key)) {
		fq_flow_unhold(inst, q, idx);
		return 0;
	}
	if (!f->hnext)
		fq_chain_held(inst, q, key);
	f->time_next_packet = 0;
	f->q.head = f->q.tail = f->q.len = 0;
	f->credit = p->initial_quantum;
	f->link.next = f->link.prev = 0;
	f->socket_hash = 0;
	f->age = f->detached = fq_age_now(now);
	f->state = F_IDLE;
	inst->cnt.x[X_FLOWS]++;
	inst->cnt.x[X_INACTIVE]++;
	return idx;
}

/* --- enqueue ------------------------------------------------------------- */

/*
 * Listeners (SYN-ACKs in syncookie mode), request and TIME_WAIT sockets
 * are not flows: sch_fq orphans their packets, and packets without a
 * socket. Unconnected sockets (TCP_CLOSE: UDP sendto) keep their socket's
 * pacing rate but are spread by packet hash.
 */
static __always_inline bool fq_sk_orphan(const struct sock *sk)
{
	return !sk || ((1 << sk->__sk_common.skc_state) &
		       (TCPF_LISTEN | TCPF_NEW_SYN_RECV | TCPF_TIME_WAIT));
}

/*
 * sch_fq marks every socket it sees SK_PACING_FQ (pacing on), and TCP
 * then stamps each packet with its paced departure time (EDT), which fq
 * honours, its fast path included. We cannot write the socket: a TCP
 * socket nobody asked to pace (SK_PACING_NONE: cubic, reno) stamps only
 * the time it sent, so we stamp it ourselves, on a clock per socket
 * (fq_clocks), by TCP's own rule (fq_clock_stamp). Sockets that asked for
 * pacing (BBR, SO_MAX_PACING_RATE: SK_PACING_NEEDED) or got it from their
 * congestion control (cubic_fq) stamp themselves. sk not an orphan.
 */
static __always_inline bool fq_sk_clocked(const struct fq_params *p, const struct sock *sk)
{
	return p->pacing && sk->sk_protocol == IPPROTO_TCP &&
	       sk->sk_pacing_status == SK_PACING_NONE && sk->sk_pacing_rate != ~0UL;
}

/* TCP's length of skb: its payload, without the link, IP and TCP headers. */
static __always_inline u64 fq_tcp_payload(struct sk_buff *skb)
{
	const struct tcphdr *th = bpf_core_cast(skb->head + skb->transport_header, struct tcphdr);
	u32 hdr = skb->transport_header - skb->mac_header + th->doff * 4;

	return skb->len > hdr ? skb->len - hdr : 0;
}

/*
 * The rate we pace socket sk at: its sk_pacing_rate, as TCP paces a
 * socket sch_fq has marked; twice that while slow start grows its
 * window. Cubic's HyStart ends slow start when a round's ACKs keep coming
 * for longer than delay_min, or for half of that when the socket is not
 * marked (SK_PACING_NONE: its ACKs should come in bursts), as ours stay:
 * paced at its rate, a round of slow start spreads over about half a
 * round trip, and slow start ended at once (one flow, 20 ms RTT: at a
 * window of 70 packets, 784 Mbit/s against fq's 1211). Twice the rate
 * keeps the margin under that threshold that fq's pacing keeps under
 * its own. A socket whose window does not grow (limited by the receiver
 * or the application: TCP's tcp_is_cwnd_limited) is paced at its rate.
 */
static __always_inline u64 fq_clock_rate(const struct sock *sk)
{
	const struct tcp_sock *tp = bpf_core_cast(sk, struct tcp_sock);
	u64 rate = sk->sk_pacing_rate;

	if (tp->snd_cwnd < tp->snd_ssthresh && tp->snd_cwnd < 2 * tp->max_packets_out)
		return 2 * rate;
	return rate;
}

/*
 * The departure time of packet skb of socket sk (fq_sk_clocked) that TCP
 * sent at time, as TCP would stamp it had sch_fq marked the socket
 * (tcp_update_skb_after_send): the socket's clock, or time if later; the
 * clock then moves on by the packet's payload at the pacing rate
 * (fq_clock_rate), less up to half of that for the time it was
 * behind (idle, or timers late), from the socket's FQ_CLOCK_FREE_SEGS-th
 * data segment on. *fresh: the socket took its slot now, so the clock
 * knows nothing of its queued packets.
 */
static __always_inline u64 fq_clock_stamp(const struct bq_instance *inst, struct fq_sched *q,
					  struct sk_buff *skb, struct sock *sk, u64 time,
					  bool *fresh)
{
	u64 key = fq_sk_key(q, sk), len, rate, late;
	struct fq_clock __arena *c = fq_clock_slot(inst, key);
	u32 sk_hash = sk->__sk_common.skc_hash;

	*fresh = !c || c->key != key || c->socket_hash != sk_hash;
	if (!c)
		return time;
	if (*fresh) {
		c->key = key;
		c->socket_hash = sk_hash;
		c->time_next = 0;
	}
	late = 0;
	if (time > c->time_next) {
		late = time - c->time_next;
		c->time_next = time;
	}
	time = c->time_next;
	len = fq_tcp_payload(skb);
	rate = fq_clock_rate(sk);
	if (!len || !rate || bpf_core_cast(sk, struct tcp_sock)->data_segs_out < FQ_CLOCK_FREE_SEGS)
		return time;
	len = len * NSEC_PER_SEC / rate;
	c->time_next += len - (late < len / 2 ? late : len / 2);
	return time;
}

/*
 * A socket that took its clock's slot afresh may have packets queued in
 * its flow f, due later than its new clock says. Its packet, due at time,
 * then waits for the last of them, and its clock moves on by as much, so
 * that TCP sees no reordering. The new departure time.
 */
static __noinline u64 fq_clock_fresh(const struct bq_instance *inst, struct fq_sched *q,
				     const struct fq_flow __arena *f, struct sock *sk, u64 time)
{
	const struct bq_pkt *tail = f->q.len ? bq_pkt(inst, f->q.tail) : NULL;
	u64 key = fq_sk_key(q, sk), shift;
	struct fq_clock __arena *c;

	if (!tail || tail->time <= time)
		return time;
	shift = tail->time - time;
	c = fq_clock_slot(inst, key);
	if (c && c->key == key)
		c->time_next += shift;
	return tail->time;
}

/*
 * sch_fq's fast path (since 6.8): a packet due now, to a qdisc with
 * nothing else ready to go, skips the flow table. Not under maxrate, nor
 * for a non-TCP socket with SO_MAX_PACING_RATE: their flow's clock must
 * see every packet. A socket we stamp (fq_clock_stamp) takes it as one
 * that stamps itself does: a packet due later goes to its flow. Its
 * clock's times only grow, so a due packet has none of its socket's
 * queued behind a throttled flow to pass; the caller sends it to its
 * flow when the clock has just started afresh. It reads only what it
 * needs of the socket, before the flow path's classification: on
 * ping-pong every packet takes it.
 */
static __always_inline bool fq_fastpath_ok(const struct fq_sched *q, const struct fq_params *p,
					   const struct bq_instance *inst, const struct Qdisc *sch,
					   struct sock *sk, bool orphan, u64 time, u64 now)
{
	if (time > now || p->maxrate)
		return false;
	if (!orphan && sk->sk_protocol != IPPROTO_TCP && sk->sk_max_pacing_rate != ~0UL)
		return false;
	if (!sch->q.qlen)
		return true;
	return inst->cnt.x[X_FLOWS] == inst->cnt.x[X_INACTIVE] + inst->cnt.x[X_THROTTLED] &&
	       q->internal.len < 8 && q->time_next_delayed_flow > now;
}

/*
 * sch_fq's quanta by default: 2 and 10 times psched_mtu() of the device
 * (MTU plus link header: 3028 and 15140 on Ethernet), worked out at init
 * and after a reset as sch_fq's init does, so that qdisc show gives them
 * before the first packet; parameters given by the user stay.
 */
static __noinline void fq_auto_quanta(struct Qdisc *sch, struct fq_params *p)
{
	struct net_device *dev = BPF_CORE_READ(sch, dev_queue, dev);
	u64 mtu = BPF_CORE_READ(dev, mtu) + BPF_CORE_READ(dev, hard_header_len);

	if (!mtu)
		mtu = 1;
	if (mtu > 1 << 20)
		mtu = 1 << 20;
	if (p->quantum == BQ_AUTO)
		p->quantum = 2 * mtu < 256 ? 256 : 2 * mtu > 1 << 20 ? 1 << 20 : 2 * mtu;
	if (p->initial_quantum == BQ_AUTO)
		p->initial_quantum = 10 * mtu > 1 << 20 ? 1 << 20 : 10 * mtu;
}

/*
 * At the limit. sch_fq drops the arriving packet when its band is at limit;
 * but packets that are not due (SO_TXTIME up to the horizon ahead, or a
 * flow paced at 1 byte/s) hold their room for seconds, and any local user
 * can send them: then every other sender in the band, and in every band
 * once they fill the pool, is dropped until they leave. As sch_fq_codel
 * drops from its fattest flow rather than the arrival, we push out the
 * head packet of a throttled flow holding more packets than the arrival's
 * own, if one is found among a few samples of the delayed heap; only
 * throttled flows, so a congested queue of due packets keeps sch_fq's
 * tail drop.
 */
#define FQ_PUSH_SAMPLES		8

/* Flow f's head packet leaves (sent or dropped); NULL if it has none. */
static __always_inline struct sk_buff *fq_flow_pop(struct bq_instance *inst, struct fq_sched *q,
						   struct fq_flow __arena *f, u64 now)
{
	struct sk_buff *skb = bq_askbq_pop(inst, &q->pool, &f->q);

	if (!skb)
		return NULL;
	fq_band_left(q, skb);
	if (!f->q.len) {
		inst->cnt.x[X_INACTIVE]++;
		f->age = fq_age_now(now);	/* idle since */
	}
	return skb;
}

/*
 * The flow to push a packet out of, for an arrival whose flow holds len
 * packets: of the throttled flows sampled, the one holding the most, more
 * than len, not due yet, and its head packet in band (any band for
 * FQ_BANDS: only the pool is full). 0: none.
 */
static __always_inline u32 fq_push_victim(const struct bq_instance *inst,
					  const struct fq_sched *q, u32 band, u32 len, u64 now)
{
	u32 i, val, best = 0;
	struct bq_tq_ent __arena *e;
	struct bq_pkt *head;
	struct fq_flow __arena *f;

	bpf_for(i, 0, FQ_PUSH_SAMPLES) {
		if (!q->delayed.len)
			break;
		e = fq_tq_ent(inst, 1 + bpf_get_prandom_u32() % q->delayed.len);
		if (!e || e->time <= now)
			continue;
		val = e->val;
		f = fq_flow(inst, val);
		if (!f || f->state != F_THROTTLED || f->q.len <= len)
			continue;
		head = bq_askbq_head(inst, &f->q);
		if (!head || (band < FQ_BANDS && head->aux != band))
			continue;
		best = val;
		len = f->q.len;
	}
	return best;
}

/*
 * Drop the head of a throttled flow fatter than len (fq_push_victim) to
 * make room in band (FQ_BANDS: in the pool). False if there is none.
 */
static __noinline bool fq_push_out(struct Qdisc *sch, struct bq_instance *inst,
				   struct fq_sched *q, u32 band, u32 len)
{
	u64 now = bpf_ktime_get_ns();
	u32 idx = fq_push_victim(inst, q, band, len, now);
	struct fq_flow __arena *f = idx ? fq_flow(inst, idx) : NULL;
	struct sk_buff *skb;

	if (!f)
		return false;
	/* Its heap item stays: unthrottled early, it is throttled again. */
	skb = fq_flow_pop(inst, q, f, now);
	if (!skb)
		return false;
	bq_drop_queued(sch, inst, skb, FQ_DROP_PUSHED_OUT);
	return true;
}

/* No room for one more packet of band: at limit, or no free packet slot. */
static __always_inline bool fq_full(const struct fq_sched *q, const struct fq_params *p, u32 band)
{
	return q->band_pkts[band] >= p->limit || q->pool.ids.used >= bq_ring_slots - 1;
}

/* fq_full: room for a packet of band, whose flow holds len, by a push-out. */
static __always_inline bool fq_make_room(struct Qdisc *sch, struct bq_instance *inst,
					 struct fq_sched *q, const struct fq_params *p,
					 u32 band, u32 len)
{
	return fq_push_out(sch, inst, q, q->band_pkts[band] >= p->limit ? band : FQ_BANDS, len);
}

/* No room and nothing to push out: the arrival goes, as in sch_fq. */
static __always_inline int fq_drop_arrival(struct Qdisc *sch, struct bq_instance *inst,
					   const struct fq_sched *q, const struct fq_params *p,
					   u32 band, struct sk_buff *skb,
					   struct bpf_sk_buff_ptr *to_free)
{
	if (q->band_pkts[band] < p->limit)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_NOMEM);
	inst->cnt.x[X_BAND_DROPS]++;
	return bq_drop(sch, inst, skb, to_free, BQ_DROP_OVERLIMIT);
}

BQ_ENQUEUE(fq)
{
	const struct fq_params *p;
	struct bq_instance *inst;
	struct fq_sched *q = bq_enter(sch, &inst, &p);
	struct sock *sk = skb->sk;
	bool orphan, clocked, fresh = false, by_hash, was_empty, full;
	u64 now, time, key, tstamp;
	struct fq_flow __arena *f;
	struct bq_skbq sq;
	u32 idx, sk_hash = 0, band, age;
	u8 state;
	int ret;

	if (!q)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_NO_INSTANCE);
	/*
	 * As sch_fq: limit is per band, fast path included, not in all.
	 * With a throttled flow, one of its packets may give way (fq_push_out).
	 */
	band = fq_prio2band(p, skb->priority);
	full = fq_full(q, p, band);
	if (full && !q->delayed.len)
		return fq_drop_arrival(sch, inst, q, p, band, skb, to_free);
	now = bpf_ktime_get_ns();
	tstamp = skb->tstamp;
	time = tstamp ?: now;
	if ((s64)tstamp > (s64)(now + p->horizon)) {
		if (p->horizon_drop)
			return bq_drop(sch, inst, skb, to_free, FQ_DROP_HORIZON);
		inst->cnt.x[X_HORIZON_CAPS]++;
		time = now + p->horizon;
		skb->tstamp = time;
	}
	orphan = fq_sk_orphan(sk);
	clocked = !orphan && fq_sk_clocked(p, sk);
	if (clocked)
		time = fq_clock_stamp(inst, q, skb, sk, time, &fresh);
	if (!fresh && fq_fastpath_ok(q, p, inst, sch, sk, orphan, time, now)) {
		if (full && !fq_make_room(sch, inst, q, p, band, 0))
			return fq_drop_arrival(sch, inst, q, p, band, skb, to_free);
		inst->cnt.x[X_FASTPATH]++;
		return fq_band_push(sch, inst, q, &q->internal, skb, time, band, to_free);
	}

	by_hash = orphan || sk->__sk_common.skc_state == TCP_CLOSE;
	*fq_cb_flags(skb) = orphan ? FQ_CB_ORPHAN : 0;
	if (by_hash) {	/* the flow dissector may run: not on the fast path */
		key = (((u64)(fq_pkt_hash(q, skb) & p->orphan_mask)) << 1) | 1;
	} else {
		key = fq_sk_key(q, sk);
		sk_hash = sk->__sk_common.skc_hash;
	}
	/*
	 * Usually no flow is old enough: one look, then none again until
	 * the clock (in ~1 ms units) moves on.
	 */
	age = fq_age_now(now);
	if (q->gc_checked != age && !fq_gc(inst, q, age))
		q->gc_checked = age;
	idx = fq_classify(inst, q, p, key, now);
	f = idx ? fq_flow(inst, idx) : NULL;
	if (!f)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_NOMEM);
	if (f->q.len >= p->flow_limit)
		return bq_drop(sch, inst, skb, to_free, FQ_DROP_FLOW_LIMIT);
	if (fresh && clocked)
		time = fq_clock_fresh(inst, q, f, sk, time);

	state = f->state;
	f->band = band;
	if (!(key & 1) && f->socket_hash != sk_hash) {
		/* A new socket at an old socket's address: start afresh. */
		f->credit = p->initial_quantum;
		f->socket_hash = sk_hash;
		f->time_next_packet = 0;
		if (state == F_THROTTLED) {
			fq_tq_remove(inst, &q->delayed, idx);
			inst->cnt.x[X_THROTTLED]--;
			f->state = F_OLD;
			fq_list_add_tail(inst, &fq_band(q, band)->old_flows, f, idx);
		}
	}
	if (state == F_DETACHED || state == F_IDLE) {
		if (state == F_DETACHED)
			fq_list_del(inst, &q->detached, f, idx);
		fq_list_add_tail(inst, &fq_band(q, band)->new_flows, f, idx);
		f->state = F_NEW;
		/* sch_fq compares as u32: a flow in debt stays in debt. */
		if (age - f->detached > (u32)(p->refill_delay >> 20) &&
		    (u32)f->credit < (u32)p->quantum)
			f->credit = p->quantum;
	}
	if (f->state == F_THROTTLED && time < f->throttled_until) {
		/*
		 * Due before the packet the flow waits for: wait for this
		 * one instead (as sch_fq does); its heap item moves up. The
		 * pacing delay still holds.
		 */
		u64 until = time > f->time_next_packet ? time : f->time_next_packet;

		if (until < f->throttled_until && !fq_tq_set(inst, &q->delayed, until, idx)) {
			f->throttled_until = until;
			if (q->time_next_delayed_flow > until)
				q->time_next_delayed_flow = until;
		}
	}
	if (full && !fq_make_room(sch, inst, q, p, band, f->q.len))
		return fq_drop_arrival(sch, inst, q, p, band, skb, to_free);
	was_empty = !f->q.len;
	/* fq_band_push takes the fast path's queue too: the flow's goes by copy. */
	sq = f->q;
	ret = fq_band_push(sch, inst, q, &sq, skb, time, band, to_free);
	f->q = sq;
	if (ret != NET_XMIT_SUCCESS)	/* a full pool dropped it */
		return ret;
	if (was_empty)
		inst->cnt.x[X_INACTIVE]--;
	return ret;
}

/* --- dequeue ------------------------------------------------------------- */

/*
 * The earliest throttled flow, if due, goes back to old_flows; false when
 * none is (the heap empty, or its head later: then the time to wake up).
 */
static __always_inline bool fq_unthrottle_one(struct bq_instance *inst, struct fq_sched *q,
					      u64 now)
{
	struct fq_flow __arena *f;
	u64 time;
	u32 val;

	if (!fq_tq_peek(inst, &q->delayed, &time, &val))
		return false;
	if (time > now) {
		q->time_next_delayed_flow = time;
		return false;
	}
	fq_tq_pop(inst, &q->delayed);
	f = fq_flow(inst, val);
	if (!f || f->state != F_THROTTLED)
		return true;
	inst->cnt.x[X_THROTTLED]--;
	f->state = F_OLD;
	fq_list_add_tail(inst, &fq_band(q, f->band)->old_flows, f, val);
	return true;
}

/*
 * The earliest throttled flow is due: those due go back to old_flows. The
 * first outside the loop: a lone paced flow then needs no iterator.
 */
static __noinline void fq_unthrottle(struct bq_instance *inst, struct fq_sched *q, u64 now)
{
	u64 sample;
	u32 i;

	sample = now - q->time_next_delayed_flow;
	if (q->time_next_delayed_flow != FQ_NONE) {
		inst->cnt.x[X_UNTHROTTLE_LATENCY] -= inst->cnt.x[X_UNTHROTTLE_LATENCY] >> 3;
		inst->cnt.x[X_UNTHROTTLE_LATENCY] += sample >> 3;
	}
	q->time_next_delayed_flow = FQ_NONE;
	if (!fq_unthrottle_one(inst, q, now) || !q->delayed.len)
		return;
	bpf_for(i, 1, bq_ring_slots) {
		if (!fq_unthrottle_one(inst, q, now))
			break;
	}
}

#define FQ_AGAIN	(~0U)

/*
 * The credit a flow in debt gets as it goes to the back of old_flows: one
 * quantum, or, when it is the only flow in its band's round robin, the
 * quanta it would collect coming round to itself again and again until it
 * may send (a 64 KB GSO packet is 21 rounds of the default quantum).
 */
static __always_inline s32 fq_refill(const struct fq_band *b, const struct bq_list *head,
				     const struct fq_flow __arena *f, u32 quantum)
{
	const struct bq_list *other = head == &b->new_flows ? &b->old_flows : &b->new_flows;
	u32 rounds;

	if (head->head != head->tail || other->head || !quantum)
		return quantum;
	rounds = ((u32)-f->credit) / quantum + 1;
	return rounds * quantum;
}

/*
 * The band being served has no credit or no flow: on to the next, which
 * gets its weight in credit (sch_fq's WRR, credit capped at one weight).
 * After FQ_BANDS bands in a row with credit and no flow, none is ready: 0.
 */
static __always_inline u32 fq_next_band(struct fq_sched *q, const struct fq_params *p,
					u32 *retry)
{
	struct fq_band *b;
	s32 w;

	if (++*retry > FQ_BANDS)
		return 0;
	q->band_nr = q->band_nr + 1 < FQ_BANDS ? q->band_nr + 1 : 0;
	b = fq_band(q, q->band_nr);
	w = p->weight[q->band_nr < FQ_BANDS ? q->band_nr : 0];
	b->credit = b->credit + w < w ? b->credit + w : w;
	if (b->credit <= 0)
		*retry = 0;
	return FQ_AGAIN;
}

/*
 * One step of the round robin of the band being served: the flow at the
 * head of its new_flows, else of its old_flows, if it may send now (*due:
 * its head packet's departure time); else it moves on (spent its credit,
 * not due: throttled, or empty), or the band does, and FQ_AGAIN. 0: none
 * is ready.
 */
static __always_inline u32 fq_pick_step(struct bq_instance *inst, struct fq_sched *q,
					const struct fq_params *p, u64 now,
					u64 *due, u32 *retry)
{
	struct fq_band *b = fq_band(q, q->band_nr);
	struct bq_list *head;
	struct fq_flow __arena *f;
	struct bq_pkt *h;
	bool is_new;
	u64 t, tnp;
	u32 idx;

	is_new = b->new_flows.head;
	if (b->credit <= 0 || (!is_new && !b->old_flows.head))
		return fq_next_band(q, p, retry);
	head = is_new ? &b->new_flows : &b->old_flows;
	*retry = 0;
	idx = head->head;
	f = fq_flow(inst, idx);
	if (!f)
		return 0;
	if (f->credit <= 0) {
		f->credit += fq_refill(b, head, f, p->quantum);
		fq_list_del(inst, head, f, idx);
		fq_list_add_tail(inst, &fq_band(q, f->band)->old_flows, f, idx);
		f->state = F_OLD;
		return FQ_AGAIN;
	}
	h = bq_askbq_head(inst, &f->q);
	if (h) {
		t = h->time;
		tnp = t > f->time_next_packet ? t : f->time_next_packet;
		if (now >= tnp) {
			*due = tnp;
			return idx;
		}
		fq_list_del(inst, head, f, idx);
		if (fq_tq_set(inst, &q->delayed, tnp, idx)) {
			/*
			 * Flow indexes always fit (timeq.bpf.h); were one not
			 * to, it waits for its next turn, and the others go on.
			 */
			fq_list_add_tail(inst, &fq_band(q, f->band)->old_flows, f, idx);
			f->state = F_OLD;
			return FQ_AGAIN;
		}
		f->throttled_until = tnp;
		f->state = F_THROTTLED;
		inst->cnt.x[X_THROTTLED]++;
		inst->cnt.overlimits++;
		if (q->time_next_delayed_flow > tnp)
			q->time_next_delayed_flow = tnp;
		return FQ_AGAIN;
	}
	fq_list_del(inst, head, f, idx);
	if (is_new) {
		/* One pass through old_flows, against starvation. */
		fq_list_add_tail(inst, &fq_band(q, f->band)->old_flows, f, idx);
		f->state = F_OLD;
	} else {
		/*
		 * age stays when it emptied: sch_fq restarts it here,
		 * so one pass through old_flows would make every idle
		 * flow young again for the collector. refill_delay
		 * counts from here, as sch_fq's.
		 */
		f->state = F_DETACHED;
		f->detached = fq_age_now(now);
		fq_list_add_tail(inst, &q->detached, f, idx);
	}
	return FQ_AGAIN;
}

/*
 * No flow on any band's lists: each step of the round robin is then only
 * a band's turn (fq_next_band), and the search ends after FQ_BANDS of
 * them in a row with credit, more when a band in debt must be refilled.
 */
#define FQ_IDLE_TURNS	(2 * FQ_BANDS)

static __always_inline bool fq_lists_empty(const struct fq_sched *q)
{
	u32 heads = 0, b;

	for (b = 0; b < FQ_BANDS; b++)
		heads |= q->bands[b].new_flows.head | q->bands[b].old_flows.head;
	return !heads;
}

/*
 * Round robin: the flow to send from now; 0: none is ready; FQ_AGAIN: the
 * bounded search gave up before finding one (thousands of flows that
 * must each come round many times for credit), call again.
 */
static __noinline u32 fq_pick(struct bq_instance *inst, struct fq_sched *q,
			      const struct fq_params *p, u64 now, u64 *due)
{
	u32 idx, i, retry = 0;

	/* Usually the first flow may send, or, alone, may after its refill. */
	idx = fq_pick_step(inst, q, p, now, due, &retry);
	if (idx == FQ_AGAIN)
		idx = fq_pick_step(inst, q, p, now, due, &retry);
	if (idx != FQ_AGAIN)
		return idx;
	/*
	 * A lone paced flow has just been throttled: what is left of the
	 * search is the bands' turns, each step a band change; without
	 * the iterator's calls, which would cost as much again.
	 */
	if (fq_lists_empty(q)) {
		for (i = 0; i < FQ_IDLE_TURNS; i++) {
			if (fq_next_band(q, p, &retry) != FQ_AGAIN)
				return 0;
		}
	}
	bpf_for(i, 0, 4 * bq_ring_slots) {
		idx = fq_pick_step(inst, q, p, now, due, &retry);
		if (idx != FQ_AGAIN)
			return idx;
	}
	return FQ_AGAIN;
}

/*
 * qdisc change lowered limit, and cannot touch a packet: the excess goes
 * at the next dequeue, as fq_change drops it at once, through dequeue:
 * what would leave next, each flow charged for its turn, and none of the
 * throttled flows' packets, which fq_change keeps too. Once: limit is per
 * band at enqueue, so a queue over it in all is no excess otherwise, and
 * dropping what is due whenever it was let anyone who holds packets for
 * later (SO_TXTIME) in two bands stop every other sender. True if the
 * trim is not done (the bounded search gave up).
 */
static __noinline bool fq_trim(struct Qdisc *sch, struct bq_instance *inst, struct fq_sched *q,
			       const struct fq_params *p, u64 now)
{
	struct sk_buff *skb;
	struct fq_flow __arena *f;
	u32 i, idx, plen;
	u64 due;

	bpf_for(i, 0, bq_ring_slots) {
		if (sch->q.qlen <= p->limit)
			return false;
		idx = fq_pick(inst, q, p, now, &due);
		if (idx == FQ_AGAIN)
			return true;
		f = idx ? fq_flow(inst, idx) : NULL;
		if (!f)
			return false;	/* nothing due: fq_change's dequeue stops there */
		skb = fq_flow_pop(inst, q, f, now);
		if (!skb)
			return false;
		plen = bq_pkt_len(skb);
		f->credit -= plen;
		fq_band(q, q->band_nr)->credit -= plen;
		bq_drop_queued(sch, inst, skb, BQ_DROP_OVERLIMIT);
	}
	return sch->q.qlen > p->limit;
}

BQ_DEQUEUE(fq)
{
	u64 now, rate, len, due = 0;
	const struct fq_params *p;
	struct bq_instance *inst;
	struct fq_sched *q;
	struct sk_buff *skb;
	struct sock *sk;
	struct fq_flow __arena *f;
	u32 idx, plen;

	/* The kernel dequeues until it gets nothing: half the calls. */
	if (!sch->q.qlen)
		return NULL;
	q = bq_enter(sch, &inst, &p);
	if (!q)
		return NULL;

	skb = bq_skbq_pop(inst, &q->pool, &q->internal);
	if (skb) {
		fq_band_left(q, skb);
		return bq_dequeued(sch, inst, skb);
	}

	now = bpf_ktime_get_ns();
	if (q->time_next_delayed_flow <= now)
		fq_unthrottle(inst, q, now);
	if (p->limit < q->limit_seen)
		q->trimming = 1;
	q->limit_seen = p->limit;
	if (q->trimming)
		q->trimming = fq_trim(sch, inst, q, p, now);
	idx = fq_pick(inst, q, p, now, &due);
	if (idx == FQ_AGAIN) {
		/* sch_fq's search has no bound: ours resumes at once. */
		bpf_qdisc_watchdog_schedule(sch, now, 0);
		return NULL;
	}
	f = idx ? fq_flow(inst, idx) : NULL;
	if (!f) {
		if (q->time_next_delayed_flow != FQ_NONE)
			bpf_qdisc_watchdog_schedule(sch, q->time_next_delayed_flow,
						    p->timer_slack);
		return NULL;
	}
	skb = fq_flow_pop(inst, q, f, now);
	if (!skb)
		return NULL;
	/* The packet sch_fq would mark CE: we can only count it. */
	if (p->ce_threshold && (s64)(now - due - p->ce_threshold) > 0)
		inst->cnt.marks++;

	plen = bq_pkt_len(skb);
	f->credit -= plen;
	fq_band(q, q->band_nr)->credit -= plen;
	if (!p->pacing)
		return bq_dequeued(sch, inst, skb);

	rate = p->maxrate ? p->maxrate : FQ_NONE;
	if (!skb->tstamp) {
		/* No EDT pacing from the sender: pace by its socket's rate. */
		sk = skb->sk;
		if (sk && !(*fq_cb_flags(skb) & FQ_CB_ORPHAN)) {
			u64 sk_rate = sk->sk_pacing_rate;

			if (sk_rate < rate)
				rate = sk_rate;
		}
		if (rate <= p->low_rate_threshold) {
			f->credit = 0;
		} else {
			if (plen < p->quantum)
				plen = p->quantum;
			if (f->credit > 0)
				return bq_dequeued(sch, inst, skb);
		}
	}
	if (rate != FQ_NONE) {
		len = (u64)plen * NSEC_PER_SEC;
		if (rate)
			len /= rate;
		if (len > NSEC_PER_SEC)		/* the rate may change: wait 1 s at most */
			len = NSEC_PER_SEC;
		/* Absorb timer lateness: the previous slot started late. */
		if (f->time_next_packet) {
			u64 late = now - f->time_next_packet;

			len -= late < len / 2 ? late : len / 2;
		}
		f->time_next_packet = now + len;
	}
	return bq_dequeued(sch, inst, skb);
}

/* --- init, reset, destroy ------------------------------------------------ */

/* A zeroed state is empty but for the throttled heap's "nothing due". */
static int fq_setup(struct Qdisc *sch, struct bq_instance *inst, struct fq_sched *q)
{
	struct fq_params *p = (struct fq_params *)bq_kind_params(bq_params_of(inst));

	fq_auto_quanta(sch, p);
	q->time_next_delayed_flow = FQ_NONE;
	q->limit_seen = p->limit;
	q->hash_key[0] = (u64)bpf_get_prandom_u32() << 32 | bpf_get_prandom_u32();
	q->hash_key[1] = (u64)bpf_get_prandom_u32() << 32 | bpf_get_prandom_u32();
	return 0;
}

/*
 * Free every packet, and the pages of every flow, chain and clock: the
 * state is zeroed after (a reset's setup starts from nothing, as .init's).
 * Parameters and counters stay.
 */
static __noinline void fq_purge(struct Qdisc *sch, struct bq_instance *inst, struct fq_sched *q)
{
	bq_pool_purge(sch, inst, &q->pool);
	bq_idmap_free(inst, &q->flow_ids);
	bq_pages_free(inst, &q->flows);
	bq_pages_free(inst, &q->buckets);
	if (q->clocks)
		bq_pages_block_free(inst, q->clocks, FQ_CLOCK_PAGES);
	bq_pages_free(inst, &q->heap);
	inst->cnt.x[X_FLOWS] = 0;
	inst->cnt.x[X_INACTIVE] = 0;
	inst->cnt.x[X_THROTTLED] = 0;
}

BQ_QDISC_OPS(fq, fq_setup, fq_purge);
