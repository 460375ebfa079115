/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lookup of a pod's subnet entries (include/pod_subnets.h), for the
 * programs that hold a pod to its limit: bpf_hbm and pod_police. Each
 * reads the destination its own way and asks here whether it is shaped.
 */
#ifndef POD_SUBNETS_BPF_H
#define POD_SUBNETS_BPF_H

#include "pod_subnets.h"

#define POD_SUBNET_DECLARE(name, max)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_LPM_TRIE);			\
		__uint(map_flags, BPF_F_NO_PREALLOC);			\
		__uint(max_entries, max);				\
		__type(key, struct pod_subnet_key);			\
		__type(value, __u32);					\
	} name SEC(".maps")

/* A key of device (netns cookie, ifindex) for a destination of family. */
static __always_inline void pod_subnet_key_init(struct pod_subnet_key *k, __u64 netns_cookie,
						__u32 ifindex)
{
	__builtin_memset(k, 0, sizeof(*k));
	k->prefixlen = POD_SUBNET_BITS(128);
	k->ifindex = ifindex;
	k->netns_cookie = netns_cookie;
}

/* Whether k's destination is shaped: the longest prefix's verdict. */
static __always_inline bool pod_subnet_shaped(void *map, const struct pod_subnet_key *k)
{
	__u32 *v = bpf_map_lookup_elem(map, k);

	return !v || *v != POD_SUBNET_UNSHAPED;
}

#endif /* POD_SUBNETS_BPF_H */
