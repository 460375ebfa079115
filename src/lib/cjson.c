// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON reader (lib.h, "input"), of CNI configs and pod records. One
 * recursive scanner, value(), both checks a document and finds where each
 * value ends; the lookups re-scan the spans they step over, which for a
 * CNI config (a few KB) is cheaper than building anything.
 */
#include <string.h>
#include "lib.h"

static const char *blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static int hex4(const char *p, const char *end)
{
	int v = 0;

	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v |= (c | 0x20) - 'a' + 10;
		else
			return -1;
	}
	return v;
}

/* One UTF-8 sequence at p, at most end: its length, or 0 if malformed
 * (overlong, a surrogate, beyond U+10FFFF, truncated). */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned int c = p[0], cp;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/*
 * A \u escape at p (just past the backslash and 'u'), with its low
 * surrogate if it is a high one: the code point, *p moved past it; -1 if
 * malformed or a lone surrogate.
 */
static long escaped_cp(const char **p, const char *end)
{
	int hi = hex4(*p, end), lo;

	if (hi < 0 || (hi >= 0xdc00 && hi <= 0xdfff))
		return -1;
	*p += 4;
	if (hi < 0xd800 || hi > 0xdbff)
		return hi;
	if (end - *p < 6 || (*p)[0] != '\\' || (*p)[1] != 'u')
		return -1;
	lo = hex4(*p + 2, end);
	if (lo < 0xdc00 || lo > 0xdfff)
		return -1;
	*p += 6;
	return 0x10000 + ((long)(hi - 0xd800) << 10) + (lo - 0xdc00);
}

static const char *string(const char *p, const char *end, const char **why)
{
	for (p++; p < end; ) {
		unsigned char c = *p;
		size_t n;

		if (c == '"')
			return p + 1;
		if (c < 0x20) {
			*why = "control character in a string";
			return NULL;
		}
		if (c == '\\') {
			if (++p == end)
				break;
			if (*p == 'u') {
				p++;
				if (escaped_cp(&p, end) < 0) {
					*why = "bad \\u escape";
					return NULL;
				}
				continue;
			}
			if (!strchr("\"\\/bfnrt", *p) || !*p) {
				*why = "bad escape in a string";
				return NULL;
			}
			p++;
			continue;
		}
		n = utf8_len((const unsigned char *)p, (const unsigned char *)end);
		if (!n) {
			*why = "invalid UTF-8";
			return NULL;
		}
		p += n;
	}
	*why = "unterminated string";
	return NULL;
}

static const char *digits(const char *p, const char *end)
{
	const char *start = p;

	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p == start ? NULL : p;
}

static const char *number(const char *p, const char *end, const char **why)
{
	*why = "bad number";
	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (!(p = digits(p, end)))
		return NULL;
	if (p < end && *p == '.' && !(p = digits(p + 1, end)))
		return NULL;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (!(p = digits(p, end)))
			return NULL;
	}
	return p;
}

static const char *literal(const char *p, const char *end, const char *word, const char **why)
{
	size_t n = strlen(word);

	if ((size_t)(end - p) < n || memcmp(p, word, n)) {
		*why = "unexpected character";
		return NULL;
	}
	return p + n;
}

static const char *value(const char *p, const char *end, int depth, const char **why);

/* An object's or array's members, p at its opening bracket. */
static const char *container(const char *p, const char *end, int depth, const char **why)
{
	bool object = *p == '{';
	char close = object ? '}' : ']';

	if (depth >= BQ_CJ_MAX_DEPTH) {
		*why = "nested too deep";
		return NULL;
	}
	p = blanks(p + 1, end);
	if (p < end && *p == close)
		return p + 1;
	for (;;) {
		if (object) {
			if (p >= end || *p != '"') {
				*why = "expected a member name";
				return NULL;
			}
			if (!(p = string(p, end, why)))
				return NULL;
			p = blanks(p, end);
			if (p >= end || *p != ':') {
				*why = "expected ':'";
				return NULL;
			}
			p = blanks(p + 1, end);
		}
		if (!(p = value(p, end, depth + 1, why)))
			return NULL;
		p = blanks(p, end);
		if (p < end && *p == close)
			return p + 1;
		if (p >= end || *p != ',') {
			*why = object ? "expected ',' or '}'" : "expected ',' or ']'";
			return NULL;
		}
		p = blanks(p + 1, end);
	}
}

static const char *value(const char *p, const char *end, int depth, const char **why)
{
	if (p >= end) {
		*why = "unexpected end";
		return NULL;
	}
	switch (*p) {
	case '{':
	case '[':
		return container(p, end, depth, why);
	case '"':
		return string(p, end, why);
	case 't':
		return literal(p, end, "true", why);
	case 'f':
		return literal(p, end, "false", why);
	case 'n':
		return literal(p, end, "null", why);
	default:
		if (*p == '-' || (*p >= '0' && *p <= '9'))
			return number(p, end, why);
		*why = "unexpected character";
		return NULL;
	}
}

int bq_cj_parse(const char *buf, size_t n, struct bq_cj_span *doc, const char **why)
{
	const char *end = buf + n, *p = blanks(buf, end), *after;

	after = value(p, end, 0, why);
	if (!after)
		return -1;
	if (blanks(after, end) != end) {
		*why = "data after the document";
		return -1;
	}
	doc->p = p;
	doc->n = after - p;
	return 0;
}

enum bq_cj_type bq_cj_type(struct bq_cj_span v)
{
	if (!v.p || !v.n)
		return BQ_CJ_NONE;
	switch (v.p[0]) {
	case '{': return BQ_CJ_OBJECT;
	case '[': return BQ_CJ_ARRAY;
	case '"': return BQ_CJ_STRING;
	case 't': case 'f': return BQ_CJ_BOOL;
	case 'n': return BQ_CJ_NULL;
	default: return BQ_CJ_NUMBER;
	}
}

void bq_cj_iter_init(struct bq_cj_iter *it, struct bq_cj_span v)
{
	enum bq_cj_type t = bq_cj_type(v);

	it->object = t == BQ_CJ_OBJECT;
	it->p = v.p + 1;
	it->end = t == BQ_CJ_OBJECT || t == BQ_CJ_ARRAY ? v.p + v.n - 1 : it->p;
}

bool bq_cj_next(struct bq_cj_iter *it, struct bq_cj_span *key, struct bq_cj_span *val)
{
	const char *why, *p = blanks(it->p, it->end), *after;

	if (p < it->end && *p == ',')
		p = blanks(p + 1, it->end);
	if (p >= it->end)
		return false;
	if (it->object) {
		after = string(p, it->end, &why);
		if (!after)
			return false;
		if (key)
			*key = (struct bq_cj_span){ p, after - p };
		p = blanks(after, it->end);
		p = blanks(p + 1, it->end);	/* the ':' */
	} else if (key) {
		*key = (struct bq_cj_span){ NULL, 0 };
	}
	after = value(p, it->end, 0, &why);
	if (!after)
		return false;
	*val = (struct bq_cj_span){ p, after - p };
	it->p = after;
	return true;
}

/* Appends code point cp to buf as UTF-8; false if it does not fit. */
static bool put_utf8(char *buf, size_t len, size_t *at, unsigned long cp)
{
	unsigned char b[4];
	size_t n;

	if (cp < 0x80)
		b[0] = cp, n = 1;
	else if (cp < 0x800)
		b[0] = 0xc0 | cp >> 6, b[1] = 0x80 | (cp & 0x3f), n = 2;
	else if (cp < 0x10000)
		b[0] = 0xe0 | cp >> 12, b[1] = 0x80 | (cp >> 6 & 0x3f), b[2] = 0x80 | (cp & 0x3f), n = 3;
	else
		b[0] = 0xf0 | cp >> 18, b[1] = 0x80 | (cp >> 12 & 0x3f),
		b[2] = 0x80 | (cp >> 6 & 0x3f), b[3] = 0x80 | (cp & 0x3f), n = 4;
	if (*at + n >= len)
		return false;
	memcpy(buf + *at, b, n);
	*at += n;
	return true;
}

int bq_cj_string(struct bq_cj_span v, char *buf, size_t len)
{
	static const char esc[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
	const char *p, *end;
	size_t at = 0;

	if (bq_cj_type(v) != BQ_CJ_STRING || !len)
		return -1;
	for (p = v.p + 1, end = v.p + v.n - 1; p < end; ) {
		unsigned long cp = 0;

		if (*p != '\\') {
			cp = (unsigned char)*p++;
			if (at + 1 >= len)
				return -1;
			buf[at++] = cp;
			continue;
		}
		p++;
		if (*p == 'u') {
			long c;

			p++;
			c = escaped_cp(&p, end);
			if (c <= 0 || !put_utf8(buf, len, &at, c))
				return -1;
			continue;
		}
		for (size_t i = 0; esc[i]; i += 2)
			if (esc[i] == *p) {
				cp = esc[i + 1];
				break;
			}
		p++;
		if (!put_utf8(buf, len, &at, cp))
			return -1;
	}
	buf[at] = '\0';
	return 0;
}

bool bq_cj_string_is(struct bq_cj_span v, const char *s)
{
	char buf[256];

	return strlen(s) < sizeof(buf) - 1 && !bq_cj_string(v, buf, sizeof(buf)) && !strcmp(buf, s);
}

bool bq_cj_member_if(struct bq_cj_span obj, bq_cj_match_fn match, const void *arg,
		     struct bq_cj_span *out)
{
	struct bq_cj_span k, v;
	struct bq_cj_iter it;
	bool found = false;

	if (bq_cj_type(obj) != BQ_CJ_OBJECT)
		return false;
	bq_cj_iter_init(&it, obj);
	while (bq_cj_next(&it, &k, &v))
		if (match(k, v, arg)) {
			*out = v;
			found = true;
		}
	return found;
}

static bool key_is(struct bq_cj_span key, struct bq_cj_span val, const void *name)
{
	return bq_cj_string_is(key, name);
}

bool bq_cj_member(struct bq_cj_span obj, const char *key, struct bq_cj_span *out)
{
	return bq_cj_member_if(obj, key_is, key, out);
}

int bq_cj_u64(struct bq_cj_span v, uint64_t *out)
{
	uint64_t x = 0;

	if (bq_cj_type(v) != BQ_CJ_NUMBER || v.p[0] == '-')
		return -1;
	for (size_t i = 0; i < v.n; i++) {
		unsigned int d = v.p[i] - '0';

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*out = x;
	return 0;
}

int bq_cj_bool(struct bq_cj_span v, bool *out)
{
	if (bq_cj_type(v) != BQ_CJ_BOOL)
		return -1;
	*out = v.p[0] == 't';
	return 0;
}
