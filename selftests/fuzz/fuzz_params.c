// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for everything that parses parameters: bq_parse_value in
 * every unit, tc handles, and bq_params_apply on "name value" words, with
 * the tc words of bpf_fq and bpf_fq_codel over a table that has only some
 * of the parameters they name. The
 * input is split into words at NUL bytes; the first byte picks the unit.
 * Besides crashes it checks a property: a value parsed from any text prints
 * as text that parses back to the same value.
 */
#include <stdio.h>
#include <stdlib.h>
#include "lib.h"
#include "fuzz_words.h"

static const struct bq_param_desc table[] = {
	{ "limit", BQ_UNIT_COUNT, 1000, 1, 16384 },
	{ "quantum", BQ_UNIT_BYTES, 3028, 256, 1 << 20 },
	{ "horizon", BQ_UNIT_TIME, 10000000000ULL, 0, 3600000000000ULL },
	{ "rate", BQ_UNIT_RATE, 0, 1, 125000000000ULL },
	{ "pacing", BQ_UNIT_BOOL, 1, 0, 1 },
	{ "priomap", BQ_UNIT_PRIOMAP, 0, 0, 0x2222222222222222ULL },
	{ "weight1", BQ_UNIT_BYTES, 1, 1, 0x7fffffff },
	{ "timer_slack", BQ_UNIT_TIME_NS, 10000, 0, 1000000000 },
};
#define NPARAMS (sizeof(table) / sizeof(table[0]))

static void round_trip(enum bq_unit unit, __u64 v, const char *text)
{
	const char *why = NULL;
	__u64 back = ~v;
	char buf[64];

	bq_format_value(unit, v, buf, sizeof(buf));
	if (bq_parse_value(unit, buf, &back, &why) || back != v) {
		fprintf(stderr, "round trip: '%s' (unit %d) is %llu, prints as '%s', parses to %llu (%s)\n",
			text, unit, (unsigned long long)v, buf, (unsigned long long)back, why ?: "ok");
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const kinds[] = { NULL, "bpf_fq", "bpf_fq_codel" };
	struct bq_param_set set = { .desc = table, .n = NPARAMS };
	char *text, *argv[64];
	const char *why;
	int argc = 0;
	__u64 v;
	__u32 h;

	text = fuzz_words(data, size, argv, &argc, 64);
	if (!text)
		return 0;
	for (int i = 0; i < argc; i++) {
		enum bq_unit unit = (unsigned char)argv[i][0] % (BQ_UNIT_TIME_NS + 1);

		if (!bq_parse_value(unit, argv[i], &v, &why))
			round_trip(unit, v, argv[i]);
		bq_parse_handle(argv[i], &h);
	}
	set.kind = kinds[size % 3];
	bq_params_apply(&set, argc, argv);
	free(text);
	return 0;
}
