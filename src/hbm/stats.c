// SPDX-License-Identifier: GPL-2.0
/* hbm: the statistics of a limiter, summed over CPUs, as text or JSON. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "hbm_tool.h"

static const char *const verdict_names[HBM_VERDICTS] = {
	[HBM_DROP] = "DROP_PKT",
	[HBM_PASS] = "ALLOW_PKT",
	[HBM_DROP_CN] = "DROP_PKT_CWR",
	[HBM_PASS_CN] = "ALLOW_PKT_CWR",
};

/*
 * Adds CPU c's statistics to t. Every field of struct hbm_stats is 64 bits
 * (include/hbm.h): each adds as a __u64 word, sum_credit too (two's
 * complement), but for the times of the first and last packet, a min and a
 * max.
 */
static void stats_add(struct hbm_stats *t, const struct hbm_stats *c)
{
	_Static_assert(sizeof(*t) % sizeof(__u64) == 0, "struct hbm_stats: 64-bit fields only");
	bool earlier = c->first_ns && (!t->first_ns || c->first_ns < t->first_ns);
	__u64 first = earlier ? c->first_ns : t->first_ns;
	__u64 last = c->last_ns > t->last_ns ? c->last_ns : t->last_ns;
	__u64 *tw = (__u64 *)t;
	const __u64 *cw = (const __u64 *)c;

	for (size_t i = 0; i < sizeof(*t) / sizeof(__u64); i++)
		tw[i] += cw[i];
	t->first_ns = first;
	t->last_ns = last;
}

int hbm_stats_read(int map_fd, struct hbm_stats *out)
{
	int ncpus = libbpf_num_possible_cpus();
	struct hbm_stats *per_cpu;
	__u32 zero = 0;

	memset(out, 0, sizeof(*out));
	if (ncpus <= 0)
		return -EINVAL;
	/* Per-CPU values are 8-byte aligned; struct hbm_stats already is. */
	per_cpu = calloc(ncpus, sizeof(*per_cpu));
	if (!per_cpu)
		return -ENOMEM;
	if (bpf_map_lookup_elem(map_fd, &zero, per_cpu)) {
		int err = -errno;

		free(per_cpu);
		return err;
	}
	for (int i = 0; i < ncpus; i++)
		stats_add(out, &per_cpu[i]);
	free(per_cpu);
	return 0;
}

__u64 hbm_stats_passed_bytes(const struct hbm_stats *s)
{
	return s->bytes - s->bytes_dropped;
}

/* Everything both formats print, computed once. */
struct report_values {
	double duration_s;
	double rate_mbps;	/* IP bytes that passed, over the duration */
	double pkts_marked_pct, bytes_marked_pct;
	double pkts_dropped_pct, bytes_dropped_pct;
	double pkts_ce_pct;
	double avg_cwnd, avg_rtt_us;
	double avg_credit;	/* MTUs (credit mode) or ms (EDT) */
	double verdict_pct[HBM_VERDICTS];
};

static double pct(__u64 part, __u64 whole)
{
	return whole ? part * 100.0 / whole : 0.0;
}

static double avg(double sum, __u64 n)
{
	return n ? sum / n : 0.0;
}

static void compute(const struct hbm_report *r, struct report_values *v)
{
	const struct hbm_stats *s = &r->s;

	memset(v, 0, sizeof(*v));
	if (s->last_ns > s->first_ns)
		v->duration_s = (s->last_ns - s->first_ns) / 1e9;
	if (v->duration_s > 0)
		v->rate_mbps = hbm_stats_passed_bytes(s) * 8 / v->duration_s / 1e6;
	v->pkts_marked_pct = pct(s->pkts_marked, s->pkts);
	v->bytes_marked_pct = pct(s->bytes_marked, s->bytes);
	v->pkts_dropped_pct = pct(s->pkts_dropped, s->pkts);
	v->bytes_dropped_pct = pct(s->bytes_dropped, s->bytes);
	v->pkts_ce_pct = pct(s->pkts_ecn_ce, s->pkts);
	v->avg_cwnd = avg(s->sum_cwnd, s->cnt_cwnd);
	v->avg_rtt_us = avg(s->sum_rtt_us, s->cnt_rtt);
	/* The programs sum credit in bytes (credit mode) or ns ahead (EDT). */
	v->avg_credit = avg(s->sum_credit, s->pkts) / (r->edt ? 1e6 : 1500.0);
	for (int k = 0; k < HBM_VERDICTS; k++)
		v->verdict_pct[k] = pct(s->verdicts[k], s->pkts);
}

/*
 * The format of the 2019 tool's hbm.<id>.out, plus limit_mbps, pkts_exempt
 * and pkts_turn.
 */
void hbm_report_text(FILE *f, const struct hbm_report *r)
{
	const struct hbm_stats *s = &r->s;
	struct report_values v;

	compute(r, &v);
	fprintf(f, "id:%d\n", r->id);
	fprintf(f, "limit_mbps:%.1f\n", r->limit_mbps);
	fprintf(f, "rate_mbps:%.1f\n", v.rate_mbps);
	fprintf(f, "duration:%.1f secs\n", v.duration_s);
	fprintf(f, "packets:%llu\n", (unsigned long long)s->pkts);
	fprintf(f, "bytes_MB:%.1f\n", s->bytes / 1e6);
	fprintf(f, "pkts_dropped:%llu\n", (unsigned long long)s->pkts_dropped);
	fprintf(f, "bytes_dropped_MB:%.1f\n", s->bytes_dropped / 1e6);
	fprintf(f, "pkts_marked_percent:%6.2f\n", v.pkts_marked_pct);
	fprintf(f, "bytes_marked_percent:%6.2f\n", v.bytes_marked_pct);
	fprintf(f, "pkts_dropped_percent:%6.2f\n", v.pkts_dropped_pct);
	fprintf(f, "bytes_dropped_percent:%6.2f\n", v.bytes_dropped_pct);
	fprintf(f, "pkts_ecn_ce:%6.2f (%llu)\n", v.pkts_ce_pct, (unsigned long long)s->pkts_ecn_ce);
	fprintf(f, "avg cwnd:%.0f\n", v.avg_cwnd);
	fprintf(f, "avg rtt:%.0f\n", v.avg_rtt_us);
	if (r->edt)
		fprintf(f, "avg credit_ms:%.3f\n", v.avg_credit);
	else
		fprintf(f, "avg credit:%.1f\n", v.avg_credit);
	for (int k = 0; k < HBM_VERDICTS; k++)
		fprintf(f, "%s:%6.2f (%llu)\n", verdict_names[k], v.verdict_pct[k],
			(unsigned long long)s->verdicts[k]);
	fprintf(f, "pkts_exempt:%llu\n", (unsigned long long)s->pkts_exempt);
	fprintf(f, "pkts_turn:%llu\n", (unsigned long long)s->pkts_turn);
}

/* The same, as one JSON object; spaces in names become underscores. */
void hbm_report_json(FILE *f, const struct hbm_report *r)
{
	const struct hbm_stats *s = &r->s;
	struct report_values v;

	compute(r, &v);
	fprintf(f, "{\"id\":%d,\"mode\":\"%s\",\"limit_mbps\":%.3f,\"rate_mbps\":%.3f,"
		"\"duration\":%.3f,\"packets\":%llu,\"bytes\":%llu,\"bytes_MB\":%.3f,"
		"\"pkts_dropped\":%llu,\"bytes_dropped_MB\":%.3f,",
		r->id, r->edt ? "edt" : "credit", r->limit_mbps, v.rate_mbps, v.duration_s,
		(unsigned long long)s->pkts, (unsigned long long)s->bytes, s->bytes / 1e6,
		(unsigned long long)s->pkts_dropped, s->bytes_dropped / 1e6);
	fprintf(f, "\"pkts_marked_percent\":%.3f,\"bytes_marked_percent\":%.3f,"
		"\"pkts_dropped_percent\":%.3f,\"bytes_dropped_percent\":%.3f,"
		"\"pkts_ecn_ce\":%llu,\"pkts_ecn_ce_percent\":%.3f,"
		"\"avg_cwnd\":%.1f,\"avg_rtt\":%.1f,\"%s\":%.3f,",
		v.pkts_marked_pct, v.bytes_marked_pct, v.pkts_dropped_pct, v.bytes_dropped_pct,
		(unsigned long long)s->pkts_ecn_ce, v.pkts_ce_pct, v.avg_cwnd, v.avg_rtt_us,
		r->edt ? "avg_credit_ms" : "avg_credit", v.avg_credit);
	fprintf(f, "\"return_values\":{");
	for (int k = 0; k < HBM_VERDICTS; k++)
		fprintf(f, "%s\"%s\":{\"percent\":%.3f,\"count\":%llu}", k ? "," : "",
			verdict_names[k], v.verdict_pct[k], (unsigned long long)s->verdicts[k]);
	fprintf(f, "},\"pkts_exempt\":%llu", (unsigned long long)s->pkts_exempt);
	fprintf(f, ",\"pkts_turn\":%llu", (unsigned long long)s->pkts_turn);
	fprintf(f, "}\n");
}
