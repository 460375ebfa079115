/* SPDX-License-Identifier: GPL-2.0 */
/* The hbm tool: what its files share. */
#ifndef HBM_TOOL_H
#define HBM_TOOL_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "hbm.h"

/*
 * From the src/ library (lib.h): bq_err ("hbm: <message>" once main sets
 * bq_prog_name), BQ_EXIT_* (1 = the environment or the kernel failed us,
 * 2 = bad usage), BQ_PIN_ROOT, bq_ensure_bpffs, bq_enter_netns.
 */
#include "lib.h"

/* --- stats.c --- */
/* Sums the per-CPU counters of the hbm_stats map fd into *out. */
int hbm_stats_read(int map_fd, struct hbm_stats *out);
/* The IP bytes that passed (were not dropped). */
__u64 hbm_stats_passed_bytes(const struct hbm_stats *s);

struct hbm_report {
	int id;
	bool edt;		/* label the average credit as time */
	double limit_mbps;	/* the limit in force at the end */
	struct hbm_stats s;
};
void hbm_report_text(FILE *f, const struct hbm_report *r);
void hbm_report_json(FILE *f, const struct hbm_report *r);

/* --- nic.c: work conserving (-w) --- */
struct hbm_nic {
	const char *name;
	double capacity_mbps;	/* what the NIC can send */
	__u64 last_tx_bytes;
};
/* The NIC's counter of bytes sent; 0 or prints and fails. */
int hbm_nic_tx_bytes(const char *dev, __u64 *bytes);
/* Its link speed in Mbit/s, as ethtool reports it; <= 0 if unknown. */
double hbm_nic_speed_mbps(const char *dev);

#endif /* HBM_TOOL_H */
