// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf(2) calls that reading and changing a loaded kind's pins takes,
 * made directly: the tc plugin runs them inside tc, which has a libbpf of
 * its own, so this side of the library links no libbpf. As libbpf's, each
 * returns 0 (or an fd) on success and -errno on failure, errno set.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include "lib.h"

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	int ret = syscall(__NR_bpf, cmd, attr, sizeof(*attr));

	return ret < 0 ? -errno : ret;
}

int bq_bpf_obj_get(const char *path, __u32 flags)
{
	union bpf_attr attr = { .pathname = (__u64)(unsigned long)path, .file_flags = flags };

	return sys_bpf(BPF_OBJ_GET, &attr);
}

/* The map's info: key and value sizes, entries, type. */
int bq_bpf_map_info(int fd, struct bpf_map_info *info)
{
	union bpf_attr attr = {};

	memset(info, 0, sizeof(*info));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(*info);
	attr.info.info = (__u64)(unsigned long)info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr);
}

static int map_elem(int cmd, int fd, const void *key, void *value, __u64 flags)
{
	union bpf_attr attr = {};

	attr.map_fd = fd;
	attr.key = (__u64)(unsigned long)key;
	attr.value = (__u64)(unsigned long)value;
	attr.flags = flags;
	return sys_bpf(cmd, &attr);
}

int bq_bpf_map_lookup(int fd, const void *key, void *value)
{
	return map_elem(BPF_MAP_LOOKUP_ELEM, fd, key, value, 0);
}

int bq_bpf_map_update(int fd, const void *key, const void *value, __u64 flags)
{
	return map_elem(BPF_MAP_UPDATE_ELEM, fd, key, (void *)value, flags);
}

int bq_bpf_map_delete(int fd, const void *key)
{
	return map_elem(BPF_MAP_DELETE_ELEM, fd, key, NULL, 0);
}

/* The key after key (NULL: the first) into next. */
int bq_bpf_map_next_key(int fd, const void *key, void *next)
{
	union bpf_attr attr = {};

	attr.map_fd = fd;
	attr.key = (__u64)(unsigned long)key;
	attr.next_key = (__u64)(unsigned long)next;
	return sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr);
}

/* Runs program fd (BPF_PROG_TYPE_SYSCALL) on ctx: its return value into *retval. */
int bq_bpf_prog_run(int fd, void *ctx, __u32 ctx_size, __u32 *retval)
{
	union bpf_attr attr = {};
	int err;

	attr.test.prog_fd = fd;
	attr.test.ctx_in = (__u64)(unsigned long)ctx;
	attr.test.ctx_size_in = ctx_size;
	err = sys_bpf(BPF_PROG_TEST_RUN, &attr);
	if (!err)
		*retval = attr.test.retval;
	return err;
}

/* The id after id (0: the first) of a program or a map (cmd BPF_*_GET_NEXT_ID) into *next. */
int bq_bpf_next_id(int cmd, __u32 id, __u32 *next)
{
	union bpf_attr attr = {};
	int err;

	attr.start_id = id;
	err = sys_bpf(cmd, &attr);
	if (!err)
		*next = attr.next_id;
	return err;
}

/* An fd of the program or map (cmd BPF_*_GET_FD_BY_ID) of that id. */
int bq_bpf_fd_by_id(int cmd, __u32 id)
{
	union bpf_attr attr = {};

	attr.prog_id = id;	/* map_id shares its place */
	return sys_bpf(cmd, &attr);
}

/* The ids of the maps program fd uses: up to *n into ids, *n set to how many it has. */
int bq_bpf_prog_map_ids(int fd, __u32 *ids, __u32 *n)
{
	struct bpf_prog_info info = {};
	union bpf_attr attr = {};
	int err;

	info.nr_map_ids = *n;
	info.map_ids = (__u64)(unsigned long)ids;
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (__u64)(unsigned long)&info;
	err = sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr);
	if (!err)
		*n = info.nr_map_ids;
	return err;
}
