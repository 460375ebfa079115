/* SPDX-License-Identifier: GPL-2.0 */
/* What the plugin needs of rtnetlink and network namespaces beyond libbpfqdisc. */
#ifndef BQ_CNI_LINK_H
#define BQ_CNI_LINK_H

#include <stdint.h>

/* Enters the netns at path; *back: an fd of the one we left. 0 or -errno. */
int cni_netns_enter(const char *path, int *back);
/* Returns to the netns of back and closes it. */
void cni_netns_leave(int back);
/* The cookie of the current netns (the key bpfqdisc's instances carry). */
uint64_t cni_netns_cookie(void);

/* The ifindex of ifname's peer, from its IFLA_LINK (a veth's peer, as the
 * reference reads it). 0 or -errno (-ENODEV: no such device, -ENOLINK: no peer). */
int cni_link_peer(const char *ifname, int *peer);
/* Deletes the root qdisc of ifindex. 0 or -errno (-ENOENT: none to delete). */
int cni_qdisc_del_root(int ifindex);

#endif
