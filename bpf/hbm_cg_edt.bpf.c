// SPDX-License-Identifier: GPL-2.0
/*
 * HBM, EDT mode: a cgroup skb egress program that holds the cgroup's egress
 * traffic to a rate by giving each packet an earliest departure time
 * (skb->tstamp). A qdisc that honours departure times (fq, bpf_fq) on the
 * device does the waiting; this program only decides when, and whether.
 *
 * Per cgroup (in the cgroup storage of its attachment) a departure clock:
 *
 *   - a packet leaves at the clock: skb->tstamp = clock, then
 *     clock += len / rate, with len in IP bytes (include/hbm.h);
 *   - an idle cgroup's clock falls behind now, which is credit for a burst;
 *     it may not fall more than the burst time (below) behind.
 *
 * Flows within the cgroup. The clock alone serves packets in the order
 * they came, whoever sent them: an RPC's 10 KB request would wait for every
 * byte of bulk transfer stamped before it, as in htb's FIFO. So a socket
 * none of whose packets is still queued (per socket, in sk storage: the
 * departure time of its last stamped packet, which the qdisc sends whole
 * then) starts a turn: its next HBM_INITIAL_QUANTUM
 * bytes (10 MTU, as sch_fq's new flows; a request fits) leave before the
 * clock's slot, at the rate from now, behind the other turns (a second
 * clock, turn_clock). The clock is charged for them all the same, so the
 * bulk flows' later packets leave that much later and the cgroup keeps its
 * rate: bytes sent ahead are at most what the clock is ahead, and when all
 * flows are short (a web server's) their turns go one after the other at
 * the rate. Bulk flows stay on the clock: TCP small queues keep two of
 * their skbs queued, so they seldom run empty (a stall of the sender can
 * drain one, and it takes a turn, as a flow that empties does in sch_fq).
 * A turn's slot is within the drop horizon (below), or the packet goes on
 * the clock: no packet in a turn is past it, and turns follow one another
 * at the rate. A packet in its turn is judged by its own departure time:
 * judged by the clock's slot, an RPC flow's requests were dropped, or sent
 * on the clock 98 ms ahead, whenever the bulk flows (and the turns charged
 * to the clock) had pushed it past the horizon (test_hbm_rpc: P99 98 ms in
 * one of two rounds, 3.5 ms in the other).
 *
 * How far ahead of now a packet leaves (for a packet on the clock, the
 * queueing delay a FIFO would give it) decides its fate (the verdict is
 * include/hbm_verdict.h's, shared with credit mode and bpf_hbm):
 *
 *       pass         mark (CE)           drop (> 120 B)    drop
 *   ------------|-----------------------------|--------------|------>
 *      0       50 us                        480 us         500 us
 *
 *   up to 50 us ahead   pass.
 *   over 50 us ahead (the mark region): ECN-capable packets get CE. Non-TCP
 *     packets that are not ECN-capable are dropped if over 120 bytes, as in
 *     2019 (which dropped small ones too, a ping next to a busy flow). Other
 *     TCP packets pass: fq delays them, TCP small queues keep each flow from
 *     queueing much more than two skbs, and the drop threshold bounds the
 *     rest.
 *     (The 2019 sample also returned CN here at random, with a probability
 *     growing from 0 at 50 us to 1 at 480 us; with a real queue that cut
 *     cubic's cwnd far below the rate and cost 10-30% of it on veth.)
 *   over 480 us ahead (packets over 120 bytes) or 500 us (all): dropped,
 *     with CN for TCP that is not ECN-capable. The 20 us between keep room
 *     for SYNs and ACKs. A dropped TCP skb is not lost: the transmit fails
 *     and TCP sends it again when an ACK comes.
 *   Except: a TCP flow with at most one packet in flight is never dropped.
 *     It gets CE if ECN-capable and CN if not instead (bpf_hbm does the
 *     same), so that every flow keeps two packets in flight and its ACK
 *     clock running: with nothing in flight a failed transmit waits for
 *     TCP's probe timer (200 ms or more).
 *
 * The times above are those of the 2019 design, made for 10 Gbit/s NICs.
 * Each has a floor in bytes, so that at lower rates it grows (as 1/rate):
 *
 *   threshold   time     bytes                   at 100 Mbit/s   at 50 Mbit/s
 *   burst       100 us   125 KB (100 us @ 10G)   10 ms           20 ms
 *   mark         50 us   2 x 64 KiB (GSO skbs)   10.5 ms         21 ms
 *   drop > 120B 480 us   600 KB (480 us @ 10G)   48 ms           96 ms
 *   drop        500 us   625 KB (500 us @ 10G)   50 ms           100 ms
 *
 * Fixed times fail at low rates: a GSO skb is up to 64 KB (10.5 ms at
 * 50 Mbit/s; on low-RTT paths TCP builds full-size ones, tcp_tso_rtt_log),
 * TCP small queues let each flow queue about two of them, and a 500 us
 * horizon dropped every flow's second skb (11 Mbit/s of 50 measured). Two
 * queued GSO skbs are TSO at work, not congestion: marking at one cost
 * DCTCP 5-10% of the rate on veth. The byte floors of burst and drop are
 * also credit mode's 100 and 400 MTU, give or take.
 *
 * A dropped packet gives its time back to the clock. Traffic over lo is
 * exempt unless HBM_F_LOOPBACK; HBM_F_NO_CN never returns CN. The rate is
 * read from hbm_config on every packet (hbm -w changes it live,
 * include/hbm.h).
 */
#include "hbm_cg.bpf.h"
#include "hbm_edt.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * Take the next departure slot of the clock: returns this packet's departure
 * time and advances the clock by its transmission time. The lock orders the
 * CPUs that send for one cgroup.
 */
static __always_inline __u64 clock_take(struct hbm_vqueue *q, __u64 now, __u64 tx_ns,
					__u64 burst_ns)
{
	__u64 send;

	bpf_spin_lock(&q->lock);
	q->lasttime = hbm_clamp_idle(q->lasttime, now, burst_ns);
	send = q->lasttime;
	q->lasttime += tx_ns;
	bpf_spin_unlock(&q->lock);
	return send;
}

/*
 * What is not sent does not take time: move the clock back by it. Under
 * the lock, as clock_take writes the clock back from what it read.
 */
static __always_inline void clock_refund(struct hbm_vqueue *q, __u64 tx_ns)
{
	bpf_spin_lock(&q->lock);
	q->lasttime -= tx_ns;
	bpf_spin_unlock(&q->lock);
}

/* Per socket: its turn ahead of the cgroup's clock (the top comment). */
struct hbm_flow {
	__u64 depart;		/* ns: when its last packet leaves the qdisc */
	__u64 end;		/* ns: when that packet's last byte is sent at the
				 * rate: its pace, where its next packet goes */
	__s64 quantum;		/* bytes it may still send ahead of the clock */
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct hbm_flow);
} hbm_flows SEC(".maps");

static __always_inline struct hbm_flow *flow_get(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;

	if (!sk)
		return NULL;
	sk = bpf_sk_fullsock(sk);
	if (!sk)
		return NULL;
	return bpf_sk_storage_get(&hbm_flows, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
}

/*
 * Where a turn's slot must be: before the clock's slot (send), and within
 * the drop horizon, so that no packet in a turn is past it.
 */
static __always_inline __u64 turn_bound(__u64 now, __u64 send, __u64 len,
					const struct hbm_thresholds *t)
{
	__u64 horizon = now + (len > HBM_SMALL_PKT ? t->large_drop : t->drop) + 1;

	return send < horizon ? send : horizon;
}

/*
 * Take a turn's departure slot: at own (the flow's pace), after the turns
 * before it; none (send) if that is not before bound.
 */
static __always_inline __u64 turn_take(struct hbm_vqueue *q, __u64 own, __u64 bound,
				       __u64 send, __u64 tx_ns)
{
	bpf_spin_lock(&q->lock);
	if (own < q->turn_clock)
		own = q->turn_clock;
	if (own < bound)
		q->turn_clock = own + tx_ns;
	bpf_spin_unlock(&q->lock);
	return own < bound ? own : send;
}

/*
 * The packet's departure time: the clock's slot (send), or earlier in the
 * flow's turn. f takes no lock: TCP sends under the socket's lock, and a
 * race (UDP from several threads) can only misjudge that flow's turn,
 * while the clock, under q->lock, still counts every byte.
 */
static __always_inline __u64 flow_depart(struct hbm_vqueue *q, struct hbm_flow *f, __u64 now,
					 __u64 send, __u64 bound, __u64 len, __u64 tx_ns)
{
	__u64 depart = send;

	/*
	 * Nothing of it queued: the qdisc sends a whole skb at its departure
	 * time, so its last one has left once that time is past, even if at
	 * the rate its bytes would take longer. (Waiting for f->end instead
	 * kept a request-response flow out of turns for good: its reply came
	 * one RTT after the request left, before the request's tx time at the
	 * rate ran out.)
	 */
	if (f->depart <= now)
		f->quantum = HBM_INITIAL_QUANTUM;
	if (f->quantum > 0) {
		depart = turn_take(q, f->end > now ? f->end : now, bound, send, tx_ns);
		if (depart < send)
			f->quantum -= len;
	}
	f->depart = depart;
	f->end = depart + tx_ns;
	return depart;
}

/* The packet's departure time: in its flow's turn, or the clock's slot. */
static __always_inline __u64 departure(struct __sk_buff *skb, struct hbm_vqueue *q,
				       const struct hbm_pkt *p, __u64 now, __u64 send,
				       __u64 tx_ns, const struct hbm_thresholds *t)
{
	struct hbm_flow *f = flow_get(skb);

	return f ? flow_depart(q, f, now, send, turn_bound(now, send, p->len, t), p->len, tx_ns)
		 : send;
}

SEC("cgroup_skb/egress")
int hbm_edt(struct __sk_buff *skb)
{
	struct hbm_config *cfg;
	struct hbm_result r = {};
	struct hbm_thresholds t;
	struct hbm_rules rules;
	struct hbm_pkt p = {};
	struct hbm_vqueue *q;
	__u64 now, rate, send, depart, tx_ns;
	__s64 ahead;

	if (!hbm_begin(skb, &cfg, &q, &p))
		return HBM_PASS;
	now = bpf_ktime_get_ns();
	rate = hbm_rate_at(cfg, now);
	hbm_get_thresholds(&t, rate);
	tx_ns = hbm_tx_time_ns(p.len, rate);
	send = clock_take(q, now, tx_ns, t.burst);
	/* A packet in its turn is judged by when it leaves, not by the clock. */
	depart = departure(skb, q, &p, now, send, tx_ns, &t);
	ahead = (__s64)(depart - now);
	if (q->rate_seen != rate) {
		hbm_debug(cfg, "rate %llu bytes/s", rate);
		q->rate_seen = rate;
	}

	hbm_edt_rules(&rules, &t);
	hbm_judge_pkt(skb, cfg, &rules, &p, ahead, &r);
	if (r.drop) {
		clock_refund(q, tx_ns);
		hbm_debug(cfg, "drop len %llu ahead %lld ns cn %d", p.len, ahead, r.cn);
	} else {
		/* It replaces TCP's own departure time (its pacing). */
		r.turn = depart < send;
		skb->tstamp = depart;
	}
	hbm_account(&p, &r, now, ahead);
	return hbm_verdict(&r);
}
