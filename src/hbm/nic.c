// SPDX-License-Identifier: GPL-2.0
/* hbm: what work-conserving mode (-w) reads about the NIC. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include "hbm_tool.h"

/*
 * --netns (bq_enter_netns) changes only the network namespace: /proc/self/net
 * follows it, while bpffs and the cgroup tree stay ours.
 * /proc/self/net/dev: "  dev: rx_bytes rx_packets ... (8 rx fields) tx_bytes ...". */
int hbm_nic_tx_bytes(const char *dev, __u64 *bytes)
{
	FILE *f = fopen("/proc/self/net/dev", "r");
	char line[512];
	int found = 0;

	if (!f) {
		bq_err("cannot read /proc/self/net/dev: %s", strerror(errno));
		return BQ_EXIT_FAIL;
	}
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *name = line;
		unsigned long long rx[8], tx;

		if (!colon)
			continue;
		*colon = '\0';
		name += strspn(name, " ");
		if (strcmp(name, dev))
			continue;
		if (sscanf(colon + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu", &rx[0], &rx[1],
			   &rx[2], &rx[3], &rx[4], &rx[5], &rx[6], &rx[7], &tx) == 9) {
			*bytes = tx;
			found = 1;
		}
	}
	fclose(f);
	if (!found) {
		bq_err("no device %s in this network namespace", dev);
		return BQ_EXIT_USAGE;
	}
	return 0;
}

double hbm_nic_speed_mbps(const char *dev)
{
	struct ethtool_cmd cmd = { .cmd = ETHTOOL_GSET };
	struct ifreq ifr = {};
	__u32 speed;
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = (void *)&cmd;
	if (ioctl(fd, SIOCETHTOOL, &ifr)) {
		close(fd);
		return -1;
	}
	close(fd);
	speed = ethtool_cmd_speed(&cmd);
	return speed == (__u32)SPEED_UNKNOWN || speed == 0 ? -1 : (double)speed;
}
