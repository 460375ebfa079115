// SPDX-License-Identifier: GPL-2.0
/*
 * A pod's subnet entries (include/pod_subnets.h) in an LPM trie. The
 * longest prefix decides, so a shapedSubnets list is its prefixes, shaped,
 * over an entry of the device alone that leaves the rest unshaped (the
 * reference's default class then); an unshapedSubnets list needs no such
 * entry, as a destination without one is shaped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include "lib.h"
#include "pod_subnets.h"
#include "subnets.h"

/* Entries of one device: a list's, one more for the device's own. */
struct entries {
	size_t n;
	struct pod_subnet_key key[CNI_SUBNETS_MAX + 1];
	__u32 val[CNI_SUBNETS_MAX + 1];
};

static struct pod_subnet_key device_key(uint64_t netns_cookie, int ifindex)
{
	return (struct pod_subnet_key){ .prefixlen = POD_SUBNET_DEVICE_BITS, .ifindex = ifindex,
					.netns_cookie = netns_cookie };
}

static void entries_of(uint64_t netns_cookie, int ifindex, const struct cni_subnets *s,
		       struct entries *out)
{
	__u32 listed = s->shaped ? POD_SUBNET_SHAPED : POD_SUBNET_UNSHAPED;

	out->n = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct pod_subnet_key *k = &out->key[out->n];

		*k = device_key(netns_cookie, ifindex);
		k->prefixlen = POD_SUBNET_BITS(s->s[i].bits);
		k->family = s->s[i].family == 4 ? POD_SUBNET_IPV4 : POD_SUBNET_IPV6;
		memcpy(k->addr, s->s[i].addr, sizeof(k->addr));
		out->val[out->n++] = listed;
	}
	/* Last: written before its prefixes, it would leave them unshaped
	 * until they are there. */
	if (s->n && s->shaped) {
		out->key[out->n] = device_key(netns_cookie, ifindex);
		out->val[out->n++] = POD_SUBNET_UNSHAPED;
	}
}

static bool same_key(const struct pod_subnet_key *a, const struct pod_subnet_key *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* The device's keys in trie fd, malloc'd into *keys (*n of them). */
static int device_keys(int fd, uint64_t netns_cookie, int ifindex, struct pod_subnet_key **keys,
		       size_t *n)
{
	struct pod_subnet_key k, next, *more;
	size_t room = 0;
	bool first = true;

	*keys = NULL;
	*n = 0;
	while (!bpf_map_get_next_key(fd, first ? NULL : &k, &next)) {
		first = false;
		k = next;
		if (k.netns_cookie != netns_cookie || k.ifindex != (__u32)ifindex)
			continue;
		if (*n == room) {
			room = room ? 2 * room : 16;
			more = realloc(*keys, room * sizeof(**keys));
			if (!more) {
				free(*keys);
				return bq_error(-ENOMEM, "out of memory");
			}
			*keys = more;
		}
		(*keys)[(*n)++] = k;
	}
	if (errno != ENOENT) {
		free(*keys);
		return bq_error(-errno, "cannot read the subnet entries: %s", strerror(errno));
	}
	return 0;
}

int subnets_clear(int fd, uint64_t netns_cookie, int ifindex)
{
	struct pod_subnet_key *keys;
	size_t n;
	int err = device_keys(fd, netns_cookie, ifindex, &keys, &n);

	for (size_t i = 0; !err && i < n; i++)
		if (bpf_map_delete_elem(fd, &keys[i]) && errno != ENOENT)
			err = bq_error(-errno, "cannot delete a subnet entry: %s", strerror(errno));
	free(keys);
	return err;
}

int subnets_put(int fd, uint64_t netns_cookie, int ifindex, const struct cni_subnets *s)
{
	struct entries *e = malloc(sizeof(*e));
	int err = e ? subnets_clear(fd, netns_cookie, ifindex) : bq_error(-ENOMEM, "out of memory");

	if (e)
		entries_of(netns_cookie, ifindex, s, e);
	for (size_t i = 0; !err && i < e->n; i++)
		if (bpf_map_update_elem(fd, &e->key[i], &e->val[i], BPF_ANY))
			err = bq_error(-errno, "cannot add a subnet entry: %s", strerror(errno));
	free(e);
	return err;
}

/* Whether k is one of e's, with its value in trie fd. */
static bool expected(int fd, const struct pod_subnet_key *k, const struct entries *e)
{
	__u32 val;

	for (size_t i = 0; i < e->n; i++)
		if (same_key(k, &e->key[i]))
			return !bpf_map_lookup_elem(fd, k, &val) && val == e->val[i];
	return false;
}

/* How many of e's keys differ: a list may give one prefix twice. */
static size_t distinct(const struct entries *e)
{
	size_t n = 0, j;

	for (size_t i = 0; i < e->n; i++) {
		for (j = 0; j < i && !same_key(&e->key[i], &e->key[j]); j++)
			;
		n += j == i;
	}
	return n;
}

int subnets_check(int fd, uint64_t netns_cookie, int ifindex, const struct cni_subnets *s,
		  const char *what)
{
	struct entries *e = malloc(sizeof(*e));
	struct pod_subnet_key *keys = NULL;
	size_t n = 0, found = 0;
	int err = e ? device_keys(fd, netns_cookie, ifindex, &keys, &n)
		    : bq_error(-ENOMEM, "out of memory");

	if (!err) {
		entries_of(netns_cookie, ifindex, s, e);
		for (size_t i = 0; i < n; i++)
			found += expected(fd, &keys[i], e);
		if (found != n || n != distinct(e))
			err = bq_error(-EINVAL, "%s has %zu subnet entries, %zu of them the config's, which has %zu",
				       what, n, found, distinct(e));
	}
	free(keys);
	free(e);
	return err;
}
