// SPDX-License-Identifier: GPL-2.0
/* bpfqdisc params: a kind's parameters, their units, defaults and ranges. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"

const char params_help[] =
	"  params KIND\n"
	"      Show the parameters of KIND: unit, default and range.\n"
	;

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* Columns as wide as their longest word; a footer says what (auto) is. */
int do_params(int argc, char **argv)
{
	const struct bq_kind *k;
	struct bq_param_set set;
	char def[BQ_MAX_PARAMS][32], range[80];
	int name_w = strlen("PARAM"), unit_w = strlen("UNIT"), def_w = strlen("DEFAULT");
	bool any_auto = false;
	int err;

	err = bq_kind_lookup(argc > 1 ? argv[1] : NULL, &k) ?: bq_kind_params(k, &set);
	if (err)
		return err;
	for (size_t i = 0; i < set.n; i++) {
		const struct bq_param_desc *p = &set.desc[i];

		name_w = max_int(name_w, strlen(p->name));
		unit_w = max_int(unit_w, strlen(bq_unit_name(p->unit)));
		def_w = max_int(def_w, strlen(bq_format_default(p, def[i], sizeof(def[i]))));
		any_auto |= p->def == BQ_AUTO;
	}
	printf("%-*s %-*s %-*s %s\n", name_w, "PARAM", unit_w, "UNIT", def_w, "DEFAULT", "RANGE");
	for (size_t i = 0; i < set.n; i++) {
		const struct bq_param_desc *p = &set.desc[i];

		printf("%-*s %-*s %-*s %s\n", name_w, p->name, unit_w, bq_unit_name(p->unit), def_w,
		       def[i], bq_format_range(p, range, sizeof(range)));
	}
	if (any_auto)
		printf("\n(auto): each qdisc works it out from its device when it is created.\n");
	return 0;
}
