// SPDX-License-Identifier: GPL-2.0
/*
 * bq_mustfail OBJ: loads and registers each case of selftests/bpf/
 * mustfail.bpf.c alone (its struct_ops and the programs it names) and
 * checks the kernel's answer: "ok" must register; every other case must be
 * refused, with the verifier's reason in its log where the verifier is the
 * one to refuse. A case tied to a kernel patch (tools/kernel-patches/) is
 * refused only by a kernel that has it, as its BTF tells, and must register
 * on one without. One line per case; exit 1 if any answer was wrong.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

enum mf_step { MF_NONE, MF_LOAD, MF_REGISTER };
static const char *const step_names[] = { "registered", "refused at load", "refused at registration" };

/* What a kernel patch changes, seen in the kernel's BTF. */
enum mf_patch { MF_ANY, MF_NULLABLE_OPT, MF_BYPASS, MF_NPATCHES };
static const char *const patch_names[] = { "", "opt__nullable", "bpf_qdisc_set_can_bypass" };

struct mf_case {
	const char *name;
	enum mf_step refused_at;
	const char *why;	/* in the verifier log, for MF_LOAD */
	const char *progs[3];	/* its own programs, besides the ok_* ones */
	enum mf_patch patch;	/* refused only where the kernel has it */
};

static const struct mf_case cases[] = {
	{ "ok", MF_NONE, NULL, { NULL }, MF_ANY },
	{ "leak", MF_LOAD, "Unreleased reference", { "leak_enqueue" }, MF_ANY },
	{ "bstats", MF_LOAD, "calling kernel function bpf_qdisc_bstats_update is not allowed",
	  { "bstats_enqueue" }, MF_ANY },
	{ "drop", MF_LOAD, "calling kernel function bpf_qdisc_skb_drop is not allowed", { "drop_dequeue" }, MF_ANY },
	{ "handle", MF_LOAD, "no write support", { "handle_init" }, MF_ANY },
	{ "noinit", MF_REGISTER, NULL, { NULL }, MF_ANY },
	{ "nullopt", MF_LOAD, "invalid mem access 'trusted_ptr_or_null_'", { "nullopt_init" },
	  MF_NULLABLE_OPT },
	{ "optcheck", MF_NONE, NULL, { "optcheck_init" }, MF_ANY },
	{ "bypenq", MF_LOAD, "calling kernel function bpf_qdisc_set_can_bypass is not allowed",
	  { "bypass_enqueue" }, MF_BYPASS },
	{ "bypini", MF_NONE, NULL, { "bypass_init" }, MF_ANY },
};

/* Whether the kernel's .init stub (the cfi stub Qdisc_ops__init) calls opt nullable. */
static bool has_nullable_opt(const struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, "Qdisc_ops__init", BTF_KIND_FUNC);
	const struct btf_type *proto = id > 0 ? btf__type_by_id(btf, btf__type_by_id(btf, id)->type) : NULL;
	const char *name;

	if (!proto || btf_vlen(proto) < 2)
		return false;
	name = btf__name_by_offset(btf, btf_params(proto)[1].name_off);
	return name && strstr(name, "__nullable");
}

/* The patches this kernel has; exits if its BTF cannot be read. */
static void find_patches(bool has[MF_NPATCHES])
{
	struct btf *btf = btf__load_vmlinux_btf();

	if (!btf) {
		fprintf(stderr, "bq_mustfail: cannot read the kernel's BTF: %s\n", strerror(errno));
		exit(2);
	}
	has[MF_ANY] = true;
	has[MF_NULLABLE_OPT] = has_nullable_opt(btf);
	has[MF_BYPASS] = btf__find_by_name_kind(btf, "bpf_qdisc_set_can_bypass", BTF_KIND_FUNC) > 0;
	btf__free(btf);
}

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
	bool has[MF_NPATCHES];
	int wrong = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: bq_mustfail OBJ\n");
		return 2;
	}
	libbpf_set_print(silent);
	find_patches(has);
	for (int i = MF_ANY + 1; i < MF_NPATCHES; i++)
		printf("kernel: %s %s\n", has[i] ? "has" : "lacks", patch_names[i]);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct mf_case *c = &cases[i];
		int err = 0;
		enum mf_step step = try_case(argv[1], c, &err);
		enum mf_step expected = has[c->patch] ? c->refused_at : MF_NONE;
		const char *why = expected == MF_NONE ? NULL : c->why;
		bool said = !why || strstr(log_buf, why);
		bool right = step == expected && said;

		printf("%s %s: %s%s%s%s\n", right ? "ok" : "WRONG", c->name, step_names[step],
		       err ? ": " : "", err ? strerror(-err) : "",
		       why ? (said ? ", the log names why" : ", the log does not say why") : "");
		if (!right && *log_buf)
			fprintf(stderr, "%s: verifier log:\n%s\n", c->name, log_buf);
		wrong += !right;
	}
	return wrong ? 1 : 0;
}
