// SPDX-License-Identifier: GPL-2.0
/*
 * HBM, credit mode: a cgroup skb egress program that holds the cgroup's
 * egress traffic to a rate (Host Bandwidth Manager, after the 2019 Linux
 * sample; "BPF Host Resource Management", LPC 2018).
 *
 * Nothing is queued here. The program keeps a virtual queue per cgroup, in
 * the cgroup storage of its attachment, as a credit in bytes:
 *
 *   - credit grows at the configured rate while time passes, up to
 *     MAX_CREDIT (100 MTU): the burst an idle cgroup may send at once;
 *   - each packet takes its length (IP bytes, see include/hbm.h) from it;
 *   - negative credit is debt: the bytes a real queue would hold now.
 *
 * What happens to a packet depends on the debt it leaves behind (the
 * verdict is include/hbm_verdict.h's, shared by every HBM program):
 *
 *        drop      drop (> 120 B)        mark                  credit
 *   <-----|-------------|------------------|------------|------------->
 *    -400 MTU       -385 MTU            -40 MTU         0       +100 MTU
 *
 *   any debt: non-TCP packets that are not ECN-capable (UDP...) over 120
 *     bytes are dropped, as in 2019: they have no congestion control that
 *     would hear a mark.
 *   debt < 40 MTU    the others pass.
 *   40 MTU to the drop threshold (the mark region):
 *     - ECN-capable packets get CE; TCP answers like to a loss, but nothing
 *       is lost;
 *     - other TCP packets pass, and with a probability that grows linearly
 *       from 0 at the mark threshold to 1 at the drop threshold the program
 *       returns CN, which makes TCP reduce its cwnd (tcp_enter_cwr).
 *   past the drop threshold: dropped, with CN for TCP that is not
 *     ECN-capable. A dropped TCP skb is not lost: the transmit fails and TCP
 *     sends it again when an ACK comes. Packets under 120 bytes (SYNs, pure
 *     ACKs) may go 15 MTU deeper, so that connections keep working under
 *     full load, and so may a request: the first HBM_INITIAL_QUANTUM bytes
 *     (10 MTU) a TCP flow sends with nothing in flight after it received
 *     data (its turn, per socket in sk storage).
 *
 * Why requests. Nothing queues here, so only who is dropped can favour
 * them. With 1 ms of RTT, 4 flows at the 2-segment minimum window (where
 * the marks keep them) offer 74 Mbit/s: at 50 Mbit/s the rate holds only
 * by drops of flows with at most one packet in flight, which wait for a
 * timer, not an ACK (the peer's delayed ACK, up to 40 ms; with nothing in
 * flight TCP's probe timer, 200 ms or more). A 10 KB request-response flow
 * that took its share of those drops had a P99 of 213-254 ms next to three
 * bulk flows (11 drops with nothing in flight in 5 s); in its turn, 4.7 ms.
 * The bulk flows wait instead, and the hard drop threshold still bounds
 * every packet.
 *
 * A dropped packet gives its bytes back: only what passes uses the rate.
 * Over any interval T the cgroup sends at most rate * T + 100 MTU + the
 * drop threshold, however its senders behave.
 *
 * Traffic over lo is exempt unless HBM_F_LOOPBACK; HBM_F_NO_CN never
 * returns CN. The rate is read from hbm_config on every packet, so user
 * space can change it live (hbm -w, include/hbm.h).
 */
#include "hbm_cg.bpf.h"
#include "hbm_edt.bpf.h"	/* HBM_INITIAL_QUANTUM */

/* 2019's sizes; tools/hbm-study builds others to measure them. */
#ifndef HBM_CREDIT_MTU
#define HBM_CREDIT_MTU		100
#endif
#ifndef HBM_MARK_MTU
#define HBM_MARK_MTU		40
#endif
#define MAX_CREDIT		(HBM_CREDIT_MTU * HBM_MTU)
#define INIT_CREDIT		MAX_CREDIT
#define MARK_THRESH		(HBM_MARK_MTU * HBM_MTU)
#define DROP_THRESH		(400 * HBM_MTU)
#define LARGE_DROP_THRESH	(DROP_THRESH - 15 * HBM_MTU)
/* Longest gap that can earn credit: from the deepest debt to MAX_CREDIT at
 * 1 Mbit/s takes under 5 s. Bounding it keeps the product in 64 bits. */
#define MAX_GAP_SECS		10

char LICENSE[] SEC("license") = "GPL";

/*
 * Bytes earned in gap_ns at rate bytes/s. Whole seconds and the rest apart:
 * rest * rate stays below 1e9 * 1.25e10 < 2^64 at the 100 Gbit/s maximum.
 */
static __always_inline __u64 credit_earned(__u64 gap_ns, __u64 rate)
{
	__u64 secs = gap_ns / NSEC_PER_SEC;

	if (secs >= MAX_GAP_SECS)
		return (__u64)MAX_GAP_SECS * rate;
	return secs * rate + (gap_ns % NSEC_PER_SEC) * rate / NSEC_PER_SEC;
}

/* The time that earns bytes at rate, rounded down; bytes < MAX_GAP_SECS * rate. */
static __always_inline __u64 credit_time_ns(__u64 bytes, __u64 rate)
{
	return bytes / rate * NSEC_PER_SEC + bytes % rate * NSEC_PER_SEC / rate;
}

/*
 * Add the credit earned since the last packet, take this packet's length and
 * return the credit left. Several CPUs send for one cgroup: the lock makes
 * each update see the previous one. A CPU whose "now" is older than the last
 * update adds nothing; the later CPU already credited that time.
 */
static __always_inline __s64 vqueue_take(struct hbm_vqueue *q, __u64 now, __u64 rate, __u64 len)
{
	__u64 earned;
	__s64 credit;

	bpf_spin_lock(&q->lock);
	if (!q->lasttime) {
		q->lasttime = now;
		q->credit = INIT_CREDIT;
	}
	credit = q->credit;
	if (now > q->lasttime) {
		earned = credit_earned(now - q->lasttime, rate);
		credit += earned;
		/*
		 * The clock moves by the time of the whole bytes earned, so the
		 * fraction of a byte is kept for the next packet: rounded away
		 * per packet, it cost 3% of the rate with UDP at 20 Mbit/s.
		 */
		if (credit >= MAX_CREDIT || earned >= MAX_GAP_SECS * rate) {
			credit = credit > MAX_CREDIT ? MAX_CREDIT : credit;
			q->lasttime = now;
		} else {
			q->lasttime += credit_time_ns(earned, rate);
		}
	}
	credit -= len;
	q->credit = credit;
	bpf_spin_unlock(&q->lock);
	return credit;
}

/* Per TCP socket: its turn (the top comment). */
struct hbm_turn {
	__u64 bytes_received;	/* the socket's, when it last started a turn */
	__s64 quantum;		/* bytes of the turn not yet sent */
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct hbm_turn);
} hbm_turns SEC(".maps");

/*
 * Whether the packet goes in its flow's turn: a request, the first bytes a
 * TCP flow sends with nothing in flight after it received data (a bulk
 * flow's ACK clock has packets in flight; a failed transmit, none, but
 * nothing received). The socket's storage takes no lock: TCP sends under
 * the socket's lock.
 */
static __always_inline bool in_turn(struct __sk_buff *skb, const struct hbm_pkt *p)
{
	struct bpf_sock *sk = skb->sk;
	struct hbm_turn *t;

	if (!p->has_tcp_sock || !sk || !(sk = bpf_sk_fullsock(sk)))
		return false;
	t = bpf_sk_storage_get(&hbm_turns, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!t)
		return false;
	if (!p->in_flight && p->bytes_received != t->bytes_received) {
		t->bytes_received = p->bytes_received;
		t->quantum = HBM_INITIAL_QUANTUM;
	}
	if (t->quantum <= 0)
		return false;
	t->quantum -= p->len;
	return true;
}

/*
 * What is not sent does not use the rate: give its bytes back. Under the
 * lock, as vqueue_take writes credit back from what it read: an atomic add
 * between its read and write would be lost.
 */
static __always_inline void vqueue_refund(struct hbm_vqueue *q, __u64 len)
{
	bpf_spin_lock(&q->lock);
	q->credit += len;
	bpf_spin_unlock(&q->lock);
}

/* The rules of the comment at the top, in bytes of debt. */
static const struct hbm_rules credit_rules = {
	.mark = MARK_THRESH, .large_drop = LARGE_DROP_THRESH, .drop = DROP_THRESH,
	.other_drop = 0, .cn_chance = true, .small_other_pass = true,
};

SEC("cgroup_skb/egress")
int hbm_credit(struct __sk_buff *skb)
{
	struct hbm_config *cfg;
	struct hbm_result r = {};
	struct hbm_pkt p = {};
	struct hbm_vqueue *q;
	__u64 now, rate;
	__s64 credit;

	if (!hbm_begin(skb, &cfg, &q, &p))
		return HBM_PASS;
	now = bpf_ktime_get_ns();
	rate = hbm_rate_at(cfg, now);
	credit = vqueue_take(q, now, rate, p.len);
	if (q->rate_seen != rate) {
		hbm_debug(cfg, "rate %llu bytes/s", rate);
		q->rate_seen = rate;
	}

	r.turn = in_turn(skb, &p);
	hbm_judge_pkt(skb, cfg, &credit_rules, &p, -credit, &r);
	if (r.drop) {
		vqueue_refund(q, p.len);
		hbm_debug(cfg, "drop len %llu credit %lld cn %d", p.len, credit, r.cn);
	}
	hbm_account(&p, &r, now, credit);
	return hbm_verdict(&r);
}
