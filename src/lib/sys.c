// SPDX-License-Identifier: GPL-2.0
/* What the host must offer: capabilities, kernel support, bpffs. */
#define _GNU_SOURCE	/* setns */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/nsfs.h>
#include "lib.h"
#include "pindir.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif
#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

void bq_stop_at(const char *where)
{
	const char *at = getenv("BPFQDISC_STOP_AT");

	if (at && !strcmp(at, where))
		raise(SIGSTOP);
}

static bool cap_effective(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

int bq_check_caps(enum bq_need need)
{
	static const struct { int cap; const char *name; bool load_only; } caps[] = {
		{ CAP_BPF, "CAP_BPF", false },
		{ CAP_PERFMON, "CAP_PERFMON", true },
		{ CAP_NET_ADMIN, "CAP_NET_ADMIN", true },
	};

	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		if (caps[i].load_only && need != BQ_NEED_LOAD)
			continue;
		if (!cap_effective(caps[i].cap))
			return bq_error(-EPERM, "missing capability %s: run as root", caps[i].name);
	}
	return 0;
}

static bool is_bpffs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

int bq_ensure_bpffs(void)
{
	const char *root = "/sys/fs/bpf";
	char why[512];

	if (!is_bpffs(root) && mount("bpf", root, "bpf", 0, "mode=0700"))
		return bq_error(-errno, "bpffs is not mounted at %s and mounting it failed (%s): mount -t bpf bpf %s",
		       root, strerror(errno), root);
	if (bq_pin_dir(BQ_PIN_ROOT, why, sizeof(why)))
		return bq_error(-EIO, "%s", why);
	return 0;
}

/* Enters the netns at path, called name in messages; *back as bq_netns_enter_path's. */
static int enter_netns(const char *path, const char *name, int *back)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno == ENOENT ? bq_invalid("no such network namespace '%s'", name)
				       : bq_error(-errno, "cannot open network namespace '%s': %s",
						  name, strerror(errno));
	if (back) {
		*back = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (*back < 0)
			err = bq_error(-errno, "cannot open this network namespace: %s",
				       strerror(errno));
	}
	if (!err && setns(fd, CLONE_NEWNET)) {
		err = bq_error(-errno, "cannot enter network namespace '%s': %s", name, strerror(errno));
		if (back)
			close(*back);
	}
	close(fd);
	return err;
}

BQ_API int bq_enter_netns(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), strchr(name, '/') ? "%s" : "/run/netns/%s", name);
	return enter_netns(path, name, NULL);
}

int bq_netns_enter_path(const char *path, int *back)
{
	return enter_netns(path, path, back);
}

int bq_netns_return(int back)
{
	int err = setns(back, CLONE_NEWNET) ?
		  bq_error(-errno, "cannot return to the network namespace left: %s", strerror(errno)) : 0;

	close(back);
	return err;
}

__u64 bq_self_netns_cookie(void)
{
	__u64 cookie = 0;
	socklen_t len = sizeof(cookie);
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	if (fd >= 0) {
		if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len))
			cookie = 0;
		close(fd);
	}
	return cookie;
}

/*
 * Whether this process's network namespace belongs to a user namespace
 * other than the initial one, as .init tells them apart (bq_origin_userns()):
 * only the initial one has no parent (NS_GET_PARENT: EPERM). If so, *owner
 * is the uid owning the outermost one below the initial one, and *inum
 * that one's inode number: whom .init charges.
 */
bool bq_netns_userns(uid_t *owner, __u32 *inum)
{
	int net = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	int user = net < 0 ? -1 : ioctl(net, NS_GET_USERNS);
	int parent = user < 0 ? -1 : ioctl(user, NS_GET_PARENT);
	struct stat st;
	int above;

	if (net >= 0)
		close(net);
	/* user: the namespace below parent; above fails at the initial one. */
	while (parent >= 0 && (above = ioctl(parent, NS_GET_PARENT)) >= 0) {
		close(user);
		user = parent;
		parent = above;
	}
	if (parent >= 0) {
		if (ioctl(user, NS_GET_OWNER_UID, owner))
			*owner = (uid_t)-1;
		*inum = fstat(user, &st) ? 0 : st.st_ino;
		close(parent);
	}
	if (user >= 0)
		close(user);
	return parent >= 0;
}

/* Whether this process is in the initial network namespace (.init's bq_in_initial_net()). */
bool bq_in_initial_netns(void)
{
	struct stat st;

	return !stat("/proc/self/ns/net", &st) && st.st_ino == BQ_INIT_NET_INUM;
}
