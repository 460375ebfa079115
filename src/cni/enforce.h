/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a pod's limits are enforced: the one interface between the CNI
 * protocol (main.c) and the qdiscs. The recipe (which qdiscs go on which
 * device, with which parameters) lives in enforce.c alone.
 */
#ifndef BQ_CNI_ENFORCE_H
#define BQ_CNI_ENFORCE_H

#include <net/if.h>
#include "cni.h"
#include "lib.h"

/* A pod's attachment: its netns and interface, and the veth peer on the node. */
struct pod_link {
	const char *netns;		/* path, as CNI_NETNS */
	const char *ifname;		/* CNI_IFNAME, in the pod's netns */
	int host_ifindex;
	char host_ifname[IF_NAMESIZE];
};

/* Where a recipe put a pod's qdiscs (struct bq_pod_placement, lib.h): what
 * DEL and GC remove, and what bpfqdisc stats labels with the pod. */

/* STATUS, and before ADD: this kernel runs BPF qdiscs and the recipe's kinds
 * are loaded (loaded here if not). 0, or -1 with *e set (code 50). */
int pod_limit_ready(struct cni_err *e);
/* Whether the recipe can hold lim's rates: 0, or -1 with *e set (code 7,
 * saying why). */
int pod_limit_enforceable(const struct cni_limits *lim, struct cni_err *e);
/* Puts lim in force for the pod, for the destinations s leaves shaped; *p
 * says where. On failure nothing is left (-1, *e set). */
int pod_limit_apply(const struct pod_link *l, const struct cni_limits *lim,
		    const struct cni_subnets *s, struct bq_pod_placement *p, struct cni_err *e);
/* 0 if every limit of lim, with s, is in force for the pod; else -1 with
 * *e naming the first that is not (code 101). */
int pod_limit_check(const struct pod_link *l, const struct cni_limits *lim,
		    const struct cni_subnets *s, struct cni_err *e);
/* Removes what p placed, as far as it is still there: devices, netns and
 * qdiscs that went meanwhile are no error. netns: the pod's path, or NULL. */
int pod_limit_remove(const struct bq_pod_placement *p, const char *netns, struct cni_err *e);

#endif
