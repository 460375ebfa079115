// SPDX-License-Identifier: GPL-2.0
/*
 * The recipe: bpf_hbm (EDT per aggregate, per-flow turns inside it) as the
 * root qdisc of each device a direction of the pod leaves by, with
 * shared_default on so that every sender of the device is one aggregate
 * held to the pod's rate:
 *   - pod ingress: root of the host-side veth, in the node's netns;
 *   - pod egress: root of the pod's interface, in the pod's netns.
 * The burst is not used yet: bpf_hbm lets an idle aggregate's clock lag
 * now by at most its own fixed burst (100 us, or 125 KB at low rates),
 * whatever the config asks, which bounds containerd's placeholder.
 *
 * The kind is loaded here when it is not, sized for a node's pods rather
 * than for the CLI's default: kubelet's default max-pods is 110, with two
 * qdiscs each.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "enforce.h"
#include "lib.h"

#define POD_KIND		"hbm"
#define POD_MAX_INSTANCES	256	/* 110 pods x 2 directions, and room */
/* Packets a qdisc may hold: 3 MB of MTU packets, 1.2 s at 20 Mbit/s. Each
 * ring slot costs 40 bytes in bq_pool and bq_timeq: 21 MB for all. */
#define POD_RING_SLOTS		2048

static const struct bq_kind *pod_kind(void)
{
	return bq_kind_find(POD_KIND);
}

int pod_limit_ready(struct cni_err *e)
{
	const struct bq_kind *k = pod_kind();
	struct bq_load_opts o = { .max_instances = POD_MAX_INSTANCES, .ring_slots = POD_RING_SLOTS };
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

/* A pod's qdisc at rate bits/s as the root of ifindex, in bpfqdisc's words. */
struct pod_req {
	struct bq_qdisc_req r;
	char rate[32], limit[16];
	char *argv[6];
};

static void pod_req(struct pod_req *p, const struct bq_kind *k, int ifindex, const char *dev,
		    uint64_t rate)
{
	/* bpf_hbm counts bytes/s, and 0 means no limit: 8 bit/s at least. */
	snprintf(p->rate, sizeof(p->rate), "%llubit", (unsigned long long)(rate < 8 ? 8 : rate));
	snprintf(p->limit, sizeof(p->limit), "%u", POD_RING_SLOTS);
	p->argv[0] = "rate";
	p->argv[1] = p->rate;
	p->argv[2] = "shared_default";
	p->argv[3] = "on";
	p->argv[4] = "limit";
	p->argv[5] = p->limit;
	p->r = (struct bq_qdisc_req){
		.dev = dev, .ifindex = ifindex, .parent = TC_H_ROOT, .kind = k,
		.nparams = 6, .params = p->argv,
	};
}

static bool root_is(int ifindex, const char *kind)
{
	char now[BQ_KIND_LEN];

	bq_nl_qdisc_kind(ifindex, TC_H_ROOT, 0, now, sizeof(now));
	return !strcmp(now, kind);
}

/* k at rate as the root qdisc of ifindex in the current netns, noted in q.
 * A repeated ADD finds it there: the library's replace changes its rate. */
static int put_root(const struct bq_kind *k, int ifindex, const char *dev, uint64_t rate,
		    struct pod_qdisc *q, struct cni_err *e)
{
	struct pod_req p;

	pod_req(&p, k, ifindex, dev, rate);
	if (bq_qdisc_create(&p.r, true))
		return cni_fail_lib(e, CNI_ERR_LIMIT, "cannot set the pod's limit");
	q->netns_cookie = bq_self_netns_cookie();
	q->ifindex = ifindex;
	snprintf(q->dev, sizeof(q->dev), "%s", dev);
	snprintf(q->kind, sizeof(q->kind), "%s", k->kind);
	return 0;
}

static int put_in_pod(const struct bq_kind *k, const struct pod_link *l, uint64_t rate,
		      struct pod_qdisc *q, struct cni_err *e)
{
	int back, err, ifindex;

	if (bq_netns_enter_path(l->netns, &back))
		return cni_fail_lib(e, CNI_ERR_LIMIT, "cannot set the pod's limit");
	ifindex = if_nametoindex(l->ifname);
	err = ifindex ? put_root(k, ifindex, l->ifname, rate, q, e)
		      : cni_fail(e, CNI_ERR_LIMIT, "cannot set the pod's limit",
				 "no interface %s in netns %s", l->ifname, l->netns);
	cni_netns_leave(back);
	return err;
}

int pod_limit_apply(const struct pod_link *l, const struct cni_limits *lim,
		    struct pod_placement *p, struct cni_err *e)
{
	const struct bq_kind *k;
	int err = 0;

	memset(p, 0, sizeof(*p));
	if (pod_limit_ready(e))
		return -1;
	k = pod_kind();
	if (lim->ingress_rate) {
		struct pod_qdisc *q = &p->q[p->n];

		snprintf(q->role, sizeof(q->role), "ingress");
		err = put_root(k, l->host_ifindex, l->host_ifname, lim->ingress_rate, q, e);
		p->n += !err;
	}
	if (!err && lim->egress_rate) {
		struct pod_qdisc *q = &p->q[p->n];

		snprintf(q->role, sizeof(q->role), "egress");
		q->in_pod = true;
		err = put_in_pod(k, l, lim->egress_rate, q, e);
		p->n += !err;
	}
	if (err) {
		struct cni_err ignored;

		pod_limit_remove(p, l->netns, &ignored);
		p->n = 0;
	}
	return err;
}

/* Whether the root of ifindex is k at rate; else says what it is. */
static int check_root(const struct bq_kind *k, int ifindex, const char *dev, uint64_t rate,
		      const char *role, struct cni_err *e)
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
	pod_req(&p, k, ifindex, dev, rate);
	if (bq_read_defaults(k, &defaults) || bq_build_params(&p.r, &defaults, &want) ||
	    bq_find_instance(ifindex, TC_H_ROOT, 0, &found, &inst) ||
	    bq_read_params(k, inst.slot, &now))
		return cni_fail(e, CNI_ERR_NOT_IN_FORCE, "limit not in force",
				"pod %s limit: %s on %s is not one of bpfqdisc's", role, k->kind, dev);
	for (size_t i = 0; i < want.n; i++)
		if (now.v[i] != want.val.v[i])
			return cni_fail(e, CNI_ERR_NOT_IN_FORCE, "limit not in force",
					"pod %s limit: %s on %s has %s %llu, not %llu", role,
					k->kind, dev, want.desc[i].name,
					(unsigned long long)now.v[i], (unsigned long long)want.val.v[i]);
	return 0;
}

int pod_limit_check(const struct pod_link *l, const struct cni_limits *lim, struct cni_err *e)
{
	const struct bq_kind *k = pod_kind();
	int back, err = 0, ifindex;

	if (!k || !bq_is_loaded(k))
		return cni_fail(e, CNI_ERR_NOT_IN_FORCE, "limit not in force",
				"bpf_" POD_KIND " is not loaded");
	if (lim->ingress_rate)
		err = check_root(k, l->host_ifindex, l->host_ifname, lim->ingress_rate, "ingress", e);
	if (err || !lim->egress_rate)
		return err;
	if (bq_netns_enter_path(l->netns, &back))
		return cni_fail_lib(e, CNI_ERR_NOT_IN_FORCE, "limit not in force");
	ifindex = if_nametoindex(l->ifname);
	err = ifindex ? check_root(k, ifindex, l->ifname, lim->egress_rate, "egress", e)
		      : cni_fail(e, CNI_ERR_NOT_IN_FORCE, "limit not in force",
				 "no interface %s in netns %s", l->ifname, l->netns);
	cni_netns_leave(back);
	return err;
}

/* q's qdisc, if the current netns still has it: same device, same kind. */
static int remove_here(const struct pod_qdisc *q, struct cni_err *e)
{
	char name[IF_NAMESIZE], msg[256];
	int err;

	if (bq_self_netns_cookie() != q->netns_cookie || !if_indextoname(q->ifindex, name) ||
	    strcmp(name, q->dev) || !root_is(q->ifindex, q->kind))
		return 0;
	err = bq_nl_qdisc_del(q->ifindex, TC_H_ROOT, 0, msg, sizeof(msg));
	if (err && err != -ENOENT && err != -ENODEV)
		return cni_fail(e, CNI_ERR_IO, "cannot remove the pod's limit",
				"%s on %s: %s", q->kind, q->dev, msg[0] ? msg : strerror(-err));
	return 0;
}

int pod_limit_remove(const struct pod_placement *p, const char *netns, struct cni_err *e)
{
	int err = 0;

	for (int i = 0; i < p->n; i++) {
		const struct pod_qdisc *q = &p->q[i];
		int back, one;

		if (!q->in_pod) {
			one = remove_here(q, e);
		} else if (!netns || !netns[0] || bq_netns_enter_path(netns, &back)) {
			continue;	/* the netns went, and its qdiscs with it */
		} else {
			one = remove_here(q, e);
			cni_netns_leave(back);
		}
		err = err ?: one;
	}
	/* The egress programs' pins of devices that went or lost the qdisc. */
	bq_tidy();
	return err;
}
