// SPDX-License-Identifier: GPL-2.0
/* bpfqdisc: load, list and unload BPF qdisc kinds. See usage() below. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "lib.h"

static void usage(void)
{
	char names[256];

	printf(
		"Usage: bpfqdisc [-n NETNS] COMMAND [ARGS]\n"
		"\n"
		"  -n NETNS  work on devices of network namespace NETNS (as ip -n)\n"
		"\n"
		"  load KIND|PATH [--max-instances N] [--ring-slots N] [--userns-slots N]\n"
		"       [--user-slots N] [--netns-slots N] [PARAM VALUE]...\n"
		"      Register qdisc kind bpf_KIND; it stays registered after bpfqdisc exits.\n"
		"      PATH (with a / or ending in .o): a BPF object file of root's, built with\n"
		"      the framework (pkg-config bpfqdisc) or a struct_ops Qdisc_ops alone; its\n"
		"      kind is its .id, bpf_NAME, and then NAME works as a built-in one. One\n"
		"      without the framework needs --unguarded: any user namespace may use it.\n"
		"      One with it gets tc's plugin, q_bpf_NAME.so in $TC_LIB_DIR or tc's own\n"
		"      directory (which must be root's alone), which unload removes.\n"
		"      PARAM VALUE pairs set the defaults new qdiscs of this kind start with.\n"
		"      --max-instances: qdiscs of the kind at once (default %d, or as the\n"
		"      earlier load whose live qdiscs keep its maps). --userns-slots: how many\n"
		"      of them may be in network namespaces of user namespaces other than the\n"
		"      initial one, which any user can make (default 0: none). --user-slots:\n"
		"      how many of those one user may hold, over all its namespaces (default a\n"
		"      quarter of --userns-slots, rounded up). --netns-slots:\n"
		"      how many each network namespace but the initial one may hold, such as a\n"
		"      container's with CAP_NET_ADMIN (default 0: no cap).\n"
		"  unload KIND [--force]\n"
		"      Unregister bpf_KIND. Refuses while qdiscs of the kind are live unless\n"
		"      --force; live ones keep working until deleted.\n"
		"  list\n"
		"      Show every kind, whether it is loaded, its defaults and its live qdiscs.\n"
		"  params KIND\n"
		"      Show the parameters of KIND: unit, default and range.\n"
		"  qdisc add|replace dev DEV [root | parent X:Y] [handle X:] KIND [PARAM VALUE]...\n"
		"      Create a qdisc as tc would, with its parameters applied from its first\n"
		"      packet on. replace on a qdisc of the same kind changes its parameters.\n"
		"  qdisc change dev DEV [root | parent X:Y | handle X:] PARAM VALUE...\n"
		"      Change parameters of a live qdisc; the next packets see them.\n"
		"  qdisc show [dev DEV] [-s] [-j]\n"
		"      Every qdisc, as tc shows it, with BPF qdiscs' parameters and counters.\n"
		"  class add|change dev DEV [root | handle X:] cgroup PATH | mark N | priority N\n"
		"        FIELD VALUE... (bpf_hbm: rate RATE)\n"
		"      A class, for kinds that declare them: bpf_hbm's is a rate for one\n"
		"      aggregate (by what its classify parameter says: 0 cgroup, 1 mark,\n"
		"      2 priority); others get its rate.\n"
		"  class del dev DEV [root | handle X:] cgroup PATH | mark N | priority N\n"
		"  class show dev DEV [root | handle X:] [-j]\n"
		"      The aggregates a qdisc with classes has seen, their fields and counters.\n"
		"  stats [dev DEV] [-j | --prometheus] [--interval N]\n"
		"      The BPF qdiscs' stats: tc's and their own (drops by reason, marks...).\n"
		"      --prometheus writes the text format for node_exporter's textfile collector.\n"
		"  new NAME\n"
		"      Write NAME.bpf.c, a commented FIFO with one parameter, to start a qdisc\n"
		"      built against the installed framework (pkg-config bpfqdisc).\n"
		"  --version\n"
		"      Print bpfqdisc's version and the framework version it reads.\n"
		"\n"
		"Kinds: %s\n"
		"\n"
		"Examples:\n"
		"  bpfqdisc load fifo\n"
		"  tc qdisc replace dev eth0 root bpf_fifo\n"
		"  tc -s qdisc show dev eth0\n"
		"  bpfqdisc load fifo limit 5000\n"
		"  bpfqdisc load ./myq.bpf.o\n"
		"  bpfqdisc qdisc add dev eth0 root bpf_fifo limit 200\n"
		"  bpfqdisc qdisc change dev eth0 root limit 500\n"
		"  bpfqdisc qdisc add dev eth0 root bpf_hbm rate 200mbit\n"
		"  bpfqdisc class add dev eth0 cgroup /hbm1 rate 100mbit\n"
		"  bpfqdisc stats -j\n"
		"  bpfqdisc unload fifo --force\n",
		BQ_DEFAULT_MAX_INSTANCES, bq_kind_names(names, sizeof(names)));
}

static int parse_u32(const char *opt, const char *text, __u32 min, __u32 *out)
{
	const char *why;
	__u64 v;

	if (bq_parse_value(BQ_UNIT_COUNT, text, &v, &why) || v < min || v > (1u << 24))
		return bq_invalid("bad value '%s' for %s: expected %u..%u", text, opt, min, 1u << 24);
	*out = v;
	return 0;
}

static int cmd_load(int argc, char **argv)
{
	struct bq_kind_opts lim = {};
	__u32 sized;
	int i, err;

	for (i = 2; i < argc && !strncmp(argv[i], "--", 2); i += 2) {
		__u32 *dst = !strcmp(argv[i], "--max-instances") ? &lim.max_instances :
			     !strcmp(argv[i], "--ring-slots") ? &lim.ring_slots :
			     !strcmp(argv[i], "--userns-slots") ? &lim.userns_slots :
			     !strcmp(argv[i], "--user-slots") ? &lim.user_slots :
			     !strcmp(argv[i], "--netns-slots") ? &lim.netns_slots : NULL;

		if (!strcmp(argv[i], "--unguarded")) {
			lim.flags |= BQ_LOAD_UNGUARDED;
			i--;
			continue;
		}
		if (!dst)
			return bq_invalid("unknown option '%s'", argv[i]);
		if (i + 1 >= argc)
			return bq_invalid("%s needs a value", argv[i]);
		/* A ring holds at least 2; the namespaces' slots may be none. */
		err = parse_u32(argv[i], argv[i + 1], dst == &lim.ring_slots ? 2 :
				dst != &lim.userns_slots && dst != &lim.netns_slots, dst);
		if (err)
			return err;
	}
	sized = lim.max_instances;
	err = bq_kind_load(argc > 1 ? argv[1] : NULL, &lim, argc - i, argv + i);
	if (err)
		return err;
	if (!sized && lim.max_instances != BQ_DEFAULT_MAX_INSTANCES)
		printf("loaded %s with --max-instances %u, as its earlier load, whose live qdiscs "
		       "share its maps\n", lim.kind, lim.max_instances);
	else
		printf("loaded %s\n", lim.kind);
	return 0;
}

static int cmd_unload(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : NULL;
	const struct bq_kind *k;
	unsigned int flags = 0;
	int err = bq_kind_lookup(kind, &k);

	if (err)
		return err;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--force") && strcmp(argv[i], "-f"))
			return bq_invalid("unknown option '%s'", argv[i]);
		flags |= BQ_UNLOAD_FORCE;
	}
	err = bq_kind_unload(kind, flags);
	if (!err)
		printf("unloaded %s\n", k->kind);
	return err;
}

static void print_params(const struct bq_param_set *set, const struct bq_params *val)
{
	char buf[32];

	for (size_t i = 0; i < set->n; i++)
		printf(" %s %s", set->desc[i].name,
		       bq_format_value(set->desc[i].unit, val->v[i], buf, sizeof(buf)));
}

static void print_handle(const char *what, __u32 h)
{
	if (h == 0xffffffff)
		printf(" %s root", what);
	else
		printf(" %s %x:%x", what, h >> 16, h & 0xffff);
}

/*
 * The kernel's queue length of q's qdisc, as qdisc show reads it: the
 * kernel counts every packet, wherever the kind keeps it. Only a qdisc of
 * this netns can be asked; false for the others.
 */
static bool kernel_qlen(const struct bq_instance *q, __u64 our_netns, __u32 *qlen)
{
	struct bq_qdisc_info *tc;
	bool found = false;
	size_t n;

	if (q->where.netns_cookie != our_netns || bq_nl_qdisc_list(q->where.ifindex, &tc, &n))
		return false;
	for (size_t i = 0; i < n && !found; i++) {
		found = bq_same_qdisc(q, our_netns, &tc[i]);
		if (found)
			*qlen = tc[i].qlen;
	}
	free(tc);
	return found;
}

static void print_instance(const struct bq_kind *k, const struct bq_param_set *set,
			   const struct bq_instance_info *ii, __u64 our_netns)
{
	const struct bq_instance *q = &ii->inst;
	struct bq_params params;
	char dev[IF_NAMESIZE], shown[BQ_TEXT_LEN(IF_NAMESIZE)];
	__u64 drops = 0;
	__u32 qlen;

	for (int i = 0; i < BQ_MAX_DROPS; i++)
		drops += q->cnt.drops[i];
	if (q->where.netns_cookie == our_netns && if_indextoname(q->where.ifindex, dev))
		printf("  dev %s", bq_text_str(dev, shown, sizeof(shown)));
	else
		printf("  ifindex %u netns %llu", q->where.ifindex,
		       (unsigned long long)q->where.netns_cookie);
	print_handle("handle", q->handle);
	print_handle("parent", q->where.parent);
	if (q->userns)
		printf(" userns");
	if (!bq_read_params(k, q->slot, &params))
		print_params(set, &params);
	printf("\n    enqueued %llu dequeued %llu (%llu bytes) dropped %llu",
	       (unsigned long long)q->cnt.enqueued, (unsigned long long)q->cnt.dequeued,
	       (unsigned long long)q->cnt.dequeued_bytes, (unsigned long long)drops);
	if (kernel_qlen(q, our_netns, &qlen))
		printf(" qlen %u", qlen);
	printf("\n");
}

/*
 * "4 slots, 2 for user namespaces (1 held), at most 1 per user, at most 2
 * per network namespace but the initial one": what load --userns-slots,
 * --user-slots and --netns-slots set.
 */
static void print_slots(const struct bq_kind *k, const struct bq_instance_info *v, size_t n)
{
	struct bq_config c;
	size_t held = 0;

	if (bq_read_config(k, &c))
		return;
	for (size_t i = 0; i < n; i++)
		held += v[i].inst.userns;
	printf("  %u slots, ", bq_slot_count(k));
	if (c.userns_slots)
		printf("%u for user namespaces (%zu held), at most %u per user", c.userns_slots,
		       held, c.user_slots);
	else
		printf("none for user namespaces");
	if (c.netns_slots)
		printf(", at most %u per network namespace but the initial one", c.netns_slots);
	printf("\n");
}

/*
 * A kind without the framework keeps no table of its qdiscs: those tc
 * shows in this network namespace, with tc's counters.
 */
static int print_plain(const struct bq_kind *k)
{
	char shown[BQ_TEXT_LEN(IF_NAMESIZE)];
	struct bq_qdisc_info *q;
	size_t n;
	int err = bq_nl_qdisc_list(0, &q, &n);

	printf("%-10s loaded     %s, without the framework: tc's qdiscs of this network namespace\n",
	       k->kind, k->summary);
	if (err) {
		bq_err("cannot list the qdiscs of this network namespace: %s", strerror(-err));
		return BQ_EXIT_FAIL;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(q[i].kind, k->kind))
			continue;
		printf("  dev %s", bq_text_str(q[i].dev, shown, sizeof(shown)));
		print_handle("handle", q[i].handle);
		print_handle("parent", q[i].parent);
		printf("\n    sent %llu bytes %llu pkt dropped %u overlimits %u requeues %u qlen %u\n",
		       (unsigned long long)q[i].bytes, (unsigned long long)q[i].packets, q[i].drops,
		       q[i].overlimits, q[i].requeues, q[i].qlen);
	}
	free(q);
	return 0;
}

static int cmd_list(int argc, char **argv)
{
	__u64 our_netns = bq_self_netns_cookie();
	int err = bq_prepare(BQ_NEED_READ);
	bool failed = false;

	if (err)
		return err;
	for (size_t i = 0; i < bq_nkinds; i++) {
		const struct bq_kind *k = &bq_kinds[i];
		struct bq_instance_info *v = NULL;
		struct bq_param_set set;
		struct bq_params defaults;
		size_t n = 0;

		if (k->plain && bq_is_loaded(k)) {
			failed |= print_plain(k) != 0;
			continue;
		}
		if (!bq_has_state(k)) {
			printf("%-10s not loaded  %s\n", k->kind, k->summary);
			continue;
		}
		if (bq_is_loaded(k))
			printf("%-10s loaded     %s\n", k->kind, k->summary);
		else
			printf("%-10s unloaded with live qdiscs (of the earlier load)  %s\n", k->kind,
			       k->summary);
		if (!bq_kind_params(k, &set) && !bq_read_defaults(k, &defaults)) {
			printf("  defaults:");
			print_params(&set, &defaults);
			printf("\n");
		}
		err = bq_instances(k, &v, &n);
		if (err) {
			bq_err("cannot read the instances of %s: %s", k->kind, strerror(-err));
			failed = true;
		}
		print_slots(k, v, n);
		for (size_t j = 0; j < n; j++)
			print_instance(k, &set, &v[j], our_netns);
		free(v);
	}
	return failed ? BQ_EXIT_FAIL : 0;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* Columns as wide as their longest word; a footer says what (auto) is. */
static int cmd_params(int argc, char **argv)
{
	const struct bq_kind *k;
	struct bq_param_set set;
	char def[BQ_MAX_PARAMS][32], range[80];
	int name_w = strlen("PARAM"), unit_w = strlen("UNIT"), def_w = strlen("DEFAULT");
	bool any_auto = false;
	int err = bq_kind_lookup(argc > 1 ? argv[1] : NULL, &k) ?: bq_kind_params(k, &set);

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

int main(int argc, char **argv)
{
	static const struct { const char *name; int (*fn)(int, char **); } cmds[] = {
		{ "load", cmd_load }, { "unload", cmd_unload },
		{ "list", cmd_list }, { "params", cmd_params },
		{ "qdisc", bq_cmd_qdisc }, { "stats", bq_cmd_stats }, { "class", bq_cmd_class },
		{ "new", bq_cmd_new },
	};

	bq_print_to_stderr("bpfqdisc");
	bq_quiet_libbpf();
	bq_kinds_discover();
	if (argc > 1 && (!strcmp(argv[1], "-n") || !strcmp(argv[1], "-netns") ||
			 !strcmp(argv[1], "--netns"))) {
		int err = argc > 2 ? bq_enter_netns(argv[2]) :
			  bq_invalid("%s needs a network namespace name", argv[1]);

		if (err)
			return bq_exit_code(err);
		argc -= 2;
		argv += 2;
	}
	if (argc < 2) {
		bq_err("no command (try bpfqdisc --help)");
		return BQ_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage();
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("bpfqdisc %s (framework %d.%d)\n", BQ_VERSION, BQ_FRAMEWORK_MAJOR,
		       BQ_FRAMEWORK_MINOR);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return bq_exit_code(cmds[i].fn(argc - 1, argv + 1));
	bq_err("unknown command '%s' (try bpfqdisc --help)", argv[1]);
	return BQ_EXIT_USAGE;
}
