/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal unit test harness: each TEST() prints one PASS or FAIL line, and
 * main() returns non-zero if any failed. selftests/run counts the lines.
 */
#ifndef BQ_UNIT_H
#define BQ_UNIT_H
#include <stdio.h>

static int unit_failed, unit_current_failed;
static const char *unit_file;

#define EXPECT(cond, fmt, ...) do {						\
	if (!(cond)) {								\
		printf("  %s:%d: %s: " fmt "\n", __FILE__, __LINE__, #cond, ##__VA_ARGS__); \
		unit_current_failed = 1;					\
	}									\
} while (0)

#define RUN(fn) do {								\
	unit_current_failed = 0;						\
	fn();									\
	printf("%s %s/%s\n", unit_current_failed ? "FAIL" : "PASS", unit_file, #fn); \
	unit_failed |= unit_current_failed;					\
} while (0)

#endif
