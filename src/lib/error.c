// SPDX-License-Identifier: GPL-2.0
/*
 * Errors: a failing call returns -errno and leaves its message, one line,
 * for bq_last_error() in the calling thread. The library prints nothing:
 * a front end that wants messages as they come (the CLI prints them as
 * "bpfqdisc: ...") sets a print function, which gets warnings too.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include "lib.h"

static __thread char last[1024];
static __thread bool last_invalid;
static bq_print_fn print_fn;
static const char *stderr_prog;

BQ_API const char *bq_last_error(void)
{
	return last;
}

BQ_API void bq_set_print(bq_print_fn fn)
{
	print_fn = fn;
}

static void to_stderr(enum bq_print_level level, const char *msg)
{
	fprintf(stderr, "%s: %s\n", stderr_prog, msg);
}

void bq_print_to_stderr(const char *prog)
{
	stderr_prog = prog;
	bq_set_print(to_stderr);
}

static void say(enum bq_print_level level, bool invalid, const char *fmt, va_list ap)
{
	char warning[sizeof(last)];
	int saved = errno;
	char *msg = level == BQ_PRINT_ERROR ? last : warning;

	vsnprintf(msg, sizeof(last), fmt, ap);
	if (level == BQ_PRINT_ERROR)
		last_invalid = invalid;
	if (print_fn)
		print_fn(level, msg);
	errno = saved;
}

void bq_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(BQ_PRINT_ERROR, false, fmt, ap);
	va_end(ap);
}

int bq_error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(BQ_PRINT_ERROR, false, fmt, ap);
	va_end(ap);
	return err < 0 ? err : -EIO;
}

int bq_invalid(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(BQ_PRINT_ERROR, true, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void bq_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(BQ_PRINT_WARNING, false, fmt, ap);
	va_end(ap);
}

int bq_exit_code(int err)
{
	if (err >= 0)
		return err;
	return last_invalid ? BQ_EXIT_USAGE : BQ_EXIT_FAIL;
}
