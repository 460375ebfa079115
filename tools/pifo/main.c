// SPDX-License-Identifier: GPL-2.0
/*
 * pifo-oracle: the departure order of an exact PIFO for a trace, or the
 * inversions of a queue's departures against it (oracle.h).
 *
 *   pifo-oracle [--shift S] [--order O] [--check DEPARTURES] < TRACE
 *
 * TRACE: a line an event, "push RANK" or "pop"; a packet's id is its
 * push's number, from 0. Without --check: the id of each packet popped, a
 * line each, then "clamped N". With --check, a file of ids in the order a
 * queue gave them: "inversions N clamped N"; exit 1 with any inversion or
 * an impossible order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "oracle.h"

static void usage(void)
{
	fprintf(stderr, "usage: pifo-oracle [--shift S] [--order O] [--check DEPARTURES] < TRACE\n");
	exit(2);
}

static struct pifo_ev *read_trace(FILE *f, size_t *n)
{
	struct pifo_ev *ev = NULL;
	size_t cap = 0;
	char line[128];
	unsigned long long rank;

	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		if (*n == cap && !(ev = realloc(ev, (cap = cap * 2 + 1024) * sizeof(*ev))))
			exit(2);
		if (!strncmp(line, "pop", 3))
			ev[(*n)++] = (struct pifo_ev){ .pop = true };
		else if (sscanf(line, "push %llu", &rank) == 1)
			ev[(*n)++] = (struct pifo_ev){ .rank = rank };
		else if (line[0] != '#' && line[0] != '\n')
			fprintf(stderr, "pifo-oracle: not an event: %s", line), exit(2);
	}
	return ev;
}

static uint32_t *read_ids(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	uint32_t *ids = NULL;
	size_t cap = 0;
	unsigned long id;

	if (!f)
		perror(path), exit(2);
	*n = 0;
	while (fscanf(f, "%lu", &id) == 1) {
		if (*n == cap && !(ids = realloc(ids, (cap = cap * 2 + 1024) * sizeof(*ids))))
			exit(2);
		ids[(*n)++] = id;
	}
	fclose(f);
	return ids;
}

int main(int argc, char **argv)
{
	struct pifo_window w = { 0, 18 };
	const char *check = NULL;
	struct pifo_ev *ev;
	uint64_t clamped;
	size_t n;

	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--shift"))
			w.shift = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--order"))
			w.order = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--check"))
			check = argv[++i];
		else
			usage();
	}
	if (w.shift > 63 || w.order > 32)
		usage();
	ev = read_trace(stdin, &n);
	if (check) {
		size_t ndep;
		uint32_t *dep = read_ids(check, &ndep);
		long inv = pifo_inversions(ev, n, w, dep, ndep, &clamped);

		if (inv < 0) {
			printf("not a possible departure order\n");
			return 1;
		}
		printf("inversions %ld clamped %llu\n", inv, (unsigned long long)clamped);
		return inv > 0;
	}
	uint32_t *out = calloc(n + 1, sizeof(*out));
	size_t nout = pifo_replay(ev, n, w, out, &clamped);

	for (size_t i = 0; i < nout; i++)
		printf("%u\n", out[i]);
	printf("clamped %llu\n", (unsigned long long)clamped);
	return 0;
}
