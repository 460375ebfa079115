/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two HBM cgroup egress programs share: maps, packet parsing,
 * verdicts and statistics. The algorithms are in bpf/hbm_cg.bpf.c (credit) and
 * bpf/hbm_cg_edt.bpf.c (earliest departure time); include/hbm.h describes the
 * maps and what a rate counts.
 */
#ifndef HBM_CG_BPF_H
#define HBM_CG_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "hbm.h"
#include "hbm_verdict.h"

#define ETH_P_IP		0x0800
#define ETH_P_IPV6		0x86DD
#define IPPROTO_TCP		6
#define IPPROTO_UDP		17
#define INET_ECN_MASK		3
#define LOOPBACK_IFINDEX	1	/* lo is ifindex 1 in every netns */

#define NSEC_PER_SEC		1000000000ULL
#define HBM_MTU			1500	/* bytes: the unit of the thresholds */

/*
 * The virtual queue of one cgroup, in the cgroup storage of its attachment.
 * Credit mode: lasttime is when credit was last added. EDT mode: lasttime is
 * the departure clock, the time the next packet may leave, and turn_clock
 * the one of the flows in their turn ahead of it.
 */
struct hbm_vqueue {
	struct bpf_spin_lock lock;
	__u32 pad;
	__u64 lasttime;		/* ns, bpf_ktime_get_ns() */
	__s64 credit;		/* bytes; credit mode only */
	__u64 rate_seen;	/* the rate last used, to log changes */
	__u64 turn_clock;	/* ns; EDT mode only */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hbm_config);
} hbm_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hbm_stats);
} hbm_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_STORAGE);
	__type(key, struct bpf_cgroup_storage_key);
	__type(value, struct hbm_vqueue);
} hbm_queue SEC(".maps");

/* What the programs need to know about a packet. */
struct hbm_pkt {
	__u64 len;		/* IP bytes, each GSO segment's headers counted */
	__u32 hdr_len;		/* IP + L4 header bytes of one segment */
	bool is_tcp;
	bool ect;		/* ECN field not 0: ECT(0), ECT(1) or CE */
	bool has_tcp_sock;	/* the fields below are valid */
	__u32 cwnd;
	__u32 srtt_us;
	__u32 in_flight;	/* segments sent and not yet known to have left
				 * the network, as tcp_packets_in_flight() */
	__u64 bytes_received;	/* payload bytes the socket has received */
};

/* The verdict on a packet and the signals that went with it. */
struct hbm_result {
	bool drop;
	bool cn;		/* ask TCP to reduce its cwnd */
	bool ce;		/* CE was set in the IP header */
	bool turn;		/* EDT: it leaves in its flow's turn */
	bool exempt;		/* past the drop horizon, passed (hbm_verdict.h) */
};

static __always_inline struct hbm_config *hbm_get_config(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&hbm_config, &zero);
}

#define hbm_debug(cfg, fmt, ...)					\
	do {								\
		if ((cfg)->flags & HBM_F_DEBUG)				\
			bpf_printk("hbm: " fmt, ##__VA_ARGS__);		\
	} while (0)

/* Loopback traffic never leaves the host: exempt unless asked (-l). */
static __always_inline bool hbm_exempt(struct __sk_buff *skb, struct hbm_config *cfg)
{
	return skb->ifindex == LOOPBACK_IFINDEX && !(cfg->flags & HBM_F_LOOPBACK);
}

/* IP header length, L4 protocol and ECN field from the network header. */
static __always_inline int hbm_parse_ip(struct __sk_buff *skb, __u32 *l4_off,
					__u8 *proto, __u8 *ecn)
{
	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		struct iphdr ip;

		if (bpf_skb_load_bytes(skb, 0, &ip, sizeof(ip)))
			return -1;
		*l4_off = ip.ihl * 4;
		*proto = ip.protocol;
		*ecn = ip.tos & INET_ECN_MASK;
		return 0;
	}
	if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr ip6;

		if (bpf_skb_load_bytes(skb, 0, &ip6, sizeof(ip6)))
			return -1;
		/* Extension headers are rare on egress TCP: not walked. */
		*l4_off = sizeof(ip6);
		*proto = ip6.nexthdr;
		*ecn = (ip6.flow_lbl[0] >> 4) & INET_ECN_MASK;
		return 0;
	}
	return -1;
}

/* L4 header length: TCP's data offset, UDP's 8 bytes, else 0. */
static __always_inline __u32 hbm_l4_hdr_len(struct __sk_buff *skb, __u32 off, __u8 proto)
{
	__u8 doff;

	if (proto == IPPROTO_UDP)
		return 8;
	if (proto != IPPROTO_TCP || bpf_skb_load_bytes(skb, off + 12, &doff, 1))
		return 0;
	return (doff >> 4) * 4;
}

/* cwnd, RTT and packets in flight of the sending TCP socket, if any. */
static __always_inline void hbm_tcp_info(struct __sk_buff *skb, struct hbm_pkt *p)
{
	struct bpf_sock *sk = skb->sk;
	struct bpf_tcp_sock *tp;

	if (!sk)
		return;
	sk = bpf_sk_fullsock(sk);
	if (!sk || sk->protocol != IPPROTO_TCP)
		return;
	tp = bpf_tcp_sock(sk);
	if (!tp)
		return;
	p->has_tcp_sock = true;
	p->cwnd = tp->snd_cwnd;
	p->srtt_us = tp->srtt_us >> 3;	/* the kernel keeps srtt << 3 */
	p->in_flight = hbm_in_flight(tp->packets_out, tp->sacked_out, tp->lost_out, tp->retrans_out);
	p->bytes_received = tp->bytes_received;
}

/*
 * skb->len is one IP packet, or for GSO one set of headers plus all the
 * payload: count the headers of every segment it will become (hbm_ip_bytes),
 * so that the rate is what goes on the wire at the IP layer.
 */
static __always_inline void hbm_get_pkt(struct __sk_buff *skb, struct hbm_pkt *p)
{
	__u32 l4_off = 0, segs = skb->gso_segs;
	__u8 proto = 0, ecn = 0;

	p->len = skb->len;
	if (hbm_parse_ip(skb, &l4_off, &proto, &ecn))
		return;
	p->is_tcp = proto == IPPROTO_TCP;
	p->ect = ecn != 0;
	p->hdr_len = l4_off + hbm_l4_hdr_len(skb, l4_off, proto);
	p->len = hbm_ip_bytes(skb->len, segs, p->hdr_len);
	if (p->is_tcp)
		hbm_tcp_info(skb, p);
}

static __always_inline void hbm_count_exempt(void)
{
	__u32 zero = 0;
	struct hbm_stats *s = bpf_map_lookup_elem(&hbm_stats, &zero);

	if (s)
		s->pkts_exempt++;
}

/*
 * What both programs do first: find the configuration and the cgroup's
 * queue, let exempt packets through (counted), and parse the packet. False:
 * pass the packet untouched.
 */
static __always_inline bool hbm_begin(struct __sk_buff *skb, struct hbm_config **cfg,
				      struct hbm_vqueue **q, struct hbm_pkt *p)
{
	*cfg = hbm_get_config();
	if (!*cfg || !(*cfg)->rate)
		return false;
	if (hbm_exempt(skb, *cfg)) {
		hbm_count_exempt();
		return false;
	}
	*q = bpf_get_local_storage(&hbm_queue, 0);
	if (!*q)
		return false;
	hbm_get_pkt(skb, p);
	return true;
}

/*
 * The verdict (include/hbm_verdict.h) on packet p at depth under rules, and
 * CE set when it says so; HBM_F_NO_CN takes CN away.
 */
static __always_inline void hbm_judge_pkt(struct __sk_buff *skb, const struct hbm_config *cfg,
					  const struct hbm_rules *rules,
					  const struct hbm_pkt *p, __s64 depth,
					  struct hbm_result *r)
{
	struct hbm_judged j = {
		.depth = depth, .len = p->len, .is_tcp = p->is_tcp, .ect = p->ect,
		.few_in_flight = p->has_tcp_sock && p->in_flight <= 1,
		.in_turn = r->turn,
		.chance = bpf_get_prandom_u32(),
	};
	struct hbm_verdict_flags v = hbm_judge(rules, &j);

	r->drop = v.drop;
	r->turn = r->turn && !v.drop;
	r->cn = v.cn && !(cfg->flags & HBM_F_NO_CN);
	r->ce = v.ce && bpf_skb_ecn_set_ce(skb);
	r->exempt = v.exempt;
}

/* The program's return value: bit 0 lets the packet pass, bit 1 is CN. */
static __always_inline int hbm_verdict(const struct hbm_result *r)
{
	return (r->drop ? HBM_DROP : HBM_PASS) | (r->cn ? HBM_DROP_CN : 0);
}

/* Per-CPU statistics: no atomics needed. */
static __always_inline void hbm_account(const struct hbm_pkt *p, const struct hbm_result *r,
					__u64 now, __s64 credit)
{
	__u32 zero = 0;
	struct hbm_stats *s = bpf_map_lookup_elem(&hbm_stats, &zero);
	int v = hbm_verdict(r);

	if (!s)
		return;
	if (!s->first_ns)
		s->first_ns = now;
	s->last_ns = now;
	s->pkts++;
	s->bytes += p->len;
	if (r->drop) {
		s->pkts_dropped++;
		s->bytes_dropped += p->len;
	} else if (r->ce || r->cn) {
		s->pkts_marked++;
		s->bytes_marked += p->len;
	}
	if (r->ce)
		s->pkts_ecn_ce++;
	if (r->turn)
		s->pkts_turn++;
	if (v >= 0 && v < HBM_VERDICTS)
		s->verdicts[v]++;
	if (p->has_tcp_sock) {
		s->sum_cwnd += p->cwnd;
		s->cnt_cwnd++;
		if (p->srtt_us) {
			s->sum_rtt_us += p->srtt_us;
			s->cnt_rtt++;
		}
	}
	s->sum_credit += credit;
}

#endif /* HBM_CG_BPF_H */
