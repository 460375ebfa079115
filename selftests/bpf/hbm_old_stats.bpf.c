// SPDX-License-Identifier: GPL-2.0
/*
 * An HBM object built with another include/hbm.h: its hbm_stats values are
 * smaller than bin/hbm's struct hbm_stats. hbm must refuse it, not read
 * the per-CPU values at the wrong stride (test_hbm_input).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "hbm.h"

char LICENSE[] SEC("license") = "GPL";

struct old_stats {
	__u64 pkts;
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
	__type(value, struct old_stats);
} hbm_stats SEC(".maps");

SEC("cgroup_skb/egress")
int hbm_old(struct __sk_buff *skb)
{
	__u32 zero = 0;
	struct old_stats *s = bpf_map_lookup_elem(&hbm_stats, &zero);

	if (s)
		s->pkts++;
	return 1;
}
