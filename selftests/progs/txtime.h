/* SPDX-License-Identifier: GPL-2.0 */
/* The SCM_TXTIME control message of the test senders (fqsend, podabuse). */
#ifndef TXTIME_H
#define TXTIME_H

#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

/* Older libc headers lack them; the kernel's numbers. */
#ifndef SO_TXTIME
#define SO_TXTIME 61
#endif
#ifndef SCM_TXTIME
#define SCM_TXTIME SO_TXTIME
#endif

/* Room for one SCM_TXTIME message: the ctl that txtime_set() fills. */
#define TXTIME_SPACE CMSG_SPACE(sizeof(uint64_t))

/* msg leaves at t, ns on the clock its socket gave SO_TXTIME. */
static inline void txtime_set(struct msghdr *msg, char ctl[TXTIME_SPACE], uint64_t t)
{
	struct cmsghdr *c;

	msg->msg_control = ctl;
	msg->msg_controllen = TXTIME_SPACE;
	c = CMSG_FIRSTHDR(msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_TXTIME;
	c->cmsg_len = CMSG_LEN(sizeof(t));
	memcpy(CMSG_DATA(c), &t, sizeof(t));
}

#endif
