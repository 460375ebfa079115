/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpfqdisc: what BPF qdiscs and user space share.
 *
 * Each qdisc object has the same maps, so one loader and one stats reader
 * serve every kind:
 *   bq_slots      ARRAY  slot -> struct bq_slot, then the kind's own state
 *                        (BQ_STATE()): all an op needs, in one lookup.
 *                        A slot numbers an instance's region in per-slot
 *                        maps, and Qdisc.limit holds it (bq_instance()).
 *                        User space changes the parameters live, through
 *                        the kind's program bq_change (struct bq_change)
 *   bq_defaults   ARRAY  [0] -> struct bq_params an instance starts with
 *   bq_config     ARRAY  [0] -> struct bq_config: which qdiscs .init admits
 *   bq_slot_locks ARRAY  slot -> the lock under which .init fills in a new
 *                        instance and bq_change (below) changes the
 *                        parameters of the one it was asked for
 * and the maps of the parts the kind uses (include/bq/: bq_ring, bq_pool,
 * bq_timeq) and of its own, with a region per slot (BQ_SLOT_MAP()).
 * Included by both BPF (after vmlinux.h) and user space (after linux/types.h).
 */
#ifndef BPFQDISC_H
#define BPFQDISC_H

/*
 * The framework's interface version: what an object's tables and maps
 * mean to the loader (this header's structs, the .rodata.bq_* sections,
 * the framework's map names). core.bpf.h records it in every object
 * (.rodata.bq_version); the loader takes an object of its own major and
 * of a minor up to its own (docs/writing-a-qdisc.md, "What is stable").
 * Defined unless given: the tests build objects for other versions (-D).
 */
/*
 * 2: a new qdisc's parameters in its TCA_OPTIONS (struct bq_options), no bq_pending.
 * 2.1: .change and .dump programs, which the loader leaves out where the
 * kernel has no stub for them (tools/kernel-patches/0003): a 2.0 loader
 * would hand them to a kernel that refuses the whole map.
 * 2.2: bq_config.user_slots and bq_instance.userns_owner (both were pad):
 * .init bounds the user namespaces' slots per user. An older object
 * ignores them, so the loader gives it user namespaces only with
 * --user-slots equal to --userns-slots (no bound per user).
 * 2.3: with bq_config.netns_slots, a user namespace root made (a pod's of
 * hostUsers: false) is root's, like a netns root made: it holds at most
 * netns_slots, over its netns and the namespaces nested in it, and none
 * of userns_slots (bq_instance.userns BQ_USERNS_ROOT). An older object
 * counts it among userns_slots, as uid 0's.
 * Also 2.3: slot maps of BQ_PER_CLASS(n) entries per slot, the count a load
 * picks (--class-slots; n, the kind's, unless given) and the object reads
 * as bq_class_slots. A 2.2 loader would size such a map 2^31 a slot.
 * 2.4: the parts pages.bpf.h (tables in arena pages that follow use, and
 * bq_arena_held, the pages each slot holds), rank.bpf.h (a rank queue,
 * and BQ_RANK_QDISC: a kind made of a rank function), bits.bpf.h and
 * classify.bpf.h (bpf_hbm's class key). Nothing the loader reads changed; by the rule, an addition to
 * the parts is a minor, and a 2.3 loader refuses objects built with them.
 */
#ifndef BQ_FRAMEWORK_MAJOR
#define BQ_FRAMEWORK_MAJOR	2
#endif
#ifndef BQ_FRAMEWORK_MINOR
#define BQ_FRAMEWORK_MINOR	4
#endif

struct bq_version {
	__u32 major;
	__u32 minor;
};

#define BQ_MAX_PARAMS		20	/* fq: 14, its priomap and 3 band weights */
#define BQ_MAX_XSTATS		8
#define BQ_KIND_LEN		16	/* Qdisc_ops.id, with its NUL */
#define BQ_CG_LEVELS		32	/* cgroup levels a class by cgroup may be at */

/* Load-time sizes; the loader may raise them (bpfqdisc load KIND ...). */
#define BQ_DEFAULT_MAX_INSTANCES	64
#define BQ_DEFAULT_RING_SLOTS		16384	/* power of two: max FIFO limit */

/*
 * Why packets were dropped, counted in bq_counters.drops[]: the framework's
 * reasons, which every kind has and the parts use, then the kind's own
 * from BQ_DROP_KIND on, named with BQ_DROP_REASONS() in its .bpf.c (the
 * table lands in .rodata.bq_drops), as its parameters are. A kind adds a
 * reason without changing anything it shares.
 */
enum bq_drop_reason {
	BQ_DROP_NO_INSTANCE,	/* packet for a qdisc with no state: a bug */
	BQ_DROP_OVERLIMIT,	/* qdisc limit reached */
	BQ_DROP_NOMEM,		/* no room for the packet or its flow's state */
	BQ_DROP_KIND,		/* the kind's first own reason */
};
#define BQ_MAX_DROPS		8

struct bq_drop_desc {
	char name[24];
};

struct bq_counters {
	__u64 enqueued;
	__u64 dequeued;
	__u64 dequeued_bytes;
	__u64 drops[BQ_MAX_DROPS];
	__u64 marks;		/* packets a policy wanted congestion-marked */
	__u64 overlimits;	/* times dequeue held back a packet (pacing) */
	__u64 resets;
	__u64 x[BQ_MAX_XSTATS];	/* the kind's own, named by its BQ_XSTATS() */
};

/* How user space parses and prints a parameter (tc's units). */
enum bq_unit {
	BQ_UNIT_COUNT,		/* plain number: limit 10000 */
	BQ_UNIT_BYTES,		/* 1514, 3k, 64kb, 1mb */
	BQ_UNIT_TIME,		/* nanoseconds; 10ms, 3s, 500us */
	BQ_UNIT_RATE,		/* bytes per second; 200mbit, 1gbit, 10mbps */
	BQ_UNIT_BOOL,		/* on|off */
	BQ_UNIT_PRIOMAP,	/* a band per priority 0..15, 16 digits: 1222120011111111;
				 * kept one per nibble, priority 0 lowest; each digit
				 * at most max's nibble */
	BQ_UNIT_TIME_NS,	/* nanoseconds, a bare number too (tc's fq timer_slack) */
};

/*
 * A qdisc describes its parameters in its own .bpf.c with BQ_PARAMS(); the
 * table lands in section .rodata.bq_params, which the loader reads from the
 * object. The index of an entry is its index in bq_params.v[], and its
 * field's in the kind's struct of parameters (BPF reads them by name).
 */
/*
 * A default of BQ_AUTO: the qdisc works the value out for each instance
 * (fq's quantum from its device's MTU) and writes it into the instance's
 * parameters; shown as "auto" until then. Outside every range: nobody
 * can give it.
 */
#define BQ_AUTO			(~0ULL)

struct bq_param_desc {
	char name[24];
	__u32 unit;		/* enum bq_unit */
	__u64 def;
	__u64 min;
	__u64 max;
};

/*
 * A qdisc's own statistics (flows, throttled, ...) in bq_counters.x[], named
 * with BQ_XSTATS() in its .bpf.c; the table lands in .rodata.bq_xstats.
 */
enum bq_xstat_type {
	BQ_COUNTER,		/* only grows: Prometheus counter */
	BQ_GAUGE,		/* goes up and down */
};

struct bq_xstat_desc {
	char name[24];
	__u32 type;		/* enum bq_xstat_type */
};

/*
 * A map with a region of per_slot entries per instance slot, declared with
 * BQ_SLOT_MAP(); the entries land in .rodata.bq_maps. The loader sizes it
 * max_instances * per_slot entries (* ring_slots for BQ_PER_RING, *
 * class_slots for BQ_PER_CLASS) and pins it if flags has BQ_MAP_PIN (user
 * space reads it, or a later load's programs must share it with the live
 * qdiscs of this one).
 */
#define BQ_PER_RING		0
/*
 * BQ_PER_CLASS(n): a region of --class-slots entries, n (a power of two
 * below 2^24) unless the load gives another: the classes (aggregates) a
 * qdisc of the kind may have, which a load for qdiscs that need few (a
 * pod's) makes small. BQ_PER_CLASS_SHIFT(n, s): 2^s times as many (a time
 * queue of the aggregates holds one entry more than they are). Every such
 * map of an object has the same n.
 */
#define BQ_PER_CLASS_FLAG	0x80000000U
#define BQ_PER_CLASS_COUNT	0x00ffffffU
#define BQ_PER_CLASS_SHIFT(n, s)	(BQ_PER_CLASS_FLAG | (s) << 24 | (n))
#define BQ_PER_CLASS(n)		BQ_PER_CLASS_SHIFT(n, 0)
/* How many times --class-slots a BQ_PER_CLASS_SHIFT map's region is, as a shift. */
#define BQ_PER_CLASS_SHIFT_OF(per_slot)	(((per_slot) >> 24) & 0x7f)
#define BQ_MAP_PIN		1
#define BQ_MAX_SLOT_MAPS	32

struct bq_map_desc {
	char name[24];
	__u32 per_slot;
	__u32 flags;
};

/*
 * Classes (`bpfqdisc class add|change|del|show`): settings for one
 * aggregate of one qdisc, an aggregate being the traffic of one key: a
 * cgroup, an skb mark or an skb priority (enum bq_class_by). A kind
 * declares them in its .bpf.c, as it does its parameters:
 *   BQ_CLASSES()     its class map, HASH struct bq_class_key -> the kind's
 *                    struct of fields, what names its aggregates, and the
 *                    fields (.rodata.bq_classes, .rodata.bq_class_fields)
 *   BQ_CLASS_AGGS()  optional: the slot map of its aggregates, whose
 *                    counters class show prints (.rodata.bq_class_aggs,
 *                    .rodata.bq_class_counters)
 * and src/class.c does the rest from what the loader reads of them.
 */
enum bq_class_by {
	BQ_BY_CGROUP,		/* cgroup v2 id of the sending socket */
	BQ_BY_MARK,		/* skb->mark (SO_MARK, iptables MARK) */
	BQ_BY_PRIORITY,		/* skb->priority (SO_PRIORITY) */
	BQ_BY_KEYS,
};

/*
 * gen: the created_ns of the qdisc the class is for. A class written for
 * a qdisc that tc replaced meanwhile, whose slot a new one took, is then
 * one the new qdisc never reads.
 */
struct bq_class_key {
	__u32 slot;		/* the qdisc's bq_instance.slot */
	__u32 pad;
	__u64 gen;
	__u64 id;		/* cgroup id, mark or priority */
};

#define BQ_MAX_CLASS_FIELDS	8	/* fields of a class, counters of an aggregate */

/*
 * A field of a class (a __u32 or __u64 of the class map's value), parsed
 * and printed in its unit within [min, max]; or a counter of an aggregate
 * (a __u64 of its entry, unit BQ_UNIT_COUNT).
 */
struct bq_class_field {
	char name[24];
	__u32 unit;		/* enum bq_unit */
	__u32 offset;		/* in the value */
	__u32 size;		/* 4 or 8 */
	__u32 pad;
	__u64 min;
	__u64 max;
	char param[24];		/* the parameter an aggregate without a class has
				 * instead; "": 0 */
	char zero[16];		/* what 0 means, printed instead ("unlimited"); "": 0 */
};

struct bq_class_desc {
	char map[24];		/* the class map */
	char by_param[24];	/* the parameter (enum bq_class_by) that says what
				 * names an aggregate; "": always by */
	__u32 by;
	__u32 pad;
};

/*
 * The aggregates a qdisc has seen: entries first .. first + n - 1 of its
 * region of the slot map `map`, n being its statistic `count`; each
 * entry has its key, a __u64, at offset id.
 */
struct bq_class_aggs {
	char map[24];
	char count[24];		/* a name of its BQ_XSTATS() */
	__u32 id;
	__u32 first;
};

/* Per-kind parameter values, indexed as the kind's BQ_PARAMS() table: in
 * BPF, the kind's struct of __u64 fields laid over v[]. */
struct bq_params {
	__u64 v[BQ_MAX_PARAMS];
};

/*
 * TCA_OPTIONS of a BPF qdisc: what `bpfqdisc qdisc add|replace` and tc's
 * plugin (q_bpf_KIND.so) put in the netlink request that creates it, and
 * what .init reads (its opt). The payload is exactly this struct; v[i] is
 * the kind's parameter i (its table's order), in the unit the table
 * gives, and counts only where bit i of given is set: the others take
 * the kind's defaults (bq_defaults). .init refuses anything else with an
 * errno, as no text reaches tc from a BPF qdisc: EINVAL for a payload of
 * another size or magic or a bit beyond the kind's table, ERANGE for a
 * value outside its range (min..max; on|off 0 or 1; a priomap's bands
 * each at most max's; BQ_AUTO never). No options at all (opt NULL), or
 * an empty payload, means the defaults.
 */
#define BQ_OPT_MAGIC		0x31716262	/* "bbq1": this layout */

struct bq_options {
	__u32 magic;
	__u32 given;		/* bit i: v[i] was given */
	__u64 v[BQ_MAX_PARAMS];
};

/* Where a qdisc sits: device (in its netns) and parent handle. */
struct bq_where {
	__u64 netns_cookie;
	__u32 ifindex;
	__u32 parent;		/* TC_H_ROOT (0xffffffff) for root */
};

struct bq_instance {
	/* Hot: touched by every packet. */
	__u32 slot;
	__u32 userns_owner;	/* whom userns charges (BQ_USERNS_*) */
	struct bq_counters cnt;
	/* Cold: who this is, for user space. */
	struct bq_where where;
	__u32 handle;
	__u32 userns;		/* BQ_USERNS_*: whose user namespace its netns's is */
	__u64 created_ns;	/* CLOCK_MONOTONIC */
};

/*
 * bq_instance.userns, as .init counts the qdisc (struct bq_config): in the
 * initial user namespace; in a user's, one of userns_slots, charged to
 * userns_owner, the uid owning the outermost user namespace above its
 * netns; (2.3) in one root made, one of that namespace's netns_slots,
 * userns_owner its inode number.
 */
#define BQ_USERNS_INITIAL	0
#define BQ_USERNS_USER		1
#define BQ_USERNS_ROOT		2

/*
 * What .init checks before it keeps the slot it claimed. Any local user
 * can make a user namespace and a netns in it (Debian allows it), and tc
 * qdisc add there runs .init: such qdiscs may hold at most userns_slots
 * slots (bpfqdisc load --userns-slots; 0 refuses them), so that the rest
 * stay for the initial user namespace, root's, and those of one user at
 * most user_slots (--user-slots), so that one user cannot lock the others
 * out: a user is the owner of the outermost user namespace, whatever ids
 * it maps and nests below it. A container given
 * CAP_NET_ADMIN in a netns of its own is in the initial user namespace:
 * netns_slots (--netns-slots; 0: no cap) bounds what each netns but the
 * initial one may hold. An outermost user namespace that uid 0 owns, such
 * as a runtime makes for a pod or container, is root's too (2.3): with
 * netns_slots, its qdiscs take none of userns_slots, and all of them, in
 * whatever netns and user namespaces its root makes below it, hold at
 * most netns_slots (without, they are uid 0's among userns_slots).
 * closing is 1 while bq_unload looks for live qdiscs before it unpins the
 * kind.
 */
struct bq_config {
	__u32 userns_slots;
	__u32 closing;
	__u32 netns_slots;
	__u32 user_slots;
};
/* The initial netns's inode number (PROC_NET_INIT_INO), fixed by the kernel. */
#define BQ_INIT_NET_INUM	0xEFFFFFF9U

/* The framework's part of a bq_slots value; the kind's state follows. */
struct bq_slot {
	__u64 owner;		/* Qdisc pointer owning the slot; 0 = free */
	struct bq_instance inst;	/* written by BPF only; all zero when free */
	struct bq_params params;	/* user space changes them in place */
};

/*
 * What `bpfqdisc qdisc change` asks of the kind's BPF_PROG_TYPE_SYSCALL
 * program bq_change (pinned as "change", run with BPF_PROG_TEST_RUN): these
 * parameters for the instance of this slot created at created_ns. It
 * writes them only if that instance still holds the slot, and returns
 * -ESTALE if not: a qdisc replaced after user space looked it up leaves its
 * slot to a new instance, whose parameters a write would overwrite. The
 * check and the write are one step under the slot's lock, which .init
 * holds while it fills in an instance.
 */
struct bq_change {
	__u32 slot;
	__u32 pad;
	__u64 created_ns;
	struct bq_params params;
};

#endif /* BPFQDISC_H */
