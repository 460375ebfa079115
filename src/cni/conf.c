// SPDX-License-Identifier: GPL-2.0
/*
 * The network config a runtime sends on stdin: the reference bandwidth
 * plugin's fields and rules (a drop-in), the CNI versions, the errors.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cni.h"
#include "lib.h"

/* The reference plugin's: every version from 0.3.0 on. */
const char *const cni_versions[] = { "0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0", NULL };

const char *cni_versions_text(void)
{
	static char text[64];

	for (size_t i = 0, at = 0; cni_versions[i] && at < sizeof(text); i++)
		at += snprintf(text + at, sizeof(text) - at, "%s%s", i ? ", " : "", cni_versions[i]);
	return text;
}

int cni_fail(struct cni_err *e, int code, const char *msg, const char *fmt, ...)
{
	va_list ap;

	e->code = code;
	snprintf(e->msg, sizeof(e->msg), "%s", msg);
	va_start(ap, fmt);
	vsnprintf(e->details, sizeof(e->details), fmt, ap);
	va_end(ap);
	return -1;
}

int cni_fail_lib(struct cni_err *e, int code, const char *what)
{
	const char *why = bq_last_error();

	e->code = code;
	snprintf(e->msg, sizeof(e->msg), "%s: %s", what, why);
	snprintf(e->details, sizeof(e->details), "%s", why);
	return -1;
}

void cni_netns_leave(int back)
{
	if (bq_netns_return(back))
		_exit(BQ_EXIT_FAIL);
}

void cni_err_print(FILE *f, const char *version, const struct cni_err *e)
{
	fputs("{\"cniVersion\":", f);
	bq_json_str(f, version && cni_version_supported(version) ? version : "1.1.0");
	fprintf(f, ",\"code\":%d,\"msg\":", e->code);
	bq_json_str(f, e->msg);
	if (e->details[0]) {
		fputs(",\"details\":", f);
		bq_json_str(f, e->details);
	}
	fputs("}\n", f);
}

bool cni_version_supported(const char *v)
{
	for (size_t i = 0; cni_versions[i]; i++)
		if (!strcmp(v, cni_versions[i]))
			return true;
	return false;
}

int cni_version_cmp(const char *a, const char *b)
{
	for (int i = 0; i < 3; i++) {
		char *ea, *eb;
		long x = strtol(a, &ea, 10), y = strtol(b, &eb, 10);

		if (x != y)
			return x < y ? -1 : 1;
		a = *ea == '.' ? ea + 1 : ea;
		b = *eb == '.' ? eb + 1 : eb;
	}
	return 0;
}

bool cni_limits_any(const struct cni_limits *l)
{
	return l->ingress_rate || l->ingress_burst || l->egress_rate || l->egress_burst;
}

int cni_limit_valid(uint64_t rate, uint64_t burst, const char *dir, struct cni_err *e)
{
	if (rate && !burst)
		return cni_fail(e, CNI_ERR_CONFIG, "if rate is set, burst must also be set",
				"%sRate is %llu bit/s and %sBurst is not set", dir,
				(unsigned long long)rate, dir);
	if (burst && !rate)
		return cni_fail(e, CNI_ERR_CONFIG, "if burst is set, rate must also be set",
				"%sBurst is %llu bits and %sRate is not set", dir,
				(unsigned long long)burst, dir);
	if (burst / 8 >= UINT32_MAX)
		return cni_fail(e, CNI_ERR_CONFIG, "burst cannot be more than 4GB",
				"%sBurst is %llu bits", dir, (unsigned long long)burst);
	return 0;
}

bool cni_name_is(struct bq_cj_span key, const char *name)
{
	char buf[128];
	const char *k = buf;

	if (bq_cj_string(key, buf, sizeof(buf)))
		return false;
	for (; *name; name++) {
		int c = tolower((unsigned char)*name);

		if ((c == 's' && !strncmp(k, "\xc5\xbf", 2)) || (c == 'i' && !strncmp(k, "\xc4\xb1", 2)))
			k += 2;
		else if (*k && tolower((unsigned char)*k) == c)
			k++;
		else
			return false;
	}
	return !*k;
}

struct member_of {
	const char *name;
	bool keep_on_null;
};

static bool go_field(struct bq_cj_span key, struct bq_cj_span val, const void *arg)
{
	const struct member_of *m = arg;

	return cni_name_is(key, m->name) && !(m->keep_on_null && bq_cj_type(val) == BQ_CJ_NULL);
}

bool cni_member(struct bq_cj_span obj, const char *name, bool keep_on_null, struct bq_cj_span *out)
{
	struct member_of m = { name, keep_on_null };

	return bq_cj_member_if(obj, go_field, &m, out);
}

/* A bandwidth entry as Go fills the reference's: present once any of its
 * members is, even null (Go then makes the entry), the limits as set. */
struct bw_entry {
	bool present;
	struct cni_limits lim;
	struct bq_cj_span subnets[2];
};

static const struct {
	const char *name;
	size_t off;
} limit_fields[] = {
	{ "ingressRate", offsetof(struct cni_limits, ingress_rate) },
	{ "ingressBurst", offsetof(struct cni_limits, ingress_burst) },
	{ "egressRate", offsetof(struct cni_limits, egress_rate) },
	{ "egressBurst", offsetof(struct cni_limits, egress_burst) },
};

/* The reference's subnet lists, in the order of struct cni_conf's. */
static const char *const subnet_fields[] = { "shapedSubnets", "unshapedSubnets" };

/* A subnet list's type, which Go's decoder checks. */
static int subnet_list(struct bq_cj_span v, const char *name, struct cni_err *e)
{
	struct bq_cj_span s;
	struct bq_cj_iter it;

	if (bq_cj_type(v) == BQ_CJ_NULL)
		return 0;
	if (bq_cj_type(v) != BQ_CJ_ARRAY)
		return cni_fail(e, CNI_ERR_CONFIG, "invalid network config",
				"%s must be a list of strings", name);
	bq_cj_iter_init(&it, v);
	while (bq_cj_next(&it, NULL, &s))
		if (bq_cj_type(s) != BQ_CJ_STRING)
			return cni_fail(e, CNI_ERR_CONFIG, "invalid network config",
					"%s must be a list of strings", name);
	return 0;
}

/* Member k: v into entry b if it is one of an entry's: 1 if it is, 0 if
 * not, -1 (*e set) if its value is not what Go takes. Null leaves a limit
 * as it was. */
static int entry_member(struct bq_cj_span k, struct bq_cj_span v, struct bw_entry *b,
			struct cni_err *e)
{
	uint64_t x;

	for (size_t i = 0; i < sizeof(limit_fields) / sizeof(limit_fields[0]); i++) {
		if (!cni_name_is(k, limit_fields[i].name))
			continue;
		if (bq_cj_type(v) == BQ_CJ_NULL)
			return 1;
		if (bq_cj_u64(v, &x))
			return cni_fail(e, CNI_ERR_CONFIG, "invalid network config",
					"%s must be an integer from 0 to 18446744073709551615, not %.*s",
					limit_fields[i].name, (int)(v.n > 40 ? 40 : v.n), v.p);
		*(uint64_t *)((char *)&b->lim + limit_fields[i].off) = x;
		return 1;
	}
	for (size_t i = 0; i < sizeof(subnet_fields) / sizeof(subnet_fields[0]); i++) {
		if (!cni_name_is(k, subnet_fields[i]))
			continue;
		if (subnet_list(v, subnet_fields[i], e))
			return -1;
		/* A Go slice: null empties it, a list replaces it. */
		b->subnets[i] = bq_cj_type(v) == BQ_CJ_NULL ? (struct bq_cj_span){} : v;
		return 1;
	}
	return 0;
}

/* runtimeConfig, a struct in Go: a second one adds to the first; its
 * bandwidth a pointer: null drops it, a second adds to the first. */
static int read_runtime(struct bq_cj_span rc, struct bw_entry *rt, struct cni_err *e)
{
	struct bq_cj_span k, v, k2, v2;
	struct bq_cj_iter it, it2;

	if (bq_cj_type(rc) != BQ_CJ_OBJECT)
		return cni_fail(e, CNI_ERR_CONFIG, "invalid network config",
				"runtimeConfig must be an object");
	bq_cj_iter_init(&it, rc);
	while (bq_cj_next(&it, &k, &v)) {
		if (!cni_name_is(k, "bandwidth"))
			continue;
		if (bq_cj_type(v) == BQ_CJ_NULL) {
			*rt = (struct bw_entry){};
			continue;
		}
		if (bq_cj_type(v) != BQ_CJ_OBJECT)
			return cni_fail(e, CNI_ERR_CONFIG, "invalid network config",
					"runtimeConfig.bandwidth must be an object");
		rt->present = true;
		bq_cj_iter_init(&it2, v);
		while (bq_cj_next(&it2, &k2, &v2))
			if (entry_member(k2, v2, rt, e) < 0)
				return -1;
	}
	return 0;
}

/* An optional member that must have type t when present (null: absent). */
static int optional(struct bq_cj_span obj, const char *name, enum bq_cj_type t,
		    struct bq_cj_span *out, struct cni_err *e)
{
	static const char *const names[] = { [BQ_CJ_OBJECT] = "an object", [BQ_CJ_ARRAY] = "an array",
					     [BQ_CJ_STRING] = "a string" };

	*out = (struct bq_cj_span){ NULL, 0 };
	/* Null leaves a string as it was; it empties a map or a list. */
	if (!cni_member(obj, name, t == BQ_CJ_STRING, out) || bq_cj_type(*out) == BQ_CJ_NULL) {
		out->p = NULL;
		return 0;
	}
	if (bq_cj_type(*out) != t)
		return cni_fail(e, CNI_ERR_CONFIG, "invalid network config", "%s must be %s",
				name, names[t]);
	return 0;
}

static int read_version(struct bq_cj_span doc, struct cni_conf *c, struct cni_err *e)
{
	struct bq_cj_span v;

	if (optional(doc, "cniVersion", BQ_CJ_STRING, &v, e))
		return -1;
	if (!v.p || bq_cj_string(v, c->version, sizeof(c->version)) ||
	    !cni_version_supported(c->version)) {
		char given[64] = "";

		if (v.p)
			bq_cj_string(v, given, sizeof(given));
		c->version[0] = '\0';
		return cni_fail(e, CNI_ERR_VERSION, "incompatible CNI versions",
				"config is \"%s\", plugin supports %s", given, cni_versions_text());
	}
	return 0;
}

/* The limits from the top level if it has any of an entry's members,
 * else from runtimeConfig.bandwidth, as the reference takes them. */
static int read_bandwidth(struct bq_cj_span doc, struct cni_conf *c, struct cni_err *e)
{
	struct bw_entry top = {}, rt = {};
	struct bq_cj_span k, v;
	struct bq_cj_iter it;

	bq_cj_iter_init(&it, doc);
	while (bq_cj_next(&it, &k, &v)) {
		int is = entry_member(k, v, &top, e);

		if (is < 0)
			return -1;
		top.present |= is;
		if (!is && cni_name_is(k, "runtimeConfig") && bq_cj_type(v) != BQ_CJ_NULL &&
		    read_runtime(v, &rt, e))
			return -1;
	}
	if (!top.present)
		top = rt;
	c->lim = top.lim;
	memcpy(c->subnets, top.subnets, sizeof(c->subnets));
	return 0;
}

/* Each CIDR of list into out, which has room for CNI_SUBNETS_MAX. */
static int subnets_cidr(struct bq_cj_span list, const char *name, struct cni_subnets *out,
			struct cni_err *e)
{
	struct bq_cj_span s;
	struct bq_cj_iter it;
	struct cni_subnet p;

	bq_cj_iter_init(&it, list);
	while (bq_cj_next(&it, NULL, &s)) {
		if (!cni_go_cidr(s, &p))
			return cni_fail(e, CNI_ERR_CONFIG, "bad subnet provided",
					"%s: %.*s is not ADDRESS/BITS", name, (int)(s.n > 64 ? 64 : s.n),
					s.p);
		/* The reference takes any number; each is an entry of two maps here. */
		if (out->n == CNI_SUBNETS_MAX)
			return cni_fail(e, CNI_ERR_CONFIG, "too many subnets",
					"%s: more than %d", name, CNI_SUBNETS_MAX);
		out->s[out->n++] = p;
	}
	return 0;
}

static bool list_empty(struct bq_cj_span list)
{
	struct bq_cj_span s;
	struct bq_cj_iter it;

	if (!list.p)
		return true;
	bq_cj_iter_init(&it, list);
	return !bq_cj_next(&it, NULL, &s);
}

int cni_subnets_parse(const struct cni_conf *c, struct cni_subnets *s, struct cni_err *e)
{
	s->n = 0;
	if (!list_empty(c->subnets[0]) && !list_empty(c->subnets[1]))
		return cni_fail(e, CNI_ERR_CONFIG,
				"unshapedSubnets and shapedSubnets cannot be both specified",
				"one of them should be discarded");
	/* Order of subnet_fields: one of the lists at most has entries. */
	s->shaped = !list_empty(c->subnets[0]);
	for (size_t i = 0; i < sizeof(subnet_fields) / sizeof(subnet_fields[0]); i++)
		if (c->subnets[i].p && subnets_cidr(c->subnets[i], subnet_fields[i], s, e))
			return -1;
	return 0;
}

int cni_subnets_valid(const struct cni_conf *c, struct cni_err *e)
{
	struct cni_subnets s;

	return cni_subnets_parse(c, &s, e);
}

bool cni_id_valid(const char *s)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t n = strlen(s);

	return n && strchr(alnum, s[0]) &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

/* skel checks the name before anything else of the config. */
static int network_name_invalid(const char *name, struct cni_err *e)
{
	if (!name[0])
		return cni_fail(e, CNI_ERR_CONFIG, "missing network name", "%s", "");
	if (!cni_id_valid(name))
		return cni_fail(e, CNI_ERR_CONFIG, "invalid characters found in network name", "%s",
				name);
	return 0;
}

int cni_conf_parse(const char *buf, size_t n, struct cni_conf *c, struct cni_err *e)
{
	const char *why = NULL;
	struct bq_cj_span name;

	memset(c, 0, sizeof(*c));
	if (bq_cj_parse(buf, n, &c->doc, &why))
		return cni_fail(e, CNI_ERR_DECODE, "failed to parse network configuration", "%s", why);
	if (bq_cj_type(c->doc) != BQ_CJ_OBJECT)
		return cni_fail(e, CNI_ERR_DECODE, "failed to parse network configuration",
				"not a JSON object");
	if (optional(c->doc, "name", BQ_CJ_STRING, &name, e))
		return -1;
	if (name.p && bq_cj_string(name, c->name, sizeof(c->name)))
		return cni_fail(e, CNI_ERR_CONFIG, "invalid network config",
				"name is longer than %zu bytes", sizeof(c->name) - 1);
	if (network_name_invalid(c->name, e) || read_version(c->doc, c, e) ||
	    cni_netconf_valid(c, e))
		return -1;
	if (read_bandwidth(c->doc, c, e) ||
	    optional(c->doc, "prevResult", BQ_CJ_OBJECT, &c->prev, e) ||
	    optional(c->doc, "cni.dev/valid-attachments", BQ_CJ_ARRAY, &c->attachments, e))
		return -1;
	return cni_limit_valid(c->lim.ingress_rate, c->lim.ingress_burst, "ingress", e) ?:
	       cni_limit_valid(c->lim.egress_rate, c->lim.egress_burst, "egress", e);
}
