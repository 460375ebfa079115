/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc key table: the entry of a 64-bit key (a socket, a packet hash,
 * a cgroup id) among the entries of a per-instance region. A region of
 * buckets holds the head of each chain; the chains are linked through the
 * entries by index (0 ends a chain, as it ends a list: index 0 is never an
 * entry, see ids.bpf.h). The table only hashes: which indexes are in use
 * is the allocator's (ids.bpf.h), and which entry is idle enough to reuse
 * is the kind's, found by a list (fq's detached flows) or a scan (hbm's
 * aggregates). No allocation, no lock: a reader without the qdisc's lock
 * (a tc program) may miss an entry that moves meanwhile, never follow a
 * chain out of the region.
 *
 * A walk follows a chain at most BQ_KEYTAB_CHAIN entries: a key further
 * down is not found (its kind then makes a second entry for it, first in
 * the chain, or does without), and such an entry cannot be unhashed. Keys
 * are spread by bq_hash32(): only keys chosen to collide make such chains.
 *
 * Needs only __u32, __u64 and bpf_for: selftests/unit/test_parts.c checks
 * it natively against a model.
 */
#ifndef BQ_KEYTAB_BPF_H
#define BQ_KEYTAB_BPF_H

#define BQ_KEYTAB_CHAIN	64

/*
 * BQ_KEYTAB_OPS(fq_tab, struct fq_flow, fq_flow, fq_bucket, key) defines
 * fq_tab_find(), fq_tab_insert(), fq_tab_remove() and fq_tab_forget() for
 * entries of type T, each with a __u64 member `keyf` (its key) and a __u32
 * `hnext` (its chain), found by index with
 * T *at(const struct bq_instance *inst, __u32 idx), the head of the chain
 * of key with __u32 *bucket(const struct bq_instance *inst, __u64 key).
 */
#define BQ_KEYTAB_OPS(name, T, at, bucket, keyf)			\
	/* The entry of key, or 0 if it has none. */			\
	static __always_inline __u32 name##_find(const struct bq_instance *inst, \
						 __u64 key)		\
	{								\
		__auto_type b = bucket(inst, key);			\
		__u32 idx, i;						\
		T *e;							\
									\
		if (!b)							\
			return 0;					\
		idx = *b;						\
		/* Usually first: a hit costs no loop. */		\
		e = idx ? at(inst, idx) : NULL;				\
		if (!e || e->keyf == key)				\
			return e ? idx : 0;				\
		bpf_for(i, 1, BQ_KEYTAB_CHAIN) {			\
			idx = e->hnext;					\
			e = idx ? at(inst, idx) : NULL;			\
			if (!e)						\
				return 0;				\
			if (e->keyf == key)				\
				return idx;				\
		}							\
		return 0;						\
	}								\
	/* Hash entry e, index idx, under key, first in its chain. */	\
	static __always_inline bool name##_insert(const struct bq_instance *inst, \
						  T *e, __u32 idx, __u64 key) \
	{								\
		__auto_type b = bucket(inst, key);			\
									\
		if (!b)							\
			return false;					\
		e->keyf = key;						\
		e->hnext = *b;						\
		*b = idx;						\
		return true;						\
	}								\
	/*								\
	 * Unhash entry e, index idx. false if it is not within		\
	 * BQ_KEYTAB_CHAIN of its chain's head: it stays hashed, rather	\
	 * than leave a chain through an entry that is reused.		\
	 */								\
	static __always_inline bool name##_remove(const struct bq_instance *inst, \
						  T *e, __u32 idx)	\
	{								\
		__auto_type b = bucket(inst, e->keyf);			\
		__u32 i;						\
		T *c;							\
									\
		if (!b)							\
			return false;					\
		if (*b == idx) {					\
			*b = e->hnext;					\
			return true;					\
		}							\
		c = *b ? at(inst, *b) : NULL;				\
		bpf_for(i, 1, BQ_KEYTAB_CHAIN) {			\
			if (!c)						\
				return false;				\
			if (c->hnext == idx) {				\
				c->hnext = e->hnext;			\
				return true;				\
			}						\
			c = c->hnext ? at(inst, c->hnext) : NULL;	\
		}							\
		return false;						\
	}								\
	/*								\
	 * Empty the chain that e's key hashes to: a purge that forgets	\
	 * every entry calls it for each, which leaves every bucket 0	\
	 * without a pass over them all.				\
	 */								\
	static __always_inline __attribute__((unused)) void		\
	name##_forget(const struct bq_instance *inst, const T *e)	\
	{								\
		__auto_type b = bucket(inst, e->keyf);			\
									\
		if (b)							\
			*b = 0;						\
	}

#endif /* BQ_KEYTAB_BPF_H */
