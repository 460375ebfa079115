// SPDX-License-Identifier: GPL-2.0
/* bpfqdisc: load, list and unload BPF qdisc kinds; their qdiscs and classes. */
#include <stdio.h>
#include <string.h>
#include "cli.h"

static int do_help(int argc, char **argv);
static int do_version(int argc, char **argv);
static int no_command(int argc, char **argv);

/* The commands; those with help have their lines of bpfqdisc --help, in this order. */
static const struct cmd cmds[] = {
	{ "", no_command, NULL },
	{ "load", do_load, load_help }, { "unload", do_unload, unload_help },
	{ "list", do_list, list_help }, { "params", do_params, params_help },
	{ "qdisc", do_qdisc, qdisc_help }, { "class", do_class, class_help },
	{ "stats", do_stats, stats_help }, { "new", do_new, new_help },
	{ "help", do_help, NULL }, { "--help", do_help, NULL }, { "-h", do_help, NULL },
	{ "--version", do_version, NULL },
	{ NULL },
};

static int do_help(int argc, char **argv)
{
	char names[256];

	printf("Usage: bpfqdisc [-n NETNS] COMMAND [ARGS]\n"
	       "\n"
	       "  -n NETNS  work on devices of network namespace NETNS (as ip -n)\n"
	       "\n");
	for (const struct cmd *c = cmds; c->name; c++)
		if (c->help)
			fputs(c->help, stdout);
	printf("  --version\n"
	       "      Print bpfqdisc's version and the framework version it reads.\n"
	       "\n"
	       "COMMAND help, or --help anywhere after it, shows that command's part.\n"
	       "Options may come before or after the other words.\n"
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
	       bq_kind_names(names, sizeof(names)));
	return 0;
}

static int do_version(int argc, char **argv)
{
	printf("bpfqdisc %s (framework %d.%d)\n", BQ_VERSION, BQ_FRAMEWORK_MAJOR,
	       BQ_FRAMEWORK_MINOR);
	return 0;
}

static int no_command(int argc, char **argv)
{
	return bq_invalid("no command (try bpfqdisc --help)");
}

int main(int argc, char **argv)
{
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
	return bq_exit_code(cmd_select(cmds, argc - 1, argv + 1, "command", "try bpfqdisc --help"));
}
