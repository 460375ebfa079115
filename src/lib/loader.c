// SPDX-License-Identifier: GPL-2.0
/*
 * Loading a qdisc kind: open its object, size its maps, load it, register
 * the struct_ops and pin the link and the maps user space reads under
 * /sys/fs/bpf/bpfqdisc/<name>/. The pinned link keeps the kind registered
 * after we exit; removing the pin unregisters it. Live qdiscs hold their
 * own reference to the struct_ops map and keep working until deleted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "lib.h"
#include "pindir.h"

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* Our own error line says what failed; LIBBPF_LOG=1 shows libbpf's. */
	if (!getenv("LIBBPF_LOG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void bq_quiet_libbpf(void)
{
	libbpf_set_print(libbpf_quiet);
}

/* Whether release ("6.18.44-cloud") is Linux 6.16, which brought BPF qdiscs, or later. */
static bool release_has_bpf_qdiscs(const char *release)
{
	unsigned int major = 0, minor = 0;

	sscanf(release, "%u.%u", &major, &minor);
	return major > 6 || (major == 6 && minor >= 16);
}

/*
 * The qdisc kfuncs exist exactly when the kernel has CONFIG_NET_SCH_BPF.
 * Without them, a kernel recent enough was built without the option: to
 * name its version then would read as "too old".
 */
int bq_check_kernel(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	struct utsname u;
	int id;

	uname(&u);
	if (!btf)
		return bq_error(-EIO, "cannot read this kernel's (%s) BTF at /sys/kernel/btf/vmlinux: BPF qdiscs need "
		       "CONFIG_DEBUG_INFO_BTF", u.release);
	id = btf__find_by_name_kind(btf, "bpf_qdisc_skb_drop", BTF_KIND_FUNC);
	btf__free(btf);
	if (id >= 0)
		return 0;
	if (release_has_bpf_qdiscs(u.release))
		return bq_error(-EOPNOTSUPP, "this kernel (%s) cannot run BPF qdiscs: it was built without "
				"CONFIG_NET_SCH_BPF", u.release);
	return bq_error(-EOPNOTSUPP, "this kernel (%s) cannot run BPF qdiscs: it needs CONFIG_NET_SCH_BPF (Linux ≥ 6.16)",
	       u.release);
}

/* Maps user space reads after load, besides the slot maps marked BQ_MAP_PIN. */
static const char *const pinned_maps[] = { "bq_defaults", "bq_config" };

/* How long load, unload and tidy wait for one another. */
#define BQ_LOCK_WAIT_S	10

/*
 * Load, unload and tidy change pins under one lock, a flock of the pin
 * root (bq_ensure_bpffs() made it ours, 0700): a tidy never takes the pins
 * of a load under way, and of two loads of a kind the second finds it
 * loaded. The others wait up to BQ_LOCK_WAIT_S. An fd, whose close
 * unlocks, or -errno (-EWOULDBLOCK: still held).
 */
static int lock_pins(void)
{
	int fd = open(BQ_PIN_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (int i = 0; flock(fd, LOCK_EX | LOCK_NB); i++) {
		int err = -errno;

		if (err != -EWOULDBLOCK || i == BQ_LOCK_WAIT_S * 10) {
			close(fd);
			return err;
		}
		usleep(100000);
	}
	return fd;
}

/* lock_pins() for a load or unload, which cannot go on without it. */
static int lock_pins_or_say(void)
{
	int fd = lock_pins();

	if (fd == -EWOULDBLOCK)
		bq_err("another bpfqdisc has held %s for %d s (a load or unload); try again",
		       BQ_PIN_ROOT, BQ_LOCK_WAIT_S);
	else if (fd < 0)
		bq_err("cannot lock %s: %s", BQ_PIN_ROOT, strerror(-fd));
	return fd;
}

static struct bpf_object *open_kind(const struct bq_kind *k)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = k->name);
	size_t sz;
	const void *bytes = bq_kind_elf(k, &sz);
	struct bpf_object *obj = bpf_object__open_mem(bytes, sz, &opts);

	if (!obj)
		bq_err("cannot open the %s object: %s", k->kind, strerror(errno));
	return obj;
}

/* The kind's object, if it was built for a framework this loader reads. */
static struct bpf_object *open_framework(const struct bq_kind *k)
{
	return bq_kind_framework_ok(k) ? open_kind(k) : NULL;
}

size_t bq_kind_slot_maps(const struct bq_kind *k, struct bq_map_desc *d)
{
	return bq_kind_table(k, ".rodata.bq_maps", d, sizeof(*d), BQ_MAX_SLOT_MAPS);
}

/* The object's first BQ_PER_CLASS map (with pin: that is pinned) into *d; false if none. */
static bool per_class_map(const struct bq_kind *k, bool pin, struct bq_map_desc *d)
{
	struct bq_map_desc all[BQ_MAX_SLOT_MAPS];
	size_t n = bq_kind_slot_maps(k, all);

	for (size_t i = 0; i < n; i++) {
		if ((all[i].per_slot & BQ_PER_CLASS_FLAG) && (!pin || (all[i].flags & BQ_MAP_PIN))) {
			*d = all[i];
			return true;
		}
	}
	return false;
}

__u32 bq_kind_class_slots(const struct bq_kind *k)
{
	struct bq_map_desc d;

	return per_class_map(k, false, &d) ? d.per_slot & BQ_PER_CLASS_COUNT : 0;
}

__u32 bq_class_slot_count(const struct bq_kind *k)
{
	struct bq_map_desc d;

	if (!per_class_map(k, true, &d))
		return 0;
	return bq_pinned_per_slot(k, d.name) >> BQ_PER_CLASS_SHIFT_OF(d.per_slot);
}

/* Entries per slot of the slot map d under o. */
static __u32 per_slot(const struct bq_map_desc *d, const struct bq_load_opts *o)
{
	if (d->per_slot == BQ_PER_RING)
		return o->ring_slots;
	if (d->per_slot & BQ_PER_CLASS_FLAG)
		return o->class_slots << BQ_PER_CLASS_SHIFT_OF(d->per_slot);
	return d->per_slot;
}

/* Sets a `const volatile u32` of .rodata by name, before load. */
static int set_rodata_u32(struct bpf_object *obj, const char *name, __u32 val)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, ".rodata");
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_type *sec;
	const struct btf_var_secinfo *vi;
	size_t sz;
	char *data;
	int id;

	id = btf ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
	data = m ? bpf_map__initial_value(m, &sz) : NULL;
	if (id < 0 || !data)
		return -ENOENT;
	sec = btf__type_by_id(btf, id);
	vi = btf_var_secinfos(sec);
	for (int i = 0; i < btf_vlen(sec); i++, vi++) {
		const char *vname = btf__name_by_offset(btf, btf__type_by_id(btf, vi->type)->name_off);

		if (!strcmp(vname, name) && vi->size == sizeof(val) && vi->offset + vi->size <= sz) {
			memcpy(data + vi->offset, &val, sizeof(val));
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * Every slot map gets a region per instance. -ENOENT: not a bpfqdisc
 * object; -E2BIG: a map would outgrow BQ_MAX_TOTAL_SLOTS (named in *big).
 */
static int size_maps(const struct bq_kind *k, struct bpf_object *obj, const struct bq_load_opts *o,
		     const char **big)
{
	struct bq_map_desc d[BQ_MAX_SLOT_MAPS];
	size_t n = bq_kind_slot_maps(k, d);

	if (!bpf_object__find_map_by_name(obj, "bq_slots"))
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, d[i].name);
		__u64 entries = (__u64)o->max_instances * per_slot(&d[i], o);

		if (!m)
			return -ENOENT;
		*big = bpf_map__name(m);
		if (entries > BQ_MAX_TOTAL_SLOTS)
			return -E2BIG;
		if (bpf_map__set_max_entries(m, entries))
			return -ENOENT;
	}
	if (set_rodata_u32(obj, "bq_ring_slots", o->ring_slots) ||
	    set_rodata_u32(obj, "bq_max_instances", o->max_instances) ||
	    (o->class_slots && set_rodata_u32(obj, "bq_class_slots", o->class_slots)))
		return -ENOENT;
	return 0;
}

struct unpin_choice {
	const struct bq_kind *k;
	bool (*which)(const struct bq_kind *k, const char *name, const char *path);
};

static void unpin_chosen(const char *name, const char *path, void *arg)
{
	const struct unpin_choice *c = arg;

	if (c->which(c->k, name, path))
		unlink(path);
}

/* Unpins the kind's pins that which() picks by their name and path. */
static void unpin_some(const struct bq_kind *k,
		       bool (*which)(const struct bq_kind *k, const char *name, const char *path))
{
	struct unpin_choice c = { k, which };

	bq_for_each_pin(k, unpin_chosen, &c);
}

static bool any_pin(const struct bq_kind *k, const char *name, const char *path)
{
	return true;
}

/* Every pin of the kind: maps, link, egress program and its attachments
 * (egress_NETNS_IFINDEX; bpffs refuses dots in names). */
static void unpin_all(const struct bq_kind *k)
{
	char dir[256];

	unpin_some(k, any_pin);
	bq_pin_path(dir, sizeof(dir), k, NULL);
	rmdir(dir);
}

/* Live instances in the kind's pinned maps; unreadable ones count as one. */
static size_t live_instances(const struct bq_kind *k)
{
	struct bq_instance_info *v;
	size_t n = 0;
	int err;

	if (!bq_has_state(k))
		return 0;
	err = bq_instances(k, &v, &n);
	free(v);
	return err ? 1 : n;
}

/* After a failed load: its pins, and an earlier load's unless qdiscs use them. */
static void unpin_load(const struct bq_kind *k)
{
	char path[256];

	bq_pin_path(path, sizeof(path), k, "link");
	unlink(path);
	if (!live_instances(k))
		unpin_all(k);
}

/* The device of the tcx link pinned at path: 0 once the device went (alone,
 * or with its netns), -1 if there is no tcx link there. */
static int tcx_ifindex(const char *path)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	int link = bpf_obj_get(path), ifindex = -1;

	if (link < 0)
		return -1;
	if (!bpf_link_get_info_by_fd(link, &info, &len) && info.type == BPF_LINK_TYPE_TCX)
		ifindex = info.tcx.ifindex;
	close(link);
	return ifindex;
}

/* A qdisc of the kind is on the device; also when its qdiscs are unreadable. */
static bool kind_on_device(const struct bq_kind *k, __u64 netns_cookie, __u32 ifindex)
{
	struct bq_instance_info *v;
	size_t n = 0;
	bool on;

	on = bq_instances(k, &v, &n) != 0;
	for (size_t i = 0; !on && i < n; i++)
		on = v[i].inst.where.netns_cookie == netns_cookie && v[i].inst.where.ifindex == ifindex;
	free(v);
	return on;
}

/* An egress attachment (egress_NETNS_IFINDEX) whose device went, or that
 * no qdisc of the kind needs there any more (tc qdisc del, replace). */
static bool stale_egress(const struct bq_kind *k, const char *name, const char *path)
{
	unsigned long long netns_cookie;
	unsigned int ifindex;

	if (sscanf(name, "egress_%llx_%u", &netns_cookie, &ifindex) != 2)
		return false;
	return tcx_ifindex(path) == 0 || !kind_on_device(k, netns_cookie, ifindex);
}

/*
 * Under the kind's lock: qdisc add holds it from before it creates a qdisc
 * until its egress program is attached, and a qdisc made in between would
 * lose its marker. Held: the next tidy does it.
 */
static void unpin_stale_egress(const struct bq_kind *k)
{
	int lock = bq_try_lock_kind(k);

	if (lock < 0)
		return;
	unpin_some(k, stale_egress);
	close(lock);
}

/*
 * The kernel keeps creating qdiscs of the default kind after it is
 * unregistered (it holds the ops): its maps must stay visible meanwhile.
 */
static bool is_default_qdisc(const struct bq_kind *k)
{
	char name[BQ_KIND_LEN + 2] = "";
	FILE *f = fopen("/proc/sys/net/core/default_qdisc", "r");

	if (f) {
		if (!fgets(name, sizeof(name), f))
			name[0] = '\0';
		fclose(f);
	}
	name[strcspn(name, "\n")] = '\0';
	return !strcmp(name, k->kind);
}

/* Tells .init (bq_instance_create()) whether an unload is looking for live qdiscs. */
static int set_closing(const struct bq_kind *k, bool closing)
{
	int fd = bq_open_map(k, "bq_config"), err;
	struct bq_config c;
	__u32 zero = 0;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;	/* a load from before bq_config */
	err = bpf_map_lookup_elem(fd, &zero, &c) ? -errno : 0;
	if (!err && c.closing != closing) {
		c.closing = closing;
		err = bpf_map_update_elem(fd, &zero, &c, BPF_EXIST) ? -errno : 0;
	}
	close(fd);
	return err;
}

static void tidy_locked(void)
{
	for (size_t i = 0; i < bq_nkinds; i++) {
		const struct bq_kind *k = &bq_kinds[i];

		/* Left by a load of a file that died before its link. */
		if (k->path && !bq_is_loaded(k) && !bq_has_state(k))
			unpin_all(k);
		if (!bq_has_state(k))
			continue;
		/* Kept by unload --force for qdiscs that are gone now. */
		if (!bq_is_loaded(k) && !live_instances(k) && !is_default_qdisc(k)) {
			unpin_all(k);
			continue;
		}
		unpin_stale_egress(k);
		/* Left by an unload that died: no unload runs while we hold the lock. */
		if (bq_is_loaded(k))
			set_closing(k, false);
	}
}

/* Skipped if a load or unload holds the lock for long: the next command tidies. */
void bq_tidy(void)
{
	int lock = lock_pins();

	if (lock < 0)
		return;
	tidy_locked();
	close(lock);
}

/*
 * Programs pinned beside the maps. Every kind has bq_change, pinned as
 * "change" (bq_write_params()). A kind may carry a tc program (SEC("tc"))
 * that works for its qdiscs at the device's egress hook, just before
 * enqueue (bpf_hbm sets CE there), pinned as "egress"; bq_attach_egress()
 * attaches it to a device. An earlier load's pins, kept for its live
 * qdiscs, are replaced: the new programs share its maps, and attachments
 * hold the old egress program.
 */
static int pin_progs(const struct bq_kind *k, struct bpf_object *obj)
{
	struct bpf_program *p;
	char path[256];
	int err = 0;

	bpf_object__for_each_program(p, obj) {
		enum bpf_prog_type t = bpf_program__type(p);

		if (t != BPF_PROG_TYPE_SCHED_CLS && t != BPF_PROG_TYPE_SYSCALL)
			continue;
		bq_pin_path(path, sizeof(path), k, t == BPF_PROG_TYPE_SYSCALL ? "change" : "egress");
		unlink(path);
		err = bpf_program__pin(p, path);
		if (err)
			break;
	}
	return err;
}

/*
 * The pinned tcx link at path runs prog from now on, if it ran an earlier
 * load's program (systemctl restart): that one reads the earlier load's
 * maps, where a new qdisc's aggregates are not.
 */
static int refresh_egress(const char *path, int prog)
{
	struct bpf_link_info link = {};
	struct bpf_prog_info now = {};
	__u32 len = sizeof(link), plen = sizeof(now);
	int fd = bpf_obj_get(path), err = 0;

	if (fd < 0)
		return -errno;
	if (bpf_link_get_info_by_fd(fd, &link, &len) || bpf_prog_get_info_by_fd(prog, &now, &plen))
		err = -errno;
	else if (link.prog_id != now.id && bpf_link_update(fd, prog, NULL))
		err = -errno;
	close(fd);
	return err;
}

/* The pin of k's egress attachment to ifindex of netns (egress_NETNS_IFINDEX). */
static void egress_pin(char *path, size_t len, const struct bq_kind *k, __u64 netns, int ifindex)
{
	char name[64];

	snprintf(name, sizeof(name), "egress_%llx_%d", (unsigned long long)netns, ifindex);
	bq_pin_path(path, len, k, name);
}

int bq_detach_egress(const struct bq_kind *k, __u64 netns, int ifindex)
{
	char path[256];

	egress_pin(path, sizeof(path), k, netns, ifindex);
	return unlink(path) && errno != ENOENT ? -errno : 0;
}

int bq_attach_egress(const struct bq_kind *k, int ifindex)
{
	char path[256];
	int prog, link, err = 0;

	bq_pin_path(path, sizeof(path), k, "egress");
	prog = bpf_obj_get(path);
	if (prog < 0)
		return errno == ENOENT ? 0 : -errno;
	egress_pin(path, sizeof(path), k, bq_self_netns_cookie(), ifindex);
	/*
	 * Attached already (an earlier add on this device): keep the link,
	 * with this load's program in it. A new link would race the kernel,
	 * which detaches an unpinned link later, in a work item: the new
	 * attachment of the same program fails, EEXIST. A pin left by a
	 * deleted device holds a detached link: replace it.
	 */
	if (tcx_ifindex(path) == ifindex) {
		err = refresh_egress(path, prog);
		close(prog);
		return err;
	}
	unlink(path);
	link = bpf_link_create(prog, ifindex, BPF_TCX_EGRESS, NULL);
	if (link < 0 || bpf_obj_pin(link, path))
		err = -errno;
	if (link >= 0)
		close(link);
	close(prog);
	return err;
}

/* The names of the maps a load pins, for each of which fn is called. */
static int for_each_pinned(struct bpf_object *obj, int (*fn)(const struct bq_kind *k,
							      struct bpf_map *m), const struct bq_kind *k)
{
	struct bq_map_desc d[BQ_MAX_SLOT_MAPS];
	size_t n = bq_kind_slot_maps(k, d);
	int err = 0;

	for (size_t i = 0; !err && i < sizeof(pinned_maps) / sizeof(pinned_maps[0]); i++)
		err = fn(k, bpf_object__find_map_by_name(obj, pinned_maps[i]));
	for (size_t i = 0; !err && i < n; i++)
		if (d[i].flags & BQ_MAP_PIN)
			err = fn(k, bpf_object__find_map_by_name(obj, d[i].name));
	return err;
}

static int pin_map(const struct bq_kind *k, struct bpf_map *m)
{
	char path[256];

	if (!m)
		return -ENOENT;
	bq_pin_path(path, sizeof(path), k, bpf_map__name(m));
	if (!access(path, F_OK))
		return 0;	/* an earlier load's map, reused (reuse_map()) */
	return bpf_map__pin(m, path);
}

static int pin_all(const struct bq_kind *k, struct bpf_object *obj, struct bpf_link *link)
{
	char path[256];
	int err;

	err = for_each_pinned(obj, pin_map, k) ?: pin_progs(k, obj);
	if (err)
		return err;
	/* The link last: its pin is what says "loaded". */
	bq_stop_at("link");	/* test_load_lock runs other commands here */
	bq_pin_path(path, sizeof(path), k, "link");
	return bpf_link__pin(link, path);
}

/* m takes over the map an earlier load pinned, if it is of the same shape. */
static int reuse_map(const struct bq_kind *k, struct bpf_map *m)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	char path[256];
	int fd, err;

	if (!m)
		return -ENOENT;
	bq_pin_path(path, sizeof(path), k, bpf_map__name(m));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	err = bpf_map_get_info_by_fd(fd, &info, &len) ? -errno : 0;
	if (!err && (info.type != bpf_map__type(m) || info.key_size != bpf_map__key_size(m) ||
		     info.value_size != bpf_map__value_size(m) ||
		     info.max_entries != bpf_map__max_entries(m))) {
		bq_err("the live qdiscs of an earlier load of %s use a map %s of %u entries of %u bytes, "
		       "this load one of %u of %u: load it as before (--max-instances, --ring-slots, "
		       "--class-slots), "
		       "or delete them", k->kind, bpf_map__name(m), info.max_entries, info.value_size,
		       bpf_map__max_entries(m), bpf_map__value_size(m));
		err = -EEXIST;
	}
	if (!err)
		err = bpf_map__reuse_fd(m, fd);
	close(fd);
	return err;
}

static int load_failed(const struct bq_kind *k, int err)
{
	return bq_error(err, "cannot load %s: %s (LIBBPF_LOG=1 shows libbpf's and the verifier's log)",
	       k->kind, err == -E2BIG ? "a program is too large for the verifier" : strerror(-err));
}

/* Registers the kind's struct_ops: its link, or NULL (said). */
static struct bpf_link *register_kind(const struct bq_kind *k, struct bpf_object *obj)
{
	struct bpf_map *ops = bq_qdisc_ops_map(obj, k->path ?: k->kind);
	struct bpf_link *link = ops ? bpf_map__attach_struct_ops(ops) : NULL;

	if (!link)
		bq_err(errno == EEXIST ? "a qdisc kind %s is already registered by another loader"
				       : "cannot register %s: %s", k->kind, strerror(errno));
	return link;
}

/*
 * A kind from a file keeps its object with its pins (objkind.c), frozen:
 * what its tables say stays what was loaded, whatever becomes of the file.
 */
static int pin_object(const struct bq_kind *k)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_RDONLY_PROG);
	size_t sz;
	struct bq_object_hdr *h = bq_object_value(k, &sz);
	char path[256];
	__u32 zero = 0;
	int fd, err;

	if (!h)
		return -ENOMEM;
	bq_pin_path(path, sizeof(path), k, "bq_object");
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bq_object", sizeof(zero), sz, 1, &mo);
	err = fd < 0 || bpf_map_update_elem(fd, &zero, h, BPF_ANY) || bpf_map_freeze(fd) ||
	      bpf_obj_pin(fd, path) ? -errno : 0;
	if (fd >= 0)
		close(fd);
	free(h);
	return err;
}

/*
 * A kind without the framework: registered, its link pinned, nothing else.
 * Its Qdisc_ops goes in a link whichever section it is in, so that the pin
 * alone holds the registration.
 */
static int load_plain(const struct bq_kind *k)
{
	struct bpf_object *obj = open_kind(k);
	struct bpf_map *ops = obj ? bq_qdisc_ops_map(obj, k->path ?: k->kind) : NULL;
	struct bpf_link *link = NULL;
	char path[256];
	int err = -ENOEXEC;

	if (!ops || bpf_map__set_map_flags(ops, bpf_map__map_flags(ops) | BPF_F_LINK))
		goto out;
	err = bpf_object__load(obj);
	if (err) {
		err = load_failed(k, err);
		goto out;
	}
	link = register_kind(k, obj);
	if (!link) {
		err = -errno;
		goto out;
	}
	bq_pin_path(path, sizeof(path), k, "link");
	err = bpf_link__pin(link, path);
	if (err)
		bq_error(err, "cannot pin %s under %s: %s", k->kind, BQ_PIN_ROOT, strerror(-err));
	bpf_link__destroy(link);	/* the pin holds it now */
out:
	bpf_object__close(obj);
	return err;
}

/*
 * Leaves the framework's .change and .dump out of obj's struct_ops where
 * the kernel has no stub for them (tools/kernel-patches/0003 adds both): a
 * stock kernel refuses a program for either member. Returns 0 or -errno.
 */
static int drop_unsupported_ops(const struct bq_kind *k, struct bpf_object *obj)
{
	static const char *const ops[] = { "change", "dump" };
	struct bpf_map *map = bq_qdisc_ops_map(obj, k->path ?: k->kind);
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_type *t = map && btf ?
		btf__type_by_id(btf, bpf_map__btf_value_type_id(map)) : NULL;
	struct btf *vmlinux = btf__load_vmlinux_btf();
	char stub[32], *data;
	size_t size;
	int err = vmlinux && t ? 0 : -ENOENT;

	data = err ? NULL : bpf_map__initial_value(map, &size);
	for (size_t i = 0; data && i < sizeof(ops) / sizeof(ops[0]); i++) {
		const struct btf_member *m = btf_members(t);

		snprintf(stub, sizeof(stub), "Qdisc_ops__%s", ops[i]);
		if (btf__find_by_name_kind(vmlinux, stub, BTF_KIND_FUNC) > 0)
			continue;
		for (int j = 0; j < btf_vlen(t); j++, m++) {
			size_t off = btf_member_bit_offset(t, j) / 8;
			struct bpf_program *p;

			if (strcmp(btf__name_by_offset(btf, m->name_off), ops[i]) ||
			    off + sizeof(void *) > size)
				continue;
			p = *(struct bpf_program **)(data + off);
			if (p)
				bpf_program__set_autoload(p, false);
			*(void **)(data + off) = NULL;
		}
	}
	btf__free(vmlinux);
	return err;
}

static int load_and_register(const struct bq_kind *k, struct bpf_object *obj,
			     const struct bq_load_opts *o)
{
	struct bq_config config = {
		.userns_slots = o->userns_slots,
		.user_slots = o->user_slots,
		.netns_slots = o->netns_slots,
	};
	struct bpf_link *link;
	__u32 zero = 0;
	int err;

	/*
	 * The maps first, then the programs, so that each failure is told by
	 * its step: a failed load closes every map, and E2BIG is both an
	 * array too large and a program too large for the verifier.
	 */
	err = drop_unsupported_ops(k, obj);
	if (err)
		return bq_error(err, "cannot read the BTF of %s or of the kernel: %s", k->kind, strerror(-err));
	err = bpf_object__prepare(obj);
	if (err == -ENOMEM || err == -E2BIG)
		return bq_error(err, "cannot allocate the maps of %s: %s (try smaller --max-instances or --ring-slots)",
		       k->kind, strerror(-err));
	if (!err)
		err = bpf_object__load(obj);
	if (err)
		return load_failed(k, err);
	err = bpf_map_update_elem(bpf_map__fd(bpf_object__find_map_by_name(obj, "bq_defaults")),
				  &zero, &o->defaults, BPF_ANY) ?:
	      bpf_map_update_elem(bpf_map__fd(bpf_object__find_map_by_name(obj, "bq_config")),
				  &zero, &config, BPF_ANY);
	if (err)
		return bq_error(-errno, "cannot set the defaults of %s: %s", k->kind, strerror(errno));
	link = register_kind(k, obj);
	if (!link)
		return -errno;
	err = pin_all(k, obj, link);
	bpf_link__destroy(link);	/* the pin holds it now */
	if (err) {
		bq_err("cannot pin %s under %s: %s", k->kind, BQ_PIN_ROOT, strerror(-err));
		unpin_load(k);
	}
	return err;
}

/* o->class_slots for a kind with BQ_PER_CLASS maps: as given, else the earlier load's, else the kind's own. */
static int class_slots(const struct bq_kind *k, struct bq_load_opts *o)
{
	__u32 built = bq_kind_class_slots(k);

	if (!built && o->class_slots)
		return bq_invalid("%s has no classes to size: --class-slots is for kinds with "
				  "BQ_PER_CLASS maps (bpf_hbm)", k->kind);
	if (!built)
		return 0;
	if (!o->class_slots)
		o->class_slots = bq_class_slot_count(k) ?: built;
	return 0;
}

static int load_locked(const struct bq_kind *k, struct bq_load_opts *o)
{
	char dir[256], why[512];
	struct bpf_object *obj;
	const char *big = NULL;
	int err;

	if (bq_is_loaded(k))
		return bq_error(-EEXIST, "%s is already loaded", k->kind);
	/* An earlier load's live qdiscs keep its maps, which this load shares. */
	if (!o->max_instances)
		o->max_instances = bq_slot_count(k) ?: BQ_DEFAULT_MAX_INSTANCES;
	err = class_slots(k, o);
	if (err)
		return err;
	if (o->userns_slots >= o->max_instances)
		return bq_invalid("--userns-slots %u leaves none of the %u slots to the initial user namespace",
		       o->userns_slots, o->max_instances);
	if (o->netns_slots >= o->max_instances)
		return bq_invalid("--netns-slots %u leaves none of the %u slots to the initial network namespace",
		       o->netns_slots, o->max_instances);
	bq_pin_path(dir, sizeof(dir), k, NULL);
	if (bq_pin_dir(dir, why, sizeof(why)))
		return bq_error(-EPERM, "%s", why);
	/* First: a load that dies after it leaves what bq_tidy() finds. */
	err = k->path ? pin_object(k) : 0;
	if (err) {
		bq_err("cannot keep the object of %s under %s: %s", k->kind, dir, strerror(-err));
		rmdir(dir);
		return err;
	}
	if (k->plain) {
		err = load_plain(k);
		if (err)
			unpin_all(k);
		return err;
	}
	obj = open_framework(k);
	if (!obj) {
		unpin_all(k);
		return -ENOEXEC;
	}
	err = size_maps(k, obj, o, &big);
	if (err == -E2BIG) {
		err = bq_invalid("--max-instances %u (--ring-slots %u, --class-slots %u) is too many for "
				 "%s: its map %s would exceed %u entries", o->max_instances,
				 o->ring_slots, o->class_slots, k->kind, big, BQ_MAX_TOTAL_SLOTS);
	} else if (err) {
		err = bq_error(-ENOEXEC, "the %s object lacks the bpfqdisc framework maps", k->kind);
	} else if ((err = for_each_pinned(obj, reuse_map, k))) {
		if (err != -EEXIST)
			bq_err("cannot reuse the maps of the earlier load of %s: %s", k->kind,
			       strerror(-err));
	} else {
		err = load_and_register(k, obj, o);
	}
	bpf_object__close(obj);
	if (err && k->path)
		unpin_all(k);	/* a kind from a file has no earlier load's state */
	else if (err)
		rmdir(dir);	/* made above; an earlier load's state keeps it */
	return err;
}

/*
 * The live qdiscs of a kind without the framework, which keeps no table of
 * them, in every network namespace: each holds a reference to the kind's
 * struct_ops map, and the map's value tells how many references the kernel
 * holds (common.refcnt: all but those of fds and pins). The only other is
 * the registration's link. 0 or -errno.
 */
static int plain_live_qdiscs(const struct bq_kind *k, size_t *n)
{
	struct bpf_link_info link = {};
	struct bpf_map_info map = {};
	__u32 link_len = sizeof(link), map_len = sizeof(map), zero = 0, refs;
	void *value = NULL;
	char path[256];
	int lfd, mfd = -1, err;

	bq_pin_path(path, sizeof(path), k, "link");
	lfd = bpf_obj_get(path);
	err = lfd < 0 || bpf_link_get_info_by_fd(lfd, &link, &link_len) ? -errno : 0;
	if (!err && link.type != BPF_LINK_TYPE_STRUCT_OPS)
		err = -EINVAL;
	if (!err)
		mfd = bpf_map_get_fd_by_id(link.struct_ops.map_id);
	if (!err && (mfd < 0 || bpf_map_get_info_by_fd(mfd, &map, &map_len)))
		err = -errno;
	if (!err && (map.value_size < sizeof(refs) || !(value = malloc(map.value_size))))
		err = -ENOMEM;
	if (!err && bpf_map_lookup_elem(mfd, &zero, value))
		err = -errno;
	if (!err) {
		memcpy(&refs, value, sizeof(refs));	/* struct bpf_struct_ops_common_value */
		*n = refs > 1 ? refs - 1 : 0;
	}
	free(value);
	if (mfd >= 0)
		close(mfd);
	if (lfd >= 0)
		close(lfd);
	return err;
}

/* How many of kind k's qdiscs tc shows in this network namespace. */
static size_t plain_qdiscs_here(const struct bq_kind *k)
{
	struct bq_qdisc_info *q = NULL;
	size_t n = 0, here = 0;

	if (!bq_nl_qdisc_list(0, &q, &n))
		for (size_t i = 0; i < n; i++)
			here += !strcmp(q[i].kind, k->kind);
	free(q);
	return here;
}

static int unload_plain(const struct bq_kind *k, bool force)
{
	size_t live = 0;
	int err = force ? 0 : plain_live_qdiscs(k, &live);

	if (err) {
		return bq_error(err, "cannot read the references to %s's struct_ops (%s), so cannot tell whether "
		       "qdiscs of it are live; repeat with --force to unload anyway", k->kind,
		       strerror(-err));
	}
	if (live) {
		return bq_error(-EBUSY, "%s has %zu live qdisc(s) (%zu in this network namespace): unloading "
		       "stops new ones from being created, the live ones keep working until deleted; "
		       "repeat with --force to do it", k->kind, live, plain_qdiscs_here(k));
	}
	unpin_all(k);
	return 0;
}

/*
 * Under the lock of the pins. A plain unload sets closing before it looks
 * for live qdiscs and keeps it until the maps are gone, so a tc qdisc add
 * meanwhile either is refused or is found here (bq_instance_create()).
 */
static int unload_locked(const struct bq_kind *k, bool force)
{
	char path[256];
	size_t n = 0;
	int err;

	if (!bq_is_loaded(k))
		return bq_error(-ENOENT, "%s is not loaded", k->kind);
	if (is_default_qdisc(k) && !force) {
		return bq_error(-EBUSY, "%s is net.core.default_qdisc: the kernel would go on creating it, unregistered; "
		       "set another default first, or repeat with --force", k->kind);
	}
	if (k->plain)
		return unload_plain(k, force);
	err = set_closing(k, true);
	/* BPF's side of the barrier pair is the claim's compare-and-swap. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!err)
		err = bq_owned_slots(k, &n);
	if (!err && (n || is_default_qdisc(k)) && force) {
		/*
		 * Unregister only: the maps and egress attachments stay pinned,
		 * so the live qdiscs stay in stats and can be changed, keep
		 * being marked, and a new load (systemctl restart) shares the
		 * maps with them. bq_tidy() unpins them once they are gone.
		 * The kernel goes on creating the default kind: not closing.
		 */
		bq_pin_path(path, sizeof(path), k, "link");
		err = set_closing(k, false) ?: unlink(path) ? -errno : 0;
		return err ? bq_error(err, "cannot unregister %s: %s", k->kind, strerror(-err)) : 0;
	}
	if (err && !force) {
		set_closing(k, false);
		return bq_error(err, "cannot read the instances of %s (%s), so cannot tell whether qdiscs are live; "
		       "repeat with --force to unload anyway", k->kind, strerror(-err));
	}
	if (n && !force) {
		set_closing(k, false);
		return bq_error(-EBUSY, "%s has %zu live qdisc(s): unloading stops new ones from being created, "
		       "the live ones keep working until deleted; repeat with --force to do it", k->kind, n);
	}
	bq_stop_at("unpin");	/* test_unload_race adds a qdisc here */
	unpin_all(k);
	return 0;
}

/* Under the lock of the pins: loads k with o, or (o NULL) unloads it. */
static int with_pins_locked(const struct bq_kind *k, struct bq_load_opts *o, bool force)
{
	int lock = lock_pins_or_say(), err;

	if (lock < 0)
		return lock;
	err = o ? load_locked(k, o) : unload_locked(k, force);
	close(lock);
	return err;
}

int bq_load(const struct bq_kind *k, struct bq_load_opts *o)
{
	return with_pins_locked(k, o, false);
}

int bq_unload(const struct bq_kind *k, bool force)
{
	return with_pins_locked(k, NULL, force);
}
