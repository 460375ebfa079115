// SPDX-License-Identifier: GPL-2.0
/*
 * prevResult, the previous plugin's result, as the reference decodes it:
 * into a Result of the config's version (containernetworking/cni's types
 * 040 for 0.3.0 to 0.4.0, 100 for 1.0.0 and 1.1.0) with Go's encoding/json,
 * which refuses a member of another type than its struct's, an address that
 * does not parse, and a result of another version's type. The plugin
 * passes prevResult on byte for byte, but refuses what the reference does.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cni.h"

enum field_type { F_STRING, F_INT, F_IP, F_CIDR, F_STRINGS, F_OBJECT, F_OBJECTS, F_BOOL_MAP };

/* A member of a Go struct; null leaves any of them as it was. */
struct field {
	const char *name;
	enum field_type type;
	const struct field *sub;	/* F_OBJECT(S): the object's members */
};

#define M(n, t)		{ .name = n, .type = t }
#define OBJ(n, t, s)	{ .name = n, .type = t, .sub = s }
#define END		{ .name = NULL }

static const struct field iface040[] = {
	M("name", F_STRING), M("mac", F_STRING), M("sandbox", F_STRING), END
};
static const struct field iface100[] = {
	M("name", F_STRING), M("mac", F_STRING), M("mtu", F_INT), M("sandbox", F_STRING),
	M("socketPath", F_STRING), M("pciID", F_STRING), END
};
static const struct field ip040[] = {
	M("version", F_STRING), M("interface", F_INT), M("address", F_CIDR), M("gateway", F_IP), END
};
static const struct field ip100[] = {
	M("interface", F_INT), M("address", F_CIDR), M("gateway", F_IP), END
};
static const struct field route[] = {
	M("dst", F_CIDR), M("gw", F_IP), M("mtu", F_INT), M("advmss", F_INT),
	M("priority", F_INT), M("table", F_INT), M("scope", F_INT), END
};
static const struct field dns[] = {
	M("nameservers", F_STRINGS), M("domain", F_STRING), M("search", F_STRINGS),
	M("options", F_STRINGS), END
};
static const struct field result040[] = {
	M("cniVersion", F_STRING), OBJ("interfaces", F_OBJECTS, iface040),
	OBJ("ips", F_OBJECTS, ip040), OBJ("routes", F_OBJECTS, route), OBJ("dns", F_OBJECT, dns), END
};
static const struct field result100[] = {
	M("cniVersion", F_STRING), OBJ("interfaces", F_OBJECTS, iface100),
	OBJ("ips", F_OBJECTS, ip100), OBJ("routes", F_OBJECTS, route), OBJ("dns", F_OBJECT, dns), END
};

/* libcni's NetConf, the config's own members that the reference decodes
 * with its bandwidth fields (name and cniVersion: conf.c). */
static const struct field ipam[] = { M("type", F_STRING), END };
static const struct field netconf[] = {
	M("type", F_STRING), M("capabilities", F_BOOL_MAP), OBJ("ipam", F_OBJECT, ipam),
	OBJ("dns", F_OBJECT, dns), END
};

static int refuse(const char *name, const char *what, struct cni_err *e)
{
	return cni_fail(e, CNI_ERR_CONFIG, "could not parse prevResult", "%s must be %s", name, what);
}

/* Go's int: an integer literal (no fraction, no exponent) in 64 bits. */
static bool go_int(struct bq_cj_span v)
{
	char buf[24], *end;

	if (bq_cj_type(v) != BQ_CJ_NUMBER || v.n >= sizeof(buf))
		return false;
	memcpy(buf, v.p, v.n);
	buf[v.n] = 0;
	errno = 0;
	strtoll(buf, &end, 10);
	return !*end && !errno;
}

/* The reference's view of a parsed prefix (struct cni_subnet): an
 * IPv4-mapped IPv6 one is IPv4's, as Go's To4() finds it, so its filter
 * matches IPv4 packets with the last 32 bits of its mask. */
static void go_prefix(struct cni_subnet *p, bool v4, const unsigned char *addr, unsigned bits)
{
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };

	memset(p, 0, sizeof(*p));
	memcpy(p->addr, addr, v4 ? 4 : 16);
	for (unsigned i = 0; i < 16; i++) {
		unsigned keep = bits > 8 * i ? bits - 8 * i : 0;

		p->addr[i] &= keep >= 8 ? 0xff : (unsigned char)(0xff00 >> keep);
	}
	p->family = v4 ? 4 : 6;
	p->bits = bits;
	if (!v4 && !memcmp(p->addr, mapped, sizeof(mapped))) {
		memmove(p->addr, p->addr + 12, 4);
		memset(p->addr + 4, 0, 12);
		p->family = 4;
		p->bits = bits - 96;	/* mapped after masking: bits >= 96 */
	}
}

/* An address as Go's net.ParseIP takes it (an empty one is none), or with
 * cidr one as net.ParseCIDR does: ADDRESS/BITS, its prefix into *out
 * unless NULL. */
static bool go_address(struct bq_cj_span v, bool cidr, struct cni_subnet *out)
{
	char text[64], *slash = NULL;
	unsigned char addr[16];
	size_t digits;
	bool v4;

	if (bq_cj_string(v, text, sizeof(text)))
		return false;
	if (!cidr && !text[0])
		return true;
	if (cidr) {
		slash = strrchr(text, '/');
		if (!slash)
			return false;
		*slash++ = 0;
	}
	v4 = inet_pton(AF_INET, text, addr) == 1;
	if (!v4 && inet_pton(AF_INET6, text, addr) != 1)
		return false;
	if (!cidr)
		return true;
	digits = strspn(slash, "0123456789");
	if (!digits || digits >= 4 || slash[digits] || atoi(slash) > (v4 ? 32 : 128))
		return false;
	if (out)
		go_prefix(out, v4, addr, atoi(slash));
	return true;
}

bool cni_go_cidr(struct bq_cj_span v, struct cni_subnet *out)
{
	return go_address(v, true, out);
}

static int check_object(struct bq_cj_span obj, const char *name, const struct field *f,
			struct cni_err *e);

/* A Go map[string]bool: null leaves a value false. */
static bool bool_map(struct bq_cj_span v)
{
	struct bq_cj_span k, el;
	struct bq_cj_iter it;

	if (bq_cj_type(v) != BQ_CJ_OBJECT)
		return false;
	bq_cj_iter_init(&it, v);
	while (bq_cj_next(&it, &k, &el))
		if (bq_cj_type(el) != BQ_CJ_BOOL && bq_cj_type(el) != BQ_CJ_NULL)
			return false;
	return true;
}

static int check_value(struct bq_cj_span v, const struct field *f, struct cni_err *e)
{
	struct bq_cj_span el;
	struct bq_cj_iter it;

	switch (f->type) {
	case F_STRING:
		return bq_cj_type(v) == BQ_CJ_STRING ? 0 : refuse(f->name, "a string", e);
	case F_INT:
		return go_int(v) ? 0 : refuse(f->name, "an integer", e);
	case F_IP:
		return go_address(v, false, NULL) ? 0 : refuse(f->name, "an IP address", e);
	case F_CIDR:
		return cni_go_cidr(v, NULL) ? 0 : refuse(f->name, "an address/prefix length", e);
	case F_OBJECT:
		return check_object(v, f->name, f->sub, e);
	case F_BOOL_MAP:
		return bool_map(v) ? 0 : refuse(f->name, "an object of true or false", e);
	case F_STRINGS:
	case F_OBJECTS:
		break;
	}
	if (bq_cj_type(v) != BQ_CJ_ARRAY)
		return refuse(f->name, "a list", e);
	bq_cj_iter_init(&it, v);
	while (bq_cj_next(&it, NULL, &el)) {
		if (bq_cj_type(el) == BQ_CJ_NULL)
			continue;
		if (f->type == F_STRINGS ? bq_cj_type(el) != BQ_CJ_STRING :
					   check_object(el, f->name, f->sub, e) != 0)
			return f->type == F_STRINGS ? refuse(f->name, "a list of strings", e) : -1;
	}
	return 0;
}

/* Every member of obj that is one of f's, each time it is there: Go's
 * decoder decodes each, and refuses the config at the first it cannot. */
static int check_object(struct bq_cj_span obj, const char *name, const struct field *f,
			struct cni_err *e)
{
	struct bq_cj_span k, v;
	struct bq_cj_iter it;

	if (bq_cj_type(obj) != BQ_CJ_OBJECT)
		return refuse(name, "an object", e);
	bq_cj_iter_init(&it, obj);
	while (bq_cj_next(&it, &k, &v))
		for (const struct field *m = f; m->name; m++)
			if (cni_name_is(k, m->name) && bq_cj_type(v) != BQ_CJ_NULL &&
			    check_value(v, m, e))
				return -1;
	return 0;
}

int cni_prev_valid(const struct cni_conf *c, struct cni_err *e)
{
	bool v040 = cni_version_cmp(c->version, "1.0.0") < 0;
	char version[16] = "";
	struct bq_cj_span v;

	if (!c->prev.p)
		return 0;
	if (check_object(c->prev, "prevResult", v040 ? result040 : result100, e))
		return -1;
	/* Without a version of its own, it has the config's. */
	if (!cni_member(c->prev, "cniVersion", true, &v))
		return 0;
	bq_cj_string(v, version, sizeof(version));
	if (v040 ? cni_version_cmp(version, "0.3.0") >= 0 && cni_version_cmp(version, "0.4.0") <= 0 &&
		   cni_version_supported(version) :
		   !strcmp(version, "1.0.0") || !strcmp(version, "1.1.0"))
		return 0;
	return cni_fail(e, CNI_ERR_CONFIG, "could not parse prevResult",
			"its cniVersion is \"%s\", not one of the config's (%s) result type, %s",
			version, c->version, v040 ? "0.3.0 to 0.4.0" : "1.0.0 or 1.1.0");
}

int cni_netconf_valid(const struct cni_conf *c, struct cni_err *e)
{
	if (!check_object(c->doc, "config", netconf, e))
		return 0;
	/* The checker's message is prevResult's; this is the config's own. */
	snprintf(e->msg, sizeof(e->msg), "invalid network config");
	return -1;
}

bool cni_result_host_ifname(struct bq_cj_span result, const char *name)
{
	struct bq_cj_span ifaces, iface, v;
	struct bq_cj_iter it;

	if (!cni_member(result, "interfaces", false, &ifaces) || bq_cj_type(ifaces) != BQ_CJ_ARRAY)
		return false;
	bq_cj_iter_init(&it, ifaces);
	while (bq_cj_next(&it, NULL, &iface)) {
		bool in_sandbox = cni_member(iface, "sandbox", true, &v) &&
				  bq_cj_type(v) == BQ_CJ_STRING && v.n > 2;

		if (!in_sandbox && cni_member(iface, "name", true, &v) && bq_cj_string_is(v, name))
			return true;
	}
	return false;
}
