/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc's commands, one file each (as bpftool's): a file's do_NAME()
 * runs the command, its cmds[] the verbs if it has several, its NAME_help[]
 * its part of the help, which main.c's table of commands carries.
 */
#ifndef BQ_CLI_H
#define BQ_CLI_H
#include "lib.h"

#define BQ_STR_(x)	#x
#define BQ_STR(x)	BQ_STR_(x)

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;	/* its lines of bpfqdisc --help, if it has its own */
};
/*
 * Runs the verb argv[0] names among cmds (ending with { NULL }), with the
 * words after it; the first of cmds without one. A verb with help shows it
 * instead when the words ask for it: -h or --help anywhere, or help first.
 * Else says "unknown WHAT 'VERB' (HINT)".
 */
int cmd_select(const struct cmd *cmds, int argc, char **argv, const char *what, const char *hint);
/*
 * The place of a qdisc in tc's words, the one parser of them: "dev DEV",
 * "root", "parent X:Y", "handle X:" at argv[*i]. 1 and *i past them if it
 * took words, 0 if argv[*i] is none of them, or -EINVAL (said).
 */
struct place {
	const char *dev;
	__u32 parent;		/* TC_H_ROOT unless "parent X:Y" */
	__u32 handle;
};
int parse_place(int argc, char **argv, int *i, struct place *p);
/* The device of p, which must exist, into *ifindex. */
int place_ifindex(const struct place *p, int *ifindex);
/* A handle as tc writes it: "root", "1:", "1:2". */
const char *handle_str(__u32 h, char *buf, size_t len);

/* The commands, and their lines of bpfqdisc --help. */
int do_load(int argc, char **argv);
int do_unload(int argc, char **argv);
int do_list(int argc, char **argv);
int do_params(int argc, char **argv);
int do_qdisc(int argc, char **argv);
int do_class(int argc, char **argv);
int do_stats(int argc, char **argv);
int do_new(int argc, char **argv);
/* qdisc show (stats.c, which prints both). */
int do_qdisc_show(int argc, char **argv);
extern const char load_help[], unload_help[], list_help[], params_help[], qdisc_help[],
	class_help[], stats_help[], new_help[];

#endif
