/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a program needs to keep local objects (bpf_obj_new) on a
 * bpf_list or a bpf_rb_tree in its globals, as upstream's selftests
 * write it: the measurement qdiscs (store_probe.bpf.c, rank_rbtree.bpf.c)
 * that compare that pattern with the framework's storage.
 */
#ifndef LOCAL_GRAPH_H
#define LOCAL_GRAPH_H

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;
#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)

/* A list head or tree root of objects of type name, linked by their member node. */
#define __contains(name, node) __attribute__((btf_decl_tag("contains:" #name ":" #node)))
/* Globals in a section of their own, which a lock and what it guards share. */
#define private(name) SEC(".data." #name) __hidden __attribute__((aligned(8)))

/*
 * The object whose member at offset off is the node n, or NULL. The check
 * first: the verifier refuses arithmetic on a maybe-NULL pointer.
 */
#define graph_entry(n, type, member)					\
	({								\
		void *__n = (void *)(n);				\
		type *__e = NULL;					\
									\
		if (__n) {						\
			asm volatile("" : "+r"(__n));			\
			__e = (type *)(__n - __builtin_offsetof(type, member)); \
		}							\
		__e;							\
	})

#endif
