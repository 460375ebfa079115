// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_floor: the cheapest FIFO a BPF qdisc can be, as a floor for the
 * benchmarks (tools/bench): one ring in globals, no instance lookup, no
 * parameters, no own counters; only what the kernel needs (qlen, backlog,
 * bstats). Its cost is the struct_ops call, one map lookup and one
 * bpf_kptr_xchg per op. Correct for ONE instance only: never attach it to
 * two devices at once.
 */
#include "bq/ring.bpf.h"
#include "bare_qdisc.h"

char LICENSE[] SEC("license") = "GPL";

#define FLOOR_SLOTS	4096
#define FLOOR_LIMIT	1000

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FLOOR_SLOTS);
	__type(key, u32);
	__type(value, struct bq_skb_slot);
} floor_ring SEC(".maps");

u32 floor_head, floor_tail;

SEC("struct_ops")
int BPF_PROG(floor_enqueue, struct sk_buff *skb, struct Qdisc *sch,
	     struct bpf_sk_buff_ptr *to_free)
{
	u32 key = floor_tail & (FLOOR_SLOTS - 1), len = bq_pkt_len(skb);
	struct bq_skb_slot *s;

	if (sch->q.qlen >= FLOOR_LIMIT)
		goto drop;
	s = bpf_map_lookup_elem(&floor_ring, &key);
	if (!s)
		goto drop;
	skb = bpf_kptr_xchg(&s->skb, skb);
	if (skb)
		bpf_kfree_skb(skb);
	floor_tail++;
	bare_enqueued(sch, len);
	return NET_XMIT_SUCCESS;
drop:
	bpf_qdisc_skb_drop(skb, to_free);
	return NET_XMIT_DROP;
}

SEC("struct_ops")
struct sk_buff *BPF_PROG(floor_dequeue, struct Qdisc *sch)
{
	u32 key = floor_head & (FLOOR_SLOTS - 1);
	struct bq_skb_slot *s;
	struct sk_buff *skb;

	if (!sch->q.qlen)
		return NULL;
	s = bpf_map_lookup_elem(&floor_ring, &key);
	if (!s)
		return NULL;
	skb = bpf_kptr_xchg(&s->skb, NULL);
	if (skb)
		floor_head++;
	return bare_dequeued(sch, skb);
}

SEC("struct_ops")
int BPF_PROG(floor_init, struct Qdisc *sch, struct nlattr *opt,
	     struct netlink_ext_ack *extack)
{
	return 0;
}

/* Free what is queued: reset and destroy. */
static __always_inline void floor_purge(struct Qdisc *sch)
{
	struct bq_skb_slot *s;
	struct sk_buff *skb;
	u32 i, key;

	bpf_for(i, 0, FLOOR_SLOTS) {
		key = i;
		s = bpf_map_lookup_elem(&floor_ring, &key);
		skb = s ? bpf_kptr_xchg(&s->skb, NULL) : NULL;
		if (skb)
			bq_purged(sch, skb);
	}
	floor_head = floor_tail = 0;
}

SEC("struct_ops")
void BPF_PROG(floor_reset, struct Qdisc *sch)
{
	floor_purge(sch);
}

SEC("struct_ops")
void BPF_PROG(floor_destroy, struct Qdisc *sch)
{
	floor_purge(sch);
}

SEC(".struct_ops.link")
struct Qdisc_ops fifo_floor = {
	.enqueue = (void *)floor_enqueue,
	.dequeue = (void *)floor_dequeue,
	.init = (void *)floor_init,
	.reset = (void *)floor_reset,
	.destroy = (void *)floor_destroy,
	.id = "bpf_floor",
};
