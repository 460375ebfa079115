/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc classify: the key a packet names its aggregate by (enum
 * bq_class_by): the cgroup v2 id of the socket it is charged to, its mark
 * or its priority, as bpf_hbm chooses it and `bpfqdisc class` names it.
 * A socket's cgroup key is the deepest cgroup with a class among its own
 * and its ancestors, so that a child cgroup is no way out of a class:
 * include this after the kind's BQ_CLASSES (bq/class.bpf.h), whose
 * bq_class() it asks.
 */
#ifndef BQ_CLASSIFY_BPF_H
#define BQ_CLASSIFY_BPF_H

#include "bq/class.bpf.h"

/*
 * The cgroup a socket is charged to: the deepest cgroup with a class among
 * its own and its ancestors, as cgroup v2 limits cover a subtree, so that
 * making a child cgroup is no way out of a class; its own if none has one.
 * Searched from the root down (ancestors[0] is the root, ancestors[level]
 * the cgroup itself), the first BQ_CG_LEVELS levels: nesting deeper only
 * adds levels below those searched.
 */
static __always_inline u64 bq_cgroup_key(const struct bq_instance *inst, struct sock *sk)
{
	struct cgroup *cg = sk->sk_cgrp_data.cgroup, *anc;
	u64 own = cg->kn->id, key = own, id;
	int level = cg->level, i;
	u64 slots = (u64)cg + bpf_core_field_offset(struct cgroup, ancestors);

	if (level < 0)
		return own;
	bpf_for(i, 0, level < BQ_CG_LEVELS ? level + 1 : BQ_CG_LEVELS) {
		if (bpf_probe_read_kernel(&anc, sizeof(anc), (void *)(slots + i * sizeof(anc))) ||
		    !anc)
			break;
		id = bpf_core_cast(anc, struct cgroup)->kn->id;
		if (bq_class(inst, id))
			key = id;
	}
	if (level >= BQ_CG_LEVELS && bq_class(inst, own))
		key = own;
	return key;
}

/*
 * The full socket a packet is charged to, as skb_to_full_sk() gives the
 * kernel's cgroup egress programs: a SYN-ACK's request socket stands for
 * its listener. Else key 0 would hold every service's SYN-ACKs, which,
 * with shared_default, any unclassed sender can flood past the horizon.
 * NULL without one (forwarded, TIME_WAIT).
 */
static __always_inline struct sock *bq_charged_sock(struct sock *sk)
{
	if (sk && sk->__sk_common.skc_state == TCP_NEW_SYN_RECV)
		/* rsk_listener, in a union: read as a number, cast back */
		sk = bpf_core_cast(sk->__sk_common.skc_listener, struct sock);
	return sk && bq_full_sock(sk) ? sk : NULL;
}

/* The key the packet names itself by: its cgroup's, its mark or its priority. */
static __always_inline u64 bq_sender_key(const struct bq_instance *inst, struct sk_buff *skb,
					 u64 classify)
{
	struct sock *sk;

	if (classify == BQ_BY_MARK)
		return skb->mark;
	if (classify == BQ_BY_PRIORITY)
		return skb->priority;
	sk = bq_charged_sock(skb->sk);
	return sk ? bq_cgroup_key(inst, sk) : 0;
}

#endif /* BQ_CLASSIFY_BPF_H */
