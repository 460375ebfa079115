// SPDX-License-Identifier: GPL-2.0
/*
 * What a kind's object says of itself: its parameters, statistics, drop
 * reasons and classes, read from the sections of its embedded object
 * (elf.c), without libbpf, so that the CLI and the tc plugin parse and
 * print with the same tables.
 */
#include <errno.h>
#include <string.h>
#include "lib.h"

const void *bq_kind_elf(const struct bq_kind *k, size_t *sz)
{
	if (!k->elf)
		return k->elf_bytes(sz);
	*sz = k->elf_sz;
	return k->elf;
}

size_t bq_kind_table(const struct bq_kind *k, const char *sec, void *dst, size_t sz, size_t max)
{
	size_t objsz, len = 0, n;
	const void *obj = bq_kind_elf(k, &objsz);
	/* A kind without the table has no section. */
	const void *table = bq_elf_section(obj, objsz, sec, &len);

	n = table ? len / sz : 0;
	if (n > max)
		n = max;
	if (n)
		memcpy(dst, table, n * sz);
	return n;
}

static const struct bq_drop_desc core_drops[BQ_DROP_KIND] = {
	[BQ_DROP_NO_INSTANCE] = { "no_instance" },
	[BQ_DROP_OVERLIMIT] = { "overlimit" },
	[BQ_DROP_NOMEM] = { "nomem" },
};

/* Its classes, if it declares them: false if not. */
static bool read_classes(const struct bq_kind *k, struct bq_kind_classes *c)
{
	struct bq_map_desc maps[BQ_MAX_SLOT_MAPS];
	size_t n = bq_kind_table(k, ".rodata.bq_maps", maps, sizeof(maps[0]), BQ_MAX_SLOT_MAPS);

	if (!bq_kind_table(k, ".rodata.bq_classes", &c->desc, sizeof(c->desc), 1))
		return false;
	c->nfields = bq_kind_table(k, ".rodata.bq_class_fields", c->fields, sizeof(c->fields[0]),
				   BQ_MAX_CLASS_FIELDS);
	if (bq_kind_table(k, ".rodata.bq_class_aggs", &c->aggs, sizeof(c->aggs), 1))
		c->ncounters = bq_kind_table(k, ".rodata.bq_class_counters", c->counters,
					     sizeof(c->counters[0]), BQ_MAX_CLASS_FIELDS);
	/* A region of --class-slots entries is as the load made it. */
	for (size_t i = 0; i < n; i++)
		if (!strcmp(maps[i].name, c->aggs.map))
			c->per_slot = maps[i].per_slot & BQ_PER_CLASS_FLAG ?
				      bq_pinned_per_slot(k, maps[i].name) : maps[i].per_slot;
	return true;
}

int bq_kind_framework_minor(const struct bq_kind *k)
{
	struct bq_version v;

	if (!bq_kind_table(k, ".rodata.bq_version", &v, sizeof(v), 1))
		bq_err("%s has no framework version: not built with the bpfqdisc framework %d.0 or later",
		       k->kind, BQ_FRAMEWORK_MAJOR);
	else if (v.major != BQ_FRAMEWORK_MAJOR || v.minor > BQ_FRAMEWORK_MINOR)
		bq_err("%s was built for the bpfqdisc framework %u.%u; this bpfqdisc reads %d.0 to %d.%d",
		       k->kind, v.major, v.minor, BQ_FRAMEWORK_MAJOR, BQ_FRAMEWORK_MAJOR,
		       BQ_FRAMEWORK_MINOR);
	else
		return v.minor;
	return -ENOEXEC;
}

bool bq_kind_framework_ok(const struct bq_kind *k)
{
	return bq_kind_framework_minor(k) >= 0;
}

const struct bq_kind_meta *bq_kind_meta(const struct bq_kind *k)
{
	static struct bq_kind_meta cache[64];
	static bool cached[64];
	size_t idx = k - bq_kinds;
	struct bq_kind_meta *m = &cache[idx];

	if (idx >= 64)
		return NULL;
	if (cached[idx])
		return m;
	if (k->plain || !bq_kind_framework_ok(k))
		return NULL;
	m->nparams = bq_kind_table(k, ".rodata.bq_params", m->params, sizeof(m->params[0]),
				   BQ_MAX_PARAMS);
	m->nxstats = bq_kind_table(k, ".rodata.bq_xstats", m->xstats, sizeof(m->xstats[0]),
				   BQ_MAX_XSTATS);
	m->ndrops = BQ_DROP_KIND + bq_kind_table(k, ".rodata.bq_drops", m->drops + BQ_DROP_KIND,
						 sizeof(m->drops[0]), BQ_MAX_DROPS - BQ_DROP_KIND);
	m->has_classes = read_classes(k, &m->classes);
	memcpy(m->drops, core_drops, sizeof(core_drops));
	/* The table is indexed by field (BQ_PARAMS): a gap is a field with no entry. */
	for (size_t i = 0; i < m->nparams; i++) {
		if (!m->params[i].name[0]) {
			bq_err("%s: parameter %zu has no name (a field without BQ_PARAM)", k->kind, i);
			return NULL;
		}
	}
	cached[idx] = true;
	return m;
}

int bq_kind_params(const struct bq_kind *k, struct bq_param_set *set)
{
	const struct bq_kind_meta *m = bq_kind_meta(k);

	memset(set, 0, sizeof(*set));
	if (k->plain)
		bq_err("%s has none of the bpfqdisc framework's tables (parameters, statistics, classes): "
		       "a struct_ops qdisc without it, %s", k->kind, k->summary);
	if (!m)
		return -EINVAL;
	set->desc = m->params;
	set->n = m->nparams;
	set->kind = k->kind;
	for (size_t i = 0; i < set->n; i++)
		set->val.v[i] = set->desc[i].def;
	return 0;
}

const struct bq_kind *bq_param_owner(const char *name, const char **param)
{
	for (size_t j = 0; j < bq_nkinds; j++) {
		const struct bq_kind_meta *m = bq_kinds[j].plain ? NULL : bq_kind_meta(&bq_kinds[j]);

		for (size_t i = 0; m && i < m->nparams; i++) {
			if (!strcmp(m->params[i].name, name)) {
				*param = m->params[i].name;
				return &bq_kinds[j];
			}
		}
	}
	return NULL;
}
