// SPDX-License-Identifier: GPL-2.0
/*
 * The CLI's print layer (src/cli/print.c, linked in): the same calls
 * write text or JSON, each field in the one its where allows, names from
 * users escaped for each, and JSON nested and comma-separated right.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../src/cli/cli.h"
#include "unit.h"

static char *out;
static FILE *saved;

static void capture(void)
{
	static size_t len;

	fflush(stdout);
	saved = stdout;
	free(out);
	stdout = open_memstream(&out, &len);
}

static const char *captured(void)
{
	fclose(stdout);
	stdout = saved;
	return out;
}

/* A document of two rows, as stats and class show write theirs. */
static const char *document(bool as_json)
{
	static const char *const names[] = { "va", "d\"\\\001}" };

	capture();
	print_set_json(as_json);
	open_json_array(NULL);
	for (int i = 0; i < 2; i++) {
		open_json_object(NULL);
		print_string(PRINT_ANY, "dev", "dev %s", names[i]);
		print_uint(PRINT_JSON, "ifindex", NULL, 3 + i);
		print_uint(PRINT_TEXT, NULL, " #%llu", 7);
		open_json_object("options");
		print_value(" %s %s", "rate", BQ_UNIT_RATE, 125000 * i, "unlimited");
		print_named_uint(" %s %llu", "limit", 10);
		close_json_object();
		print_bool(PRINT_ANY, "class", " (default)", "", i);
		print_string(PRINT_TEXT, NULL, " end", NULL);
		print_nl();
		close_json_object();
	}
	close_json_array();
	print_set_json(false);
	return captured();
}

static void text_and_json(void)
{
	const char *got = document(false);

	EXPECT(!strcmp(got, "dev va #7 rate unlimited limit 10 (default) end\n"
			    "dev d\"\\134\\001} #7 rate 1Mbit limit 10 end\n"), "text: %s", got);
	got = document(true);
	EXPECT(!strcmp(got, "[{\"dev\":\"va\",\"ifindex\":3,\"options\":{\"rate\":0,\"limit\":10},"
			    "\"class\":false},{\"dev\":\"d\\\"\\\\\\u0001}\",\"ifindex\":4,"
			    "\"options\":{\"rate\":125000,\"limit\":10},\"class\":true}]\n"), "JSON: %s", got);
}

/* --interval writes a document a report: the next starts without a comma. */
static void documents_apart(void)
{
	char first[512];
	const char *got;

	snprintf(first, sizeof(first), "%s", document(true));
	got = document(true);
	EXPECT(!strcmp(first, got), "second document: %s, first: %s", got, first);
	capture();
	print_set_json(true);
	open_json_array(NULL);
	close_json_array();
	print_set_json(false);
	got = captured();
	EXPECT(!strcmp(got, "[]\n"), "empty: %s", got);
}

int main(void)
{
	unit_file = "print";
	RUN(text_and_json);
	RUN(documents_apart);
	return unit_failed;
}
