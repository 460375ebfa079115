// SPDX-License-Identifier: GPL-2.0
/*
 * bq_mustfail OBJ: loads and registers each case of selftests/bpf/
 * mustfail.bpf.c alone (its struct_ops and the programs it names) and
 * checks the kernel's answer: "ok" must register; every other case must be
 * refused, with the verifier's reason in its log where the verifier is the
 * one to refuse. One line per case; exit 1 if any answer was wrong.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

enum mf_step { MF_NONE, MF_LOAD, MF_REGISTER };
static const char *const step_names[] = { "registered", "refused at load", "refused at registration" };

struct mf_case {
	const char *name;
	enum mf_step refused_at;
	const char *why;	/* in the verifier log, for MF_LOAD */
	const char *progs[3];	/* its own programs, besides the ok_* ones */
};

static const struct mf_case cases[] = {
	{ "ok", MF_NONE, NULL, { NULL } },
	{ "leak", MF_LOAD, "Unreleased reference", { "leak_enqueue" } },
	{ "bstats", MF_LOAD, "calling kernel function bpf_qdisc_bstats_update is not allowed",
	  { "bstats_enqueue" } },
	{ "drop", MF_LOAD, "calling kernel function bpf_qdisc_skb_drop is not allowed", { "drop_dequeue" } },
	{ "handle", MF_LOAD, "no write support", { "handle_init" } },
	{ "noinit", MF_REGISTER, NULL, { NULL } },
};

static char log_buf[1 << 20];

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

static bool wanted(const struct mf_case *c, const char *prog)
{
	if (!strncmp(prog, "ok_", 3))
		return true;
	for (int i = 0; c->progs[i]; i++)
		if (!strcmp(prog, c->progs[i]))
			return true;
	return false;
}

/* The step that refused c (MF_NONE: none did), its error in *err. */
static enum mf_step try_case(const char *path, const struct mf_case *c, int *err)
{
	LIBBPF_OPTS(bpf_object_open_opts, o, .kernel_log_buf = log_buf,
		    .kernel_log_size = sizeof(log_buf), .kernel_log_level = 1);
	struct bpf_object *obj = bpf_object__open_file(path, &o);
	struct bpf_program *p;
	struct bpf_link *link = NULL;
	struct bpf_map *m;
	enum mf_step step = MF_LOAD;

	log_buf[0] = '\0';
	if (!obj) {
		*err = -errno;
		return MF_LOAD;
	}
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, wanted(c, bpf_program__name(p)));
	bpf_object__for_each_map(m, obj)
		if (bpf_map__type(m) == BPF_MAP_TYPE_STRUCT_OPS)
			bpf_map__set_autocreate(m, !strcmp(bpf_map__name(m), c->name));
	*err = bpf_object__load(obj);
	if (!*err) {
		step = MF_REGISTER;
		link = bpf_map__attach_struct_ops(bpf_object__find_map_by_name(obj, c->name));
		*err = link ? 0 : -errno;
	}
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return *err ? step : MF_NONE;
}

int main(int argc, char **argv)
{
	int wrong = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: bq_mustfail OBJ\n");
		return 2;
	}
	libbpf_set_print(silent);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct mf_case *c = &cases[i];
		int err = 0;
		enum mf_step step = try_case(argv[1], c, &err);
		bool said = !c->why || strstr(log_buf, c->why);
		bool right = step == c->refused_at && said;

		printf("%s %s: %s%s%s%s\n", right ? "ok" : "WRONG", c->name, step_names[step],
		       err ? ": " : "", err ? strerror(-err) : "",
		       c->why ? (said ? ", the log names why" : ", the log does not say why") : "");
		if (!right && *log_buf)
			fprintf(stderr, "%s: verifier log:\n%s\n", c->name, log_buf);
		wrong += !right;
	}
	return wrong ? 1 : 0;
}
