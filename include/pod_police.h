/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pod_police (bpf/pod_police.bpf.c): the map the CNI plugin writes, one
 * entry per pod's host-side veth. Included by BPF (after vmlinux.h) and
 * user space (after linux/types.h).
 */
#ifndef POD_POLICE_H
#define POD_POLICE_H

#define POD_POLICE_MAX		4096	/* pods per node */

/*
 * How far ahead of now a pod's clock may be before its packets are
 * dropped, in IP bytes at its rate: a GSO skb that the pod's bpf_hbm sends
 * whole at its departure time, a sparse flow's lead (bpf/hbm.bpf.c) and a
 * late timer's catch-up, up to 72 KB each.
 */
#define POD_POLICE_SLACK_BYTES	(3 * 72 * 1024)

struct pod_police_key {
	__u64 netns_cookie;	/* the node's netns, where the veth is */
	__u32 ifindex;		/* the pod's host-side veth */
	__u32 pad;
};

struct pod_police {
	__u64 rate;		/* IP bytes per second; 0: not limited */
	__u64 burst;		/* bytes an idle pod may send at once */
	__u64 clock;		/* departure clock, ns (CLOCK_MONOTONIC); 0 at ADD */
	__u64 pkts, bytes;	/* passed: skbs, IP bytes */
	__u64 drops, drop_bytes;	/* dropped */
	/* 1: pod_subnets has the veth's entries (include/pod_subnets.h), which
	 * each packet is looked up in; 0: none, no lookup. Last: a load pinned
	 * before it has a shorter value, which ignores it. */
	__u64 subnets;
};

#endif /* POD_POLICE_H */
