// SPDX-License-Identifier: GPL-2.0
/*
 * The commands' output as text or JSON from the same calls, in the manner
 * of iproute2's json_print.h: a field is one call, which writes its text
 * form or its JSON member, whichever -j chose. Strings are escaped for
 * their format by the library's json.c: bq_json_str() in JSON,
 * bq_text_str() in text (one word: a name from a user cannot add words,
 * lines or escape sequences). JSON is written compact, as it always was.
 */
#include <stdio.h>
#include <string.h>
#include "cli.h"

#define MAX_DEPTH	8	/* bpfqdisc's output nests 3 deep */

static bool json;
static int depth;			/* JSON objects and arrays open */
static bool has_members[MAX_DEPTH + 1];	/* whether the one open at each depth has any yet */

void print_set_json(bool on)
{
	json = on;
}

static bool here(enum print_where w)
{
	return w & (json ? PRINT_JSON : PRINT_TEXT);
}

/* JSON: what goes before a member (its key, if it has one) or an element. */
static void member(const char *key)
{
	bool *any = &has_members[depth < MAX_DEPTH ? depth : MAX_DEPTH];

	if (*any)
		putchar(',');
	*any = true;
	if (key) {
		bq_json_str(stdout, key);
		putchar(':');
	}
}

static void open_json(const char *key, char brace)
{
	if (!json)
		return;
	member(key);
	putchar(brace);
	depth++;
	has_members[depth < MAX_DEPTH ? depth : MAX_DEPTH] = false;
}

static void close_json(char brace)
{
	if (!json)
		return;
	putchar(brace);
	if (--depth == 0) {
		putchar('\n');
		has_members[0] = false;	/* the next document starts afresh */
	}
}

void open_json_object(const char *key)
{
	open_json(key, '{');
}

void close_json_object(void)
{
	close_json('}');
}

void open_json_array(const char *key)
{
	open_json(key, '[');
}

void close_json_array(void)
{
	close_json(']');
}

void print_string(enum print_where w, const char *key, const char *fmt, const char *val)
{
	if (!here(w))
		return;
	if (json) {
		member(key);
		if (val)
			bq_json_str(stdout, val);
		else
			printf("null");
	} else if (fmt && val) {
		char word[BQ_TEXT_LEN(strlen(val))];

		printf(fmt, bq_text_str(val, word, sizeof(word)));
	} else if (fmt) {
		fputs(fmt, stdout);
	}
}

void print_uint(enum print_where w, const char *key, const char *fmt, unsigned long long val)
{
	if (!here(w))
		return;
	if (json) {
		member(key);
		printf("%llu", val);
	} else if (fmt) {
		printf(fmt, val);
	}
}

void print_bool(enum print_where w, const char *key, const char *if_false, const char *if_true,
		bool val)
{
	if (!here(w))
		return;
	if (json) {
		member(key);
		printf("%s", val ? "true" : "false");
	} else {
		fputs(val ? if_true : if_false, stdout);
	}
}

void print_named_string(const char *fmt, const char *key, const char *val)
{
	char word[BQ_TEXT_LEN(strlen(val))];

	if (json) {
		member(key);
		bq_json_str(stdout, val);
	} else {
		printf(fmt, key, bq_text_str(val, word, sizeof(word)));
	}
}

void print_named_uint(const char *fmt, const char *key, unsigned long long val)
{
	if (json) {
		member(key);
		printf("%llu", val);
	} else {
		printf(fmt, key, val);
	}
}

void print_value(const char *fmt, const char *key, __u32 unit, __u64 val, const char *zero)
{
	char buf[32];

	if (json)
		print_named_uint(fmt, key, val);
	else
		printf(fmt, key, !val && zero && zero[0] ? zero :
		       bq_format_value(unit, val, buf, sizeof(buf)));
}

void print_nl(void)
{
	if (!json)
		putchar('\n');
}

void print_params(const struct bq_param_set *set, const struct bq_params *val)
{
	for (size_t i = 0; i < set->n; i++)
		print_value(" %s %s", set->desc[i].name, set->desc[i].unit, val->v[i], NULL);
}
