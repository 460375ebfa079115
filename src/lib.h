/* SPDX-License-Identifier: GPL-2.0 */
/* libbpfqdisc: load, pin, inspect and unload BPF qdisc kinds. */
#ifndef BQ_LIB_H
#define BQ_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "bpfqdisc.h"

#define BQ_PIN_ROOT "/sys/fs/bpf/bpfqdisc"

/* Exit codes, as the CLIs use them. */
enum { BQ_EXIT_OK = 0, BQ_EXIT_FAIL = 1, BQ_EXIT_USAGE = 2 };

struct bq_kind {
	const char *name;	/* "fifo" */
	const char *kind;	/* "bpf_fifo": what tc calls it */
	const char *summary;
	const void *(*elf_bytes)(size_t *sz);
};

extern const struct bq_kind bq_kinds[];
extern const size_t bq_nkinds;

/* NULL when unknown; accepts "fifo" and "bpf_fifo". */
const struct bq_kind *bq_kind_find(const char *name);
/* "fifo, fq" into buf, for error messages. */
const char *bq_kind_names(char *buf, size_t len);

/* --- output (json.c) --- */
/* s as a JSON string, quoted and escaped; invalid UTF-8 becomes U+FFFD. */
void bq_json_str(FILE *f, const char *s);
/* s as a Prometheus label value, quoted and escaped, likewise. */
void bq_prom_label(FILE *f, const char *s);
/* s as one word of text output in buf (len >= 1; BQ_TEXT_LEN(strlen(s)) holds it all). */
const char *bq_text_str(const char *s, char *buf, size_t len);
#define BQ_TEXT_LEN(n)	(4 * (n) + 1)

/* Prints "bpfqdisc: <message>" on stderr. */
/* The name bq_err puts first: "bpfqdisc", or the tool's. */
extern const char *bq_prog_name;
void bq_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* -n NAME: enter network namespace NAME (/run/netns/NAME, or a path), as
 * ip -n does: only the network namespace changes, /sys/fs/bpf stays
 * visible. 0, or prints and returns BQ_EXIT_USAGE / BQ_EXIT_FAIL. */
int bq_enter_netns(const char *name);

/* --- environment (sys.c) --- */
/* libbpf's messages off unless LIBBPF_LOG is set: before any libbpf call. */
void bq_quiet_libbpf(void);
/*
 * A pause point for the tests: with BPFQDISC_STOP_AT=WHERE in the
 * environment the CLI stops itself (SIGSTOP) at WHERE, so that a test can
 * change the system there and let it go on (kill -CONT).
 */
void bq_stop_at(const char *where);
enum bq_need { BQ_NEED_LOAD, BQ_NEED_READ };
/* Each returns 0 or prints the problem and returns BQ_EXIT_FAIL. */
int bq_check_caps(enum bq_need need);
int bq_check_kernel(void);
int bq_ensure_bpffs(void);
__u64 bq_self_netns_cookie(void);
bool bq_in_initial_netns(void);
bool bq_netns_in_userns(void);

/* --- parameters (units.c) --- */
/* 0 on success; otherwise *why says what is wrong with text. */
int bq_parse_value(enum bq_unit unit, const char *text, __u64 *out, const char **why);
/* Formats v in unit's natural form ("200mbit", "10ms"). */
const char *bq_format_value(enum bq_unit unit, __u64 v, char *buf, size_t len);
const char *bq_unit_name(enum bq_unit unit);
/* tc's handle syntax, "1:" or "1:2" in hex. 0 or -EINVAL. */
int bq_parse_handle(const char *text, __u32 *out);

struct bq_param_set {
	const struct bq_param_desc *desc;	/* the kind's table */
	size_t n;
	struct bq_params val;
};
/*
 * Applies "name value" pairs from argv over set->val. Returns 0, or
 * BQ_EXIT_USAGE after printing what is wrong.
 */
int bq_params_apply(struct bq_param_set *set, int argc, char **argv);

/* --- kinds (loader.c) --- */
struct bq_load_opts {
	/* 0: the earlier load's, whose live qdiscs keep its maps, else the default */
	__u32 max_instances;
	__u32 ring_slots;	/* a power of two, >= 2 */
	__u32 userns_slots;	/* < max_instances (struct bq_config) */
	__u32 netns_slots;	/* < max_instances, 0: no cap (struct bq_config) */
	struct bq_params defaults;	/* what new qdiscs of the kind start with */
};
/* max_instances * ring_slots: the entries of each per-slot map, a u32 */
#define BQ_MAX_TOTAL_SLOTS	(1u << 26)
/* Sets o->max_instances if it was 0. */
int bq_load(const struct bq_kind *k, struct bq_load_opts *o);
int bq_unload(const struct bq_kind *k, bool force);
bool bq_is_loaded(const struct bq_kind *k);
/* Its maps are pinned: loaded, or unloaded (--force) under live qdiscs. */
bool bq_has_state(const struct bq_kind *k);
/* Unpins what no qdisc uses any more: a kind's state kept by unload --force
 * once its qdiscs are gone, egress attachments of devices that went or hold
 * no qdisc of the kind. */
void bq_tidy(void);
/* The exclusive right to write qdiscs of kind k: a directory fd to close
 * to let go, or -1 with errno set (EWOULDBLOCK: another process has it). */
int bq_try_lock_kind(const struct bq_kind *k);
/* A kind's classes, as its BQ_CLASSES() and BQ_CLASS_AGGS() declare them. */
struct bq_kind_classes {
	struct bq_class_desc desc;
	struct bq_class_field fields[BQ_MAX_CLASS_FIELDS];
	size_t nfields;
	struct bq_class_aggs aggs;	/* aggs.map "": no counters to show */
	struct bq_class_field counters[BQ_MAX_CLASS_FIELDS];
	size_t ncounters;
	__u32 per_slot;			/* entries of aggs.map per instance */
};
/* The tables a kind's object describes itself with (cached). NULL on error. */
struct bq_kind_meta {
	struct bq_param_desc params[BQ_MAX_PARAMS];
	size_t nparams;
	struct bq_xstat_desc xstats[BQ_MAX_XSTATS];
	size_t nxstats;
	struct bq_drop_desc drops[BQ_MAX_DROPS];	/* the framework's, then the kind's */
	size_t ndrops;
	bool has_classes;
	struct bq_kind_classes classes;
};
const struct bq_kind_meta *bq_kind_meta(const struct bq_kind *k);
/* The kind's parameter table, with values set to the built-in defaults. */
int bq_kind_params(const struct bq_kind *k, struct bq_param_set *set);

/*
 * Attaches the kind's egress program, if it has one, to ifindex (tcx
 * egress, pinned), replacing its earlier attachment there. 0 or -errno.
 */
int bq_attach_egress(const struct bq_kind *k, int ifindex);
/* A pinned map of a loaded kind: an fd, or -1 with errno set. */
int bq_open_map(const struct bq_kind *k, const char *map);
/* Each returns 0 or -errno. */
int bq_read_defaults(const struct bq_kind *k, struct bq_params *val);
int bq_read_config(const struct bq_kind *k, struct bq_config *c);
/* The slots an instance table of the kind's pinned maps has; 0 if none. */
__u32 bq_slot_count(const struct bq_kind *k);
int bq_read_params(const struct bq_kind *k, __u32 slot, struct bq_params *val);
int bq_write_params(const struct bq_kind *k, const struct bq_instance *inst,
		    const struct bq_params *val);

struct bq_instance_info {
	__u64 key;
	struct bq_instance inst;
};
/* Live instances of a loaded kind; *n set. Caller frees. -errno on error. */
int bq_instances(const struct bq_kind *k, struct bq_instance_info **out, size_t *n);

/* Whether inst's slot still holds that instance (its generation). */
bool bq_instance_current(const struct bq_kind *k, const struct bq_instance *inst);

/*
 * The live instance on ifindex in this netns at handle (if not 0) or parent,
 * of kind *kind, or of any loaded kind if *kind is NULL; *kind is set to it.
 * 0 or -ENOENT.
 */
int bq_find_instance(int ifindex, __u32 parent, __u32 handle, const struct bq_kind **kind,
		     struct bq_instance *inst);

/* --- commands beyond load/unload/list (qdisc.c, show.c, class.c) --- */
int bq_cmd_qdisc(int argc, char **argv);
int bq_cmd_class(int argc, char **argv);
/*
 * For qdisc change: BQ_EXIT_USAGE (said) if the parameter that names the
 * aggregates of inst, of kind k, differs between cur and next while inst
 * has classes, which would be read as keys of the new kind; else 0.
 */
int bq_class_rekey_refused(const struct bq_kind *k, const struct bq_instance *inst,
			   const char *dev, const struct bq_params *cur, const struct bq_params *next);
/* A warning on stderr when next names aggregates by a key each sender picks
 * (and cur, NULL for a new qdisc, did not). */
void bq_class_warn_keys(const struct bq_kind *k, const char *dev, const struct bq_params *cur,
			const struct bq_params *next);
int bq_cmd_qdisc_show(int argc, char **argv);
int bq_cmd_stats(int argc, char **argv);

/* --- rtnetlink (nl.c) --- */
struct bq_qdisc_info {
	int ifindex;
	char dev[16];
	char kind[BQ_KIND_LEN];
	__u32 handle, parent;
	__u64 bytes, packets;
	__u32 qlen, backlog, drops, requeues, overlimits;
};
/* Creates (or with replace, replaces) a qdisc; msg gets the kernel's words. */
int bq_nl_qdisc_new(int ifindex, __u32 parent, __u32 handle, const char *kind, bool replace,
		    char *msg, size_t msglen);
/* Parses one dump buffer (any bytes); 1 at its end, 0 for more, -errno. */
int bq_nl_parse_dump(const void *buf, size_t len, int ifindex, struct bq_qdisc_info **v,
		     size_t *n, size_t *cap);
/* Qdiscs of ifindex (0: all) in this netns. Caller frees *out. 0 or -errno. */
int bq_nl_qdisc_list(int ifindex, struct bq_qdisc_info **out, size_t *n);
/* Whether instance q is the qdisc tc of netns (show.c). */
bool bq_same_qdisc(const struct bq_instance *q, __u64 netns, const struct bq_qdisc_info *tc);

#endif
