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

const struct bq_kind bq_kinds[] = {
#define BQ_QDISC(n, s) { #n, "bpf_" #n, s, n##__elf_bytes },
#include BQ_QDISCS
#undef BQ_QDISC
};
const size_t bq_nkinds = sizeof(bq_kinds) / sizeof(bq_kinds[0]);

const struct bq_kind *bq_kind_find(const char *name)
{
	for (size_t i = 0; i < bq_nkinds; i++)
		if (!strcmp(name, bq_kinds[i].name) || !strcmp(name, bq_kinds[i].kind))
			return &bq_kinds[i];
	return NULL;
}

const char *bq_kind_names(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < bq_nkinds && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "", bq_kinds[i].name);
	return buf;
}
