// SPDX-License-Identifier: GPL-2.0
/*
 * An HBM object built with another include/hbm.h: its hbm_config values are
 * 8 bytes, not bin/hbm's struct hbm_config. hbm must refuse it before it
 * makes anything, not write past the values (test_hbm_input).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);	/* the rate alone */
} hbm_config SEC(".maps");

SEC("cgroup_skb/egress")
int hbm_old(struct __sk_buff *skb)
{
	return 1;	/* pass: never loaded */
}
