/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc classes: settings per aggregate that `bpfqdisc class` writes and
 * shows (include/bpfqdisc.h says what a class is). The kind declares its
 * class map and fields, and what names an aggregate:
 *	struct hbm_class {
 *		__u64 rate;
 *	};
 *	BQ_CLASSES(hbm_classes, struct hbm_class, HBM_AGGS, BQ_CLASS_BY_PARAM(classify),
 *		BQ_CLASS_FIELD(rate, BQ_UNIT_RATE, 1, HBM_MAX_RATE, "rate", "unlimited"),
 *	);
 * and, if it counts per aggregate, where class show reads the counters:
 *	BQ_CLASS_AGGS(hbm_aggs, struct hbm_agg, info.id, 1, "aggregates",
 *		BQ_CLASS_COUNTER("pkts", info.pkts),
 *	);
 * BQ_CLASSES defines the class map (n classes per instance slot) and, for
 * the policy, bq_class(inst, id): the class of key id for instance inst, or NULL;
 * the kind's release hook calls bq_classes_forget(inst), for classes are
 * configuration that a reset keeps and the qdisc's end does not. The user
 * space side (src/class.c) knows nothing else of the kind.
 */
#ifndef BQ_CLASS_BPF_H
#define BQ_CLASS_BPF_H

#include "bq/core.bpf.h"

/* Aggregates named by the kind's parameter param (enum bq_class_by), or always by. */
#define BQ_CLASS_BY_PARAM(param)	.by_param = #param
#define BQ_CLASS_BY(by_key)		.by = (by_key)

/* 0, and a build error unless ok: a field of the wrong size. */
#define BQ_CLASS_CHECK(ok)	(0 * sizeof(char[(ok) ? 1 : -1]))
#define BQ_CLASS_SIZEOF(T, field)	sizeof(((T *)0)->field)
/* A field of the class: a __u32 or a __u64. */
#define BQ_CLASS_FIELD(field, unit, min, max, param, zero)		\
	{ #field, unit, __builtin_offsetof(bq_class_t, field),		\
	  BQ_CLASS_SIZEOF(bq_class_t, field) +				\
	  BQ_CLASS_CHECK(BQ_CLASS_SIZEOF(bq_class_t, field) == 4 ||	\
			 BQ_CLASS_SIZEOF(bq_class_t, field) == 8),	\
	  0, min, max, param, zero }
/* A counter of an aggregate: a __u64. */
#define BQ_CLASS_COUNTER(name, field)					\
	{ name, BQ_UNIT_COUNT, __builtin_offsetof(bq_class_agg_t, field) + \
	  BQ_CLASS_CHECK(BQ_CLASS_SIZEOF(bq_class_agg_t, field) == 8), 8 }

static long bq_forget_class(struct bpf_map *map, struct bq_class_key *k, void *c, u32 *slot)
{
	if (k->slot == *slot)
		bpf_map_delete_elem(map, k);
	return 0;
}

#define BQ_CLASSES(map, T, n, by, ...)					\
	typedef T bq_class_t;						\
	BQ_SLOT_MAP(map, BPF_MAP_TYPE_HASH, struct bq_class_key, T, n, BQ_MAP_PIN); \
	const struct bq_class_desc bq_class_desc SEC(".rodata.bq_classes") = { #map, by }; \
	const struct bq_class_field bq_class_fields[] SEC(".rodata.bq_class_fields") = { \
		__VA_ARGS__ };						\
	_Static_assert(sizeof(bq_class_fields) <=			\
		       BQ_MAX_CLASS_FIELDS * sizeof(struct bq_class_field), \
		       #T ": at most BQ_MAX_CLASS_FIELDS fields");	\
	static __always_inline __attribute__((unused)) T *		\
	bq_class(const struct bq_instance *inst, __u64 id)			\
	{								\
		struct bq_class_key k = { .slot = inst->slot, .gen = inst->created_ns, .id = id }; \
									\
		return bpf_map_lookup_elem(&map, &k);			\
	}								\
	static __always_inline __attribute__((unused)) void		\
	bq_classes_forget(const struct bq_instance *inst)			\
	{								\
		u32 slot = inst->slot;					\
									\
		bpf_for_each_map_elem(&map, bq_forget_class, &slot, 0);	\
	}

/*
 * Field f of key id's class, or dflt for a key with no class (a weight or
 * a deadline that a class sets and a parameter gives every other key):
 * bq_class_or(inst, key, weight, p->weight) (2.4).
 */
#define bq_class_or(inst, id, f, dflt)					\
	({								\
		bq_class_t *c_ = bq_class(inst, id);			\
									\
		c_ ? c_->f : (dflt);					\
	})

/*
 * A release hook (BQ_QDISC_OPS) that only forgets the classes, for a kind
 * with no other configuration: classes are configuration that a reset
 * keeps and the qdisc's end does not.
 */
#define BQ_CLASSES_RELEASE(inst, q)	bq_classes_forget(inst)

/*
 * The aggregates of slot map `map` (entries of type T): entries first ..
 * first + count - 1 of an instance's region are in use, count being the
 * kind's statistic of that name; the key of each is its __u64 field id.
 */
#define BQ_CLASS_AGGS(map, T, id, first, count, ...)			\
	typedef T bq_class_agg_t;					\
	const struct bq_class_aggs bq_class_aggs SEC(".rodata.bq_class_aggs") = { \
		#map, count, __builtin_offsetof(T, id) +		\
		BQ_CLASS_CHECK(BQ_CLASS_SIZEOF(T, id) == 8), first };	\
	const struct bq_class_field bq_class_counters[] SEC(".rodata.bq_class_counters") = { \
		__VA_ARGS__ };						\
	_Static_assert(sizeof(bq_class_counters) <=			\
		       BQ_MAX_CLASS_FIELDS * sizeof(struct bq_class_field), \
		       #T ": at most BQ_MAX_CLASS_FIELDS counters")

#endif /* BQ_CLASS_BPF_H */
