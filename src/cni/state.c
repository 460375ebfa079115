// SPDX-License-Identifier: GPL-2.0
/* Records of what the plugin created, per attachment (state.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "state.h"
#include "lib.h"

#define RECORD_MAX	65536

static void record_path(char *buf, size_t len, const char *cid, const char *ifname)
{
	snprintf(buf, len, "%s/%s:%s", CNI_STATE_DIR, cid, ifname);
}

static int make_dirs(void)
{
	if (mkdir("/run/bpfqdisc", 0755) && errno != EEXIST)
		return -errno;
	if (mkdir(CNI_STATE_DIR, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

static void write_record(FILE *f, const struct cni_record *r)
{
	fputs("{\"network\":", f);
	bq_json_str(f, r->network);
	fputs(",\"containerID\":", f);
	bq_json_str(f, r->container_id);
	fputs(",\"ifname\":", f);
	bq_json_str(f, r->ifname);
	fputs(",\"netns\":", f);
	bq_json_str(f, r->netns);
	fputs(",\"qdiscs\":[", f);
	for (int i = 0; i < r->p.n; i++) {
		const struct pod_qdisc *q = &r->p.q[i];

		fprintf(f, "%s{\"role\":", i ? "," : "");
		bq_json_str(f, q->role);
		fprintf(f, ",\"inPod\":%s,\"netnsCookie\":%llu,\"ifindex\":%d,\"dev\":",
			q->in_pod ? "true" : "false", (unsigned long long)q->netns_cookie, q->ifindex);
		bq_json_str(f, q->dev);
		fputs(",\"kind\":", f);
		bq_json_str(f, q->kind);
		fputc('}', f);
	}
	fputs("]}\n", f);
}

int cni_state_save(const struct cni_record *r, struct cni_err *e)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	int err = make_dirs(), fd;
	FILE *f;

	if (err)
		return cni_fail(e, CNI_ERR_IO, "cannot keep the plugin's state", "%s: %s",
				CNI_STATE_DIR, strerror(-err));
	record_path(path, sizeof(path), r->container_id, r->ifname);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return cni_fail(e, CNI_ERR_IO, "cannot keep the plugin's state", "%s: %s", tmp,
				strerror(-err));
	}
	write_record(f, r);
	if (fflush(f) || fsync(fd) || fclose(f) || rename(tmp, path)) {
		err = -errno;
		unlink(tmp);
		return cni_fail(e, CNI_ERR_IO, "cannot keep the plugin's state", "%s: %s", path,
				strerror(-err));
	}
	return 0;
}

static int str_member(struct cj_span obj, const char *name, char *buf, size_t len)
{
	struct cj_span v;

	return cj_member(obj, name, &v) && !cj_string(v, buf, len) ? 0 : -EINVAL;
}

static int parse_qdisc(struct cj_span o, struct pod_qdisc *q)
{
	struct cj_span v;
	uint64_t u;

	if (str_member(o, "role", q->role, sizeof(q->role)) ||
	    str_member(o, "dev", q->dev, sizeof(q->dev)) ||
	    str_member(o, "kind", q->kind, sizeof(q->kind)) ||
	    !cj_member(o, "inPod", &v) || cj_bool(v, &q->in_pod) ||
	    !cj_member(o, "netnsCookie", &v) || cj_u64(v, &q->netns_cookie) ||
	    !cj_member(o, "ifindex", &v) || cj_u64(v, &u) || !u || u > INT32_MAX)
		return -EINVAL;
	q->ifindex = u;
	return 0;
}

int cni_state_parse(const char *buf, size_t n, struct cni_record *r)
{
	struct cj_span doc, qdiscs, q;
	struct cj_iter it;
	const char *why;

	memset(r, 0, sizeof(*r));
	if (cj_parse(buf, n, &doc, &why) ||
	    str_member(doc, "network", r->network, sizeof(r->network)) ||
	    str_member(doc, "containerID", r->container_id, sizeof(r->container_id)) ||
	    str_member(doc, "ifname", r->ifname, sizeof(r->ifname)) ||
	    str_member(doc, "netns", r->netns, sizeof(r->netns)) ||
	    !cj_member(doc, "qdiscs", &qdiscs) || cj_type(qdiscs) != CJ_ARRAY)
		return -EINVAL;
	cj_iter_init(&it, qdiscs);
	while (cj_next(&it, NULL, &q))
		if (r->p.n == POD_MAX_QDISCS || parse_qdisc(q, &r->p.q[r->p.n++]))
			return -EINVAL;
	return 0;
}

static int load_path(const char *path, struct cni_record *r)
{
	char *buf = malloc(RECORD_MAX);
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	ssize_t n;

	if (fd < 0 || !buf) {
		err = fd < 0 ? -errno : -ENOMEM;
		if (fd >= 0)
			close(fd);
		free(buf);
		return err;
	}
	n = read(fd, buf, RECORD_MAX);
	close(fd);
	err = n < 0 || n == RECORD_MAX ? -EINVAL : cni_state_parse(buf, n, r);
	free(buf);
	return err;
}

int cni_state_load(const char *container_id, const char *ifname, struct cni_record *r)
{
	char path[PATH_MAX];

	record_path(path, sizeof(path), container_id, ifname);
	return load_path(path, r);
}

void cni_state_drop(const char *container_id, const char *ifname)
{
	char path[PATH_MAX];

	record_path(path, sizeof(path), container_id, ifname);
	unlink(path);
}

int cni_state_each(int (*fn)(struct cni_record *r, void *arg), void *arg)
{
	DIR *d = opendir(CNI_STATE_DIR);
	struct cni_record *r = malloc(sizeof(*r));
	struct dirent *de;
	int err = 0;

	while (d && r && !err && (de = readdir(d))) {
		char path[PATH_MAX];
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.' || (len > 4 && !strcmp(de->d_name + len - 4, ".tmp")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", CNI_STATE_DIR, de->d_name);
		if (!load_path(path, r))
			err = fn(r, arg);
	}
	if (d)
		closedir(d);
	free(r);
	return err;
}
