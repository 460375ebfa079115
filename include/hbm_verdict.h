/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HBM's verdict on a packet, written once for every HBM program: the credit
 * and EDT cgroup egress programs (bpf/hbm_cg.bpf.c, bpf/hbm_cg_edt.bpf.c)
 * and the bpf_hbm qdisc (bpf/hbm.bpf.c). A pure function of the packet and
 * how deep its virtual queue is; each program applies what it can (a qdisc
 * cannot return CN, and its CE comes from hbm_mark). With it the IP bytes
 * a packet counts (hbm_ip_bytes), from what each program's context has.
 *
 * Depth is the queue a FIFO would hold ahead of the packet: bytes of debt
 * in credit mode, ns ahead of now in EDT mode. The rules, as in 2019:
 *   - over drop, or over large_drop for packets over HBM_SMALL_PKT not in
 *     their flow's turn: dropped,
 *     with CN for TCP that is not ECN-capable. Except (keep_ack_clock) a TCP
 *     packet of a socket with at most one packet in flight: it passes with
 *     CE if ECN-capable and CN if not, so that its ACK clock keeps running
 *     rather than wait for a probe timer;
 *   - over mark: CE for ECN-capable packets, TCP or not; other TCP packets
 *     get CN with a chance growing from 0 at mark to 1 at large_drop if
 *     cn_chance;
 *   - non-TCP packets that are not ECN-capable, over HBM_SMALL_PKT bytes
 *     when small_other_pass, are dropped over other_drop: they have no
 *     congestion control that would hear a mark.
 *
 * Included by BPF (after vmlinux.h) and by the unit test (after
 * linux/types.h and stdbool.h), after hbm.h.
 */
#ifndef HBM_VERDICT_H
#define HBM_VERDICT_H

/* One mode's levels, in its unit of depth. */
struct hbm_rules {
	__s64 mark, large_drop, drop, other_drop;
	bool cn_chance;		/* CN by chance between mark and large_drop */
	bool keep_ack_clock;	/* TCP with <= 1 packet in flight is not dropped */
	bool small_other_pass;	/* non-TCP packets <= HBM_SMALL_PKT bytes pass */
};

/* What the verdict depends on. */
struct hbm_judged {
	__s64 depth;
	__u64 len;		/* IP bytes */
	bool is_tcp;
	bool ect;		/* ECN field not 0 */
	bool few_in_flight;	/* TCP socket with at most one packet in flight */
	bool in_turn;		/* in its flow's turn: only drop stops it, as a
				 * small packet (credit mode's requests) */
	__u32 chance;		/* uniformly random, for cn_chance */
};

/* The verdict and the signals that go with it. */
struct hbm_verdict_flags {
	bool drop;
	bool cn;		/* ask TCP to reduce its cwnd */
	bool ce;		/* set CE */
	bool exempt;		/* past the horizon, passed for its ACK clock */
	bool marked;		/* deeper than mark: counted as marked */
};

/* In flight as tcp_packets_in_flight(): sent, not yet known to have left. */
static __always_inline __u32 hbm_in_flight(__u32 packets_out, __u32 sacked_out, __u32 lost_out,
					   __u32 retrans_out)
{
	return packets_out - (sacked_out + lost_out) + retrans_out;
}

/*
 * The IP bytes a packet counts (include/hbm.h: every segment as it will be
 * on the wire): a GSO packet holds one segment's headers and the payload of
 * all, so the other segs - 1 segments add their headers. first: the IP bytes
 * of the packet as it is; seg_hdr: one segment's IP and transport headers.
 * The cgroup programs parse seg_hdr, the qdisc derives it from tc's pkt_len.
 */
static __always_inline __u64 hbm_ip_bytes(__u32 first, __u32 segs, __u32 seg_hdr)
{
	return segs > 1 ? first + (__u64)(segs - 1) * seg_hdr : first;
}

/* An idle clock falls behind now by at most burst: idle credit is bounded. */
static __always_inline __u64 hbm_clamp_idle(__u64 clock, __u64 now, __u64 burst)
{
	return clock + burst < now ? now - burst : clock;
}

static __always_inline bool hbm_past_drop(const struct hbm_rules *r, const struct hbm_judged *p)
{
	return p->depth > r->drop ||
	       (p->len > HBM_SMALL_PKT && !p->in_turn && p->depth > r->large_drop);
}

static __always_inline struct hbm_verdict_flags hbm_judge(const struct hbm_rules *r,
							  const struct hbm_judged *p)
{
	struct hbm_verdict_flags v = { .marked = p->depth > r->mark };
	bool other = !p->is_tcp && !p->ect;
	__s64 region = r->large_drop - r->mark;

	if (hbm_past_drop(r, p)) {
		if (r->keep_ack_clock && p->is_tcp && p->few_in_flight) {
			v.exempt = true;
			v.ce = p->ect;
			v.cn = !p->ect;
		} else {
			v.drop = true;
			v.cn = p->is_tcp && !p->ect;
		}
		return v;
	}
	if (other && p->depth > r->other_drop && !(r->small_other_pass && p->len <= HBM_SMALL_PKT)) {
		v.drop = true;
		return v;
	}
	if (!v.marked)
		return v;
	if (p->ect)
		v.ce = true;
	else if (p->is_tcp && r->cn_chance && region > 0)
		v.cn = p->chance % (__u64)region < (__u64)(p->depth - r->mark);
	return v;
}

#endif /* HBM_VERDICT_H */
