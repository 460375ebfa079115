// SPDX-License-Identifier: GPL-2.0
/*
 * podabuse: the ways a process in a limited pod might try to send past its
 * limit (test_cni_abuse), and the receiver that counts what got through.
 *
 *   podabuse send DST PORT SECS MBIT SIZE SOCKETS HOW... [txtime CLOCK OFFSET]
 *       UDP datagrams of SIZE bytes to DST:PORT at MBIT Mbit/s of IP bytes
 *       for SECS, from SOCKETS sockets in turn (each its own source port:
 *       its own flow to a qdisc), sent HOW:
 *     udp                        a plain socket
 *     prio N, mark N             SO_PRIORITY, SO_MARK
 *     raw                        an IPPROTO_UDP raw socket, UDP header ours
 *     packet IFNAME SRC DSTMAC BYPASS   Ethernet frames built here on an
 *                                AF_PACKET socket, with PACKET_QDISC_BYPASS
 *                                if BYPASS is 1 (the device's qdisc skipped)
 *     and with txtime, SO_TXTIME on CLOCK (mono or tai), each datagram
 *     stamped its clock's now + OFFSET ms (SCM_TXTIME; "none": no stamp,
 *     "zero": 0).
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

#include "txtime.h"

#define MAX_PAYLOAD	1472
#define MAX_SOCKETS	256
#define SPORT_BASE	40000	/* raw and packet: socket i's source port is this + i */
#define IP_UDP_HDRS	(sizeof(struct iphdr) + sizeof(struct udphdr))
#define RECV_WAIT_MS	5000

enum how { HOW_UDP, HOW_PRIO, HOW_MARK, HOW_RAW, HOW_PACKET };
enum stamp { STAMP_OFF, STAMP_NONE, STAMP_ZERO, STAMP_OFFSET };

struct sender {
	enum how how;
	unsigned int opt;		/* prio, mark: its value; packet: bypass */
	int fd[MAX_SOCKETS], nfd;
	struct sockaddr_in dst;
	enum stamp stamp;
	clockid_t clock;		/* SO_TXTIME's */
	int64_t offset_ns;		/* stamp: clock's now + this */
	struct sockaddr_ll ll;		/* packet: where frames go */
	struct udphdr *udp;		/* raw, packet: the header in frame */
	size_t size, len;		/* UDP payload; bytes handed to the socket */
	unsigned char frame[sizeof(struct ether_header) + IP_UDP_HDRS + MAX_PAYLOAD];
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
	fprintf(stderr, "usage: podabuse send DST PORT SECS MBIT SIZE SOCKETS "
		"udp|prio N|mark N|raw|packet IFNAME SRC DSTMAC 0|1 [txtime mono|tai OFFSET_MS|none|zero]\n"
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
static size_t put_udp(struct sender *s, unsigned char *p)
{
	s->udp = (struct udphdr *)p;
	s->udp->dest = s->dst.sin_port;
	s->udp->len = htons(sizeof(*s->udp) + s->size);
	memset(p + sizeof(*s->udp), 'x', s->size);
	return sizeof(*s->udp) + s->size;
}

/* A whole Ethernet frame to DSTMAC, from src, out of ifname. */
static int packet_frame(struct sender *s, char **argv)
{
	struct ether_header *eth = (struct ether_header *)s->frame;
	struct iphdr *ip = (struct iphdr *)(eth + 1);
	unsigned int m[6];

	if (sscanf(argv[2], "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6 ||
	    inet_pton(AF_INET, argv[1], &ip->saddr) != 1)
		return usage();
	s->ll = (struct sockaddr_ll){ .sll_family = AF_PACKET, .sll_ifindex = if_nametoindex(argv[0]),
				     .sll_halen = ETH_ALEN };
	if (!s->ll.sll_ifindex)
		return die(argv[0]);
	s->opt = atoi(argv[3]);
	for (int i = 0; i < 6; i++)
		eth->ether_dhost[i] = s->ll.sll_addr[i] = m[i];
	eth->ether_type = htons(ETHERTYPE_IP);
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->daddr = s->dst.sin_addr.s_addr;
	ip->tot_len = htons(IP_UDP_HDRS + s->size);
	ip->check = ip_checksum(ip, sizeof(*ip));
	s->len = sizeof(*eth) + sizeof(*ip) + put_udp(s, (unsigned char *)(ip + 1));
	return 0;
}

static int txtime_parse(struct sender *s, char **argv)
{
	if (!strcmp(argv[0], "mono"))
		s->clock = CLOCK_MONOTONIC;
	else if (!strcmp(argv[0], "tai"))
		s->clock = CLOCK_TAI;
	else
		return usage();
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

/* HOW and its arguments, then an optional txtime. */
static int how_parse(struct sender *s, int argc, char **argv)
{
	static const struct { const char *name; enum how how; int args; } hows[] = {
		{ "udp", HOW_UDP, 0 }, { "prio", HOW_PRIO, 1 }, { "mark", HOW_MARK, 1 },
		{ "raw", HOW_RAW, 0 }, { "packet", HOW_PACKET, 4 },
	};
	int i, err = 0;

	for (i = 0; i < (int)(sizeof(hows) / sizeof(hows[0])); i++)
		if (!strcmp(argv[0], hows[i].name))
			break;
	if (i == sizeof(hows) / sizeof(hows[0]) || argc < 1 + hows[i].args)
		return usage();
	s->how = hows[i].how;
	s->len = s->size;
	if (s->how == HOW_PRIO || s->how == HOW_MARK)
		s->opt = strtoul(argv[1], NULL, 0);
	else if (s->how == HOW_RAW)
		s->len = put_udp(s, s->frame);
	else if (s->how == HOW_PACKET)
		err = packet_frame(s, argv + 1);
	argc -= 1 + hows[i].args;
	argv += 1 + hows[i].args;
	if (err || !argc)
		return err;
	return argc == 3 && !strcmp(argv[0], "txtime") ? txtime_parse(s, argv + 1) : usage();
}

/* One socket of s, with its options. */
static int sender_socket(struct sender *s)
{
	struct sock_txtime t = { .clockid = s->clock };
	int fd, opt = 0, one = 1;

	if (s->how == HOW_PACKET)
		fd = socket(AF_PACKET, SOCK_RAW, 0);
	else
		fd = socket(AF_INET, s->how == HOW_RAW ? SOCK_RAW : SOCK_DGRAM,
			    s->how == HOW_RAW ? IPPROTO_UDP : 0);
	if (fd < 0)
		return die("socket");
	if (s->how == HOW_PRIO)
		opt = SO_PRIORITY;
	if (s->how == HOW_MARK)
		opt = SO_MARK;
	if (opt && setsockopt(fd, SOL_SOCKET, opt, &s->opt, sizeof(s->opt)))
		return die(opt == SO_MARK ? "SO_MARK" : "SO_PRIORITY");
	if (s->how == HOW_PACKET && s->opt &&
	    setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)))
		return die("PACKET_QDISC_BYPASS");
	if (s->stamp != STAMP_OFF && setsockopt(fd, SOL_SOCKET, SO_TXTIME, &t, sizeof(t)))
		return die("SO_TXTIME");
	s->fd[s->nfd++] = fd;
	return 0;
}

static void send_one(struct sender *s, int i)
{
	char ctl[TXTIME_SPACE] = { 0 };
	struct iovec iov = { s->frame, s->len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	uint64_t stamp;

	if (s->udp)
		s->udp->source = htons(SPORT_BASE + i);
	if (s->how == HOW_PACKET) {
		msg.msg_name = &s->ll;
		msg.msg_namelen = sizeof(s->ll);
	} else {
		msg.msg_name = &s->dst;
		msg.msg_namelen = sizeof(s->dst);
	}
	if (s->stamp != STAMP_OFF && s->stamp != STAMP_NONE) {
		stamp = s->stamp == STAMP_ZERO ? 0 : clock_ns(s->clock) + s->offset_ns;
		txtime_set(&msg, ctl, stamp);
	}
	sendmsg(s->fd[i], &msg, 0);
}

static int do_send(int argc, char **argv)
{
	static struct sender s = { .dst.sin_family = AF_INET };
	double end, gap, next;
	int err, n, i;

	if (argc < 7 || inet_pton(AF_INET, argv[0], &s.dst.sin_addr) != 1)
		return usage();
	s.dst.sin_port = htons(atoi(argv[1]));
	s.size = strtoul(argv[4], NULL, 0);
	n = atoi(argv[5]);
	if (s.size > MAX_PAYLOAD || n < 1 || n > MAX_SOCKETS)
		return usage();
	err = how_parse(&s, argc - 6, argv + 6);
	for (i = 0; !err && i < n; i++)
		err = sender_socket(&s);
	if (err)
		return err;
	if (s.how == HOW_RAW)
		s.dst.sin_port = 0;
	gap = (IP_UDP_HDRS + s.size) * 8 / (atof(argv[3]) * 1e6);
	end = mono_now() + atof(argv[2]);
	for (next = mono_now(), i = 0; next < end; next += gap, i = (i + 1) % n) {
		double wait = next - mono_now();

		if (wait > 0)
			usleep(wait * 1e6);
		send_one(&s, i);
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
