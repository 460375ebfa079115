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
 * The next option of argv as getopt_long() reads it (optind = 0 before the
 * first call), without its messages: the option's character, -1 past the
 * last, or -EINVAL having said "OPT needs a value" or "UNKNOWN 'OPT'".
 */
struct option;
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *opts, int *li,
	       const char *unknown);
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

/*
 * Output (print.c), text or JSON from the same calls, as iproute2's
 * json_print.h: each call writes a field's text form, with fmt, or its JSON
 * member, key (NULL for an element of an array), as print_set_json() chose
 * (text until then) and w allows: PRINT_TEXT only in text, PRINT_JSON only
 * in JSON (its fmt may be NULL). A string is one word of text
 * (bq_text_str()); print_string() with val NULL writes fmt alone as text,
 * null as JSON. Objects and arrays are JSON's alone; closing the outermost
 * ends the line.
 */
enum print_where { PRINT_TEXT = 1, PRINT_JSON = 2, PRINT_ANY = 3 };
void print_set_json(bool on);
void open_json_object(const char *key);
void close_json_object(void);
void open_json_array(const char *key);
void close_json_array(void);
void print_string(enum print_where w, const char *key, const char *fmt, const char *val);
void print_uint(enum print_where w, const char *key, const char *fmt, unsigned long long val);
/* Text: if_true or if_false as they are. */
void print_bool(enum print_where w, const char *key, const char *if_false, const char *if_true,
		bool val);
/*
 * Fields named by data (parameters, counters), in both formats: text gets
 * fmt with key and the value, as " %s %llu". print_value() gives text the
 * value in its unit
 * (bq_format_value(); " %s %s"), or zero (if not NULL or "") for 0, and
 * JSON the number.
 */
void print_named_string(const char *fmt, const char *key, const char *val);
void print_named_uint(const char *fmt, const char *key, unsigned long long val);
void print_value(const char *fmt, const char *key, __u32 unit, __u64 val, const char *zero);
/* A kind's parameters, val: " NAME VALUE" each (bpfqdisc list, qdisc show). */
void print_params(const struct bq_param_set *set, const struct bq_params *val);
/* Text: the end of a line. */
void print_nl(void);

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
