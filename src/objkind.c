// SPDX-License-Identifier: GPL-2.0
/*
 * Kinds loaded from object files (bpfqdisc load PATH). Each keeps its
 * object, with the path it came from, in a pinned array map beside its
 * other pins, BQ_PIN_ROOT/NAME/bq_object: root's, in root's 0700 pin
 * directory, frozen, so that the file may change or go and nobody but root
 * can swap what the kind's tables are read from. Found again here, with
 * raw bpf(2) calls, for any later command (the CLI, or the tc plugin,
 * which runs inside tc next to a libbpf of its own).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/bpf.h>
#include <sys/syscall.h>
#include "lib.h"
#include "pindir.h"

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* The object pinned at path: its header and bytes, malloc'd; NULL if none. */
static struct bq_object_hdr *read_pinned_object(const char *path, size_t *sz)
{
	struct bpf_map_info info = {};
	union bpf_attr attr = {};
	struct bq_object_hdr *h = NULL;
	__u32 zero = 0;
	int fd;

	attr.pathname = (__u64)(unsigned long)path;
	attr.file_flags = BPF_F_RDONLY;
	fd = sys_bpf(BPF_OBJ_GET, &attr);
	if (fd < 0)
		return NULL;
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (__u64)(unsigned long)&info;
	if (!sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) && info.type == BPF_MAP_TYPE_ARRAY &&
	    info.value_size > sizeof(*h) && (h = malloc(info.value_size))) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = fd;
		attr.key = (__u64)(unsigned long)&zero;
		attr.value = (__u64)(unsigned long)h;
		if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr)) {
			free(h);
			h = NULL;
		}
		*sz = info.value_size - sizeof(*h);
	}
	close(fd);
	if (h)
		h->path[sizeof(h->path) - 1] = '\0';
	return h;
}

const struct bq_kind *bq_kinds_add(const char *name, const char *path, const void *elf,
				   size_t sz, bool plain)
{
	struct bq_kind *k = &bq_kinds[bq_nkinds];
	char *kind = malloc(strlen(name) + 5), *summary = malloc(strlen(path) + 16);

	if (bq_nkinds >= bq_nbuiltin + BQ_MAX_LOADED || !kind || !summary) {
		free(kind);
		free(summary);
		return NULL;
	}
	sprintf(kind, "bpf_%s", name);
	sprintf(summary, "from %s", path);
	*k = (struct bq_kind){ .name = kind + 4, .kind = kind, .summary = summary, .path = path,
			       .elf = elf, .elf_sz = sz, .plain = plain };
	bq_nkinds++;
	return k;
}

struct bq_object_hdr *bq_object_value(const struct bq_kind *k, size_t *sz)
{
	struct bq_object_hdr *h;

	*sz = sizeof(*h) + k->elf_sz;
	h = calloc(1, *sz);
	if (!h)
		return NULL;
	snprintf(h->path, sizeof(h->path), "%s", k->path);
	memcpy(h + 1, k->elf, k->elf_sz);
	return h;
}

/* A pin directory's name that a loaded kind may have: bpf_NAME's NAME. */
bool bq_kind_name_ok(const char *name)
{
	size_t n = strlen(name);

	/* hbm -n ID pins under hbmID (src/hbm/hbm.c) */
	if (!n || n > BQ_KIND_LEN - 1 - 4 ||
	    (!strncmp(name, "hbm", 3) && strspn(name + 3, "0123456789") == n - 3))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '_'))
			return false;
	return true;
}

/*
 * As the pin checks (pindir.c): ours and no one else's to write, so that
 * no user who got to make the pin root first (a bpffs of mode 1777) feeds
 * us a kind. Those commands refuse such a root; this runs before them.
 */
static bool ours(const char *path)
{
	struct stat st;
	char why[256];

	return !lstat(path, &st) && !bq_check_owner(path, &st, why, sizeof(why));
}

void bq_kinds_discover(void)
{
	static bool done;
	char path[512];
	struct dirent *e;
	DIR *d;

	if (done)
		return;
	done = true;
	d = ours(BQ_PIN_ROOT) ? opendir(BQ_PIN_ROOT) : NULL;	/* 0700: others see none */
	while (d && (e = readdir(d))) {
		struct bq_object_hdr *h;
		size_t sz = 0;

		if (!bq_kind_name_ok(e->d_name) || bq_kind_builtin(e->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", BQ_PIN_ROOT, e->d_name);
		if (!ours(path))
			continue;
		strcat(path, "/bq_object");
		h = ours(path) ? read_pinned_object(path, &sz) : NULL;
		/* Loaded with the framework only if it passed its version check. */
		if (h && !bq_kinds_add(e->d_name, h->path, h + 1, sz,
				       !bq_elf_section(h + 1, sz, ".rodata.bq_version", &(size_t){ 0 })))
			free(h);
	}
	if (d)
		closedir(d);
}
