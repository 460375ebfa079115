// SPDX-License-Identifier: GPL-2.0
/*
 * A FIFO on struct_ops Qdisc_ops alone, without the bpfqdisc framework: what
 * `bpfqdisc load PATH` registers as a plain kind (test_load_object). One
 * queue of SLOTS packets for the whole kind, so one qdisc at a time: the
 * qdisc's lock orders its enqueues and dequeues, nothing orders two qdiscs'.
 *
 * The plain_*.bpf.c files build it wrong in one way each, for the loader
 * to refuse: PLAIN_ID another .id, PLAIN_TWO_OPS a second Qdisc_ops,
 * PLAIN_OTHER_KERNEL a struct Qdisc_ops with a member this kernel lacks.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#ifndef PLAIN_ID
#define PLAIN_ID "bpf_plainfifo"
#endif
#define SLOTS		64
#define NET_XMIT_SUCCESS 0
#define NET_XMIT_DROP	1

void bpf_qdisc_skb_drop(struct sk_buff *skb, struct bpf_sk_buff_ptr *to_free_list) __ksym;
void bpf_qdisc_bstats_update(struct Qdisc *sch, const struct sk_buff *skb) __ksym;
void bpf_kfree_skb(struct sk_buff *skb) __ksym;

struct pkt_slot {
	struct sk_buff __kptr *skb;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SLOTS);
	__type(key, __u32);
	__type(value, struct pkt_slot);
} queue SEC(".maps");

__u64 taken, put;	/* packets dequeued and enqueued since the queue was empty */

SEC("struct_ops")
int BPF_PROG(plain_enqueue, struct sk_buff *skb, struct Qdisc *sch,
	     struct bpf_sk_buff_ptr *to_free)
{
	__u32 key = put % SLOTS;
	struct pkt_slot *s = bpf_map_lookup_elem(&queue, &key);

	if (!s || put - taken >= SLOTS) {
		bpf_qdisc_skb_drop(skb, to_free);
		return NET_XMIT_DROP;
	}
	skb = bpf_kptr_xchg(&s->skb, skb);
	if (skb)	/* not after put - taken < SLOTS: the slot was taken */
		bpf_qdisc_skb_drop(skb, to_free);
	put++;
	sch->q.qlen++;
	return NET_XMIT_SUCCESS;
}

SEC("struct_ops")
struct sk_buff *BPF_PROG(plain_dequeue, struct Qdisc *sch)
{
	__u32 key = taken % SLOTS;
	struct sk_buff *skb;
	struct pkt_slot *s;

	if (taken == put)
		return NULL;
	s = bpf_map_lookup_elem(&queue, &key);
	skb = s ? bpf_kptr_xchg(&s->skb, NULL) : NULL;
	if (!skb)
		return NULL;
	taken++;
	sch->q.qlen--;
	bpf_qdisc_bstats_update(sch, skb);
	return skb;
}

/* Frees what is queued: the qdisc is reset or goes. */
static __always_inline void purge(struct Qdisc *sch)
{
	for (int i = 0; i < SLOTS; i++) {
		__u32 key = i;
		struct pkt_slot *s = bpf_map_lookup_elem(&queue, &key);
		struct sk_buff *skb = s ? bpf_kptr_xchg(&s->skb, NULL) : NULL;

		if (skb)
			bpf_kfree_skb(skb);
	}
	taken = put = 0;
	sch->q.qlen = 0;
}

/* The kernel requires it; a new qdisc's queue is empty already. */
SEC("struct_ops")
int BPF_PROG(plain_init, struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack)
{
	return 0;
}

SEC("struct_ops")
void BPF_PROG(plain_reset, struct Qdisc *sch)
{
	purge(sch);
}

SEC("struct_ops")
void BPF_PROG(plain_destroy, struct Qdisc *sch)
{
	purge(sch);
}

#ifdef PLAIN_OTHER_KERNEL
/* The Qdisc_ops of a kernel that has a member this one lacks. */
struct Qdisc_ops___other {
	struct Qdisc_ops___other *next;
	char id[16];
	typeof(((struct Qdisc_ops *)0)->enqueue) enqueue;
	typeof(((struct Qdisc_ops *)0)->dequeue) dequeue;
	typeof(((struct Qdisc_ops *)0)->init) init;
	typeof(((struct Qdisc_ops *)0)->reset) reset;
	typeof(((struct Qdisc_ops *)0)->destroy) destroy;
	typeof(((struct Qdisc_ops *)0)->reset) bq_no_such_op;
	struct module *owner;
};
#define PLAIN_OPS	struct Qdisc_ops___other
#define PLAIN_MORE	.bq_no_such_op = (void *)plain_reset,
#else
#define PLAIN_OPS	struct Qdisc_ops
#define PLAIN_MORE
#endif

SEC(".struct_ops.link")
PLAIN_OPS plain_ops = {
	.enqueue = (void *)plain_enqueue,
	.dequeue = (void *)plain_dequeue,
	.init = (void *)plain_init,
	.reset = (void *)plain_reset,
	.destroy = (void *)plain_destroy,
	.id = PLAIN_ID,
	PLAIN_MORE
};

#ifdef PLAIN_TWO_OPS
SEC(".struct_ops.link")
struct Qdisc_ops plain_ops2 = {
	.enqueue = (void *)plain_enqueue,
	.dequeue = (void *)plain_dequeue,
	.id = "bpf_plainfifo2",
};
#endif
