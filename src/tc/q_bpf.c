// SPDX-License-Identifier: GPL-2.0
/*
 * tc's plugin for the kinds of bpfqdisc: tc loads q_bpf_KIND.so (a link to
 * this one library) from TC_LIB_DIR or its own directory and calls
 * bpf_KIND_qdisc_util.parse_qopt with the words after the kind. They are
 * parsed as `bpfqdisc qdisc add` parses them (libbpfqdisc: units.c, the
 * kind's table read from its embedded object by meta.c) and sent in
 * TCA_OPTIONS as a struct bq_options, which the qdisc's .init checks again.
 *
 * A BPF qdisc has no .change: the kernel refuses options for a qdisc
 * that exists ("Change operation not supported"), which is what tc qdisc
 * change and a replace onto a qdisc of the same kind ask. For those the
 * plugin changes the parameters in the kind's maps through the library,
 * as `bpfqdisc qdisc change` does (its checks, lock and messages), and
 * sends the kernel the request without options, which it accepts as it is.
 *
 * Built with BQ_TC_TEMPLATE, it is the template of the plugin that
 * bpfqdisc load PATH writes for a kind from a file (src/lib/tcplugin.c).
 *
 * tc has a libbpf of its own loaded: what the plugin takes of libbpfqdisc
 * uses none (the Makefile checks), and only the qdisc_util symbols are
 * exported (-fvisibility=hidden, --exclude-libs), so that tc's symbols
 * never replace ours or ours tc's.
 */
#define _GNU_SOURCE	/* dladdr */
#include <dlfcn.h>
#include <net/if.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include "lib.h"
#include "pindir.h"

/* iproute2 6.1's tc/tc_util.h: tc reads these fields. */
struct rtattr;
struct qdisc_util {
	struct qdisc_util *next;
	const char *id;
	int (*parse_qopt)(struct qdisc_util *qu, int argc, char **argv, struct nlmsghdr *n,
			  const char *dev);
	int (*print_qopt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*print_xstats)(struct qdisc_util *qu, FILE *f, struct rtattr *xstats);
	int (*parse_copt)(struct qdisc_util *qu, int argc, char **argv, struct nlmsghdr *n,
			  const char *dev);
	int (*print_copt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*has_block)(struct qdisc_util *qu, struct rtattr *opt, __u32 block_idx, bool *has);
};

/* tc's libnetlink (tc is linked -export-dynamic). */
int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data, int alen);

/* What tc's request may grow to: tc's own plugins use the same bound. */
#define TC_REQ_MAX	1024

/*
 * Whether this process sees bpfqdisc's pins, which then say whether the
 * kind is loaded. A plain user does not (they are root's, 0700), nor does
 * ip netns exec, whose sysfs hides /sys/fs/bpf: the kernel says for them.
 */
static bool sees_pins(void)
{
	struct statfs fs;

	if (statfs("/sys/fs/bpf", &fs) || fs.f_type != BPF_FS_MAGIC)
		return false;
	return !access(BQ_PIN_ROOT, X_OK) || errno == ENOENT;
}

#ifdef BQ_TC_TEMPLATE
/* This library's file, as tc found it. */
static const char *own_file(void)
{
	Dl_info info;

	return dladdr((void *)own_file, &info) ? info.dli_fname : NULL;
}

/*
 * The plugin of a kind loaded from a file, which bpfqdisc load writes from
 * this template (src/lib/tcplugin.c): the kind's name over the placeholders,
 * and what it knows of the kind appended to the file.
 */
static char kind_id[BQ_KIND_LEN] __attribute__((section(BQ_TC_KIND_SECTION))) = BQ_TC_PLACEHOLDER;

/* What load appended to this file, read once: its trailer, and the kind's bq_object value or NULL. */
static const struct bq_object_hdr *appended(const struct bq_tc_trailer **trailer)
{
	static struct bq_tc_trailer t;
	static struct bq_object_hdr *h;
	static bool done;
	const char *file = own_file();
	struct stat st;
	int fd;

	*trailer = &t;
	if (done)
		return h;
	done = true;
	fd = file ? open(file, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0 || fstat(fd, &st) || st.st_size < (off_t)sizeof(t) ||
	    pread(fd, &t, sizeof(t), st.st_size - sizeof(t)) != sizeof(t) ||
	    memcmp(t.magic, BQ_TC_MAGIC, sizeof(t.magic)) || t.size <= sizeof(*h) ||
	    t.size > st.st_size - sizeof(t) || !(h = malloc(t.size)) ||
	    pread(fd, h, t.size, st.st_size - sizeof(t) - t.size) != (ssize_t)t.size) {
		free(h);
		h = NULL;
		memset(&t, 0, sizeof(t));
	}
	if (fd >= 0)
		close(fd);
	if (h)
		h->path[sizeof(h->path) - 1] = '\0';
	return h;
}

/* The kind, from its pins or else from what load appended; NULL (said) if neither. */
static const struct bq_kind *plugin_kind(const struct qdisc_util *qu)
{
	const struct bq_tc_trailer *t;
	const struct bq_object_hdr *h;
	const struct bq_kind *k = NULL;

	if (sees_pins()) {
		k = bq_kind_find(qu->id);
		if (!k || k->plain)
			bq_err("%s: kind not loaded; bpfqdisc load PATH", qu->id);
		return k && !k->plain ? k : NULL;
	}
	h = appended(&t);
	if (h)
		k = bq_kinds_add(qu->id + 4, h->path, h + 1, t->size - sizeof(*h), false);
	if (!k)
		bq_err("%s: cannot read its parameter table from %s", qu->id, own_file() ?: "its plugin");
	return k;
}

#else
static const struct bq_kind *plugin_kind(const struct qdisc_util *qu)
{
	const struct bq_kind *k = bq_kind_find(qu->id);

	if (!k)
		bq_err("%s: cannot read its parameter table", qu->id);
	return k;
}

#endif

/*
 * ip netns exec and tc -n mount a sysfs of the netns over /sys, which
 * hides the pins under /sys/fs/bpf: they are still where the system made
 * them, in the mount namespace of pid 1 (a container's own), which root
 * reaches through /proc/1/root. Either way the directory must be ours and
 * no one else's to write, as the CLI checks it.
 */
static int find_pins(void)
{
	char why[512];
	struct stat st;

	if (!sees_pins())
		bq_pin_root = "/proc/1/root" BQ_PIN_ROOT_DEFAULT;
	if (lstat(BQ_PIN_ROOT, &st))
		return bq_error(-errno, "cannot see bpfqdisc's pins at %s: %s", BQ_PIN_ROOT,
				strerror(errno));
	if (bq_check_owner(BQ_PIN_ROOT, &st, why, sizeof(why)))
		return bq_error(-EPERM, "%s", why);
	return 0;
}

/*
 * Whether kind k is registered, where this process can tell, in the CLI's
 * words if not: the kernel says only "Specified qdisc kind is unknown."
 * A plain user cannot see the pins, and the kernel answers them.
 */
static int require_loaded(const struct bq_kind *k)
{
	if (sees_pins())
		return bq_require_loaded(k);
	if (access("/proc/1/root" BQ_PIN_ROOT_DEFAULT, X_OK))
		return 0;
	return find_pins() ?: bq_require_loaded(k);
}

/* bpfqdisc qdisc change, for the qdisc of tc's request t on dev: 0 or -1. */
static int change(const struct bq_kind *k, const struct tcmsg *t, const char *dev, int argc,
		  char **argv)
{
	struct bq_qdisc_req r = {
		.dev = dev, .ifindex = if_nametoindex(dev), .kind = k,
		.parent = t->tcm_parent ?: TC_H_ROOT, .handle = t->tcm_handle,
		.nparams = argc, .params = argv,
	};
	int err = bq_check_caps(BQ_NEED_LOAD) ?: find_pins() ?: bq_require_loaded(k) ?:
		  bq_qdisc_change_req(&r);

	return err ? -1 : 0;
}

/*
 * Whether tc's request changes a qdisc that exists: tc qdisc change, or a
 * replace onto a qdisc of this kind at the same place (the kernel routes
 * it to the qdisc's change).
 */
static bool changes_existing(const struct bq_kind *k, const struct nlmsghdr *n, const char *dev)
{
	const struct tcmsg *t = NLMSG_DATA(n);
	char now[BQ_KIND_LEN];

	if (!(n->nlmsg_flags & NLM_F_CREATE))
		return true;
	if (!(n->nlmsg_flags & NLM_F_REPLACE) || (n->nlmsg_flags & NLM_F_EXCL))
		return false;
	bq_nl_qdisc_kind(if_nametoindex(dev), t->tcm_parent, t->tcm_handle, now, sizeof(now));
	return !strcmp(now, k->kind);
}

static int parse_qopt(struct qdisc_util *qu, int argc, char **argv, struct nlmsghdr *n,
		      const char *dev)
{
	const struct bq_kind *k;
	struct bq_param_set set;
	struct bq_options o;

	bq_print_to_stderr("bpfqdisc");
	bq_kinds_discover();
	k = plugin_kind(qu);
	if (!k)
		return -1;
	if (bq_kind_params(k, &set))
		return -1;	/* said */
	if (argc == 1 && !strcmp(argv[0], "help")) {
		bq_err("%s [PARAM VALUE]...: `bpfqdisc params %s` lists them", k->kind, k->name);
		return -1;
	}
	if (bq_params_apply(&set, argc, argv))
		return -1;
	if (n->nlmsg_type == RTM_DELQDISC)
		return 0;
	/* A live qdisc needs no registered kind, but a change of its parameters the maps. */
	if (changes_existing(k, n, dev))
		return set.given ? change(k, NLMSG_DATA(n), dev, argc, argv) : 0;
	if (require_loaded(k))
		return -1;
	/* No options: the kind's defaults (.init gets no opt). */
	if (!set.given)
		return 0;
	bq_params_options(&set, &o);
	return addattr_l(n, TC_REQ_MAX, TCA_OPTIONS, &o, sizeof(o)) ? -1 : 0;
}

/* tc's json_print.c: "name value " as text, "name": "value" in JSON. */
void print_string_name_value(const char *name, const char *value);

/*
 * The options the kernel reports: only a kernel with
 * tools/kernel-patches/0003 lets a BPF qdisc have a .dump, which reports
 * its parameters as the struct bq_options .init takes.
 */
static int print_qopt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	const struct bq_kind *k;
	struct bq_param_set set;
	struct bq_options o;
	char buf[64];

	bq_print_to_stderr("bpfqdisc");
	bq_kinds_discover();
	k = bq_kind_find(qu->id);

	if (!opt || RTA_PAYLOAD(opt) != sizeof(o))
		return 0;
	memcpy(&o, RTA_DATA(opt), sizeof(o));
	if (o.magic != BQ_OPT_MAGIC || !k || bq_kind_params(k, &set))
		return 0;
	for (size_t i = 0; i < set.n; i++)
		if (o.given & (1U << i))
			print_string_name_value(set.desc[i].name,
						bq_format_value(set.desc[i].unit, o.v[i], buf,
								sizeof(buf)));
	return 0;
}

#ifdef BQ_TC_TEMPLATE
/* tcplugin.c renames it: bpf_XXXXXXXXXXX is BQ_TC_PLACEHOLDER. */
__attribute__((visibility("default"))) struct qdisc_util bpf_XXXXXXXXXXX_qdisc_util = {
	.id = kind_id, .parse_qopt = parse_qopt, .print_qopt = print_qopt,
};
#else
#define BQ_QDISC(n, s)							\
	__attribute__((visibility("default"))) struct qdisc_util bpf_##n##_qdisc_util = { \
		.id = "bpf_" #n, .parse_qopt = parse_qopt, .print_qopt = print_qopt, \
	};
#include "qdiscs.def"
#undef BQ_QDISC
#endif
