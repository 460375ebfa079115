// SPDX-License-Identifier: GPL-2.0
/*
 * The pod's side of the veth is read in the pod's netns, as the reference
 * plugin does: its IFLA_LINK is the ifindex of the peer on the node.
 */
#define _GNU_SOURCE	/* setns */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "link.h"
#include "lib.h"

#define TC_H_ROOT	0xFFFFFFFFU

int cni_netns_enter(const char *path, int *back)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	*back = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (*back < 0 || setns(fd, CLONE_NEWNET)) {
		err = -errno;
		if (*back >= 0)
			close(*back);
		close(fd);
		return err;
	}
	close(fd);
	return 0;
}

void cni_netns_leave(int back)
{
	/* Failing here would leave the plugin in the pod's netns: no way on. */
	if (setns(back, CLONE_NEWNET))
		_exit(BQ_EXIT_FAIL);
	close(back);
}

uint64_t cni_netns_cookie(void)
{
	return bq_self_netns_cookie();
}

/* Sends req and reads the one reply: an NLMSG_ERROR's errno, or the
 * message of type want into buf (0). */
static int request(struct nlmsghdr *req, int want, char *buf, size_t len)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), err = -EIO;
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (send(fd, req, req->nlmsg_len, 0) < 0) {
		err = -errno;
	} else if ((n = recv(fd, buf, len, 0)) > 0) {
		struct nlmsghdr *nh = (struct nlmsghdr *)buf;

		if (!NLMSG_OK(nh, (size_t)n))
			err = -EIO;
		else if (nh->nlmsg_type == NLMSG_ERROR)
			err = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
		else
			err = nh->nlmsg_type == want ? 0 : -EIO;
	}
	close(fd);
	return err;
}

int cni_link_peer(const char *ifname, int *peer)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char attrs[64];
	} req = {
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
		.nh.nlmsg_type = RTM_GETLINK,
		.nh.nlmsg_flags = NLM_F_REQUEST,
		.ifi.ifi_family = AF_UNSPEC,
	};
	struct rtattr *rta = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
	size_t namelen = strlen(ifname) + 1;
	char buf[8192];
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	int err, left;

	if (namelen > 16)
		return -ENODEV;
	rta->rta_type = IFLA_IFNAME;
	rta->rta_len = RTA_LENGTH(namelen);
	memcpy(RTA_DATA(rta), ifname, namelen);
	req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
	err = request(&req.nh, RTM_NEWLINK, buf, sizeof(buf));
	if (err)
		return err;
	left = IFLA_PAYLOAD(nh);
	for (rta = IFLA_RTA((struct ifinfomsg *)NLMSG_DATA(nh)); RTA_OK(rta, left);
	     rta = RTA_NEXT(rta, left))
		if (rta->rta_type == IFLA_LINK && RTA_PAYLOAD(rta) >= sizeof(int)) {
			memcpy(peer, RTA_DATA(rta), sizeof(int));
			return *peer > 0 ? 0 : -ENOLINK;
		}
	return -ENOLINK;
}

int cni_qdisc_del_root(int ifindex)
{
	struct {
		struct nlmsghdr nh;
		struct tcmsg tc;
	} req = {
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)),
		.nh.nlmsg_type = RTM_DELQDISC,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.tc.tcm_family = AF_UNSPEC,
		.tc.tcm_ifindex = ifindex,
		.tc.tcm_parent = TC_H_ROOT,
	};
	char buf[4096];

	return request(&req.nh, NLMSG_ERROR, buf, sizeof(buf));
}
