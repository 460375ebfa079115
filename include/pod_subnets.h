/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pod's shapedSubnets or unshapedSubnets (the reference bandwidth
 * plugin's, v1.5+) as LPM trie entries, one trie in each program that
 * holds a pod to its limit: bpf_hbm's hbm_subnets (its qdiscs with the
 * subnets parameter on) and pod_police's pod_subnets. The CNI plugin
 * writes them at ADD and deletes them at DEL.
 *
 * A key names a device (netns cookie and ifindex: where the qdisc or the
 * backstop is), then an address family and a prefix of the packet's
 * destination, as the reference matches the destination both ways. A
 * device's entries say which destinations are shaped: the listed ones are
 * POD_SUBNET_SHAPED or POD_SUBNET_UNSHAPED, and with shapedSubnets an entry
 * of the device alone (POD_SUBNET_DEVICE_BITS, no family) makes the rest
 * unshaped, non-IP packets too (the reference's default class). The
 * longest prefix decides; a device without a matching entry is shaped.
 *
 * Included by BPF (after vmlinux.h) and user space (after linux/types.h).
 */
#ifndef POD_SUBNETS_H
#define POD_SUBNETS_H

#define POD_SUBNETS_PER_SLOT	64	/* entries per qdisc slot, allocated as used */
#define POD_SUBNETS_MAX		(64 * 4096)	/* pod_police's: 4096 pods */

enum pod_subnet_verdict {
	POD_SUBNET_SHAPED = 1,
	POD_SUBNET_UNSHAPED = 2,
};

/* Address families of a key: a packet's IP version. */
#define POD_SUBNET_NONE		0	/* not IP: the device's entry alone */
#define POD_SUBNET_IPV4		4
#define POD_SUBNET_IPV6		6

struct pod_subnet_key {
	__u32 prefixlen;	/* bits of what follows, LPM's */
	__u32 ifindex;
	__u64 netns_cookie;
	__u32 family;		/* POD_SUBNET_IPV4, _IPV6 */
	__u8 addr[16];		/* the destination; IPv4 in the first 4 bytes */
	__u32 pad;		/* sizeof a multiple of 8; never in a prefix */
};

/* prefixlen of a device's entry, and of one of its prefixes of bits. */
#define POD_SUBNET_DEVICE_BITS	(8 * (4 + 8))
#define POD_SUBNET_BITS(bits)	(POD_SUBNET_DEVICE_BITS + 32 + (bits))

#endif /* POD_SUBNETS_H */
