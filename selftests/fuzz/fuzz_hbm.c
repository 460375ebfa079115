// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the option parser of the hbm tool (src/hbm/hbm.c's
 * parse_opts: getopt_long over -d -l -n -o -r -s -t -w -j -h, --edt,
 * --no_cn, --keep, --remove, --nic, --nic-rate, --netns, the program
 * argument, and the checks between options). The input, split into words
 * at NUL bytes, is the argument list after "hbm". parse_opts is static, so
 * the tool's sources are compiled in, its main renamed; -h prints the help
 * and exits, which here returns to the harness instead.
 */
#define _GNU_SOURCE	/* as the tool's sources, which are included after libc's headers */
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>

static jmp_buf help_exit;

static void __attribute__((noreturn)) fuzz_exit(int code)
{
	longjmp(help_exit, 1);
}

#define exit(code) fuzz_exit(code)
#define main hbm_main
#include "../../src/hbm/hbm.c"
#undef main
#undef exit
#include "../../src/hbm/nic.c"
#include "../../src/hbm/stats.c"
#include "fuzz_words.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *argv[66] = { "hbm" };
	struct opts o;
	int argc = 1;

	text = fuzz_words(data, size, argv, &argc, 65);
	if (!text)
		return 0;
	argv[argc] = NULL;
	optind = 0;	/* glibc: start a new scan */
	if (!setjmp(help_exit))
		parse_opts(argc, argv, &o);
	free(text);
	return 0;
}
