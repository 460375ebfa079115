// SPDX-License-Identifier: GPL-2.0
/* bpfqdisc unload: unregister a kind. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"

const char unload_help[] =
	"  unload KIND [--force]\n"
	"      Unregister bpf_KIND. Refuses while qdiscs of the kind are live unless\n"
	"      --force; live ones keep working until deleted.\n"
	;

int do_unload(int argc, char **argv)
{
	static const struct option opts[] = { { "force", no_argument, NULL, 'f' }, {} };
	const struct bq_kind *k;
	unsigned int flags = 0;
	int c, err;

	optind = 0;
	while ((c = cli_getopt(argc, argv, ":f", opts, NULL, "unknown option")) != -1) {
		if (c < 0)
			return c;
		flags |= BQ_UNLOAD_FORCE;
	}
	if (optind + 1 < argc)
		return bq_invalid("unexpected '%s'", argv[optind + 1]);
	err = bq_kind_lookup(optind < argc ? argv[optind] : NULL, &k) ?:
	      bq_kind_unload(k->kind, flags);
	if (!err)
		printf("unloaded %s\n", k->kind);
	return err;
}
