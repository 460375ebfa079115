/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A strict JSON reader for the CNI plugin: no tree, no allocation. A value
 * is a span of the caller's buffer, so that a member (prevResult) can be
 * written back byte for byte. cj_parse() checks a whole document once (RFC
 * 8259: UTF-8, escapes, number grammar, nesting up to CJ_MAX_DEPTH); the
 * lookups that follow trust spans it accepted.
 */
#ifndef BQ_CNI_CJSON_H
#define BQ_CNI_CJSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CJ_MAX_DEPTH	128

enum cj_type { CJ_NONE, CJ_OBJECT, CJ_ARRAY, CJ_STRING, CJ_NUMBER, CJ_BOOL, CJ_NULL };

struct cj_span {
	const char *p;		/* NULL: absent */
	size_t n;
};

/* The document's one value, blanks around it dropped. 0, or -1 with *why set. */
int cj_parse(const char *buf, size_t n, struct cj_span *doc, const char **why);
enum cj_type cj_type(struct cj_span v);

/* An object's member of that name (the last, if repeated, as Go's decoder
 * takes it). true if found; *out is then its value. */
bool cj_member(struct cj_span obj, const char *key, struct cj_span *out);

/* Walks an object's members or an array's elements, in order. */
struct cj_iter {
	const char *p, *end;
	bool object;
};
void cj_iter_init(struct cj_iter *it, struct cj_span v);
/* The next member (key: its name, a string span; NULL for arrays) or element. */
bool cj_next(struct cj_iter *it, struct cj_span *key, struct cj_span *val);

/* A string's text, unescaped, into buf (NUL-terminated). -1 if v is not a
 * string, holds U+0000, or does not fit. */
int cj_string(struct cj_span v, char *buf, size_t len);
/* Whether v is the string s. */
bool cj_string_is(struct cj_span v, const char *s);
/* A non-negative integer (no fraction or exponent) up to 2^64 - 1. */
int cj_u64(struct cj_span v, uint64_t *out);
/* true or false. */
int cj_bool(struct cj_span v, bool *out);

#endif
