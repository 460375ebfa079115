// SPDX-License-Identifier: GPL-2.0
/*
 * Parameter values in tc's units, so `bpfqdisc` reads what tc(8) users
 * type: rate 200mbit, horizon 10ms, quantum 3k, limit 10000.
 * Rates are stored in bytes per second, times in ns, sizes in bytes.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "lib.h"

struct suffix {
	const char *name;
	long double mult;
};

/* tc: bare rate is bit/s, SI prefixes for bit, IEC with "i", bps is bytes. */
static const struct suffix rate_sfx[] = {
	{ "", 1.0L / 8 }, { "bit", 1.0L / 8 },
	{ "kbit", 1e3L / 8 }, { "mbit", 1e6L / 8 }, { "gbit", 1e9L / 8 }, { "tbit", 1e12L / 8 },
	{ "kibit", 1024.0L / 8 }, { "mibit", 1048576.0L / 8 },
	{ "gibit", 1073741824.0L / 8 }, { "tibit", 1099511627776.0L / 8 },
	{ "bps", 1 }, { "kbps", 1e3L }, { "mbps", 1e6L }, { "gbps", 1e9L }, { "tbps", 1e12L },
	{ NULL, 0 },
};

/* tc: bare time is microseconds. */
static const struct suffix time_sfx[] = {
	{ "", 1e3L }, { "ns", 1 }, { "nsec", 1 }, { "nsecs", 1 },
	{ "us", 1e3L }, { "usec", 1e3L }, { "usecs", 1e3L },
	{ "ms", 1e6L }, { "msec", 1e6L }, { "msecs", 1e6L },
	{ "s", 1e9L }, { "sec", 1e9L }, { "secs", 1e9L },
	{ NULL, 0 },
};

/* tc: sizes use 1024; "b" is bytes, "kbit" and friends are bits. */
static const struct suffix size_sfx[] = {
	{ "", 1 }, { "b", 1 }, { "k", 1024 }, { "kb", 1024 },
	{ "m", 1048576 }, { "mb", 1048576 }, { "g", 1073741824.0L }, { "gb", 1073741824.0L },
	{ "kbit", 1024.0L / 8 }, { "mbit", 1048576.0L / 8 }, { "gbit", 1073741824.0L / 8 },
	{ NULL, 0 },
};

/* tc's fq timer_slack: bare time is nanoseconds. */
static const struct suffix time_ns_sfx[] = {
	{ "", 1 }, { "ns", 1 }, { "nsec", 1 }, { "nsecs", 1 },
	{ "us", 1e3L }, { "usec", 1e3L }, { "usecs", 1e3L },
	{ "ms", 1e6L }, { "msec", 1e6L }, { "msecs", 1e6L },
	{ "s", 1e9L }, { "sec", 1e9L }, { "secs", 1e9L },
	{ NULL, 0 },
};

static const struct suffix count_sfx[] = { { "", 1 }, { NULL, 0 } };

static const struct suffix *suffixes(enum bq_unit unit)
{
	switch (unit) {
	case BQ_UNIT_RATE: return rate_sfx;
	case BQ_UNIT_TIME: return time_sfx;
	case BQ_UNIT_TIME_NS: return time_ns_sfx;
	case BQ_UNIT_BYTES: return size_sfx;
	default: return count_sfx;
	}
}

const char *bq_unit_name(enum bq_unit unit)
{
	static const char *names[] = {
		[BQ_UNIT_COUNT] = "count", [BQ_UNIT_BYTES] = "bytes",
		[BQ_UNIT_TIME] = "time", [BQ_UNIT_RATE] = "rate", [BQ_UNIT_BOOL] = "on|off",
		[BQ_UNIT_PRIOMAP] = "priomap", [BQ_UNIT_TIME_NS] = "time",
	};
	return unit < sizeof(names) / sizeof(names[0]) ? names[unit] : "?";
}

static int parse_bool(const char *text, __u64 *out, const char **why)
{
	static const char *yes[] = { "on", "yes", "true", "1" }, *no[] = { "off", "no", "false", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(text, yes[i])) { *out = 1; return 0; }
		if (!strcasecmp(text, no[i])) { *out = 0; return 0; }
	}
	*why = "expected on or off";
	return -EINVAL;
}

/* 16 digits, the band of priority 0 first (tc's order), one per nibble. */
static int parse_priomap(const char *text, __u64 *out, const char **why)
{
	__u64 v = 0;

	if (strlen(text) != 16 || strspn(text, "0123456789") != 16) {
		*why = "expected 16 digits, the band of each priority 0..15";
		return -EINVAL;
	}
	for (int i = 0; i < 16; i++)
		v |= (__u64)(text[i] - '0') << (4 * i);
	*out = v;
	return 0;
}

static void format_priomap(__u64 v, char *buf, size_t len)
{
	char d[17];

	for (int i = 0; i < 16; i++)
		d[i] = '0' + ((v >> (4 * i)) & 0xf) % 10;
	d[16] = 0;
	snprintf(buf, len, "%s", d);
}

/* Each priority's band at most max's: what a range means for a map. */
static bool priomap_within(__u64 v, __u64 max)
{
	for (int i = 0; i < 16; i++)
		if (((v >> (4 * i)) & 0xf) > ((max >> (4 * i)) & 0xf))
			return false;
	return true;
}

/* tc's get_unsigned: base 0, so 0x10 is 16 and 010 is 8. */
static int parse_count(const char *text, __u64 *out, const char **why)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(text, &end, 0);
	if (*end || errno) {
		*why = errno == ERANGE ? "too large" : "expected a whole number";
		return -EINVAL;
	}
	/* 2^64 - 1 is BQ_AUTO, which prints as "auto": nobody may give it. */
	if (v == BQ_AUTO) {
		*why = "too large";
		return -ERANGE;
	}
	*out = v;
	return 0;
}

int bq_parse_value(enum bq_unit unit, const char *text, __u64 *out, const char **why)
{
	const struct suffix *s;
	long double given, num;
	char *end;

	if (unit == BQ_UNIT_BOOL)
		return parse_bool(text, out, why);
	if (unit == BQ_UNIT_PRIOMAP)
		return parse_priomap(text, out, why);
	/* strtold would take "inf", "nan" and leading blanks: refuse them. */
	if (!isdigit((unsigned char)text[0]) && !(text[0] == '.' && isdigit((unsigned char)text[1]))) {
		*why = text[0] == '-' ? "must not be negative" : "not a number";
		return -EINVAL;
	}
	if (unit == BQ_UNIT_COUNT)
		return parse_count(text, out, why);
	/* tc 6.1 reads fq's and fq_codel's quantum as octal, later ones as decimal. */
	if (unit == BQ_UNIT_BYTES && text[0] == '0' && isdigit((unsigned char)text[1])) {
		*why = "a leading 0 is octal to some tc versions: write it without";
		return -EINVAL;
	}
	errno = 0;
	given = strtold(text, &end);	/* hex too, as tc's strtod */
	if (errno) {
		*why = errno == ERANGE ? "out of range" : "not a number";
		return -EINVAL;
	}
	for (s = suffixes(unit); s->name; s++)
		if (!strcasecmp(end, s->name))
			break;
	if (!s->name) {
		*why = unit == BQ_UNIT_RATE ? "unknown unit (use bit, kbit, mbit, gbit, tbit, or bps, kbps, mbps, gbps)" :
		       unit == BQ_UNIT_TIME || unit == BQ_UNIT_TIME_NS ? "unknown unit (use ns, us, ms or s)" :
		       unit == BQ_UNIT_BYTES ? "unknown unit (use b, k, kb, m, mb, g or gb)" :
		       "unexpected characters after the number";
		return -EINVAL;
	}
	/* Long double holds every integer below 2^64 exactly, so a value that
	 * rounds below 2^64 converts exactly (llroundl stops at 2^63). */
	num = roundl(given * s->mult);
	/* 0 means "unlimited" or "off" for many parameters: "3bit" must not. */
	if (num == 0 && given != 0) {
		*why = unit == BQ_UNIT_RATE ? "rounds to 0 bytes/s, which means no rate; the least is 4bit" :
		       unit == BQ_UNIT_TIME || unit == BQ_UNIT_TIME_NS ? "rounds to 0ns; the least is 1ns" :
		       "rounds to 0 bytes; the least is 1b";
		return -EINVAL;
	}
	/* 2^64 - 1 is BQ_AUTO, which prints as "auto": nobody may give it. */
	if (num >= 18446744073709551615.0L) {
		*why = "too large";
		return -ERANGE;
	}
	*out = (__u64)num;
	return 0;
}

const char *bq_format_default(const struct bq_param_desc *d, char *buf, size_t len)
{
	if (d->def == BQ_AUTO) {
		snprintf(buf, len, "(auto)");
		return buf;
	}
	return bq_format_value(d->unit, d->def, buf, len);
}

const char *bq_format_range(const struct bq_param_desc *d, char *buf, size_t len)
{
	char lo[32], hi[32];

	bq_format_value(d->unit, d->min, lo, sizeof(lo));
	if (d->max == BQ_AUTO)
		snprintf(buf, len, "%s.. (no maximum)", lo);
	else
		snprintf(buf, len, "%s..%s", lo, bq_format_value(d->unit, d->max, hi, sizeof(hi)));
	return buf;
}

/*
 * Bits, as tc prints, with the largest unit that divides evenly. Above 2^61
 * bytes/s the bits outgrow 64 bits: then bytes (bps), so that every value
 * prints as text that parses back to it.
 */
static void format_rate(__u64 v, char *buf, size_t len)
{
	static const struct { __u64 div; const char *name; } rates[] = {
		{ 1000000000000ULL, "Tbit" }, { 1000000000, "Gbit" }, { 1000000, "Mbit" },
		{ 1000, "Kbit" }, { 1, "bit" },
	};
	unsigned __int128 bits = (unsigned __int128)v * 8;
	size_t i;

	for (i = 0; i < 4 && (bits % rates[i].div || !v); i++)
		;
	if (bits / rates[i].div > ~0ULL)
		snprintf(buf, len, "%llubps", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%s", (unsigned long long)(bits / rates[i].div), rates[i].name);
}

const char *bq_format_value(enum bq_unit unit, __u64 v, char *buf, size_t len)
{
	static const struct { __u64 div; const char *name; }
		times[] = { { 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" }, { 1, "ns" } };
	size_t i;

	if (v == BQ_AUTO) {
		snprintf(buf, len, "auto");
		return buf;
	}
	switch (unit) {
	case BQ_UNIT_RATE:
		format_rate(v, buf, len);
		break;
	case BQ_UNIT_TIME:
	case BQ_UNIT_TIME_NS:
		for (i = 0; i < 3 && (v % times[i].div || !v); i++)
			;
		snprintf(buf, len, "%llu%s", (unsigned long long)(v / times[i].div), times[i].name);
		break;
	case BQ_UNIT_BYTES:
		snprintf(buf, len, "%llub", (unsigned long long)v);
		break;
	case BQ_UNIT_BOOL:
		snprintf(buf, len, "%s", v ? "on" : "off");
		break;
	case BQ_UNIT_PRIOMAP:
		format_priomap(v, buf, len);
		break;
	default:
		snprintf(buf, len, "%llu", (unsigned long long)v);
	}
	return buf;
}

/*
 * tc's words for the kinds that mirror a kernel qdisc, beyond "NAME VALUE"
 * and a flag word per on|off parameter ("pacing", "nopacing"): a command
 * copied from a sch_fq or sch_fq_codel setup means the same with bpf_ in
 * front, or is refused with the reason.
 */
enum tc_word_does {
	TC_SETS,	/* word alone sets param to value */
	TC_IGNORED,	/* the kernel's qdisc ignores it too; takes value args */
	TC_REFUSED,	/* what the BPF qdisc cannot do: why */
	TC_ZERO_DEFAULT,/* param 0: the default (tc sends no 0 for it) */
	TC_RAISED,	/* param below its min: the min (the kernel's clamp) */
	TC_CLAMPED,	/* param outside its range: the nearer end */
	TC_FIXED,	/* word with one value, which must be value: what the kind has */
	TC_SPREAD,	/* word with value values, for param and the ones after it */
};

static const struct tc_word {
	const char *kind, *word;
	enum tc_word_does does;
	const char *param;	/* TC_SETS: the parameter; TC_REFUSED: why */
	__u64 value;		/* TC_SETS: its value; TC_IGNORED: values taken */
} tc_words[] = {
	{ "bpf_fq", "horizon_cap", TC_SETS, "horizon_drop", 0 },
	{ "bpf_fq", "defrate", TC_IGNORED, NULL, 1 },
	{ "bpf_fq", "buckets", TC_REFUSED,
	  "bpf_fq keeps its flows in one hash map (flows_max), not in buckets", 0 },
	{ "bpf_fq", "offload_horizon", TC_REFUSED, "a BPF qdisc cannot be offloaded", 0 },
	{ "bpf_fq", "quantum", TC_CLAMPED, NULL, 0 },
	{ "bpf_fq", "bands", TC_FIXED, "bpf_fq has 3 bands", 3 },
	{ "bpf_fq", "weights", TC_SPREAD, "weight0", 3 },
	{ "bpf_fq_codel", "noecn", TC_IGNORED, NULL, 0 },
	{ "bpf_fq_codel", "ecn", TC_REFUSED,
	  "bpf_fq_codel drops and never marks ECN: it always behaves as noecn", 0 },
	{ "bpf_fq_codel", "ce_threshold", TC_REFUSED, "bpf_fq_codel never marks ECN", 0 },
	{ "bpf_fq_codel", "ce_threshold_selector", TC_REFUSED, "bpf_fq_codel never marks ECN", 0 },
	{ "bpf_fq_codel", "quantum", TC_RAISED, NULL, 0 },
#define TC_ZERO(kind, param) { kind, param, TC_ZERO_DEFAULT, NULL, 0 }
	TC_ZERO("bpf_fq_codel", "limit"), TC_ZERO("bpf_fq_codel", "flows"),
	TC_ZERO("bpf_fq_codel", "quantum"), TC_ZERO("bpf_fq_codel", "target"),
	TC_ZERO("bpf_fq_codel", "interval"), TC_ZERO("bpf_fq_codel", "drop_batch"),
#undef TC_ZERO
};

static const struct bq_param_desc *param_find(const struct bq_param_set *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->desc[i].name, name))
			return &set->desc[i];
	return NULL;
}

/* A word of set's kind; one that names parameters the table lacks is none. */
static const struct tc_word *tc_word(const struct bq_param_set *set, const char *word,
				     enum tc_word_does does)
{
	for (size_t i = 0; set->kind && i < sizeof(tc_words) / sizeof(tc_words[0]); i++) {
		const struct tc_word *w = &tc_words[i];
		const struct bq_param_desc *d;

		if (strcmp(w->kind, set->kind) || strcmp(w->word, word) || w->does != does)
			continue;
		if (does != TC_SETS && does != TC_SPREAD)
			return w;
		d = param_find(set, w->param);
		if (d && (does == TC_SETS || (size_t)(d - set->desc) + w->value <= set->n))
			return w;
	}
	return NULL;
}

static void param_set(struct bq_param_set *set, const struct bq_param_desc *d, __u64 v)
{
	set->val.v[d - set->desc] = v;
	set->given |= 1U << (d - set->desc);
}

/* v for d, or a value the kernel's qdisc would make of it: 0 or -1 (said). */
static int apply_value(struct bq_param_set *set, const struct bq_param_desc *d, const char *name,
		       const char *text, __u64 v)
{
	char lo[32], hi[32];

	if (!v && tc_word(set, name, TC_ZERO_DEFAULT))
		return 0;
	if (v < d->min && (tc_word(set, name, TC_RAISED) || tc_word(set, name, TC_CLAMPED)))
		v = d->min;
	if (v > d->max && d->unit != BQ_UNIT_PRIOMAP && tc_word(set, name, TC_CLAMPED))
		v = d->max;
	if (d->unit == BQ_UNIT_PRIOMAP ? !priomap_within(v, d->max) : v < d->min || v > d->max)
		return bq_invalid("%s %s is out of range [%s, %s]", name, text,
		       bq_format_value(d->unit, d->min, lo, sizeof(lo)),
		       bq_format_value(d->unit, d->max, hi, sizeof(hi)));
	param_set(set, d, v);
	return 0;
}

/* tc's priomap: 16 words of one digit each, the band of each priority. */
static int apply_priomap(struct bq_param_set *set, const struct bq_param_desc *d, char **argv)
{
	char map[17];
	const char *why;
	__u64 v;

	for (int i = 0; i < 16; i++) {
		if (strlen(argv[1 + i]) != 1)
			return bq_invalid("priomap takes 16 bands, one per priority: '%s' is not one", argv[1 + i]);
		map[i] = argv[1 + i][0];
	}
	map[16] = '\0';
	if (bq_parse_value(d->unit, map, &v, &why))
		return bq_invalid("bad value '%s' for %s: %s", map, argv[0], why);
	return apply_value(set, d, argv[0], map, v) ?: 17;
}

/* word W1 W2 ...: the values of w->param and the ones after it. */
static int apply_spread(struct bq_param_set *set, const struct tc_word *w, int argc, char **argv)
{
	const struct bq_param_desc *d = param_find(set, w->param);
	const char *why;
	__u64 v;

	if (argc <= (int)w->value)
		return bq_invalid("%s takes %llu values", argv[0], (unsigned long long)w->value);
	for (int i = 0; i < (int)w->value; i++) {
		if (bq_parse_value(d[i].unit, argv[1 + i], &v, &why))
			return bq_invalid("bad value '%s' for %s: %s", argv[1 + i], d[i].name, why);
		if (apply_value(set, &d[i], d[i].name, argv[1 + i], v))
			return -EINVAL;
	}
	return 1 + (int)w->value;
}

/* tc's words of more than one value; as apply_word() returns. */
static int apply_words(struct bq_param_set *set, int argc, char **argv)
{
	const struct bq_param_desc *d = param_find(set, argv[0]);
	const struct tc_word *w;
	const char *why;
	__u64 v;

	if ((w = tc_word(set, argv[0], TC_FIXED))) {
		if (argc < 2 || bq_parse_value(BQ_UNIT_COUNT, argv[1], &v, &why) || v != w->value)
			return bq_invalid("%s %s refused: %s", argv[0], argc < 2 ? "" : argv[1], w->param);
		return 2;
	}
	if ((w = tc_word(set, argv[0], TC_SPREAD)))
		return apply_spread(set, w, argc, argv);
	if (d && d->unit == BQ_UNIT_PRIOMAP && argc > 16 && strlen(argv[1]) == 1)
		return apply_priomap(set, d, argv);
	return 0;
}

/*
 * A word that stands alone, or with values of its own: tc's words of the
 * kind, its priomap of 16 words, and "P" / "noP" for an on|off parameter
 * P not followed by on or off. How many words it took (0: not one of
 * these), or -EINVAL, with why it is refused.
 */
static int apply_word(struct bq_param_set *set, int argc, char **argv)
{
	const struct bq_param_desc *d = param_find(set, argv[0]);
	const struct tc_word *w;
	const char *why;
	int took;
	__u64 v;

	if ((w = tc_word(set, argv[0], TC_REFUSED)))
		return bq_invalid("%s refused: %s", argv[0], w->param);
	if ((w = tc_word(set, argv[0], TC_IGNORED))) {
		if (argc > (int)w->value)
			return 1 + (int)w->value;
		return bq_invalid("parameter '%s' needs a value", argv[0]);
	}
	if ((took = apply_words(set, argc, argv)))
		return took;
	if ((w = tc_word(set, argv[0], TC_SETS))) {
		param_set(set, param_find(set, w->param), w->value);
		return 1;
	}
	if (d && d->unit == BQ_UNIT_BOOL && (argc < 2 || bq_parse_value(d->unit, argv[1], &v, &why))) {
		param_set(set, d, 1);
		return 1;
	}
	d = !strncmp(argv[0], "no", 2) ? param_find(set, argv[0] + 2) : NULL;
	if (d && d->unit == BQ_UNIT_BOOL) {
		param_set(set, d, 0);
		return 1;
	}
	return 0;
}

int bq_params_apply(struct bq_param_set *set, int argc, char **argv)
{
	for (int i = 0, took; i < argc; i += took) {
		const struct bq_param_desc *d = param_find(set, argv[i]);
		const char *why = NULL;
		__u64 v;

		took = apply_word(set, argc - i, argv + i);
		if (took < 0)
			return took;
		if (took)
			continue;
		took = 2;
		if (!d)
			return bq_invalid("unknown parameter '%s'", argv[i]);
		if (i + 1 >= argc)
			return bq_invalid("parameter '%s' needs a value (%s)", argv[i], bq_unit_name(d->unit));
		if (d->def == BQ_AUTO && !strcmp(argv[i + 1], "auto"))
			return bq_invalid("bad value 'auto' for %s: auto is its built-in default, which each qdisc "
					  "works out from its device, and cannot be given (leave %s out)",
					  argv[i], argv[i]);
		if (bq_parse_value(d->unit, argv[i + 1], &v, &why))
			return bq_invalid("bad value '%s' for %s: %s", argv[i + 1], argv[i], why);
		if (apply_value(set, d, argv[i], argv[i + 1], v))
			return -EINVAL;
	}
	return 0;
}

void bq_params_options(const struct bq_param_set *set, struct bq_options *o)
{
	memset(o, 0, sizeof(*o));
	o->magic = BQ_OPT_MAGIC;
	o->given = set->given;
	for (size_t i = 0; i < set->n; i++)
		if (set->given & (1U << i))
			o->v[i] = set->val.v[i];
}

/* tc's handle syntax: "1:" (major only), "1:2", hex digits. */
BQ_API int bq_parse_handle(const char *text, __u32 *out)
{
	unsigned long maj, min = 0;
	char *end;

	if (!isxdigit((unsigned char)text[0]))
		return -EINVAL;
	maj = strtoul(text, &end, 16);
	if (*end != ':' || maj > 0xffff)
		return -EINVAL;
	if (end[1]) {
		const char *m = end + 1;

		if (!isxdigit((unsigned char)m[0]))
			return -EINVAL;
		min = strtoul(m, &end, 16);
		if (*end || min > 0xffff)
			return -EINVAL;
	}
	*out = maj << 16 | min;
	return 0;
}
