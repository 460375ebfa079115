// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for bpfqdisc-bandwidth's readers: any bytes as a
 * network config, a record and a conflist. Besides crashes it checks
 * properties: every span the reader hands out parses again by itself, and
 * the conflist edit gives a conflist that holds the plugin and that a
 * second edit leaves alone.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cni.h"

static void walk(struct bq_cj_span v, int depth)
{
	struct bq_cj_span key, sub, again;
	struct bq_cj_iter it;
	const char *why;
	char buf[64];
	uint64_t u;
	bool b;

	if (bq_cj_parse(v.p, v.n, &again, &why) || again.p != v.p || again.n != v.n)
		abort();	/* a span the reader gave is not a value */
	bq_cj_string(v, buf, sizeof(buf));
	bq_cj_u64(v, &u);
	bq_cj_bool(v, &b);
	if (depth > 8)
		return;
	bq_cj_iter_init(&it, v);
	while (bq_cj_next(&it, &key, &sub)) {
		if (key.p && bq_cj_type(key) != BQ_CJ_STRING)
			abort();
		walk(sub, depth + 1);
	}
}

static void conflist(const char *text, size_t size)
{
	char what[128], *out, *again;
	size_t n, n2;
	struct bq_cj_span doc;
	const char *why;

	if (cni_conflist_add(text, size, &out, &n, what, sizeof(what)) != 1)
		return;
	if (bq_cj_parse(out, n, &doc, &why) || cni_conflist_add(out, n, &again, &n2, what, sizeof(what)))
		abort();	/* not JSON after the edit, or not idempotent */
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct bq_pod_record *r = malloc(sizeof(*r));
	struct cni_conf c;
	struct cni_err e;
	struct bq_cj_span doc;
	const char *why;

	if (!text || !r)
		goto out;
	memcpy(text, data, size);
	text[size] = '\0';
	if (!bq_cj_parse(text, size, &doc, &why))
		walk(doc, 0);
	if (!cni_conf_parse(text, size, &c, &e)) {
		if (c.prev.p)
			cni_result_host_ifname(c.prev, "eth0");
		cni_prev_valid(&c, &e);
		if (cni_limit_valid(c.lim.ingress_rate, c.lim.ingress_burst, "ingress", &e) ||
		    cni_limit_valid(c.lim.egress_rate, c.lim.egress_burst, "egress", &e))
			abort();	/* accepted limits that the rule refuses */
	}
	bq_pod_record_parse(text, size, r);
	conflist(text, size);
out:
	free(r);
	free(text);
	return 0;
}
