// SPDX-License-Identifier: GPL-2.0
/*
 * bpfqdisc new NAME: a starting NAME.bpf.c for a qdisc built outside this
 * tree. It is bpf_fifo's own source (bpf/fifo.bpf.c, embedded at build
 * time as fifo_src.h) renamed, so the start a newcomer gets is the one the
 * tests run, never a copy that drifts from it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "fifo_src.h"	/* generated: static const char fifo_src[] */

/* Longest NAME whose kind, bpf_NAME, fits Qdisc_ops.id with its NUL. */
#define NEW_NAME_MAX	(BQ_KIND_LEN - 1 - 4)

static const char *bad_name(const char *name)
{
	size_t len = strlen(name);
	const char *param;

	if (!len || len > NEW_NAME_MAX)
		return "expected 1 to 11 characters (the kind bpf_NAME has at most 15)";
	if (name[0] < 'a' || name[0] > 'z' || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != len)
		return "expected a lowercase letter, then lowercase letters, digits or _ (a C name)";
	if (!bq_kind_name_ok(name))
		return "load refuses it (hbm and digits name hbm's pin directories)";
	if (bq_kind_find(name))
		return "a built-in kind has that name";
	if (bq_param_owner(name, &param))
		return "a parameter has that name (bpfqdisc qdisc change would take it for the kind)";
	return NULL;
}

/* The source with every "fifo" made name, a note on how to build it after its first line. */
static void write_source(FILE *f, const char *name)
{
	const char *s = fifo_src, *hit;
	const char *line1 = strchr(s, '\n') + 1;

	fwrite(s, 1, line1 - s, f);
	fprintf(f, "/*\n"
		" * Written by `bpfqdisc new %s` from bpf_fifo's source, for the bpfqdisc\n"
		" * framework %d.%d. Build it with the installed framework (make install, or\n"
		" * the bpfqdisc-dev package), clang-19 and libbpf's headers:\n"
		" *\tclang-19 -target bpf -O2 -g $(pkg-config --cflags bpfqdisc) -c %s.bpf.c -o %s.bpf.o\n"
		" */\n", name, BQ_FRAMEWORK_MAJOR, BQ_FRAMEWORK_MINOR, name, name);
	for (s = line1; (hit = strstr(s, "fifo")); s = hit + 4) {
		fwrite(s, 1, hit - s, f);
		fputs(name, f);
	}
	fputs(s, f);
}

const char new_help[] =
	"  new NAME\n"
	"      Write NAME.bpf.c, a commented FIFO with one parameter, to start a qdisc\n"
	"      built against the installed framework (pkg-config bpfqdisc).\n"
	;

int do_new(int argc, char **argv)
{
	char path[64];
	const char *why;
	FILE *f;
	int fd;

	if (argc != 2) {
		bq_err("usage: bpfqdisc new NAME (writes NAME.bpf.c)");
		return BQ_EXIT_USAGE;
	}
	why = bad_name(argv[1]);
	if (why) {
		bq_err("bad qdisc name '%s': %s", argv[1], why);
		return BQ_EXIT_USAGE;
	}
	snprintf(path, sizeof(path), "%s.bpf.c", argv[1]);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		bq_err("cannot create %s: %s", path, strerror(errno));
		return BQ_EXIT_FAIL;
	}
	f = fdopen(fd, "w");
	if (f)
		write_source(f, argv[1]);
	if (!f || fclose(f)) {
		bq_err("cannot write %s: %s", path, strerror(errno));
		if (!f)
			close(fd);
		unlink(path);
		return BQ_EXIT_FAIL;
	}
	printf("wrote %s: build it with\n"
	       "  clang-19 -target bpf -O2 -g $(pkg-config --cflags bpfqdisc) -c %s -o %s.bpf.o\n",
	       path, path, argv[1]);
	return 0;
}
