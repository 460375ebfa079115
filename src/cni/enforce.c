// SPDX-License-Identifier: GPL-2.0
/*
 * The recipe: bpf_hbm (EDT per aggregate, per-flow turns inside it) as the
 * root qdisc of each device a direction of the pod leaves by, with
 * shared_default on so that every sender of the device is one aggregate
 * held to the pod's rate:
 *   - pod ingress: root of the host-side veth, in the node's netns;
 *   - pod egress: root of the pod's interface, in the pod's netns.
 * and, because the pod's root may delete or replace the qdisc in its netns,
 *   - pod egress, backstop: pod_police at the host-side veth's tcx ingress,
 *     the same EDT clock at the same rate and burst (police.c).
 *
 * A burst under EDT is how far an idle pod's clock may lag behind now: the
 * bytes it may send at once. The config's bits / 8, at most 200 ms of the
 * rate: containerd's placeholder of 4294967295 bits would be 214 s at
 * 20 Mbit/s (docs/kubernetes-enforcement.md).
 *
 * A pod's shapedSubnets or unshapedSubnets: both qdiscs and the backstop
 * look each packet's destination up in their subnet entries
 * (include/pod_subnets.h), which the plugin writes for their device before
 * the qdisc (bpf_hbm's subnets parameter) or the backstop's entry: the
 * reference matches the destination both ways, so the pod's ingress is
 * shaped by which of its addresses it is sent to.
 *
 * The kind is loaded here when it is not, sized for a node's pods rather
 * than for the CLI's default: kubelet's default max-pods is 110, with two
 * qdiscs each.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "enforce.h"
#include "hbm.h"
#include "police.h"
#include "subnets.h"
#include "lib.h"

#define POD_KIND		"hbm"
#define POD_MAX_INSTANCES	256	/* 110 pods x 2 directions, and room */
/*
 * A pod's root has CAP_NET_ADMIN in its netns and may put the kind on
 * devices of its own there: one slot per pod netns keeps the others for the
 * node's pods. A pod in a user namespace of its own (hostUsers: false)
 * holds its egress qdisc in a netns of that user namespace, which the
 * runtime, root, made: that one slot is all the pod gets, over whatever
 * netns and user namespaces its root makes in it. Local users' user
 * namespaces, which any user can make, share POD_USERNS_SLOTS, at most
 * POD_USER_SLOTS each; the rest (240) hold 110 pods, a qdisc on either side.
 */
#define POD_NETNS_SLOTS		1
#define POD_USERNS_SLOTS	16
#define POD_USER_SLOTS		4
/*
 * What the maps are sized by, for every qdisc of the load, whatever the
 * number of pods. A pod's qdisc is one aggregate (shared_default): it uses
 * bpf_hbm's entries 0 (the overflow's) and 1 (key 0's) of its table, and
 * no more, so 2 classes rather than bpf_hbm's 256 (512 bytes each in
 * hbm_aggs, and the class table). Each ring slot costs 24 bytes in bq_pool
 * (bpf_hbm's bq_timeq holds aggregates, twice the classes), and a qdisc
 * holds one packet fewer: 255 MTU packets are 380 KB, 150 ms at 20 Mbit/s,
 * and near bpf_hbm's own drop horizon (600 KB ahead of now) whatever the
 * rate; TCP's GSO packets are up to 64 KB each. 2.2 MB of maps in all.
 */
#define POD_CLASS_SLOTS		2
#define POD_RING_SLOTS		256
#define POD_LIMIT		(POD_RING_SLOTS - 1)
#define POD_BURST_MAX_DIV	5	/* the burst: at most 1/5 s of the rate */
/*
 * bpf_hbm's highest rate, bit/s. Its clock moves by len / rate in ns: at
 * 100 Gbit/s a 1500-byte packet is 120 ns, at Kubernetes' most, 1 Pbit/s,
 * 0.012 ns, which it cannot pace. Holding the pod at 100 Gbit/s instead
 * would be a limit nobody asked for; so a rate above is refused.
 */
#define POD_MAX_RATE		(HBM_MAX_RATE_MBPS * 1000000ULL)

/* A direction's limit in bpf_hbm's and pod_police's units. */
struct pod_rate {
	uint64_t rate;		/* bit/s */
	uint64_t bytes_per_s;
	uint64_t burst;		/* bytes */
};

static struct pod_rate pod_rate(uint64_t rate_bits, uint64_t burst_bits)
{
	/* bpf_hbm counts bytes/s, and 0 means no limit: 8 bit/s at least. */
	uint64_t rate = rate_bits < 8 ? 8 : rate_bits;
	uint64_t cap = rate / 8 / POD_BURST_MAX_DIV, burst = burst_bits / 8;

	return (struct pod_rate){ .rate = rate, .bytes_per_s = rate / 8,
				  .burst = burst < cap ? burst : cap };
}

static int rate_enforceable(uint64_t rate, const char *dir, struct cni_err *e)
{
	if (rate <= POD_MAX_RATE)
		return 0;
	return cni_fail(e, CNI_ERR_CONFIG, "rate above what bpf_hbm can enforce",
			"%sRate is %llu bit/s; bpf_hbm paces at most %llu Gbit/s", dir,
			(unsigned long long)rate, (unsigned long long)POD_MAX_RATE / 1000000000);
}

int pod_limit_enforceable(const struct cni_limits *lim, struct cni_err *e)
{
	return rate_enforceable(lim->ingress_rate, "ingress", e) ?:
	       rate_enforceable(lim->egress_rate, "egress", e);
}

static const struct bq_kind *pod_kind(void)
{
	return bq_kind_find(POD_KIND);
}

int pod_limit_ready(struct cni_err *e)
{
	const struct bq_kind *k = pod_kind();
	struct bq_load_opts o = { .max_instances = POD_MAX_INSTANCES, .ring_slots = POD_RING_SLOTS,
				  .class_slots = POD_CLASS_SLOTS, .netns_slots = POD_NETNS_SLOTS,
				  .userns_slots = POD_USERNS_SLOTS, .user_slots = POD_USER_SLOTS };
	struct bq_param_set set;

	if (!k)
		return cni_fail(e, CNI_ERR_UNAVAILABLE, "plugin not available",
				"bpf_" POD_KIND " is not built in");
	if (bq_check_caps(BQ_NEED_LOAD))
		return cni_fail(e, CNI_ERR_UNAVAILABLE, "plugin not available",
				"the plugin needs root");
	/* Loaded: the kernel runs it. Else every ADD would read the kernel's BTF. */
	if (bq_is_loaded(k))
		return 0;
	if (bq_check_kernel() || bq_ensure_bpffs() || bq_kind_params(k, &set))
		return cni_fail_lib(e, CNI_ERR_UNAVAILABLE, "plugin not available");
	o.defaults = set.val;
	/* Another ADD may load it meanwhile: then its load is ours. */
	if (bq_load(k, &o) && !bq_is_loaded(k))
		return cni_fail_lib(e, CNI_ERR_UNAVAILABLE, "plugin not available");
	return 0;
}

/*
 * A pod's qdisc at rate bits/s as the root of ifindex, in bpfqdisc's words:
 * first the nconfig words that the pod's config decides, then the queue's
 * length, which is the plugin's (another version may differ). subnets only
 * with a list: a kind loaded by an older plugin lacks it, and takes the
 * pods without one.
 */
struct pod_req {
	struct bq_qdisc_req r;
	char rate[32], burst[32], limit[16];
	char *argv[10];
	int nconfig;
};

static void pod_req(struct pod_req *p, const struct bq_kind *k, int ifindex, const char *dev,
		    const struct pod_rate *pr, const struct cni_subnets *s)
{
	int n = 0;

	snprintf(p->rate, sizeof(p->rate), "%llubit", (unsigned long long)pr->rate);
	snprintf(p->burst, sizeof(p->burst), "%llu", (unsigned long long)pr->burst);
	snprintf(p->limit, sizeof(p->limit), "%u", POD_LIMIT);
	p->argv[n++] = "rate";
	p->argv[n++] = p->rate;
	p->argv[n++] = "burst";
	p->argv[n++] = p->burst;
	p->argv[n++] = "shared_default";
	p->argv[n++] = "on";
	if (s->n) {
		p->argv[n++] = "subnets";
		p->argv[n++] = "on";
	}
	p->nconfig = n;
	p->argv[n++] = "limit";
	p->argv[n++] = p->limit;
	p->r = (struct bq_qdisc_req){
		.dev = dev, .ifindex = ifindex, .parent = TC_H_ROOT, .kind = k,
		.nparams = n, .params = p->argv,
	};
}

/*
 * The kind's subnet entries (include/pod_subnets.h), or -1 when it has
 * none: a kind loaded by an older plugin, which is no error without a
 * list (need false), and is with one (said).
 */
static int hbm_subnets_fd(const struct bq_kind *k, bool need)
{
	int fd = bq_open_map(k, "hbm_subnets");

	if (fd < 0 && need)
		bq_error(fd, "bpf_%s was loaded without subnet entries, by an older bpfqdisc: "
			 "unload it once no pod has a qdisc of it", k->kind);
	return fd < 0 ? -1 : fd;
}

/* ifindex's (this netns) entries for s; -1 with the library's error. */
static int hbm_subnets_put(const struct bq_kind *k, int ifindex, const struct cni_subnets *s)
{
	int fd = hbm_subnets_fd(k, s->n), err;

	if (fd < 0)
		return s->n ? -1 : 0;
	err = subnets_put(fd, bq_self_netns_cookie(), ifindex, s);
	close(fd);
	return err;
}

/* The entries of a device the record names, wherever it is now. */
static int hbm_subnets_forget(const struct bq_kind *k, uint64_t netns_cookie, int ifindex)
{
	int fd = hbm_subnets_fd(k, false), err;

	if (fd < 0)
		return 0;
	err = subnets_clear(fd, netns_cookie, ifindex);
	close(fd);
	return err;
}

static int hbm_subnets_check(const struct bq_kind *k, int ifindex, const struct cni_subnets *s)
{
	int fd = hbm_subnets_fd(k, s->n), err;

	if (fd < 0)
		return s->n ? -1 : 0;
	err = subnets_check(fd, bq_self_netns_cookie(), ifindex, s, "bpf_hbm");
	close(fd);
	return err;
}

static bool root_is(int ifindex, const char *kind)
{
	char now[BQ_KIND_LEN];

	bq_nl_qdisc_kind(ifindex, TC_H_ROOT, 0, now, sizeof(now));
	return !strcmp(now, kind);
}

/* k at rate as the root qdisc of ifindex in the current netns, noted in q.
 * A repeated ADD finds it there: the library's replace changes its rate,
 * and the subnet entries are replaced before. */
static int put_root(const struct bq_kind *k, int ifindex, const char *dev,
		    const struct pod_rate *pr, const struct cni_subnets *s, struct bq_pod_qdisc *q,
		    struct cni_err *e)
{
	struct pod_req p;

	pod_req(&p, k, ifindex, dev, pr, s);
	if (hbm_subnets_put(k, ifindex, s))
		return cni_fail_lib(e, CNI_ERR_LIMIT, "cannot set the pod's limit");
	if (bq_qdisc_create(&p.r, true)) {
		cni_fail_lib(e, CNI_ERR_LIMIT, "cannot set the pod's limit");
		hbm_subnets_forget(k, bq_self_netns_cookie(), ifindex);
		return -1;
	}
	q->netns_cookie = bq_self_netns_cookie();
	q->ifindex = ifindex;
	snprintf(q->dev, sizeof(q->dev), "%s", dev);
	snprintf(q->kind, sizeof(q->kind), "%s", k->kind);
	return 0;
}

static int put_in_pod(const struct bq_kind *k, const struct pod_link *l,
		      const struct pod_rate *pr, const struct cni_subnets *s, struct bq_pod_qdisc *q,
		      struct cni_err *e)
{
	int back, err, ifindex;

	if (bq_netns_enter_path(l->netns, &back))
		return cni_fail_lib(e, CNI_ERR_LIMIT, "cannot set the pod's limit");
	ifindex = if_nametoindex(l->ifname);
	err = ifindex ? put_root(k, ifindex, l->ifname, pr, s, q, e)
		      : cni_fail(e, CNI_ERR_LIMIT, "cannot set the pod's limit",
				 "no interface %s in netns %s", l->ifname, l->netns);
	cni_netns_leave(back);
	return err;
}

/* The backstop of the pod's egress at the host-side veth, noted in q. */
static int put_police(const struct pod_link *l, const struct pod_rate *pr,
		      const struct cni_subnets *s, struct bq_pod_qdisc *q, struct cni_err *e)
{
	if (police_ready() || police_apply(l->host_ifindex, pr->bytes_per_s, pr->burst, s))
		return cni_fail_lib(e, CNI_ERR_LIMIT, "cannot set the pod's limit");
	snprintf(q->role, sizeof(q->role), "egress");
	q->netns_cookie = bq_self_netns_cookie();
	q->ifindex = l->host_ifindex;
	snprintf(q->dev, sizeof(q->dev), "%s", l->host_ifname);
	snprintf(q->kind, sizeof(q->kind), POLICE_KIND);
	return 0;
}

int pod_limit_apply(const struct pod_link *l, const struct cni_limits *lim,
		    const struct cni_subnets *s, struct bq_pod_placement *p, struct cni_err *e)
{
	const struct bq_kind *k;
	int err = 0;

	memset(p, 0, sizeof(*p));
	if (pod_limit_ready(e))
		return -1;
	k = pod_kind();
	if (lim->ingress_rate) {
		struct pod_rate in = pod_rate(lim->ingress_rate, lim->ingress_burst);
		struct bq_pod_qdisc *q = &p->q[p->n];

		snprintf(q->role, sizeof(q->role), "ingress");
		err = put_root(k, l->host_ifindex, l->host_ifname, &in, s, q, e);
		p->n += !err;
	}
	if (!err && lim->egress_rate) {
		struct pod_rate eg = pod_rate(lim->egress_rate, lim->egress_burst);
		struct bq_pod_qdisc *q = &p->q[p->n];

		snprintf(q->role, sizeof(q->role), "egress");
		q->in_pod = true;
		err = put_in_pod(k, l, &eg, s, q, e);
		p->n += !err;
		if (!err)
			err = put_police(l, &eg, s, &p->q[p->n], e);
		p->n += !err;
	}
	if (err) {
		struct cni_err ignored;

		pod_limit_remove(p, l->netns, &ignored);
		p->n = 0;
	}
	return err;
}

/* Whether the root of ifindex is k at rate, with s's subnet entries; else
 * says what it is. */
static int check_root(const struct bq_kind *k, int ifindex, const char *dev,
		      const struct pod_rate *pr, const struct cni_subnets *s, const char *role,
		      struct cni_err *e)
{
	const struct bq_kind *found = k;
	struct bq_param_set want;
	struct bq_instance inst;
	struct bq_params now, defaults;
	struct pod_req p;
	char kind[BQ_KIND_LEN];

	bq_nl_qdisc_kind(ifindex, TC_H_ROOT, 0, kind, sizeof(kind));
	if (strcmp(kind, k->kind))
		return cni_fail(e, CNI_ERR_NOT_IN_FORCE, "limit not in force",
				"pod %s limit: the root qdisc of %s is %s, not %s", role, dev,
				kind[0] ? kind : "none", k->kind);
	pod_req(&p, k, ifindex, dev, pr, s);
	p.r.nparams = p.nconfig;
	if (bq_read_defaults(k, &defaults) || bq_build_params(&p.r, &defaults, &want) ||
	    bq_find_instance(ifindex, TC_H_ROOT, 0, &found, &inst) ||
	    bq_read_params(k, inst.slot, &now))
		return cni_fail(e, CNI_ERR_NOT_IN_FORCE, "limit not in force",
				"pod %s limit: %s on %s is not one of bpfqdisc's", role, k->kind, dev);
	for (size_t i = 0; i < want.n; i++)
		if ((want.given & (1u << i)) && now.v[i] != want.val.v[i])
			return cni_fail(e, CNI_ERR_NOT_IN_FORCE, "limit not in force",
					"pod %s limit: %s on %s has %s %llu, not %llu", role,
					k->kind, dev, want.desc[i].name,
					(unsigned long long)now.v[i], (unsigned long long)want.val.v[i]);
	if (hbm_subnets_check(k, ifindex, s))
		return cni_fail(e, CNI_ERR_NOT_IN_FORCE, "limit not in force", "pod %s limit: %s",
				role, bq_last_error());
	return 0;
}

int pod_limit_check(const struct pod_link *l, const struct cni_limits *lim,
		    const struct cni_subnets *s, struct cni_err *e)
{
	const struct bq_kind *k = pod_kind();
	struct pod_rate in = pod_rate(lim->ingress_rate, lim->ingress_burst);
	struct pod_rate eg = pod_rate(lim->egress_rate, lim->egress_burst);
	int back, err = 0, ifindex;

	if (!k || !bq_is_loaded(k))
		return cni_fail(e, CNI_ERR_NOT_IN_FORCE, "limit not in force",
				"bpf_" POD_KIND " is not loaded");
	if (lim->ingress_rate)
		err = check_root(k, l->host_ifindex, l->host_ifname, &in, s, "ingress", e);
	if (err || !lim->egress_rate)
		return err;
	if (police_check(l->host_ifindex, l->host_ifname, eg.bytes_per_s, eg.burst, s))
		return cni_fail_lib(e, CNI_ERR_NOT_IN_FORCE, "limit not in force");
	if (bq_netns_enter_path(l->netns, &back))
		return cni_fail_lib(e, CNI_ERR_NOT_IN_FORCE, "limit not in force");
	ifindex = if_nametoindex(l->ifname);
	err = ifindex ? check_root(k, ifindex, l->ifname, &eg, s, "egress", e)
		      : cni_fail(e, CNI_ERR_NOT_IN_FORCE, "limit not in force",
				 "no interface %s in netns %s", l->ifname, l->netns);
	cni_netns_leave(back);
	return err;
}

/* q's qdisc, if the current netns still has it: same device, same kind;
 * or q's backstop. */
static int remove_here(const struct bq_pod_qdisc *q, struct cni_err *e)
{
	char name[IF_NAMESIZE], msg[256];
	int err;

	if (bq_self_netns_cookie() != q->netns_cookie || !if_indextoname(q->ifindex, name) ||
	    strcmp(name, q->dev))
		return 0;
	if (!strcmp(q->kind, POLICE_KIND))
		return police_remove(q->ifindex) ? cni_fail_lib(e, CNI_ERR_IO,
								 "cannot remove the pod's limit") : 0;
	if (!root_is(q->ifindex, q->kind))
		return 0;
	err = bq_nl_qdisc_del(q->ifindex, TC_H_ROOT, 0, msg, sizeof(msg));
	if (err && err != -ENOENT && err != -ENODEV)
		return cni_fail(e, CNI_ERR_IO, "cannot remove the pod's limit",
				"%s on %s: %s", q->kind, q->dev, msg[0] ? msg : strerror(-err));
	return 0;
}

int pod_limit_remove(const struct bq_pod_placement *p, const char *netns, struct cni_err *e)
{
	const struct bq_kind *k = pod_kind();
	int err = 0;

	for (int i = 0; i < p->n; i++) {
		const struct bq_pod_qdisc *q = &p->q[i];
		int back, one = 0;

		if (!q->in_pod) {
			one = remove_here(q, e);
		} else if (netns && netns[0] && !bq_netns_enter_path(netns, &back)) {
			one = remove_here(q, e);
			cni_netns_leave(back);
		}	/* else the netns went, and its qdiscs with it */
		/* The egress program's pin of the device, named by the record:
		 * cheaper than bq_tidy()'s scan of every pin and device. The
		 * subnet entries too, also of a netns or device that went. */
		if (k && !strcmp(q->kind, k->kind)) {
			bq_detach_egress(k, q->netns_cookie, q->ifindex);
			if (hbm_subnets_forget(k, q->netns_cookie, q->ifindex) && !one)
				one = cni_fail_lib(e, CNI_ERR_IO, "cannot remove the pod's limit");
		}
		err = err ?: one;
	}
	return err;
}
