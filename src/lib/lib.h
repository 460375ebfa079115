/* SPDX-License-Identifier: GPL-2.0 */
/* libbpfqdisc: load, pin, inspect and unload BPF qdisc kinds. */
#ifndef BQ_LIB_H
#define BQ_LIB_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include <linux/pkt_sched.h>	/* TC_H_ROOT */
#include "bpfqdisc.h"
#include "libbpfqdisc.h"

#define BQ_PIN_ROOT_DEFAULT "/sys/fs/bpf/bpfqdisc"
/* Where the pins are: BQ_PIN_ROOT_DEFAULT, unless a front end saw them elsewhere. */
extern const char *bq_pin_root;
#define BQ_PIN_ROOT bq_pin_root

/* Exit codes, as the CLIs use them. */
enum { BQ_EXIT_OK = 0, BQ_EXIT_FAIL = 1, BQ_EXIT_USAGE = 2 };

struct bq_kind {
	const char *name;	/* "fifo" */
	const char *kind;	/* "bpf_fifo": what tc calls it */
	const char *summary;
	const void *(*elf_bytes)(size_t *sz);
	/* A kind loaded from an object file (bpfqdisc load PATH): */
	const char *path;	/* the file it came from; NULL: built in */
	const void *elf;	/* its bytes, pinned as bq_object (objkind.c) */
	size_t elf_sz;
	bool plain;		/* a struct_ops Qdisc_ops without the framework */
};

/* The built-in kinds, then those loaded from files (bq_kinds_discover()). */
extern struct bq_kind bq_kinds[];
extern const size_t bq_nbuiltin;
extern size_t bq_nkinds;
#define BQ_MAX_LOADED	32

/* --- the registry (kinds.c; the built-in kinds: qdiscs.c) --- */
/* NULL when unknown; accepts "fifo" and "bpf_fifo". Known loaded kinds: bq_kinds_discover(). */
const struct bq_kind *bq_kind_find(const char *name);
/* A built-in kind of that name, or NULL. */
const struct bq_kind *bq_kind_builtin(const char *name);

/* The kind called name, into *k: 0, or -EINVAL saying which are known. */
int bq_kind_lookup(const char *name, const struct bq_kind **k);
/* Adds the kinds pinned by earlier loads of files to bq_kinds (once). */
void bq_kinds_discover(void);
/* Adds kind bpf_NAME of object elf (sz bytes), loaded from path. NULL if full. */
const struct bq_kind *bq_kinds_add(const char *name, const char *path, const void *elf,
				   size_t sz, bool plain);
/* Whether NAME suits bpf_NAME, a loaded kind: [a-z0-9_], fits a qdisc's id. */
bool bq_kind_name_ok(const char *name);
/* "fifo, fq" into buf, for error messages. */
const char *bq_kind_names(char *buf, size_t len);

/* --- kinds loaded from object files (objload.c, objkind.c) --- */
/* The kind of the object file at path (objload.c), checked, in bq_kinds but
 * not loaded, into *k; 0 or -errno. */
int bq_kind_from_file(const char *path, const struct bq_kind **k);
/* The one struct_ops map of struct Qdisc_ops of obj (from path, which
 * messages name); NULL (said) if it has none or more. */
struct bpf_object;
struct bpf_map *bq_qdisc_ops_map(struct bpf_object *obj, const char *path);
/* The value of a kind's pinned bq_object map: this, then the object's bytes. */
struct bq_object_hdr {
	char path[256];
};
/* A loaded kind's header and object, as pinned (bq_object) and in its tc
 * plugin: malloc'd, *sz set; NULL if out of memory. */
struct bq_object_hdr *bq_object_value(const struct bq_kind *k, size_t *sz);
/* The object pinned at path: its header and bytes, malloc'd; NULL if none. */
struct bq_object_hdr *bq_object_read(const char *path, size_t *sz);

/*
 * --- tc plugins of kinds loaded from files (tcplugin.c) ---
 * load writes q_bpf_NAME.so into tc's plugin directory ($TC_LIB_DIR, else
 * tc's own): a copy of the template plugin (src/tc/q_bpf.c built with
 * BQ_TC_TEMPLATE) with its placeholder names made the kind's, and the
 * kind's bq_object value appended, then a struct bq_tc_trailer.
 */
#define BQ_TC_PLACEHOLDER	"bpf_XXXXXXXXXXX"	/* BQ_KIND_LEN - 1 characters */
#define BQ_TC_KIND_SECTION	".bq_tc_kind"		/* its id: char[BQ_KIND_LEN] */
struct bq_tc_trailer {
	__u64 size;		/* of the bq_object value before it */
	char magic[8];
};
#define BQ_TC_MAGIC		"bqobject"
/* The plugin written to a temporary name, until bq_tc_plugin_commit(). */
struct bq_tc_plugin {
	char tmp[4096];
	char path[4096];
};
/* Writes k's plugin beside where it goes, after checking the directory
 * (root's, and no one else's to write). 0, or -1 (said). */
int bq_tc_plugin_stage(const struct bq_kind *k, struct bq_tc_plugin *p);
/* Puts it in place if the load went well, else removes it. 0, or -1 (said). */
int bq_tc_plugin_commit(struct bq_tc_plugin *p, bool loaded);
/* Removes the plugin of k, an unloaded kind from a file, if there is one. */
void bq_tc_plugin_remove(const struct bq_kind *k);

/* --- output (json.c) --- */
/* The length of the valid UTF-8 sequence at s (NUL-terminated), or 0 if there is none. */
size_t bq_utf8_len(const char *s);
/* s as a JSON string, quoted and escaped; invalid UTF-8 becomes U+FFFD. */
void bq_json_str(FILE *f, const char *s);
/* s as a Prometheus label value, quoted and escaped, likewise. */
void bq_prom_label(FILE *f, const char *s);
/* s as one word of text output in buf (len >= 1; BQ_TEXT_LEN(strlen(s)) holds it all). */
const char *bq_text_str(const char *s, char *buf, size_t len);
#define BQ_TEXT_LEN(n)	(4 * (n) + 1)

/*
 * --- input (cjson.c) ---
 * A strict JSON reader, for CNI configs and the pod records: no tree, no
 * allocation. A value is a span of the caller's buffer, so that a member
 * (prevResult) can be written back byte for byte. bq_cj_parse() checks a
 * whole document once (RFC 8259: UTF-8, escapes, number grammar, nesting
 * up to BQ_CJ_MAX_DEPTH); the lookups that follow trust spans it accepted.
 */
#define BQ_CJ_MAX_DEPTH	128

enum bq_cj_type {
	BQ_CJ_NONE, BQ_CJ_OBJECT, BQ_CJ_ARRAY, BQ_CJ_STRING, BQ_CJ_NUMBER, BQ_CJ_BOOL, BQ_CJ_NULL
};

struct bq_cj_span {
	const char *p;		/* NULL: absent */
	size_t n;
};

/* The document's one value, blanks around it dropped. 0, or -1 with *why set. */
int bq_cj_parse(const char *buf, size_t n, struct bq_cj_span *doc, const char **why);
enum bq_cj_type bq_cj_type(struct bq_cj_span v);

/* An object's member of that name (the last, if repeated, as Go's decoder
 * takes it). true if found; *out is then its value. */
bool bq_cj_member(struct bq_cj_span obj, const char *key, struct bq_cj_span *out);
/* The last member for which match(its name, its value, arg) is true. */
typedef bool (*bq_cj_match_fn)(struct bq_cj_span key, struct bq_cj_span val, const void *arg);
bool bq_cj_member_if(struct bq_cj_span obj, bq_cj_match_fn match, const void *arg,
		     struct bq_cj_span *out);

/* Walks an object's members or an array's elements, in order. */
struct bq_cj_iter {
	const char *p, *end;
	bool object;
};
void bq_cj_iter_init(struct bq_cj_iter *it, struct bq_cj_span v);
/* The next member (key: its name, a string span; NULL for arrays) or element. */
bool bq_cj_next(struct bq_cj_iter *it, struct bq_cj_span *key, struct bq_cj_span *val);

/* A string's text, unescaped, into buf (NUL-terminated). -1 if v is not a
 * string, holds U+0000, or does not fit. */
int bq_cj_string(struct bq_cj_span v, char *buf, size_t len);
/* Whether v is the string s. */
bool bq_cj_string_is(struct bq_cj_span v, const char *s);
/* A non-negative integer (no fraction or exponent) up to 2^64 - 1. */
int bq_cj_u64(struct bq_cj_span v, uint64_t *out);
/* true or false. */
int bq_cj_bool(struct bq_cj_span v, bool *out);

/* --- errors (error.c; bq_last_error(), bq_set_print(): libbpfqdisc.h) --- */
/* Records an error message (and hands it to the print function, if any). */
void bq_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* bq_err(), returning err (a -errno; -EIO if it is not negative). */
int bq_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* bq_err(), for input that is wrong: returns -EINVAL. */
int bq_invalid(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A warning, for the print function only. */
void bq_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A front end's exit code for err: 0, BQ_EXIT_USAGE if the last error was
 * bq_invalid()'s, else BQ_EXIT_FAIL (a positive err, an exit code already, as is). */
int bq_exit_code(int err);
/* Errors and warnings on stderr, as "prog: message". */
void bq_print_to_stderr(const char *prog);

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
/* Each returns 0 or -errno (said). */
int bq_check_caps(enum bq_need need);
/* What every command on kinds and qdiscs needs first: the privileges,
 * the kernel, bpffs; then tidies what no qdisc uses any more (api.c). */
int bq_prepare(enum bq_need need);
int bq_check_kernel(void);
int bq_ensure_bpffs(void);
__u64 bq_self_netns_cookie(void);
/* Enters the netns at path; *back: an fd of the one left, for
 * bq_netns_return(). Each: 0 or -errno (said). */
int bq_netns_enter_path(const char *path, int *back);
/* Returns to the netns of back, and closes back. */
int bq_netns_return(int back);
bool bq_in_initial_netns(void);
bool bq_netns_userns(uid_t *owner, __u32 *inum);

/* --- parameters (units.c) --- */
/* 0 on success; otherwise *why says what is wrong with text. */
int bq_parse_value(enum bq_unit unit, const char *text, __u64 *out, const char **why);
/* Formats v in unit's natural form ("200mbit", "10ms"). */
const char *bq_format_value(enum bq_unit unit, __u64 v, char *buf, size_t len);
const char *bq_unit_name(enum bq_unit unit);
/* A parameter's default as bpfqdisc params shows it: "(auto)" for BQ_AUTO,
 * which each qdisc works out from its device. */
const char *bq_format_default(const struct bq_param_desc *d, char *buf, size_t len);
/* Its range: "MIN..MAX", or "MIN.. (no maximum)" where max is BQ_AUTO,
 * the table's "no maximum" (a value nobody can give). */
const char *bq_format_range(const struct bq_param_desc *d, char *buf, size_t len);

struct bq_param_set {
	const struct bq_param_desc *desc;	/* the kind's table */
	size_t n;
	struct bq_params val;
	__u32 given;		/* bit i: bq_params_apply() set val.v[i] */
	const char *kind;	/* "bpf_fq": its tc words (units.c) */
};
/*
 * Applies "name value" pairs from argv over set->val. Returns 0, or
 * -EINVAL, with what is wrong.
 */
int bq_params_apply(struct bq_param_set *set, int argc, char **argv);
/* The TCA_OPTIONS of a new qdisc: the parameters set gives, the others 0. */
void bq_params_options(const struct bq_param_set *set, struct bq_options *o);

/* --- kinds (loader.c) --- */
struct bq_load_opts {
	/* 0: the earlier load's, whose live qdiscs keep its maps, else the default */
	__u32 max_instances;
	__u32 ring_slots;	/* a power of two, >= 2 */
	/* 0: the earlier load's, else the kind's (BQ_PER_CLASS); a power of two, >= 2 */
	__u32 class_slots;
	__u32 userns_slots;	/* < max_instances (struct bq_config) */
	__u32 user_slots;	/* <= userns_slots, 0: a quarter of them (struct bq_config) */
	__u32 netns_slots;	/* < max_instances, 0: no cap (struct bq_config) */
	struct bq_params defaults;	/* what new qdiscs of the kind start with */
};
/* max_instances * ring_slots: the entries of each per-slot map, a u32 */
#define BQ_MAX_TOTAL_SLOTS	(1u << 26)
/* Sets o->max_instances if it was 0. Each: 0 or -errno (said). */
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
/*
 * The tables of a kind (meta.c), read from its embedded object (elf.c)
 * without libbpf: the CLI and the tc plugin share them.
 */
/* The kind's object: its bytes, *sz set. */
const void *bq_kind_elf(const struct bq_kind *k, size_t *sz);
/* Section name of an ELF64 object of sz bytes: its bytes, *len set; NULL if none. */
const void *bq_elf_section(const void *elf, size_t sz, const char *name, size_t *len);
/*
 * Renames dynamic symbol from (the only one of that name) to a name no
 * longer, in a shared object linked with --hash-style=sysv, and rebuilds
 * its .hash. 0, or -1 if it is not such an object or has no such symbol.
 */
int bq_elf_rename_symbol(void *elf, size_t sz, const char *from, const char *to);
/* Up to max entries of size sz of the kind's section sec into dst: how many. */
size_t bq_kind_table(const struct bq_kind *k, const char *sec, void *dst, size_t sz, size_t max);
/*
 * Whether the kind's object was built for a framework whose tables this
 * code reads: its major, and a minor up to its own (bpfqdisc.h); else says
 * why. _minor: that minor, or -1.
 */
int bq_kind_framework_minor(const struct bq_kind *k);
bool bq_kind_framework_ok(const struct bq_kind *k);
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
/* The first kind with a parameter called name, and that parameter; NULL if none. */
const struct bq_kind *bq_param_owner(const char *name, const char **param);
/* The kind's parameter table, with values set to the built-in defaults. */
int bq_kind_params(const struct bq_kind *k, struct bq_param_set *set);

/*
 * Attaches the kind's egress program, if it has one, to ifindex (tcx
 * egress, pinned), replacing its earlier attachment there. 0 or -errno.
 */
int bq_attach_egress(const struct bq_kind *k, int ifindex);
/* Unpins the kind's egress attachment to ifindex of netns (a cookie), which
 * detaches it: for a device that went or lost its qdisc, without the scan
 * of bq_tidy(). 0 or -errno. */
int bq_detach_egress(const struct bq_kind *k, __u64 netns, int ifindex);
/* A pinned map of a loaded kind: an fd, or -1 with errno set. */
int bq_open_map(const struct bq_kind *k, const char *map);
/* Each returns 0 or -errno. */
int bq_read_defaults(const struct bq_kind *k, struct bq_params *val);
int bq_read_config(const struct bq_kind *k, struct bq_config *c);
/* The object's slot maps (BQ_SLOT_MAP()), the framework's and the kind's, into d
 * (BQ_MAX_SLOT_MAPS): how many. */
size_t bq_kind_slot_maps(const struct bq_kind *k, struct bq_map_desc *d);
/* The slots an instance table of the kind's pinned maps has; 0 if none. */
__u32 bq_slot_count(const struct bq_kind *k);
/*
 * Its classes per qdisc as built (BQ_PER_CLASS maps' n) and as loaded
 * (its pinned maps'); 0 for a kind without a per-load count, or not loaded.
 */
__u32 bq_kind_class_slots(const struct bq_kind *k);
__u32 bq_class_slot_count(const struct bq_kind *k);
/* Entries per slot of a loaded kind's pinned slot map; 0 if it has none. */
__u32 bq_pinned_per_slot(const struct bq_kind *k, const char *map);
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

/* --- rtnetlink (nl.c) --- */
struct bq_qdisc_info {
	int ifindex;
	char dev[16];
	char kind[BQ_KIND_LEN];
	__u32 handle, parent;
	__u64 bytes, packets;
	__u32 qlen, backlog, drops, requeues, overlimits;
};
/*
 * Creates (or with replace, replaces) a qdisc, with the optlen bytes at
 * opts as its TCA_OPTIONS (opts NULL: none; for a BPF qdisc, a struct
 * bq_options); msg gets the kernel's words.
 */
int bq_nl_qdisc_new(int ifindex, __u32 parent, __u32 handle, const char *kind, bool replace,
		    const void *opts, size_t optlen, char *msg, size_t msglen);
/* Deletes the qdisc of ifindex at parent (and handle, if not 0); msg gets the kernel's words. */
int bq_nl_qdisc_del(int ifindex, __u32 parent, __u32 handle, char *msg, size_t msglen);
/* Parses one dump buffer (any bytes); 1 at its end, 0 for more, -errno. */
int bq_nl_parse_dump(const void *buf, size_t len, int ifindex, struct bq_qdisc_info **v,
		     size_t *n, size_t *cap);
/* Qdiscs of ifindex (0: all) in this netns. Caller frees *out. 0 or -errno. */
int bq_nl_qdisc_list(int ifindex, struct bq_qdisc_info **out, size_t *n);
/* The ifindex of ifname's peer (a veth's, its IFLA_LINK), in the peer's
 * netns. 0 or -errno (said; -ENOLINK: it has none). */
int bq_nl_link_peer(const char *ifname, int *peer);
/* The kind of the qdisc of ifindex at handle (if not 0) or parent, "" if none. */
void bq_nl_qdisc_kind(int ifindex, __u32 parent, __u32 handle, char *kind, size_t len);

/* --- a loaded kind's pins (instance.c), by bpf(2) itself (bpfsys.c) --- */
/* BQ_PIN_ROOT/NAME/what (what NULL: the kind's directory). */
void bq_pin_path(char *buf, size_t len, const struct bq_kind *k, const char *what);
/* Calls fn for each pin of the kind (an entry of its directory): its name and path. */
void bq_for_each_pin(const struct bq_kind *k, void (*fn)(const char *name, const char *path, void *arg),
		     void *arg);
/* Slots claimed, filled in yet or not: what an unload must not miss. */
int bq_owned_slots(const struct bq_kind *k, size_t *n);
struct bpf_map_info;
int bq_bpf_obj_get(const char *path, __u32 flags);
int bq_bpf_map_info(int fd, struct bpf_map_info *info);
int bq_bpf_map_lookup(int fd, const void *key, void *value);
int bq_bpf_map_update(int fd, const void *key, const void *value, __u64 flags);
int bq_bpf_map_delete(int fd, const void *key);
int bq_bpf_map_next_key(int fd, const void *key, void *next);
int bq_bpf_prog_run(int fd, void *ctx, __u32 ctx_size, __u32 *retval);
int bq_bpf_next_id(int cmd, __u32 id, __u32 *next);
int bq_bpf_fd_by_id(int cmd, __u32 id);
int bq_bpf_prog_map_ids(int fd, __u32 *ids, __u32 *n);

/* --- what a loaded kind holds (memory.c) --- */
struct bq_kind_memory {
	__u64 bytes;		/* the memlock of every map of the kind */
	__u32 maps;		/* how many */
	/*
	 * What one instance holds: its share of the regions each instance
	 * has in the slot maps (BQ_SLOT_MAP(), bq_slots among them), which a
	 * load sizes for every slot whether or not a qdisc uses it: those
	 * maps' memlock over the kind's slots.
	 */
	__u64 per_instance;
	/*
	 * Bytes of the arena pages its instances hold (bq/pages.bpf.h:
	 * bq_arena_held), which no map's memlock counts; in bytes too.
	 */
	__u64 arena;
};
/* A loaded kind's memory, now. 0 or -errno (-EPERM: its maps cannot be opened by id). */
int bq_kind_memory(const struct bq_kind *k, struct bq_kind_memory *m);
/*
 * Bytes of the arena pages the instance in slot holds (BQ_ALL_SLOTS: all
 * of the kind's); 0 for a kind without them.
 */
#define BQ_ALL_SLOTS	(~0U)
__u64 bq_arena_bytes(const struct bq_kind *k, __u32 slot);

/* --- qdiscs (qdisc.c: new ones; change.c: changes) --- */
struct bq_qdisc_req {
	const char *dev;
	int ifindex;
	__u32 parent;		/* TC_H_ROOT unless "parent X:Y" */
	__u32 handle;		/* 0: let the kernel pick */
	const struct bq_kind *kind;	/* NULL for a change: the qdisc's */
	int nparams;
	char **params;		/* PARAM VALUE... */
};
/* -EINVAL (said) unless k is loaded. */
int bq_require_loaded(const struct bq_kind *k);
/* Creates (or with replace, replaces) the qdisc of r; a replace onto the
 * same kind changes its parameters. 0, or -errno (said). */
int bq_qdisc_create(struct bq_qdisc_req *r, bool replace);
/* Changes the parameters of the live qdisc at r's place, under its kind's lock. */
int bq_qdisc_change_req(struct bq_qdisc_req *r);
/* set: k's table with base's values, then r's PARAM VALUE words over them. */
int bq_build_params(const struct bq_qdisc_req *r, const struct bq_params *base,
		    struct bq_param_set *set);
/*
 * The live instance on ifindex in this netns at handle (if not 0) or parent,
 * of kind *kind, or of any loaded kind if *kind is NULL; *kind is set to it.
 * 0 or -ENOENT.
 */
int bq_find_instance(int ifindex, __u32 parent, __u32 handle, const struct bq_kind **kind,
		     struct bq_instance *inst);
/* "no BPF qdisc of bpfqdisc at DEV root": -ENOENT, said. */
int bq_no_instance(const char *dev, __u32 parent, __u32 handle);

/* --- classes (class.c) --- */
struct bq_class_req {
	const char *verb;	/* add, change, del, show */
	const char *dev;
	int ifindex;
	__u32 parent, handle;
	int by;			/* enum bq_class_by; -1 when not given */
	const char *what;	/* the selector's value as given */
	__u64 id;
	/* The fields as given ("rate 10mbit"), then as the kind's. */
	const char *word[BQ_MAX_CLASS_FIELDS], *text[BQ_MAX_CLASS_FIELDS];
	int nwords;
	__u64 val[BQ_MAX_CLASS_FIELDS];
	__u64 def[BQ_MAX_CLASS_FIELDS];	/* show: the fields of aggregates without a class */
	bool json;
	/* The qdisc. */
	const struct bq_kind *kind;
	const struct bq_kind_classes *cl;
	struct bq_instance inst;
	int classes, aggs;	/* its maps' fds */
	__u32 class_size, agg_size;	/* their values' sizes */
};
/* "cgroup", "mark", "priority", by enum bq_class_by. */
extern const char *const bq_class_selectors[BQ_BY_KEYS];
/* r for verb, nothing given yet; bq_class_close() once done with it. */
void bq_class_init(struct bq_class_req *r, const char *verb);
void bq_class_close(struct bq_class_req *r);
/* What r's verb needs of the caller's privileges. */
enum bq_need bq_class_needs(const struct bq_class_req *r);
/* One word of r, with its value v (NULL: none): a selector ("mark 7") or a field. */
int bq_class_arg(struct bq_class_req *r, const char *a, const char *v);
/* r's device, which must exist. */
int bq_class_place(struct bq_class_req *r);
/* What r's verb needs, checked before anything is touched: its selector
 * (into r->id) and fields, against every kind with classes. */
int bq_class_check(struct bq_class_req *r);
/* The qdisc at r's place, which must be one with classes, and its maps. */
int bq_class_find_qdisc(struct bq_class_req *r);
/* add, change or del: one write of r's class. */
int bq_class_write(struct bq_class_req *r);
/* An aggregate, as class show gives it. */
struct bq_class_row {
	__u64 id;
	char name[512];		/* cgroup path, or the number */
	bool class;		/* false: the qdisc's defaults */
	__u64 val[BQ_MAX_CLASS_FIELDS];
	__u64 cnt[BQ_MAX_CLASS_FIELDS];
};
/* The aggregates of r's qdisc, then its classes without traffic. Caller frees. */
int bq_class_rows(struct bq_class_req *r, struct bq_class_row **out, size_t *n);
/*
 * For qdisc change: -EINVAL (said) if the parameter that names the
 * aggregates of inst, of kind k, differs between cur and next while inst
 * has classes, which would be read as keys of the new kind; else 0.
 */
int bq_class_rekey_refused(const struct bq_kind *k, const struct bq_instance *inst,
			   const char *dev, const struct bq_params *cur, const struct bq_params *next);
/* A warning on stderr when next names aggregates by a key each sender picks
 * (and cur, NULL for a new qdisc, did not). */
void bq_class_warn_keys(const struct bq_kind *k, const char *dev, const struct bq_params *cur,
			const struct bq_params *next);

/* --- statistics (stats.c) --- */
/* A qdisc as the kernel shows it, joined with its BPF instance. */
struct bq_qdisc_view {
	__u64 netns;			/* its netns cookie */
	struct bq_qdisc_info tc;
	const struct bq_kind *kind;	/* NULL: not one of ours, or not loaded */
	struct bq_instance inst;
	struct bq_param_set set;	/* set.val: the instance's parameters */
	const struct bq_kind_meta *meta;
	__u64 memory;			/* what the instance holds (bq_kind_memory()), 0: unknown */
};
/* The qdiscs of ifindex (0: all) in this netns; ours_only: BPF ones of ours. -errno. */
int bq_qdisc_views(int ifindex, bool ours_only, struct bq_qdisc_view **out, size_t *n);
/* The Prometheus metrics every kind's qdiscs have; a kind's own are bpfqdisc_KIND_NAME. */
#define BQ_NCORE_METRICS	11
struct bq_core_metric {
	const char *name, *type, *help;
};
extern const struct bq_core_metric bq_core_metrics[BQ_NCORE_METRICS];
/*
 * The Prometheus name of kind k's statistic d, after bpfqdisc_: in base
 * units (a name ending in _ns becomes _seconds, bytes get _bytes), a
 * counter's ending in _total once. Returns what its value is divided by
 * (1e9 for seconds, else 1).
 */
unsigned long long bq_prom_xstat_name(const struct bq_kind *k, const struct bq_xstat_desc *d,
				      char *buf, size_t len);
/* Whether name is a key of stats -j's "bpf", or a Prometheus metric, that every kind has. */
bool bq_core_name(const char *name, bool prometheus);
/* Whether instance q is the qdisc tc of netns. */
bool bq_same_qdisc(const struct bq_instance *q, __u64 netns, const struct bq_qdisc_info *tc);

/*
 * --- pods (podrec.c) ---
 * What bpfqdisc-bandwidth, the CNI plugin (src/cni/), created per
 * attachment (container id and interface): a file of BQ_POD_STATE_DIR,
 * <containerID>:<ifname> (neither may hold a ':'), holding a JSON record;
 * a name that is not UTF-8 is {"hex":"..."} there, so that any name reads
 * back as it was.
 * The plugin's DEL reads it rather than trusting prevResult, its GC lists
 * them against cni.dev/valid-attachments, and bpfqdisc stats --prometheus
 * labels the series of a pod's qdiscs with its pod from it. Under /run:
 * qdiscs do not outlive a reboot, nor should their records.
 */
#define BQ_POD_STATE_DIR	"/run/bpfqdisc/cni"

/* One qdisc the plugin created (or its egress backstop, not a qdisc). */
struct bq_pod_qdisc {
	char role[16];			/* "ingress" or "egress": the pod's direction */
	bool in_pod;			/* in the pod's netns, else the node's */
	uint64_t netns_cookie;
	int ifindex;
	char dev[16];			/* IF_NAMESIZE */
	char kind[16];
};
#define BQ_POD_MAX_QDISCS	4
struct bq_pod_placement {
	struct bq_pod_qdisc q[BQ_POD_MAX_QDISCS];
	int n;
};
struct bq_pod_record {
	char network[256];
	char container_id[256];
	char ifname[16];		/* CNI_IFNAME, in the pod's netns */
	char netns[PATH_MAX];		/* CNI_NETNS: a path */
	/* K8S_POD_NAMESPACE and K8S_POD_NAME of CNI_ARGS; "" if not given. */
	char pod_namespace[256];
	char pod_name[256];
	struct bq_pod_placement p;
	/* The file it was read from, in BQ_POD_STATE_DIR: the one to remove,
	 * whatever names its text has (one written before names were kept
	 * whole has U+FFFD where its file's name has the byte). */
	char file[256 + 16];		/* <containerID>:<ifname> */
};
/* Writes r (atomically, replacing an earlier one). 0 or -errno (said). */
int bq_pod_record_save(const struct bq_pod_record *r);
/* The record of an attachment: 0, -ENOENT, or -EINVAL if unreadable. */
int bq_pod_record_load(const char *container_id, const char *ifname, struct bq_pod_record *r);
/* Parses a record's text (a file's bytes). 0 or -EINVAL. */
int bq_pod_record_parse(const char *buf, size_t n, struct bq_pod_record *r);
/* Removes the file a loaded record r was read from. */
void bq_pod_record_drop(const struct bq_pod_record *r);
/* Calls fn for each readable record; stops at its first non-zero return. */
int bq_pod_records_each(int (*fn)(struct bq_pod_record *r, void *arg), void *arg);
/* Every readable record, malloc'd (none: *out NULL, *n 0). 0 or -ENOMEM. */
int bq_pod_records(struct bq_pod_record **out, size_t *n);
/* The qdisc of recs that qdisc tc of netns (a cookie) is, *rec its record;
 * NULL if none is: the plugin's qdiscs are roots, on the device named. */
const struct bq_pod_qdisc *bq_pod_qdisc_find(const struct bq_pod_record *recs, size_t n,
					     __u64 netns, const struct bq_qdisc_info *tc,
					     const struct bq_pod_record **rec);
/* The labels that say which pod q of r is for, as Prometheus text: each
 * ",name=value" of container_id, ifname (the pod's interface), direction
 * (the pod's), network, pod_namespace and pod_name, those that are not "". */
void bq_pod_prom_labels(FILE *f, const struct bq_pod_record *r, const struct bq_pod_qdisc *q);

#endif
