/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc lists: doubly linked lists of entries of a per-instance region,
 * linked by index (0 ends a list: index 0 is never an entry, see
 * ids.bpf.h). An entry holds a struct bq_link; BQ_LIST_OPS() makes the
 * operations for an entry type and the kind's lookup of it, so the same
 * lists serve any entry type. A zeroed struct bq_list is empty. No allocation, no lock.
 *
 * Needs only __u32 and struct bq_instance: selftests/unit/test_parts.c
 * checks it natively
 * against a model.
 */
#ifndef BQ_LIST_BPF_H
#define BQ_LIST_BPF_H

struct bq_list {
	__u32 head, tail;
};

struct bq_link {
	__u32 next, prev;
};

/*
 * BQ_LIST_OPS(fq_list, struct fq_flow, fq_flow) defines fq_list_add_tail()
 * and fq_list_del() for entries of type T, each with a struct bq_link
 * `link`, found by index with T *at(const struct bq_instance *inst, __u32 idx).
 * The lookups stay inside: a neighbour's link is written only through a
 * pointer just checked, as the verifier wants it.
 */
#define BQ_LIST_OPS(name, T, at)					\
	/* Append entry e, index idx, to l. */				\
	static __always_inline void name##_add_tail(const struct bq_instance *inst, \
						    struct bq_list *l, T *e, __u32 idx) \
	{								\
		T *t;							\
									\
		e->link.next = 0;					\
		e->link.prev = l->tail;					\
		if (l->tail && (t = at(inst, l->tail)))			\
			t->link.next = idx;				\
		else							\
			l->head = idx;					\
		l->tail = idx;						\
	}								\
	/* Unlink entry e, index idx, from l. */			\
	static __always_inline void name##_del(const struct bq_instance *inst, \
					       struct bq_list *l, T *e, __u32 idx) \
	{								\
		T *n;							\
									\
		if (e->link.prev && (n = at(inst, e->link.prev)))		\
			n->link.next = e->link.next;			\
		else							\
			l->head = e->link.next;				\
		if (e->link.next && (n = at(inst, e->link.next)))		\
			n->link.prev = e->link.prev;			\
		else							\
			l->tail = e->link.prev;				\
		e->link.next = e->link.prev = 0;			\
	}

#endif /* BQ_LIST_BPF_H */
