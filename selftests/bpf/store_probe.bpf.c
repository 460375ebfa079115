// SPDX-License-Identifier: GPL-2.0
/*
 * Where a BPF qdisc can keep what it holds, if not in regions of ARRAY
 * maps sized at load (issue "memory that follows use"): one FIFO per
 * candidate, built with -DSTORE=n, each registered as bpf_stN. Like
 * bpf_floor (fifo_floor.bpf.c), each keeps one instance's queue in
 * globals, so that a run compares the storage alone, beside bpf_floor's
 * ARRAY ring. selftests/progs/store_probe.sh measures them.
 *
 *   1  a node per packet, bpf_obj_new'd, on a bpf_list under a lock
 *      (upstream's bpf_qdisc_fifo.c);
 *   2  the same nodes recycled through a free list: no allocation once
 *      the queue has been this long;
 *   3  a HASH map with BPF_F_NO_PREALLOC of one skb slot per index, an
 *      element made the first time its index is used;
 *   4  bpf_floor's ring, with the instance's indexes and counters in an
 *      arena page allocated at .init, found through Qdisc.limit: what an
 *      instance record in the arena costs;
 *   5  chunks of 8 skbs, each a bpf_obj_new'd object kept in a slot of an
 *      ARRAY of chunk slots, made when the tail enters a chunk and freed
 *      when the head leaves it. A local object has at most 11 special
 *      fields (BTF_FIELDS_MAX) and kptrs only at constant offsets, hence
 *      8 named fields and a switch.
 */
#include "bq/ring.bpf.h"
#include "local_graph.h"
#include "bare_qdisc.h"

char LICENSE[] SEC("license") = "GPL";

#define ST_LIMIT	1000
#define ST_SLOTS	4096

/* Program names st<STORE>_enqueue, st<STORE>_dequeue: bpf_stats tells them apart. */
#define ST_FN3(n, op)		st##n##_##op
#define ST_FN2(n, op)		ST_FN3(n, op)
#define ST_FN(op)		ST_FN2(STORE, op)
#define ST_PROG(name, args...)	BPF_PROG(name, args)

u32 st_head, st_tail;

#if STORE == 1 || STORE == 2
extern int bpf_list_push_back_impl(struct bpf_list_head *head, struct bpf_list_node *node,
				   void *meta, __u64 off) __ksym;
extern struct bpf_list_node *bpf_list_pop_front(struct bpf_list_head *head) __ksym;

struct st_node {
	struct sk_buff __kptr *skb;
	struct bpf_list_node node;
};

private(A) struct bpf_spin_lock st_lock;
private(A) struct bpf_list_head st_queue __contains(st_node, node);
private(A) struct bpf_list_head st_spare __contains(st_node, node);

static __always_inline struct st_node *st_node_of(struct bpf_list_node *ln)
{
	return graph_entry(ln, struct st_node, node);
}

static __always_inline struct st_node *st_node_get(void)
{
	struct st_node *n = NULL;

	if (STORE == 2) {
		bpf_spin_lock(&st_lock);
		n = st_node_of(bpf_list_pop_front(&st_spare));
		bpf_spin_unlock(&st_lock);
	}
	return n ?: bpf_obj_new(struct st_node);
}

static __always_inline void st_node_put(struct st_node *n)
{
	if (STORE == 1) {
		bpf_obj_drop(n);
		return;
	}
	bpf_spin_lock(&st_lock);
	bpf_list_push_back_impl(&st_spare, &n->node, NULL, 0);
	bpf_spin_unlock(&st_lock);
}

/* 0, or -1 with skb still the caller's. */
static __always_inline int st_push(struct sk_buff *skb)
{
	struct st_node *n = st_node_get();

	if (!n)
		return -1;
	skb = bpf_kptr_xchg(&n->skb, skb);
	if (skb)
		bpf_kfree_skb(skb);
	bpf_spin_lock(&st_lock);
	bpf_list_push_back_impl(&st_queue, &n->node, NULL, 0);
	bpf_spin_unlock(&st_lock);
	return 0;
}

static __always_inline struct sk_buff *st_pop(void)
{
	struct st_node *n;
	struct sk_buff *skb;

	bpf_spin_lock(&st_lock);
	n = st_node_of(bpf_list_pop_front(&st_queue));
	bpf_spin_unlock(&st_lock);
	if (!n)
		return NULL;
	skb = bpf_kptr_xchg(&n->skb, NULL);
	st_node_put(n);
	return skb;
}

#elif STORE == 3
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, ST_SLOTS);
	__type(key, u32);
	__type(value, struct bq_skb_slot);
} st_hash SEC(".maps");

static __always_inline struct bq_skb_slot *st_slot(u32 idx, bool make)
{
	u32 key = idx & (ST_SLOTS - 1);
	struct bq_skb_slot *s = bpf_map_lookup_elem(&st_hash, &key), empty = {};

	if (s || !make)
		return s;
	bpf_map_update_elem(&st_hash, &key, &empty, BPF_NOEXIST);
	return bpf_map_lookup_elem(&st_hash, &key);
}

static __always_inline int st_push(struct sk_buff *skb)
{
	struct bq_skb_slot *s = st_slot(st_tail, true);

	if (!s)
		return -1;
	skb = bpf_kptr_xchg(&s->skb, skb);
	if (skb)
		bpf_kfree_skb(skb);
	st_tail++;
	return 0;
}

static __always_inline struct sk_buff *st_pop(void)
{
	struct bq_skb_slot *s = st_slot(st_head, false);

	if (!s)
		return NULL;
	st_head++;
	return bpf_kptr_xchg(&s->skb, NULL);
}

#elif STORE == 4
#define __arena __attribute__((address_space(1)))

struct {
	__uint(type, BPF_MAP_TYPE_ARENA);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1 << 16);	/* pages of address space, none allocated */
} st_arena SEC(".maps");

struct st_inst {
	u64 owner;
	u32 head, tail;
	u64 enqueued, dequeued;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, ST_SLOTS);
	__type(key, u32);
	__type(value, struct bq_skb_slot);
} st_ring SEC(".maps");

/*
 * The page's offset is in Qdisc.limit. A program that casts an arena
 * pointer must name the arena itself: the empty asm does.
 */
static __always_inline struct st_inst __arena *st_inst(struct Qdisc *sch)
{
	struct st_inst __arena *in = (struct st_inst __arena *)(u64)sch->limit;

	asm volatile("" :: "r"(&st_arena));
	if (!sch->limit || in->owner != (u64)sch)
		return NULL;
	return in;
}

static __always_inline int st_push(struct Qdisc *sch, struct sk_buff *skb)
{
	struct st_inst __arena *in = st_inst(sch);
	struct bq_skb_slot *s;
	u32 key;

	if (!in)
		return -1;
	key = in->tail & (ST_SLOTS - 1);
	s = bpf_map_lookup_elem(&st_ring, &key);
	if (!s)
		return -1;
	skb = bpf_kptr_xchg(&s->skb, skb);
	if (skb)
		bpf_kfree_skb(skb);
	in->tail++;
	in->enqueued++;
	return 0;
}

static __always_inline struct sk_buff *st_pop(struct Qdisc *sch)
{
	struct st_inst __arena *in = st_inst(sch);
	struct bq_skb_slot *s;
	u32 key;

	if (!in)
		return NULL;
	key = in->head & (ST_SLOTS - 1);
	s = bpf_map_lookup_elem(&st_ring, &key);
	if (!s)
		return NULL;
	in->head++;
	in->dequeued++;
	return bpf_kptr_xchg(&s->skb, NULL);
}

#elif STORE == 5
#define ST_CHUNK	8

struct st_chunk {
	struct sk_buff __kptr *s0, *s1, *s2, *s3, *s4, *s5, *s6, *s7;
};

struct st_chunk_slot {
	struct st_chunk __kptr *c;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, ST_SLOTS / ST_CHUNK);
	__type(key, u32);
	__type(value, struct st_chunk_slot);
} st_chunks SEC(".maps");

#define ST_XCHG(k)	case k: v = bpf_kptr_xchg(&c->s##k, v); break;
/* Swap v into place idx of chunk c, returning what was there. */
static __always_inline struct sk_buff *st_chunk_xchg(struct st_chunk *c, u32 idx,
						     struct sk_buff *v)
{
	switch (idx & (ST_CHUNK - 1)) {
	ST_XCHG(0) ST_XCHG(1) ST_XCHG(2) ST_XCHG(3)
	ST_XCHG(4) ST_XCHG(5) ST_XCHG(6) ST_XCHG(7)
	}
	return v;
}

static __always_inline struct st_chunk_slot *st_chunk_slot(u32 idx)
{
	u32 key = (idx / ST_CHUNK) & (ST_SLOTS / ST_CHUNK - 1);

	return bpf_map_lookup_elem(&st_chunks, &key);
}

/* Put chunk c back in its slot (which nobody else fills: the qdisc's lock). */
static __always_inline void st_chunk_put(struct st_chunk_slot *cs, struct st_chunk *c)
{
	c = bpf_kptr_xchg(&cs->c, c);
	if (c)
		bpf_obj_drop(c);
}

static __always_inline int st_push(struct sk_buff *skb)
{
	struct st_chunk_slot *cs = st_chunk_slot(st_tail);
	struct st_chunk *c;

	if (!cs)
		return -1;
	c = bpf_kptr_xchg(&cs->c, NULL) ?: bpf_obj_new(struct st_chunk);
	if (!c)
		return -1;
	skb = st_chunk_xchg(c, st_tail, skb);
	if (skb)
		bpf_kfree_skb(skb);
	st_chunk_put(cs, c);
	st_tail++;
	return 0;
}

static __always_inline struct sk_buff *st_pop(void)
{
	struct st_chunk_slot *cs = st_chunk_slot(st_head);
	struct st_chunk *c = cs ? bpf_kptr_xchg(&cs->c, NULL) : NULL;
	struct sk_buff *skb;

	if (!c)
		return NULL;
	skb = st_chunk_xchg(c, st_head, NULL);
	if ((st_head++ & (ST_CHUNK - 1)) == ST_CHUNK - 1)
		bpf_obj_drop(c);	/* its packets are gone: so is the chunk */
	else
		st_chunk_put(cs, c);
	return skb;
}
#endif

#if STORE == 4
#define ST_PUSH(skb)	st_push(sch, skb)
#define ST_POP()	st_pop(sch)
#else
#define ST_PUSH(skb)	st_push(skb)
#define ST_POP()	st_pop()
#endif

SEC("struct_ops")
int ST_PROG(ST_FN(enqueue), struct sk_buff *skb, struct Qdisc *sch,
	    struct bpf_sk_buff_ptr *to_free)
{
	u32 len = bq_pkt_len(skb);

	if (sch->q.qlen >= ST_LIMIT || ST_PUSH(skb)) {
		bpf_qdisc_skb_drop(skb, to_free);
		return NET_XMIT_DROP;
	}
	bare_enqueued(sch, len);
	return NET_XMIT_SUCCESS;
}

SEC("struct_ops")
struct sk_buff *ST_PROG(ST_FN(dequeue), struct Qdisc *sch)
{
	if (!sch->q.qlen)
		return NULL;
	return bare_dequeued(sch, ST_POP());
}

SEC("struct_ops")
int BPF_PROG(st_init, struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack)
{
#if STORE == 4
	struct st_inst __arena *in;

	in = (struct st_inst __arena *)bpf_arena_alloc_pages(&st_arena, NULL, 1, -1, 0);
	if (!in)
		return -ENOMEM;
	in->owner = (u64)sch;
	sch->limit = (u32)(u64)in;
#endif
	return 0;
}

/* Free what is queued: reset and destroy. */
static __always_inline void st_purge(struct Qdisc *sch)
{
	struct sk_buff *skb;
	u32 i;

	bpf_for(i, 0, ST_LIMIT) {
		if (!sch->q.qlen)
			break;
		skb = ST_POP();
		if (!skb)
			break;
		bq_purged(sch, skb);
	}
}

SEC("struct_ops")
void BPF_PROG(st_reset, struct Qdisc *sch)
{
	st_purge(sch);
}

SEC("struct_ops")
void BPF_PROG(st_destroy, struct Qdisc *sch)
{
	st_purge(sch);
#if STORE == 4
	struct st_inst __arena *in = st_inst(sch);

	if (in) {
		in->owner = 0;
		bpf_arena_free_pages(&st_arena, (void *)in, 1);
	}
#endif
}

#define ST_STR2(n)	#n
#define ST_STR(n)	ST_STR2(n)
#define ST_OPS2(n)	store_probe##n
#define ST_OPS(n)	ST_OPS2(n)
SEC(".struct_ops.link")
struct Qdisc_ops ST_OPS(STORE) = {
	.enqueue = (void *)ST_FN(enqueue),
	.dequeue = (void *)ST_FN(dequeue),
	.init = (void *)st_init,
	.reset = (void *)st_reset,
	.destroy = (void *)st_destroy,
	.id = "bpf_st" ST_STR(STORE),
};
