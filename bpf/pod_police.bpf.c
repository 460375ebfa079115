// SPDX-License-Identifier: GPL-2.0
/*
 * pod_police: the backstop of a pod's egress limit, which the pod cannot
 * lift (docs/kubernetes.md, "Enforcement").
 *
 * A pod's egress is shaped inside the pod, by bpf_hbm as the root qdisc of
 * its eth0: there TCP small queues hold the pod's TCP back through the
 * qdisc, without loss, and its flows take turns. But the pod's root
 * (CAP_NET_ADMIN in the pod's netns) may delete or replace that qdisc. So
 * this program, at the tcx ingress hook of the pod's host-side veth, where
 * every packet the pod sends arrives and which only the node can change,
 * polices the pod's egress with the same EDT clock at the same rate and
 * burst: a packet passes while the clock, moved by its length, is at most
 * the slack ahead of now, and is dropped otherwise (not charged).
 *
 * While the pod's qdisc is in place its packets arrive no faster than that
 * qdisc's clock lets them go, so none is dropped here. The slack covers
 * what that qdisc may legally send ahead of its clock: the whole GSO skb
 * that leaves at its departure time (up to 64 KiB of payload), a sparse
 * flow's lead (HBM_SPARSE_LEAD_BYTES, bpf/hbm.bpf.c) and a late timer.
 * Without that qdisc, the pod gets at most rate * t + burst + slack bytes
 * in any t, and its TCP learns the rate by loss.
 *
 * The clock: as bpf_hbm's (include/hbm_verdict.h), it moves by each
 * packet's IP bytes (include/hbm.h: each GSO segment's headers counted, the
 * link layer not), and an idle pod's clock lags now by at most burst / rate.
 *
 * One entry of pod_limits per host-side veth, keyed by the node's netns
 * cookie and the veth's ifindex, written by the CNI plugin at ADD (rate and
 * burst; the clock starts at 0, a full burst) and deleted at DEL. A packet
 * of a device without an entry passes. Passing returns TCX_NEXT, so that
 * other programs on the hook (network policy) still run; attach this one
 * first (BPF_F_BEFORE).
 *
 * A packet it passes leaves without a departure time (skb->tstamp). The
 * pod's qdisc has sent it at its own departure time, so a delivery time
 * still on it is the pod's: SO_TXTIME on what bypassed or replaced that
 * qdisc (PACKET_QDISC_BYPASS, or the pod's root's qdisc). The kernel keeps
 * a delivery time across the veth and the node's forwarding, and a qdisc
 * of the node's that sends at skb->tstamp (fq on the uplink, as Cilium's
 * Bandwidth Manager or net.core.default_qdisc=fq set) would hold the pod's
 * packets until then, up to its 10 s horizon: at the pod's rate they fill
 * its 10000 packets, and the node's other traffic is dropped.
 *
 * A pod's shapedSubnets or unshapedSubnets (include/pod_subnets.h): a
 * packet whose destination pod_subnets says is not shaped passes, not
 * charged, as the pod's bpf_hbm sends it without a limit. One LPM trie
 * lookup per packet, only for a pod with a list (its entry's subnets).
 *
 * Several CPUs may receive from one veth at once: the clock moves by
 * compare-and-swap, and a packet that loses the race HBM_POLICE_TRIES
 * times is dropped, so contention never lifts the limit.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_core_read.h>
#include "hbm.h"
#include "hbm_edt.bpf.h"
#include "pod_police.h"
#include "pod_subnets.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define TCX_NEXT		-1
#define TCX_DROP		2
#define ETH_HLEN		14
#define ETH_P_IP		0x0800
#define ETH_P_IPV6		0x86DD
#define IPPROTO_TCP		6
#define IPPROTO_UDP		17
#define HBM_POLICE_TRIES	4

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, POD_POLICE_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct pod_police_key);
	__type(value, struct pod_police);
} pod_limits SEC(".maps");

POD_SUBNET_DECLARE(pod_subnets, POD_SUBNETS_MAX);

/* One segment's IP and transport headers, from the packet; 0 if unknown. */
static __always_inline __u32 seg_hdr_len(struct __sk_buff *skb)
{
	__u8 ip[40], l4[13];
	__u32 l3, proto;

	if (bpf_skb_load_bytes(skb, ETH_HLEN, ip, sizeof(ip)))
		return 0;
	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		l3 = (ip[0] & 0xf) * 4;
		proto = ip[9];
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		l3 = 40;
		proto = ip[6];
	} else {
		return 0;
	}
	if (proto == IPPROTO_UDP)
		return l3 + 8;
	if (proto != IPPROTO_TCP || bpf_skb_load_bytes(skb, ETH_HLEN + l3, l4, sizeof(l4)))
		return l3;
	return l3 + (l4[12] >> 4) * 4;	/* data offset */
}

void *bpf_cast_to_kern_ctx(void *obj) __ksym;

/* Whether a limit holds skb, by its destination (see the top). */
static __always_inline bool dst_shaped(struct __sk_buff *skb, const struct pod_police_key *dev)
{
	__u32 proto = skb->protocol;	/* read once: the verifier refuses a ctx pointer moved */
	struct pod_subnet_key k;

	pod_subnet_key_init(&k, dev->netns_cookie, dev->ifindex);
	if (proto == bpf_htons(ETH_P_IP) && !bpf_skb_load_bytes(skb, ETH_HLEN + 16, k.addr, 4))
		k.family = POD_SUBNET_IPV4;
	else if (proto == bpf_htons(ETH_P_IPV6) &&
		 !bpf_skb_load_bytes(skb, ETH_HLEN + 24, k.addr, 16))
		k.family = POD_SUBNET_IPV6;
	return pod_subnet_shaped(&pod_subnets, &k);
}

/*
 * The cookie of the veth's netns, the node's. Not bpf_get_netns_cookie(),
 * which in tc gives the sending socket's: the pod's, for its own packets.
 */
static __always_inline __u64 dev_netns_cookie(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);

	return BPF_CORE_READ(skb, dev, nd_net.net, net_cookie);
}

/* IP bytes, what the rate counts (include/hbm.h). */
static __always_inline __u64 ip_bytes(struct __sk_buff *skb)
{
	__u32 len = skb->len > ETH_HLEN ? skb->len - ETH_HLEN : skb->len;
	__u32 segs = skb->gso_segs;

	return hbm_ip_bytes(len, segs, segs > 1 ? seg_hdr_len(skb) : 0);
}

/*
 * Charge len bytes to p's clock unless that takes it more than the slack
 * ahead of now; false: drop.
 */
static __always_inline bool clock_charge(struct pod_police *p, __u64 len, __u64 now)
{
	__u64 rate = p->rate, lag, slack, old, from, to;
	int i;

	if (!rate)
		return true;
	lag = hbm_tx_time_ns(p->burst, rate);
	slack = hbm_tx_time_ns(POD_POLICE_SLACK_BYTES, rate);
	bpf_for(i, 0, HBM_POLICE_TRIES) {
		old = p->clock;
		from = hbm_clamp_idle(old, now, lag);
		to = from + hbm_tx_time_ns(len, rate);
		if (to > now + slack)
			return false;
		if (__sync_val_compare_and_swap(&p->clock, old, to) == old)
			return true;
	}
	return false;
}

/* A delivery time (see the top) dropped; a receive timestamp stays. */
static __always_inline void clear_departure(struct __sk_buff *skb)
{
	if (skb->tstamp_type != BPF_SKB_CLOCK_REALTIME)
		bpf_skb_set_tstamp(skb, 0, BPF_SKB_CLOCK_REALTIME);
}

SEC("tc")
int pod_police(struct __sk_buff *skb)
{
	struct pod_police_key key = {
		.netns_cookie = dev_netns_cookie(skb),
		.ifindex = skb->ingress_ifindex,
	};
	struct pod_police *p = bpf_map_lookup_elem(&pod_limits, &key);
	__u64 len;

	if (!p)
		return TCX_NEXT;
	if (p->subnets && !dst_shaped(skb, &key)) {
		clear_departure(skb);
		return TCX_NEXT;
	}
	len = ip_bytes(skb);
	if (clock_charge(p, len, bpf_ktime_get_ns())) {
		__sync_fetch_and_add(&p->pkts, 1);
		__sync_fetch_and_add(&p->bytes, len);
		clear_departure(skb);
		return TCX_NEXT;
	}
	__sync_fetch_and_add(&p->drops, 1);
	__sync_fetch_and_add(&p->drop_bytes, len);
	return TCX_DROP;
}
