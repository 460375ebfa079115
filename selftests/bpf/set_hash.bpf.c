// SPDX-License-Identifier: GPL-2.0
/*
 * tc egress: give every packet the same skb hash, so that a qdisc that
 * classified by hash alone would put every flow in one queue.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 hash = 0x5eed;

SEC("tc")
int set_hash(struct __sk_buff *skb)
{
	bpf_set_hash(skb, hash);
	return 0;	/* TC_ACT_OK */
}
