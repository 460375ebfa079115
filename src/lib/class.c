// SPDX-License-Identifier: GPL-2.0
/*
 * bpfqdisc class add|change|del|show: settings per aggregate, for kinds that
 * declare classes (include/bq/class.bpf.h).
 *
 * A class holds the fields of one aggregate of one qdisc: a cgroup (given
 * by path, kept as its id), an skb mark or an skb priority, whichever the
 * kind names its aggregates by. Classes live in the kind's class map under
 * the qdisc's slot; the qdisc reads its class on every packet, so a change
 * holds from the next packet on, and forgets them all when it is destroyed.
 * Each add, change or del is one map operation, so writers need no lock:
 * add fails if the class exists, change and del if it does not; add and
 * change give every field. What names the aggregates (the kind's classify
 * parameter) may not change while the qdisc has classes (qdisc change asks
 * bq_class_rekey_refused); add checks it again after its write. By
 * priority every sender picks its key, and add says so. show lists the aggregates the qdisc has seen,
 * with their counters, and the classes that have no traffic yet.
 *
 * Everything about the kind comes from its descriptor (struct
 * bq_kind_classes): the maps, the fields with their units and ranges, the
 * counters. The arguments are checked before the qdisc is looked up (and
 * before privileges are, but for a word no kind in sight has as a field),
 * against every registered kind with classes: input that none of them takes
 * is refused then, and what the qdisc's own kind does not take once it is
 * found.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/bpf.h>
#include "lib.h"

#define CGROUP2_SUPER_MAGIC	0x63677270

const char *const bq_class_selectors[BQ_BY_KEYS] = {
	[BQ_BY_CGROUP] = "cgroup", [BQ_BY_MARK] = "mark", [BQ_BY_PRIORITY] = "priority",
};

/*
 * Any process may set its sockets' priority to 0-6 (SO_PRIORITY) or by
 * IP_TOS, with no privilege: by priority, the sender picks its aggregate.
 * A mark (SO_MARK) needs CAP_NET_RAW or CAP_NET_ADMIN, a cgroup write access
 * to its cgroup.procs.
 */
static void warn_sender_picks(const char *dev)
{
	bq_warn("warning: on %s every sender picks its own priority (SO_PRIORITY 0-6 and IP_TOS "
	       "need no privilege) and so its class; a class by priority holds only senders "
	       "that keep theirs (with shared_default on, keys without a class share priority "
	       "0's aggregate and rate)", dev);
}


static const char *cgroup2_mount(void)
{
	static char mnt[256];
	char dev[64], type[32];
	FILE *f = fopen("/proc/mounts", "r");

	mnt[0] = '\0';
	while (f && fscanf(f, "%63s %255s %31s %*[^\n]", dev, mnt, type) == 3)
		if (!strcmp(type, "cgroup2"))
			break;
		else
			mnt[0] = '\0';
	if (f)
		fclose(f);
	return mnt[0] ? mnt : NULL;
}

/*
 * Levels below the cgroup2 mount's root: bpf_hbm searches a socket's
 * ancestors for a class down to BQ_CG_LEVELS only, so a class deeper
 * would hold its cgroup but none of its children.
 */
static int cgroup_level(const char *full)
{
	const char *mnt = cgroup2_mount();
	char real[PATH_MAX], root[PATH_MAX];
	int level = 0;

	if (!realpath(full, real) || !realpath(mnt, root))
		return BQ_CG_LEVELS;
	for (const char *s = real + strlen(root); *s; s++)
		level += *s == '/';
	return level;
}

/*
 * A cgroup's id is its directory's inode number in the cgroup2 mount.
 * deep_ok: class del may name a class an older bpfqdisc took too deep.
 */
static int cgroup_id(const char *path, bool deep_ok, __u64 *id)
{
	const char *mnt = cgroup2_mount();
	char full[512];
	struct statfs sfs;
	struct stat st;

	if (!mnt)
		return bq_invalid("%s", "no cgroup2 mount: cannot name a cgroup");
	/* Cut short, it could name another cgroup. */
	if (snprintf(full, sizeof(full), "%s%s%s", mnt, path[0] == '/' ? "" : "/", path) >=
	    (int)sizeof(full))
		return bq_invalid("cgroup path too long: '%.64s...'", path);
	if (!strncmp(path, mnt, strlen(mnt)) && !stat(path, &st))
		snprintf(full, sizeof(full), "%s", path);
	if (stat(full, &st) || !S_ISDIR(st.st_mode) || statfs(full, &sfs) ||
	    sfs.f_type != CGROUP2_SUPER_MAGIC) {
		return bq_invalid("no cgroup '%s' under %s", path, mnt);
	}
	if (!deep_ok && cgroup_level(full) >= BQ_CG_LEVELS)
		return bq_invalid("cgroup '%s' is %d levels deep or more: a class must be above, where its children cannot escape it",
		       path, BQ_CG_LEVELS);
	*id = st.st_ino;
	return 0;
}

static __u64 find_ino;
static char found_path[512];

static int match_ino(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (type != FTW_D || st->st_ino != find_ino)
		return 0;
	snprintf(found_path, sizeof(found_path), "%s", path);
	return 1;
}

/* The path of cgroup id under the cgroup2 mount, or "id N" if none has it. */
static const char *cgroup_name(__u64 id)
{
	const char *mnt = cgroup2_mount();
	size_t n = mnt ? strlen(mnt) : 0;

	find_ino = id;
	if (id && mnt && nftw(mnt, match_ino, 16, FTW_PHYS) == 1)
		return found_path[n] ? found_path + n : "/";
	snprintf(found_path, sizeof(found_path), "id %llu", (unsigned long long)id);
	return found_path;
}

static int parse_selector(struct bq_class_req *r)
{
	const char *why;
	__u64 v;

	if (r->by == BQ_BY_CGROUP)
		return cgroup_id(r->what, !strcmp(r->verb, "del"), &r->id);
	if (r->by == BQ_BY_PRIORITY && strchr(r->what, ':')) {
		__u32 h;

		if (bq_parse_handle(r->what, &h))
			return bq_invalid("bad priority '%s' (a number, or MAJOR:MINOR in hex)", r->what);
		r->id = h;
		return 0;
	}
	if (bq_parse_value(BQ_UNIT_COUNT, r->what, &v, &why) || v > 0xFFFFFFFFULL)
		return bq_invalid("bad %s '%s' (a number, 0 to 4294967295)", bq_class_selectors[r->by], r->what);
	r->id = v;
	return 0;
}

/* --- the kind's fields ---------------------------------------------------- */

static const struct bq_kind_classes *classes_of(const struct bq_kind *k)
{
	const struct bq_kind_meta *m = bq_kind_meta(k);

	return m && m->has_classes ? &m->classes : NULL;
}

static const struct bq_class_field *field_find(const struct bq_kind_classes *cl, const char *name)
{
	for (size_t i = 0; i < cl->nfields; i++)
		if (!strcmp(cl->fields[i].name, name))
			return &cl->fields[i];
	return NULL;
}

/* Whether some kind with classes has a field called name. */
static bool known_field(const char *name)
{
	for (size_t i = 0; i < bq_nkinds; i++) {
		const struct bq_kind_classes *cl = classes_of(&bq_kinds[i]);

		if (cl && field_find(cl, name))
			return true;
	}
	return false;
}

static const char *unit_example(enum bq_unit unit)
{
	static const char *const examples[] = {
		[BQ_UNIT_COUNT] = "10", [BQ_UNIT_BYTES] = "1514", [BQ_UNIT_TIME] = "10ms",
		[BQ_UNIT_RATE] = "100mbit", [BQ_UNIT_BOOL] = "on",
	};

	return unit < sizeof(examples) / sizeof(examples[0]) && examples[unit] ?
	       examples[unit] : "...";
}

/* A field's range in words: "more than 0, at most 100Gbit". */
static const char *range_text(const struct bq_class_field *f, char *buf, size_t len)
{
	char lo[32], hi[32];

	bq_format_value(f->unit, f->min, lo, sizeof(lo));
	bq_format_value(f->unit, f->max, hi, sizeof(hi));
	if (f->min > 1)
		snprintf(buf, len, "at least %s, at most %s", lo, hi);
	else
		snprintf(buf, len, "%sat most %s", f->min ? "more than 0, " : "", hi);
	return buf;
}

static bool in_range(const struct bq_class_field *f, __u64 v)
{
	return v >= f->min && v <= f->max && (f->size == 8 || v <= 0xFFFFFFFFULL);
}

/* The first field of cl not given, if any: "which rate? (rate RATE, e.g. rate 100mbit)". */
static bool field_missing(const struct bq_kind_classes *cl, const bool *given, char *why,
			  size_t len)
{
	for (size_t i = 0; i < cl->nfields; i++) {
		const char *name = cl->fields[i].name;
		char upper[sizeof(cl->fields[i].name)];

		if (given[i])
			continue;
		for (size_t c = 0; c < sizeof(upper); c++)
			upper[c] = toupper((unsigned char)name[c]);
		snprintf(why, len, "which %s? (%s %s, e.g. %s %s)", name, name, upper, name,
			 unit_example(cl->fields[i].unit));
		return true;
	}
	return false;
}

/*
 * r's field words as the fields of cl into r->val: each one of cl's, in
 * range, and with add and change every field given. -ENOENT if a word is
 * none of cl's fields, -EINVAL for anything else wrong; *why says what.
 */
static int check_fields(const struct bq_kind_classes *cl, struct bq_class_req *r, char *why,
			size_t len)
{
	bool given[BQ_MAX_CLASS_FIELDS] = {}, all = !strcmp(r->verb, "add") ||
						    !strcmp(r->verb, "change");
	char range[96];

	for (int i = 0; i < r->nwords; i++) {
		const struct bq_class_field *f = field_find(cl, r->word[i]);

		if (!f) {
			snprintf(why, len, "unknown argument '%s'", r->word[i]);
			return -ENOENT;
		}
		given[f - cl->fields] = true;
	}
	if (all && field_missing(cl, given, why, len))
		return -EINVAL;
	for (int i = 0; i < r->nwords; i++) {
		const struct bq_class_field *f = field_find(cl, r->word[i]);
		const char *bad_value;
		__u64 v;

		if (bq_parse_value(f->unit, r->text[i], &v, &bad_value)) {
			snprintf(why, len, "bad %s '%s': %s", f->name, r->text[i], bad_value);
			return -EINVAL;
		}
		if (!in_range(f, v)) {
			snprintf(why, len, "%s '%s' out of range (%s)", f->name, r->text[i],
				 range_text(f, range, sizeof(range)));
			return -EINVAL;
		}
		r->val[f - cl->fields] = v;
	}
	return 0;
}

/*
 * Before the qdisc is known: the fields some kind with classes takes. If
 * none does, what is wrong for the kinds whose fields they all are, when
 * each says the same (bpf_wfq's and bpf_hpfq's weight 0), or else for the
 * first. When they say different things (no field given, which would name
 * one), the qdisc's own kind says what is wrong once it is found: "which
 * rate?" is no answer for a qdisc whose classes have none.
 */
static int check_fields_any(struct bq_class_req *r)
{
	char why[256], first[256] = "";
	size_t verdicts = 0;	/* of the kinds whose fields they are, told apart */

	for (size_t i = 0; i < bq_nkinds; i++) {
		const struct bq_kind_classes *cl = classes_of(&bq_kinds[i]);
		int err = cl ? check_fields(cl, r, why, sizeof(why)) : -ENOENT;

		if (!err)
			return 0;
		if (!cl || (err == -ENOENT ? first[0] != 0 : verdicts && !strcmp(why, first)))
			continue;
		if (err != -ENOENT && verdicts++)
			continue;
		snprintf(first, sizeof(first), "%s", why);
	}
	return first[0] && verdicts < 2 ? bq_invalid("%s", first) : 0;
}

void bq_class_init(struct bq_class_req *r, const char *verb)
{
	*r = (struct bq_class_req){ .verb = verb, .parent = TC_H_ROOT, .by = -1, .classes = -1,
				    .aggs = -1 };
}

void bq_class_close(struct bq_class_req *r)
{
	if (r->classes >= 0)
		close(r->classes);
	if (r->aggs >= 0)
		close(r->aggs);
	r->classes = r->aggs = -1;
}

enum bq_need bq_class_needs(const struct bq_class_req *r)
{
	return strcmp(r->verb, "show") ? BQ_NEED_LOAD : BQ_NEED_READ;
}

int bq_class_arg(struct bq_class_req *r, const char *a, const char *v)
{
	int by = -1;

	for (size_t s = 0; s < BQ_BY_KEYS; s++)
		if (!strcmp(a, bq_class_selectors[s]))
			by = s;
	/* Without privilege the kinds loaded from files are unseen: a field
	 * of theirs would be called unknown. */
	if (by < 0 && !known_field(a))
		return bq_check_caps(bq_class_needs(r)) ?: bq_invalid("unknown argument '%s'", a);
	if (!v)
		return bq_invalid("'%s' needs a value", a);
	if (by >= 0) {
		r->by = by;
		r->what = v;
		return 0;
	}
	if (r->nwords == BQ_MAX_CLASS_FIELDS)
		return bq_invalid("%s", "too many fields");
	r->word[r->nwords] = a;
	r->text[r->nwords++] = v;
	return 0;
}

int bq_class_place(struct bq_class_req *r)
{
	if (!r->dev)
		return bq_invalid("%s", "which device? (dev DEV)");
	r->ifindex = if_nametoindex(r->dev);
	if (!r->ifindex)
		return bq_invalid("no such device '%s'", r->dev);
	return 0;
}

int bq_class_check(struct bq_class_req *r)
{
	bool show = !strcmp(r->verb, "show"), del = !strcmp(r->verb, "del");

	if (show && (r->by >= 0 || r->nwords))
		return bq_invalid("%s", "class show takes dev, root, parent, handle and -j only");
	if (!show && r->by < 0)
		return bq_invalid("%s", "which aggregate? (cgroup PATH, mark N or priority N)");
	if (del && r->nwords)
		return bq_invalid("class del takes no %s", r->word[0]);
	return check_fields_any(r) ?: (r->by >= 0 ? parse_selector(r) : 0);
}

/* A parameter of the qdisc, by name. */
static int instance_param(const struct bq_class_req *r, const char *name, __u64 *v)
{
	const struct bq_kind_meta *m = bq_kind_meta(r->kind);
	struct bq_params p;

	if (!m || bq_read_params(r->kind, r->inst.slot, &p))
		return -ENOENT;
	for (size_t i = 0; i < m->nparams; i++)
		if (!strcmp(m->params[i].name, name)) {
			*v = p.v[i];
			return 0;
		}
	return -ENOENT;
}

/* The kinds that have classes, for the error of a kind that has none. */
static const char *kinds_with_classes(char *buf, size_t len)
{
	size_t off = 0, n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < bq_nkinds && off < len; i++)
		if (classes_of(&bq_kinds[i]))
			off += snprintf(buf + off, len - off, "%s%s", n++ ? ", " : "",
					bq_kinds[i].kind);
	if (off < len)
		snprintf(buf + off, len - off, n > 1 ? " have" : n ? " has" : "no kind has");
	return buf;
}

static __u32 value_size(int fd)
{
	struct bpf_map_info info;

	return bq_bpf_map_info(fd, &info) ? 0 : info.value_size;
}

static bool fields_fit(const struct bq_class_field *f, size_t n, __u32 size)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].offset + f[i].size > size)
			return false;
	return true;
}

/* The class and aggregate maps of r's kind, open, their values as its descriptor says. */
static int open_maps(struct bq_class_req *r)
{
	const struct bq_kind_classes *cl = r->cl;

	r->classes = bq_open_map(r->kind, cl->desc.map);
	r->aggs = cl->aggs.map[0] ? bq_open_map(r->kind, cl->aggs.map) : -1;
	if (r->classes < 0 || (cl->aggs.map[0] && r->aggs < 0))
		return bq_error(-errno, "cannot open the class maps of %s: %s", r->kind->kind, strerror(errno));
	r->class_size = value_size(r->classes);
	r->agg_size = r->aggs < 0 ? 0 : value_size(r->aggs);
	if (!fields_fit(cl->fields, cl->nfields, r->class_size) ||
	    (r->aggs >= 0 && (!fields_fit(cl->counters, cl->ncounters, r->agg_size) ||
			      cl->aggs.id + sizeof(__u64) > r->agg_size))) {
		return bq_error(-EIO, "the class maps of %s do not hold the fields it declares", r->kind->kind);
	}
	return 0;
}

/* What names the aggregates of r's qdisc, into r->by; the one given must be it. */
static int qdisc_by(struct bq_class_req *r)
{
	const char *param = r->cl->desc.by_param;
	char how[48] = "";
	__u64 by = r->cl->desc.by;

	if (param[0] && instance_param(r, param, &by))
		return bq_error(-EIO, "cannot read the parameters of %s on %s", r->kind->kind, r->dev);
	if (param[0])
		snprintf(how, sizeof(how), " (%s %llu)", param, (unsigned long long)by);
	if (r->by >= 0 && (__u64)r->by != by)
		return bq_invalid("%s on %s classifies by %s%s, not by %s", r->kind->kind, r->dev,
		       by < BQ_BY_KEYS ? bq_class_selectors[by] : "?", how, bq_class_selectors[r->by]);
	if (by >= BQ_BY_KEYS)
		return bq_error(-EIO, "%s on %s classifies by%s, which bpfqdisc does not know", r->kind->kind,
		       r->dev, how);
	r->by = by;
	return 0;
}

/* The qdisc at r's place, which must be one with classes, and its maps. */
int bq_class_find_qdisc(struct bq_class_req *r)
{
	char kinds[128], why[256];

	if (bq_find_instance(r->ifindex, r->parent, r->handle, &r->kind, &r->inst))
		return bq_no_instance(r->dev, r->parent, r->handle);
	r->cl = classes_of(r->kind);
	if (!r->cl)
		return bq_invalid("%s on %s has no classes (%s)", r->kind->kind, r->dev,
		       kinds_with_classes(kinds, sizeof(kinds)));
	if (check_fields(r->cl, r, why, sizeof(why)))
		return bq_invalid("%s", why);
	return open_maps(r) ?: qdisc_by(r);
}

static __u32 map_entries(int fd)
{
	struct bpf_map_info info;

	return bq_bpf_map_info(fd, &info) ? 0 : info.max_entries;
}

static int replaced(const struct bq_class_req *r)
{
	return bq_error(-ESTALE, "%s on %s was replaced meanwhile: run the class command again", r->kind->kind, r->dev);
}

static __u64 field_get(const struct bq_class_field *f, const void *value)
{
	__u64 v64 = 0;
	__u32 v32 = 0;

	if (f->size == 4)
		memcpy(&v32, (const char *)value + f->offset, sizeof(v32));
	else
		memcpy(&v64, (const char *)value + f->offset, sizeof(v64));
	return f->size == 4 ? v32 : v64;
}

static void field_put(const struct bq_class_field *f, void *value, __u64 v)
{
	__u32 v32 = v;

	memcpy((char *)value + f->offset, f->size == 4 ? (void *)&v32 : (void *)&v, f->size);
}

static int write_error(const struct bq_class_req *r)
{
	int err = -errno;

	if (err == -EEXIST || err == -ENOENT) {
		bq_invalid("%s %s %s on %s", err == -EEXIST ? "there is already a class for" :
			   "there is no class for", bq_class_selectors[r->by], r->what, r->dev);
		return err;
	}
	if (err == -E2BIG)
		return bq_error(err, "cannot add the class: the class map of %s is full (%u classes for "
				"all its qdiscs; load it with a larger --max-instances for more)",
				r->kind->kind, map_entries(r->classes));
	return bq_error(err, "cannot %s the class: %s", r->verb, strerror(-err));
}

/*
 * Whether the parameter that names r's aggregates has changed since
 * qdisc_by read it: qdisc change refuses that while classes exist, and a
 * class added meanwhile would be read as a key of the new kind.
 */
static bool by_changed(const struct bq_class_req *r)
{
	const char *param = r->cl->desc.by_param;
	__u64 by;

	return param[0] && (instance_param(r, param, &by) || by != (__u64)r->by);
}

int bq_class_write(struct bq_class_req *r)
{
	struct bq_class_key key = { .slot = r->inst.slot, .gen = r->inst.created_ns, .id = r->id };
	bool add = !strcmp(r->verb, "add");
	void *c = calloc(1, r->class_size);
	int err;

	if (!c)
		return bq_error(-ENOMEM, "%s", "out of memory");
	for (size_t i = 0; i < r->cl->nfields; i++)
		field_put(&r->cl->fields[i], c, r->val[i]);
	bq_stop_at("write");	/* test_slot_reuse replaces the qdisc here */
	/*
	 * The slot was looked up earlier: a new qdisc may hold it now. The
	 * key's generation keeps the write from reaching it; the checks say
	 * so, and take back an add that no qdisc would read.
	 */
	if (!bq_instance_current(r->kind, &r->inst))
		err = -ESTALE;
	else if (!strcmp(r->verb, "del"))
		err = bq_bpf_map_delete(r->classes, &key);
	else
		err = bq_bpf_map_update(r->classes, &key, c, add ? BPF_NOEXIST : BPF_EXIST);
	free(c);
	if (!err && !bq_instance_current(r->kind, &r->inst)) {
		if (add)
			bq_bpf_map_delete(r->classes, &key);
		err = -ESTALE;
	}
	if (err)
		return err == -ESTALE ? replaced(r) : write_error(r);
	if (add && by_changed(r)) {
		bq_bpf_map_delete(r->classes, &key);
		return bq_error(-ESTALE, "%s of %s on %s changed meanwhile: the class is not added",
		       r->cl->desc.by_param, r->kind->kind, r->dev);
	}
	if (add && r->by == BQ_BY_PRIORITY)
		warn_sender_picks(r->dev);
	return 0;
}

/*
 * The next class of inst in class map fd after *key, or the first one with
 * first; false when there is none.
 */
static bool next_class(int fd, const struct bq_instance *inst, struct bq_class_key *key,
		       bool first)
{
	struct bq_class_key next;

	while (!bq_bpf_map_next_key(fd, first ? NULL : key, &next)) {
		*key = next;
		first = false;
		if (key->slot == inst->slot && key->gen == inst->created_ns)
			return true;
	}
	return false;
}

/* --- show --------------------------------------------------------------- */

static void key_name(const struct bq_class_req *r, __u64 id, char *buf, size_t len)
{
	if (r->by == BQ_BY_CGROUP)
		snprintf(buf, len, "%s", id ? cgroup_name(id) : "none");
	else
		snprintf(buf, len, "%llu", (unsigned long long)id);
}

/* The fields of aggregate id: its class's (true), or the qdisc's defaults. */
static bool class_fields(const struct bq_class_req *r, __u64 id, __u64 *val)
{
	struct bq_class_key key = { .slot = r->inst.slot, .gen = r->inst.created_ns, .id = id };
	void *c = calloc(1, r->class_size);
	bool found = c && !bq_bpf_map_lookup(r->classes, &key, c);

	for (size_t i = 0; i < r->cl->nfields; i++)
		val[i] = found ? field_get(&r->cl->fields[i], c) : r->def[i];
	free(c);
	return found;
}

/* What the qdisc gives the aggregates without a class: its parameters, or 0. */
static void read_defaults(struct bq_class_req *r)
{
	for (size_t i = 0; i < r->cl->nfields; i++) {
		r->def[i] = 0;
		if (r->cl->fields[i].param[0])
			instance_param(r, r->cl->fields[i].param, &r->def[i]);
	}
}

/* The qdisc's aggregates in use (BQ_CLASS_AGGS), room for as many more; n = their count. */
static struct bq_class_row *read_aggs(const struct bq_class_req *r, size_t *n, size_t more)
{
	const struct bq_kind_meta *m = bq_kind_meta(r->kind);
	const struct bq_kind_classes *cl = r->cl;
	struct bq_class_row *v;
	char *val;

	*n = 0;
	for (size_t i = 0; r->aggs >= 0 && i < m->nxstats; i++)
		if (!strcmp(m->xstats[i].name, cl->aggs.count))
			*n = r->inst.cnt.x[i];
	if (cl->aggs.first + *n > cl->per_slot)
		*n = 0;
	v = calloc(*n + more + 1, sizeof(*v));
	val = calloc(1, r->agg_size + 1);
	for (size_t i = 0; v && val && i < *n; i++) {
		__u32 key = r->inst.slot * cl->per_slot + cl->aggs.first + i;

		if (bq_bpf_map_lookup(r->aggs, &key, val))
			continue;
		memcpy(&v[i].id, val + cl->aggs.id, sizeof(v[i].id));
		for (size_t c = 0; c < cl->ncounters; c++)
			v[i].cnt[c] = field_get(&cl->counters[c], val);
	}
	free(val);
	return v;
}

/* The classes of inst in class map fd: a count, or -errno. */
static int count_in(int fd, const struct bq_instance *inst)
{
	struct bq_class_key key;
	int n = 0;

	for (bool more = next_class(fd, inst, &key, true); more;
	     more = next_class(fd, inst, &key, false))
		n++;
	return n;
}

/*
 * The aggregates the qdisc has seen, with their fields (their class's, or
 * the qdisc's defaults) and counters, then the classes whose aggregate has
 * sent nothing yet.
 */
int bq_class_rows(struct bq_class_req *r, struct bq_class_row **out, size_t *n)
{
	struct bq_class_key key;
	struct bq_class_row *v;
	size_t seen_n, m = 0;

	read_defaults(r);
	v = read_aggs(r, &seen_n, count_in(r->classes, &r->inst));
	if (!v)
		return bq_error(-ENOMEM, "%s", "out of memory");
	for (size_t i = 0; i < seen_n; i++) {
		v[m] = v[i];
		v[m].class = class_fields(r, v[m].id, v[m].val);
		key_name(r, v[m].id, v[m].name, sizeof(v[m].name));
		m++;
	}
	for (bool more = next_class(r->classes, &r->inst, &key, true); more;
	     more = next_class(r->classes, &r->inst, &key, false)) {
		bool seen = false;

		for (size_t i = 0; i < seen_n; i++)
			seen |= v[i].id == key.id;
		if (seen)
			continue;
		v[m] = (struct bq_class_row){ .id = key.id };
		v[m].class = class_fields(r, key.id, v[m].val);
		if (!v[m].class)
			continue;
		key_name(r, key.id, v[m].name, sizeof(v[m].name));
		m++;
	}
	*out = v;
	*n = m;
	return 0;
}

/* --- what names the aggregates (qdisc add|replace|change) --------------- */

/* The index of kind k's parameter that names its aggregates; -1 if none does. */
static int by_param_index(const struct bq_kind *k)
{
	const struct bq_kind_classes *cl = classes_of(k);
	const struct bq_kind_meta *m = bq_kind_meta(k);

	for (size_t i = 0; cl && cl->desc.by_param[0] && i < m->nparams; i++)
		if (!strcmp(m->params[i].name, cl->desc.by_param))
			return i;
	return -1;
}

/* The classes of instance inst of kind k: a count, or -errno. */
static int count_classes(const struct bq_kind *k, const struct bq_instance *inst)
{
	int fd = bq_open_map(k, classes_of(k)->desc.map), n;

	if (fd < 0)
		return -errno;
	n = count_in(fd, inst);
	close(fd);
	return n;
}

int bq_class_rekey_refused(const struct bq_kind *k, const struct bq_instance *inst,
			   const char *dev, const struct bq_params *cur, const struct bq_params *next)
{
	int i = by_param_index(k), n;
	const char *param;

	if (i < 0 || cur->v[i] == next->v[i])
		return 0;
	n = count_classes(k, inst);
	if (!n)
		return 0;
	param = bq_kind_meta(k)->params[i].name;
	if (n < 0)
		return bq_error(n, "cannot read the classes of %s on %s: %s", k->kind, dev, strerror(-n));
	return bq_invalid("%s on %s has %d class%s by %s (%s %llu), which %s %llu would read as other keys: "
	       "delete %s first (bpfqdisc class del dev %s %s ...)", k->kind, dev, n,
	       n > 1 ? "es" : "", cur->v[i] < BQ_BY_KEYS ? bq_class_selectors[cur->v[i]] : "?", param,
	       (unsigned long long)cur->v[i], param, (unsigned long long)next->v[i],
	       n > 1 ? "them" : "it", dev, cur->v[i] < BQ_BY_KEYS ? bq_class_selectors[cur->v[i]] : "?");
}

void bq_class_warn_keys(const struct bq_kind *k, const char *dev, const struct bq_params *cur,
			const struct bq_params *next)
{
	int i = by_param_index(k);

	if (i >= 0 && next->v[i] == BQ_BY_PRIORITY && (!cur || cur->v[i] != BQ_BY_PRIORITY))
		warn_sender_picks(dev);
}

