// SPDX-License-Identifier: GPL-2.0
/*
 * bpfqdisc-bandwidth's parts that need no kernel: the strict JSON reader,
 * the network config (the reference plugin's fields, precedence and
 * validation), CNI versions, the records' parser and the conflist edit.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include "cni.h"
#include "unit.h"

static bool parses(const char *s)
{
	struct bq_cj_span doc;
	const char *why;

	return !bq_cj_parse(s, strlen(s), &doc, &why);
}

static void json_strict(void)
{
	static const char *const good[] = {
		"{}", " [ ] ", "0", "-0.5e+3", "\"\\u00e9\\ud83d\\ude00\\/\"", "{\"a\":[1,{\"b\":null}]}",
		"\"caf\xc3\xa9\"", "true", "\t\r\n{\"\":false}\n",
	};
	static const char *const bad[] = {
		"", "{", "{\"a\"}", "{\"a\":1,}", "[1,]", "01", "1.", "-", ".5", "1e", "+1",
		"\"\\x\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\u12\"", "\"a\nb\"", "\"\xff\"",
		"\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "tru", "nul", "{} {}", "{'a':1}", "[1 2]",
		"{\"a\" 1}", "\"abc",
	};
	char deep[2 * BQ_CJ_MAX_DEPTH + 3];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		EXPECT(parses(good[i]), "refused %s", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT(!parses(bad[i]), "accepted %s", bad[i]);
	memset(deep, '[', BQ_CJ_MAX_DEPTH + 1);
	memset(deep + BQ_CJ_MAX_DEPTH + 1, ']', BQ_CJ_MAX_DEPTH + 1);
	deep[2 * BQ_CJ_MAX_DEPTH + 2] = '\0';
	EXPECT(!parses(deep), "accepted %d levels", BQ_CJ_MAX_DEPTH + 1);
	deep[2 * BQ_CJ_MAX_DEPTH + 1] = '\0';
	EXPECT(parses(deep + 1), "refused %d levels", BQ_CJ_MAX_DEPTH);
}

static struct bq_cj_span doc_of(const char *s)
{
	struct bq_cj_span d = {};
	const char *why;

	bq_cj_parse(s, strlen(s), &d, &why);
	return d;
}

static void json_values(void)
{
	struct bq_cj_span d = doc_of("{\"s\":\"a\\u00e9\\ud83d\\ude00\\n\",\"z\":\"\\u0000\",\"n\":18446744073709551615,"
				  "\"o\":18446744073709551616,\"f\":1.0,\"e\":1e3,\"m\":-1,\"k\":1,\"k\":2,"
				  "\"t\":true}"), v;
	char buf[32];
	uint64_t u;
	bool b;

	EXPECT(bq_cj_member(d, "s", &v) && !bq_cj_string(v, buf, sizeof(buf)) &&
	       !strcmp(buf, "a\xc3\xa9\xf0\x9f\x98\x80\n"), "%s", buf);
	EXPECT(bq_cj_member(d, "s", &v) && bq_cj_string(v, buf, 4), "a short buffer took it");
	EXPECT(bq_cj_member(d, "z", &v) && bq_cj_string(v, buf, sizeof(buf)), "U+0000 taken");
	EXPECT(bq_cj_member(d, "n", &v) && !bq_cj_u64(v, &u) && u == UINT64_MAX, "max");
	EXPECT(bq_cj_member(d, "o", &v) && bq_cj_u64(v, &u), "2^64 taken");
	EXPECT(bq_cj_member(d, "f", &v) && bq_cj_u64(v, &u), "1.0 taken as an integer");
	EXPECT(bq_cj_member(d, "e", &v) && bq_cj_u64(v, &u), "1e3 taken as an integer");
	EXPECT(bq_cj_member(d, "m", &v) && bq_cj_u64(v, &u), "-1 taken");
	EXPECT(bq_cj_member(d, "k", &v) && !bq_cj_u64(v, &u) && u == 2, "the last of a repeated key: %llu",
	       (unsigned long long)u);
	EXPECT(bq_cj_member(d, "t", &v) && !bq_cj_bool(v, &b) && b, "true");
	EXPECT(!bq_cj_member(d, "x", &v), "found a missing key");
	EXPECT(bq_cj_member(doc_of("{\"\\u0061\":1}"), "a", &v), "an escaped key");
}

#define CONF(members) "{\"cniVersion\":\"1.0.0\",\"name\":\"net\",\"type\":\"bpfqdisc-bandwidth\"" members "}"

static int parse(const char *s, struct cni_conf *c, struct cni_err *e)
{
	memset(e, 0, sizeof(*e));
	return cni_conf_parse(s, strlen(s), c, e);
}

static void conf_limits(void)
{
	struct cni_conf c;
	struct cni_err e;
	const char *rt = ",\"capabilities\":{\"bandwidth\":true},\"runtimeConfig\":{\"bandwidth\":"
			 "{\"ingressRate\":8000,\"ingressBurst\":4294967295,\"egressRate\":16000,\"egressBurst\":800}}";
	char buf[512];

	EXPECT(!parse(CONF(""), &c, &e) && !cni_limits_any(&c.lim), "no limits");
	snprintf(buf, sizeof(buf), CONF("%s"), rt);
	EXPECT(!parse(buf, &c, &e) && c.lim.ingress_rate == 8000 && c.lim.ingress_burst == 4294967295ULL &&
	       c.lim.egress_rate == 16000 && c.lim.egress_burst == 800, "runtimeConfig: %s", e.details);
	/* Any field at the top level: the top level alone, as the reference. */
	snprintf(buf, sizeof(buf), CONF(",\"egressRate\":1000,\"egressBurst\":10%s"), rt);
	EXPECT(!parse(buf, &c, &e) && c.lim.egress_rate == 1000 && !c.lim.ingress_rate, "top level wins");
	EXPECT(!parse(CONF(",\"ingressRate\":null,\"runtimeConfig\":null"), &c, &e) &&
	       !cni_limits_any(&c.lim), "nulls are absent");
}

/* Go's encoding/json, which the reference decodes with: a name matches
 * whatever its case (U+017F, long s, is an s there, U+0131 an i), and the
 * last of a field's members wins; null leaves a number as it was. */
static void conf_fold(void)
{
	struct cni_conf c;
	struct cni_err e;

	EXPECT(!parse(CONF(",\"IngressRate\":1000,\"IngressBurst\":8000"), &c, &e) &&
	       c.lim.ingress_rate == 1000 && c.lim.ingress_burst == 8000, "IngressRate: %s", e.details);
	EXPECT(parse(CONF(",\"ingressRate\":1000,\"INGRESSRATE\":0,\"ingressBurst\":8"), &c, &e) &&
	       e.code == 7 && strstr(e.msg, "rate must also be set"), "the last, 0, not taken: %s", e.msg);
	EXPECT(!parse(CONF(",\"ingre\u017fsRate\":7,\"\u0131ngressBur\u017Ft\":9,\"ingress_rate\":1"), &c, &e) &&
	       c.lim.ingress_rate == 7 && c.lim.ingress_burst == 9, "long s, dotless i: %s", e.details);
	EXPECT(!parse(CONF(",\"egressRate\":5,\"egressRate\":null,\"egressBurst\":6"), &c, &e) &&
	       c.lim.egress_rate == 5, "null after a rate: %s", e.details);
	EXPECT(!parse("{\"CNIVersion\":\"0.4.0\",\"NAME\":\"x\",\"RuntimeConfig\":{\"BANDWIDTH\":"
		      "{\"EgressRate\":5,\"EgressBurst\":6}}}", &c, &e) &&
	       !strcmp(c.version, "0.4.0") && !strcmp(c.name, "x") && c.lim.egress_rate == 5,
	       "upper case: %s %s", c.version, e.details);
	EXPECT(!parse(CONF(",\"cniVersion\":null,\"name\":null"), &c, &e) && !strcmp(c.version, "1.0.0") &&
	       !strcmp(c.name, "net"), "null after a version and a name: %s", e.details);
}

/* The reference takes the top level when the entry has any of its
 * bandwidth members, whatever their value; runtimeConfig's bandwidth as Go
 * fills it: null drops it, a second one adds to the first. */
static void conf_which_wins(void)
{
	const char *rt = "\"runtimeConfig\":{\"bandwidth\":{\"egressRate\":5,\"egressBurst\":6}}";
	char buf[512];
	struct cni_conf c;
	struct cni_err e;

	snprintf(buf, sizeof(buf), CONF(",\"ingressRate\":null,%s"), rt);
	EXPECT(!parse(buf, &c, &e) && !cni_limits_any(&c.lim), "ingressRate null: %s", e.details);
	snprintf(buf, sizeof(buf), CONF(",\"shapedSubnets\":[\"10.0.0.0/8\"],%s"), rt);
	EXPECT(!parse(buf, &c, &e) && !cni_limits_any(&c.lim), "a subnet list: %s", e.details);
	snprintf(buf, sizeof(buf), CONF(",\"UnshapedSubnets\":null,%s"), rt);
	EXPECT(!parse(buf, &c, &e) && !cni_limits_any(&c.lim), "unshapedSubnets null: %s", e.details);
	snprintf(buf, sizeof(buf), CONF(",%s,\"runtimeConfig\":{\"bandwidth\":null}"), rt);
	EXPECT(!parse(buf, &c, &e) && !cni_limits_any(&c.lim), "bandwidth null after: %s", e.details);
	EXPECT(!parse(CONF(",\"runtimeConfig\":{\"bandwidth\":{\"egressRate\":5}},"
			   "\"runtimeConfig\":{\"bandwidth\":{\"egressBurst\":6}}"), &c, &e) &&
	       c.lim.egress_rate == 5 && c.lim.egress_burst == 6, "two runtimeConfigs: %s", e.details);
	snprintf(buf, sizeof(buf), CONF(",%s,\"runtimeConfig\":null"), rt);
	EXPECT(!parse(buf, &c, &e) && c.lim.egress_rate == 5, "runtimeConfig null after: %s", e.details);
	EXPECT(parse(CONF(",\"shapedSubnets\":\"10.0.0.0/8\""), &c, &e) && e.code == 7,
	       "a subnet list that is a string taken");
	EXPECT(parse(CONF(",\"shapedSubnets\":[1]"), &c, &e) && e.code == 7,
	       "a subnet that is a number taken");
}

static int subnets_check(const char *members, struct cni_err *e)
{
	char buf[512];
	struct cni_conf c;

	snprintf(buf, sizeof(buf), CONF(",%s"), members);
	memset(e, 0, sizeof(*e));
	return cni_conf_parse(buf, strlen(buf), &c, e) ?: cni_subnets_valid(&c, e);
}

/* The reference's subnet lists are checked as it checks them: a CIDR each,
 * and not both lists at once, in the entry whose limits are used. */
static void conf_subnets(void)
{
	static const struct { const char *members; const char *refused; } cases[] = {
		{ "\"egressRate\":1,\"egressBurst\":1,\"shapedSubnets\":[\"10.0.0.0/8\",\"fd00::/8\"]", NULL },
		{ "\"egressRate\":1,\"egressBurst\":1,\"shapedSubnets\":[\"10.0.0.0/8\"],\"unshapedSubnets\":[]", NULL },
		{ "\"egressRate\":1,\"egressBurst\":1,\"shapedSubnets\":[\"10.0.0.0/33\"]", "bad subnet" },
		{ "\"egressRate\":1,\"egressBurst\":1,\"unshapedSubnets\":[\"10.0.0.1\"]", "bad subnet" },
		{ "\"egressRate\":1,\"egressBurst\":1,\"shapedSubnets\":[\"10.0.0.0/8\"],"
		  "\"unshapedSubnets\":[\"fd00::/8\"]", "cannot be both specified" },
		{ "\"runtimeConfig\":{\"bandwidth\":{\"egressRate\":1,\"egressBurst\":1,"
		  "\"shapedSubnets\":[\"x\"]}}", "bad subnet" },
		{ "\"egressRate\":1,\"egressBurst\":1,\"runtimeConfig\":{\"bandwidth\":{\"shapedSubnets\":[\"x\"]}}", NULL },
		{ "\"egressRate\":1,\"egressBurst\":1,\"shapedSubnets\":[\"x\"],\"shapedSubnets\":null", NULL },
	};
	struct cni_err e;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = subnets_check(cases[i].members, &e);

		EXPECT(cases[i].refused ? err && e.code == 7 && strstr(e.msg, cases[i].refused) : !err,
		       "case %zu: %d %s (%s)", i, e.code, e.msg, e.details);
	}
}

/* A list as the reference's u32 filters match it: the address masked to
 * its bits, an IPv4-mapped prefix IPv4's (Go's To4), at most
 * CNI_SUBNETS_MAX prefixes (each an entry of two maps). */
static void conf_subnet_prefixes(void)
{
	static const struct {
		const char *cidr;
		int family, bits;
		unsigned char addr[16];
	} cases[] = {
		{ "10.1.2.3/8", 4, 8, { 10 } },
		{ "192.0.2.255/25", 4, 25, { 192, 0, 2, 128 } },
		{ "fd00:db8:abcd:1234:e000::/68", 6, 68,
		  { 0xfd, 0, 0x0d, 0xb8, 0xab, 0xcd, 0x12, 0x34, 0xe0 } },
		{ "::ffff:10.1.0.0/104", 4, 8, { 10 } },
		{ "::ffff:10.1.0.0/80", 6, 80, { 0 } },
		{ "::/0", 6, 0, { 0 } },
	};
	struct cni_subnets sub;
	struct cni_conf c;
	struct cni_err e;
	char buf[4096];
	size_t at;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(buf, sizeof(buf), CONF(",\"egressRate\":1,\"egressBurst\":1,\"unshapedSubnets\":[\"%s\"]"),
			 cases[i].cidr);
		EXPECT(!parse(buf, &c, &e) && !cni_subnets_parse(&c, &sub, &e) && sub.n == 1 &&
		       !sub.shaped && sub.s[0].family == cases[i].family &&
		       sub.s[0].bits == cases[i].bits && !memcmp(sub.s[0].addr, cases[i].addr, 16),
		       "%s: family %d bits %d (%s)", cases[i].cidr, sub.s[0].family, sub.s[0].bits,
		       e.details);
	}
	at = snprintf(buf, sizeof(buf), "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"egressRate\":1,"
		      "\"egressBurst\":1,\"shapedSubnets\":[\"10.0.0.0/8\"");
	for (int i = 1; i < CNI_SUBNETS_MAX; i++)
		at += snprintf(buf + at, sizeof(buf) - at, ",\"10.%d.0.0/16\"", i);
	snprintf(buf + at, sizeof(buf) - at, "]}");
	EXPECT(!parse(buf, &c, &e) && !cni_subnets_parse(&c, &sub, &e) && sub.n == CNI_SUBNETS_MAX &&
	       sub.shaped, "%d subnets: %s", CNI_SUBNETS_MAX, e.details);
	snprintf(buf + at, sizeof(buf) - at, ",\"10.0.0.0/16\"]}");
	EXPECT(!parse(buf, &c, &e) && cni_subnets_parse(&c, &sub, &e) && e.code == 7 &&
	       !strcmp(e.msg, "too many subnets"), "%d subnets taken", CNI_SUBNETS_MAX + 1);
}

static void conf_invalid(void)
{
	static const struct { const char *conf; int code; const char *msg; } cases[] = {
		{ CONF(",\"ingressRate\":1"), 7, "if rate is set, burst must also be set" },
		{ CONF(",\"egressBurst\":1"), 7, "if burst is set, rate must also be set" },
		{ CONF(",\"runtimeConfig\":{\"bandwidth\":{\"egressRate\":5}}"), 7, "burst must also" },
		{ CONF(",\"egressRate\":1,\"egressBurst\":34359738360"), 7, "burst cannot be more than 4GB" },
		{ CONF(",\"egressRate\":\"1\",\"egressBurst\":1"), 7, "invalid network config" },
		{ CONF(",\"egressRate\":1.5,\"egressBurst\":1"), 7, "invalid network config" },
		{ CONF(",\"runtimeConfig\":[]"), 7, "invalid network config" },
		{ CONF(",\"prevResult\":\"x\""), 7, "invalid network config" },
		{ "{\"cniVersion\":\"0.2.0\",\"name\":\"n\"}", 1, "incompatible CNI versions" },
		/* skel's checks of the name come first, as in the reference. */
		{ "{\"cniVersion\":\"0.2.0\"}", 7, "missing network name" },
		{ CONF(",\"name\":\"\""), 7, "missing network name" },
		{ CONF(",\"NAME\":\"a b\""), 7, "invalid characters found in network name" },
		{ CONF(",\"name\":\"-x\""), 7, "invalid characters found in network name" },
		{ CONF(",\"name\":\"n\\u00e9\""), 7, "invalid characters found in network name" },
		{ "{\"name\":\"x\"}", 1, "incompatible CNI versions" },
		{ "{\"cniVersion\":1,\"name\":\"n\"}", 7, "invalid network config" },
		/* The members of libcni's NetConf, which the reference decodes too. */
		{ CONF(",\"type\":5"), 7, "invalid network config" },
		{ CONF(",\"Capabilities\":{\"bandwidth\":\"true\"}"), 7, "invalid network config" },
		{ CONF(",\"capabilities\":[]"), 7, "invalid network config" },
		{ CONF(",\"ipam\":5"), 7, "invalid network config" },
		{ CONF(",\"ipam\":{\"type\":1}"), 7, "invalid network config" },
		{ CONF(",\"dns\":{\"nameservers\":\"10.0.0.10\"}"), 7, "invalid network config" },
		{ "[]", 6, "failed to parse" },
		{ "{\"cniVersion\":\"1.0.0\"", 6, "failed to parse" },
	};
	struct cni_conf c;
	struct cni_err e;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		EXPECT(parse(cases[i].conf, &c, &e) && e.code == cases[i].code &&
		       strstr(e.msg, cases[i].msg), "case %zu: %d %s (%s)", i, e.code, e.msg, e.details);
	EXPECT(!parse(CONF(",\"egressRate\":1,\"egressBurst\":34359738359"), &c, &e),
	       "a burst of 4 GB less a byte refused: %s", e.msg);
	EXPECT(!parse(CONF(",\"capabilities\":{\"bandwidth\":true,\"x\":null},\"ipam\":{\"type\":\"host-local\","
			   "\"subnet\":1},\"dns\":null,\"args\":5"), &c, &e),
	       "NetConf's members as Go decodes them refused: %s (%s)", e.msg, e.details);
	EXPECT(!parse(CONF(",\"name\":\"Az09_.-\""), &c, &e), "a name of every kind of character skel takes refused: %s",
	       e.msg);
}

static void conf_prev_exact(void)
{
	const char *prev = "{ \"cniVersion\" : \"1.0.0\",\n\t\"interfaces\":[{\"name\":\"veth\\u0041\"}], \"x\":1e5 }";
	char buf[512];
	struct cni_conf c;
	struct cni_err e;

	snprintf(buf, sizeof(buf), CONF(",\"prevResult\":%s"), prev);
	EXPECT(!parse(buf, &c, &e) && c.prev.n == strlen(prev) && !memcmp(c.prev.p, prev, c.prev.n),
	       "prevResult not byte for byte");
	EXPECT(cni_result_host_ifname(c.prev, "vethA"), "the host interface vethA");
	snprintf(buf, sizeof(buf), "%s", "{\"interfaces\":[{\"name\":\"eth0\",\"sandbox\":\"/run/netns/x\"}]}");
	EXPECT(!cni_result_host_ifname(doc_of(buf), "eth0"), "an interface in the sandbox is not the host's");
}

static int prev_check(const char *version, const char *prev, struct cni_err *e)
{
	char buf[1024];
	struct cni_conf c;

	snprintf(buf, sizeof(buf), "{\"cniVersion\":\"%s\",\"name\":\"n\",\"prevResult\":%s}", version, prev);
	memset(e, 0, sizeof(*e));
	return cni_conf_parse(buf, strlen(buf), &c, e) ?: cni_prev_valid(&c, e);
}

/* prevResult as the reference decodes it, into its version's Result. */
static void prev_result(void)
{
	static const struct { const char *version, *prev; bool ok; } cases[] = {
		{ "1.0.0", "{\"interfaces\":\"x\"}", false },
		{ "1.0.0", "{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":1}]}", false },
		{ "1.0.0", "{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"mtu\":1.5}]}", false },
		{ "1.0.0", "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.1\"}]}", false },
		{ "1.0.0", "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.1/33\"}]}", false },
		{ "1.0.0", "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.1/24\",\"gateway\":\"x\"}]}", false },
		{ "1.0.0", "{\"cniVersion\":\"1.0.0\",\"routes\":[{\"dst\":\"::/0\",\"gw\":\"1.2.3\"}]}", false },
		{ "1.0.0", "{\"cniVersion\":\"1.0.0\",\"dns\":{\"nameservers\":\"1.1.1.1\"}}", false },
		{ "1.0.0", "{\"cniVersion\":\"0.4.0\"}", false },
		{ "0.4.0", "{\"cniVersion\":\"1.0.0\"}", false },
		{ "1.0.0", "{\"cniVersion\":\"\"}", false },
		{ "1.0.0", "{\"Interfaces\":[{\"Name\":[]}]}", false },
		{ "1.0.0", "{}", true },
		{ "0.3.0", "{\"cniVersion\":\"0.3.1\",\"ips\":[{\"version\":\"4\",\"address\":\"10.0.0.2/24\"}]}", true },
		{ "1.1.0", "{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"veth1\",\"mac\":\"x\",\"mtu\":-1,"
			   "\"sandbox\":null},null],\"ips\":[{\"interface\":0,\"address\":\"fd00::2/64\","
			   "\"gateway\":\"fd00::1\"}],\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.0.0.1\","
			   "\"table\":254}],\"dns\":{\"nameservers\":[\"10.0.0.10\"],\"domain\":\"x\"},\"x\":{}}", true },
	};
	struct cni_err e;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = prev_check(cases[i].version, cases[i].prev, &e);

		EXPECT(cases[i].ok ? !err : err && e.code == 7, "case %zu: %d %s (%s)", i, e.code, e.msg,
		       e.details);
	}
}

static void versions(void)
{
	EXPECT(cni_version_cmp("1.0.0", "0.4.0") > 0 && cni_version_cmp("0.3.1", "0.4.0") < 0 &&
	       !cni_version_cmp("1.1.0", "1.1.0") && cni_version_cmp("0.10.0", "0.9.0") > 0, "order");
	/* The reference's: every version from 0.3.0 on. */
	EXPECT(cni_version_supported("0.3.0") && cni_version_supported("0.3.1") &&
	       cni_version_supported("1.1.0") && !cni_version_supported("0.2.0") &&
	       !cni_version_supported("1.2.0"), "supported");
}

static void records(void)
{
	const char *rec = "{\"network\":\"n\",\"containerID\":\"c1\",\"ifname\":\"eth0\",\"netns\":\"/run/netns/c1\","
			  "\"qdiscs\":[{\"role\":\"ingress\",\"inPod\":false,\"netnsCookie\":1,\"ifindex\":7,"
			  "\"dev\":\"veth1\",\"kind\":\"bpf_hbm\"},{\"role\":\"egress\",\"inPod\":true,"
			  "\"netnsCookie\":4096,\"ifindex\":2,\"dev\":\"eth0\",\"kind\":\"bpf_hbm\"}]}";
	struct bq_pod_record *r = malloc(sizeof(*r));

	EXPECT(!bq_pod_record_parse(rec, strlen(rec), r) && r->p.n == 2 && r->p.q[1].in_pod &&
	       r->p.q[1].netns_cookie == 4096 && r->p.q[0].ifindex == 7 && !strcmp(r->p.q[0].dev, "veth1") &&
	       !strcmp(r->netns, "/run/netns/c1"), "record");
	EXPECT(!r->pod_namespace[0] && !r->pod_name[0], "pod of a record without one: %s/%s",
	       r->pod_namespace, r->pod_name);
	EXPECT(bq_pod_record_parse("{\"network\":\"n\"}", 16, r), "a record without its fields");
	free(r);
}

/* A /run of the test's own, where records go; false if it cannot have one. */
static bool private_run(void)
{
	return !geteuid() && !unshare(CLONE_NEWNS) &&
	       !mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) &&
	       !mount("tmpfs", "/run", "tmpfs", 0, NULL);
}

static int dir_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* A record as cmd_add fills it, for a pod named pod_name (cut as it cuts). */
static void pod_record(struct bq_pod_record *r, const char *cid, const char *ifname,
		       const char *netns, const char *pod_name)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->network, sizeof(r->network), "n");
	snprintf(r->container_id, sizeof(r->container_id), "%s", cid);
	snprintf(r->ifname, sizeof(r->ifname), "%s", ifname);
	snprintf(r->netns, sizeof(r->netns), "%s", netns);
	snprintf(r->pod_name, sizeof(r->pod_name), "%s", pod_name);
	r->p.n = 1;
	r->p.q[0] = (struct bq_pod_qdisc){ .role = "egress", .in_pod = true, .netns_cookie = 9,
					   .ifindex = 2 };
	snprintf(r->p.q[0].dev, sizeof(r->p.q[0].dev), "%s", ifname);
	snprintf(r->p.q[0].kind, sizeof(r->p.q[0].kind), "bpf_hbm");
}

static int gc_drop(struct bq_pod_record *r, void *arg)
{
	(*(int *)arg)++;
	bq_pod_record_drop(r);
	return 0;
}

/* Whatever names a runtime passes, a record reads back as written, by DEL
 * (its attachment's name), by GC and pods (the directory's list), and GC's
 * drop by the names read back removes it. */
static void records_any_name(void)
{
	char not_utf8[256], cut[256];
	struct bq_pod_record *w = malloc(sizeof(*w)), *r = malloc(sizeof(*r));
	struct { const char *cid, *ifname, *netns, *pod; } c[5];
	int n = sizeof(c) / sizeof(c[0]), seen = 0;

	if (!private_run()) {
		printf("SKIP cni/records_any_name: needs root and mount namespaces\n");
		free(w);
		free(r);
		return;
	}
	memset(not_utf8, 0xff, 255);
	not_utf8[255] = 0;
	/* "ab" and 200 é, cut at byte 255 as a 256-byte field cuts it: mid-é. */
	memcpy(cut, "ab", 2);
	for (int i = 2; i < 255; i += 2)
		memcpy(cut + i, "\xc3\xa9", 2);
	cut[255] = 0;
	c[0] = (typeof(c[0])){ "c1", "eth0", "/run/netns/a", not_utf8 };
	c[1] = (typeof(c[0])){ "c2", "eth0", "/run/netns/b", cut };
	c[2] = (typeof(c[0])){ "c3", "e\xffth\xe2\x82", "/run/netns/\xfe", "web" };
	c[3] = (typeof(c[0])){ "c4", "net1", "/run/netns/d", "web" };
	c[4] = (typeof(c[0])){ "c4", "net1.tmp", "/run/netns/d", "web" };
	for (int i = 0; i < n; i++) {
		pod_record(w, c[i].cid, c[i].ifname, c[i].netns, c[i].pod);
		EXPECT(!bq_pod_record_save(w), "save %d: %s", i, bq_last_error());
	}
	for (int i = 0; i < n; i++) {
		pod_record(w, c[i].cid, c[i].ifname, c[i].netns, c[i].pod);
		EXPECT(!bq_pod_record_load(c[i].cid, c[i].ifname, r) && !strcmp(r->ifname, w->ifname) &&
		       !strcmp(r->pod_name, w->pod_name) && !strcmp(r->netns, w->netns) &&
		       !strcmp(r->p.q[0].dev, w->p.q[0].dev), "record %d does not read back", i);
	}
	bq_pod_records_each(gc_drop, &seen);
	EXPECT(seen == n, "GC and pods see %d records of %d", seen, n);
	EXPECT(!dir_entries(BQ_POD_STATE_DIR), "%d files left after GC's drops",
	       dir_entries(BQ_POD_STATE_DIR));
	free(w);
	free(r);
}

/* Two writers of one attachment's record at once (a runtime's ADD repeated
 * while the first runs): each save succeeds, and the record reads back
 * whole, one writer's or the other's. */
static void records_concurrent_writers(void)
{
	struct bq_pod_record *w = malloc(sizeof(*w)), *r = malloc(sizeof(*r));
	char long_pod[200];
	pid_t kid[2];
	int failed = 0, status;

	if (!private_run()) {
		printf("SKIP cni/records_concurrent_writers: needs root and mount namespaces\n");
		free(w);
		free(r);
		return;
	}
	memset(long_pod, 'x', sizeof(long_pod) - 1);
	long_pod[sizeof(long_pod) - 1] = 0;
	for (int i = 0; i < 2; i++) {
		kid[i] = fork();
		if (!kid[i]) {
			pod_record(w, "c1", "eth0", "/run/netns/a", i ? long_pod : "web");
			for (int n = 0; n < 300; n++)
				if (bq_pod_record_save(w))
					_exit(1);
			_exit(0);
		}
	}
	for (int i = 0; i < 2; i++)
		failed += waitpid(kid[i], &status, 0) != kid[i] || !WIFEXITED(status) ||
			  WEXITSTATUS(status);
	EXPECT(!failed, "%d of 2 writers had a save fail", failed);
	EXPECT(!bq_pod_record_load("c1", "eth0", r) &&
	       (!strcmp(r->pod_name, "web") || !strcmp(r->pod_name, long_pod)),
	       "the record does not read back as either writer's");
	free(w);
	free(r);
}

/* Which pod a qdisc is for, and its labels in bpfqdisc stats --prometheus. */
static void pod_labels(void)
{
	const char *rec = "{\"network\":\"n\",\"containerID\":\"c1\",\"ifname\":\"eth0\",\"netns\":\"/x\","
			  "\"podNamespace\":\"default\",\"podName\":\"web\\\"0\",\"qdiscs\":["
			  "{\"role\":\"ingress\",\"inPod\":false,\"netnsCookie\":1,\"ifindex\":7,"
			  "\"dev\":\"veth1\",\"kind\":\"bpf_hbm\"},{\"role\":\"egress\",\"inPod\":false,"
			  "\"netnsCookie\":1,\"ifindex\":7,\"dev\":\"veth1\",\"kind\":\"pod_police\"}]}";
	struct bq_pod_record *r = malloc(sizeof(*r));
	struct bq_qdisc_info tc = { .ifindex = 7, .dev = "veth1", .kind = "bpf_hbm",
				    .parent = TC_H_ROOT };
	const struct bq_pod_record *of = NULL;
	const struct bq_pod_qdisc *q;
	char buf[512] = "";
	FILE *f;

	EXPECT(!bq_pod_record_parse(rec, strlen(rec), r) && !strcmp(r->pod_namespace, "default") &&
	       !strcmp(r->pod_name, "web\"0"), "record with its pod");
	q = bq_pod_qdisc_find(r, 1, 1, &tc, &of);
	EXPECT(q == &r->p.q[0] && of == r, "the host veth's root not found");
	f = fmemopen(buf, sizeof(buf), "w");
	bq_pod_prom_labels(f, of, q);
	fclose(f);
	EXPECT(!strcmp(buf, ",container_id=\"c1\",ifname=\"eth0\",direction=\"ingress\",network=\"n\","
			    "pod_namespace=\"default\",pod_name=\"web\\\"0\""), "labels: %s", buf);
	EXPECT(!bq_pod_qdisc_find(r, 1, 2, &tc, &of), "found in another netns");
	tc.parent = 0x10001;
	EXPECT(!bq_pod_qdisc_find(r, 1, 1, &tc, &of), "found a child qdisc");
	tc.parent = TC_H_ROOT;
	snprintf(tc.kind, sizeof(tc.kind), "bpf_fq");
	EXPECT(!bq_pod_qdisc_find(r, 1, 1, &tc, &of), "found a qdisc of another kind");
	snprintf(tc.kind, sizeof(tc.kind), "bpf_hbm");
	snprintf(tc.dev, sizeof(tc.dev), "veth2");
	EXPECT(!bq_pod_qdisc_find(r, 1, 1, &tc, &of), "found another device of that ifindex");
	r->pod_namespace[0] = r->pod_name[0] = 0;
	f = fmemopen(buf, sizeof(buf), "w");
	bq_pod_prom_labels(f, r, &r->p.q[1]);
	fclose(f);
	EXPECT(!strcmp(buf, ",container_id=\"c1\",ifname=\"eth0\",direction=\"egress\",network=\"n\""),
	       "labels without a pod's name: %s", buf);
	free(r);
}

static int add(const char *in, char **out, char *what)
{
	size_t n;

	return cni_conflist_add(in, strlen(in), out, &n, what, 128);
}

static void conflist(void)
{
	char what[128], *out;

	EXPECT(add("{\"cniVersion\":\"0.3.1\",\"plugins\":[{\"type\":\"flannel\"},{\"type\":\"portmap\"}]}",
		   &out, what) == 1 &&
	       !strcmp(out, "{\"cniVersion\":\"0.3.1\",\"plugins\":[{\"type\":\"flannel\"}, {\"type\": "
		       "\"bpfqdisc-bandwidth\", \"capabilities\": {\"bandwidth\": true}},{\"type\":\"portmap\"}]}"),
	       "compact: %s", out);
	free(out);
	EXPECT(add("{\"cniVersion\":\"1.0.0\",\"plugins\":[\n  {\"type\":\"ptp\"}\n]}", &out, what) == 1 &&
	       !strcmp(out, "{\"cniVersion\":\"1.0.0\",\"plugins\":[\n  {\"type\":\"ptp\"},\n  {\"type\": "
		       "\"bpfqdisc-bandwidth\", \"capabilities\": {\"bandwidth\": true}}\n]}") &&
	       !strcmp(what, "added after ptp"), "indented: %s (%s)", out, what);
	free(out);
	EXPECT(add("{\"cniVersion\":\"0.4.0\",\"plugins\":[{\"type\":\"a\"},{\"type\":\"bandwidth\","
		   "\"ingressRate\":5,\"capabilities\":{\"bandwidth\":true}}]}", &out, what) == 1 &&
	       !strcmp(out, "{\"cniVersion\":\"0.4.0\",\"plugins\":[{\"type\":\"a\"},{\"type\":"
		       "\"bpfqdisc-bandwidth\",\"ingressRate\":5,\"capabilities\":{\"bandwidth\":true}}]}"),
	       "replace: %s", out);
	free(out);
	EXPECT(add("{\"cniVersion\":\"0.4.0\",\"plugins\":[{\"type\":\"a\"},{\"type\":\"bpfqdisc-bandwidth\"}]}",
		   &out, what) == 0 && !out, "again: %s", what);
	EXPECT(add("{\"cniVersion\":\"0.4.0\",\"plugins\":[]}", &out, what) < 0, "empty list");
	EXPECT(add("{\"cniVersion\":\"0.4.0\",\"type\":\"bridge\"}", &out, what) < 0, "a .conf");
	EXPECT(add("{\"cniVersion\":\"0.2.0\",\"plugins\":[{\"type\":\"a\"}]}", &out, what) < 0, "0.2.0");
	EXPECT(add("{\"cniVersion\":\"0.4.0\",\"plugins\":[{\"type\":\"a\"}", &out, what) < 0, "not JSON");
}

int main(void)
{
	unit_file = "cni";
	RUN(json_strict);
	RUN(json_values);
	RUN(conf_limits);
	RUN(conf_fold);
	RUN(conf_which_wins);
	RUN(conf_subnets);
	RUN(conf_subnet_prefixes);
	RUN(conf_invalid);
	RUN(conf_prev_exact);
	RUN(prev_result);
	RUN(versions);
	RUN(records);
	RUN(records_any_name);
	RUN(records_concurrent_writers);
	RUN(pod_labels);
	RUN(conflist);
	return unit_failed;
}
