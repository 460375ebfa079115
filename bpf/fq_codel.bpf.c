// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_fq_codel: sch_fq_codel's semantics in BPF, from the framework's parts.
 *
 * Why this shape. fq_codel is for a queue that forms at a bottleneck (a
 * router's uplink, a host's slow NIC), where a single FIFO makes every flow
 * wait behind the fattest one. Two ideas fix it, and each needs the other:
 *
 * Flow queueing. Packets are hashed into `flows` buckets (stochastic: two
 * flows may share one) and the buckets take turns by deficit round robin
 * in bytes, `quantum` per turn. A bucket that becomes active goes on
 * new_flows, served before old_flows: a flow that sends less than its
 * share (DNS, ping, a TCP ACK clock) never waits behind bulk, which is the
 * latency win. A new flow that empties goes once through old_flows before
 * it may be new again (when old_flows has anyone), or a flow could stay
 * "new" forever by sending one packet per turn.
 *
 * CoDel per bucket. Fair queueing alone only shares the delay; a bulk TCP
 * flow still fills its own bucket until the limit. CoDel watches each
 * bucket's sojourn time (now minus enqueue time, of the packet about to
 * leave): when it has stayed above `target` for a whole `interval`, the
 * queue is standing rather than a burst, and CoDel drops the head packet,
 * then again at interval / sqrt(count) later while the delay stays above
 * target (TCP halves its window per loss; the sqrt makes the drop rate
 * grow linearly in time until it does). It drops at the head, at dequeue,
 * so the sender learns sooner than from a tail drop: those drops go
 * through the framework's bq_drop_queued() as FQC_DROP_CODEL. On re-entry
 * soon after leaving, it resumes near the last drop rate (count - lastcount)
 * rather than from 1. A queue of at most one MTU in all never counts as
 * standing: a link with one big packet in flight is not bloated.
 *
 * Overflow. At `limit` packets or `memory_limit` bytes of skb memory
 * (truesize, what the host really spends), sch_fq_codel does not tail-drop
 * the arrival: it finds the bucket with the largest backlog (a linear scan,
 * as the kernel does: cheap next to a tree on every packet) and drops from
 * its head up to half of that backlog, at most `drop_batch` packets, so the
 * scan is paid once per batch. The flow that was hit has its CoDel count
 * raised by as many, and the sender gets NET_XMIT_CN if its own flow was it.
 *
 * What a BPF qdisc cannot do, and so what this one does not: mark ECN CE
 * (packet data is read-only to it: docs/fq_codel.md), so `ecn` and
 * `ce_threshold` are not offered: CoDel always drops, as fq_codel with
 * `noecn`. A tc filter or skb->priority cannot pick the bucket either: the
 * packet hash does, as with sch_fq_codel's default classifier.
 *
 * An empty qdisc. sch_fq_codel sets TCQ_F_CAN_BYPASS: a packet that finds
 * it empty goes straight to the device, unhashed, past enqueue, dequeue and
 * CoDel. So does this one on a kernel with tools/kernel-patches/0002
 * (BQ_CAN_BYPASS). On a stock kernel a BPF qdisc cannot set that flag, so
 * such a packet waits in `direct` instead, unhashed (the flow dissector is most of what an
 * enqueue costs), and the next dequeue gives it first. It is the first
 * packet of an empty qdisc, so nothing of its flow is queued before it,
 * and at most one waits there. Like the kernel's bypass it counts in no
 * bucket: not in new_flow_count, memory_used or maxpacket.
 *
 * Memory. Buckets are entries 1..flows in arena pages (bq/pages.bpf.h),
 * each page allocated when a packet first hashes to one of its buckets and
 * freed at reset and destroy: an idle qdisc holds none, where
 * sch_fq_codel allocates its flows at init. The packets sit in the
 * framework's pool, in per-bucket FIFOs (enqueue time is the pool's order
 * key, and it only grows); nothing is allocated per packet.
 */
/* Work-conserving, qlen exact: an empty queue may be bypassed (bq/core.bpf.h). */
#define BQ_CAN_BYPASS 1
#include "bq/core.bpf.h"
#include "bq/pool.bpf.h"
#include "bq/list.bpf.h"
#include "bq/pages.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define NSEC_PER_USEC		1000ULL
#define NSEC_PER_MSEC		1000000ULL
#define NSEC_PER_SEC		1000000000ULL
#define FQC_MAX_FLOWS		(BQ_DEFAULT_RING_SLOTS - 1)	/* index 0 ends a list */

struct fqc_params {
	__u64 limit, flows, quantum, target, interval, memory_limit, drop_batch;
};

BQ_PARAMS(struct fqc_params,
	BQ_PARAM(limit, BQ_UNIT_COUNT, 10240, 1, BQ_DEFAULT_RING_SLOTS - 1),
	BQ_PARAM(flows, BQ_UNIT_COUNT, 1024, 1, FQC_MAX_FLOWS),
	BQ_PARAM(quantum, BQ_UNIT_BYTES, BQ_AUTO, 256, 1 << 20),	/* psched_mtu */
	BQ_PARAM(target, BQ_UNIT_TIME, 5 * NSEC_PER_MSEC, 0, 3600 * NSEC_PER_SEC),
	BQ_PARAM(interval, BQ_UNIT_TIME, 100 * NSEC_PER_MSEC, 1, 3600 * NSEC_PER_SEC),
	BQ_PARAM(memory_limit, BQ_UNIT_BYTES, 32 << 20, 1, 1U << 31),
	BQ_PARAM(drop_batch, BQ_UNIT_COUNT, 64, 1, 1 << 16),
);

enum {
	X_MAXPACKET, X_DROP_OVERLIMIT, X_DROP_OVERMEMORY, X_NEW_FLOW_COUNT,
	X_NEW_FLOWS_LEN, X_OLD_FLOWS_LEN, X_MEMORY_USED, X_DIRECT_PACKETS,
};

BQ_XSTATS(
	{ "maxpacket", BQ_GAUGE },		/* largest packet CoDel looked at */
	{ "drop_overlimit", BQ_COUNTER },	/* dropped in batches at limit */
	{ "drop_overmemory", BQ_COUNTER },	/* of which at memory_limit */
	{ "new_flow_count", BQ_COUNTER },	/* buckets that became active */
	{ "new_flows_len", BQ_GAUGE },
	{ "old_flows_len", BQ_GAUGE },
	{ "memory_used", BQ_GAUGE },		/* truesize of the queued skbs */
	{ "direct_packets", BQ_COUNTER },	/* found the qdisc empty: no bucket */
);

enum { FQC_DROP_CODEL = BQ_DROP_KIND };

BQ_DROP_REASONS(
	{ "codel" },		/* queued too long: CoDel dropped it at dequeue */
);

enum { FQC_IDLE, FQC_NEW, FQC_OLD };	/* the list a bucket is on */

/* A bucket: its packets, its turn in the round robin, its CoDel state. */
struct fqc_flow {
	struct bq_skbq q;
	struct bq_link link;
	__s32 deficit;
	__u32 backlog;		/* bytes queued: what the overflow scan compares */
	__u32 list;
	/* CoDel */
	__u32 count;		/* drops in this dropping state, sets the rate */
	__u32 lastcount;	/* count when the last dropping state began */
	__u32 rec_inv_sqrt;	/* 1 / sqrt(count), Q0.32 */
	__u32 dropping;
	__u64 first_above_time;	/* 0: sojourn below target */
	__u64 drop_next;
};

struct fqc_sched {
	struct bq_pool_state pool;
	struct bq_skbq direct;	/* TCQ_F_CAN_BYPASS's packet: see the top */
	struct bq_list new_flows, old_flows;
	__u64 memory_usage;
	__u32 mtu;		/* psched_mtu of the device: 0 until the first packet */
	__u32 flows_hwm;	/* highest bucket used: what the overflow scan walks */
	struct bq_pages flows;	/* struct fqc_flow by bucket, in pages reached with use */
};

BQ_STATE(struct fqc_sched);

/* Bucket idx, which an enqueue reached (NULL if none has). */
static __always_inline struct fqc_flow __arena *fqc_flow(const struct bq_instance *inst, u32 idx)
{
	return bq_pages_at(&bq_state(inst)->flows, idx, sizeof(struct fqc_flow));
}

BQ_LIST_OPS(fqc_list, struct fqc_flow __arena, fqc_flow)

/* Move bucket f to the tail of old_flows, from wherever it is. */
static __always_inline void fqc_to_old(struct bq_instance *inst, struct fqc_sched *q,
				       struct fqc_flow __arena *f, u32 idx)
{
	if (f->list == FQC_OLD) {
		fqc_list_del(inst, &q->old_flows, f, idx);
	} else {
		fqc_list_del(inst, &q->new_flows, f, idx);
		inst->cnt.x[X_NEW_FLOWS_LEN]--;
		inst->cnt.x[X_OLD_FLOWS_LEN]++;
	}
	fqc_list_add_tail(inst, &q->old_flows, f, idx);
	f->list = FQC_OLD;
}

static __always_inline void fqc_detach(struct bq_instance *inst, struct fqc_sched *q,
				       struct fqc_flow __arena *f, u32 idx)
{
	if (f->list == FQC_OLD) {
		fqc_list_del(inst, &q->old_flows, f, idx);
		inst->cnt.x[X_OLD_FLOWS_LEN]--;
	} else {
		fqc_list_del(inst, &q->new_flows, f, idx);
		inst->cnt.x[X_NEW_FLOWS_LEN]--;
	}
	f->list = FQC_IDLE;
}

/* --- CoDel ---------------------------------------------------------------- */

/*
 * One Newton step towards 1 / sqrt(count): x' = x / 2 * (3 - count * x^2),
 * in Q0.32. Converges quadratically, and count moves by one at a time, so
 * one step per change keeps it close without a divide or a sqrt.
 */
static __always_inline void fqc_newton_step(struct fqc_flow __arena *f)
{
	u64 x = f->rec_inv_sqrt;
	u64 x2 = (x * x) >> 32;
	u64 v = (3ULL << 32) - (u64)f->count * x2;

	v >>= 2;			/* room for the multiply below */
	f->rec_inv_sqrt = (v * x) >> 31;
}

/* t + interval / sqrt(count), in two halves: interval * 2^32 overflows. */
static __always_inline u64 fqc_control_law(const struct fqc_flow __arena *f, u64 t, u64 interval)
{
	u64 x = f->rec_inv_sqrt;

	return t + (interval >> 32) * x + (((interval & 0xffffffffULL) * x) >> 32);
}

/*
 * Should the head packet h (NULL: f is empty) go? True once the sojourn
 * has stayed at or above target for interval, with more than an MTU queued
 * besides it (sch_fq_codel looks at the qdisc's backlog, not the bucket's).
 */
static __always_inline bool fqc_should_drop(struct Qdisc *sch, struct bq_instance *inst,
					    struct fqc_sched *q, const struct fqc_params *p,
					    struct fqc_flow __arena *f, struct bq_pkt *h, u64 now)
{
	if (!h) {
		f->first_above_time = 0;
		return false;
	}
	if (h->aux > inst->cnt.x[X_MAXPACKET])
		inst->cnt.x[X_MAXPACKET] = h->aux;
	if (now - h->time < p->target || sch->qstats.backlog - h->aux <= q->mtu) {
		f->first_above_time = 0;
		return false;
	}
	if (!f->first_above_time) {
		f->first_above_time = now + p->interval;
		return false;
	}
	return now > f->first_above_time;
}

/* Free f's head packet, counted as CoDel's or the overflow's drop. */
static __always_inline void fqc_drop_head(struct Qdisc *sch, struct bq_instance *inst,
					  struct fqc_sched *q, struct fqc_flow __arena *f,
					  enum bq_drop_reason why)
{
	struct sk_buff *skb = bq_askbq_pop(inst, &q->pool, &f->q);

	if (!skb)
		return;
	f->backlog -= bq_pkt_len(skb);
	q->memory_usage -= skb->truesize;
	inst->cnt.x[X_MEMORY_USED] = q->memory_usage;
	bq_drop_queued(sch, inst, skb, why);
}

/* Drops while the next drop is due and the queue stays bad. */
#define FQC_DROPS_MAX	1024

/*
 * CoDel's dequeue on bucket f, up to the packet that may leave, which it
 * leaves at the head; false if f emptied. The state machine of
 * codel_dequeue(): enter the dropping state on a bad queue, drop at the
 * control law's times while in it, leave as soon as a head packet is good.
 */
static __noinline bool fqc_codel(struct Qdisc *sch, struct bq_instance *inst,
				 struct fqc_flow __arena *f, u64 now)
{
	const struct fqc_params *p = bq_kind_params(bq_params_of(inst));
	struct fqc_sched *q = bq_state(inst);
	struct bq_pkt *h = bq_askbq_head(inst, &f->q);
	bool drop;
	u32 delta, i;

	if (!h) {
		f->dropping = 0;
		return false;
	}
	drop = fqc_should_drop(sch, inst, q, p, f, h, now);
	if (f->dropping) {
		if (!drop) {
			f->dropping = 0;
			return true;
		}
		bpf_for(i, 0, FQC_DROPS_MAX) {
			if (!f->dropping || now < f->drop_next)
				break;
			f->count++;
			fqc_newton_step(f);
			fqc_drop_head(sch, inst, q, f, FQC_DROP_CODEL);
			h = bq_askbq_head(inst, &f->q);
			if (!fqc_should_drop(sch, inst, q, p, f, h, now))
				f->dropping = 0;
			else
				f->drop_next = fqc_control_law(f, f->drop_next, p->interval);
		}
	} else if (drop) {
		fqc_drop_head(sch, inst, q, f, FQC_DROP_CODEL);
		h = bq_askbq_head(inst, &f->q);
		fqc_should_drop(sch, inst, q, p, f, h, now);
		f->dropping = 1;
		/* Back soon after the last time: resume near its drop rate. */
		delta = f->count - f->lastcount;
		if (delta > 1 && (s64)(now - f->drop_next - 16 * p->interval) < 0) {
			f->count = delta;
			fqc_newton_step(f);
		} else {
			f->count = 1;
			f->rec_inv_sqrt = ~0U;
		}
		f->lastcount = f->count;
		f->drop_next = fqc_control_law(f, now, p->interval);
	}
	return f->q.len;
}

/* --- enqueue ------------------------------------------------------------- */

/*
 * The bucket with the largest backlog loses up to half of it from the
 * head (at least one packet), at most drop_batch, and its CoDel count
 * grows by as many.
 * Its index (0: none).
 */
static __noinline u32 fqc_drop_batch(struct Qdisc *sch, struct bq_instance *inst,
				     struct fqc_sched *q, const struct fqc_params *p)
{
	u32 i, fat = 0, maxbacklog = 0, threshold, len = 0;
	struct fqc_flow __arena *f;

	bpf_for(i, 1, q->flows_hwm + 1) {
		f = fqc_flow(inst, i);
		if (f && f->backlog > maxbacklog) {
			maxbacklog = f->backlog;
			fat = i;
		}
	}
	f = fat ? fqc_flow(inst, fat) : NULL;
	if (!f)
		return 0;
	threshold = maxbacklog >> 1;
	bpf_for(i, 0, p->drop_batch) {
		struct bq_pkt *h = bq_askbq_head(inst, &f->q);

		if (!h || (i && len >= threshold))	/* at least one */
			break;
		len += h->aux;
		fqc_drop_head(sch, inst, q, f, BQ_DROP_OVERLIMIT);
		/* a counter in memory, not a register the verifier would follow */
		f->count++;
	}
	return fat;
}

/* One batch of fqc_drop_batch, counted as the overflow's; its bucket. */
static __noinline u32 fqc_overflow(struct Qdisc *sch, struct bq_instance *inst,
				   struct fqc_sched *q, const struct fqc_params *p)
{
	bool memory_limited = q->memory_usage > p->memory_limit;
	u32 dropped = sch->q.qlen, fat;

	fat = fqc_drop_batch(sch, inst, q, p);
	dropped -= sch->q.qlen;
	inst->cnt.x[X_DROP_OVERLIMIT] += dropped;
	if (memory_limited)
		inst->cnt.x[X_DROP_OVERMEMORY] += dropped;
	return fat;
}

/* sch_fq_codel's quantum and CoDel's mtu: psched_mtu, MTU plus link header. */
static __noinline void fqc_auto(struct Qdisc *sch, struct fqc_sched *q, struct fqc_params *p)
{
	struct net_device *dev = BPF_CORE_READ(sch, dev_queue, dev);
	u64 mtu = BPF_CORE_READ(dev, mtu) + BPF_CORE_READ(dev, hard_header_len);

	if (mtu > 1 << 20)
		mtu = 1 << 20;
	q->mtu = mtu;
	if (p->quantum == BQ_AUTO)
		p->quantum = mtu < 256 ? 256 : mtu;
}

BQ_ENQUEUE(fq_codel)
{
	const struct fqc_params *p;
	struct bq_instance *inst;
	struct fqc_sched *q = bq_enter(sch, &inst, &p);
	u32 idx, nflows, len, truesize;
	struct fqc_flow __arena *f;
	int ret;

	if (!q)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_NO_INSTANCE);
	if (!sch->q.qlen) {
		ret = bq_skbq_push(sch, inst, &q->pool, &q->direct, skb, 0, 0, to_free);
		if (ret == NET_XMIT_SUCCESS)
			inst->cnt.x[X_DIRECT_PACKETS]++;
		return ret;
	}
	/* A bucket per flow hash, as reciprocal_scale() spreads it. */
	nflows = p->flows;
	idx = (((u64)bpf_skb_get_hash(skb) * nflows) >> 32) + 1;
	f = bq_pages_reach(inst, &q->flows, idx, sizeof(struct fqc_flow));
	if (!f)
		return bq_drop(sch, inst, skb, to_free, BQ_DROP_NOMEM);
	len = bq_pkt_len(skb);
	truesize = skb->truesize;
	/* The enqueue time orders the bucket's FIFO and gives the sojourn. */
	ret = bq_askbq_push(sch, inst, &q->pool, &f->q, skb, bpf_ktime_get_ns(), len, to_free);
	if (ret != NET_XMIT_SUCCESS)
		return ret;
	f->backlog += len;
	if (idx > q->flows_hwm)
		q->flows_hwm = idx;
	if (f->list == FQC_IDLE) {
		fqc_list_add_tail(inst, &q->new_flows, f, idx);
		f->list = FQC_NEW;
		f->deficit = p->quantum;
		inst->cnt.x[X_NEW_FLOW_COUNT]++;
		inst->cnt.x[X_NEW_FLOWS_LEN]++;
	}
	q->memory_usage += truesize;
	inst->cnt.x[X_MEMORY_USED] = q->memory_usage;
	if (sch->q.qlen <= p->limit && q->memory_usage <= p->memory_limit)
		return NET_XMIT_SUCCESS;
	return fqc_overflow(sch, inst, q, p) == idx ? NET_XMIT_CN : NET_XMIT_SUCCESS;
}

/* --- dequeue ------------------------------------------------------------- */

/* Turns of the round robin one dequeue may take before it lets go. */
#define FQC_TURNS_MAX	4096

/*
 * One turn: the bucket at the head of new_flows, else of old_flows, gets
 * more deficit and goes to the back, or CoDel runs on it and it may send,
 * or it emptied and leaves. Its index if it may send, 0 if no bucket is
 * active, FQC_AGAIN to take another turn.
 */
#define FQC_AGAIN	(~0U)

/*
 * qdisc change lowered limit, and cannot touch a packet: the excess goes
 * at the next dequeue, where sch_fq_codel's change drops it at once. As
 * its change does, through the buckets in turn, a head packet each: not
 * by fattest bucket, whose search over every bucket for every batch held
 * this one dequeue for seconds. Not for memory_limit: a batch at enqueue
 * may leave the queue above it, and sch_fq_codel's dequeue leaves it so too.
 */
static __noinline void fqc_trim(struct Qdisc *sch, struct bq_instance *inst,
				struct fqc_sched *q, const struct fqc_params *p)
{
	struct fqc_flow __arena *f;
	u32 i, idx;

	bpf_for(i, 0, BQ_DEFAULT_RING_SLOTS) {
		idx = q->new_flows.head ?: q->old_flows.head;
		f = idx && sch->q.qlen > p->limit ? fqc_flow(inst, idx) : NULL;
		if (!f)
			break;
		fqc_drop_head(sch, inst, q, f, BQ_DROP_OVERLIMIT);
		inst->cnt.x[X_DROP_OVERLIMIT]++;
		if (f->q.len)
			fqc_to_old(inst, q, f, idx);
		else
			fqc_detach(inst, q, f, idx);
	}
}


static __always_inline u32 fqc_turn(struct Qdisc *sch, struct bq_instance *inst,
				    struct fqc_sched *q, const struct fqc_params *p, u64 now)
{
	bool is_new = q->new_flows.head;
	u32 idx = is_new ? q->new_flows.head : q->old_flows.head;
	struct fqc_flow __arena *f;

	if (!idx)
		return 0;
	f = fqc_flow(inst, idx);
	if (!f)
		return 0;
	if (f->deficit <= 0) {
		f->deficit += p->quantum;
		fqc_to_old(inst, q, f, idx);
		return FQC_AGAIN;
	}
	if (fqc_codel(sch, inst, f, now))
		return idx;
	/* Emptied: a new bucket passes through old_flows once, against starvation. */
	if (is_new && q->old_flows.head)
		fqc_to_old(inst, q, f, idx);
	else
		fqc_detach(inst, q, f, idx);
	return FQC_AGAIN;
}

BQ_DEQUEUE(fq_codel)
{
	const struct fqc_params *p;
	struct bq_instance *inst;
	struct fqc_sched *q;
	struct sk_buff *skb;
	struct fqc_flow __arena *f;
	u32 idx = FQC_AGAIN, i;
	u64 now;

	q = bq_enter(sch, &inst, &p);
	if (!q)
		return NULL;
	if (q->direct.len)
		return bq_dequeued(sch, inst, bq_skbq_pop(inst, &q->pool, &q->direct));
	/*
	 * Not a shortcut on qlen 0: as sch_fq_codel's, the call that finds
	 * nothing takes the emptied buckets off the lists, so that their
	 * next packet is a new flow's again.
	 */
	if (!q->new_flows.head && !q->old_flows.head)
		return NULL;
	if (sch->q.qlen > p->limit)
		fqc_trim(sch, inst, q, p);
	now = bpf_ktime_get_ns();
	bpf_for(i, 0, FQC_TURNS_MAX) {
		idx = fqc_turn(sch, inst, q, p, now);
		if (idx != FQC_AGAIN)
			break;
	}
	if (idx == FQC_AGAIN) {
		/* sch_fq_codel's loop has no bound: ours resumes at once. */
		bpf_qdisc_watchdog_schedule(sch, now, 0);
		return NULL;
	}
	f = idx ? fqc_flow(inst, idx) : NULL;
	if (!f)
		return NULL;
	skb = bq_askbq_pop(inst, &q->pool, &f->q);
	if (!skb)
		return NULL;
	f->backlog -= bq_pkt_len(skb);
	f->deficit -= bq_pkt_len(skb);
	q->memory_usage -= skb->truesize;
	inst->cnt.x[X_MEMORY_USED] = q->memory_usage;
	return bq_dequeued(sch, inst, skb);
}

/* --- init, reset, destroy ------------------------------------------------ */

/* A zeroed state is empty: no bucket active, CoDel idle everywhere. */
static int fqc_setup(struct Qdisc *sch, struct bq_instance *inst, struct fqc_sched *q)
{
	fqc_auto(sch, q, (struct fqc_params *)bq_kind_params(bq_params_of(inst)));
	return 0;
}

/* Free every packet, and the pages of every bucket: zeroed ones come with use. */
static __noinline void fqc_purge(struct Qdisc *sch, struct bq_instance *inst,
				 struct fqc_sched *q)
{
	bq_pool_purge(sch, inst, &q->pool);
	bq_pages_free(inst, &q->flows);
	inst->cnt.x[X_NEW_FLOWS_LEN] = 0;
	inst->cnt.x[X_OLD_FLOWS_LEN] = 0;
	inst->cnt.x[X_MEMORY_USED] = 0;
}

BQ_QDISC_OPS(fq_codel, fqc_setup, fqc_purge);
