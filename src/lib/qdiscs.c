// SPDX-License-Identifier: GPL-2.0
/*
 * The built-in kinds: one entry per line of qdiscs.def, each with its
 * object, and room for those loaded from files. Data only: the registry's
 * code is kinds.c.
 */
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

struct bq_kind bq_kinds[BQ_NBUILTIN + BQ_MAX_LOADED] = {
#define BQ_QDISC(n, s) { .name = #n, .kind = "bpf_" #n, .summary = s, .elf_bytes = n##__elf_bytes },
#include BQ_QDISCS
#undef BQ_QDISC
};
const size_t bq_nbuiltin = BQ_NBUILTIN;
size_t bq_nkinds = BQ_NBUILTIN;
