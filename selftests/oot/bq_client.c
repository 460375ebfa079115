// SPDX-License-Identifier: GPL-2.0
/*
 * A program that drives bpfqdisc through libbpfqdisc alone, as a node
 * agent would: the Makefile builds it outside the tree against the
 * installed library (pkg-config libbpfqdisc), test_lib_client runs it.
 *
 *   bq_client NETNS DEV    load bpf_fifo, add it on DEV with limit 100,
 *                          change it to 300, read it back, unload refused
 *   bq_client NETNS DEV stat NAME   one statistic of DEV's root qdisc
 *   bq_client NETNS DEV del         delete it, unload bpf_fifo
 *
 * Each step prints one line; a step that does not do what the API says
 * prints why and exits 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <libbpfqdisc.h>

static int failed(const char *step, int err)
{
	printf("FAIL %s: %d (%s)\n", step, err, bq_last_error());
	return 1;
}

static int setup(const char *dev)
{
	char *limit100[] = { "limit", "100" }, *limit300[] = { "limit", "300" };
	char *bad[] = { "limit", "0" }, now[32];
	struct bq_kind_opts o = { 0 };
	int err;

	err = bq_kind_load("fifo", &o, 0, NULL);
	if (err || strcmp(o.kind, "bpf_fifo") || bq_kind_loaded("bpf_fifo") != 1)
		return failed("load", err);
	printf("loaded %s, max_instances %u\n", o.kind, o.max_instances);
	err = bq_qdisc_add(dev, BQ_ROOT, 0, "bpf_fifo", 2, limit100, 0);
	if (err)
		return failed("add", err);
	err = bq_qdisc_param(dev, BQ_ROOT, 0, "limit", now, sizeof(now));
	if (err || strcmp(now, "100"))
		return failed("param after add", err);
	err = bq_qdisc_change(dev, BQ_ROOT, 0, 2, limit300);
	if (err)
		return failed("change", err);
	err = bq_qdisc_param(dev, BQ_ROOT, 0, "limit", now, sizeof(now));
	if (err || strcmp(now, "300"))
		return failed("param after change", err);
	printf("limit %s\n", now);
	/* Refusals: -errno, with the CLI's words. */
	err = bq_qdisc_change(dev, BQ_ROOT, 0, 2, bad);
	if (err != -EINVAL || !strstr(bq_last_error(), "limit 0 is out of range"))
		return failed("change to limit 0 not refused", err);
	printf("refused: %s\n", bq_last_error());
	err = bq_kind_unload("fifo", 0);
	if (err != -EBUSY)
		return failed("unload with a live qdisc not refused", err);
	printf("refused: %s\n", bq_last_error());
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t v;
	int err;

	if (argc < 3)
		return fprintf(stderr, "usage: bq_client NETNS DEV [stat NAME | del]\n"), 2;
	err = bq_enter_netns(argv[1]);
	if (err)
		return failed("netns", err);
	if (argc == 3)
		return setup(argv[2]);
	if (argc == 5 && !strcmp(argv[3], "stat")) {
		err = bq_qdisc_stat(argv[2], BQ_ROOT, 0, argv[4], &v);
		if (err)
			return failed("stat", err);
		printf("%s %" PRIu64 "\n", argv[4], v);
		return 0;
	}
	err = bq_qdisc_delete(argv[2], BQ_ROOT, 0) ?: bq_kind_unload("fifo", 0);
	if (err)
		return failed("del", err);
	printf("deleted, unloaded\n");
	return 0;
}
