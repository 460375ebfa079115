// SPDX-License-Identifier: GPL-2.0
/* bpfqdisc params: a kind's parameters, their units, defaults and ranges. */
#include <stdio.h>
#include "cli.h"

const char params_help[] =
	"  params KIND\n"
	"      Show the parameters of KIND: unit, default and range.\n"
	;

static int do_help(int argc, char **argv)
{
	return cli_help(params_help);
}

int do_params(int argc, char **argv)
{
	const struct bq_kind *k;
	struct bq_param_set set;
	char d[32], lo[32], hi[32];
	int err;

	if (cli_wants_help(argc, argv))
		return do_help(argc, argv);
	err = bq_kind_lookup(argc > 1 ? argv[1] : NULL, &k) ?: bq_kind_params(k, &set);
	if (err)
		return err;
	printf("%-16s %-8s %-12s %s\n", "PARAM", "UNIT", "DEFAULT", "RANGE");
	for (size_t i = 0; i < set.n; i++) {
		const struct bq_param_desc *p = &set.desc[i];

		printf("%-16s %-8s %-12s %s..%s\n", p->name, bq_unit_name(p->unit),
		       bq_format_value(p->unit, p->def, d, sizeof(d)),
		       bq_format_value(p->unit, p->min, lo, sizeof(lo)),
		       bq_format_value(p->unit, p->max, hi, sizeof(hi)));
	}
	return 0;
}

