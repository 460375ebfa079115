// SPDX-License-Identifier: GPL-2.0
/*
 * A bpffs mounted without mode= is 1777, like /tmp. A pin directory another
 * user made first, or may write, would let them unlink our links (which
 * unregisters a kind), rename pins, or squat hbm ids: refuse it. The same
 * owner check guards the BPF object files hbm --object loads.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "lib.h"
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

/*
 * What to do about a path someone else owns. A directory is ours to make:
 * removed, it is made again. A file is one a user built (make, then sudo
 * bpfqdisc load): it becomes ours, or a copy of ours is loaded instead.
 */
static void owner_advice(const char *path, const struct stat *st, char *buf, size_t len)
{
	char me[16];

	if (S_ISDIR(st->st_mode)) {
		snprintf(buf, len, "remove it");
		return;
	}
	if (geteuid())
		snprintf(me, sizeof(me), "%u", geteuid());
	else
		snprintf(me, sizeof(me), "root");
	snprintf(buf, len, "chown %s %s, or load a copy %s made", me, path, me);
}

int bq_check_owner(const char *path, const struct stat *st, char *why, size_t len)
{
	char advice[PATH_MAX + 64];

	if (st->st_uid != geteuid()) {
		owner_advice(path, st, advice, sizeof(advice));
		snprintf(why, len, "refusing %s: it is owned by uid %u, not by uid %u (%s)",
			 path, st->st_uid, geteuid(), advice);
		return -1;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, len, "refusing %s: it is writable by group or others (mode %04o; chmod go-w it)",
			 path, st->st_mode & 07777);
		return -1;
	}
	return 0;
}

/* Sizes of the BPF object files read: hbm's own are ~20 KB, the qdiscs' < 1 MB. */
#define MAX_OBJECT_BYTES	(16 << 20)

/*
 * A BPF object file (hbm --object, bpfqdisc load PATH) only our user (root)
 * could have written. It is checked and read through one fd, so that no
 * one swaps it in between; O_NONBLOCK keeps a FIFO from holding the open.
 */
int bq_read_object(const char *path, void **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	char why[2 * PATH_MAX + 128];
	struct stat st;
	ssize_t n = 0;
	int err = 0;

	if (fd < 0 || fstat(fd, &st)) {
		err = bq_invalid("cannot open BPF object %s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > MAX_OBJECT_BYTES) {
		err = bq_invalid("refusing %s: not a regular file of at most %d bytes", path,
				 MAX_OBJECT_BYTES);
		goto out;
	}
	if (bq_check_owner(path, &st, why, sizeof(why))) {
		err = bq_invalid("%s", why);
		goto out;
	}
	*len = st.st_size;
	*buf = malloc(*len ?: 1);
	if (*buf)
		n = read(fd, *buf, *len);
	if (!*buf || n != (ssize_t)*len) {
		err = bq_error(n < 0 ? -errno : -EIO, "cannot read BPF object %s: %s", path,
			       n < 0 ? strerror(errno) : "short read");
		free(*buf);
	}
out:
	if (fd >= 0)
		close(fd);
	return err;
}
