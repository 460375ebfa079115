// SPDX-License-Identifier: GPL-2.0
/*
 * bpfqdisc-bandwidth conflist add [DIR | FILE]: the node installer. The
 * runtime (containerd, CRI-O) uses the first config of /etc/cni/net.d in
 * lexical order; the CNI provider (flannel, Calico, kindnet...) wrote it.
 * The edit works on the text, so the provider's formatting, its fields
 * and their order stay as they were.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cni.h"
#include "lib.h"

#define PLUGIN_TYPE	"bpfqdisc-bandwidth"
#define PLUGIN_ENTRY	"{\"type\": \"" PLUGIN_TYPE "\", \"capabilities\": {\"bandwidth\": true}}"
#define CONF_DIR	"/etc/cni/net.d"
#define CONF_MAX	(1 << 20)

/* in with [at, at + cut) replaced by ins. */
static char *splice(const char *in, size_t n, size_t at, size_t cut, const char *ins,
		    size_t *outlen)
{
	size_t len = strlen(ins);
	char *out = malloc(n - cut + len + 1);

	if (!out)
		return NULL;
	memcpy(out, in, at);
	memcpy(out + at, ins, len);
	memcpy(out + at + len, in + at + cut, n - at - cut);
	*outlen = n - cut + len;
	out[*outlen] = '\0';
	return out;
}

int cni_conflist_add(const char *in, size_t n, char **out, size_t *outlen, char *what,
		     size_t whatlen)
{
	struct bq_cj_span doc, plugins, p, type, first = {}, first_type = {}, bw = {};
	char version[16], name[64] = "?", *ins;
	const char *why;
	struct bq_cj_iter it;
	size_t at, sep;

	*out = NULL;
	if (bq_cj_parse(in, n, &doc, &why)) {
		snprintf(what, whatlen, "not JSON: %s", why);
		return -1;
	}
	if (!bq_cj_member(doc, "plugins", &plugins) || bq_cj_type(plugins) != BQ_CJ_ARRAY) {
		snprintf(what, whatlen, "not a conflist (no \"plugins\" array)");
		return -1;
	}
	if (!bq_cj_member(doc, "cniVersion", &p) || bq_cj_string(p, version, sizeof(version)) ||
	    !cni_version_supported(version)) {
		snprintf(what, whatlen, "its cniVersion is not one this plugin speaks (0.3.1 to 1.1.0)");
		return -1;
	}
	bq_cj_iter_init(&it, plugins);
	while (bq_cj_next(&it, NULL, &p)) {
		if (!bq_cj_member(p, "type", &type) || bq_cj_type(type) != BQ_CJ_STRING)
			type = (struct bq_cj_span){};
		if (!first.p)
			first = p, first_type = type;
		if (type.p && bq_cj_string_is(type, PLUGIN_TYPE)) {
			snprintf(what, whatlen, "already there");
			return 0;
		}
		if (type.p && !bw.p && bq_cj_string_is(type, "bandwidth"))
			bw = type;
	}
	if (bw.p) {
		*out = splice(in, n, bw.p - in, bw.n, "\"" PLUGIN_TYPE "\"", outlen);
		snprintf(what, whatlen, "replaced the bandwidth plugin");
		return *out ? 1 : -1;
	}
	if (!first.p) {
		snprintf(what, whatlen, "its plugins list is empty: no main plugin to follow");
		return -1;
	}
	/* After the main plugin, indented as it is. */
	sep = first.p - (plugins.p + 1);
	if (!memchr(plugins.p + 1, '\n', sep))
		sep = 0;
	ins = malloc(sep + sizeof(PLUGIN_ENTRY) + 2);
	if (!ins)
		return -1;
	sprintf(ins, ",%.*s%s", (int)sep, sep ? plugins.p + 1 : "", sep ? PLUGIN_ENTRY : " " PLUGIN_ENTRY);
	at = first.p + first.n - in;
	*out = splice(in, n, at, 0, ins, outlen);
	free(ins);
	if (first_type.p)
		bq_cj_string(first_type, name, sizeof(name));
	snprintf(what, whatlen, "added after %s", name);
	return *out ? 1 : -1;
}

static bool conf_name(const char *s)
{
	const char *dot = strrchr(s, '.');

	return s[0] != '.' && dot &&
	       (!strcmp(dot, ".conflist") || !strcmp(dot, ".conf") || !strcmp(dot, ".json"));
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* The config a runtime would use: the first of dir, by name. */
static int first_conf(const char *dir, char *path, size_t len)
{
	struct dirent **v;
	int n = scandir(dir, &v, NULL, by_name), found = -1;

	if (n < 0) {
		bq_err("cannot read %s: %s", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (found < 0 && conf_name(v[i]->d_name)) {
			snprintf(path, len, "%s/%s", dir, v[i]->d_name);
			found = 0;
		}
		free(v[i]);
	}
	free(v);
	if (found)
		bq_err("no CNI config in %s yet (the CNI provider writes one)", dir);
	return found;
}

static char *read_file(const char *path, size_t *n, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf = malloc(CONF_MAX);
	ssize_t got = -1;

	if (fd >= 0 && buf && !fstat(fd, st))
		got = read(fd, buf, CONF_MAX);
	if (fd >= 0)
		close(fd);
	if (got < 0 || got == CONF_MAX) {
		bq_err("cannot read %s: %s", path, got < 0 ? strerror(errno) : "too big");
		free(buf);
		return NULL;
	}
	*n = got;
	return buf;
}

/* Replaces path's content, keeping its mode; the runtime sees either whole. */
static int write_file(const char *path, const char *buf, size_t n, const struct stat *st)
{
	char tmp[4200];
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0, fd;
	bool ok;

	/* A dot file with no config suffix: the runtime ignores it meanwhile. */
	snprintf(tmp, sizeof(tmp), "%.*s.%s.bpfqdisc-tmp", dirlen, path, path + dirlen);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ok = fd >= 0 && write(fd, buf, n) == (ssize_t)n && !fchmod(fd, st->st_mode & 07777) &&
	     !fchown(fd, st->st_uid, st->st_gid) && !fsync(fd);
	if (fd >= 0)
		ok = !close(fd) && ok;
	if (ok && !rename(tmp, path))
		return 0;
	bq_err("cannot write %s: %s", path, strerror(errno));
	unlink(tmp);
	return -1;
}

int cni_cmd_conflist(int argc, char **argv)
{
	const char *arg = argc > 2 ? argv[2] : CONF_DIR;
	char path[4096], what[128], *in, *out;
	size_t n, outlen;
	struct stat st;
	int r;

	if (argc < 2 || strcmp(argv[1], "add") || argc > 3) {
		bq_err("usage: conflist add [DIR | FILE] (default %s)", CONF_DIR);
		return BQ_EXIT_USAGE;
	}
	if (stat(arg, &st)) {
		bq_err("cannot read %s: %s", arg, strerror(errno));
		return BQ_EXIT_FAIL;
	}
	if (S_ISDIR(st.st_mode) ? first_conf(arg, path, sizeof(path))
				: snprintf(path, sizeof(path), "%s", arg) < 0)
		return BQ_EXIT_FAIL;
	in = read_file(path, &n, &st);
	if (!in)
		return BQ_EXIT_FAIL;
	r = cni_conflist_add(in, n, &out, &outlen, what, sizeof(what));
	free(in);
	if (r < 0) {
		bq_err("%s: %s", path, what);
		return BQ_EXIT_FAIL;
	}
	if (r > 0 && write_file(path, out, outlen, &st)) {
		free(out);
		return BQ_EXIT_FAIL;
	}
	free(out);
	printf("%s: %s\n", path, what);
	return 0;
}
