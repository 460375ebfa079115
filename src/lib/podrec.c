// SPDX-License-Identifier: GPL-2.0
/*
 * The records of bpfqdisc-bandwidth, the CNI plugin: what it created per
 * attachment (lib.h, "pods"). Written by the plugin; read by it and by
 * bpfqdisc stats.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "lib.h"

#define RECORD_MAX	65536
/* A record file's name: <containerID>:<ifname>. */
#define NAME_LEN	sizeof(((struct bq_pod_record *)0)->file)

/* A record's file's name in BQ_POD_STATE_DIR. */
static void record_name(char *buf, size_t len, const char *cid, const char *ifname)
{
	snprintf(buf, len, "%s:%s", cid, ifname);
}

static void state_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", BQ_POD_STATE_DIR, name);
}

/* A writer's temporary file for the record name: a name starting with '.'
 * is no record's (a container id starts with [A-Za-z0-9]), whatever the
 * interface's name; the pid in it keeps two writers of one attachment (an
 * ADD repeated while the first runs) out of each other's file. */
static void tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/.%d.%s", BQ_POD_STATE_DIR, (int)getpid(), name);
}

static int make_dirs(void)
{
	if (mkdir("/run/bpfqdisc", 0755) && errno != EEXIST)
		return -errno;
	if (mkdir(BQ_POD_STATE_DIR, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

static bool utf8_valid(const char *s)
{
	for (size_t n; *s; s += n)
		if (!(n = bq_utf8_len(s)))
			return false;
	return true;
}

/*
 * s as a JSON string; or, if it is not UTF-8, which JSON cannot hold, as
 * {"hex":"..."}: a runtime's names (interface, netns, pod) are any bytes,
 * and DEL and GC need them back as they were.
 */
static void write_str(FILE *f, const char *s)
{
	if (utf8_valid(s)) {
		bq_json_str(f, s);
		return;
	}
	fputs("{\"hex\":\"", f);
	for (; *s; s++)
		fprintf(f, "%02x", (unsigned char)*s);
	fputs("\"}", f);
}

static void write_record(FILE *f, const struct bq_pod_record *r)
{
	const char *str[][2] = {
		{ "network", r->network }, { "containerID", r->container_id },
		{ "ifname", r->ifname }, { "netns", r->netns },
		{ "podNamespace", r->pod_namespace }, { "podName", r->pod_name },
	};

	for (size_t i = 0; i < sizeof(str) / sizeof(str[0]); i++) {
		fprintf(f, "%s\"%s\":", i ? "," : "{", str[i][0]);
		write_str(f, str[i][1]);
	}
	fputs(",\"qdiscs\":[", f);
	for (int i = 0; i < r->p.n; i++) {
		const struct bq_pod_qdisc *q = &r->p.q[i];

		fprintf(f, "%s{\"role\":", i ? "," : "");
		bq_json_str(f, q->role);
		fprintf(f, ",\"inPod\":%s,\"netnsCookie\":%llu,\"ifindex\":%d,\"dev\":",
			q->in_pod ? "true" : "false", (unsigned long long)q->netns_cookie, q->ifindex);
		write_str(f, q->dev);
		fputs(",\"kind\":", f);
		write_str(f, q->kind);
		fputc('}', f);
	}
	fputs("]}\n", f);
}

int bq_pod_record_save(const struct bq_pod_record *r)
{
	char name[NAME_LEN], path[PATH_MAX], tmp[PATH_MAX];
	int err = make_dirs(), fd;
	FILE *f;

	if (err)
		return bq_error(err, "%s: %s", BQ_POD_STATE_DIR, strerror(-err));
	record_name(name, sizeof(name), r->container_id, r->ifname);
	state_path(path, sizeof(path), name);
	tmp_path(tmp, sizeof(tmp), name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return bq_error(err, "%s: %s", tmp, strerror(-err));
	}
	write_record(f, r);
	if (fflush(f) || fsync(fd) || fclose(f) || rename(tmp, path)) {
		err = -errno;
		unlink(tmp);
		return bq_error(err, "%s: %s", path, strerror(-err));
	}
	return 0;
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A string write_str() wrote, into buf: its bytes as they were. */
static int str_value(struct bq_cj_span v, char *buf, size_t len)
{
	struct bq_cj_span hex;
	size_t n;

	if (bq_cj_type(v) == BQ_CJ_STRING)
		return bq_cj_string(v, buf, len) ? -EINVAL : 0;
	if (!bq_cj_member(v, "hex", &hex) || bq_cj_type(hex) != BQ_CJ_STRING)
		return -EINVAL;
	n = (hex.n - 2) / 2;
	if (hex.n % 2 || n >= len)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		int hi = hex_digit(hex.p[1 + 2 * i]), lo = hex_digit(hex.p[2 + 2 * i]);

		if (hi < 0 || lo < 0 || !(hi | lo))
			return -EINVAL;
		buf[i] = hi << 4 | lo;
	}
	buf[n] = 0;
	return 0;
}

static int str_member(struct bq_cj_span obj, const char *name, char *buf, size_t len)
{
	struct bq_cj_span v;

	return bq_cj_member(obj, name, &v) ? str_value(v, buf, len) : -EINVAL;
}

/* A member that records written before it came lack: "" then. */
static int str_optional(struct bq_cj_span obj, const char *name, char *buf, size_t len)
{
	struct bq_cj_span v;

	buf[0] = 0;
	return bq_cj_member(obj, name, &v) ? str_value(v, buf, len) : 0;
}

static int parse_qdisc(struct bq_cj_span o, struct bq_pod_qdisc *q)
{
	struct bq_cj_span v;
	uint64_t u;

	if (str_member(o, "role", q->role, sizeof(q->role)) ||
	    str_member(o, "dev", q->dev, sizeof(q->dev)) ||
	    str_member(o, "kind", q->kind, sizeof(q->kind)) ||
	    !bq_cj_member(o, "inPod", &v) || bq_cj_bool(v, &q->in_pod) ||
	    !bq_cj_member(o, "netnsCookie", &v) || bq_cj_u64(v, &q->netns_cookie) ||
	    !bq_cj_member(o, "ifindex", &v) || bq_cj_u64(v, &u) || !u || u > INT32_MAX)
		return -EINVAL;
	q->ifindex = u;
	return 0;
}

int bq_pod_record_parse(const char *buf, size_t n, struct bq_pod_record *r)
{
	struct bq_cj_span doc, qdiscs, q;
	struct bq_cj_iter it;
	const char *why;

	memset(r, 0, sizeof(*r));
	if (bq_cj_parse(buf, n, &doc, &why) ||
	    str_member(doc, "network", r->network, sizeof(r->network)) ||
	    str_member(doc, "containerID", r->container_id, sizeof(r->container_id)) ||
	    str_member(doc, "ifname", r->ifname, sizeof(r->ifname)) ||
	    str_member(doc, "netns", r->netns, sizeof(r->netns)) ||
	    str_optional(doc, "podNamespace", r->pod_namespace, sizeof(r->pod_namespace)) ||
	    str_optional(doc, "podName", r->pod_name, sizeof(r->pod_name)) ||
	    !bq_cj_member(doc, "qdiscs", &qdiscs) || bq_cj_type(qdiscs) != BQ_CJ_ARRAY)
		return -EINVAL;
	bq_cj_iter_init(&it, qdiscs);
	while (bq_cj_next(&it, NULL, &q))
		if (r->p.n == BQ_POD_MAX_QDISCS || parse_qdisc(q, &r->p.q[r->p.n++]))
			return -EINVAL;
	return 0;
}

/* The record in file name of BQ_POD_STATE_DIR. */
static int load_file(const char *name, struct bq_pod_record *r)
{
	char *buf = malloc(RECORD_MAX), path[PATH_MAX];
	int fd, err;
	ssize_t n;

	state_path(path, sizeof(path), name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf) {
		err = fd < 0 ? -errno : -ENOMEM;
		if (fd >= 0)
			close(fd);
		free(buf);
		return err;
	}
	n = read(fd, buf, RECORD_MAX);
	close(fd);
	err = n < 0 || n == RECORD_MAX ? -EINVAL : bq_pod_record_parse(buf, n, r);
	free(buf);
	if (!err)
		snprintf(r->file, sizeof(r->file), "%s", name);
	return err;
}

int bq_pod_record_load(const char *container_id, const char *ifname, struct bq_pod_record *r)
{
	char name[NAME_LEN];

	record_name(name, sizeof(name), container_id, ifname);
	return load_file(name, r);
}

void bq_pod_record_drop(const struct bq_pod_record *r)
{
	char path[PATH_MAX];

	state_path(path, sizeof(path), r->file);
	unlink(path);
}

int bq_pod_records_each(int (*fn)(struct bq_pod_record *r, void *arg), void *arg)
{
	DIR *d = opendir(BQ_POD_STATE_DIR);
	struct bq_pod_record *r = malloc(sizeof(*r));
	struct dirent *de;
	int err = 0;

	while (d && r && !err && (de = readdir(d))) {
		if (de->d_name[0] == '.')	/* ., .. and writers' files */
			continue;
		if (!load_file(de->d_name, r))
			err = fn(r, arg);
	}
	if (d)
		closedir(d);
	free(r);
	return err;
}

struct records {
	struct bq_pod_record *v;
	size_t n, cap;
};

static int keep(struct bq_pod_record *r, void *arg)
{
	struct records *all = arg;

	if (all->n == all->cap) {
		size_t cap = all->cap ? 2 * all->cap : 16;
		struct bq_pod_record *v = realloc(all->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		all->v = v;
		all->cap = cap;
	}
	all->v[all->n++] = *r;
	return 0;
}

int bq_pod_records(struct bq_pod_record **out, size_t *n)
{
	struct records all = {};
	int err = bq_pod_records_each(keep, &all);

	if (err) {
		free(all.v);
		all = (struct records){};
	}
	*out = all.v;
	*n = all.n;
	return err;
}

const struct bq_pod_qdisc *bq_pod_qdisc_find(const struct bq_pod_record *recs, size_t n,
					     __u64 netns, const struct bq_qdisc_info *tc,
					     const struct bq_pod_record **rec)
{
	for (size_t i = 0; tc->parent == TC_H_ROOT && i < n; i++) {
		for (int j = 0; j < recs[i].p.n; j++) {
			const struct bq_pod_qdisc *q = &recs[i].p.q[j];

			if (q->netns_cookie == netns && q->ifindex == tc->ifindex &&
			    !strcmp(q->dev, tc->dev) && !strcmp(q->kind, tc->kind)) {
				*rec = &recs[i];
				return q;
			}
		}
	}
	return NULL;
}

void bq_pod_prom_labels(FILE *f, const struct bq_pod_record *r, const struct bq_pod_qdisc *q)
{
	const char *labels[][2] = {
		{ "container_id", r->container_id }, { "ifname", r->ifname },
		{ "direction", q->role }, { "network", r->network },
		{ "pod_namespace", r->pod_namespace }, { "pod_name", r->pod_name },
	};

	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
		if (!labels[i][1][0])
			continue;
		fprintf(f, ",%s=", labels[i][0]);
		bq_prom_label(f, labels[i][1]);
	}
}
