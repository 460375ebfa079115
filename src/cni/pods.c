// SPDX-License-Identifier: GPL-2.0
/*
 * bpfqdisc-bandwidth pods [--prometheus]: which pod each qdisc the plugin
 * made is for, from its records (state.h). As Prometheus text it is an
 * info metric, bpfqdisc_pod_info, whose netns and ifindex labels are those
 * of bpfqdisc stats --prometheus: a query joins the two, e.g.
 *   rate(bpfqdisc_sent_bytes_total[1m])
 *     * on (netns, ifindex) group_left (container_id, ifname, direction)
 *   bpfqdisc_pod_info
 */
#include <string.h>
#include "state.h"
#include "lib.h"

static int print_text(struct cni_record *r, void *arg)
{
	for (int i = 0; i < r->p.n; i++) {
		const struct pod_qdisc *q = &r->p.q[i];

		printf("%s %s %s %s %s netns %llu ifindex %d %s\n", r->network, r->container_id,
		       r->ifname, q->role, q->dev, (unsigned long long)q->netns_cookie, q->ifindex,
		       q->kind);
	}
	return 0;
}

static int print_prom(struct cni_record *r, void *arg)
{
	for (int i = 0; i < r->p.n; i++) {
		const struct pod_qdisc *q = &r->p.q[i];
		const char *labels[][2] = {
			{ "dev", q->dev }, { "kind", q->kind }, { "direction", q->role },
			{ "network", r->network }, { "container_id", r->container_id },
			{ "ifname", r->ifname },
		};

		printf("bpfqdisc_pod_info{netns=\"%llu\",ifindex=\"%d\"",
		       (unsigned long long)q->netns_cookie, q->ifindex);
		for (size_t j = 0; j < sizeof(labels) / sizeof(labels[0]); j++) {
			printf(",%s=", labels[j][0]);
			bq_prom_label(stdout, labels[j][1]);
		}
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
		       "(join on netns, ifindex)\n# TYPE bpfqdisc_pod_info gauge\n");
	cni_state_each(prom ? print_prom : print_text, NULL);
	return 0;
}
