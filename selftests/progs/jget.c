// SPDX-License-Identifier: GPL-2.0
/*
 * jget PATH [DEFAULT]: the value at PATH (.a.b[0].c, as jq writes it) of
 * the JSON document on stdin, as `jq -r PATH` prints it: a string without
 * its quotes, a number, true, false or null as written, an object or an
 * array as its text. A missing member or element is null, or DEFAULT
 * when one is given (jq's `PATH // DEFAULT`). Exit 2 on input that is not
 * JSON, or a path it cannot take.
 *
 * For the tests' helpers, which read one counter at a time: jq 1.6 takes
 * the test VM 0.29 s to start (it compiles its builtins each time), and a
 * test made 20 to 50 such reads, most of its CPU time.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *p;	/* where the parser is */

static void die(const char *why)
{
	fprintf(stderr, "jget: %s\n", why);
	exit(2);
}

static void skip_ws(void)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
}

/* Past the string at p (at its opening quote). */
static void skip_string(void)
{
	for (p++; *p != '"'; p++) {
		if (!*p)
			die("unterminated string");
		if (*p == '\\' && !*++p)
			die("unterminated string");
	}
	p++;
}

/* Past the value at p. */
static void skip_value(void)
{
	skip_ws();
	if (*p == '"') {
		skip_string();
	} else if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';

		p++;
		skip_ws();
		while (*p != close) {
			if (close == '}') {
				skip_ws();
				if (*p != '"')
					die("object key is not a string");
				skip_string();
				skip_ws();
				if (*p++ != ':')
					die("':' missing in object");
			}
			skip_value();
			skip_ws();
			if (*p == ',')
				p++;
			else if (*p != close)
				die("',' missing");
		}
		p++;
	} else if (strchr("-0123456789tfn", *p) && *p) {
		while (*p && !strchr(",]} \t\r\n", *p))
			p++;
	} else {
		die("not JSON");
	}
}

/* The string at p, unescaped (\uXXXX below 0x80 only), to stdout. */
static void print_string(void)
{
	const char *start = p, *end;

	skip_string();		/* dies unless the string ends */
	end = p - 1;		/* its closing quote */
	for (p = start + 1; p < end; p++) {
		if (*p != '\\') {
			putchar(*p);
			continue;
		}
		switch (*++p) {
		case 'n': putchar('\n'); break;
		case 't': putchar('\t'); break;
		case 'r': putchar('\r'); break;
		case 'b': putchar('\b'); break;
		case 'f': putchar('\f'); break;
		case 'u':
			if (end - p > 4) {
				putchar((int)strtol((char[]){ p[1], p[2], p[3], p[4], 0 }, NULL, 16));
				p += 4;
			}
			break;
		default: putchar(*p); break;
		}
	}
}

/*
 * Step into member name (len bytes) of the object at p; false if absent.
 * The last of several members of that name, as jq takes: tc's JSON for fq
 * has two "throttled" (flows now, and times ever).
 */
static bool member(const char *name, size_t len)
{
	const char *found = NULL;

	if (*p != '{')
		return false;
	p++;
	for (;;) {
		skip_ws();
		if (*p == '}')
			break;
		if (*p != '"')
			die("object key is not a string");
		const char *key = p + 1;

		skip_string();
		bool match = (size_t)(p - 1 - key) == len && !strncmp(key, name, len);

		skip_ws();
		if (*p++ != ':')
			die("':' missing in object");
		skip_ws();
		if (match)
			found = p;
		skip_value();
		skip_ws();
		if (*p == ',')
			p++;
		else if (*p != '}')
			die("',' missing");
	}
	if (found)
		p = found;
	return found;
}

/* Step into element i of the array at p; false if absent. */
static bool element(long i)
{
	if (*p != '[')
		return false;
	p++;
	for (;; i--) {
		skip_ws();
		if (*p == ']')
			return false;
		if (!i)
			return true;
		skip_value();
		skip_ws();
		if (*p == ',')
			p++;
	}
}

static char *read_all(void)
{
	size_t n = 0, cap = 1 << 16;
	char *buf = malloc(cap);

	while (buf) {
		n += fread(buf + n, 1, cap - n - 1, stdin);
		if (n < cap - 1)
			break;
		buf = realloc(buf, cap *= 2);
	}
	if (!buf)
		die("out of memory");
	buf[n] = 0;
	return buf;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "";
	bool found = true;

	if (argc < 2 || argc > 3 || path[0] != '.') {
		fprintf(stderr, "usage: jget .PATH [DEFAULT] <JSON\n");
		return 2;
	}
	p = read_all();
	skip_ws();
	for (const char *c = path + 1; *c && found;) {
		if (*c == '[') {
			char *end;
			long i = strtol(c + 1, &end, 10);

			if (end == c + 1 || *end != ']' || i < 0)
				die("bad index in path");
			found = element(i);
			c = end + 1;
		} else {
			size_t len = strcspn(c, ".[");

			if (!len)
				die("empty name in path");
			found = member(c, len);
			c += len;
		}
		if (*c == '.')
			c++;
	}
	if (found && strncmp(p, "null", 4)) {
		const char *start = p;

		if (*p == '"') {
			print_string();
		} else {
			skip_value();
			fwrite(start, 1, p - start, stdout);
		}
	} else {
		fputs(argc > 2 ? argv[2] : "null", stdout);
	}
	putchar('\n');
	return 0;
}
