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
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include "lib.h"

struct bq_object_hdr *bq_object_read(const char *path, size_t *sz)
{
	struct bq_object_hdr *h = NULL;
	struct bpf_map_info info;
	__u32 zero = 0;
	int fd = bq_bpf_obj_get(path, BPF_F_RDONLY);

	if (fd < 0)
		return NULL;
	if (!bq_bpf_map_info(fd, &info) && info.type == BPF_MAP_TYPE_ARRAY &&
	    info.value_size > sizeof(*h) && (h = malloc(info.value_size))) {
		if (bq_bpf_map_lookup(fd, &zero, h)) {
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
