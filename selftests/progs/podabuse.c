// SPDX-License-Identifier: GPL-2.0
/*
 * podabuse: the ways a process in a limited pod might try to send past its
 * limit (test_cni_abuse), and the receiver that counts what got through.
 *
 *   podabuse send DST PORT SECS MBIT HOW...   1400-byte UDP datagrams to
 *       DST:PORT at MBIT Mbit/s of IP bytes for SECS, sent HOW:
 *     udp                        a plain socket
 *     txtime mono|tai OFFSET_MS  SO_TXTIME on that clock, each datagram
 *                                stamped its clock's now + OFFSET_MS
 *                                (SCM_TXTIME; "none": no stamp, "zero": 0)
 *     prio N, mark N             SO_PRIORITY, SO_MARK
 *     raw                        an IPPROTO_UDP raw socket, UDP header ours
 *     packet IFNAME SRC DSTMAC BYPASS   Ethernet frames built here on an
 *                                AF_PACKET socket, with PACKET_QDISC_BYPASS
 *                                if BYPASS is 1 (the device's qdisc skipped)
 *   podabuse recv ADDR PORT SECS   counts, from the first datagram on, the
 *       IP bytes of those that arrive in each second, as Mbit/s, one line
 *       of SECS numbers; fails if none comes within 5 s.
 *
 * Send errors (qdisc drops, a full send buffer) are ignored: the sender
 * only offers; the receiver says what passed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef SCM_TXTIME
#define SCM_TXTIME	SO_TXTIME
#endif

#define PAYLOAD		1400
#define IP_UDP_HDRS	(sizeof(struct iphdr) + sizeof(struct udphdr))
#define RECV_WAIT_MS	5000

struct sender {
	int fd;
	struct sockaddr_in dst;
	clockid_t clock;		/* SO_TXTIME's */
	int64_t offset_ns;		/* stamp: clock's now + this */
	enum { STAMP_NONE, STAMP_ZERO, STAMP_OFFSET } stamp;
	struct sockaddr_ll ll;		/* packet: where frames go */
	size_t len;			/* bytes handed to the socket */
	unsigned char frame[sizeof(struct ether_header) + IP_UDP_HDRS + PAYLOAD];
};

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int usage(void)
{
	fprintf(stderr, "usage: podabuse send DST PORT SECS MBIT udp|txtime mono|tai OFFSET_MS|none|zero|"
		"prio N|mark N|raw|packet IFNAME SRC DSTMAC 0|1\n"
		"       podabuse recv ADDR PORT SECS\n");
	return 2;
}

static int die(const char *what)
{
	fprintf(stderr, "podabuse: %s: %s\n", what, strerror(errno));
	return 1;
}

static uint16_t ip_checksum(const void *hdr, size_t len)
{
	const uint16_t *w = hdr;
	uint32_t sum = 0;

	for (; len > 1; len -= 2)
		sum += *w++;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

/* The UDP header (checksum 0: none, as IPv4 allows) and payload at p. */
static size_t put_udp(unsigned char *p, uint16_t dport)
{
	struct udphdr *u = (struct udphdr *)p;

	u->source = htons(40000);
	u->dest = dport;
	u->len = htons(sizeof(*u) + PAYLOAD);
	u->check = 0;
	memset(p + sizeof(*u), 'x', PAYLOAD);
	return sizeof(*u) + PAYLOAD;
}

/* A whole Ethernet frame to DSTMAC, from ifname's address and src. */
static int packet_setup(struct sender *s, char **argv)
{
	struct ether_header *eth = (struct ether_header *)s->frame;
	struct iphdr *ip = (struct iphdr *)(eth + 1);
	int one = 1;
	unsigned int m[6];

	if (sscanf(argv[2], "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6 ||
	    inet_pton(AF_INET, argv[1], &ip->saddr) != 1)
		return usage();
	s->fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (s->fd < 0)
		return die("AF_PACKET");
	s->ll = (struct sockaddr_ll){ .sll_family = AF_PACKET, .sll_ifindex = if_nametoindex(argv[0]),
				     .sll_halen = ETH_ALEN };
	if (!s->ll.sll_ifindex)
		return die(argv[0]);
	if (atoi(argv[3]) && setsockopt(s->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)))
		return die("PACKET_QDISC_BYPASS");
	for (int i = 0; i < 6; i++)
		eth->ether_dhost[i] = s->ll.sll_addr[i] = m[i];
	eth->ether_type = htons(ETHERTYPE_IP);
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->daddr = s->dst.sin_addr.s_addr;
	ip->tot_len = htons(IP_UDP_HDRS + PAYLOAD);
	ip->check = ip_checksum(ip, sizeof(*ip));
	put_udp((unsigned char *)(ip + 1), s->dst.sin_port);
	s->len = sizeof(*eth) + IP_UDP_HDRS + PAYLOAD;
	return 0;
}

static int txtime_setup(struct sender *s, char **argv)
{
	struct sock_txtime t = { .flags = 0 };

	if (!strcmp(argv[0], "mono"))
		s->clock = CLOCK_MONOTONIC;
	else if (!strcmp(argv[0], "tai"))
		s->clock = CLOCK_TAI;
	else
		return usage();
	t.clockid = s->clock;
	if (setsockopt(s->fd, SOL_SOCKET, SO_TXTIME, &t, sizeof(t)))
		return die("SO_TXTIME");
	if (!strcmp(argv[1], "none"))
		s->stamp = STAMP_NONE;
	else if (!strcmp(argv[1], "zero"))
		s->stamp = STAMP_ZERO;
	else {
		s->stamp = STAMP_OFFSET;
		s->offset_ns = strtoll(argv[1], NULL, 10) * 1000000;
	}
	return 0;
}

/* An integer socket option of SOL_SOCKET from argv[0]. */
static int sockopt_setup(struct sender *s, int opt, char **argv)
{
	unsigned int v = strtoul(argv[0], NULL, 0);

	if (setsockopt(s->fd, SOL_SOCKET, opt, &v, sizeof(v)))
		return die(opt == SO_MARK ? "SO_MARK" : "SO_PRIORITY");
	return 0;
}

static int sender_setup(struct sender *s, int argc, char **argv)
{
	const char *how = argv[0];
	int n = argc - 1;

	if (!strcmp(how, "packet"))
		return n == 4 ? packet_setup(s, argv + 1) : usage();
	s->fd = socket(AF_INET, !strcmp(how, "raw") ? SOCK_RAW : SOCK_DGRAM,
		       !strcmp(how, "raw") ? IPPROTO_UDP : 0);
	if (s->fd < 0)
		return die("socket");
	s->len = PAYLOAD;
	if (!strcmp(how, "udp") && !n)
		return 0;
	if (!strcmp(how, "raw") && !n) {
		s->len = put_udp(s->frame, s->dst.sin_port);
		s->dst.sin_port = 0;
		return 0;
	}
	if (!strcmp(how, "txtime") && n == 2)
		return txtime_setup(s, argv + 1);
	if (!strcmp(how, "prio") && n == 1)
		return sockopt_setup(s, SO_PRIORITY, argv + 1);
	if (!strcmp(how, "mark") && n == 1)
		return sockopt_setup(s, SO_MARK, argv + 1);
	return usage();
}

static void send_one(struct sender *s)
{
	char ctl[CMSG_SPACE(sizeof(uint64_t))] = { 0 };
	struct iovec iov = { s->frame, s->len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	uint64_t stamp;

	if (s->ll.sll_ifindex) {
		msg.msg_name = &s->ll;
		msg.msg_namelen = sizeof(s->ll);
	} else {
		msg.msg_name = &s->dst;
		msg.msg_namelen = sizeof(s->dst);
	}
	if (s->clock && s->stamp != STAMP_NONE) {
		stamp = s->stamp == STAMP_ZERO ? 0 : clock_ns(s->clock) + s->offset_ns;
		msg.msg_control = ctl;
		msg.msg_controllen = sizeof(ctl);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_TXTIME;
		c->cmsg_len = CMSG_LEN(sizeof(stamp));
		memcpy(CMSG_DATA(c), &stamp, sizeof(stamp));
	}
	sendmsg(s->fd, &msg, 0);
}

static int do_send(int argc, char **argv)
{
	struct sender s = { .dst.sin_family = AF_INET };
	double end, gap, next;
	int err;

	if (argc < 5 || inet_pton(AF_INET, argv[0], &s.dst.sin_addr) != 1)
		return usage();
	s.dst.sin_port = htons(atoi(argv[1]));
	end = mono_now() + atof(argv[2]);
	gap = (IP_UDP_HDRS + PAYLOAD) * 8 / (atof(argv[3]) * 1e6);
	err = sender_setup(&s, argc - 4, argv + 4);
	if (err)
		return err;
	for (next = mono_now(); next < end; next += gap) {
		double wait = next - mono_now();

		if (wait > 0)
			usleep(wait * 1e6);
		send_one(&s);
	}
	return 0;
}

static int do_recv(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int rcvbuf = 8 << 20, secs, fd;
	struct pollfd p;
	double start = 0, t;
	uint64_t *bytes;
	char buf[65536];
	ssize_t n;

	if (argc != 3 || inet_pton(AF_INET, argv[0], &a.sin_addr) != 1 || atoi(argv[2]) < 1)
		return usage();
	a.sin_port = htons(atoi(argv[1]));
	secs = atoi(argv[2]);
	bytes = calloc(secs, sizeof(*bytes));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (!bytes || fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)))
		return die("recv socket");
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	for (;;) {
		if (poll(&p, 1, start ? 100 : RECV_WAIT_MS) == 0 && !start) {
			fprintf(stderr, "podabuse: nothing arrived at %s:%s\n", argv[0], argv[1]);
			return 1;
		}
		t = mono_now();
		if (start && t - start >= secs)
			break;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0)
			continue;
		if (!start)
			start = t;
		bytes[(int)(t - start)] += n + IP_UDP_HDRS;
	}
	for (int i = 0; i < secs; i++)
		printf("%s%.2f", i ? " " : "", bytes[i] * 8 / 1e6);
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "send"))
		return do_send(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "recv"))
		return do_recv(argc - 2, argv + 2);
	return usage();
}
