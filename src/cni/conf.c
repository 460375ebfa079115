// SPDX-License-Identifier: GPL-2.0
/*
 * The network config a runtime sends on stdin: the reference bandwidth
 * plugin's fields and rules (a drop-in), the CNI versions, the errors.
 */
#include <stdarg.h>
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

/* Member name of obj as a u64 into *out, if there (null counts as absent). */
static int read_u64(struct bq_cj_span obj, const char *name, uint64_t *out, bool *seen,
		    struct cni_err *e)
{
	struct bq_cj_span v;

	if (!bq_cj_member(obj, name, &v) || bq_cj_type(v) == BQ_CJ_NULL)
		return 0;
	if (bq_cj_u64(v, out))
		return cni_fail(e, CNI_ERR_CONFIG, "invalid network config",
				"%s must be an integer from 0 to 18446744073709551615, not %.*s", name,
				(int)(v.n > 40 ? 40 : v.n), v.p);
	*seen = true;
	return 0;
}

static int read_limits(struct bq_cj_span obj, struct cni_limits *l, bool *seen, struct cni_err *e)
{
	*seen = false;
	return read_u64(obj, "ingressRate", &l->ingress_rate, seen, e) ?:
	       read_u64(obj, "ingressBurst", &l->ingress_burst, seen, e) ?:
	       read_u64(obj, "egressRate", &l->egress_rate, seen, e) ?:
	       read_u64(obj, "egressBurst", &l->egress_burst, seen, e);
}

/* An optional member that must have type t when present (null: absent). */
static int optional(struct bq_cj_span obj, const char *name, enum bq_cj_type t,
		    struct bq_cj_span *out, struct cni_err *e)
{
	static const char *const names[] = { [BQ_CJ_OBJECT] = "an object", [BQ_CJ_ARRAY] = "an array",
					     [BQ_CJ_STRING] = "a string" };

	*out = (struct bq_cj_span){ NULL, 0 };
	if (!bq_cj_member(obj, name, out) || bq_cj_type(*out) == BQ_CJ_NULL) {
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

static int read_bandwidth(struct bq_cj_span doc, struct cni_limits *l, struct cni_err *e)
{
	struct bq_cj_span rc, bw;
	bool top, runtime;

	if (read_limits(doc, l, &top, e))
		return -1;
	if (top)
		return 0;
	if (optional(doc, "runtimeConfig", BQ_CJ_OBJECT, &rc, e) ||
	    (rc.p && optional(rc, "bandwidth", BQ_CJ_OBJECT, &bw, e)))
		return -1;
	if (rc.p && bw.p && read_limits(bw, l, &runtime, e))
		return -1;
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
	if (read_version(c->doc, c, e) || optional(c->doc, "name", BQ_CJ_STRING, &name, e))
		return -1;
	if (name.p && bq_cj_string(name, c->name, sizeof(c->name)))
		return cni_fail(e, CNI_ERR_CONFIG, "invalid network config",
				"name is longer than %zu bytes", sizeof(c->name) - 1);
	if (read_bandwidth(c->doc, &c->lim, e) ||
	    optional(c->doc, "prevResult", BQ_CJ_OBJECT, &c->prev, e) ||
	    optional(c->doc, "cni.dev/valid-attachments", BQ_CJ_ARRAY, &c->attachments, e))
		return -1;
	return cni_limit_valid(c->lim.ingress_rate, c->lim.ingress_burst, "ingress", e) ?:
	       cni_limit_valid(c->lim.egress_rate, c->lim.egress_burst, "egress", e);
}

bool cni_result_host_ifname(struct bq_cj_span result, const char *name)
{
	struct bq_cj_span ifaces, iface, v;
	struct bq_cj_iter it;

	if (!bq_cj_member(result, "interfaces", &ifaces) || bq_cj_type(ifaces) != BQ_CJ_ARRAY)
		return false;
	bq_cj_iter_init(&it, ifaces);
	while (bq_cj_next(&it, NULL, &iface)) {
		bool in_sandbox = bq_cj_member(iface, "sandbox", &v) && bq_cj_type(v) == BQ_CJ_STRING &&
				  v.n > 2;

		if (!in_sandbox && bq_cj_member(iface, "name", &v) && bq_cj_string_is(v, name))
			return true;
	}
	return false;
}
