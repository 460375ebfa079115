// SPDX-License-Identifier: GPL-2.0
/*
 * pod_police on the node: one load, pinned, whose program is attached with
 * BPF_PROG_ATTACH (not a link) at the tcx ingress of each limited pod's
 * host-side veth, so the attachment lives exactly as long as the device,
 * with no pin per pod to leak. BPF_F_BEFORE puts it ahead of any program
 * already there (network policy), which still runs: it returns TCX_NEXT
 * for what it passes.
 *
 * Concurrent ADDs may load it at once: each pins its load in a directory of
 * its own (bpfqdisc_pod_PID) and renames that into place, so the program and the map pinned
 * are always of one load; a loser drops its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib.h"
#include "pod_police.h"
#include "police.h"
#include "subnets.h"

#define POLICE_PIN	"/sys/fs/bpf/bpfqdisc_pod"
#define POLICE_MAP	"pod_limits"
#define POLICE_SUBNETS	"pod_subnets"
#define POLICE_PROG	"progs/pod_police"

static int open_pin(const char *what)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), POLICE_PIN "/%s", what);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return bq_error(-errno, "pod_police is not loaded (%s: %s)", path, strerror(errno));
	return fd;
}

static void unpin_dir(const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/" POLICE_PROG, dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/progs", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/" POLICE_MAP, dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/" POLICE_SUBNETS, dir);
	unlink(path);
	rmdir(dir);
}

static int pin_load(struct bpf_object *obj, const char *dir)
{
	char path[PATH_MAX];
	int err;

	snprintf(path, sizeof(path), "%s/progs", dir);
	if (mkdir(dir, 0700) || mkdir(path, 0700))
		return -errno;
	snprintf(path, sizeof(path), "%s/" POLICE_MAP, dir);
	err = bpf_map__pin(bpf_object__find_map_by_name(obj, POLICE_MAP), path);
	snprintf(path, sizeof(path), "%s/" POLICE_SUBNETS, dir);
	err = err ?: bpf_map__pin(bpf_object__find_map_by_name(obj, POLICE_SUBNETS), path);
	snprintf(path, sizeof(path), "%s/" POLICE_PROG, dir);
	return err ?: bpf_program__pin(bpf_object__find_program_by_name(obj, "pod_police"), path);
}

int police_ready(void)
{
	struct bpf_object *obj;
	char tmp[sizeof(POLICE_PIN) + 16];
	size_t sz;
	const void *elf = police_elf(&sz);
	int err;

	if (!access(POLICE_PIN "/" POLICE_PROG, F_OK))
		return 0;
	obj = bpf_object__open_mem(elf, sz, NULL);
	if (!obj)
		return bq_error(-errno, "cannot open pod_police: %s", strerror(errno));
	err = bpf_object__load(obj);
	snprintf(tmp, sizeof(tmp), POLICE_PIN "_%d", getpid());	/* bpffs refuses dots */
	if (!err)
		err = pin_load(obj, tmp);
	if (!err && rename(tmp, POLICE_PIN) && errno != EEXIST && errno != ENOTEMPTY)
		err = -errno;
	unpin_dir(tmp);		/* a loser's load, or a failed one's */
	bpf_object__close(obj);
	if (err)
		return bq_error(err, "cannot load pod_police: %s", strerror(-err));
	return 0;
}

static struct pod_police_key key_of(int ifindex)
{
	return (struct pod_police_key){ .netns_cookie = bq_self_netns_cookie(), .ifindex = ifindex };
}

/* The pinned map and program of the node's load. */
struct police_fds {
	int map, prog;
};

/* 0, or the error of the first pin that could not be opened (both fds -1 or open). */
static int police_open(struct police_fds *f)
{
	f->map = open_pin(POLICE_MAP);
	f->prog = f->map < 0 ? -1 : open_pin(POLICE_PROG);
	return f->map < 0 ? f->map : f->prog < 0 ? f->prog : 0;
}

static void police_close(struct police_fds *f)
{
	if (f->map >= 0)
		close(f->map);
	if (f->prog >= 0)
		close(f->prog);
}

/*
 * The subnet entries of ifindex: s's (none without a list). A load pinned
 * by a plugin before subnets has no trie, and holds all of a pod's
 * traffic: refused for a list, which it would not follow.
 */
static int police_subnets(int ifindex, const struct cni_subnets *s)
{
	int fd = open_pin(POLICE_SUBNETS), err;

	if (fd < 0 && !s->n)
		return 0;
	if (fd < 0)
		return bq_error(fd, "pod_police was loaded without subnet entries, by an older "
			       "bpfqdisc-bandwidth: it would hold the traffic a subnet list leaves unshaped");
	err = subnets_put(fd, bq_self_netns_cookie(), ifindex, s);
	close(fd);
	return err;
}

int police_apply(int ifindex, uint64_t rate, uint64_t burst, const struct cni_subnets *s)
{
	LIBBPF_OPTS(bpf_prog_attach_opts, o, .flags = BPF_F_BEFORE);
	struct pod_police_key key = key_of(ifindex);
	struct pod_police val = { .rate = rate, .burst = burst, .subnets = s->n != 0 };
	struct police_fds f;
	int err = police_open(&f);

	if (err)
		;
	else if ((err = police_subnets(ifindex, s)))
		;
	else if (bpf_map_update_elem(f.map, &key, &val, BPF_ANY))
		err = bq_error(-errno, "pod_police's entry: %s", strerror(errno));
	/* A repeated ADD finds it attached: EEXIST. */
	else if (bpf_prog_attach_opts(f.prog, ifindex, BPF_TCX_INGRESS, &o) && errno != EEXIST)
		err = bq_error(-errno, "pod_police at tcx ingress: %s", strerror(errno));
	police_close(&f);
	return err;
}

static bool attached(int prog, int ifindex)
{
	LIBBPF_OPTS(bpf_prog_query_opts, q);
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), ids[64];

	q.prog_ids = ids;
	q.count = sizeof(ids) / sizeof(ids[0]);
	if (bpf_prog_get_info_by_fd(prog, &info, &len) ||
	    bpf_prog_query_opts(ifindex, BPF_TCX_INGRESS, &q))
		return false;
	for (__u32 i = 0; i < q.count; i++)
		if (ids[i] == info.id)
			return true;
	return false;
}

/* Whether ifindex's subnet entries are s's (none: an older load's, see police_subnets). */
static int police_subnets_check(int ifindex, const struct cni_subnets *s)
{
	int fd = open_pin(POLICE_SUBNETS), err;

	if (fd < 0)
		return s->n ? fd : 0;
	err = subnets_check(fd, bq_self_netns_cookie(), ifindex, s, "pod_police");
	close(fd);
	return err;
}

int police_check(int ifindex, const char *dev, uint64_t rate, uint64_t burst,
		 const struct cni_subnets *s)
{
	struct pod_police_key key = key_of(ifindex);
	struct pod_police val = {};
	struct police_fds f;
	int err = police_open(&f);

	if (err)
		;
	else if (bpf_map_lookup_elem(f.map, &key, &val))
		err = bq_error(-ENOENT, "pod_police has no entry for %s", dev);
	else if (val.rate != rate || val.burst != burst)
		err = bq_error(-EINVAL, "pod_police holds %s to %llu B/s burst %llu B, not %llu B/s burst %llu B",
			       dev, (unsigned long long)val.rate, (unsigned long long)val.burst,
			       (unsigned long long)rate, (unsigned long long)burst);
	else if (val.subnets != (s->n != 0))
		err = bq_error(-EINVAL, "pod_police %s %s's subnet entries", val.subnets ? "reads" : "does not read",
			       dev);
	else if (!attached(f.prog, ifindex))
		err = bq_error(-ENOENT, "pod_police is not attached at %s's tcx ingress", dev);
	else
		err = police_subnets_check(ifindex, s);
	police_close(&f);
	return err;
}

int police_remove(int ifindex)
{
	LIBBPF_OPTS(bpf_prog_detach_opts, o);
	struct pod_police_key key = key_of(ifindex);
	struct cni_subnets none = { .n = 0 };
	struct police_fds f;
	int err = police_subnets(ifindex, &none);

	if (police_open(&f)) {
		police_close(&f);
		return 0;	/* never loaded: nothing of it here */
	}
	if (bpf_map_delete_elem(f.map, &key) && errno != ENOENT && !err)
		err = bq_error(-errno, "pod_police's entry: %s", strerror(errno));
	if (bpf_prog_detach_opts(f.prog, ifindex, BPF_TCX_INGRESS, &o) && errno != ENOENT &&
	    errno != ENODEV && !err)
		err = bq_error(-errno, "pod_police at tcx ingress: %s", strerror(errno));
	police_close(&f);
	return err;
}
