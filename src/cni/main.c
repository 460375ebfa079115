// SPDX-License-Identifier: GPL-2.0
/*
 * bpfqdisc-bandwidth: a chained CNI plugin (SPEC.md 1.1.0) that holds a pod
 * to the reference bandwidth plugin's limits with bpfqdisc's qdiscs.
 *
 * A runtime runs it with CNI_COMMAND and the other CNI_* variables in the
 * environment and the network config on stdin; it answers on stdout, a
 * result or an error JSON. With arguments it is a tool for the node
 * (conflist.c, pods.c, and load). A failing library call's message, its
 * last error, goes into the error JSON (libcni reads stdout only), and on
 * stderr as it comes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cni.h"
#include "enforce.h"
#include "lib.h"

#define STDIN_MAX	(1 << 20)

struct cni_env {
	const char *command, *container_id, *netns, *ifname;
	const char *args;	/* CNI_ARGS: "K=V;K=V", or NULL */
};

int cni_cmd_conflist(int argc, char **argv);
int cni_cmd_pods(int argc, char **argv);

static int read_stdin(char **buf, size_t *n, struct cni_err *e)
{
	size_t cap = 4096;

	*n = 0;
	*buf = malloc(cap);
	for (;;) {
		ssize_t got;

		if (!*buf)
			return cni_fail(e, CNI_ERR_IO, "cannot read the network config", "out of memory");
		got = read(0, *buf + *n, cap - *n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return cni_fail(e, CNI_ERR_IO, "cannot read the network config", "%s",
					strerror(errno));
		if (!got)
			return 0;
		*n += got;
		if (*n == cap) {
			if (cap >= STDIN_MAX)
				return cni_fail(e, CNI_ERR_IO, "cannot read the network config",
						"more than %d bytes", STDIN_MAX);
			*buf = realloc(*buf, cap *= 2);
		}
	}
}

/* SPEC.md: a container id is [A-Za-z0-9][A-Za-z0-9_.-]*; an interface
 * name what Linux takes. Neither holds a ':', which the records use. */
static bool container_id_ok(const char *s)
{
	return strlen(s) <= 200 && cni_id_valid(s);
}

/* Go's unicode.IsSpace of the UTF-8 character s of n bytes. */
static bool unicode_space(const unsigned char *s, size_t n)
{
	uint32_t cp = n == 1 ? s[0] : s[0] & (0x3f >> (n - 1));

	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return (cp >= '\t' && cp <= '\r') || cp == ' ' || cp == 0x85 || cp == 0xa0 ||
	       cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
	       cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

/* The reference's rule (libcni's ValidateInterfaceName): NULL, or why not.
 * A byte that is not UTF-8 is no space there, so it passes. */
static const char *ifname_invalid(const char *s)
{
	size_t len = strlen(s);

	if (!len || len >= IF_NAMESIZE)
		return "empty, or longer than 15 bytes";
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return ". or ..";
	while (*s) {
		size_t n = bq_utf8_len(s);

		if (*s == '/' || *s == ':' || (n && unicode_space((const void *)s, n)))
			return "contains / or : or whitespace characters";
		s += n ?: 1;
	}
	return NULL;
}

/* The variables cmd needs (SPEC.md, "Parameters"). */
static int read_env(struct cni_env *env, struct cni_err *e)
{
	bool att = strcmp(env->command, "GC") && strcmp(env->command, "STATUS");
	bool ns = att && strcmp(env->command, "DEL");
	const char *why;

	env->container_id = getenv("CNI_CONTAINERID");
	env->netns = getenv("CNI_NETNS");
	env->ifname = getenv("CNI_IFNAME");
	env->args = getenv("CNI_ARGS");
	if (att && (!env->container_id || !container_id_ok(env->container_id)))
		return cni_fail(e, CNI_ERR_ENV, "invalid CNI_CONTAINERID",
				"'%s': [A-Za-z0-9][A-Za-z0-9_.-]*, at most 200", env->container_id ?: "");
	if (att && (!env->ifname || (why = ifname_invalid(env->ifname))))
		return cni_fail(e, CNI_ERR_ENV, "invalid CNI_IFNAME", "'%s': %s", env->ifname ?: "",
				env->ifname ? why : "not set");
	if (ns && (!env->netns || !env->netns[0]))
		return cni_fail(e, CNI_ERR_ENV, "required env variables [CNI_NETNS] missing", "%s",
				"");
	return 0;
}

/* The pod's host-side veth, as the reference finds it: the peer of the
 * pod's interface, which prevResult must list outside the sandbox. */
static int find_link(const struct cni_conf *c, const struct cni_env *env, struct pod_link *l,
		     struct cni_err *e)
{
	int back, peer = 0, err;

	memset(l, 0, sizeof(*l));
	l->netns = env->netns;
	l->ifname = env->ifname;
	if (bq_netns_enter_path(env->netns, &back))
		return cni_fail_lib(e, CNI_ERR_LIMIT, "failed to open netns");
	err = bq_nl_link_peer(env->ifname, &peer);
	cni_netns_leave(back);
	if (err)
		return cni_fail_lib(e, CNI_ERR_LIMIT, "container interface has no veth peer");
	if (!if_indextoname(peer, l->host_ifname))
		return cni_fail(e, CNI_ERR_LIMIT, "veth peer is not in the host netns",
				"ifindex %d", peer);
	l->host_ifindex = peer;
	if (!cni_result_host_ifname(c->prev, l->host_ifname))
		return cni_fail(e, CNI_ERR_LIMIT, "no veth peer of container interface found in host ns",
				"%s's peer is %s, which prevResult does not list outside the sandbox",
				env->ifname, l->host_ifname);
	return 0;
}

/* The value of key in CNI_ARGS (SPEC.md: "K1=V1;K2=V2"), into buf ("" if
 * absent): kubelet's K8S_POD_NAMESPACE and K8S_POD_NAME, for the record. */
static void cni_arg(const char *args, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);

	buf[0] = 0;
	while (args && *args) {
		size_t n = strcspn(args, ";");

		if (n > klen && !strncmp(args, key, klen) && args[klen] == '=')
			snprintf(buf, len, "%.*s", (int)(n - klen - 1), args + klen + 1);
		args += n + (args[n] == ';');
	}
}

static void print_prev(const struct cni_conf *c)
{
	if (c->prev.p)
		printf("%.*s\n", (int)c->prev.n, c->prev.p);
	else
		printf("{\"cniVersion\":\"%s\"}\n", c->version);
}

static int cmd_add(const struct cni_conf *c, const struct cni_env *env, struct cni_err *e)
{
	struct bq_pod_record *r;
	struct cni_subnets s;
	struct pod_link l;
	int err;

	if (cni_prev_valid(c, e))
		return -1;
	if (!cni_limits_any(&c->lim)) {
		print_prev(c);
		return 0;
	}
	if (cni_subnets_parse(c, &s, e) || pod_limit_enforceable(&c->lim, e))
		return -1;
	if (!c->prev.p)
		return cni_fail(e, CNI_ERR_CONFIG, "must be called as chained plugin",
				"limits and no prevResult");
	if (find_link(c, env, &l, e))
		return -1;
	r = calloc(1, sizeof(*r));
	if (!r)
		return cni_fail(e, CNI_ERR_IO, "out of memory", "%s", "");
	snprintf(r->network, sizeof(r->network), "%s", c->name);
	snprintf(r->container_id, sizeof(r->container_id), "%s", env->container_id);
	snprintf(r->ifname, sizeof(r->ifname), "%s", env->ifname);
	snprintf(r->netns, sizeof(r->netns), "%s", env->netns);
	cni_arg(env->args, "K8S_POD_NAMESPACE", r->pod_namespace, sizeof(r->pod_namespace));
	cni_arg(env->args, "K8S_POD_NAME", r->pod_name, sizeof(r->pod_name));
	err = pod_limit_apply(&l, &c->lim, &s, &r->p, e);
	if (!err && bq_pod_record_save(r)) {
		struct cni_err ignored;

		cni_fail_lib(e, CNI_ERR_IO, "cannot keep the plugin's state");

		pod_limit_remove(&r->p, env->netns, &ignored);
		err = -1;
	}
	free(r);
	if (!err)
		print_prev(c);
	return err;
}

static int cmd_check(const struct cni_conf *c, const struct cni_env *env, struct cni_err *e)
{
	struct cni_subnets s;
	struct pod_link l;

	if (cni_prev_valid(c, e))
		return -1;
	if (!cni_limits_any(&c->lim))
		return 0;
	if (cni_subnets_parse(c, &s, e) || pod_limit_enforceable(&c->lim, e))
		return -1;
	if (!c->prev.p)
		return cni_fail(e, CNI_ERR_CONFIG, "must be called as chained plugin",
				"limits and no prevResult");
	return find_link(c, env, &l, e) ?: pod_limit_check(&l, &c->lim, &s, e);
}

/* What the record of an attachment says was made; the record goes once it is gone. */
static int remove_record(struct bq_pod_record *r, const char *netns, struct cni_err *e)
{
	if (pod_limit_remove(&r->p, netns && netns[0] ? netns : r->netns, e))
		return -1;
	bq_pod_record_drop(r);
	return 0;
}

static int cmd_del(const struct cni_env *env, struct cni_err *e)
{
	struct bq_pod_record *r = malloc(sizeof(*r));
	int err = 0;

	if (!r)
		return cni_fail(e, CNI_ERR_IO, "out of memory", "%s", "");
	if (!bq_pod_record_load(env->container_id, env->ifname, r))
		err = remove_record(r, env->netns, e);
	free(r);
	return err;
}

struct gc_ctx {
	const struct cni_conf *c;
	struct cni_err *e;
	int failed;
};

/* s as a runtime's JSON has it: Go's encoder makes each byte that is not
 * UTF-8 a U+FFFD. buf holds 3 bytes a byte of s. */
static const char *as_json_has(const char *s, char *buf)
{
	char *at = buf;

	for (size_t n; *s; s += n ?: 1) {
		n = bq_utf8_len(s);
		memcpy(at, n ? s : "\xef\xbf\xbd", n ?: 3);
		at += n ?: 3;
	}
	*at = 0;
	return buf;
}

static bool attachment_valid(const struct cni_conf *c, const struct bq_pod_record *r)
{
	char ifname[3 * sizeof(r->ifname)];
	struct bq_cj_span a, v;
	struct bq_cj_iter it;

	as_json_has(r->ifname, ifname);
	bq_cj_iter_init(&it, c->attachments);
	while (bq_cj_next(&it, NULL, &a))
		if (cni_member(a, "containerID", true, &v) && bq_cj_string_is(v, r->container_id) &&
		    cni_member(a, "ifname", true, &v) && bq_cj_string_is(v, ifname))
			return true;
	return false;
}

static int gc_one(struct bq_pod_record *r, void *arg)
{
	struct gc_ctx *g = arg;

	/* Other networks' attachments are theirs to collect. */
	if (strcmp(r->network, g->c->name) || attachment_valid(g->c, r))
		return 0;
	g->failed |= remove_record(r, NULL, g->e) != 0;
	return 0;	/* the others still go */
}

static int cmd_gc(const struct cni_conf *c, struct cni_err *e)
{
	struct gc_ctx g = { c, e, 0 };

	if (!c->attachments.p)
		return cni_fail(e, CNI_ERR_CONFIG, "invalid network config",
				"GC without cni.dev/valid-attachments");
	bq_pod_records_each(gc_one, &g);
	return g.failed ? -1 : 0;
}

static void print_version(const char *version)
{
	printf("{\"cniVersion\":\"%s\",\"supportedVersions\":[", version);
	for (size_t i = 0; cni_versions[i]; i++)
		printf("%s\"%s\"", i ? "," : "", cni_versions[i]);
	printf("]}\n");
}

/* VERSION answers whatever the config: its cniVersion if this plugin speaks it. */
static void cmd_version(const char *buf, size_t n)
{
	struct bq_cj_span doc, v;
	char version[16];
	const char *why;

	if (bq_cj_parse(buf, n, &doc, &why) || !cni_member(doc, "cniVersion", true, &v) ||
	    bq_cj_string(v, version, sizeof(version)) || !cni_version_supported(version))
		snprintf(version, sizeof(version), "1.1.0");
	print_version(version);
}

/* Commands a config's version allows, as libcni's skel says. */
static int version_allows(const struct cni_conf *c, const char *cmd, struct cni_err *e)
{
	const char *since = !strcmp(cmd, "CHECK") ? "0.4.0" :
			    !strcmp(cmd, "GC") || !strcmp(cmd, "STATUS") ? "1.1.0" : "0.0.0";

	if (cni_version_cmp(c->version, since) < 0)
		return cni_fail(e, CNI_ERR_VERSION, "config version does not allow the command",
				"%s needs cniVersion %s or later, the config has %s", cmd, since,
				c->version);
	return 0;
}

static int run(const char *cmd, const char *buf, size_t n, struct cni_conf *c, struct cni_err *e)
{
	struct cni_env env = { .command = cmd };

	if (cni_conf_parse(buf, n, c, e) || version_allows(c, cmd, e) || read_env(&env, e))
		return -1;
	if (!strcmp(cmd, "ADD"))
		return cmd_add(c, &env, e);
	if (!strcmp(cmd, "DEL"))
		return cmd_del(&env, e);
	if (!strcmp(cmd, "CHECK"))
		return cmd_check(c, &env, e);
	if (!strcmp(cmd, "GC"))
		return cmd_gc(c, e);
	if (!strcmp(cmd, "STATUS"))
		return pod_limit_ready(e);
	return cni_fail(e, CNI_ERR_ENV, "unknown CNI_COMMAND", "'%s'", cmd);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: bpfqdisc-bandwidth          a CNI plugin: CNI_COMMAND in the environment,\n"
		"                                   the network config on stdin (SPEC.md 1.1.0)\n"
		"       bpfqdisc-bandwidth conflist add [DIR | FILE]\n"
		"                                   put the plugin in the node's conflist\n"
		"                                   (default: the first of /etc/cni/net.d)\n"
		"       bpfqdisc-bandwidth load     load the qdisc kinds pods need, if not loaded\n"
		"       bpfqdisc-bandwidth pods [--prometheus]\n"
		"                                   the pod each of its qdiscs is for\n"
		"       bpfqdisc-bandwidth --version\n");
}

static int tool(int argc, char **argv)
{
	struct cni_err e = {};

	if (!strcmp(argv[1], "conflist"))
		return cni_cmd_conflist(argc - 1, argv + 1);
	if (!strcmp(argv[1], "pods"))
		return cni_cmd_pods(argc - 1, argv + 1);
	if (!strcmp(argv[1], "load")) {
		if (!pod_limit_ready(&e))
			return 0;
		fprintf(stderr, "bpfqdisc-bandwidth: %s: %s\n", e.msg, e.details);
		return BQ_EXIT_FAIL;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("bpfqdisc-bandwidth %s, CNI protocol versions %s\n", BQ_VERSION,
		       cni_versions_text());
		return 0;
	}
	usage(strcmp(argv[1], "--help") && strcmp(argv[1], "-h") ? stderr : stdout);
	return strcmp(argv[1], "--help") && strcmp(argv[1], "-h") ? BQ_EXIT_USAGE : 0;
}

int main(int argc, char **argv)
{
	const char *cmd = getenv("CNI_COMMAND");
	struct cni_err e = {};
	struct cni_conf c = {};
	size_t n;
	char *buf;
	int err;

	bq_print_to_stderr("bpfqdisc-bandwidth");
	bq_quiet_libbpf();
	if (argc > 1)
		return tool(argc, argv);
	if (!cmd || !cmd[0]) {
		usage(stderr);
		return BQ_EXIT_USAGE;
	}
	err = read_stdin(&buf, &n, &e);
	if (!err && !strcmp(cmd, "VERSION")) {
		cmd_version(buf, n);
		free(buf);
		return 0;
	}
	if (!err)
		err = run(cmd, buf, n, &c, &e);
	if (err)
		cni_err_print(stdout, c.version, &e);
	fflush(stdout);
	free(buf);
	return err ? BQ_EXIT_FAIL : 0;
}
