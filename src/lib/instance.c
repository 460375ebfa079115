// SPDX-License-Identifier: GPL-2.0
/*
 * A loaded kind's pins, read and written: whether it is loaded, its
 * locks, its instances and their parameters, by raw bpf(2) calls
 * (bpfsys.c), no libbpf, so that the tc plugin can do what the CLI does.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <linux/bpf.h>
#include "lib.h"

const char *bq_pin_root = BQ_PIN_ROOT_DEFAULT;

void bq_pin_path(char *buf, size_t len, const struct bq_kind *k, const char *what)
{
	snprintf(buf, len, "%s/%s%s%s", BQ_PIN_ROOT, k->name, what ? "/" : "", what ? what : "");
}

void bq_for_each_pin(const struct bq_kind *k, void (*fn)(const char *name, const char *path, void *arg),
		     void *arg)
{
	char dir[256], path[512];
	struct dirent *e;
	DIR *d;

	bq_pin_path(dir, sizeof(dir), k, NULL);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_name[0] != '.')
			fn(e->d_name, path, arg);
	}
	if (d)
		closedir(d);
}

bool bq_is_loaded(const struct bq_kind *k)
{
	char path[256];

	bq_pin_path(path, sizeof(path), k, "link");
	return access(path, F_OK) == 0;
}

/* By bq_defaults, not bq_slots: without bq_slots the instances are unreadable, an error. */
bool bq_has_state(const struct bq_kind *k)
{
	char path[256];

	bq_pin_path(path, sizeof(path), k, "bq_defaults");
	return access(path, F_OK) == 0;
}

int bq_try_lock_kind(const struct bq_kind *k)
{
	char path[256];
	int fd;

	bq_pin_path(path, sizeof(path), k, NULL);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Entry 0 of the kind's pinned ARRAY map. */
static int read_first(const struct bq_kind *k, const char *map, void *val)
{
	int fd = bq_open_map(k, map), err;
	__u32 zero = 0;

	if (fd < 0)
		return -errno;
	err = bq_bpf_map_lookup(fd, &zero, val) ? -errno : 0;
	close(fd);
	return err;
}

int bq_open_map(const struct bq_kind *k, const char *map)
{
	char path[256];

	bq_pin_path(path, sizeof(path), k, map);
	return bq_bpf_obj_get(path, 0);
}

int bq_read_defaults(const struct bq_kind *k, struct bq_params *val)
{
	return read_first(k, "bq_defaults", val);
}

int bq_read_config(const struct bq_kind *k, struct bq_config *c)
{
	return read_first(k, "bq_config", c);
}

__u32 bq_slot_count(const struct bq_kind *k)
{
	struct bpf_map_info info;
	int fd = bq_open_map(k, "bq_slots");

	if (fd < 0)
		return 0;
	if (bq_bpf_map_info(fd, &info))
		info.max_entries = 0;
	close(fd);
	return info.max_entries;
}

__u32 bq_pinned_per_slot(const struct bq_kind *k, const char *map)
{
	struct bpf_map_info info;
	__u32 slots = bq_slot_count(k);
	int fd = slots ? bq_open_map(k, map) : -1;

	if (fd < 0)
		return 0;
	if (bq_bpf_map_info(fd, &info))
		info.max_entries = 0;
	close(fd);
	return info.max_entries / slots;
}

/*
 * The kind's bq_slots, open: a value is a struct bq_slot, then the kind's
 * own state, of a size only the map knows.
 */
struct slots {
	int fd;
	__u32 value_size;
	__u32 max_entries;
	void *value;		/* one whole value */
};

static void slots_close(struct slots *s)
{
	free(s->value);
	if (s->fd >= 0)
		close(s->fd);
}

static int slots_open(const struct bq_kind *k, struct slots *s)
{
	struct bpf_map_info info;

	s->value = NULL;
	s->fd = bq_open_map(k, "bq_slots");
	if (s->fd < 0 || bq_bpf_map_info(s->fd, &info))
		return -errno;
	if (info.value_size < sizeof(struct bq_slot))
		return -EINVAL;	/* not this framework's layout */
	s->value_size = info.value_size;
	s->max_entries = info.max_entries;
	s->value = malloc(info.value_size);
	return s->value ? 0 : -ENOMEM;
}

/* The framework's part of the value of slot. */
static int slots_read(struct slots *s, __u32 slot, struct bq_slot *out)
{
	if (bq_bpf_map_lookup(s->fd, &slot, s->value))
		return -errno;
	memcpy(out, s->value, sizeof(*out));
	return 0;
}

/* The framework's part of the value of slot, opening the map for it. */
static int read_slot(const struct bq_kind *k, __u32 slot, struct bq_slot *out)
{
	struct slots s;
	int err = slots_open(k, &s);

	if (!err)
		err = slots_read(&s, slot, out);
	slots_close(&s);
	if (err)
		errno = -err;
	return err;
}

int bq_read_params(const struct bq_kind *k, __u32 slot, struct bq_params *val)
{
	struct bq_slot cur;
	int err = read_slot(k, slot, &cur);

	if (!err)
		*val = cur.params;
	return err;
}

/* inst's parameters, unless its slot holds another instance now: -ESTALE. */
int bq_write_params(const struct bq_kind *k, const struct bq_instance *inst,
		    const struct bq_params *val)
{
	struct bq_change req = { .slot = inst->slot, .created_ns = inst->created_ns, .params = *val };
	__u32 ret;
	char path[256];
	int prog, err;

	bq_pin_path(path, sizeof(path), k, "change");
	prog = bq_bpf_obj_get(path, 0);
	if (prog < 0)
		return -errno;
	err = bq_bpf_prog_run(prog, &req, sizeof(req), &ret) ?: (int)ret;
	close(prog);
	return err;
}

/*
 * Live instances: the slots of bq_slots that are owned, keyed by their
 * owner (the Qdisc pointer).
 */
int bq_instances(const struct bq_kind *k, struct bq_instance_info **out, size_t *n)
{
	struct bq_instance_info *v = NULL, *grown;
	struct bq_slot cur;
	struct slots s;
	size_t cap = 0;
	__u32 slot;
	int err = slots_open(k, &s);

	*n = 0;
	for (slot = 0; !err && !slots_read(&s, slot, &cur); slot++) {
		/*
		 * A slot is claimed before its instance is filled in and
		 * released after it is cleared: skip one caught in between.
		 */
		if (!cur.owner || !cur.inst.created_ns)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			grown = realloc(v, cap * sizeof(*v));
			if (!grown) {
				err = -ENOMEM;
				break;
			}
			v = grown;
		}
		v[*n].key = cur.owner;
		v[(*n)++].inst = cur.inst;
	}
	slots_close(&s);
	*out = v;
	return err;
}

/* Slots claimed, filled in yet or not: what an unload must not miss. */
int bq_owned_slots(const struct bq_kind *k, size_t *n)
{
	struct bq_slot cur;
	struct slots s;
	int err = slots_open(k, &s);

	*n = 0;
	for (__u32 slot = 0; !err && !slots_read(&s, slot, &cur); slot++)
		*n += cur.owner != 0;
	slots_close(&s);
	return err;
}

/*
 * A slot is reused as soon as its qdisc is gone: an instance read earlier
 * is still the slot's only if its generation, the time it was created
 * (distinct for every qdisc a slot ever held), is still there.
 */
bool bq_instance_current(const struct bq_kind *k, const struct bq_instance *inst)
{
	struct bq_slot now;

	return !read_slot(k, inst->slot, &now) && now.inst.created_ns == inst->created_ns;
}


int bq_find_instance(int ifindex, __u32 parent, __u32 handle, const struct bq_kind **kind,
		     struct bq_instance *inst)
{
	__u64 netns = bq_self_netns_cookie();

	for (size_t i = 0; i < bq_nkinds; i++) {
		const struct bq_kind *k = &bq_kinds[i];
		struct bq_instance_info *v;
		size_t n;
		bool found = false;

		if ((*kind && *kind != k) || !bq_has_state(k) || bq_instances(k, &v, &n))
			continue;
		for (size_t j = 0; j < n && !found; j++) {
			const struct bq_instance *q = &v[j].inst;

			found = q->where.netns_cookie == netns && (int)q->where.ifindex == ifindex &&
				(handle ? q->handle == handle : q->where.parent == parent);
			if (found)
				*inst = *q;
		}
		free(v);
		if (found) {
			*kind = k;
			return 0;
		}
	}
	return -ENOENT;
}

int bq_no_instance(const char *dev, __u32 parent, __u32 handle)
{
	bq_invalid("no BPF qdisc of bpfqdisc at %s %s", dev, handle ? "with that handle" :
		   parent == TC_H_ROOT ? "root" : "with that parent");
	return -ENOENT;
}
