/* SPDX-License-Identifier: GPL-2.0 */
/* Pin directories under bpffs that only their owner can change (pindir.c). */
#ifndef BQ_PINDIR_H
#define BQ_PINDIR_H
#include <stddef.h>
#include <sys/stat.h>

/*
 * Creates path (0700) unless it exists, then accepts it only if it is a
 * directory of ours that no one else may write, in a parent where no one
 * else may rename it. 0, or -1 with why set to one line.
 */
int bq_pin_dir(const char *path, char *why, size_t len);

/*
 * Accepts st, the status of path, only if our user owns it and no one else
 * may write it. 0, or -1 with why set to one line.
 */
int bq_check_owner(const char *path, const struct stat *st, char *why, size_t len);

/*
 * Reads the BPF object file at path into *buf (malloc'd), if our user owns
 * it and no one else may write it, checked through the fd it reads. 0, or
 * -errno (-EINVAL: not such a file of ours).
 */
int bq_read_object(const char *path, void **buf, size_t *len);

#endif
