// SPDX-License-Identifier: GPL-2.0
/*
 * rxburst IFNAME SECS: how bursty the TCP data arriving on IFNAME is, as a
 * receiver sees it. For SECS seconds, every incoming IPv4 TCP packet
 * longer than 200 bytes (data, not ACKs; a GSO packet counts whole) is
 * timestamped on arrival. For each packet, its window is the bytes that
 * arrived in the 1 ms up to and including it; half of all bytes arrived
 * in a window at least as full as the median printed. And the most TCP
 * payload (no headers) that arrived within any 2 ms:
 *
 *   packets N bytes B burst_median_bytes M max_payload_2ms P
 *
 * A flow paced at R bytes/s gives about R / 1000 plus one packet; one that
 * leaves a window at a time gives most of the window. The most in 2 ms
 * catches the one burst per round trip that a median hides: a window
 * sent at once by a sender limited by the receiver's window.
 *
 * The time is taken in user space after each receive (CLOCK_MONOTONIC):
 * skb->tstamp is unreliable here, since across veth it may still hold
 * the sender's EDT departure time. A late read can only merge packets, so
 * it can only make a flow look burstier than it is.
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_PKTS	(1 << 20)
#define WINDOW_NS	1000000ULL
#define MAX_WINDOW_NS	2000000ULL
#define MIN_LEN		200

struct arrival {
	uint64_t ns;
	uint32_t len;
	uint32_t payload;	/* TCP payload: len less the IP and TCP headers */
	uint32_t window;	/* bytes in the 1 ms up to and including it */
};

static struct arrival pkts[MAX_PKTS];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int open_socket(const char *ifname)
{
	struct timeval tv = { .tv_usec = 100000 };
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_IP),
		.sll_ifindex = if_nametoindex(ifname),
	};
	int fd;

	if (!sll.sll_ifindex) {
		fprintf(stderr, "rxburst: no interface %s\n", ifname);
		return -1;
	}
	fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		perror("rxburst: packet socket");
		return -1;
	}
	return fd;
}

/* Arrivals until end: how many were recorded. */
static size_t record(int fd, uint64_t end)
{
	unsigned char hdr[128];	/* IPv4 and TCP headers, options included */
	struct sockaddr_ll from;
	socklen_t fromlen;
	size_t n = 0;
	ssize_t len;

	while (n < MAX_PKTS && now_ns() < end) {
		fromlen = sizeof(from);
		len = recvfrom(fd, hdr, sizeof(hdr), MSG_TRUNC, (struct sockaddr *)&from, &fromlen);
		if (len < MIN_LEN || from.sll_pkttype == PACKET_OUTGOING ||
		    hdr[9] != IPPROTO_TCP)
			continue;
		pkts[n].ns = now_ns();
		pkts[n].len = len;
		pkts[n].payload = len - 4 * (hdr[0] & 0xf) - 4 * (hdr[4 * (hdr[0] & 0xf) + 12] >> 4);
		n++;
	}
	return n;
}

/*
 * Each packet's window: the bytes (its whole length, or its payload) that
 * arrived in the span ns up to and including it. The fullest; the packets
 * in arrival order.
 */
static uint64_t windows(size_t n, uint64_t span, int payload)
{
	uint64_t in_window = 0, most = 0;
	size_t i, first = 0;

	for (i = 0; i < n; i++) {
		in_window += payload ? pkts[i].payload : pkts[i].len;
		while (pkts[i].ns - pkts[first].ns >= span) {
			in_window -= payload ? pkts[first].payload : pkts[first].len;
			first++;
		}
		pkts[i].window = in_window;
		if (in_window > most)
			most = in_window;
	}
	return most;
}

static int by_window(const void *a, const void *b)
{
	const struct arrival *x = a, *y = b;

	return (x->window > y->window) - (x->window < y->window);
}

/* The byte-weighted median of the packets' windows. */
static uint64_t burst_median(size_t n, uint64_t bytes)
{
	uint64_t below = 0;
	size_t i;

	windows(n, WINDOW_NS, 0);
	qsort(pkts, n, sizeof(pkts[0]), by_window);
	for (i = 0; i < n; i++) {
		below += pkts[i].len;
		if (2 * below >= bytes)
			return pkts[i].window;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t bytes = 0, most;
	size_t n, i;
	int fd;

	if (argc != 3 || atof(argv[2]) <= 0) {
		fprintf(stderr, "usage: rxburst IFNAME SECS\n");
		return 2;
	}
	fd = open_socket(argv[1]);
	if (fd < 0)
		return 1;
	n = record(fd, now_ns() + (uint64_t)(atof(argv[2]) * 1e9));
	for (i = 0; i < n; i++)
		bytes += pkts[i].len;
	most = windows(n, MAX_WINDOW_NS, 1);	/* before burst_median() sorts them */
	printf("packets %zu bytes %llu burst_median_bytes %llu max_payload_2ms %llu\n", n,
	       (unsigned long long)bytes, (unsigned long long)burst_median(n, bytes),
	       (unsigned long long)most);
	return 0;
}
