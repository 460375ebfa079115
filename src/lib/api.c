// SPDX-License-Identifier: GPL-2.0
/*
 * libbpfqdisc's public API (include/libbpfqdisc.h): what a program drives
 * bpfqdisc with, made of the same parts and in the same order as the CLI's
 * commands, with the same checks, locks and messages.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib.h"

/* Once per process: libbpf quiet, the kinds loaded from files known. */
static void init(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	bq_quiet_libbpf();
	bq_kinds_discover();
}

int bq_kind_lookup(const char *name, const struct bq_kind **k)
{
	char names[256];

	if (!name)
		return bq_invalid("which qdisc? known: %s", bq_kind_names(names, sizeof(names)));
	*k = bq_kind_find(name);
	if (!*k)
		return bq_invalid("unknown qdisc '%s' (known: %s)", name,
				  bq_kind_names(names, sizeof(names)));
	return 0;
}

int bq_prepare(enum bq_need need)
{
	int err = bq_check_caps(need) ?: bq_check_kernel() ?: bq_ensure_bpffs();

	if (!err)
		bq_tidy();
	return err;
}

/* bpfqdisc load PATH: an object file, not a kind's name. */
static bool is_object_path(const char *arg)
{
	size_t n = strlen(arg);

	return strchr(arg, '/') || (n > 2 && !strcmp(arg + n - 2, ".o"));
}

/*
 * --user-slots: given only with --userns-slots, at most as many; by default
 * a quarter of them, rounded up, so that no one user takes them all. An
 * object older than framework 2.2 cannot bound them per user: it takes
 * user namespaces only when told there is no such bound.
 */
static int user_slots_check(const struct bq_kind *k, struct bq_load_opts *o)
{
	int minor;

	if (o->user_slots && !o->userns_slots)
		return bq_invalid("--user-slots needs --userns-slots (without it no user namespace "
				  "gets a slot)");
	if (o->user_slots > o->userns_slots)
		return bq_invalid("--user-slots %u is more than --userns-slots %u", o->user_slots,
				  o->userns_slots);
	if (!o->user_slots)
		o->user_slots = (o->userns_slots + 3) / 4;
	if (o->user_slots == o->userns_slots)
		return 0;
	minor = bq_kind_framework_minor(k);
	if (minor < 0)
		return minor;
	if (minor < 2)
		return bq_invalid("%s was built for the bpfqdisc framework %d.%d, which cannot bound "
				  "user namespaces per user: rebuild it, or give --user-slots %u",
				  k->kind, BQ_FRAMEWORK_MAJOR, minor, o->userns_slots);
	return 0;
}

static bool is_pow2_min2(__u32 n)
{
	return n >= 2 && !(n & (n - 1));
}

static int load_opts(const struct bq_kind_opts *lim, struct bq_load_opts *o)
{
	*o = (struct bq_load_opts){ .ring_slots = BQ_DEFAULT_RING_SLOTS };
	if (lim) {
		o->max_instances = lim->max_instances;
		o->ring_slots = lim->ring_slots ?: BQ_DEFAULT_RING_SLOTS;
		o->userns_slots = lim->userns_slots;
		o->user_slots = lim->user_slots;
		o->netns_slots = lim->netns_slots;
		if (lim->flags & BQ_LOAD_CLASS_SLOTS) {
			o->class_slots = lim->class_slots;
			if (!is_pow2_min2(o->class_slots))
				return bq_invalid("--class-slots %u is not a power of two of at least 2",
						  o->class_slots);
		}
	}
	if (!is_pow2_min2(o->ring_slots))
		return bq_invalid("--ring-slots %u is not a power of two of at least 2", o->ring_slots);
	/* The per-slot maps hold max_instances * ring_slots entries. */
	if ((__u64)o->max_instances * o->ring_slots > BQ_MAX_TOTAL_SLOTS)
		return bq_invalid("--max-instances %u x --ring-slots %u is more than %u slots in all",
				  o->max_instances, o->ring_slots, BQ_MAX_TOTAL_SLOTS);
	return 0;
}

/*
 * A kind without the framework has no .init of ours: any user who can make
 * a netns (on Debian, every local user) can create its qdiscs, with no
 * --userns-slots and no slot limit. Root says so, with --unguarded, its
 * only option.
 */
static int plain_allowed(const struct bq_kind *k, const struct bq_kind_opts *o, int argc)
{
	if (o && o->flags == BQ_LOAD_UNGUARDED && !argc && !o->max_instances && !o->ring_slots &&
	    !o->userns_slots && !o->user_slots && !o->netns_slots)
		return 0;
	return bq_invalid("%s has none of the bpfqdisc framework: every user namespace may create "
			  "its qdiscs, without limit; load it with --unguarded (and nothing else) "
			  "to allow that", k->kind);
}

/*
 * A framework kind from a file gets a plugin of its own for plain tc: put
 * in place if the load succeeds, and refused with it if it cannot be.
 */
static int tc_plugin_stage(const struct bq_kind *k, struct bq_tc_plugin *p)
{
	if (!k->path || k->plain)
		return 0;
	return bq_tc_plugin_stage(k, p);
}

BQ_API int bq_kind_load(const char *kind, struct bq_kind_opts *lim, int argc, char **argv)
{
	struct bq_tc_plugin plugin = {};
	struct bq_param_set set = {};
	const struct bq_kind *k;
	struct bq_load_opts o;
	int err;

	init();
	err = kind && is_object_path(kind) ? bq_kind_from_file(kind, &k) : bq_kind_lookup(kind, &k);
	if (err)
		return err;
	if (k->plain)
		err = plain_allowed(k, lim, argc);
	else if (lim && (lim->flags & BQ_LOAD_UNGUARDED))
		err = bq_invalid("%s has the bpfqdisc framework: --unguarded is for kinds without it",
				 k->kind);
	err = err ?: load_opts(lim, &o) ?: user_slots_check(k, &o);
	if (!err && !k->plain)
		err = bq_kind_params(k, &set) ?: bq_params_apply(&set, argc, argv);
	if (err)
		return err;
	o.defaults = set.val;
	err = bq_prepare(BQ_NEED_LOAD) ?: tc_plugin_stage(k, &plugin) ?: bq_load(k, &o);
	if (bq_tc_plugin_commit(&plugin, !err)) {
		bq_unload(k, true);	/* all or nothing */
		err = -EIO;
	}
	if (!err && lim) {
		lim->max_instances = o.max_instances;
		snprintf(lim->kind, sizeof(lim->kind), "%s", k->kind);
	}
	return err;
}

BQ_API int bq_kind_unload(const char *kind, unsigned int flags)
{
	const struct bq_kind *k;
	int err;

	init();
	err = bq_kind_lookup(kind, &k) ?: bq_prepare(BQ_NEED_LOAD) ?:
	      bq_unload(k, flags & BQ_UNLOAD_FORCE);
	if (!err && k->path)
		bq_tc_plugin_remove(k);
	return err;
}

BQ_API int bq_kind_loaded(const char *kind)
{
	const struct bq_kind *k;

	init();
	if (!kind || !(k = bq_kind_find(kind)))
		return bq_error(-ENOENT, "unknown qdisc '%s'", kind ?: "");
	return bq_is_loaded(k);
}

/* The request for the qdisc of dev at parent (and handle, if not 0). */
static int qdisc_place(struct bq_qdisc_req *r, const char *dev, __u32 parent, __u32 handle)
{
	*r = (struct bq_qdisc_req){ .dev = dev, .parent = parent, .handle = handle };
	if (!dev)
		return bq_invalid("%s", "which device? (dev DEV)");
	r->ifindex = if_nametoindex(dev);
	if (!r->ifindex)
		return bq_invalid("no such device '%s'", dev);
	return 0;
}

BQ_API int bq_qdisc_add(const char *dev, uint32_t parent, uint32_t handle, const char *kind,
			int argc, char **argv, unsigned int flags)
{
	struct bq_qdisc_req r;
	int err;

	init();
	err = qdisc_place(&r, dev, parent, handle) ?:
	      (kind ? bq_kind_lookup(kind, &r.kind) : bq_invalid("%s", "which qdisc? (e.g. bpf_fifo)"));
	if (err)
		return err;
	r.nparams = argc;
	r.params = argv;
	return bq_prepare(BQ_NEED_LOAD) ?: bq_require_loaded(r.kind) ?:
	       bq_qdisc_create(&r, flags & BQ_QDISC_REPLACE);
}

BQ_API int bq_qdisc_change(const char *dev, uint32_t parent, uint32_t handle, int argc,
			   char **argv)
{
	struct bq_qdisc_req r;
	int err;

	init();
	err = qdisc_place(&r, dev, parent, handle);
	if (err)
		return err;
	if (argc <= 0)
		return bq_invalid("%s", "nothing to change: give PARAM VALUE pairs");
	r.nparams = argc;
	r.params = argv;
	return bq_prepare(BQ_NEED_LOAD) ?: bq_qdisc_change_req(&r);
}

BQ_API int bq_qdisc_delete(const char *dev, uint32_t parent, uint32_t handle)
{
	struct bq_qdisc_req r;
	char msg[256];
	int err;

	init();
	err = qdisc_place(&r, dev, parent, handle) ?: bq_prepare(BQ_NEED_LOAD);
	if (err)
		return err;
	err = bq_nl_qdisc_del(r.ifindex, parent, handle, msg, sizeof(msg));
	if (err)
		return bq_error(err, "cannot delete the qdisc of %s: %s", dev,
				msg[0] ? msg : strerror(-err));
	bq_tidy();	/* its egress attachment, if any */
	return 0;
}

BQ_API int bq_qdisc_param(const char *dev, uint32_t parent, uint32_t handle, const char *name,
			  char *buf, size_t len)
{
	struct bq_qdisc_req r;
	struct bq_instance inst;
	struct bq_param_set set;
	int err;

	init();
	err = qdisc_place(&r, dev, parent, handle) ?: bq_prepare(BQ_NEED_READ);
	if (err)
		return err;
	if (bq_find_instance(r.ifindex, parent, handle, &r.kind, &inst))
		return bq_no_instance(dev, parent, handle);
	err = bq_kind_params(r.kind, &set);
	if (!err && bq_read_params(r.kind, inst.slot, &set.val))
		err = bq_error(-errno, "cannot read the parameters of %s on %s: %s", r.kind->kind,
			       dev, strerror(errno));
	for (size_t i = 0; !err && i < set.n; i++)
		if (!strcmp(set.desc[i].name, name)) {
			bq_format_value(set.desc[i].unit, set.val.v[i], buf, len);
			return 0;
		}
	return err ?: bq_error(-ENOENT, "%s has no parameter '%s'", r.kind->kind, name);
}

/* Statistic name of view v, into *val: 0, or -ENOENT. */
static int view_stat(const struct bq_qdisc_view *v, const char *name, __u64 *val)
{
	const struct { const char *name; __u64 val; } tc[] = {
		{ "bytes", v->tc.bytes }, { "packets", v->tc.packets }, { "drops", v->tc.drops },
		{ "overlimits", v->tc.overlimits }, { "requeues", v->tc.requeues },
		{ "backlog", v->tc.backlog }, { "qlen", v->tc.qlen },
		{ "enqueued", v->inst.cnt.enqueued }, { "dequeued", v->inst.cnt.dequeued },
		{ "dequeued_bytes", v->inst.cnt.dequeued_bytes }, { "marks", v->inst.cnt.marks },
		{ "throttled", v->inst.cnt.overlimits }, { "resets", v->inst.cnt.resets },
	};
	/* tc's own, then those of the BPF instance, if there is one. */
	size_t ntc = v->kind ? sizeof(tc) / sizeof(tc[0]) : 7;

	for (size_t i = 0; i < ntc; i++)
		if (!strcmp(tc[i].name, name)) {
			*val = tc[i].val;
			return 0;
		}
	for (size_t i = 0; v->kind && i < v->meta->ndrops; i++)
		if (!strncmp(name, "drops.", 6) && !strcmp(name + 6, v->meta->drops[i].name)) {
			*val = v->inst.cnt.drops[i];
			return 0;
		}
	for (size_t i = 0; v->kind && i < v->meta->nxstats; i++)
		if (!strcmp(name, v->meta->xstats[i].name)) {
			*val = v->inst.cnt.x[i];
			return 0;
		}
	return -ENOENT;
}

BQ_API int bq_qdisc_stat(const char *dev, uint32_t parent, uint32_t handle, const char *name,
			 uint64_t *value)
{
	struct bq_qdisc_view *v = NULL;
	struct bq_qdisc_req r;
	size_t n = 0, i;
	__u64 val = 0;
	int err;

	init();
	err = qdisc_place(&r, dev, parent, handle) ?: bq_prepare(BQ_NEED_READ);
	if (!err && (err = bq_qdisc_views(r.ifindex, false, &v, &n)))
		bq_error(err, "cannot list qdiscs: %s", strerror(-err));
	for (i = 0; !err && i < n; i++)
		if (v[i].tc.parent == parent && (!handle || v[i].tc.handle == handle))
			break;
	if (!err && i == n)
		err = bq_error(-ENOENT, "no qdisc at %s %s", dev, parent == TC_H_ROOT ? "root" :
			       "with that parent");
	if (!err && view_stat(&v[i], name, &val))
		err = bq_error(-ENOENT, "the qdisc of %s has no statistic '%s'", dev, name);
	if (!err)
		*value = val;
	free(v);
	return err;
}

/* class add|change|del with argv's words, as bpfqdisc class takes them. */
static int class_write(const char *verb, const char *dev, uint32_t parent, uint32_t handle,
		       int argc, char **argv)
{
	struct bq_class_req r;
	int err = 0;

	init();
	bq_class_init(&r, verb);
	r.dev = dev;
	r.parent = parent;
	r.handle = handle;
	for (int i = 0; !err && i < argc; i += 2)
		err = bq_class_arg(&r, argv[i], i + 1 < argc ? argv[i + 1] : NULL);
	err = err ?: bq_class_place(&r) ?: bq_class_check(&r) ?: bq_prepare(bq_class_needs(&r)) ?:
	      bq_class_find_qdisc(&r) ?: bq_class_write(&r);
	bq_class_close(&r);
	return err;
}

BQ_API int bq_class_add(const char *dev, uint32_t parent, uint32_t handle, int argc, char **argv)
{
	return class_write("add", dev, parent, handle, argc, argv);
}

BQ_API int bq_class_change(const char *dev, uint32_t parent, uint32_t handle, int argc,
			   char **argv)
{
	return class_write("change", dev, parent, handle, argc, argv);
}

BQ_API int bq_class_delete(const char *dev, uint32_t parent, uint32_t handle, int argc,
			   char **argv)
{
	return class_write("del", dev, parent, handle, argc, argv);
}
