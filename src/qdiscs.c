// SPDX-License-Identifier: GPL-2.0
/* The registry: one entry per line of qdiscs.def, each with its object. */
#include <stdio.h>
#include <string.h>
#include "lib.h"

/* The tests' CLI (bin/bpfqdisc_test) is built with lists of its own. */
#ifndef BQ_QDISCS
#define BQ_QDISCS "qdiscs.def"
#define BQ_SKELS "skels.h"
#endif
#include BQ_SKELS	/* generated: the skeleton of every BPF object */

enum {
#define BQ_QDISC(n, s) BQ_BUILTIN_##n,
#include BQ_QDISCS
#undef BQ_QDISC
	BQ_NBUILTIN
};

/* The built-in kinds, then room for those loaded from files (objkind.c). */
struct bq_kind bq_kinds[BQ_NBUILTIN + BQ_MAX_LOADED] = {
#define BQ_QDISC(n, s) { .name = #n, .kind = "bpf_" #n, .summary = s, .elf_bytes = n##__elf_bytes },
#include BQ_QDISCS
#undef BQ_QDISC
};
const size_t bq_nbuiltin = BQ_NBUILTIN;
size_t bq_nkinds = BQ_NBUILTIN;

static const struct bq_kind *find_in(const char *name, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, bq_kinds[i].name) || !strcmp(name, bq_kinds[i].kind))
			return &bq_kinds[i];
	return NULL;
}

const struct bq_kind *bq_kind_builtin(const char *name)
{
	return find_in(name, bq_nbuiltin);
}

const struct bq_kind *bq_kind_find(const char *name)
{
	bq_kinds_discover();
	return find_in(name, bq_nkinds);
}

const char *bq_kind_names(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < bq_nkinds && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "", bq_kinds[i].name);
	return buf;
}
