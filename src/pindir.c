// SPDX-License-Identifier: GPL-2.0
/*
 * A bpffs mounted without mode= is 1777, like /tmp. A pin directory another
 * user made first, or may write, would let them unlink our links (which
 * unregisters a kind), rename pins, or squat hbm ids: refuse it. The same
 * owner check guards the BPF object files hbm --object loads.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "pindir.h"

/* In a parent others may write, only the sticky bit stops them renaming it. */
static int check_parent(const char *path, char *why, size_t len)
{
	char copy[PATH_MAX];
	struct stat st;

	snprintf(copy, sizeof(copy), "%s", path);
	if (stat(dirname(copy), &st)) {
		snprintf(why, len, "cannot read %s: %s", copy, strerror(errno));
		return -1;
	}
	if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
		snprintf(why, len, "%s is writable by others without the sticky bit (mode %04o)",
			 copy, st.st_mode & 07777);
		return -1;
	}
	return 0;
}

int bq_pin_dir(const char *path, char *why, size_t len)
{
	struct stat st;

	if (check_parent(path, why, len))
		return -1;
	if (mkdir(path, 0700) && errno != EEXIST) {
		snprintf(why, len, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	if (lstat(path, &st)) {
		snprintf(why, len, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, "refusing %s: not a directory", path);
		return -1;
	}
	return bq_check_owner(path, &st, why, len);
}

int bq_check_owner(const char *path, const struct stat *st, char *why, size_t len)
{
	if (st->st_uid != geteuid()) {
		snprintf(why, len, "refusing %s: it is owned by uid %u, not by uid %u (remove it)",
			 path, st->st_uid, geteuid());
		return -1;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, len, "refusing %s: it is writable by group or others (mode %04o; chmod go-w it)",
			 path, st->st_mode & 07777);
		return -1;
	}
	return 0;
}
