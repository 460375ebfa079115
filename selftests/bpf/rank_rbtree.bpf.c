// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_rankrb: the rank queue as upstream's bpf_qdisc_fq.c would build it,
 * the comparison that issue 48 asks of bq/rank.bpf.h: a bpf_obj_new'd
 * node per packet, holding the skb as a kptr, on a bpf_rb_tree ordered
 * by (rank, arrival) under a spin lock; push and pop are O(log n) and
 * allocate and free a node each. The rank is the mark, as bpf_rankmark's.
 *
 * For selftests/progs/rank_cost.sh, which measures push and pop against
 * the queue's depth: dequeue gives nothing until a packet of mark
 * RB_RELEASE has come (bpf_rankmark's hold, without parameters), and
 * that packet is queued like the others, last. Like bpf_floor, its queue
 * is in globals: correct for ONE instance only.
 */
#include "bq/ring.bpf.h"
#include "local_graph.h"
#include "bare_qdisc.h"

char LICENSE[] SEC("license") = "GPL";

#define RB_LIMIT	(1 << 17)
#define RB_RELEASE	0xffffffffU

struct rb_pkt {
	struct bpf_rb_node node;
	struct sk_buff __kptr *skb;
	u64 rank, seq;
};

private(RB) struct bpf_spin_lock rb_lock;
private(RB) struct bpf_rb_root rb_queue __contains(rb_pkt, node);
u64 rb_seq;
bool rb_released;

static bool rb_before(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	struct rb_pkt *x = container_of(a, struct rb_pkt, node);
	const struct rb_pkt *y = container_of(b, struct rb_pkt, node);

	return x->rank < y->rank || (x->rank == y->rank && x->seq < y->seq);
}

SEC("struct_ops")
int BPF_PROG(rankrb_enqueue, struct sk_buff *skb, struct Qdisc *sch,
	     struct bpf_sk_buff_ptr *to_free)
{
	u32 len = bq_pkt_len(skb);
	struct rb_pkt *n;

	if (sch->q.qlen >= RB_LIMIT)
		goto drop;
	n = bpf_obj_new(struct rb_pkt);
	if (!n)
		goto drop;
	n->rank = skb->mark;
	n->seq = rb_seq++;
	if (skb->mark == RB_RELEASE)
		rb_released = true;
	skb = bpf_kptr_xchg(&n->skb, skb);
	if (skb)
		bpf_kfree_skb(skb);
	bpf_spin_lock(&rb_lock);
	bpf_rbtree_add(&rb_queue, &n->node, rb_before);
	bpf_spin_unlock(&rb_lock);
	bare_enqueued(sch, len);
	return NET_XMIT_SUCCESS;
drop:
	bpf_qdisc_skb_drop(skb, to_free);
	return NET_XMIT_DROP;
}

/* The packet of least rank, off the tree, or NULL. */
static __always_inline struct sk_buff *rb_pop(void)
{
	struct bpf_rb_node *first;
	struct sk_buff *skb;
	struct rb_pkt *n;

	bpf_spin_lock(&rb_lock);
	first = bpf_rbtree_first(&rb_queue);
	first = first ? bpf_rbtree_remove(&rb_queue, first) : NULL;
	bpf_spin_unlock(&rb_lock);
	n = graph_entry(first, struct rb_pkt, node);
	if (!n)
		return NULL;
	skb = bpf_kptr_xchg(&n->skb, NULL);
	bpf_obj_drop(n);
	return skb;
}

SEC("struct_ops")
struct sk_buff *BPF_PROG(rankrb_dequeue, struct Qdisc *sch)
{
	if (!sch->q.qlen || !rb_released)
		return NULL;
	return bare_dequeued(sch, rb_pop());
}

SEC("struct_ops")
int BPF_PROG(rankrb_init, struct Qdisc *sch, struct nlattr *opt,
	     struct netlink_ext_ack *extack)
{
	rb_released = false;
	return 0;
}

/* Free what is queued: reset and destroy. */
static __always_inline void rb_purge(struct Qdisc *sch)
{
	struct sk_buff *skb;
	u32 i;

	bpf_for(i, 0, RB_LIMIT) {
		skb = rb_pop();
		if (!skb)
			break;
		bq_purged(sch, skb);
	}
	rb_released = false;
}

SEC("struct_ops")
void BPF_PROG(rankrb_reset, struct Qdisc *sch)
{
	rb_purge(sch);
}

SEC("struct_ops")
void BPF_PROG(rankrb_destroy, struct Qdisc *sch)
{
	rb_purge(sch);
}

SEC(".struct_ops.link")
struct Qdisc_ops rank_rbtree = {
	.enqueue = (void *)rankrb_enqueue,
	.dequeue = (void *)rankrb_dequeue,
	.init = (void *)rankrb_init,
	.reset = (void *)rankrb_reset,
	.destroy = (void *)rankrb_destroy,
	.id = "bpf_rankrb",
};
