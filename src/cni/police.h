/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The backstop of a pod's egress limit (bpf/pod_police.bpf.c): loaded once
 * per node, attached at the tcx ingress of each limited pod's host-side
 * veth, with the pod's entry in its map. Each returns 0 or -errno, said
 * (bq_last_error()).
 */
#ifndef BQ_CNI_POLICE_H
#define BQ_CNI_POLICE_H

#include <stddef.h>
#include <stdint.h>
#include "cni.h"

#define POLICE_KIND	"pod_police"	/* its kind in a placement */

const void *police_elf(size_t *sz);
/* Loads and pins it, unless a node's load is pinned already. */
int police_ready(void);
/* ifindex (this netns) held to rate bytes/s with burst bytes, from a full
 * burst, for the destinations s leaves shaped. */
int police_apply(int ifindex, uint64_t rate, uint64_t burst, const struct cni_subnets *s);
/* Whether ifindex has it attached, at rate and burst, with s's subnets. */
int police_check(int ifindex, const char *dev, uint64_t rate, uint64_t burst,
		 const struct cni_subnets *s);
/* Its entries and attachment gone, as far as they are there. */
int police_remove(int ifindex);

#endif
