/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc core: what every BPF qdisc on struct_ops Qdisc_ops needs. A
 * qdisc file holds its policy and includes this part and the others it
 * uses by name (include/bq/):
 *	ring.bpf.h	a FIFO ring of skb kptrs (bpf_fifo)
 *	pool.bpf.h	an skb pool with linked per-flow queues (bpf_fq, bpf_hbm)
 *	timeq.bpf.h	a min-heap of (time, value) (bpf_fq, bpf_hbm)
 *	pages.bpf.h	tables in arena pages allocated with use (bpf_fq)
 *	ids.bpf.h	an allocator of entry indexes with a free list (the
 *			pool, bpf_fq's flows)
 *	list.bpf.h	doubly linked lists of entries by index (bpf_fq)
 *	rank.bpf.h	a rank queue (PIFO), and a kind made of a rank
 *			function (bpf_sp, bpf_wfq)
 *	bits.bpf.h	find-first-set without a branch (pages, rank)
 *	classify.bpf.h	a packet's class key: cgroup, mark or priority
 *			(bpf_hbm, bpf_wfq)
 *
 * This part owns:
 *   - the qdisc kfuncs, which the kernel only lets enqueue/dequeue call in
 *     the combinations noted below;
 *   - per-instance state: .init claims a slot (owned by the Qdisc pointer,
 *     remembered in Qdisc.limit) holding its struct bq_instance, parameters
 *     and the kind's state, which bq_instance() finds on the fast path with
 *     one array lookup; .destroy gives it back. Globals would be shared by
 *     every qdisc of this kind: both ends of a veth, every mq child. A
 *     kind's own state per instance is one line, BQ_STATE(struct T), found
 *     with bq_state(inst); its maps with a region per instance are declared
 *     with BQ_SLOT_MAP(), and the loader sizes them all for
 *     --max-instances (and --ring-slots);
 *   - init, reset and destroy: BQ_QDISC_OPS(name) emits them with the
 *     struct_ops; a kind with state gives two hooks, one to set up a zeroed
 *     state and one to free what it holds (see BQ_QDISC_OPS below);
 *   - the standard counters and Qdisc qstats/bstats, updated in one place:
 *     bq_enqueued(), bq_dequeued(), bq_drop(), bq_drop_queued().
 * The parts keep its rules: per-instance regions of ARRAY maps, no locks
 * (the ops of one instance run under its qdisc lock), no allocation per
 * packet.
 */
#ifndef BQ_CORE_BPF_H
#define BQ_CORE_BPF_H

/*
 * vmlinux.h's anonymous members need -fms-extensions (bpfqdisc.pc gives
 * it); the warning that they are an extension would hide the user's own.
 */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wmicrosoft-anon-tag"
#include "vmlinux.h"
#pragma clang diagnostic pop
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bpfqdisc.h"

#define EPERM			1
#define ENOENT			2
#define ENOMEM			12
#define EBUSY			16
#define EINVAL			22
#define ENOSPC			28
#define ERANGE			34
#define ESTALE			116

#define NET_XMIT_SUCCESS	0x00
#define NET_XMIT_DROP		0x01
#define NET_XMIT_CN		0x02

/* Every op. */
u32 bpf_skb_get_hash(struct sk_buff *skb) __ksym;
void bpf_kfree_skb(struct sk_buff *skb) __ksym;
/* .enqueue only: frees skb after the qdisc lock is dropped. */
void bpf_qdisc_skb_drop(struct sk_buff *skb, struct bpf_sk_buff_ptr *to_free_list) __ksym;
/* .enqueue and .dequeue. */
void bpf_qdisc_watchdog_schedule(struct Qdisc *sch, u64 expire, u64 delta_ns) __ksym;
/* .dequeue only. */
void bpf_qdisc_bstats_update(struct Qdisc *sch, const struct sk_buff *skb) __ksym;
/*
 * .init only, on kernels with tools/kernel-patches/0002 (bq_bypass_init):
 * __weak, so that the same object loads where it is missing.
 */
void bpf_qdisc_set_can_bypass(struct Qdisc *sch, bool can_bypass) __ksym __weak;
/*
 * .dump only, on kernels with tools/kernel-patches/0003: puts opts in the
 * dump as TCA_OPTIONS. The kernel's struct bpf_qdisc_dump_msg is opaque;
 * libbpf matches the kfunc by name and kinds, not by the struct's name.
 */
struct bq_dump_msg {
};
int bpf_qdisc_dump_options(struct bq_dump_msg *msg, const void *opts, u32 opts__sz) __ksym __weak;

/* The framework version this object was built for: the loader checks it first. */
const struct bq_version bq_version SEC(".rodata.bq_version") = {
	BQ_FRAMEWORK_MAJOR, BQ_FRAMEWORK_MINOR
};

/* Sizes the loader sets before load (bq_load() in src/). */
const volatile __u32 bq_ring_slots = BQ_DEFAULT_RING_SLOTS;
const volatile __u32 bq_max_instances = BQ_DEFAULT_MAX_INSTANCES;

/*
 * A kind with maps of BQ_PER_CLASS(n) entries a slot declares the count
 * they have, which the loader sets (--class-slots), with
 * BQ_CLASS_SLOTS(n): n is the same as theirs, the count without the option.
 */
#define BQ_CLASS_SLOTS(n)	const volatile __u32 bq_class_slots = (n)

/* Entries per slot of a BQ_SLOT_MAP declared with n, before the loader sizes it. */
#define BQ_SLOT_MAP_PER_SLOT(n)						\
	((n) == BQ_PER_RING ? BQ_DEFAULT_RING_SLOTS :			\
	 ((n) & BQ_PER_CLASS_FLAG) ?					\
	 ((n) & BQ_PER_CLASS_COUNT) << BQ_PER_CLASS_SHIFT_OF(n) : (n))

/*
 * BQ_SLOT_MAP(map, BPF_MAP_TYPE_ARRAY, key, value, n, flags): a map with n
 * entries per instance slot (BQ_PER_RING: --ring-slots of them;
 * BQ_PER_CLASS: --class-slots), so that instance `slot` owns keys
 * slot * n .. slot * n + n - 1 of an array. The loader sizes it for
 * --max-instances and pins it with BQ_MAP_PIN.
 */
#define BQ_SLOT_MAP_DEF(map, mtype, K, V, n)				\
	struct {							\
		__uint(type, mtype);					\
		__uint(max_entries, BQ_DEFAULT_MAX_INSTANCES *		\
				    BQ_SLOT_MAP_PER_SLOT(n));		\
		__type(key, K);						\
		__type(value, V);					\
	} map SEC(".maps")
#define BQ_SLOT_MAP_DESC(map, n, flags)					\
	const struct bq_map_desc bq_slot_map_##map SEC(".rodata.bq_maps") = \
		{ #map, n, flags }
#define BQ_SLOT_MAP(map, mtype, K, V, n, flags)				\
	BQ_SLOT_MAP_DEF(map, mtype, K, V, n);				\
	BQ_SLOT_MAP_DESC(map, n, flags)

/*
 * bq_slots: slot -> struct bq_slot_value { struct bq_slot slot; T state; },
 * the kind's state T last. Its value type is the kind's, so BQ_STATE(T)
 * defines it; the framework only needs its name here. User space changes
 * the parameters through bq_change (below): a map update would overwrite
 * the counters and state BPF changes meanwhile.
 */
struct bq_slots_map;
extern struct bq_slots_map bq_slots;
#define BQ_SLOTS_MAP(T)							\
	struct bq_slot_value {						\
		struct bq_slot slot;					\
		T state;						\
	};								\
	struct bq_slots_map {						\
		__uint(type, BPF_MAP_TYPE_ARRAY);			\
		__uint(max_entries, BQ_DEFAULT_MAX_INSTANCES);		\
		__type(key, u32);					\
		__type(value, struct bq_slot_value);			\
	} bq_slots SEC(".maps");					\
	BQ_SLOT_MAP_DESC(bq_slots, 1, BQ_MAP_PIN)

/* The value of slot: the framework's part, which comes first. */
static __always_inline struct bq_slot *bq_slot_at(u32 slot)
{
	return bpf_map_lookup_elem(&bq_slots, &slot);
}

/* One per slot: .init and bq_change take it in turn (struct bq_change says why). */
struct bq_slot_lock {
	struct bpf_spin_lock lock;
};
BQ_SLOT_MAP(bq_slot_locks, BPF_MAP_TYPE_ARRAY, u32, struct bq_slot_lock, 1, BQ_MAP_PIN);

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct bq_params);
} bq_defaults SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct bq_config);
} bq_config SEC(".maps");

/*
 * The kind's parameters: a struct of __u64 fields, and a table of them
 * (name, unit, default, minimum, maximum) that the loader reads from
 * .rodata.bq_params:
 *	struct fifo_params {
 *		__u64 limit;
 *	};
 *	BQ_PARAMS(struct fifo_params,
 *		BQ_PARAM(limit, BQ_UNIT_COUNT, 1000, 1, BQ_DEFAULT_RING_SLOTS),
 *	);
 * An entry's place in the table is its field's place in the struct
 * (offsetof), whatever the order they are written in, so the values user
 * space keeps in bq_params.v[] by table order are the struct's fields: the
 * policy reads p->limit through bq_kind_params(). BQ_PARAM_NAMED names a
 * field otherwise (fq's weight[0] is "weight0"). The build fails for a
 * field that is not a __u64, two entries of one field, a struct beyond
 * BQ_MAX_PARAMS, or a last field without an entry.
 */
#define BQ_PARAMS(T, ...)						\
	typedef T bq_kind_params_t;					\
	_Static_assert(sizeof(T) % sizeof(__u64) == 0 &&		\
		       sizeof(T) <= sizeof(struct bq_params),		\
		       #T ": at most BQ_MAX_PARAMS fields, each a __u64"); \
	const struct bq_param_desc bq_param_table[] SEC(".rodata.bq_params") = { __VA_ARGS__ }; \
	_Static_assert(sizeof(bq_param_table) ==			\
		       sizeof(T) / sizeof(__u64) * sizeof(struct bq_param_desc), \
		       #T ": its last field has no BQ_PARAM");		\
	/* The instance's parameters as the kind's struct. */		\
	static __always_inline __attribute__((unused)) const T *	\
	bq_kind_params(const struct bq_params *p)			\
	{								\
		return (const T *)p;					\
	}
/* The number of parameters of the kind (BQ_PARAMS). */
#define BQ_NPARAMS	(sizeof(bq_param_table) / sizeof(bq_param_table[0]))
#define BQ_PARAM_INDEX(field)						\
	(__builtin_offsetof(bq_kind_params_t, field) / sizeof(__u64) +	\
	 0 * sizeof(char[sizeof(((bq_kind_params_t *)0)->field) == sizeof(__u64) ? 1 : -1]))
#define BQ_PARAM_NAMED(field, name, unit, def, min, max)		\
	[BQ_PARAM_INDEX(field)] = { name, unit, def, min, max }
#define BQ_PARAM(field, unit, def, min, max)				\
	BQ_PARAM_NAMED(field, #field, unit, def, min, max)

/*
 * BQ_XSTATS({ "flows", BQ_GAUGE }, ...): names of the kind's own statistics,
 * in the order of the index enum it updates inst->cnt.x[] by.
 */
#define BQ_XSTATS(...) \
	const struct bq_xstat_desc bq_xstat_table[] SEC(".rodata.bq_xstats") = { __VA_ARGS__ }

/*
 * BQ_DROP_REASONS("flow_limit", "horizon"): names of the kind's own drop
 * reasons, in the order of its enum, which starts at BQ_DROP_KIND:
 *	enum { FQ_DROP_FLOW_LIMIT = BQ_DROP_KIND, FQ_DROP_HORIZON };
 */
#define BQ_DROP_REASONS(...)						\
	const struct bq_drop_desc bq_drop_table[] SEC(".rodata.bq_drops") = { __VA_ARGS__ }; \
	_Static_assert(sizeof(bq_drop_table) / sizeof(struct bq_drop_desc) <= \
		       BQ_MAX_DROPS - BQ_DROP_KIND, "at most BQ_MAX_DROPS - BQ_DROP_KIND reasons")

/* Packets that reached a qdisc with no state. Always 0 unless we have a bug. */
__u64 bq_orphan_drops;

static __always_inline u32 bq_pkt_len(const struct sk_buff *skb)
{
	return ((struct qdisc_skb_cb *)skb->cb)->pkt_len;
}

/* A socket with the fields of a full one (not TIME_WAIT, not a request). */
static __always_inline bool bq_full_sock(struct sock *sk)
{
	u8 state = sk->__sk_common.skc_state;

	return state != TCP_TIME_WAIT && state != TCP_NEW_SYN_RECV;
}

/* The TCP socket that sent skb, a full one; NULL for any other packet (forwarded, UDP, a SYN-ACK, TIME_WAIT's). */
static __always_inline struct tcp_sock *bq_tcp_sock(struct sk_buff *skb)
{
	struct sock *sk = skb->sk;

	if (!sk || !bq_full_sock(sk) || sk->sk_protocol != IPPROTO_TCP)
		return NULL;
	return bpf_core_cast(sk, struct tcp_sock);
}

/*
 * The key of entry idx of instance inst's region in a BQ_SLOT_MAP of n entries
 * per slot (n a power of two). idx wraps within the region, which also
 * bounds the key for the verifier.
 */
static __always_inline u32 bq_region_key(const struct bq_instance *inst, u32 n, u32 idx)
{
	return inst->slot * n + (idx & (n - 1));
}

/* Entry idx of inst's region of map (n per slot), or NULL. */
#define bq_region_lookup(map, inst, n, idx)				\
	({								\
		u32 __bq_key = bq_region_key(inst, n, idx);		\
									\
		bpf_map_lookup_elem(map, &__bq_key);			\
	})

/*
 * fn(inst, e) for each entry e = at(inst, i) of a region, i from 1 to
 * last (index 0 is never an entry): how a purge gives back every entry
 * the instance has used.
 */
#define bq_region_each(inst, at, last, fn)				\
	do {								\
		u32 __bq_i;						\
									\
		bpf_for(__bq_i, 1, (last) + 1) {			\
			typeof(at(inst, 0)) __bq_e = at(inst, __bq_i);	\
									\
			if (__bq_e)					\
				fn(inst, __bq_e);			\
		}							\
	} while (0)

/*
 * Fibonacci hashing: key times 2^64 / golden ratio, whose high bits depend
 * on every bit of key (pointers and counters alike); the top 32 of them.
 */
static __always_inline u32 bq_hash32(u64 key)
{
	return (key * 0x9E3779B97F4A7C15ULL) >> 32;
}

/*
 * A keyed hash of 64-bit words, for keys a sender chooses (addresses and
 * ports): SipHash-1-3, the kernel's hsiphash on 64-bit, from its
 * published definition: bq_sip_init(), bq_sip_word() for each word,
 * bq_sip_final32(). Without the 128-bit key, nobody can pick inputs
 * that collide; bq_hash32()'s multiply lets anyone who can shift a sum
 * (a port) land where they like, whatever seed was mixed in before.
 */
#define BQ_ROTL64(x, b)	(((x) << (b)) | ((x) >> (64 - (b))))

struct bq_sip {
	u64 v0, v1, v2, v3;
};

static __always_inline void bq_sip_round(struct bq_sip *s)
{
	s->v0 += s->v1; s->v1 = BQ_ROTL64(s->v1, 13); s->v1 ^= s->v0; s->v0 = BQ_ROTL64(s->v0, 32);
	s->v2 += s->v3; s->v3 = BQ_ROTL64(s->v3, 16); s->v3 ^= s->v2;
	s->v0 += s->v3; s->v3 = BQ_ROTL64(s->v3, 21); s->v3 ^= s->v0;
	s->v2 += s->v1; s->v1 = BQ_ROTL64(s->v1, 17); s->v1 ^= s->v2; s->v2 = BQ_ROTL64(s->v2, 32);
}

static __always_inline void bq_sip_word(struct bq_sip *s, u64 m)
{
	s->v3 ^= m;
	bq_sip_round(s);
	s->v0 ^= m;
}

static __always_inline void bq_sip_init(struct bq_sip *s, const u64 key[2])
{
	s->v0 = key[0] ^ 0x736f6d6570736575ULL;
	s->v1 = key[1] ^ 0x646f72616e646f6dULL;
	s->v2 = key[0] ^ 0x6c7967656e657261ULL;
	s->v3 = key[1] ^ 0x7465646279746573ULL;
}

/* After words 64-bit words: the hash, folded to 32 bits. */
static __always_inline u32 bq_sip_final32(struct bq_sip *s, u32 words)
{
	u64 h;

	bq_sip_word(s, (u64)(words * 8) << 56);	/* the length, and no tail */
	s->v2 ^= 0xff;
	bq_sip_round(s);
	bq_sip_round(s);
	bq_sip_round(s);
	h = s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
	return h ^ (h >> 32);
}

/*
 * The instance's slot is kept in Qdisc.limit: BPF cannot reach qdisc_priv(),
 * and limit is the one per-qdisc word it may write that the kernel never
 * reads for a BPF qdisc. One ARRAY lookup, which the verifier inlines, and
 * a check that the slot is still this qdisc's cost less than hashing the
 * Qdisc pointer on every packet.
 */
static __always_inline struct bq_instance *bq_instance(struct Qdisc *sch)
{
	struct bq_slot *s = bq_slot_at(sch->limit);

	if (!s || s->owner != (u64)sch)
		return NULL;
	return &s->inst;
}

/* The slot holding inst: its parameters and state lie beside it. */
static __always_inline struct bq_slot *bq_slot_of(const struct bq_instance *inst)
{
	return (void *)inst - __builtin_offsetof(struct bq_slot, inst);
}

/* The instance's parameters; user space may change them between packets. */
static __always_inline const struct bq_params *bq_params_of(const struct bq_instance *inst)
{
	return &bq_slot_of(inst)->params;
}

/* --- counters: the one place that keeps qstats/bstats in step ---------- */

static __always_inline void bq_enqueued(struct Qdisc *sch, struct bq_instance *inst,
					u32 len)
{
	sch->q.qlen++;
	sch->qstats.backlog += len;
	inst->cnt.enqueued++;
}

/* Call with what dequeue returns; NULL passes through untouched. */
static __always_inline struct sk_buff *bq_dequeued(struct Qdisc *sch,
						   struct bq_instance *inst,
						   struct sk_buff *skb)
{
	u32 len;

	if (!skb)
		return NULL;
	len = bq_pkt_len(skb);
	sch->q.qlen--;
	sch->qstats.backlog -= len;
	inst->cnt.dequeued++;
	inst->cnt.dequeued_bytes += len;
	bpf_qdisc_bstats_update(sch, skb);
	return skb;
}

/* A dropped packet in qstats and in its reason's counter; inst may be NULL. */
static __always_inline void bq_count_drop(struct Qdisc *sch, struct bq_instance *inst,
					  enum bq_drop_reason why)
{
	sch->qstats.drops++;
	if (inst && why < BQ_MAX_DROPS)
		inst->cnt.drops[why]++;
	else
		__sync_fetch_and_add(&bq_orphan_drops, 1);
}

/*
 * Drop a packet that was never queued. inst may be NULL (no instance).
 * overlimits counts packets refused at the door, as tc's qdiscs count it.
 */
static __always_inline int bq_drop(struct Qdisc *sch, struct bq_instance *inst,
				   struct sk_buff *skb,
				   struct bpf_sk_buff_ptr *to_free,
				   enum bq_drop_reason why)
{
	if (why == BQ_DROP_OVERLIMIT)
		sch->qstats.overlimits++;
	bq_count_drop(sch, inst, why);
	bpf_qdisc_skb_drop(skb, to_free);
	return NET_XMIT_DROP;
}

/* Account for a queued packet freed by reset or destroy. */
static __always_inline void bq_purged(struct Qdisc *sch, struct sk_buff *skb)
{
	sch->q.qlen--;
	sch->qstats.backlog -= bq_pkt_len(skb);
	bpf_kfree_skb(skb);
}

/*
 * Drop a packet that was queued (counted by bq_enqueued) and is taken off
 * its queue now: CoDel's head drops at dequeue, fq_codel's drop of a
 * batch from the fattest flow at enqueue. bpf_kfree_skb is allowed in
 * every op, the to-free list only in enqueue. Not an overlimit: sch_fq_codel
 * counts neither kind there.
 */
static __always_inline void bq_drop_queued(struct Qdisc *sch, struct bq_instance *inst,
					   struct sk_buff *skb, enum bq_drop_reason why)
{
	bq_count_drop(sch, inst, why);
	bq_purged(sch, skb);
}

/* --- instance lifecycle ------------------------------------------------- */

static __always_inline struct bq_slot *bq_slot_claim(struct Qdisc *sch, u32 *slot)
{
	u32 i;

	bpf_for(i, 0, bq_max_instances) {
		struct bq_slot *s = bq_slot_at(i);

		if (s && __sync_val_compare_and_swap(&s->owner, 0, (u64)sch) == 0) {
			*slot = i;
			return s;
		}
	}
	return NULL;
}

static __always_inline bool bq_in_initial_net(struct Qdisc *sch)
{
	return BPF_CORE_READ(sch, dev_queue, dev, nd_net.net, ns.inum) == BQ_INIT_NET_INUM;
}

/* Where a new qdisc is, as its admission sees it. */
struct bq_origin {
	u64 netns_cookie;
	bool initial_net;
	u32 userns;		/* BQ_USERNS_* */
	u32 userns_owner;	/* whom that charges */
};

/*
 * Whose user namespace sch's netns belongs to (bq_origin.userns): the
 * initial one is the only one at level 0, every other its descendant.
 * Above all the others is one at level 1, whose owner no mapping of
 * subordinate ids or nesting below it changes: a user, or root (uid 0),
 * who made it for a pod or container and gave that its own netns_slots.
 * Levels stop at 32. vmlinux BTF has no variable init_user_ns to compare
 * with: it holds per-CPU variables only.
 */
static __always_inline void bq_origin_userns(struct Qdisc *sch, const struct bq_config *c,
					     struct bq_origin *o)
{
	struct user_namespace *ns = BPF_CORE_READ(sch, dev_queue, dev, nd_net.net, user_ns);
	u32 owner;
	int i;

	if (!ns || !BPF_CORE_READ(ns, level))
		return;
	for (i = 0; i < 32 && ns && BPF_CORE_READ(ns, level) > 1; i++)
		ns = BPF_CORE_READ(ns, parent);
	owner = ns ? BPF_CORE_READ(ns, owner.val) : 0;
	if (!owner && c->netns_slots) {
		o->userns = BQ_USERNS_ROOT;
		o->userns_owner = BPF_CORE_READ(ns, ns.inum);
	} else {
		o->userns = BQ_USERNS_USER;
		o->userns_owner = owner;
	}
}

/* Slots held in users' user namespaces, by o's owner, and in o's netns. */
struct bq_held {
	u32 userns;
	u32 owner;
	u32 netns;
};

static __always_inline void bq_slots_held(const struct bq_origin *o, struct bq_held *h)
{
	u32 i;

	h->userns = h->owner = h->netns = 0;
	bpf_for(i, 0, bq_max_instances) {
		struct bq_slot *s = bq_slot_at(i);

		if (!s || !s->owner)
			continue;
		h->userns += s->inst.userns == BQ_USERNS_USER;
		h->owner += s->inst.userns == o->userns && s->inst.userns_owner == o->userns_owner;
		h->netns += s->inst.where.netns_cookie == o->netns_cookie;
	}
}

/*
 * Whether the quotas of struct bq_config leave room for a qdisc from o.
 * Asked before the slot is claimed, so that a refused qdisc never holds
 * one, not even for a moment in which an unload would count it. Exact,
 * because .init runs under RTNL, one at a time.
 */
static __always_inline int bq_quota(const struct bq_config *c, const struct bq_origin *o)
{
	struct bq_held h;

	if (o->userns == BQ_USERNS_USER && !c->userns_slots)
		return -EPERM;
	if (o->userns == BQ_USERNS_INITIAL && (o->initial_net || !c->netns_slots))
		return 0;
	bq_slots_held(o, &h);
	if (o->userns == BQ_USERNS_USER && (h.userns >= c->userns_slots || h.owner >= c->user_slots))
		return -ENOSPC;
	if (o->userns == BQ_USERNS_ROOT && h.owner >= c->netns_slots)
		return -ENOSPC;
	if (!o->initial_net && c->netns_slots && h.netns >= c->netns_slots)
		return -ENOSPC;
	return 0;
}

/*
 * .init's opt is tca[TCA_OPTIONS]: NULL when the request has none (tc
 * without options, mq's default children). The kernel's stub does not
 * mark it nullable, so the verifier takes it as never NULL and deletes
 * an `if (!opt)` as dead code: reading opt->nla_len would oops on NULL.
 * bpf_probe_read_kernel fails cleanly on NULL instead, and reads the
 * payload, which BTF does not describe. Returns the payload's length
 * (0: no options), or -EINVAL if it is not a struct bq_options.
 */
static __always_inline int bq_options_read(const struct nlattr *opt, struct bq_options *o)
{
	const int hdrlen = sizeof(struct nlattr);	/* NLA_HDRLEN */
	struct nlattr hdr;

	/*
	 * Dead code on a stock kernel; where the stub marks opt nullable
	 * (tools/kernel-patches/0001) the verifier wants it before opt + hdrlen.
	 */
	if (!opt)
		return 0;
	if (bpf_probe_read_kernel(&hdr, sizeof(hdr), opt) || hdr.nla_len <= hdrlen)
		return 0;
	if (hdr.nla_len != hdrlen + sizeof(*o) ||
	    bpf_probe_read_kernel(o, sizeof(*o), (const char *)opt + hdrlen) ||
	    o->magic != BQ_OPT_MAGIC)
		return -EINVAL;
	return sizeof(*o);
}

/* Each priority's band at most max's, as src/units.c checks a priomap. */
static __always_inline bool bq_priomap_within(u64 v, u64 max)
{
	int i;

	for (i = 0; i < 64; i += 4)
		if (((v >> i) & 0xf) > ((max >> i) & 0xf))
			return false;
	return true;
}

/* A value the CLI would accept for parameter d; BQ_AUTO never is one. */
static __always_inline bool bq_param_valid(const struct bq_param_desc *d, u64 v)
{
	if (v == BQ_AUTO)
		return false;
	if (d->unit == BQ_UNIT_PRIOMAP)
		return bq_priomap_within(v, d->max);
	if (d->unit == BQ_UNIT_BOOL && v > 1)
		return false;
	return v >= d->min && v <= d->max;
}

/*
 * The parameters a new qdisc starts with, in o->v: the values opt gives
 * (struct bq_options, checked against the kind's table of n parameters),
 * the kind's defaults for the others. In o, not a struct bq_params of its
 * own, because .init's stack holds only one of them. -EINVAL for options
 * that are not a struct bq_options or give a parameter the kind lacks,
 * -ERANGE for a value out of its range: the errno is all that reaches tc.
 */
static __always_inline int bq_initial_params(const struct nlattr *opt,
					     const struct bq_param_desc *table, u32 n,
					     struct bq_options *o)
{
	struct bq_params *defaults;
	u32 zero = 0, i;
	int len;

	defaults = bpf_map_lookup_elem(&bq_defaults, &zero);
	if (!defaults)
		return -ENOENT;
	len = bq_options_read(opt, o);
	if (len < 0)
		return len;
	if (!len)
		o->given = 0;
	if (o->given >> n)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if ((o->given & (1U << i)) && !bq_param_valid(&table[i], o->v[i]))
			return -ERANGE;
	for (i = 0; i < BQ_MAX_PARAMS; i++)
		if (!(o->given & (1U << i)))
			o->v[i] = defaults->v[i];
	return 0;
}

/*
 * .init: state for a new qdisc, whose parameters are initial->v
 * (bq_initial_params). Filled in under the slot's lock, so that
 * bq_change, asked to change the slot's last instance, either finishes
 * first (and this overwrites its parameters) or finds a new generation.
 */
static __always_inline int bq_instance_create(struct Qdisc *sch,
					      const struct bq_options *initial)
{
	struct bq_where where = {
		.ifindex = BPF_CORE_READ(sch, dev_queue, dev, ifindex),
		.netns_cookie = BPF_CORE_READ(sch, dev_queue, dev, nd_net.net, net_cookie),
		.parent = sch->parent,
	};
	u64 now = bpf_ktime_get_ns();
	u32 slot, handle = sch->handle;
	struct bq_origin origin = {
		.netns_cookie = where.netns_cookie,
		.initial_net = bq_in_initial_net(sch),
	};
	u32 zero = 0;
	struct bq_config *c = bpf_map_lookup_elem(&bq_config, &zero);
	struct bq_slot_lock *l;
	struct bq_slot *s;
	int err;

	if (!c)
		return -ENOENT;
	bq_origin_userns(sch, c, &origin);
	err = bq_quota(c, &origin);
	if (err)
		return err;
	s = bq_slot_claim(sch, &slot);
	if (!s)
		return -ENOSPC;
	l = bpf_map_lookup_elem(&bq_slot_locks, &slot);
	/*
	 * closing after the claim's compare-and-swap, a full barrier:
	 * bq_unload sets it and then looks for claimed slots, so either this
	 * sees it or the unload sees this slot's owner.
	 */
	err = !l ? -ENOENT : c->closing ? -EBUSY : 0;
	if (err) {
		s->owner = 0;
		return err;
	}
	bpf_spin_lock(&l->lock);
	__builtin_memset(&s->inst, 0, sizeof(s->inst));
	s->inst.slot = slot;
	s->inst.where = where;
	s->inst.handle = handle;
	s->inst.userns = origin.userns;
	s->inst.userns_owner = origin.userns_owner;
	_Static_assert(sizeof(initial->v) == sizeof(s->params), "bq_options.v is a bq_params");
	__builtin_memcpy(&s->params, initial->v, sizeof(s->params));
	/* Last: user space skips a slot claimed but not yet filled in. */
	s->inst.created_ns = now;
	bpf_spin_unlock(&l->lock);
	sch->limit = slot;
	return 0;
}

/* .reset: after the policy freed its packets; parameters and counters stay. */
static __always_inline void bq_instance_reset(struct Qdisc *sch)
{
	struct bq_instance *inst = bq_instance(sch);

	if (!inst)
		return;
	inst->cnt.resets++;
}

/* .destroy: after the policy freed its own state. */
static __always_inline void bq_instance_destroy(struct Qdisc *sch)
{
	struct bq_instance *inst = bq_instance(sch);

	if (!inst)
		return;
	__builtin_memset(inst, 0, sizeof(*inst));
	bq_slot_of(inst)->owner = 0;
}

/*
 * .change (tools/kernel-patches/0003: tc qdisc change): the parameters
 * opt gives, checked as at .init, replace the instance's; the others stay.
 * Under the slot's lock, as bq_change from user space.
 */
static __always_inline int bq_instance_change(struct Qdisc *sch, const struct nlattr *opt,
					      const struct bq_param_desc *table, u32 n)
{
	struct bq_instance *inst = bq_instance(sch);
	struct bq_slot_lock *l;
	struct bq_options o;
	struct bq_slot *s;
	u32 slot, i;
	int len;

	if (!inst)
		return -ENOENT;
	len = bq_options_read(opt, &o);
	if (len <= 0)
		return len;
	if (o.given >> n)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if ((o.given & (1U << i)) && !bq_param_valid(&table[i], o.v[i]))
			return -ERANGE;
	slot = inst->slot;
	s = bq_slot_at(slot);
	l = bpf_map_lookup_elem(&bq_slot_locks, &slot);
	if (!s || !l)
		return -ENOENT;
	bpf_spin_lock(&l->lock);
	for (i = 0; i < BQ_MAX_PARAMS; i++)
		if (o.given & (1U << i))
			s->params.v[i] = o.v[i];
	bpf_spin_unlock(&l->lock);
	return 0;
}

/*
 * .dump (tools/kernel-patches/0003: tc qdisc show): the instance's
 * parameters, all n of them given, as the struct bq_options .init takes.
 */
static __always_inline int bq_instance_dump(struct Qdisc *sch, struct bq_dump_msg *msg, u32 n)
{
	struct bq_instance *inst = bq_instance(sch);
	struct bq_options o = { .magic = BQ_OPT_MAGIC, .given = (1U << n) - 1 };
	struct bq_slot_lock *l;
	struct bq_slot *s;
	u32 slot;

	if (!inst)
		return 0;
	slot = inst->slot;
	s = bq_slot_at(slot);
	l = bpf_map_lookup_elem(&bq_slot_locks, &slot);
	if (!s || !l)
		return 0;
	bpf_spin_lock(&l->lock);
	__builtin_memcpy(o.v, s->params.v, sizeof(o.v));
	bpf_spin_unlock(&l->lock);
	return bpf_qdisc_dump_options(msg, &o, sizeof(o));
}

/* bq_change's body (struct bq_change says why). */
static __always_inline int bq_change_params(struct bq_change *req)
{
	u32 slot = req->slot;
	struct bq_slot *s = bq_slot_at(slot);
	struct bq_slot_lock *l = bpf_map_lookup_elem(&bq_slot_locks, &slot);
	int err = -ESTALE;

	if (!s || !l)
		return -ENOENT;
	bpf_spin_lock(&l->lock);
	if (req->created_ns && s->inst.created_ns == req->created_ns) {
		s->params = req->params;
		err = 0;
	}
	bpf_spin_unlock(&l->lock);
	return err;
}

/* --- the kind's own state -------------------------------------------------- *
 *
 * BQ_STATE(struct fq_sched), after the struct: one per instance, last in
 * its bq_slots value, found with bq_state(inst) on the fast path (no lookup:
 * it lies beside the instance), or with the instance and its parameters
 * by bq_enter(sch, &inst, &p), p the kind's struct of parameters (so
 * BQ_PARAMS comes first). BQ_QDISC_OPS then takes the kind's hooks: the
 * framework zeroes the state and calls them.
 */
#define BQ_STATE(T)							\
	BQ_SLOTS_MAP(T);						\
	static __always_inline T *bq_state(const struct bq_instance *inst)	\
	{								\
		return &((struct bq_slot_value *)bq_slot_of(inst))->state;	\
	}								\
	/* What an op starts from: sch's instance, parameters, state; */ \
	/* NULL (and *inst NULL) if sch has none. */			\
	static __always_inline T *bq_enter(struct Qdisc *sch,		\
					   struct bq_instance **inst,	\
					   const bq_kind_params_t **p)	\
	{								\
		*inst = bq_instance(sch);					\
		*p = *inst ? bq_kind_params(bq_params_of(*inst)) : NULL;	\
		return *inst ? bq_state(*inst) : NULL;			\
	}

/*
 * The kind's two ops, opened as BQ_ENQUEUE(fifo) { ... } with skb, sch and
 * to_free in scope, and BQ_DEQUEUE(fifo) { ... } with sch.
 */
#define BQ_ENQUEUE(name)						\
	SEC("struct_ops")						\
	int BPF_PROG(name##_enqueue, struct sk_buff *skb, struct Qdisc *sch, \
		     struct bpf_sk_buff_ptr *to_free)
#define BQ_DEQUEUE(name)						\
	SEC("struct_ops")						\
	struct sk_buff *BPF_PROG(name##_dequeue, struct Qdisc *sch)

/* --- the ops --------------------------------------------------------------- *
 *
 * BQ_QDISC_OPS(fifo, fifo_setup, fifo_purge) emits the struct_ops of kind
 * bpf_fifo: fifo_enqueue and fifo_dequeue are the kind's; init, reset and
 * destroy the framework's, which call the hooks of the kind's BQ_STATE:
 *	BQ_QDISC_OPS(fq, fq_setup, fq_purge)
 *	BQ_QDISC_OPS(hbm, hbm_setup, hbm_purge, hbm_release)
 *   int setup(sch, inst, q) q is all zero: make it an empty state, at init
 *			   and after every reset. Non-zero refuses the qdisc
 *			   at init (as tc's error). setup(inst, q), as
 *			   framework 2.0 to 2.2 had it, is taken too.
 *   void purge(sch, inst, q) free every packet (bq_purged()) and entry the
 *			   state holds; at reset and at destroy.
 *   void release(inst, q)   destroy only, after purge: what a reset keeps
 *			   (per-instance configuration).
 */
#define BQ_NO_RELEASE(inst, q)

/*
 * setup(sch, inst, q), or setup(inst, q) as a qdisc written for framework
 * 2.0 to 2.2 has it: a minor version never breaks a qdisc's source. Each
 * call names the hook itself where its form is that call's, so a hook of
 * neither form still gets the compiler's message about its arguments.
 */
#define BQ_SETUP_TAKES_NO_SCH(setup, q)					\
	__builtin_types_compatible_p(typeof(&(setup)),			\
				     int (*)(struct bq_instance *, typeof(q)))
#define BQ_CALL_SETUP(setup, sch, inst, q)				\
	__builtin_choose_expr(BQ_SETUP_TAKES_NO_SCH(setup, q),		\
		__builtin_choose_expr(BQ_SETUP_TAKES_NO_SCH(setup, q), &(setup), \
			(int (*)(struct bq_instance *, typeof(q)))0)(inst, q), \
		__builtin_choose_expr(BQ_SETUP_TAKES_NO_SCH(setup, q),	\
			(int (*)(struct Qdisc *, struct bq_instance *, typeof(q)))0, \
			&(setup))(sch, inst, q))

/*
 * A kind that would send a packet arriving at an empty queue at once, and
 * keeps sch->q.qlen exact (bq_enqueued and bq_dequeued do), defines
 * BQ_CAN_BYPASS 1 before including this file: bpf_fifo and bpf_fq_codel,
 * as pfifo_fast and fq_codel set TCQ_F_CAN_BYPASS. Not bpf_fq or bpf_hbm,
 * which hold packets back. Where the kernel has the kfunc, a packet that
 * finds the qdisc empty then goes straight to the driver: tc -s counts it,
 * the kind's own counters do not see it.
 */
#ifndef BQ_CAN_BYPASS
#define BQ_CAN_BYPASS 0
#endif
static __always_inline void bq_bypass_init(struct Qdisc *sch)
{
	if (BQ_CAN_BYPASS && bpf_ksym_exists(bpf_qdisc_set_can_bypass))
		bpf_qdisc_set_can_bypass(sch, true);
}

/* The five ops: init, reset and destroy each call one function of sch (init with its opt too). */
#define BQ_OPS_EMIT(name, on_init, on_reset, on_destroy)		\
	SEC("struct_ops")						\
	int BPF_PROG(name##_init, struct Qdisc *sch, struct nlattr *opt, \
		     struct netlink_ext_ack *extack)			\
	{								\
		int err = on_init(sch, opt);				\
									\
		if (!err)						\
			bq_bypass_init(sch);				\
		return err;						\
	}								\
	SEC("struct_ops")						\
	void BPF_PROG(name##_reset, struct Qdisc *sch)			\
	{								\
		on_reset(sch);						\
	}								\
	SEC("struct_ops")						\
	void BPF_PROG(name##_destroy, struct Qdisc *sch)		\
	{								\
		on_destroy(sch);					\
	}								\
	SEC("syscall")							\
	int bq_change(struct bq_change *req)				\
	{								\
		return bq_change_params(req);				\
	}								\
	/* The loader leaves these two out where the kernel lacks them. */ \
	SEC("struct_ops")						\
	int BPF_PROG(name##_change, struct Qdisc *sch, struct nlattr *opt, \
		     struct netlink_ext_ack *extack)			\
	{								\
		return bq_instance_change(sch, opt, bq_param_table,	\
					  BQ_NPARAMS);			\
	}								\
	SEC("struct_ops")						\
	int BPF_PROG(name##_dump, struct Qdisc *sch, struct bq_dump_msg *msg) \
	{								\
		return bq_instance_dump(sch, msg, BQ_NPARAMS);		\
	}								\
	SEC(".struct_ops.link")						\
	struct Qdisc_ops name = {					\
		.enqueue = (void *)name##_enqueue,			\
		.dequeue = (void *)name##_dequeue,			\
		.init = (void *)name##_init,				\
		.reset = (void *)name##_reset,				\
		.destroy = (void *)name##_destroy,			\
		.change = (void *)name##_change,			\
		.dump = (void *)name##_dump,				\
		.id = "bpf_" #name,					\
	}

/*
 * Zero the kind's state q. The compiler makes __builtin_memset stores of
 * 8 bytes, at most 128 of them, and refuses a larger one: a larger state
 * (a rank tree's leaves, bq/ranktree.bpf.h) is zeroed by a loop of words.
 */
#define BQ_MEMSET_MAX		1024
static __always_inline void bq_zero_words(__u64 *w, __u32 n)
{
	__u32 i;

	bpf_for(i, 0, n)
		w[i] = 0;
}
#define BQ_ZERO_STATE(q)						\
	do {								\
		_Static_assert(sizeof(*(q)) <= BQ_MEMSET_MAX || sizeof(*(q)) % 8 == 0, \
			       "a large state is of words");		\
		if (sizeof(*(q)) <= BQ_MEMSET_MAX)			\
			__builtin_memset(q, 0, sizeof(*(q)) <= BQ_MEMSET_MAX ? \
					 sizeof(*(q)) : 0);		\
		else							\
			bq_zero_words((__u64 *)(q), sizeof(*(q)) / 8);	\
	} while (0)

#define BQ_OPS_STATE(name, setup, purge, release)			\
	static __always_inline int name##_state_init(struct Qdisc *sch,	\
						     const struct nlattr *opt) \
	{								\
		struct bq_instance *inst;					\
		struct bq_options initial;				\
		int err = bq_initial_params(opt, bq_param_table,	\
					    BQ_NPARAMS, &initial) ?:	\
			  bq_instance_create(sch, &initial);		\
									\
		if (err)						\
			return err;					\
		inst = bq_instance(sch);					\
		__auto_type q = inst ? bq_state(inst) : NULL;		\
		if (!q) {						\
			err = -ENOMEM;					\
		} else {						\
			BQ_ZERO_STATE(q);				\
			err = BQ_CALL_SETUP(setup, sch, inst, q);	\
		}							\
		if (err)						\
			bq_instance_destroy(sch);			\
		return err;						\
	}								\
	/* Reset leaves an empty state behind; destroy, nothing. */	\
	static __always_inline void name##_state_purge(struct Qdisc *sch, \
						       bool destroying)	\
	{								\
		struct bq_instance *inst = bq_instance(sch);		\
		__auto_type q = inst ? bq_state(inst) : NULL;		\
									\
		if (!q)						\
			return;						\
		purge(sch, inst, q);					\
		if (destroying) {					\
			release(inst, q);					\
		} else {						\
			BQ_ZERO_STATE(q);				\
			BQ_CALL_SETUP(setup, sch, inst, q);		\
		}							\
	}								\
	static __always_inline void name##_state_reset(struct Qdisc *sch) \
	{								\
		name##_state_purge(sch, false);				\
		bq_instance_reset(sch);					\
	}								\
	static __always_inline void name##_state_destroy(struct Qdisc *sch) \
	{								\
		name##_state_purge(sch, true);				\
		bq_instance_destroy(sch);				\
	}								\
	BQ_OPS_EMIT(name, name##_state_init, name##_state_reset, name##_state_destroy)

#define BQ_OPS_WITH_STATE(name, setup, purge)				\
	BQ_OPS_STATE(name, setup, purge, BQ_NO_RELEASE)
#define BQ_OPS_BAD_ARGS(...)						\
	_Static_assert(0, "BQ_QDISC_OPS(name, setup, purge[, release])")
#define BQ_OPS_PICK(_1, _2, _3, _4, ops, ...) ops
#define BQ_QDISC_OPS(...)						\
	BQ_OPS_PICK(__VA_ARGS__, BQ_OPS_STATE, BQ_OPS_WITH_STATE, BQ_OPS_BAD_ARGS, \
		    BQ_OPS_BAD_ARGS, )(__VA_ARGS__)

#endif /* BQ_CORE_BPF_H */
