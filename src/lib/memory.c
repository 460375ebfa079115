// SPDX-License-Identifier: GPL-2.0
/*
 * What a loaded kind holds in the kernel: the memlock of its BPF maps, as
 * /proc/self/fdinfo gives the kernel's charge for each (bpftool's figure).
 * A load pins only the maps user space reads, so the others are found
 * through the programs: those the pins name (a pinned program, a link's),
 * then every program that uses a map found so far, until none adds one.
 * The struct_ops programs come in by the maps they share with the pins.
 * Raw bpf(2) calls (bpfsys.c), no libbpf, as instance.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include "lib.h"

#define MAX_KIND_MAPS	256

struct map_ids {
	__u32 id[MAX_KIND_MAPS];
	size_t n;
};

static bool has_id(const struct map_ids *s, __u32 id)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->id[i] == id)
			return true;
	return false;
}

/* Whether s grew. */
static bool add_id(struct map_ids *s, __u32 id)
{
	if (!id || has_id(s, id) || s->n >= MAX_KIND_MAPS)
		return false;
	s->id[s->n++] = id;
	return true;
}

/* The number of fd's line "key:\tN" in /proc/self/fdinfo; 0 without one. */
static __u64 fdinfo_value(int fd, const char *key)
{
	unsigned long long v = 0;
	size_t len = strlen(key);
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':' &&
		    sscanf(line + len + 1, "%llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * The maps program fd uses, into s if all is set or if one of them is in s
 * already (the program is then the kind's). Whether s grew.
 */
static bool add_prog_maps(struct map_ids *s, int fd, bool all)
{
	__u32 ids[MAX_KIND_MAPS], n = MAX_KIND_MAPS;
	bool grew = false;

	if (bq_bpf_prog_map_ids(fd, ids, &n))
		return false;
	if (n > MAX_KIND_MAPS)
		n = MAX_KIND_MAPS;
	for (__u32 i = 0; i < n && !all; i++)
		all = has_id(s, ids[i]);
	for (__u32 i = 0; i < n && all; i++)
		grew |= add_id(s, ids[i]);
	return grew;
}

static bool add_prog_id(struct map_ids *s, __u32 prog, bool all)
{
	int fd = prog ? bq_bpf_fd_by_id(BPF_PROG_GET_FD_BY_ID, prog) : -1;
	bool grew;

	if (fd < 0)
		return false;
	grew = add_prog_maps(s, fd, all);
	close(fd);
	return grew;
}

/* What a pin of the kind names into s (arg): a map (or a struct_ops link's), a program (or a link's). */
static void add_pinned(const char *name, const char *path, void *arg)
{
	int fd = bq_bpf_obj_get(path, 0);

	if (fd < 0)
		return;
	add_id(arg, fdinfo_value(fd, "map_id"));
	add_prog_id(arg, fdinfo_value(fd, "prog_id"), true);
	close(fd);
}

/* One pass over every program of the system: whether one added a map to s. */
static bool add_users(struct map_ids *s)
{
	bool grew = false;
	__u32 id = 0;

	while (!bq_bpf_next_id(BPF_PROG_GET_NEXT_ID, id, &id))
		grew |= add_prog_id(s, id, false);
	return grew;
}

/* Whether map name (the kernel keeps BPF_OBJ_NAME_LEN - 1 bytes of it) is one of d's n. */
static bool slot_map(const char *name, const struct bq_map_desc *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(name, d[i].name, BPF_OBJ_NAME_LEN - 1))
			return true;
	return false;
}

#define ARENA_PAGE	4096

/* What BPF counts in bq_arena_held, by slot: the kernel has no figure for an arena. */
__u64 bq_arena_bytes(const struct bq_kind *k, __u32 slot)
{
	int fd = bq_open_map(k, "bq_arena_held");
	__u32 n = slot == BQ_ALL_SLOTS ? bq_slot_count(k) : slot + 1;
	__u64 pages = 0, v;

	if (fd < 0)
		return 0;
	for (__u32 i = slot == BQ_ALL_SLOTS ? 0 : slot; i < n; i++)
		if (!bq_bpf_map_lookup(fd, &i, &v))
			pages += v;
	close(fd);
	return pages * ARENA_PAGE;
}

int bq_kind_memory(const struct bq_kind *k, struct bq_kind_memory *m)
{
	struct bq_map_desc d[BQ_MAX_SLOT_MAPS];
	size_t nslot = bq_kind_slot_maps(k, d);
	__u32 slots = bq_slot_count(k);
	struct map_ids s = { .n = 0 };
	__u64 slot_bytes = 0;

	*m = (struct bq_kind_memory){ 0 };
	bq_for_each_pin(k, add_pinned, &s);
	while (s.n && add_users(&s))
		;
	if (!s.n)
		return -ENOENT;
	for (size_t i = 0; i < s.n; i++) {
		int fd = bq_bpf_fd_by_id(BPF_MAP_GET_FD_BY_ID, s.id[i]);
		struct bpf_map_info info;
		__u64 bytes;

		if (fd < 0)
			return fd;
		bytes = fdinfo_value(fd, "memlock");
		if (!bq_bpf_map_info(fd, &info) && slot_map(info.name, d, nslot))
			slot_bytes += bytes;
		close(fd);
		m->bytes += bytes;
		m->maps++;
	}
	m->per_instance = slots ? slot_bytes / slots : 0;
	m->arena = bq_arena_bytes(k, BQ_ALL_SLOTS);
	m->bytes += m->arena;
	return 0;
}
