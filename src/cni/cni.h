/* SPDX-License-Identifier: GPL-2.0 */
/* bpfqdisc-bandwidth, a chained CNI plugin: its config, errors and state. */
#ifndef BQ_CNI_H
#define BQ_CNI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "lib.h"

/* The spec's error codes (SPEC.md, "Error"), and the plugin's own (>= 100). */
enum cni_code {
	CNI_ERR_VERSION = 1,
	CNI_ERR_FIELD = 2,
	CNI_ERR_CONTAINER = 3,
	CNI_ERR_ENV = 4,
	CNI_ERR_IO = 5,
	CNI_ERR_DECODE = 6,
	CNI_ERR_CONFIG = 7,
	CNI_ERR_AGAIN = 11,
	CNI_ERR_UNAVAILABLE = 50,
	CNI_ERR_LIMIT = 100,		/* a limit could not be put in force */
	CNI_ERR_NOT_IN_FORCE = 101,	/* CHECK: a limit asked for is not in force */
};

struct cni_err {
	int code;		/* 0: no error */
	char msg[256];
	char details[512];
};
/* Sets *e (code, msg, details) and returns -1. */
int cni_fail(struct cni_err *e, int code, const char *msg, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* cni_fail() with the library's last error: msg "what: ERROR", details ERROR. */
int cni_fail_lib(struct cni_err *e, int code, const char *what);
/* Back to the node's netns from a bq_netns_enter_path(); the plugin stops
 * if it cannot, rather than go on in the pod's. */
void cni_netns_leave(int back);
/* The error JSON, on f, for a config of version (NULL: the newest). */
void cni_err_print(FILE *f, const char *version, const struct cni_err *e);

/* The versions this plugin speaks, oldest first; NULL-terminated. */
extern const char *const cni_versions[];
bool cni_version_supported(const char *v);
/* The versions as a list for people: "0.3.0, 0.3.1, ...". */
const char *cni_versions_text(void);
/* <0, 0, >0 as a sorts before, equal to or after b ("1.0.0" > "0.4.0"). */
int cni_version_cmp(const char *a, const char *b);

/* Whether s is a name as libcni's ValidateContainerID and
 * ValidateNetworkName take it: [A-Za-z0-9][A-Za-z0-9_.-]*. */
bool cni_id_valid(const char *s);

/* Rates in bit/s, bursts in bits, as runtimeConfig.bandwidth has them. */
struct cni_limits {
	uint64_t ingress_rate, ingress_burst;
	uint64_t egress_rate, egress_burst;
};
bool cni_limits_any(const struct cni_limits *l);

struct cni_conf {
	char version[16];
	char name[256];
	struct cni_limits lim;
	/* shapedSubnets, unshapedSubnets of the entry lim is from (.p NULL
	 * if none): cni_subnets_parse() reads them. */
	struct bq_cj_span subnets[2];
	struct bq_cj_span doc;
	struct bq_cj_span prev;		/* prevResult as sent; .p NULL if none */
	struct bq_cj_span attachments;	/* GC's cni.dev/valid-attachments */
};
/*
 * Reads and checks a network config: the limits from the top level if it
 * has any of the four fields, else from runtimeConfig.bandwidth, as the
 * reference plugin does. 0, or -1 with *e set (6: not JSON, 1: a version
 * this plugin does not speak, 7: invalid).
 */
int cni_conf_parse(const char *buf, size_t n, struct cni_conf *c, struct cni_err *e);
/* A prefix as the reference's filter matches it: an IPv4-mapped IPv6
 * prefix is IPv4's (Go's To4()), the address masked to its bits. */
struct cni_subnet {
	uint8_t family;		/* 4 or 6 */
	uint8_t bits;
	uint8_t addr[16];	/* IPv4 in the first 4 bytes */
};

/* Prefixes a list may have: each is an entry of the pod's qdisc's and
 * backstop's subnets (include/pod_subnets.h, 64 a qdisc, one for the rest). */
#define CNI_SUBNETS_MAX		63

/* The list in force: the listed prefixes are shaped (shapedSubnets) and
 * the rest not, or the other way round (unshapedSubnets); n 0: no list. */
struct cni_subnets {
	bool shaped;
	size_t n;
	struct cni_subnet s[CNI_SUBNETS_MAX];
};
/* The reference's check of its subnet lists, and the list in force into
 * *s: a CIDR each, not both lists, at most CNI_SUBNETS_MAX. 0, or -1 with
 * *e set (code 7). */
int cni_subnets_parse(const struct cni_conf *c, struct cni_subnets *s, struct cni_err *e);
/* The same check alone. */
int cni_subnets_valid(const struct cni_conf *c, struct cni_err *e);
/* The reference's rule for one direction: 0, or -1 with *e set (code 7). */
int cni_limit_valid(uint64_t rate, uint64_t burst, const char *dir, struct cni_err *e);

/*
 * Whether a member's name (key, a JSON string) is name to Go's decoder,
 * which the reference decodes with: upper-cased both (Go 1.21's
 * encoding/json), so a letter in either case, and U+017F (long s) for an
 * s, U+0131 (dotless i) for an i, which upper-case to S and I.
 */
bool cni_name_is(struct bq_cj_span key, const char *name);
/*
 * obj's member name as Go's decoder, the reference's, finds it: whatever
 * the case of its name, the last; with keep_on_null, the last that is not
 * null (null leaves a Go string or number as it was). true if found.
 */
bool cni_member(struct bq_cj_span obj, const char *name, bool keep_on_null, struct bq_cj_span *out);

/* Whether c's prevResult is what the reference's decoder takes as a Result
 * of c's version: 0 (also when there is none), or -1 with *e set (code 7). */
int cni_prev_valid(const struct cni_conf *c, struct cni_err *e);

/* Whether c's members of libcni's NetConf (type, capabilities, ipam, dns)
 * have the types the reference's decoder takes: 0, or -1 with *e set
 * (code 7). */
int cni_netconf_valid(const struct cni_conf *c, struct cni_err *e);

/* Whether v is a string Go's net.ParseCIDR takes: ADDRESS/BITS; its
 * prefix into *out unless NULL. */
bool cni_go_cidr(struct bq_cj_span v, struct cni_subnet *out);

/* The host-side interfaces (no "sandbox") of a result: a name each time. */
bool cni_result_host_ifname(struct bq_cj_span result, const char *name);

/*
 * The node installer's edit of a conflist's text: the plugin in place of
 * an entry of type "bandwidth" (its type alone changes, so its other
 * fields stay), else after the main (first) plugin; nothing if it is there
 * already. Every other byte stays. 1: *out (malloc'd) is the new text;
 * 0: no change; -1: refused. *what says which.
 */
int cni_conflist_add(const char *in, size_t n, char **out, size_t *outlen, char *what,
		     size_t whatlen);

#endif
