/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the plugin created, per attachment (container id and interface):
 * a file of state_dir, <containerID>:<ifname> (neither may hold a ':'),
 * holding a JSON record. DEL reads it rather than trusting prevResult,
 * GC lists them against cni.dev/valid-attachments, and bpfqdisc stats
 * labels a qdisc with the pod it belongs to from it. Under /run: qdiscs do
 * not outlive a reboot, nor should their records.
 */
#ifndef BQ_CNI_STATE_H
#define BQ_CNI_STATE_H

#include <limits.h>
#include "enforce.h"

#define CNI_STATE_DIR	"/run/bpfqdisc/cni"

struct cni_record {
	char network[256];
	char container_id[256];
	char ifname[IF_NAMESIZE];
	char netns[PATH_MAX];
	struct pod_placement p;
};

/* Writes r (atomically, replacing an earlier one). 0 or -1 with *e set. */
int cni_state_save(const struct cni_record *r, struct cni_err *e);
/* The record of an attachment: 0, -ENOENT, or -EINVAL if unreadable. */
int cni_state_load(const char *container_id, const char *ifname, struct cni_record *r);
/* Parses a record's text (a file's bytes). 0 or -EINVAL. */
int cni_state_parse(const char *buf, size_t n, struct cni_record *r);
void cni_state_drop(const char *container_id, const char *ifname);
/* Calls fn for each readable record; stops at its first non-zero return. */
int cni_state_each(int (*fn)(struct cni_record *r, void *arg), void *arg);

#endif
