// SPDX-License-Identifier: GPL-2.0
/*
 * bpfqdisc load PATH: a kind from an object file built outside the tree,
 * with the framework (its tables are in the object, read as the built-in
 * kinds' are) or without it (a struct_ops Qdisc_ops alone). Everything
 * that would make it a kind other than the one its .id names, or that
 * would misread it, is refused here, before anything is pinned.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "lib.h"
#include "pindir.h"

struct bpf_map *bq_qdisc_ops_map(struct bpf_object *obj, const char *path)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *m, *found = NULL;
	int n = 0;

	bpf_object__for_each_map(m, obj) {
		const struct btf_type *t;
		const char *type;

		if (bpf_map__type(m) != BPF_MAP_TYPE_STRUCT_OPS)
			continue;
		t = btf__type_by_id(btf, bpf_map__btf_value_type_id(m));
		type = t ? btf__name_by_offset(btf, t->name_off) : "?";
		/* Qdisc_ops___flavor: libbpf's name of another kernel's layout */
		if (strncmp(type, "Qdisc_ops", 9) || (type[9] && strncmp(type + 9, "___", 3))) {
			bq_err("%s has a struct_ops map of %s: bpfqdisc loads qdiscs only", path, type);
			return NULL;
		}
		found = m;
		n++;
	}
	if (n != 1) {
		bq_err(n ? "%s has %d struct_ops maps of Qdisc_ops: load one kind per object"
			 : "%s has no struct_ops map of Qdisc_ops: not a qdisc", path, n);
		return NULL;
	}
	return found;
}

/* The member called name of struct type t in btf, or NULL. */
static const struct btf_member *member(const struct btf *btf, const struct btf_type *t,
				       const char *name)
{
	const struct btf_member *mb = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, mb++)
		if (!strcmp(btf__name_by_offset(btf, mb->name_off), name))
			return mb;
	return NULL;
}

/*
 * Each member the object sets must be one this kernel's struct Qdisc_ops
 * has: an object built for another kernel's types would be refused deep
 * in libbpf with less to go on.
 */
static int check_kernel_btf(struct bpf_object *obj, struct bpf_map *ops, const char *path)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_type *t = btf__type_by_id(btf, bpf_map__btf_value_type_id(ops));
	const struct btf_member *mb = btf_members(t);
	struct btf *kbtf = btf__load_vmlinux_btf();
	const unsigned char *data = bpf_map__initial_value(ops, &(size_t){ 0 });
	int kid = kbtf ? btf__find_by_name_kind(kbtf, "Qdisc_ops", BTF_KIND_STRUCT) : -1;
	int err = 0;

	if (kid < 0) {
		bq_err("cannot read this kernel's struct Qdisc_ops (BTF): %s", strerror(errno));
		btf__free(kbtf);
		return -1;
	}
	for (int i = 0; !err && i < btf_vlen(t); i++, mb++) {
		const char *name = btf__name_by_offset(btf, mb->name_off);
		__s64 sz = btf__resolve_size(btf, mb->type);
		bool set = false;

		for (__s64 b = 0; sz > 0 && b < sz && !set; b++)
			set = data[mb->offset / 8 + b];
		if (set && !member(kbtf, btf__type_by_id(kbtf, kid), name)) {
			bq_err("%s was built for another kernel's types: its struct Qdisc_ops sets %s, "
			       "which this kernel's lacks", path, name);
			err = -1;
		}
	}
	btf__free(kbtf);
	return err;
}

/* Its .id, bpf_NAME, into name (NAME); -1 (said) if it has none or another. */
static int kind_name(struct bpf_object *obj, struct bpf_map *ops, const char *path, char *name)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_member *id = member(btf, btf__type_by_id(btf, bpf_map__btf_value_type_id(ops)),
					    "id");
	size_t sz = 0;
	const char *data = bpf_map__initial_value(ops, &sz);
	char text[BQ_KIND_LEN * 4 + 1];

	if (!id || !data || id->offset / 8 + BQ_KIND_LEN > sz || !data[id->offset / 8])
		return bq_error(-EINVAL, "%s: its Qdisc_ops has no .id (a loaded kind's is bpf_NAME)", path);
	data += id->offset / 8;
	if (strnlen(data, BQ_KIND_LEN) == BQ_KIND_LEN || strncmp(data, "bpf_", 4) ||
	    !bq_kind_name_ok(data + 4)) {
		return bq_error(-EINVAL, "%s: its Qdisc_ops .id is \"%s\": a loaded kind's is bpf_NAME, NAME of at most "
		       "%d of a-z, 0-9 and _, not hbm and digits", path,
		       bq_text_str(data, text, sizeof(text)), BQ_KIND_LEN - 1 - 4);
	}
	strcpy(name, data + 4);
	return 0;
}

static int check_new_kind(const char *name)
{
	const struct bq_kind *k = bq_kind_find(name);
	char dir[PATH_MAX];

	if (k && k->path)
		return bq_error(-EINVAL, "%s is loaded already, %s: unload it first", k->kind, k->summary);
	if (k)
		return bq_error(-EINVAL, "%s is a built-in kind: give yours another name (its Qdisc_ops .id)", k->kind);
	snprintf(dir, sizeof(dir), "%s/%s", BQ_PIN_ROOT, name);
	if (!access(dir, F_OK)) {
		return bq_error(-EINVAL, "%s exists: pins of an earlier bpf_%s, or of bpfqdisc's unloaded with live "
		       "qdiscs; delete those qdiscs first", dir, name);
	}
	return 0;
}

/* A table's name: NUL-terminated in its field, 1 or more letters, digits or _. */
static bool name_ok(const char *name, size_t field)
{
	size_t len = strnlen(name, field);

	return len && len < field &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == len;
}

/*
 * Names the CLI would misread: a kind named as a parameter (qdisc change
 * takes a kind word where parameters start), a statistic named as a core
 * counter (a second key in stats -j) or made a core Prometheus metric by
 * the kind's prefix, a name without its NUL. 0, or -1 (said).
 */
static int check_names(const struct bq_kind *k, const struct bq_kind_meta *m)
{
	char prom[sizeof(m->xstats[0].name) + BQ_KIND_LEN + 16];
	const char *what = NULL, *param;
	const struct bq_kind *owner;
	size_t i, bad = 0;

	for (i = 0; i < m->nparams && !what; i++)
		if (!name_ok(m->params[i].name, sizeof(m->params[i].name)))
			what = "parameter", bad = i;
	for (i = 0; i < m->nxstats && !what; i++)
		if (!name_ok(m->xstats[i].name, sizeof(m->xstats[i].name)))
			what = "statistic", bad = i;
	for (i = BQ_DROP_KIND; i < m->ndrops && !what; i++)
		if (!name_ok(m->drops[i].name, sizeof(m->drops[i].name)))
			what = "drop reason", bad = i - BQ_DROP_KIND;
	if (what)
		return bq_error(-EINVAL, "%s: %s %zu has no name of 1 to %zu letters, digits or _", k->kind, what, bad,
		       sizeof(m->params[0].name) - 1);
	for (i = 0; i < m->nxstats; i++) {
		const char *x = m->xstats[i].name;

		bq_prom_xstat_name(k, &m->xstats[i], prom, sizeof(prom));
		if (bq_core_name(x, false))
			return bq_error(-EINVAL, "%s: statistic \"%s\" is a counter every kind has", k->kind, x);
		if (bq_core_name(prom, true))
			return bq_error(-EINVAL, "%s: statistic \"%s\" would be Prometheus' bpfqdisc_%s, a metric every "
			       "kind has", k->kind, x, prom);
	}
	for (i = 0; i < m->nparams; i++) {
		const struct bq_kind *other = bq_kind_find(m->params[i].name);

		if (other && other != k)
			return bq_error(-EINVAL, "%s: parameter \"%s\" is a kind's name (%s)", k->kind,
			       m->params[i].name, other->kind);
	}
	owner = bq_param_owner(k->name, &param);
	if (!owner)
		owner = bq_param_owner(k->kind, &param);
	if (owner)
		return bq_error(-EINVAL, "%s: its name is a parameter's (%s of %s): give it another (its Qdisc_ops .id)",
		       k->kind, param, owner->kind);
	return 0;
}

/*
 * The kind an object file makes, checked, with its tables; NULL (said) on
 * error. It takes bytes, the file's: a kind in bq_kinds keeps them (one
 * refused by check_names() too, as it stays there), else they are freed.
 */
static const struct bq_kind *kind_of_object(const char *path, void *bytes, size_t len)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "object");
	struct bpf_object *obj = bpf_object__open_mem(bytes, len, &opts);
	const struct bq_kind *k = NULL;
	const struct bq_kind_meta *meta;
	char name[BQ_KIND_LEN], *abs;
	struct bpf_map *ops;
	bool plain;

	if (!obj) {
		bq_err("cannot open %s as a BPF object: %s", path, strerror(errno));
		free(bytes);
		return NULL;
	}
	ops = bq_qdisc_ops_map(obj, path);
	plain = !bpf_object__find_map_by_name(obj, "bq_slots");
	if (ops && !kind_name(obj, ops, path, name) && !check_kernel_btf(obj, ops, path) &&
	    !check_new_kind(name)) {
		abs = realpath(path, NULL);
		k = bq_kinds_add(name, abs ?: path, bytes, len, plain);
		if (!k) {
			bq_err("too many kinds loaded from files (%d)", BQ_MAX_LOADED);
			free(abs);
		}
	}
	bpf_object__close(obj);
	if (!k)
		free(bytes);
	/* A framework object is refused if its tables would be misread. */
	return k && (plain || ((meta = bq_kind_meta(k)) && !check_names(k, meta))) ? k : NULL;
}

int bq_kind_from_file(const char *path, const struct bq_kind **k)
{
	void *bytes;
	size_t len;
	int err = bq_read_object(path, &bytes, &len);

	if (err)
		return err;
	*k = kind_of_object(path, bytes, len);
	return *k ? 0 : -EINVAL;
}
