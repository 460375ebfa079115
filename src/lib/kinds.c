// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of kinds: the built-in ones (qdiscs.c), then those loaded
 * from files, which bq_kinds_discover() finds in their pins (objkind.c)
 * when a front end asks. Finding a kind never scans bpffs.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "lib.h"
#include "pindir.h"

static const struct bq_kind *find_in(const char *name, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, bq_kinds[i].name) || !strcmp(name, bq_kinds[i].kind))
			return &bq_kinds[i];
	return NULL;
}

const struct bq_kind *bq_kind_builtin(const char *name)
{
	return find_in(name, bq_nbuiltin);
}

const struct bq_kind *bq_kind_find(const char *name)
{
	return find_in(name, bq_nkinds);
}

const char *bq_kind_names(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < bq_nkinds && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "", bq_kinds[i].name);
	return buf;
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
		h = ours(path) ? bq_object_read(path, &sz) : NULL;
		/* Loaded with the framework only if it passed its version check. */
		if (h && !bq_kinds_add(e->d_name, h->path, h + 1, sz,
				       !bq_elf_section(h + 1, sz, ".rodata.bq_version", &(size_t){ 0 })))
			free(h);
	}
	if (d)
		closedir(d);
}
