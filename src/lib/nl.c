// SPDX-License-Identifier: GPL-2.0
/*
 * Just enough rtnetlink to create qdiscs and list them with their stats,
 * so bpfqdisc does not depend on tc's output format.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include "lib.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

struct nl_req {
	struct nlmsghdr nh;
	struct tcmsg tc;
	char attrs[256];	/* TCA_KIND and TCA_OPTIONS (a struct bq_options) */
};

static int nl_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), one = 1;

	if (fd >= 0)
		setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return fd;
}

static void add_attr(struct nlmsghdr *nh, unsigned short type, const void *data, size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

/* The kernel's extended ack message, if it sent one. */
static void ext_ack(const struct nlmsghdr *nh, char *msg, size_t len)
{
	const struct nlmsgerr *e = NLMSG_DATA(nh);
	size_t off = sizeof(*e);
	const struct rtattr *rta;
	int left;

	if (!(nh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	rta = (const struct rtattr *)((const char *)e + off);
	left = nh->nlmsg_len - NLMSG_HDRLEN - off;
	for (; RTA_OK(rta, left); rta = RTA_NEXT(rta, left))
		if (rta->rta_type == NLMSGERR_ATTR_MSG)
			snprintf(msg, len, "%s", (const char *)RTA_DATA(rta));
}

/*
 * Sends req and reads the kernel's one answer into buf: 0 with a message
 * of another type there (a reply to a GET), or the NLMSG_ERROR's -errno
 * (0: an ack), msg its words.
 */
static int talk(struct nlmsghdr *req, char *buf, size_t len, char *msg, size_t msglen)
{
	int fd, err = -EIO;
	ssize_t n;

	fd = nl_open();
	if (fd < 0)
		return -errno;
	if (send(fd, req, req->nlmsg_len, 0) < 0) {
		err = -errno;
	} else if ((n = recv(fd, buf, len, 0)) > 0) {
		struct nlmsghdr *nh = (struct nlmsghdr *)buf;

		if (!NLMSG_OK(nh, (size_t)n)) {
			err = -EIO;
		} else if (nh->nlmsg_type == NLMSG_ERROR) {
			err = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
			ext_ack(nh, msg, msglen);
		} else {
			err = 0;
		}
	}
	close(fd);
	return err;
}

/* Sends req, which asks for an ack: 0 or -errno, msg the kernel's words. */
static int ask(struct nl_req *req, char *msg, size_t msglen)
{
	char buf[4096];

	return talk(&req->nh, buf, sizeof(buf), msg, msglen);
}

static void qdisc_req(struct nl_req *req, int type, int flags, int ifindex, __u32 parent,
		      __u32 handle)
{
	memset(req, 0, sizeof(*req));
	req->nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg));
	req->nh.nlmsg_type = type;
	req->nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	req->tc.tcm_family = AF_UNSPEC;
	req->tc.tcm_ifindex = ifindex;
	req->tc.tcm_parent = parent;
	req->tc.tcm_handle = handle;
}

int bq_nl_qdisc_new(int ifindex, __u32 parent, __u32 handle, const char *kind, bool replace,
		    const void *opts, size_t optlen, char *msg, size_t msglen)
{
	struct nl_req req;

	msg[0] = '\0';
	qdisc_req(&req, RTM_NEWQDISC, NLM_F_CREATE | (replace ? NLM_F_REPLACE : NLM_F_EXCL),
		  ifindex, parent, handle);
	/* What fits in attrs beside TCA_KIND and TCA_OPTIONS' own header. */
	if (strlen(kind) >= BQ_KIND_LEN ||
	    optlen > sizeof(req.attrs) - RTA_SPACE(BQ_KIND_LEN) - RTA_SPACE(0))
		return -EINVAL;
	add_attr(&req.nh, TCA_KIND, kind, strlen(kind) + 1);
	if (opts)
		add_attr(&req.nh, TCA_OPTIONS, opts, optlen);
	return ask(&req, msg, msglen);
}

int bq_nl_qdisc_del(int ifindex, __u32 parent, __u32 handle, char *msg, size_t msglen)
{
	struct nl_req req;

	msg[0] = '\0';
	qdisc_req(&req, RTM_DELQDISC, 0, ifindex, parent, handle);
	return ask(&req, msg, msglen);
}

static void parse_stats(struct rtattr *nest, struct bq_qdisc_info *q)
{
	int left = RTA_PAYLOAD(nest);
	struct rtattr *rta = RTA_DATA(nest);
	bool pkt64 = false;

	for (; RTA_OK(rta, left); rta = RTA_NEXT(rta, left)) {
		if (rta->rta_type == TCA_STATS_BASIC &&
		    RTA_PAYLOAD(rta) >= sizeof(struct gnet_stats_basic)) {
			struct gnet_stats_basic b;

			memcpy(&b, RTA_DATA(rta), sizeof(b));
			q->bytes = b.bytes;
			if (!pkt64)
				q->packets = b.packets;
		} else if (rta->rta_type == TCA_STATS_PKT64 && RTA_PAYLOAD(rta) >= sizeof(__u64)) {
			/* The kernel adds it once the count outgrows BASIC's u32. */
			memcpy(&q->packets, RTA_DATA(rta), sizeof(q->packets));
			pkt64 = true;
		} else if (rta->rta_type == TCA_STATS_QUEUE &&
			   RTA_PAYLOAD(rta) >= sizeof(struct gnet_stats_queue)) {
			struct gnet_stats_queue s;

			memcpy(&s, RTA_DATA(rta), sizeof(s));
			q->qlen = s.qlen;
			q->backlog = s.backlog;
			q->drops = s.drops;
			q->requeues = s.requeues;
			q->overlimits = s.overlimits;
		}
	}
}

static void parse_qdisc(struct nlmsghdr *nh, struct bq_qdisc_info *q)
{
	struct tcmsg *tc = NLMSG_DATA(nh);
	struct rtattr *rta = (struct rtattr *)((char *)tc + NLMSG_ALIGN(sizeof(*tc)));
	int left = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*tc));	/* caller checked >= 0 */

	memset(q, 0, sizeof(*q));
	q->ifindex = tc->tcm_ifindex;
	q->handle = tc->tcm_handle;
	q->parent = tc->tcm_parent;
	if (!if_indextoname(q->ifindex, q->dev))
		snprintf(q->dev, sizeof(q->dev), "if%d", q->ifindex);
	for (; RTA_OK(rta, left); rta = RTA_NEXT(rta, left)) {
		if (rta->rta_type == TCA_KIND) {
			/* Not trusted to be NUL-terminated within its payload. */
			size_t len = RTA_PAYLOAD(rta) < sizeof(q->kind) ? RTA_PAYLOAD(rta)
									 : sizeof(q->kind) - 1;

			memcpy(q->kind, RTA_DATA(rta), len);
			q->kind[len] = '\0';
		} else if (rta->rta_type == TCA_STATS2) {
			parse_stats(rta, q);
		}
	}
}

static int push(struct bq_qdisc_info **v, size_t *n, size_t *cap, struct nlmsghdr *nh)
{
	if (*n == *cap) {
		struct bq_qdisc_info *grown;

		*cap = *cap ? *cap * 2 : 16;
		grown = realloc(*v, *cap * sizeof(**v));
		if (!grown)
			return -ENOMEM;
		*v = grown;
	}
	parse_qdisc(nh, &(*v)[(*n)++]);
	return 0;
}

/*
 * One buffer of an RTM_GETQDISC dump: appends qdiscs of ifindex (0: all) to
 * *v. Returns 1 at the end of the dump, 0 for more, -errno. Takes any bytes:
 * lengths are checked, not trusted.
 */
int bq_nl_parse_dump(const void *buf, size_t len, int ifindex, struct bq_qdisc_info **v,
		     size_t *n, size_t *cap)
{
	const struct nlmsghdr *nh = buf;
	int err = 0, left = len > 1 << 20 ? 1 << 20 : (int)len;	/* NLMSG_NEXT needs signed */

	for (; !err && NLMSG_OK(nh, left); nh = NLMSG_NEXT(nh, left)) {
		if (nh->nlmsg_type == NLMSG_DONE)
			return 1;
		if (nh->nlmsg_type == NLMSG_ERROR) {
			if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr)))
				return -EIO;
			return ((struct nlmsgerr *)NLMSG_DATA(nh))->error ?: -EIO;
		}
		if (nh->nlmsg_type != RTM_NEWQDISC || nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct tcmsg)))
			continue;
		if (!ifindex || ((struct tcmsg *)NLMSG_DATA(nh))->tcm_ifindex == ifindex)
			err = push(v, n, cap, (struct nlmsghdr *)nh);
	}
	return err;
}

int bq_nl_qdisc_list(int ifindex, struct bq_qdisc_info **out, size_t *n)
{
	struct nl_req req = {
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)),
		.nh.nlmsg_type = RTM_GETQDISC,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.tc.tcm_family = AF_UNSPEC,
		.tc.tcm_ifindex = ifindex,
	};
	static char buf[1 << 16];
	int fd = nl_open(), err = 0;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	if (fd < 0 || send(fd, &req, req.nh.nlmsg_len, 0) < 0)
		err = -errno;
	while (!err) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);

		if (len <= 0)
			err = len < 0 ? -errno : -EIO;
		else
			err = bq_nl_parse_dump(buf, len, ifindex, out, n, &cap);
	}
	if (fd >= 0)
		close(fd);
	return err < 0 ? err : 0;
}

void bq_nl_qdisc_kind(int ifindex, __u32 parent, __u32 handle, char *kind, size_t len)
{
	struct bq_qdisc_info *v;
	size_t n;

	kind[0] = '\0';
	if (bq_nl_qdisc_list(ifindex, &v, &n))
		return;
	for (size_t i = 0; i < n; i++)
		if (handle ? v[i].handle == handle : v[i].parent == parent)
			snprintf(kind, len, "%s", v[i].kind);
	free(v);
}

int bq_nl_link_peer(const char *ifname, int *peer)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char attrs[RTA_SPACE(IF_NAMESIZE)];
	} req = {
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
		.nh.nlmsg_type = RTM_GETLINK,
		.nh.nlmsg_flags = NLM_F_REQUEST,
		.ifi.ifi_family = AF_UNSPEC,
	};
	static char buf[8192];
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct rtattr *rta;
	char msg[256];
	int err, left;

	if (strlen(ifname) >= IF_NAMESIZE)
		return bq_invalid("no device %s: the name is too long", ifname);
	add_attr(&req.nh, IFLA_IFNAME, ifname, strlen(ifname) + 1);
	err = talk(&req.nh, buf, sizeof(buf), msg, sizeof(msg));
	if (!err && (nh->nlmsg_type != RTM_NEWLINK ||
		     nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg))))
		err = -EIO;
	if (err)
		return bq_error(err, "cannot read device %s: %s", ifname,
				msg[0] ? msg : strerror(-err));
	left = IFLA_PAYLOAD(nh);
	for (rta = IFLA_RTA((struct ifinfomsg *)NLMSG_DATA(nh)); RTA_OK(rta, left);
	     rta = RTA_NEXT(rta, left))
		if (rta->rta_type == IFLA_LINK && RTA_PAYLOAD(rta) >= sizeof(int)) {
			memcpy(peer, RTA_DATA(rta), sizeof(int));
			if (*peer > 0)
				return 0;
		}
	return bq_error(-ENOLINK, "%s has no peer device", ifname);
}
