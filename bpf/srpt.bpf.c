// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_srpt: shortest remaining processing time first, as a rank function
 * (pFabric, Alizadeh et al., SIGCOMM 2013, ranks packets so).
 *
 * A packet's rank is the bytes its flow has still to deliver, and the
 * rank queue (bq/rank.bpf.h) serves the least first: the flow nearest to
 * its end goes first, which minimises the mean completion time when sizes
 * are known. PIFO's transaction is one line (p.rank = remaining size);
 * ours is two.
 *
 * Where the remaining size comes from: for a packet of a local TCP socket
 * (bq_tcp_sock), the bytes the application has written and the peer has
 * not yet acknowledged, tcp_sock's write_seq - snd_una, read as the packet
 * is queued. A short message written at once ranks by its size and goes
 * down as it is acknowledged; a bulk sender that keeps its send buffer
 * full ranks by that buffer (up to tcp_wmem's 4 MB by default); an
 * application that writes in small pieces shows only what it has written,
 * so looks short (its size is what the kernel knows, not what it means
 * to send). Any other packet (UDP, forwarded, a SYN-ACK) tells the qdisc
 * nothing, so its rank is its mark if it has one (a sender's SO_MARK, a
 * firewall's or a tc filter's estimate: the way to tell sizes of
 * forwarded flows, as pFabric's hosts write them in the header), else the
 * parameter remaining (default 4 MB: a bulk TCP sender's full buffer, so
 * untold traffic shares the back of the queue with bulk flows).
 *
 * The window: rank_shift 8, rank_order 18 by default, 2^18 buckets of 256
 * bytes, 64 MB: every TCP socket's unacknowledged bytes (under 64 MB
 * unless tcp_wmem allows more) are ordered exactly to 256 bytes; a larger
 * mark is clamped to the far end (counted in clamped). The window is read
 * when the qdisc is created or reset.
 */
#include "bq/core.bpf.h"
#include "bq/rank.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct srpt_params {
	__u64 limit, remaining, rank_shift, rank_order;
};

BQ_PARAMS(struct srpt_params,
	BQ_RANK_LIMIT_PARAM(10000),
	BQ_PARAM(remaining, BQ_UNIT_BYTES, 4 << 20, 0, 1ULL << 40),
	BQ_RANK_WINDOW_PARAMS(8),
);

BQ_RANK_XSTATS();

struct srpt_sched {
	struct bq_pifo pifo;
};

BQ_STATE(struct srpt_sched);

BQ_RANK(srpt, struct srpt_sched)
{
	struct tcp_sock *tp = bq_tcp_sock(skb);

	return tp ? tp->write_seq - tp->snd_una : skb->mark ?: p->remaining;
}

BQ_RANK_WINDOW_SETUP(srpt_setup, struct srpt_sched)

BQ_RANK_QDISC(srpt, struct srpt_sched, srpt_rank, BQ_RANK_NOTHING_SERVED, srpt_setup, BQ_NO_RELEASE);
