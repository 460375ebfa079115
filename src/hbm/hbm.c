// SPDX-License-Identifier: GPL-2.0
/*
 * hbm: Host Bandwidth Manager. Limits the egress rate of the processes of
 * cgroup /hbm<id> with a cgroup skb egress BPF program (bpf/hbm_cg.bpf.c, or
 * bpf/hbm_cg_edt.bpf.c with --edt), as the 2019 Linux sample did. See usage().
 *
 * Life of a run:
 *   1. claim the id: lock (flock) /sys/fs/bpf/bpfqdisc/hbm<id> (0700),
 *      made if missing; refused if another hbm has the lock or a kept
 *      limit is pinned there;
 *   2. create (or reuse an empty-handed) cgroup <cgroup2 mount>/hbm<id>;
 *   3. load the program, write the rate and flags to hbm_config and attach
 *      it to the cgroup with a BPF link, held by its fd only; with --keep,
 *      pin the maps and the link in the directory of step 1, which keeps
 *      the limit in force after hbm exits;
 *   4. run for -t seconds or until a signal, raising the rate above -r
 *      (-w) by a lease that ends unless renewed, and copying the BPF trace
 *      (-d);
 *   5. print the statistics (-s, -j) and undo steps 1-3, unless --keep:
 *      then the lease ends and the pins stay; `hbm -n <id> --remove`
 *      undoes them later.
 * Killed (SIGKILL, OOM) or crashed, hbm leaves what a clean exit would:
 * the kernel drops the lock and closes the link's fd. Without --keep that
 * detaches the program, and the next hbm takes the id over; with --keep
 * the pins hold the limit, back at -r when the lease runs out, until
 * --remove.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "hbm_tool.h"
#include "pindir.h"
#include "hbm_cg.skel.h"
#include "hbm_cg_edt.skel.h"

#define DEFAULT_RATE_MBPS	1000
#define MAX_ID			999999
#define WC_INTERVAL_MS		50	/* work-conserving control period */
#define WC_BUSY			0.95	/* NIC share above which it is busy */
#define WC_USING		0.97	/* cgroup share of its limit: "using it" */
/* How long a raise lasts unless renewed: a few periods, for a late step. */
#define WC_LEASE_NS		(4 * WC_INTERVAL_MS * 1000000ULL)

struct opts {
	int id;
	double rate_mbps;
	long secs;			/* 0: until a signal */
	bool debug, loopback, stats, json, wc, edt, no_cn, keep, remove;
	const char *builtin;		/* hbm_cg or hbm_cg_edt; NULL: by --edt */
	const char *object;		/* --object FILE instead of a built-in */
	const char *nic, *netns;
	double nic_mbps;		/* NIC capacity for -w; 0: its link speed */
};

/* Everything a run sets up, so that cleanup undoes exactly that. */
struct run {
	char pin_dir[PATH_MAX];
	char cg_path[PATH_MAX + 16];	/* mount point + "/hbm<id>" */
	bool pin_dir_ours, cg_made;
	int lock_fd;			/* pin_dir, flock()ed while we run */
	int cg_fd;
	struct bpf_object *obj;
	void *obj_bytes;		/* --object's file, which obj may point into */
	struct bpf_program *prog;
	struct bpf_link *link;
	int config_fd, stats_fd;
	struct hbm_config cfg;
	int trace_fd;
};

static volatile sig_atomic_t stop;

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: hbm [-d] [-l] [-n <id>] [-r <rate>] [-s] [-t <secs>] [-w] [--edt]\n"
		"           [--no_cn] [-j] [--keep] [--nic DEV] [--nic-rate MBPS]\n"
		"           [--netns NAME] [--object FILE] [-h] [hbm_cg | hbm_cg_edt]\n"
		"       hbm -n <id> --remove [-s | -j]\n"
		"\n"
		"Limits the egress rate of cgroup /hbm<id> under the cgroup2 mount with a\n"
		"cgroup skb BPF program, until -t seconds pass or a signal arrives.\n"
		"Rates count IP bytes: every packet's IP and transport headers are included,\n"
		"the link-layer header is not (TCP goodput is ~96.5%% of it at MTU 1500).\n"
		"\n"
		"  -d            print the BPF trace (on stderr)\n"
		"  -l            also limit traffic over loopback\n"
		"  -n <id>       cgroup /hbm<id> (default 1); not a network namespace\n"
		"                as bpfqdisc's -n: that is --netns here\n"
		"  -r <rate>     limit in Mbit/s, %d to %d (default %d)\n"
		"  -s            print statistics at the end\n"
		"  -j            the same as JSON\n"
		"  -t <secs>     run that long; 0 (default) = until SIGINT/SIGTERM\n"
		"  -w            work conserving: the limit grows while the NIC (--nic) has\n"
		"                spare capacity and shrinks back to -r when it is busy; a raise\n"
		"                lasts %llu ms unless hbm renews it\n"
		"  --edt         earliest-departure-time mode: needs fq (or bpf_fq) on the NIC\n"
		"  --no_cn       never ask TCP to reduce its cwnd (CN)\n"
		"  --keep        leave the limit in force at -r (pinned) when hbm ends, also\n"
		"                killed (SIGKILL) or crashed; undo with --remove. Without it,\n"
		"                hbm leaves no limit, however it ends\n"
		"  --remove      undo a kept hbm <id>\n"
		"  --nic DEV     the NIC -w watches\n"
		"  --nic-rate M  its capacity in Mbit/s (default: its link speed)\n"
		"  --netns NAME  the network namespace of --nic (as ip netns)\n"
		"  -h            this help\n"
		"  --version     hbm's version (bpfqdisc's)\n"
		"  --object FILE a BPF object file with a cgroup_skb/egress program and the\n"
		"                maps of include/hbm.h, owned by hbm's user (root) and\n"
		"                writable by no one else\n"
		"  hbm_cg | hbm_cg_edt  the built-in object (default: by --edt); never a file\n"
		"\n"
		"Exit status: 0 ok, 1 the system or kernel failed, 2 bad usage.\n",
		HBM_MIN_RATE_MBPS, HBM_MAX_RATE_MBPS, DEFAULT_RATE_MBPS, WC_LEASE_NS / 1000000);
}

/* --- options ---------------------------------------------------------- */

static int parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*out) ? -1 : 0;
}

static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return errno || end == s || *end || *out < min || *out > max ? -1 : 0;
}

enum { OPT_NO_CN = 256, OPT_EDT, OPT_KEEP, OPT_REMOVE, OPT_NIC, OPT_NIC_RATE, OPT_NETNS,
       OPT_OBJECT, OPT_VERSION };

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "no_cn", no_argument, NULL, OPT_NO_CN },
		{ "no-cn", no_argument, NULL, OPT_NO_CN },
		{ "edt", no_argument, NULL, OPT_EDT },
		{ "keep", no_argument, NULL, OPT_KEEP },
		{ "remove", no_argument, NULL, OPT_REMOVE },
		{ "nic", required_argument, NULL, OPT_NIC },
		{ "nic-rate", required_argument, NULL, OPT_NIC_RATE },
		{ "netns", required_argument, NULL, OPT_NETNS },
		{ "object", required_argument, NULL, OPT_OBJECT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{}
	};
	long v;
	int c;

	*o = (struct opts){ .id = 1, .rate_mbps = DEFAULT_RATE_MBPS };
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":dln:or:st:wjh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o->debug = true; break;
		case 'l': o->loopback = true; break;
		case 'o': break;	/* egress: the only direction */
		case 's': o->stats = true; break;
		case 'j': o->json = true; break;
		case 'w': o->wc = true; break;
		case OPT_NO_CN: o->no_cn = true; break;
		case OPT_EDT: o->edt = true; break;
		case OPT_KEEP: o->keep = true; break;
		case OPT_REMOVE: o->remove = true; break;
		case OPT_NIC: o->nic = optarg; break;
		case OPT_NETNS: o->netns = optarg; break;
		case OPT_OBJECT: o->object = optarg; break;
		case 'h': usage(stdout); exit(BQ_EXIT_OK);
		case OPT_VERSION: printf("hbm %s (bpfqdisc)\n", BQ_VERSION); exit(BQ_EXIT_OK);
		case 'n':
			if (parse_long(optarg, 0, MAX_ID, &v)) {
				bq_err("-n takes an id from 0 to %d, not '%s'", MAX_ID, optarg);
				return BQ_EXIT_USAGE;
			}
			o->id = v;
			break;
		case 'r':
			if (parse_double(optarg, &o->rate_mbps) ||
			    o->rate_mbps < HBM_MIN_RATE_MBPS || o->rate_mbps > HBM_MAX_RATE_MBPS) {
				bq_err("-r takes a rate from %d to %d Mbit/s, not '%s'",
					HBM_MIN_RATE_MBPS, HBM_MAX_RATE_MBPS, optarg);
				return BQ_EXIT_USAGE;
			}
			break;
		case 't':
			if (parse_long(optarg, 0, INT_MAX, &o->secs)) {
				bq_err("-t takes seconds (0 = until a signal), not '%s'", optarg);
				return BQ_EXIT_USAGE;
			}
			break;
		case OPT_NIC_RATE:
			if (parse_double(optarg, &o->nic_mbps) || o->nic_mbps < HBM_MIN_RATE_MBPS ||
			    o->nic_mbps > HBM_MAX_RATE_MBPS) {
				bq_err("--nic-rate takes a rate from %d to %d Mbit/s, not '%s'",
					HBM_MIN_RATE_MBPS, HBM_MAX_RATE_MBPS, optarg);
				return BQ_EXIT_USAGE;
			}
			break;
		case ':':
			bq_err("option %s needs a value (see hbm -h)", argv[optind - 1]);
			return BQ_EXIT_USAGE;
		default:
			bq_err("unknown option %s (see hbm -h)", argv[optind - 1]);
			return BQ_EXIT_USAGE;
		}
	}
	if (optind < argc)
		o->builtin = argv[optind++];
	if (optind < argc) {
		bq_err("unexpected argument '%s' (see hbm -h)", argv[optind]);
		return BQ_EXIT_USAGE;
	}
	if (o->builtin && strcmp(o->builtin, "hbm_cg") && strcmp(o->builtin, "hbm_cg_edt")) {
		bq_err("'%s' is not a built-in object (hbm_cg, hbm_cg_edt); a file needs --object FILE",
			o->builtin);
		return BQ_EXIT_USAGE;
	}
	if (o->builtin && o->object) {
		bq_err("give a built-in object or --object FILE, not both");
		return BQ_EXIT_USAGE;
	}
	if (o->wc && !o->nic) {
		bq_err("-w needs the NIC to watch: --nic DEV [--nic-rate MBPS] [--netns NAME]");
		return BQ_EXIT_USAGE;
	}
	if (o->nic && o->nic_mbps && o->nic_mbps < o->rate_mbps) {
		bq_err("--nic-rate %.0f is below the limit -r %.0f", o->nic_mbps, o->rate_mbps);
		return BQ_EXIT_USAGE;
	}
	return 0;
}

/* --- environment ------------------------------------------------------ */

/* The first cgroup2 mount in /proc/self/mounts. */
static int find_cgroup2(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "r");
	char dev[256], dir[PATH_MAX], type[64];
	int found = 0;

	if (!f) {
		bq_err("cannot read /proc/self/mounts: %s", strerror(errno));
		return BQ_EXIT_FAIL;
	}
	while (!found && fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2"))
			found = snprintf(buf, len, "%s", dir) < (int)len;
	fclose(f);
	if (!found) {
		bq_err("no cgroup2 file system is mounted (mount -t cgroup2 none /sys/fs/cgroup)");
		return BQ_EXIT_FAIL;
	}
	return 0;
}

static int pin_path(char *buf, size_t len, const struct run *r, const char *what)
{
	return snprintf(buf, len, "%s/%s", r->pin_dir, what) >= (int)len ? -ENAMETOOLONG : 0;
}

/* The link pin is the last a --keep pins: it says a limit is kept. */
static bool kept(const struct run *r)
{
	char path[PATH_MAX];

	return !pin_path(path, sizeof(path), r, "link") && !access(path, F_OK);
}

static void set_pin_dir(struct run *r, int id)
{
	snprintf(r->pin_dir, sizeof(r->pin_dir), "%s/hbm%d", BQ_PIN_ROOT, id);
}

/*
 * Locks the id's pin directory for as long as this process lives. 0, or
 * -EWOULDBLOCK when a running hbm has it, or -errno.
 */
static int lock_id(struct run *r)
{
	struct stat held, now;

	r->lock_fd = open(r->pin_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->lock_fd < 0)
		return -errno;
	if (flock(r->lock_fd, LOCK_EX | LOCK_NB))
		return -errno;
	/* A run that ends removes its directory before it lets go of it. */
	if (fstat(r->lock_fd, &held) || stat(r->pin_dir, &now) || held.st_ino != now.st_ino ||
	    held.st_dev != now.st_dev)
		return -EWOULDBLOCK;
	return 0;
}

static void unpin_files(const struct run *r)
{
	static const char *const pins[] = { "link", "config", "stats" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(pins) / sizeof(pins[0]); i++)
		if (!pin_path(path, sizeof(path), r, pins[i]))
			unlink(path);
}

/*
 * Step 1. The directory stays after an hbm that died; without a link
 * pinned in it, whatever else it holds is that run's and goes.
 */
static int claim_id(struct run *r, int id)
{
	int err;

	set_pin_dir(r, id);
	if (mkdir(r->pin_dir, 0700) && errno != EEXIST) {
		bq_err("cannot create %s: %s", r->pin_dir, strerror(errno));
		return BQ_EXIT_FAIL;
	}
	err = lock_id(r);
	if (err == -EWOULDBLOCK) {
		bq_err("id %d is in use: another hbm runs with it", id);
		return BQ_EXIT_USAGE;
	}
	if (err) {
		bq_err("cannot lock %s: %s", r->pin_dir, strerror(-err));
		return BQ_EXIT_FAIL;
	}
	if (kept(r)) {
		bq_err("id %d is in use: its limit was kept (undo it: hbm -n %d --remove)", id, id);
		return BQ_EXIT_USAGE;
	}
	unpin_files(r);
	r->pin_dir_ours = true;
	return 0;
}

static int egress_progs(int cg_fd)
{
	__u32 ids[8], cnt = 8, flags = 0;

	if (bpf_prog_query(cg_fd, BPF_CGROUP_INET_EGRESS, 0, &flags, ids, &cnt))
		return errno == ENOSPC ? 8 : 0;
	return cnt;
}

/* A cgroup path in a message: its mount point is anyone's who could mount. */
static const char *shown(const char *cg_path)
{
	static char buf[BQ_TEXT_LEN(PATH_MAX + 16)];

	return bq_text_str(cg_path, buf, sizeof(buf));
}

/* Step 2: a cgroup of our own, or an existing one nobody limits yet. */
static int make_cgroup(struct run *r, const char *root, int id)
{
	snprintf(r->cg_path, sizeof(r->cg_path), "%s/hbm%d", root, id);
	if (!mkdir(r->cg_path, 0755))
		r->cg_made = true;
	else if (errno != EEXIST) {
		bq_err("cannot create cgroup %s: %s", shown(r->cg_path), strerror(errno));
		return BQ_EXIT_FAIL;
	}
	r->cg_fd = open(r->cg_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->cg_fd < 0) {
		bq_err("cannot open cgroup %s: %s", shown(r->cg_path), strerror(errno));
		return BQ_EXIT_FAIL;
	}
	if (!r->cg_made && egress_progs(r->cg_fd) > 0) {
		bq_err("id %d is in use: cgroup %s already has an egress BPF program", id,
			shown(r->cg_path));
		return BQ_EXIT_USAGE;
	}
	return 0;
}

/* --- the BPF object --------------------------------------------------- */

static bool libbpf_verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || !libbpf_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* The built-in objects, by the name a user may give as prog. */
static struct bpf_object *open_builtin(const char *name)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = name);
	const void *bytes;
	size_t sz;

	bytes = strcmp(name, "hbm_cg_edt") ? hbm_cg__elf_bytes(&sz) : hbm_cg_edt__elf_bytes(&sz);
	return bpf_object__open_mem(bytes, sz, &oo);
}

/* --object FILE, or a built-in: the one named, else the one --edt picks. */
static int open_object(struct run *r, struct opts *o)
{
	const char *name = o->builtin ?: o->edt ? "hbm_cg_edt" : "hbm_cg";
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "hbm_object");
	size_t len;
	int err;

	if (o->object) {
		err = bq_read_object(o->object, &r->obj_bytes, &len);
		if (err)
			return err;
		r->obj = bpf_object__open_mem(r->obj_bytes, len, &oo);
	} else {
		o->edt = !strcmp(name, "hbm_cg_edt");
		r->obj = open_builtin(name);
	}
	if (!r->obj) {
		bq_err("cannot open BPF object %s: %s", o->object ?: name, strerror(errno));
		return BQ_EXIT_USAGE;
	}
	return 0;
}

static struct bpf_program *egress_program(struct bpf_object *obj)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj)
		if (bpf_program__expected_attach_type(p) == BPF_CGROUP_INET_EGRESS)
			return p;
	return NULL;
}

/* A map of the object's, if it has the layout include/hbm.h gives it. */
static bool map_layout_ok(struct bpf_object *obj, const char *name, __u32 value_size)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, name);

	if (!m) {
		bq_err("the BPF object lacks the map %s", name);
		return false;
	}
	if (bpf_map__value_size(m) != value_size) {
		bq_err("the BPF object's %s has %u-byte values, this hbm expects %u "
			"(built with another include/hbm.h)", name, bpf_map__value_size(m), value_size);
		return false;
	}
	return true;
}

/* Before anything is made: an object built elsewhere must share hbm.h. */
static int check_layout(struct run *r)
{
	return map_layout_ok(r->obj, "hbm_config", sizeof(struct hbm_config)) &&
	       map_layout_ok(r->obj, "hbm_stats", sizeof(struct hbm_stats)) ? 0 : BQ_EXIT_USAGE;
}

static int load_object(struct run *r, const struct opts *o)
{
	int err;

	r->prog = egress_program(r->obj);
	if (!r->prog) {
		bq_err("the BPF object has no cgroup_skb/egress program");
		return BQ_EXIT_USAGE;
	}
	err = bpf_object__load(r->obj);
	if (err) {
		bq_err("cannot load the BPF program: %s%s", strerror(-err),
			o->debug ? "" : " (hbm -d shows the verifier log)");
		return BQ_EXIT_FAIL;
	}
	r->config_fd = bpf_object__find_map_fd_by_name(r->obj, "hbm_config");
	r->stats_fd = bpf_object__find_map_fd_by_name(r->obj, "hbm_stats");
	return 0;
}

static __u64 mbps_to_bytes(double mbps)
{
	return (__u64)(mbps * 1e6 / 8 + 0.5);
}

static int write_config(struct run *r)
{
	__u32 zero = 0;

	if (bpf_map_update_elem(r->config_fd, &zero, &r->cfg, BPF_ANY)) {
		bq_err("cannot write the configuration map: %s", strerror(errno));
		return BQ_EXIT_FAIL;
	}
	return 0;
}

/* Step 3's end: the link's fd is all that holds the program attached. */
static int attach(struct run *r)
{
	r->link = bpf_program__attach_cgroup(r->prog, r->cg_fd);
	if (!r->link) {
		bq_err("cannot attach to cgroup %s: %s", shown(r->cg_path), strerror(errno));
		return BQ_EXIT_FAIL;
	}
	return 0;
}

/*
 * --keep, as soon as the program is attached: whatever happens to hbm, the
 * limit stays, at -r once -w's lease runs out. The maps first, the link
 * last (kept() looks for it).
 */
static int pin_limit(struct run *r)
{
	char path[PATH_MAX];
	int err;

	err = pin_path(path, sizeof(path), r, "config") ?:
	      bpf_obj_pin(r->config_fd, path) ? -errno : 0;
	if (!err)
		err = pin_path(path, sizeof(path), r, "stats") ?:
		      bpf_obj_pin(r->stats_fd, path) ? -errno : 0;
	if (!err)
		err = pin_path(path, sizeof(path), r, "link") ?: bpf_link__pin(r->link, path);
	if (err) {
		bq_err("cannot pin under %s: %s", r->pin_dir, strerror(-err));
		return BQ_EXIT_FAIL;
	}
	return 0;
}

/* --keep at exit: the limit stays at -r, as no one renews a raise. */
static int keep_limit(struct run *r)
{
	r->cfg.lease_end = 0;
	if (write_config(r))
		return BQ_EXIT_FAIL;
	bpf_link__disconnect(r->link);	/* the pin keeps it attached */
	return 0;
}

/* --- running ---------------------------------------------------------- */

static void on_signal(int sig)
{
	stop = 1;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * How far a time namespace moved this process's CLOCK_MONOTONIC from the
 * kernel's, which bpf_ktime_get_ns() reads: 0 outside one.
 */
static __s64 timens_monotonic_offset(void)
{
	static __s64 offset;
	static bool read;
	long long sec, nsec;
	char clock[16];
	FILE *f;

	if (read)
		return offset;
	read = true;
	f = fopen("/proc/self/timens_offsets", "re");
	if (!f)
		return 0;
	while (fscanf(f, "%15s %lld %lld", clock, &sec, &nsec) == 3)
		if (!strcmp(clock, "monotonic"))
			offset = sec * 1000000000LL + nsec;
	fclose(f);
	return offset;
}

/* The kernel's CLOCK_MONOTONIC, the clock of bpf_ktime_get_ns() (the lease's). */
static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec - timens_monotonic_offset();
}

static double now_s(void)
{
	return now_ns() / 1e9;
}

static int open_trace_pipe(void)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/trace_pipe",
		"/sys/kernel/debug/tracing/trace_pipe",
	};
	int fd;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
			fd = open(paths[i], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
			if (fd >= 0)
				return fd;
		}
		/* Not mounted: tracefs has its own mount point in /sys. */
		if (pass == 0)
			mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	}
	bq_err("cannot open the BPF trace (trace_pipe): %s; going on without it", strerror(errno));
	return -1;
}

/* Waits up to ms, copying what bpf_printk() wrote meanwhile to stderr. */
static void wait_ms(struct run *r, int ms)
{
	struct pollfd pfd = { .fd = r->trace_fd, .events = POLLIN };
	char buf[4096];
	ssize_t n;

	if (r->trace_fd < 0) {
		poll(NULL, 0, ms);
		return;
	}
	if (poll(&pfd, 1, ms) <= 0)
		return;
	while ((n = read(r->trace_fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, n, stderr);
}

/* Work conserving: what the last period measured, and the limit's floor. */
struct wc_state {
	struct hbm_nic nic;
	double floor_mbps;
	double last_s;
	__u64 last_cg_bytes;
};

static int wc_init(struct wc_state *w, struct run *r, const struct opts *o)
{
	struct hbm_stats s;
	int err;

	w->nic.name = o->nic;
	w->nic.capacity_mbps = o->nic_mbps ? o->nic_mbps : hbm_nic_speed_mbps(o->nic);
	if (w->nic.capacity_mbps <= 0) {
		bq_err("the link speed of %s is unknown: give --nic-rate MBPS", o->nic);
		return BQ_EXIT_USAGE;
	}
	err = hbm_nic_tx_bytes(o->nic, &w->nic.last_tx_bytes);
	if (err)
		return err;
	w->floor_mbps = o->rate_mbps;
	r->cfg.lease_rate = r->cfg.rate;
	w->last_s = now_s();
	hbm_stats_read(r->stats_fd, &s);
	w->last_cg_bytes = hbm_stats_passed_bytes(&s);
	return 0;
}

/*
 * One control period: while the NIC sends below 95% of its capacity and the
 * cgroup uses its limit, raise the limit by 1/16 (up to 95% of the NIC);
 * when the NIC is busy, lower it by 1/8, never below -r. The limit is a
 * lease on a raise, renewed here.
 */
static void wc_step(struct wc_state *w, struct run *r, bool debug)
{
	double t = now_s(), dt = t - w->last_s, nic_mbps, cg_mbps, limit, next;
	struct hbm_stats s;
	__u64 tx, cg;

	if (dt <= 0 || hbm_nic_tx_bytes(w->nic.name, &tx) || hbm_stats_read(r->stats_fd, &s))
		return;
	cg = hbm_stats_passed_bytes(&s);
	nic_mbps = (tx - w->nic.last_tx_bytes) * 8 / dt / 1e6;
	cg_mbps = (cg - w->last_cg_bytes) * 8 / dt / 1e6;
	w->nic.last_tx_bytes = tx;
	w->last_cg_bytes = cg;
	w->last_s = t;

	limit = r->cfg.lease_rate * 8 / 1e6;
	next = limit;
	if (nic_mbps < WC_BUSY * w->nic.capacity_mbps) {
		if (cg_mbps >= WC_USING * limit)
			next = fmin(limit * 17 / 16, WC_BUSY * w->nic.capacity_mbps);
	} else {
		next = fmax(limit * 7 / 8, w->floor_mbps);
	}
	next = fmax(next, w->floor_mbps);
	r->cfg.lease_rate = mbps_to_bytes(next);
	r->cfg.lease_end = now_ns() + WC_LEASE_NS;
	write_config(r);
	if (debug && fabs(next - limit) >= 0.001)
		bq_err("nic %.1f Mbit/s, cgroup %.1f Mbit/s: limit %.1f -> %.1f Mbit/s",
			nic_mbps, cg_mbps, limit, next);
}

static int run_loop(struct run *r, const struct opts *o)
{
	double end = o->secs ? now_s() + o->secs : INFINITY;
	struct wc_state w = {};
	int err;

	if (o->wc && (err = wc_init(&w, r, o)))
		return err;
	while (!stop) {
		double left = end - now_s();
		int ms = o->wc ? WC_INTERVAL_MS : 1000;

		if (left <= 0)
			break;
		if (left * 1000 < ms)
			ms = (int)(left * 1000) + 1;
		wait_ms(r, ms);
		if (o->wc && !stop)
			wc_step(&w, r, o->debug);
	}
	return 0;
}

static void report(const struct run *r, const struct opts *o, int stats_fd)
{
	struct hbm_report rep = {
		.id = o->id,
		.edt = o->edt || (r->cfg.flags & HBM_F_EDT),
		.limit_mbps = hbm_rate_at(&r->cfg, now_ns()) * 8 / 1e6,
	};

	if (!o->stats && !o->json)
		return;
	if (hbm_stats_read(stats_fd, &rep.s)) {
		bq_err("cannot read the statistics: %s", strerror(errno));
		return;
	}
	if (o->json)
		hbm_report_json(stdout, &rep);
	else
		hbm_report_text(stdout, &rep);
	fflush(stdout);
}

/* --- cleanup ---------------------------------------------------------- */

static void unpin_all(const struct run *r)
{
	unpin_files(r);
	rmdir(r->pin_dir);
}

static void remove_cgroup(const char *path)
{
	if (rmdir(path) && errno == EBUSY)
		bq_err("cgroup %s still has processes: left in place, unlimited", shown(path));
}

/* Undo everything, or after keep_limit() leave the pins. */
static void cleanup(struct run *r, bool keep, int id)
{
	if (keep)
		bq_err("limit on %s kept; undo with: hbm -n %d --remove", shown(r->cg_path), id);
	else if (r->pin_dir_ours)
		unpin_all(r);
	if (r->lock_fd >= 0)
		close(r->lock_fd);	/* after the directory went: see lock_id() */
	bpf_link__destroy(r->link);
	bpf_object__close(r->obj);
	free(r->obj_bytes);
	if (r->cg_fd >= 0)
		close(r->cg_fd);
	if (r->cg_made && !keep)
		remove_cgroup(r->cg_path);
	if (r->trace_fd >= 0)
		close(r->trace_fd);
}

/* The id's kept limit, locked: 0, or what to exit with. */
static int lock_kept(struct run *r, int id)
{
	int err;

	set_pin_dir(r, id);
	err = lock_id(r);

	if (err == -EWOULDBLOCK) {
		bq_err("id %d belongs to a running hbm: stop it (SIGTERM), --keep or not", id);
		return BQ_EXIT_USAGE;
	}
	if (err && err != -ENOENT) {
		bq_err("cannot lock %s: %s", r->pin_dir, strerror(-err));
		return BQ_EXIT_FAIL;
	}
	if (err || !kept(r)) {
		bq_err("no kept hbm with id %d (no link pinned in %s)", id, r->pin_dir);
		return BQ_EXIT_USAGE;
	}
	return 0;
}

/* hbm -n <id> --remove: undo a kept hbm, printing its stats first. */
static int remove_kept(struct opts *o)
{
	char cg_root[PATH_MAX], path[PATH_MAX];
	struct run r = { .lock_fd = -1, .cg_fd = -1, .trace_fd = -1 };
	__u32 zero = 0;
	int err, fd;

	err = find_cgroup2(cg_root, sizeof(cg_root)) ?: bq_ensure_bpffs() ?: lock_kept(&r, o->id);
	if (err) {
		if (r.lock_fd >= 0)
			close(r.lock_fd);
		return err;
	}
	fd = !pin_path(path, sizeof(path), &r, "config") ? bpf_obj_get(path) : -1;
	if (fd >= 0) {
		bpf_map_lookup_elem(fd, &zero, &r.cfg);
		close(fd);
	}
	fd = !pin_path(path, sizeof(path), &r, "stats") ? bpf_obj_get(path) : -1;
	if (fd >= 0) {
		report(&r, o, fd);
		close(fd);
	}
	unpin_all(&r);	/* the last reference to the link: it detaches */
	close(r.lock_fd);
	snprintf(r.cg_path, sizeof(r.cg_path), "%s/hbm%d", cg_root, o->id);
	remove_cgroup(r.cg_path);
	return 0;
}

static int setup(struct run *r, struct opts *o)
{
	char cg_root[PATH_MAX];

	return open_object(r, o) ?:
	       check_layout(r) ?:
	       find_cgroup2(cg_root, sizeof(cg_root)) ?:
	       (o->netns ? bq_enter_netns(o->netns) : 0) ?:
	       bq_ensure_bpffs() ?:
	       claim_id(r, o->id) ?:
	       make_cgroup(r, cg_root, o->id) ?:
	       load_object(r, o) ?:
	       write_config(r) ?:
	       attach(r) ?:
	       (o->keep ? pin_limit(r) : 0);
}

int main(int argc, char **argv)
{
	struct run r = { .lock_fd = -1, .cg_fd = -1, .trace_fd = -1 };
	struct opts o;
	int err;

	bq_print_to_stderr("hbm");
	err = parse_opts(argc, argv, &o);
	if (err)
		return bq_exit_code(err);
	libbpf_verbose = o.debug;
	libbpf_set_print(libbpf_print);
	if (o.remove)
		return bq_exit_code(remove_kept(&o));
	/* As the 2019 tool did; who ran it bare may not have meant to limit anything. */
	if (argc == 1)
		bq_warn("no options: starting the 2019 tool's default limiter, cgroup /hbm%d at %d Mbit/s "
			"until a signal (hbm -h lists the options)", o.id, DEFAULT_RATE_MBPS);

	r.cfg.rate = mbps_to_bytes(o.rate_mbps);
	r.cfg.flags = (o.loopback ? HBM_F_LOOPBACK : 0) | (o.no_cn ? HBM_F_NO_CN : 0) |
		      (o.debug ? HBM_F_DEBUG : 0);
	catch_signals();
	err = setup(&r, &o);
	if (!err) {
		/* open_object() settled the mode: record it for --remove -s. */
		r.cfg.flags |= o.edt ? HBM_F_EDT : 0;
		write_config(&r);
		if (o.debug)
			r.trace_fd = open_trace_pipe();
		bq_err("limiting cgroup %s to %g Mbit/s (%s mode)", shown(r.cg_path), o.rate_mbps,
			o.edt ? "edt" : "credit");
		err = run_loop(&r, &o);
		report(&r, &o, r.stats_fd);
		if (!err && o.keep)
			err = keep_limit(&r);
	}
	cleanup(&r, o.keep && !err, o.id);
	return bq_exit_code(err);
}
