// SPDX-License-Identifier: GPL-2.0
/*
 * bpfqdisc class add|change|del|show: the per-aggregate rates of bpf_hbm.
 *
 * A class is a rate for one aggregate of one qdisc: a cgroup (given by path,
 * kept as its id), an skb mark or an skb priority, whichever the qdisc's
 * classify parameter says it classifies by. Classes live in the kind's
 * hbm_classes map under the qdisc's slot; the qdisc reads its class on every
 * packet, so a change holds from the next packet on, and forgets them all
 * when it is destroyed. Each add, change or del is one map operation, so
 * writers need no lock: add fails if the class exists, change and del if it
 * does not. show lists the aggregates the qdisc has seen, with their
 * counters, and the classes that have no traffic yet.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <bpf/bpf.h>
#include "lib.h"
#include "hbm.h"

#define TC_H_ROOT		0xFFFFFFFFU
#define CGROUP2_SUPER_MAGIC	0x63677270
#define MAX_RATE		12500000000ULL	/* 100 Gbit/s, as the rate parameter */

static const char *const selectors[] = {
	[HBM_BY_CGROUP] = "cgroup", [HBM_BY_MARK] = "mark", [HBM_BY_PRIORITY] = "priority",
};

struct class_req {
	const char *verb;
	const char *dev;
	int ifindex;
	__u32 parent, handle;
	int by;			/* enum hbm_classify; -1 when not given */
	const char *what;	/* the selector's value as given */
	__u64 id;
	const char *rate_text;
	__u64 rate;
	bool json;
	/* The qdisc. */
	const struct bq_kind *kind;
	struct bq_instance inst;
	int classes, aggs;	/* its maps' fds */
};

static int bad(const char *fmt, const char *arg)
{
	char buf[256];

	snprintf(buf, sizeof(buf), fmt, arg);
	bq_err("%s", buf);
	return BQ_EXIT_USAGE;
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

/* A cgroup's id is its directory's inode number in the cgroup2 mount. */
static int cgroup_id(const char *path, __u64 *id)
{
	const char *mnt = cgroup2_mount();
	char full[512];
	struct statfs sfs;
	struct stat st;

	if (!mnt)
		return bad("%s", "no cgroup2 mount: cannot name a cgroup");
	snprintf(full, sizeof(full), "%s%s%s", mnt, path[0] == '/' ? "" : "/", path);
	if (!strncmp(path, mnt, strlen(mnt)) && !stat(path, &st))
		snprintf(full, sizeof(full), "%s", path);
	if (stat(full, &st) || !S_ISDIR(st.st_mode) || statfs(full, &sfs) ||
	    sfs.f_type != CGROUP2_SUPER_MAGIC) {
		bq_err("no cgroup '%s' under %s", path, mnt);
		return BQ_EXIT_USAGE;
	}
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

static int parse_selector(struct class_req *r)
{
	const char *why;
	__u64 v;

	if (r->by == HBM_BY_CGROUP)
		return cgroup_id(r->what, &r->id);
	if (r->by == HBM_BY_PRIORITY && strchr(r->what, ':')) {
		__u32 h;

		if (bq_parse_handle(r->what, &h))
			return bad("bad priority '%s' (a number, or MAJOR:MINOR in hex)", r->what);
		r->id = h;
		return 0;
	}
	if (bq_parse_value(BQ_UNIT_COUNT, r->what, &v, &why) || v > 0xFFFFFFFFULL) {
		bq_err("bad %s '%s' (a number, 0 to 4294967295)", selectors[r->by], r->what);
		return BQ_EXIT_USAGE;
	}
	r->id = v;
	return 0;
}

static int parse_rate(struct class_req *r)
{
	const char *why;

	if (bq_parse_value(BQ_UNIT_RATE, r->rate_text, &r->rate, &why)) {
		bq_err("bad rate '%s': %s", r->rate_text, why);
		return BQ_EXIT_USAGE;
	}
	if (!r->rate || r->rate > MAX_RATE)
		return bad("rate '%s' out of range (more than 0, at most 100gbit)", r->rate_text);
	return 0;
}

/* dev DEV [root | parent X:Y | handle X:] [SELECTOR VALUE] [rate RATE] [-j] */
static int parse_args(int argc, char **argv, struct class_req *r)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int by = -1;

		for (size_t s = 0; s < sizeof(selectors) / sizeof(selectors[0]); s++)
			if (!strcmp(a, selectors[s]))
				by = s;
		if (!strcmp(a, "root")) {
			r->parent = TC_H_ROOT;
			continue;
		}
		if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			r->json = true;
			continue;
		}
		if (by < 0 && strcmp(a, "dev") && strcmp(a, "parent") && strcmp(a, "handle") &&
		    strcmp(a, "rate"))
			return bad("unknown argument '%s'", a);
		if (!v)
			return bad("'%s' needs a value", a);
		i++;
		if (by >= 0) {
			r->by = by;
			r->what = v;
		} else if (a[0] == 'd') {
			r->dev = v;
		} else if (a[0] == 'r') {
			r->rate_text = v;
		} else if (bq_parse_handle(v, a[0] == 'p' ? &r->parent : &r->handle)) {
			return bad("bad handle '%s' (expected MAJOR:[MINOR] in hex)", v);
		}
	}
	if (!r->dev)
		return bad("%s", "which device? (dev DEV)");
	r->ifindex = if_nametoindex(r->dev);
	if (!r->ifindex)
		return bad("no such device '%s'", r->dev);
	return 0;
}

/* What each verb needs, checked before anything is touched. */
static int check_args(struct class_req *r)
{
	bool show = !strcmp(r->verb, "show"), del = !strcmp(r->verb, "del");

	if (show && (r->by >= 0 || r->rate_text))
		return bad("%s", "class show takes dev, root, parent, handle and -j only");
	if (!show && r->by < 0)
		return bad("%s", "which aggregate? (cgroup PATH, mark N or priority N)");
	if (del && r->rate_text)
		return bad("%s", "class del takes no rate");
	if (!show && !del && !r->rate_text)
		return bad("%s", "which rate? (rate RATE, e.g. rate 100mbit)");
	if (r->json && !show)
		return bad("%s", "-j is for class show");
	return (r->by >= 0 ? parse_selector(r) : 0) ?: (r->rate_text ? parse_rate(r) : 0);
}

/* A parameter of the qdisc, by name. */
static int instance_param(const struct class_req *r, const char *name, __u64 *v)
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

/* The qdisc at r's place, which must be one with classes. */
static int find_qdisc(struct class_req *r)
{
	__u64 by;

	if (bq_find_instance(r->ifindex, r->parent, r->handle, &r->kind, &r->inst)) {
		bq_err("no BPF qdisc of bpfqdisc at %s %s", r->dev,
		       r->handle ? "with that handle" : r->parent == TC_H_ROOT ? "root" : "with that parent");
		return BQ_EXIT_USAGE;
	}
	r->classes = bq_open_map(r->kind, "hbm_classes");
	r->aggs = bq_open_map(r->kind, "hbm_aggs");
	if (r->classes < 0 || r->aggs < 0) {
		bq_err("%s on %s has no classes (bpf_hbm has)", r->kind->kind, r->dev);
		return BQ_EXIT_USAGE;
	}
	if (instance_param(r, "classify", &by)) {
		bq_err("cannot read the parameters of %s on %s", r->kind->kind, r->dev);
		return BQ_EXIT_FAIL;
	}
	if (r->by >= 0 && (__u64)r->by != by) {
		bq_err("%s on %s classifies by %s (classify %llu), not by %s", r->kind->kind, r->dev,
		       by < 3 ? selectors[by] : "?", (unsigned long long)by, selectors[r->by]);
		return BQ_EXIT_USAGE;
	}
	r->by = by;
	return 0;
}

static __u32 map_entries(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return bpf_map_get_info_by_fd(fd, &info, &len) ? 0 : info.max_entries;
}

static int replaced(const struct class_req *r)
{
	bq_err("%s on %s was replaced meanwhile: run the class command again", r->kind->kind, r->dev);
	return BQ_EXIT_FAIL;
}

static int write_class(struct class_req *r)
{
	struct hbm_class_key key = { .slot = r->inst.slot, .gen = r->inst.created_ns, .id = r->id };
	struct hbm_class c = { .rate = r->rate };
	bool add = !strcmp(r->verb, "add");
	int err;

	bq_stop_at("write");	/* test_slot_reuse replaces the qdisc here */
	/*
	 * The slot was looked up earlier: a new qdisc may hold it now. The
	 * key's generation keeps the write from reaching it; the checks say
	 * so, and take back an add that no qdisc would read.
	 */
	if (!bq_instance_current(r->kind, &r->inst))
		return replaced(r);
	if (!strcmp(r->verb, "del"))
		err = bpf_map_delete_elem(r->classes, &key);
	else
		err = bpf_map_update_elem(r->classes, &key, &c, add ? BPF_NOEXIST : BPF_EXIST);
	if (!err && !bq_instance_current(r->kind, &r->inst)) {
		if (add)
			bpf_map_delete_elem(r->classes, &key);
		return replaced(r);
	}
	if (!err)
		return 0;
	if (errno == EEXIST || errno == ENOENT) {
		bq_err("%s %s %s on %s", errno == EEXIST ? "there is already a class for" :
		       "there is no class for", selectors[r->by], r->what, r->dev);
		return BQ_EXIT_USAGE;
	}
	if (errno == E2BIG)
		bq_err("cannot add the class: the class map of %s is full (%u classes for all its qdiscs; "
		       "load it with a larger --max-instances for more)", r->kind->kind, map_entries(r->classes));
	else
		bq_err("cannot %s the class: %s", r->verb, strerror(errno));
	return BQ_EXIT_FAIL;
}

/* --- show --------------------------------------------------------------- */

static const char *key_name(const struct class_req *r, __u64 id)
{
	static char buf[64];

	if (r->by == HBM_BY_CGROUP)
		return id ? cgroup_name(id) : "none";
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)id);
	return buf;
}

static void show_row(const struct class_req *r, bool *first, __u64 id, __u64 rate, bool class,
		     const struct hbm_agg_info *a)
{
	static const struct hbm_agg_info none;
	const char *name = key_name(r, id);
	char rbuf[32];

	a = a ?: &none;
	if (r->json) {
		printf("%s{\"dev\":", *first ? "" : ",");
		bq_json_str(stdout, r->dev);
		printf(",\"%s\":", selectors[r->by]);
		bq_json_str(stdout, name);
		printf(",\"id\":%llu,\"rate\":%llu,\"class\":%s,"
		       "\"pkts\":%llu,\"bytes\":%llu,\"marked\":%llu,\"ce_marked\":%llu,\"dropped\":%llu}",
		       (unsigned long long)id, (unsigned long long)rate, class ? "true" : "false",
		       (unsigned long long)a->pkts, (unsigned long long)a->bytes,
		       (unsigned long long)a->marks, (unsigned long long)a->ce,
		       (unsigned long long)a->drops);
	} else {
		printf("%s %s rate %s%s pkts %llu bytes %llu marked %llu ce_marked %llu dropped %llu\n",
		       selectors[r->by], name,
		       rate ? bq_format_value(BQ_UNIT_RATE, rate, rbuf, sizeof(rbuf)) : "unlimited",
		       class ? "" : " (default)", (unsigned long long)a->pkts,
		       (unsigned long long)a->bytes, (unsigned long long)a->marks,
		       (unsigned long long)a->ce, (unsigned long long)a->drops);
	}
	*first = false;
}

static bool class_rate(const struct class_req *r, __u64 id, __u64 *rate)
{
	struct hbm_class_key key = { .slot = r->inst.slot, .gen = r->inst.created_ns, .id = id };
	struct hbm_class c;

	if (bpf_map_lookup_elem(r->classes, &key, &c))
		return false;
	*rate = c.rate;
	return true;
}

/* Aggregates 1..n of the qdisc's region, as hbm_agg_info; n = their count. */
static struct hbm_agg_info *read_aggs(const struct class_req *r, size_t *n)
{
	const struct bq_kind_meta *m = bq_kind_meta(r->kind);
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct hbm_agg_info *v;
	char *val;

	*n = 0;
	for (size_t i = 0; m && i < m->nxstats; i++)
		if (!strcmp(m->xstats[i].name, "aggregates"))
			*n = r->inst.cnt.x[i];
	if (*n >= HBM_AGGS || bpf_map_get_info_by_fd(r->aggs, &info, &len) ||
	    info.value_size < sizeof(*v))
		*n = 0;
	v = calloc(*n + 1, sizeof(*v));
	val = calloc(1, info.value_size + 1);
	for (size_t i = 0; v && val && i < *n; i++) {
		__u32 key = r->inst.slot * HBM_AGGS + i + 1;

		if (!bpf_map_lookup_elem(r->aggs, &key, val))
			memcpy(&v[i], val, sizeof(*v));
	}
	free(val);
	return v;
}

static int show(struct class_req *r)
{
	struct hbm_class_key key, next, *prev = NULL;
	struct hbm_agg_info *aggs;
	__u64 def = 0, rate;
	bool first = true;
	size_t n;

	instance_param(r, "rate", &def);
	aggs = read_aggs(r, &n);
	if (!aggs) {
		bq_err("%s", "out of memory");
		return BQ_EXIT_FAIL;
	}
	if (r->json)
		printf("[");
	for (size_t i = 0; i < n; i++) {
		bool class = class_rate(r, aggs[i].id, &rate);

		show_row(r, &first, aggs[i].id, class ? rate : def, class, &aggs[i]);
	}
	/* Classes whose aggregate has sent nothing yet. */
	while (!bpf_map_get_next_key(r->classes, prev, &next)) {
		bool seen = false;

		key = next;
		prev = &key;
		for (size_t i = 0; i < n; i++)
			seen |= aggs[i].id == key.id;
		if (key.slot == r->inst.slot && key.gen == r->inst.created_ns && !seen &&
		    class_rate(r, key.id, &rate))
			show_row(r, &first, key.id, rate, true, NULL);
	}
	if (r->json)
		printf("]\n");
	free(aggs);
	return 0;
}

int bq_cmd_class(int argc, char **argv)
{
	struct class_req r = { .verb = argc > 1 ? argv[1] : "show", .parent = TC_H_ROOT, .by = -1,
			       .classes = -1, .aggs = -1 };
	int err;

	if (!strcmp(r.verb, "list") || !strcmp(r.verb, "ls"))
		r.verb = "show";
	if (strcmp(r.verb, "add") && strcmp(r.verb, "change") && strcmp(r.verb, "del") &&
	    strcmp(r.verb, "show"))
		return bad("unknown class command '%s' (add, change, del, show)", r.verb);
	err = parse_args(argc - 2, argv + 2, &r) ?: check_args(&r) ?:
	      bq_check_caps(strcmp(r.verb, "show") ? BQ_NEED_LOAD : BQ_NEED_READ) ?:
	      bq_check_kernel() ?: find_qdisc(&r);
	if (!err)
		err = strcmp(r.verb, "show") ? write_class(&r) : show(&r);
	if (r.classes >= 0)
		close(r.classes);
	if (r.aggs >= 0)
		close(r.aggs);
	return err;
}
