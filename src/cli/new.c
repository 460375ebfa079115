// SPDX-License-Identifier: GPL-2.0
/*
 * bpfqdisc new NAME [--rank]: a starting NAME.bpf.c for a qdisc built
 * outside this tree. It is bpf_fifo's own source (bpf/fifo.bpf.c, embedded
 * at build time as fifo_src.h) renamed, or with --rank bpf_sp's
 * (bpf/sp.bpf.c, sp_src.h: a kind made of a rank function), so the start
 * a newcomer gets is the one the tests run, never a copy that drifts
 * from it.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "fifo_src.h"	/* generated: static const char fifo_src[] */
#include "sp_src.h"	/* generated: static const char sp_src[] */

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

/* Whether c may be part of a C name. */
static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/*
 * Whether the from at hit is the kind's name: not inside a longer word,
 * but for a prefix ending in _ (bpf_fifo) and a suffix starting with one
 * (fifo_sched).
 */
static bool kind_word(const char *src, const char *hit, size_t len)
{
	bool before = hit > src && name_char(hit[-1]) && hit[-1] != '_';
	bool after = name_char(hit[len]) && hit[len] != '_';

	return !before && !after;
}

/*
 * The source src of kind from with every from made name, a note on how to
 * build it after its first line.
 */
static void write_source(FILE *f, const char *name, const char *src, const char *from)
{
	const char *s = src, *hit;
	const char *line1 = strchr(s, '\n') + 1;
	size_t len = strlen(from);

	fwrite(s, 1, line1 - s, f);
	fprintf(f, "/*\n"
		" * Written by `bpfqdisc new %s` from bpf_%s's source, for the bpfqdisc\n"
		" * framework %d.%d. Build it with the installed framework (make install, or\n"
		" * the bpfqdisc-dev package), clang-19 and libbpf's headers:\n"
		" *\tclang-19 -target bpf -O2 -g $(pkg-config --cflags bpfqdisc) -c %s.bpf.c -o %s.bpf.o\n"
		" */\n", name, from, BQ_FRAMEWORK_MAJOR, BQ_FRAMEWORK_MINOR, name, name);
	for (s = line1; (hit = strstr(s, from)); s = hit + len) {
		fwrite(s, 1, hit - s, f);
		fputs(kind_word(src, hit, len) ? name : from, f);
	}
	fputs(s, f);
}

const char new_help[] =
	"  new NAME [--rank]\n"
	"      Write NAME.bpf.c, a commented FIFO with one parameter, to start a qdisc\n"
	"      built against the installed framework (pkg-config bpfqdisc); with\n"
	"      --rank, a scheduler made of a rank function (bpf_sp's strict priority).\n"
	;

int do_new(int argc, char **argv)
{
	char path[64];
	const char *why;
	FILE *f;
	int fd;

	bool rank = argc == 3 && !strcmp(argv[2], "--rank");

	if (argc != 2 && !rank) {
		bq_err("usage: bpfqdisc new NAME [--rank] (writes NAME.bpf.c)");
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
		write_source(f, argv[1], rank ? sp_src : fifo_src, rank ? "sp" : "fifo");
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
