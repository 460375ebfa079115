// SPDX-License-Identifier: GPL-2.0
/* Parameter parsing: tc's units, ranges, and everything that must be refused. */
#include <stdbool.h>
#include <string.h>
#include <errno.h>
#include "lib.h"
#include "unit.h"

static __u64 parse_ok(enum bq_unit unit, const char *text)
{
	const char *why = NULL;
	__u64 v = ~0ULL;
	int err = bq_parse_value(unit, text, &v, &why);

	EXPECT(!err, "'%s' refused: %s", text, why);
	return v;
}

static void parse_bad(enum bq_unit unit, const char *text)
{
	const char *why = NULL;
	__u64 v;

	EXPECT(bq_parse_value(unit, text, &v, &why) != 0, "'%s' accepted as %llu", text,
	       (unsigned long long)v);
	EXPECT(why && *why, "'%s' refused without a reason", text);
}

/* text in unit parses to want, or (bad) is refused with a reason. */
struct parse_case {
	enum bq_unit unit;
	const char *text;
	__u64 want;
	bool bad;
};

#define PARSE_CASES(name, ...)						\
	static void name(void)						\
	{								\
		static const struct parse_case c[] = { __VA_ARGS__ };	\
									\
		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {	\
			if (c[i].bad)					\
				parse_bad(c[i].unit, c[i].text);	\
			else						\
				EXPECT(parse_ok(c[i].unit, c[i].text) == c[i].want, \
				       "'%s'", c[i].text);		\
		}							\
	}
#define OK(unit, text, want)	{ unit, text, want, false }
#define BAD(unit, text)		{ unit, text, 0, true }

PARSE_CASES(rates,
	OK(BQ_UNIT_RATE, "200mbit", 25000000),
	OK(BQ_UNIT_RATE, "1gbit", 125000000),
	OK(BQ_UNIT_RATE, "1Gbit", 125000000),
	OK(BQ_UNIT_RATE, "8000", 1000),			/* bare is bit/s */
	OK(BQ_UNIT_RATE, "10mbps", 10000000),		/* bps is bytes */
	OK(BQ_UNIT_RATE, "1.5mbit", 187500),
	OK(BQ_UNIT_RATE, "1kibit", 128),		/* IEC */
	BAD(BQ_UNIT_RATE, "-1"),
	BAD(BQ_UNIT_RATE, "99999999999999tbit"),
	BAD(BQ_UNIT_RATE, "200mbits"),
	BAD(BQ_UNIT_RATE, "mbit"),
	BAD(BQ_UNIT_RATE, ""),
	BAD(BQ_UNIT_RATE, "inf"),
	BAD(BQ_UNIT_RATE, "nan"),
	OK(BQ_UNIT_RATE, "0x10mbit", 2000000),	/* hex, as tc's strtod */
	BAD(BQ_UNIT_RATE, " 10mbit"),
	/* Below 4 bit/s a rate rounds to 0 bytes/s, which means unlimited. */
	BAD(BQ_UNIT_RATE, "3bit"),
	BAD(BQ_UNIT_RATE, "1"),
	BAD(BQ_UNIT_RATE, "0.4bps"),
	BAD(BQ_UNIT_RATE, "0.003kbit"),
	OK(BQ_UNIT_RATE, "4bit", 1),
	OK(BQ_UNIT_RATE, "0", 0),
	OK(BQ_UNIT_RATE, "0.0mbit", 0),
)

PARSE_CASES(times,
	OK(BQ_UNIT_TIME, "10ms", 10000000),
	OK(BQ_UNIT_TIME, "3s", 3000000000ULL),
	OK(BQ_UNIT_TIME, "500us", 500000),
	OK(BQ_UNIT_TIME, "40", 40000),			/* bare is us, as tc */
	OK(BQ_UNIT_TIME, "7ns", 7),
	BAD(BQ_UNIT_TIME, "10 ms"),
	BAD(BQ_UNIT_TIME, "10m"),
	BAD(BQ_UNIT_TIME, "-5ms"),
	BAD(BQ_UNIT_TIME, "0.4ns"),
	OK(BQ_UNIT_TIME, "0", 0),
)

PARSE_CASES(sizes_and_counts,
	OK(BQ_UNIT_BYTES, "3028", 3028),
	OK(BQ_UNIT_BYTES, "3k", 3072),			/* k is 1024 */
	OK(BQ_UNIT_BYTES, "1mb", 1048576),
	BAD(BQ_UNIT_BYTES, "0.4b"),
	OK(BQ_UNIT_BYTES, "0k", 0),
	OK(BQ_UNIT_COUNT, "10000", 10000),
	BAD(BQ_UNIT_COUNT, "10k"),
	BAD(BQ_UNIT_COUNT, "1.5"),
	BAD(BQ_UNIT_COUNT, "99999999999999999999999"),
	OK(BQ_UNIT_BOOL, "on", 1),
	OK(BQ_UNIT_BOOL, "off", 0),
	BAD(BQ_UNIT_BOOL, "maybe"),
)

static void formatting(void)
{
	char b[32];

	EXPECT(!strcmp(bq_format_value(BQ_UNIT_RATE, 25000000, b, sizeof(b)), "200Mbit"), "%s", b);
	EXPECT(!strcmp(bq_format_value(BQ_UNIT_RATE, 1000, b, sizeof(b)), "8Kbit"), "%s", b);
	EXPECT(!strcmp(bq_format_value(BQ_UNIT_TIME, 10000000, b, sizeof(b)), "10ms"), "%s", b);
	EXPECT(!strcmp(bq_format_value(BQ_UNIT_TIME, 1500, b, sizeof(b)), "1500ns"), "%s", b);
	EXPECT(!strcmp(bq_format_value(BQ_UNIT_BYTES, 3028, b, sizeof(b)), "3028b"), "%s", b);
	EXPECT(!strcmp(bq_format_value(BQ_UNIT_BYTES, BQ_AUTO, b, sizeof(b)), "auto"), "%s", b);
	/* sch_default_prio2band, priority 0 first; one nibble each, 0 lowest. */
	EXPECT(parse_ok(BQ_UNIT_PRIOMAP, "1222120011111111") == 0x1111111100212221ULL, "priomap");
	EXPECT(!strcmp(bq_format_value(BQ_UNIT_PRIOMAP, 0x1111111100212221ULL, b, sizeof(b)),
		       "1222120011111111"), "%s", b);
	parse_bad(BQ_UNIT_PRIOMAP, "122212001111111");
	parse_bad(BQ_UNIT_PRIOMAP, "1222120011111111 ");
	parse_bad(BQ_UNIT_PRIOMAP, "12221200111111x1");
}

/* Text that parses to v prints as text that parses back to v. */
static void round_trip(enum bq_unit unit, const char *text)
{
	__u64 v = parse_ok(unit, text), back = ~v;
	const char *why = NULL;
	char b[64];

	bq_format_value(unit, v, b, sizeof(b));
	EXPECT(!bq_parse_value(unit, b, &back, &why) && back == v,
	       "'%s' is %llu, prints as '%s', which parses to %llu (%s)", text,
	       (unsigned long long)v, b, (unsigned long long)back, why ? why : "ok");
}

/* Near 2^64: llroundl overflowed above 2^63, v * 8 wrapped above 2^61. */
static void huge_values(void)
{
	char b[64];

	EXPECT(parse_ok(BQ_UNIT_RATE, "99999999tbit") == 12499999875000000000ULL, "99999999tbit");
	EXPECT(parse_ok(BQ_UNIT_BYTES, "18446744073709551614") == ~0ULL - 1, "2^64-2 bytes");
	parse_bad(BQ_UNIT_BYTES, "18446744073709551615");	/* BQ_AUTO */
	parse_bad(BQ_UNIT_BYTES, "18446744073709551616");
	parse_bad(BQ_UNIT_RATE, "147573952589676412928bit");
	EXPECT(!strcmp(bq_format_value(BQ_UNIT_RATE, 12499999875000000000ULL, b, sizeof(b)),
		       "99999999Tbit"), "%s", b);
	EXPECT(!strcmp(bq_format_value(BQ_UNIT_RATE, ~0ULL - 1, b, sizeof(b)),
		       "18446744073709551614bps"), "%s", b);
	round_trip(BQ_UNIT_RATE, "99999999tbit");
	round_trip(BQ_UNIT_RATE, "18446744073709551614bps");
	round_trip(BQ_UNIT_RATE, "2305843009213693952bps");
	round_trip(BQ_UNIT_RATE, "147573952589676412912bit");
	round_trip(BQ_UNIT_RATE, "4bit");
	round_trip(BQ_UNIT_TIME, "18446744073709551614ns");
	round_trip(BQ_UNIT_TIME, "1.5ns");
	round_trip(BQ_UNIT_BYTES, "17179869183g");
	round_trip(BQ_UNIT_COUNT, "18446744073709551614");
	EXPECT(!strcmp(bq_format_value(BQ_UNIT_COUNT, BQ_AUTO, b, sizeof(b)), "auto"), "%s", b);
}

static const struct bq_param_desc table[] = {
	{ "limit", BQ_UNIT_COUNT, 1000, 1, 16384 },
	{ "rate", BQ_UNIT_RATE, 0, 1, 125000000000ULL },
};

static void param_sets(void)
{
	struct bq_param_set set = { .desc = table, .n = 2 };
	char *good[] = { "limit", "50", "rate", "1gbit" };
	char *rate_only[] = { "rate", "8bit" };
	char *unknown[] = { "limt", "50" };
	char *range[] = { "limit", "0" };
	char *big[] = { "rate", "2tbit" };
	char *novalue[] = { "limit" };

	EXPECT(bq_params_apply(&set, 4, good) == 0, "good pairs");
	EXPECT(set.val.v[0] == 50 && set.val.v[1] == 125000000, "values stored");
	set.given = 0;
	EXPECT(bq_params_apply(&set, 2, rate_only) == 0 && set.given == 1U << 1,
	       "given: exactly the parameter named (0x%x)", set.given);
	EXPECT(bq_params_apply(&set, 2, unknown) == -EINVAL, "unknown name");
	EXPECT(bq_params_apply(&set, 2, range) == -EINVAL, "below min");
	EXPECT(bq_params_apply(&set, 2, big) == -EINVAL, "above max");
	EXPECT(bq_params_apply(&set, 1, novalue) == -EINVAL, "missing value");
	EXPECT(set.val.v[0] == 50, "a refused change leaves the value");
}

/* The kinds' own tables parse tc's grammar: argv on a fresh set of kind. */
static int tc_apply(const char *kind, struct bq_param_set *set, int argc, char **argv)
{
	EXPECT(!bq_kind_params(bq_kind_find(kind), set), "%s's table", kind);
	return bq_params_apply(set, argc, argv);
}

static __u64 tc_value(const struct bq_param_set *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->desc[i].name, name))
			return set->val.v[i];
	EXPECT(0, "no parameter %s", name);
	return 0;
}

/* A command copied from sch_fq or sch_fq_codel means the same, or is refused. */
static void tc_grammar(void)
{
	struct bq_param_set set;
	char *fq[] = { "limit", "0x10", "flow_limit", "010", "initial_quantum", "0x8000",
		       "timer_slack", "100", "nopacing", "horizon_cap", "refill_delay", "100",
		       "defrate", "1mbit", "quantum", "100" };
	char *flags[] = { "pacing", "horizon_drop", "orphan_mask", "0x3ff" };
	char *bands[] = { "bands", "3", "priomap", "0", "1", "2", "0", "1", "2", "0", "1", "2", "0",
			  "1", "2", "0", "1", "2", "0", "weights", "65536", "32768", "16384" };
	char *fqc[] = { "noecn", "target", "0", "interval", "0", "quantum", "10", "memory_limit", "0x1000" };

	EXPECT(tc_apply("fq", &set, 16, fq) == 0, "fq's tc words");
	EXPECT(tc_value(&set, "limit") == 16, "hex count");
	EXPECT(tc_value(&set, "flow_limit") == 8, "octal count, as tc's get_unsigned");
	EXPECT(tc_value(&set, "initial_quantum") == 0x8000, "hex size");
	EXPECT(tc_value(&set, "timer_slack") == 100, "timer_slack: bare is ns in tc");
	EXPECT(tc_value(&set, "refill_delay") == 100000, "refill_delay: bare is us");
	EXPECT(tc_value(&set, "pacing") == 0, "nopacing");
	EXPECT(tc_value(&set, "horizon_drop") == 0, "horizon_cap");
	EXPECT(tc_value(&set, "quantum") == 256, "quantum raised to 256, as sch_fq");
	EXPECT(tc_apply("fq", &set, 4, flags) == 0, "flag words");
	EXPECT(tc_value(&set, "pacing") == 1 && tc_value(&set, "horizon_drop") == 1 &&
	       tc_value(&set, "orphan_mask") == 1023, "pacing, horizon_drop, hex mask");
	EXPECT(tc_apply("fq", &set, 23, bands) == 0, "tc's bands, priomap and weights");
	EXPECT(tc_value(&set, "priomap") == 0x210210210210210ULL, "priomap of 16 words");
	EXPECT(tc_value(&set, "weight0") == 65536 && tc_value(&set, "weight1") == 32768 &&
	       tc_value(&set, "weight2") == 16384, "weights W1 W2 W3");
	EXPECT(tc_apply("fq_codel", &set, 9, fqc) == 0, "fq_codel's tc words");
	EXPECT(tc_value(&set, "target") == 5000000 && tc_value(&set, "interval") == 100000000 &&
	       !(set.given & 0x18), "0 is the default for tc's fq_codel");
	EXPECT(tc_value(&set, "quantum") == 256, "fq_codel quantum raised to 256");
	EXPECT(tc_value(&set, "memory_limit") == 4096, "hex memory_limit");
}

/* What a BPF qdisc cannot do, or tc would read otherwise, is refused. */
static void tc_refused(void)
{
	static char *cases[][3] = {
		{ "fq_codel", "ecn", NULL }, { "fq_codel", "ce_threshold", "1ms" },
		{ "fq", "buckets", "1024" }, { "fq", "quantum", "010" },
		{ "fq", "initial_quantum", "1048577" }, { "fq_codel", "quantum", "1048577" },
		{ "fq", "bands", "4" }, { "fq", "weights", "65536" },
	};
	struct bq_param_set set;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		EXPECT(tc_apply(cases[i][0], &set, cases[i][2] ? 2 : 1, cases[i] + 1) == -EINVAL,
		       "%s %s %s accepted", cases[i][0], cases[i][1], cases[i][2] ? cases[i][2] : "");
}

/*
 * A default of auto is one no one can give (.init refuses it): refused
 * with why, and bpfqdisc params shows it and a range without a maximum
 * apart from values, not as "auto" nor "0bit..auto".
 */
static void auto_values(void)
{
	static const struct bq_param_desc quantum = { "quantum", BQ_UNIT_BYTES, BQ_AUTO, 256, 1 << 20 };
	static const struct bq_param_desc maxrate = { "maxrate", BQ_UNIT_RATE, 0, 0, BQ_AUTO };
	char *given[] = { "quantum", "auto" };
	struct bq_param_set set;
	char b[64];

	EXPECT(tc_apply("fq", &set, 2, given) == -EINVAL, "fq quantum auto accepted");
	EXPECT(strstr(bq_last_error(), "auto is its built-in default") &&
	       strstr(bq_last_error(), "cannot be given (leave quantum out)"),
	       "quantum auto refused with '%s'", bq_last_error());
	EXPECT(!strcmp(bq_format_default(&quantum, b, sizeof(b)), "(auto)"), "auto default: %s", b);
	EXPECT(!strcmp(bq_format_default(&maxrate, b, sizeof(b)), "0bit"), "maxrate default: %s", b);
	EXPECT(!strcmp(bq_format_range(&quantum, b, sizeof(b)), "256b..1048576b"), "quantum range: %s", b);
	EXPECT(!strcmp(bq_format_range(&maxrate, b, sizeof(b)), "0bit.. (no maximum)"),
	       "maxrate range: %s", b);
}

int main(void)
{
	unit_file = "units";
	RUN(rates);
	RUN(times);
	RUN(sizes_and_counts);
	RUN(formatting);
	RUN(huge_values);
	RUN(param_sets);
	RUN(tc_grammar);
	RUN(tc_refused);
	RUN(auto_values);
	return unit_failed;
}
