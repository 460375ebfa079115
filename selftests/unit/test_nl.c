// SPDX-License-Identifier: GPL-2.0
/* rtnetlink dump parsing: the counters of a qdisc as the kernel sends them. */
#include <stdlib.h>
#include <string.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "lib.h"
#include "unit.h"

struct dump {
	char buf[512];
	struct nlmsghdr *nh;
};

static struct rtattr *attr(struct dump *d, unsigned short type, const void *data, size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)d->nh + NLMSG_ALIGN(d->nh->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (data)
		memcpy(RTA_DATA(rta), data, len);
	d->nh->nlmsg_len = NLMSG_ALIGN(d->nh->nlmsg_len) + RTA_ALIGN(rta->rta_len);
	return rta;
}

/* One RTM_NEWQDISC whose TCA_STATS2 holds BASIC, then PKT64 if pkt64. */
static void qdisc_msg(struct dump *d, __u64 packets, bool pkt64, bool pkt64_first)
{
	struct gnet_stats_basic basic = { .bytes = 1500 * packets, .packets = (__u32)packets };
	struct rtattr *nest;
	struct tcmsg *tc;

	memset(d, 0, sizeof(*d));
	d->nh = (struct nlmsghdr *)d->buf;
	d->nh->nlmsg_len = NLMSG_LENGTH(sizeof(*tc));
	d->nh->nlmsg_type = RTM_NEWQDISC;
	tc = NLMSG_DATA(d->nh);
	tc->tcm_ifindex = 1;
	attr(d, TCA_KIND, "bpf_fq", 7);
	nest = attr(d, TCA_STATS2, NULL, 0);
	if (pkt64 && pkt64_first)
		attr(d, TCA_STATS_PKT64, &packets, sizeof(packets));
	attr(d, TCA_STATS_BASIC, &basic, sizeof(basic));
	if (pkt64 && !pkt64_first)
		attr(d, TCA_STATS_PKT64, &packets, sizeof(packets));
	nest->rta_len = (char *)d->nh + d->nh->nlmsg_len - (char *)nest;
}

static __u64 parsed_packets(struct dump *d)
{
	struct bq_qdisc_info *v = NULL;
	size_t n = 0, cap = 0;
	__u64 p;

	EXPECT(bq_nl_parse_dump(d->buf, d->nh->nlmsg_len, 0, &v, &n, &cap) == 0 && n == 1,
	       "parsed %zu qdiscs", n);
	p = n ? v[0].packets : 0;
	EXPECT(!n || (!strcmp(v[0].kind, "bpf_fq") && v[0].bytes == 1500 * p), "kind or bytes");
	free(v);
	return p;
}

/* Past 2^32 packets the kernel sends TCA_STATS_PKT64 beside BASIC's low half. */
static void packets_past_2_32(void)
{
	struct dump d;

	qdisc_msg(&d, 5, false, false);
	EXPECT(parsed_packets(&d) == 5, "small count");
	qdisc_msg(&d, (1ULL << 32) + 5, true, false);
	EXPECT(parsed_packets(&d) == (1ULL << 32) + 5, "PKT64 after BASIC");
	qdisc_msg(&d, (1ULL << 40) + 7, true, true);
	EXPECT(parsed_packets(&d) == (1ULL << 40) + 7, "PKT64 before BASIC");
}

int main(void)
{
	unit_file = "nl";
	RUN(packets_past_2_32);
	return unit_failed;
}
