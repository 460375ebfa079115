// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_las: least attained service, as a rank function (foreground-
 * background scheduling, Kleinrock; Rai et al., SIGMETRICS 2003).
 *
 * A packet's rank is what its flow has sent through this qdisc so far,
 * in bytes (its attained service); the flow's count then grows by the
 * packet's length. The rank queue (bq/rank.bpf.h) serves the least rank
 * first: a new flow goes ahead of every flow that has sent more, so short
 * flows finish as if the long ones were not there, and long flows, which
 * the queue serves least-sent first, share what is left about equally.
 * Sizes need not be known (where SRPT needs them, bpf_srpt). PIFO's
 * transaction is one line (p.rank = attained service); ours is two:
 * the count before the packet, which it then grows (fetch and add; the
 * qdisc's lock is held, so no atomic is needed, it only reads well). A
 * packet of a flow the table has no room for is ranked 0.
 *
 * A flow is its packets' hash (bpf_skb_get_hash): for a local sender the
 * socket's (sk_txhash, random per socket, so a new connection starts at 0
 * even where an old socket's memory is reused; TCP draws a new one after
 * a timeout, which starts that flow afresh), for forwarded packets the
 * flow dissector's hash of addresses, protocol and ports. Counts are kept
 * per flow in an LRU hash (las_sent, --class-slots per instance), named by
 * the qdisc's generation and its resets: a reset forgets them, and a flow
 * the table lost to newer ones starts at 0 again.
 *
 * The window: rank_shift 10, rank_order 14 by default, 2^14 buckets of
 * 1 KB (less than a packet, so a flow's packets are told apart): 16 MB of
 * attained service. Flows whose counts lie within 16 MB of the least
 * queued are served exactly by count. A flow more than 16 MB past it, a
 * long one, is clamped to the window's far end (counted in clamped),
 * where long flows keep arrival order: behind every shorter flow. When
 * only long flows are queued the window follows their counts, which rise
 * together (the least served first), and a new flow's first packets,
 * more than 16 MB below them, are clamped to the near end (counted too):
 * served first. Either way short before long. The window is read when
 * the qdisc is created or reset.
 */
#include "bq/core.bpf.h"
#include "bq/rank.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define LAS_FLOWS	1024

BQ_CLASS_SLOTS(LAS_FLOWS);

struct las_params {
	__u64 limit, rank_shift, rank_order;
};

BQ_PARAMS(struct las_params,
	BQ_RANK_LIMIT_PARAM(10000),
	BQ_RANK_WINDOW_PARAMS_ORDER(10, 14),
);

BQ_RANK_XSTATS();

/* Bytes sent by flow (its hash). */
BQ_SLOT_MAP(las_sent, BPF_MAP_TYPE_LRU_HASH, struct bq_class_key, __u64, BQ_PER_CLASS(LAS_FLOWS), 0);

struct las_sched {
	struct bq_pifo pifo;
};

BQ_STATE(struct las_sched);

BQ_RANK(las, struct las_sched)
{
	__u64 *sent = bq_rank_value(&las_sent, inst, bpf_skb_get_hash(skb));

	return sent ? __sync_fetch_and_add(sent, bq_pkt_len(skb)) : 0;
}

BQ_RANK_WINDOW_SETUP(las_setup, struct las_sched)

BQ_RANK_QDISC(las, struct las_sched, las_rank, BQ_RANK_NOTHING_SERVED, las_setup, BQ_NO_RELEASE);
