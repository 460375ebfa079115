// SPDX-License-Identifier: GPL-2.0
/* bpfqdisc load: register a kind, built in or from an object file. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"

const char load_help[] =
	"  load KIND|PATH [--max-instances N] [--ring-slots N] [--class-slots N]\n"
	"       [--userns-slots N] [--user-slots N] [--netns-slots N] [PARAM VALUE]...\n"
	"      Register qdisc kind bpf_KIND; it stays registered after bpfqdisc exits.\n"
	"      PATH (with a / or ending in .o): a BPF object file of root's, built with\n"
	"      the framework (pkg-config bpfqdisc) or a struct_ops Qdisc_ops alone; its\n"
	"      kind is its .id, bpf_NAME, and then NAME works as a built-in one. One\n"
	"      without the framework needs --unguarded: any user namespace may use it.\n"
	"      One with it gets tc's plugin, q_bpf_NAME.so in $TC_LIB_DIR or tc's own\n"
	"      directory (which must be root's alone), which unload removes.\n"
	"      PARAM VALUE pairs set the defaults new qdiscs of this kind start with.\n"
	"      --max-instances: qdiscs of the kind at once (default " BQ_STR(BQ_DEFAULT_MAX_INSTANCES) ", or as the\n"
	"      earlier load whose live qdiscs keep its maps). --ring-slots: packets a\n"
	"      qdisc may hold, a power of two (default " BQ_STR(BQ_DEFAULT_RING_SLOTS) "). --class-slots:\n"
	"      classes (aggregates) a qdisc may have, for a kind that has them (bpf_hbm:\n"
	"      default 256), a power of two; 2 are enough where every sender is one\n"
	"      aggregate (shared_default). --userns-slots: how many\n"
	"      of them may be in network namespaces of users' user namespaces, which\n"
	"      any user can make (default 0: none). --user-slots: how many of those\n"
	"      one user may hold, over all its namespaces (default a quarter of\n"
	"      --userns-slots, rounded up). --netns-slots: how many each network\n"
	"      namespace but the initial one may hold, such as a container's with\n"
	"      CAP_NET_ADMIN, and each user namespace that root (uid 0) made, such as\n"
	"      a pod's, with all below it; those take none of --userns-slots (default\n"
	"      0: no cap, and root's user namespaces count among --userns-slots).\n"
	;

static int parse_u32(const char *opt, const char *text, __u32 min, __u32 *out)
{
	const char *why;
	__u64 v;

	if (bq_parse_value(BQ_UNIT_COUNT, text, &v, &why) || v < min || v > (1u << 24))
		return bq_invalid("bad value '%s' for %s: expected %u..%u", text, opt, min, 1u << 24);
	*out = v;
	return 0;
}

/* Options anywhere among the words: --unguarded ./x.o is ./x.o --unguarded. */
int do_load(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "max-instances", required_argument, NULL, 'm' },
		{ "ring-slots", required_argument, NULL, 'r' },
		{ "class-slots", required_argument, NULL, 'c' },
		{ "userns-slots", required_argument, NULL, 'u' },
		{ "user-slots", required_argument, NULL, 'U' },
		{ "netns-slots", required_argument, NULL, 'N' },
		{ "unguarded", no_argument, NULL, 'g' },
		{},
	};
	struct bq_kind_opts o = {};
	__u32 sized;
	int c, li = 0, err;

	optind = 0;
	while ((c = cli_getopt(argc, argv, ":", opts, &li, "unknown option")) != -1) {
		char flag[32];
		__u32 *dst = c == 'm' ? &o.max_instances : c == 'r' ? &o.ring_slots :
			     c == 'c' ? &o.class_slots : c == 'u' ? &o.userns_slots :
			     c == 'U' ? &o.user_slots : c == 'N' ? &o.netns_slots : NULL;

		if (c < 0)
			return c;
		if (c == 'g') {
			o.flags |= BQ_LOAD_UNGUARDED;
			continue;
		}
		/* Past "--ring-slots 1", argv[optind - 1] is the value, not the option. */
		snprintf(flag, sizeof(flag), "--%s", opts[li].name);
		/* A ring and a class table hold at least 2; the namespaces' slots may be none. */
		err = parse_u32(flag, optarg, dst == &o.ring_slots || dst == &o.class_slots ? 2 :
				dst != &o.userns_slots && dst != &o.netns_slots, dst);
		if (err)
			return err;
		if (dst == &o.class_slots)
			o.flags |= BQ_LOAD_CLASS_SLOTS;
	}
	sized = o.max_instances;
	err = bq_kind_load(optind < argc ? argv[optind] : NULL, &o, argc - optind - 1,
			   argv + optind + 1);
	if (err)
		return err;
	if (!sized && o.max_instances != BQ_DEFAULT_MAX_INSTANCES)
		printf("loaded %s with --max-instances %u, as its earlier load, whose live qdiscs "
		       "share its maps\n", o.kind, o.max_instances);
	else
		printf("loaded %s\n", o.kind);
	return 0;
}
