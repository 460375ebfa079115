// SPDX-License-Identifier: GPL-2.0
/*
 * Qdiscs the kernel must refuse, one struct_ops each, as the kernel's own
 * bpf_qdisc_fail__* selftests do: the rules every bpfqdisc kind relies on
 * the kernel to enforce. Each breaks one rule and takes the valid ops
 * (ok_*) for the rest; "ok" breaks none, so that the runner
 * (selftests/progs/bq_mustfail.c) is seen to tell the difference. The
 * runner loads one case at a time and checks why the kernel said no.
 */
#include "bq/core.bpf.h"

char LICENSE[] SEC("license") = "GPL";

SEC("struct_ops")
int BPF_PROG(ok_enqueue, struct sk_buff *skb, struct Qdisc *sch, struct bpf_sk_buff_ptr *to_free)
{
	bpf_qdisc_skb_drop(skb, to_free);
	return NET_XMIT_DROP;
}

SEC("struct_ops")
struct sk_buff *BPF_PROG(ok_dequeue, struct Qdisc *sch)
{
	return NULL;
}

SEC("struct_ops")
int BPF_PROG(ok_init, struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack)
{
	return 0;
}

SEC("struct_ops")
void BPF_PROG(ok_reset, struct Qdisc *sch)
{
}

SEC("struct_ops")
void BPF_PROG(ok_destroy, struct Qdisc *sch)
{
}

/* A referenced skb must be queued or dropped: here it is neither. */
SEC("struct_ops")
int BPF_PROG(leak_enqueue, struct sk_buff *skb, struct Qdisc *sch, struct bpf_sk_buff_ptr *to_free)
{
	return NET_XMIT_SUCCESS;
}

/* bstats are for what leaves: dequeue only. */
SEC("struct_ops")
int BPF_PROG(bstats_enqueue, struct sk_buff *skb, struct Qdisc *sch, struct bpf_sk_buff_ptr *to_free)
{
	bpf_qdisc_bstats_update(sch, skb);
	bpf_qdisc_skb_drop(skb, to_free);
	return NET_XMIT_DROP;
}

/* The to-free list is enqueue's: dequeue frees with bpf_kfree_skb. */
SEC("struct_ops")
struct sk_buff *BPF_PROG(drop_dequeue, struct Qdisc *sch)
{
	bpf_qdisc_skb_drop(NULL, NULL);
	return NULL;
}

/* The handle is the kernel's: only limit, q.qlen and qstats are ours. */
SEC("struct_ops")
int BPF_PROG(handle_init, struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack)
{
	sch->handle = 0;
	return 0;
}

/*
 * opt is NULL when tc sends no options. A kernel whose .init stub names it
 * opt__nullable (tools/kernel-patches/0001) refuses this program; the stock
 * one loads it, and attaching it with no options oopses.
 */
SEC("struct_ops")
int BPF_PROG(nullopt_init, struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack)
{
	return opt->nla_len > 4 ? -EINVAL : 0;
}

/* The safe form of the same read: it loads on either kernel. */
SEC("struct_ops")
int BPF_PROG(optcheck_init, struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack)
{
	return opt && opt->nla_len > 4 ? -EINVAL : 0;
}

/* Bypass is chosen at .init (tools/kernel-patches/0002), not per packet. */
SEC("struct_ops")
int BPF_PROG(bypass_enqueue, struct sk_buff *skb, struct Qdisc *sch, struct bpf_sk_buff_ptr *to_free)
{
	if (bpf_ksym_exists(bpf_qdisc_set_can_bypass))
		bpf_qdisc_set_can_bypass(sch, true);
	bpf_qdisc_skb_drop(skb, to_free);
	return NET_XMIT_DROP;
}

SEC("struct_ops")
int BPF_PROG(bypass_init, struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack)
{
	if (bpf_ksym_exists(bpf_qdisc_set_can_bypass))
		bpf_qdisc_set_can_bypass(sch, true);
	return 0;
}

#define CASE(name, enq, deq, ini)					\
	SEC(".struct_ops.link")						\
	struct Qdisc_ops name = {					\
		.enqueue = (void *)enq,					\
		.dequeue = (void *)deq,					\
		.init = (void *)ini,					\
		.reset = (void *)ok_reset,				\
		.destroy = (void *)ok_destroy,				\
		.id = "bpf_mf_" #name,					\
	}

CASE(ok, ok_enqueue, ok_dequeue, ok_init);
CASE(leak, leak_enqueue, ok_dequeue, ok_init);
CASE(bstats, bstats_enqueue, ok_dequeue, ok_init);
CASE(drop, ok_enqueue, drop_dequeue, ok_init);
CASE(handle, ok_enqueue, ok_dequeue, handle_init);
CASE(noinit, ok_enqueue, ok_dequeue, NULL);
CASE(nullopt, ok_enqueue, ok_dequeue, nullopt_init);
CASE(optcheck, ok_enqueue, ok_dequeue, optcheck_init);
CASE(bypenq, bypass_enqueue, ok_dequeue, ok_init);
CASE(bypini, ok_enqueue, ok_dequeue, bypass_init);
