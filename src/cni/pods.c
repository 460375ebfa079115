// SPDX-License-Identifier: GPL-2.0
/*
 * bpfqdisc-bandwidth pods [--prometheus]: which pod each qdisc the plugin
 * made is for, and its egress backstop (no qdisc), from its records (lib.h,
 * "pods"). bpfqdisc stats --prometheus labels its series of those qdiscs
 * with their pods itself, by the same labels (bq_pod_prom_labels()). As
 * Prometheus text this is an info metric, bpfqdisc_pod_info, one series
 * per record's entry, keyed by the netns and ifindex labels of stats'
 * series, for a query that joins the two (on kind too: the backstop's
 * entry has the node veth's netns and ifindex), e.g.
 *   rate(bpfqdisc_sent_bytes_total[1m])
 *     * on (netns, ifindex, kind) group_left (container_id, ifname, direction)
 *   bpfqdisc_pod_info
 */
#include <string.h>
#include "lib.h"

/* s as one word of a line: a name of the runtime's or of a pod's may hold
 * blanks, line feeds or terminal escapes, which must not reach the admin's
 * terminal as such. */
static void print_word(const char *s, char sep)
{
	char word[BQ_TEXT_LEN(strlen(s))];

	printf("%s%c", bq_text_str(s, word, sizeof(word)), sep);
}

static int print_text(struct bq_pod_record *r, void *arg)
{
	for (int i = 0; i < r->p.n; i++) {
		const struct bq_pod_qdisc *q = &r->p.q[i];

		print_word(r->network, ' ');
		print_word(r->container_id, ' ');
		print_word(r->ifname, ' ');
		print_word(q->role, ' ');
		print_word(q->dev, ' ');
		printf("netns %llu ifindex %d ", (unsigned long long)q->netns_cookie, q->ifindex);
		print_word(q->kind, '\n');
	}
	return 0;
}

static int print_prom(struct bq_pod_record *r, void *arg)
{
	for (int i = 0; i < r->p.n; i++) {
		const struct bq_pod_qdisc *q = &r->p.q[i];

		printf("bpfqdisc_pod_info{netns=\"%llu\",ifindex=\"%d\",dev=",
		       (unsigned long long)q->netns_cookie, q->ifindex);
		bq_prom_label(stdout, q->dev);
		printf(",kind=");
		bq_prom_label(stdout, q->kind);
		bq_pod_prom_labels(stdout, r, q);
		printf("} 1\n");
	}
	return 0;
}

int cni_cmd_pods(int argc, char **argv)
{
	bool prom = argc == 2 && !strcmp(argv[1], "--prometheus");

	if (argc > 2 || (argc == 2 && !prom)) {
		bq_err("usage: pods [--prometheus]");
		return BQ_EXIT_USAGE;
	}
	if (prom)
		printf("# HELP bpfqdisc_pod_info The pod a qdisc of bpfqdisc-bandwidth is for "
		       "(join on netns, ifindex, kind)\n# TYPE bpfqdisc_pod_info gauge\n");
	bq_pod_records_each(prom ? print_prom : print_text, NULL);
	return 0;
}
