/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pod's subnet list as entries of an LPM trie of include/pod_subnets.h
 * (bpf_hbm's hbm_subnets, pod_police's pod_subnets), for one device: a
 * netns cookie and an ifindex. Each returns 0 or -errno, said
 * (bq_last_error()).
 */
#ifndef BQ_CNI_SUBNETS_H
#define BQ_CNI_SUBNETS_H

#include <stdint.h>
#include "cni.h"

/* The device's entries in trie fd are s's, and no others. */
int subnets_put(int fd, uint64_t netns_cookie, int ifindex, const struct cni_subnets *s);
/* The device has no entry in trie fd. */
int subnets_clear(int fd, uint64_t netns_cookie, int ifindex);
/* Whether the device's entries in trie fd are s's, and no others (what,
 * the trie's user, names it in the error). */
int subnets_check(int fd, uint64_t netns_cookie, int ifindex, const struct cni_subnets *s,
		  const char *what);

#endif
