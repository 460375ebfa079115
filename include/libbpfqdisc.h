/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libbpfqdisc: drive bpfqdisc's BPF qdiscs from a program (docs/libbpfqdisc.3).
 *
 * Load a kind, add, change, delete and read its qdiscs, their classes and
 * statistics, without running the CLI. Parameters and class fields are
 * tc's words ("rate", "20mbit"), as bpfqdisc and tc take them.
 *
 * Every function that can fail returns 0 (or a count) on success and a
 * negative errno on failure; bq_last_error() then says why, in one line,
 * for the calling thread. The library prints nothing unless given a print
 * function (bq_set_print()). The library is not thread-safe otherwise:
 * call it from one thread at a time.
 *
 * Link: pkg-config --cflags --libs libbpfqdisc.
 */
#ifndef LIBBPFQDISC_H
#define LIBBPFQDISC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBBPFQDISC_MAJOR	0	/* the soname's: libbpfqdisc.so.0 */
#define LIBBPFQDISC_MINOR	2

#ifndef BQ_API
#define BQ_API __attribute__((visibility("default")))
#endif

/* A parent that is the device's root (tc's "root"). */
#define BQ_ROOT			0xFFFFFFFFU

/* --- errors and messages --- */
/* The message of the last failure in this thread ("" if none). */
BQ_API const char *bq_last_error(void);
enum bq_print_level { BQ_PRINT_ERROR, BQ_PRINT_WARNING };
/* Called with every error and warning as it happens; NULL (the default): none. */
typedef void (*bq_print_fn)(enum bq_print_level level, const char *msg);
BQ_API void bq_set_print(bq_print_fn fn);

/* --- where --- */
/*
 * Enters network namespace name (/run/netns/NAME, or a path), as ip -n
 * does: only the network namespace changes, /sys/fs/bpf stays visible.
 */
BQ_API int bq_enter_netns(const char *name);
/* tc's handle syntax, "1:" or "1:2" in hex, into *out. 0 or -EINVAL. */
BQ_API int bq_parse_handle(const char *text, uint32_t *out);

/* --- kinds --- */
/* How to load a kind: 0 in each limit for its default (bpfqdisc(8), load). */
struct bq_kind_opts {
	uint32_t max_instances;	/* qdiscs at once; set to the count chosen */
	uint32_t ring_slots;	/* a power of two */
	uint32_t userns_slots;	/* of them for network namespaces of users' user namespaces */
	uint32_t user_slots;	/* of those, for one user */
	uint32_t netns_slots;	/* for each network namespace but the initial one, and
				   each user namespace root made (bpfqdisc(8)) */
	unsigned int flags;	/* BQ_LOAD_* */
	char kind[16];		/* set to the kind loaded: "bpf_NAME" */
	/*
	 * Read only with BQ_LOAD_CLASS_SLOTS (since minor 2; a caller built
	 * before has a struct without it): classes per qdisc, a power of two.
	 */
	uint32_t class_slots;
};
/* A kind without the framework: let every user namespace create its qdiscs. */
#define BQ_LOAD_UNGUARDED	(1U << 0)
/* opts->class_slots is given. */
#define BQ_LOAD_CLASS_SLOTS	(1U << 1)
/*
 * Registers kind bpf_NAME: a built-in one by name ("fifo" or "bpf_fifo"),
 * or one from an object file (a path with a '/' or ending in ".o"). It
 * stays registered after the program exits. argv: PARAM VALUE words, the
 * defaults new qdiscs of the kind start with. opts may be NULL.
 */
BQ_API int bq_kind_load(const char *kind, struct bq_kind_opts *opts, int argc, char **argv);
/* Even with live qdiscs of the kind, which keep working until deleted. */
#define BQ_UNLOAD_FORCE		(1U << 0)
BQ_API int bq_kind_unload(const char *kind, unsigned int flags);
/* 1 if loaded, 0 if not, -ENOENT if no such kind. */
BQ_API int bq_kind_loaded(const char *kind);

/* --- qdiscs: dev, then parent (BQ_ROOT, or tc's major:minor) and handle (0: any) --- */
/* Onto an existing qdisc of the same kind: change its parameters. */
#define BQ_QDISC_REPLACE	(1U << 0)
/* A qdisc of kind with argv's PARAM VALUE words, in force from its first packet. */
BQ_API int bq_qdisc_add(const char *dev, uint32_t parent, uint32_t handle, const char *kind,
			int argc, char **argv, unsigned int flags);
/* Changes the parameters argv names; the next packets see them. */
BQ_API int bq_qdisc_change(const char *dev, uint32_t parent, uint32_t handle, int argc,
			   char **argv);
/* Deletes the qdisc (any kind), as tc qdisc del. */
BQ_API int bq_qdisc_delete(const char *dev, uint32_t parent, uint32_t handle);
/* Parameter name of the BPF qdisc, as tc words would give it ("20Mbit"), into buf. */
BQ_API int bq_qdisc_param(const char *dev, uint32_t parent, uint32_t handle, const char *name,
			  char *buf, size_t len);
/*
 * Statistic name of the qdisc, as bpfqdisc stats -j names it: tc's
 * ("bytes", "packets", "drops", "overlimits", "requeues", "backlog",
 * "qlen"), the BPF qdisc's ("enqueued", "dequeued", "dequeued_bytes",
 * "marks", "throttled", "resets"), a drop reason ("drops.REASON") or one
 * of the kind's own. -ENOENT if it has none of that name.
 */
BQ_API int bq_qdisc_stat(const char *dev, uint32_t parent, uint32_t handle, const char *name,
			 uint64_t *value);

/* --- classes: argv is the aggregate and fields ("cgroup", "/a", "rate", "10mbit") --- */
BQ_API int bq_class_add(const char *dev, uint32_t parent, uint32_t handle, int argc, char **argv);
BQ_API int bq_class_change(const char *dev, uint32_t parent, uint32_t handle, int argc,
			   char **argv);
/* argv: the aggregate alone ("mark", "7"). */
BQ_API int bq_class_delete(const char *dev, uint32_t parent, uint32_t handle, int argc,
			   char **argv);

#ifdef __cplusplus
}
#endif

#endif
