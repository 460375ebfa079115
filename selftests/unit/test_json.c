// SPDX-License-Identifier: GPL-2.0
/* The one writer of outside strings in JSON, Prometheus labels and text: hostile names stay strings. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "lib.h"
#include "unit.h"

static char *written(void (*writer)(FILE *, const char *), const char *s)
{
	static char *buf;
	size_t len;
	FILE *f;

	free(buf);
	f = open_memstream(&buf, &len);
	writer(f, s);
	fclose(f);
	return buf;
}

static void json_escapes(void)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "va", "\"va\"" },
		{ "x\",\"id\":1,\"y\":\"", "\"x\\\",\\\"id\\\":1,\\\"y\\\":\\\"\"" },
		{ "a\\b", "\"a\\\\b\"" },
		{ "l1\nl2", "\"l1\\nl2\"" },
		{ "\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
		{ "\xff" "a\xc3", "\"\xef\xbf\xbd" "a\xef\xbf\xbd\"" },
		{ "\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\"" },
		{ "\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = written(bq_json_str, cases[i].in);

		EXPECT(!strcmp(got, cases[i].out), "case %zu: %s", i, got);
	}
}

static void prom_escapes(void)
{
	EXPECT(!strcmp(written(bq_prom_label, "va\"} 1\nx{a=\"\\"), "\"va\\\"} 1\\nx{a=\\\"\\\\\""),
	       "%s", written(bq_prom_label, "va\"} 1\nx{a=\"\\"));
	EXPECT(!strcmp(written(bq_prom_label, "t\tab\xff"), "\"t\tab\xef\xbf\xbd\""), "%s",
	       written(bq_prom_label, "t\tab\xff"));
}

/* Text: one word on one line, no byte a terminal would act on. */
static void text_escapes(void)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "va", "va" },
		{ "d\033x", "d\\033x" },
		{ "\033]0;owned\007", "\\033]0;owned\\007" },
		{ "a b\tc\nd", "a\\040b\\011c\\012d" },
		{ "a\\b\x7f", "a\\134b\\177" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
		{ "\xc2\x9b" "2J", "\\302\\2332J" },	/* C1 CSI */
		{ "\xff" "a\xc3", "\\377a\\303" },
		/* Bidi overrides and isolates reorder what follows on the line. */
		{ "a\xe2\x80\xae" "b", "a\\342\\200\\256b" },
		{ "\xe2\x81\xa6" "x", "\\342\\201\\246x" },
		{ "\xe2\x80\x8f", "\\342\\200\\217" },	/* RLM */
		{ "l\xe2\x80\xa8" "m", "l\\342\\200\\250m" },	/* LINE SEPARATOR */
		{ "\xe2\x80\x94", "\xe2\x80\x94" },	/* an em dash stays */
	};
	char buf[64], small[6];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = bq_text_str(cases[i].in, buf, sizeof(buf));

		EXPECT(!strcmp(got, cases[i].out), "case %zu: %s", i, got);
	}
	/* Cut only between whole escapes. */
	EXPECT(!strcmp(bq_text_str("ab\033", small, sizeof(small)), "ab"), "%s", small);
	EXPECT(!strcmp(bq_text_str("\033\033", small, sizeof(small)), "\\033"), "%s", small);
}

/*
 * The kinds' own statistics as Prometheus names them (issue 38.13): base
 * units, a counter's _total once, and the values of seconds divided.
 */
static void prom_names(void)
{
	static const struct { const char *kind, *stat, *name; unsigned long long per_unit; } cases[] = {
		{ "fq", "unthrottle_latency_ns", "fq_unthrottle_latency_seconds", 1000000000 },
		{ "fq", "gc_flows", "fq_gc_flows_total", 1 },
		{ "fq", "flows", "fq_flows", 1 },
		{ "fq_codel", "new_flow_count", "fq_codel_new_flow_total", 1 },
		{ "fq_codel", "memory_used", "fq_codel_memory_used_bytes", 1 },
		{ "fq_codel", "maxpacket", "fq_codel_maxpacket_bytes", 1 },
		{ "hbm", "rate_bytes_per_second", "hbm_rate_bytes_per_second", 1 },
	};
	char name[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bq_kind *k = bq_kind_find(cases[i].kind);
		const struct bq_kind_meta *m = k ? bq_kind_meta(k) : NULL;
		size_t x = 0;

		while (m && x < m->nxstats && strcmp(m->xstats[x].name, cases[i].stat))
			x++;
		if (!m || x == m->nxstats) {
			EXPECT(0, "%s has no statistic %s", cases[i].kind, cases[i].stat);
			continue;
		}
		EXPECT(bq_prom_xstat_name(k, &m->xstats[x], name, sizeof(name)) == cases[i].per_unit &&
		       !strcmp(name, cases[i].name), "%s's %s: %s, expected %s", cases[i].kind,
		       cases[i].stat, name, cases[i].name);
	}
}

int main(void)
{
	unit_file = "json";
	RUN(json_escapes);
	RUN(prom_escapes);
	RUN(text_escapes);
	RUN(prom_names);
	return unit_failed;
}
