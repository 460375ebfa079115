// SPDX-License-Identifier: GPL-2.0
/*
 * HBM, EDT mode: a cgroup skb egress program that holds the cgroup's egress
 * traffic to a rate by giving each packet an earliest departure time
 * (skb->tstamp). A qdisc that honours departure times (fq, bpf_fq) on the
 * device does the waiting; this program only decides when, and whether.
 *
 * Per cgroup (in the cgroup storage of its attachment) a departure clock:
 *
 *   - a packet leaves at the clock: skb->tstamp = clock (or later, if TCP's
 *     own pacing already asked for later), then clock += len / rate, with
 *     len in IP bytes (include/hbm.h);
 *   - an idle cgroup's clock falls behind now, which is credit for a burst;
 *     it may not fall more than 100 us behind, so the burst is at most
 *     100 us at the rate.
 *
 * How far ahead of now a packet's departure time is, is the queueing delay
 * a real queue would give it, and decides its fate:
 *
 *       pass       mark (CE/CN)          drop (> 120 B)    drop
 *   ------------|-----------------------------|--------------|------>
 *      0       50 us                        480 us         500 us
 *
 *   up to 50 us ahead   pass.
 *   over 50 us ahead (the mark region): ECN-capable packets get CE. Other
 *     TCP packets get CN (the return value's bit 1: tcp_enter_cwr reduces
 *     the cwnd) with a probability growing linearly from 0 at 50 us to 1 at
 *     480 us. Other packets pass: fq delays them, and the drop threshold
 *     bounds how many it holds.
 *   over 480 us ahead (packets over 120 bytes) or 500 us (all): dropped,
 *     with CN for TCP that is not ECN-capable. The 20 us between keep room
 *     for SYNs and ACKs. A dropped TCP skb is not lost: the transmit fails
 *     and TCP sends it again later.
 *   Except: a TCP flow with at most one packet in flight is never dropped.
 *     It gets CN instead, so that every flow keeps two packets in flight and
 *     its ACK clock running, instead of waiting for a timer.
 *
 * A dropped packet gives its time back to the clock. Traffic over lo is
 * exempt unless HBM_F_LOOPBACK; HBM_F_NO_CN never returns CN. The rate is
 * read from hbm_config on every packet (hbm -w changes it live).
 */
#include "hbm.bpf.h"

#define NSEC_PER_USEC		1000ULL
#define BURST_NS		(100 * NSEC_PER_USEC)
#define MARK_THRESH_NS		(50 * NSEC_PER_USEC)
#define DROP_THRESH_NS		(500 * NSEC_PER_USEC)
#define LARGE_DROP_THRESH_NS	(DROP_THRESH_NS - 20 * NSEC_PER_USEC)
#define MARK_REGION_NS		(LARGE_DROP_THRESH_NS - MARK_THRESH_NS)

char LICENSE[] SEC("license") = "GPL";

/* Time to send len bytes at rate bytes/s; len * 1e9 fits in 64 bits. */
static __always_inline __u64 tx_time_ns(__u64 len, __u64 rate)
{
	return len * NSEC_PER_SEC / rate;
}

/*
 * Take the next departure slot of the clock: returns this packet's departure
 * time and advances the clock by its transmission time. The lock orders the
 * CPUs that send for one cgroup.
 */
static __always_inline __u64 clock_take(struct hbm_vqueue *q, __u64 now, __u64 tx_ns)
{
	__u64 send;

	bpf_spin_lock(&q->lock);
	if (q->lasttime + BURST_NS < now)
		q->lasttime = now - BURST_NS;	/* bound the idle credit */
	send = q->lasttime;
	q->lasttime += tx_ns;
	bpf_spin_unlock(&q->lock);
	return send;
}

/* The rules of the comment at the top, for a packet ahead_ns ahead of now. */
static __always_inline void judge(struct __sk_buff *skb, const struct hbm_pkt *p,
				  __s64 ahead_ns, struct hbm_result *r)
{
	if (ahead_ns > (__s64)DROP_THRESH_NS ||
	    (p->len > HBM_SMALL_PKT && ahead_ns > (__s64)LARGE_DROP_THRESH_NS)) {
		r->drop = true;
		r->cn = p->is_tcp && !p->ect;
	} else if (ahead_ns > (__s64)MARK_THRESH_NS) {
		if (p->ect && bpf_skb_ecn_set_ce(skb))
			r->ce = true;
		else if (p->is_tcp)
			r->cn = hbm_chance(ahead_ns - MARK_THRESH_NS, MARK_REGION_NS);
	}
	/* Keep two packets in flight: CN instead of a drop. */
	if (r->drop && p->has_tcp_sock && p->in_flight <= 1) {
		r->drop = false;
		r->cn = true;
	}
}

/* TCP's own departure time (its pacing, a monotonic delivery time) wins if
 * it is later. Other skbs may carry a real-time stamp: replaced. */
static __always_inline void set_departure(struct __sk_buff *skb, const struct hbm_pkt *p,
					  __u64 send)
{
	__u64 tcp_ts = skb->tstamp;

	/* One store at a fixed offset: the verifier refuses ctx pointer math. */
	if (p->is_tcp && tcp_ts > send)
		send = tcp_ts;
	skb->tstamp = send;
}

SEC("cgroup_skb/egress")
int hbm_edt(struct __sk_buff *skb)
{
	struct hbm_config *cfg = hbm_get_config();
	struct hbm_result r = {};
	struct hbm_pkt p = {};
	struct hbm_vqueue *q;
	__u64 now, send, tx_ns;
	__s64 ahead;

	if (!cfg || !cfg->rate)
		return HBM_PASS;
	if (hbm_exempt(skb, cfg)) {
		hbm_count_exempt();
		return HBM_PASS;
	}
	q = bpf_get_local_storage(&hbm_queue, 0);
	if (!q)
		return HBM_PASS;
	hbm_get_pkt(skb, &p);
	now = bpf_ktime_get_ns();
	tx_ns = tx_time_ns(p.len, cfg->rate);
	send = clock_take(q, now, tx_ns);
	ahead = (__s64)(send - now);
	if (q->rate_seen != cfg->rate) {
		hbm_debug(cfg, "rate %llu bytes/s", cfg->rate);
		q->rate_seen = cfg->rate;
	}

	judge(skb, &p, ahead, &r);
	if (cfg->flags & HBM_F_NO_CN)
		r.cn = false;
	if (r.drop) {
		/* What is not sent does not take time. */
		__sync_fetch_and_sub(&q->lasttime, tx_ns);
		hbm_debug(cfg, "drop len %llu ahead %lld ns cn %d", p.len, ahead, r.cn);
	} else {
		set_departure(skb, &p, send);
	}
	hbm_account(&p, &r, now, ahead);
	return hbm_verdict(&r);
}
