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
#include "link.h"
#include "lib.h"

#define POD_KIND		"hbm"
#define POD_MAX_INSTANCES	256	/* 110 pods x 2 directions, and room */
/* Packets a qdisc may hold: 3 MB of MTU packets, 1.2 s at 20 Mbit/s. Each
 * ring slot costs 40 bytes in bq_pool and bq_timeq: 21 MB for all. */
#define POD_RING_SLOTS		2048
#define TC_H_ROOT		0xFFFFFFFFU

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
	if (bq_check_kernel() || bq_ensure_bpffs())
		return cni_fail(e, CNI_ERR_UNAVAILABLE, "plugin not available",
				"this node cannot run BPF qdiscs");
	if (bq_kind_params(k, &set))
		return cni_fail(e, CNI_ERR_UNAVAILABLE, "plugin not available",
				"cannot read the parameters of %s", k->kind);
	o.defaults = set.val;
	/* Another ADD may load it meanwhile: then its load is ours. */
	if (bq_load(k, &o) && !bq_is_loaded(k))
		return cni_fail(e, CNI_ERR_UNAVAILABLE, "plugin not available",
				"cannot load %s (see the plugin's stderr)", k->kind);
	return 0;
}

/* The parameters of a pod's qdisc at rate bits/s, as bpfqdisc's words. */
static int pod_params(const struct bq_kind *k, uint64_t rate, struct bq_param_set *set)
{
	char rate_s[32], limit_s[16];
	char *argv[] = { "rate", rate_s, "shared_default", "on", "limit", limit_s };

	/* bpf_hbm counts bytes/s, and 0 means no limit: 8 bit/s at least. */
	snprintf(rate_s, sizeof(rate_s), "%llubit", (unsigned long long)(rate < 8 ? 8 : rate));
	snprintf(limit_s, sizeof(limit_s), "%u", POD_RING_SLOTS);
	if (bq_kind_params(k, set) || bq_read_defaults(k, &set->val))
		return -1;
	return bq_params_apply(set, sizeof(argv) / sizeof(argv[0]), argv) ? -1 : 0;
}

static bool root_is(int ifindex, const char *kind)
{
	char now[BQ_KIND_LEN];

	bq_nl_qdisc_kind(ifindex, TC_H_ROOT, 0, now, sizeof(now));
	return !strcmp(now, kind);
}

/* k at rate as the root qdisc of ifindex in the current netns, noted in q. */
static int put_root(const struct bq_kind *k, int ifindex, const char *dev, uint64_t rate,
		    struct pod_qdisc *q, struct cni_err *e)
{
	struct bq_param_set set;
	struct bq_options opts;
	char msg[256];
	int err;

	if (pod_params(k, rate, &set))
		return cni_fail(e, CNI_ERR_LIMIT, "cannot set the pod's limit",
				"bad parameters for %s at %llu bit/s", k->kind, (unsigned long long)rate);
	/* A repeated ADD: a replace onto the same kind would be a .change, which
	 * BPF qdiscs lack. */
	if (root_is(ifindex, k->kind))
		cni_qdisc_del_root(ifindex);
	bq_params_options(&set, &opts);
	err = bq_nl_qdisc_new(ifindex, TC_H_ROOT, 0, k->kind, true, &opts, sizeof(opts), msg,
			      sizeof(msg));
	if (err)
		return cni_fail(e, CNI_ERR_LIMIT, "cannot set the pod's limit",
				"%s as root of %s: %s", k->kind, dev, msg[0] ? msg : strerror(-err));
	err = bq_attach_egress(k, ifindex);
	if (err) {
		cni_qdisc_del_root(ifindex);
		return cni_fail(e, CNI_ERR_LIMIT, "cannot set the pod's limit",
				"%s's egress program on %s: %s", k->kind, dev, strerror(-err));
	}
	q->netns_cookie = cni_netns_cookie();
	q->ifindex = ifindex;
	snprintf(q->dev, sizeof(q->dev), "%s", dev);
	snprintf(q->kind, sizeof(q->kind), "%s", k->kind);
	return 0;
}

static int put_in_pod(const struct bq_kind *k, const struct pod_link *l, uint64_t rate,
		      struct pod_qdisc *q, struct cni_err *e)
{
	int back, err = cni_netns_enter(l->netns, &back), ifindex;

	if (err)
		return cni_fail(e, CNI_ERR_LIMIT, "cannot set the pod's limit",
				"cannot enter netns %s: %s", l->netns, strerror(-err));
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
	struct bq_params now;
	char kind[BQ_KIND_LEN];

	bq_nl_qdisc_kind(ifindex, TC_H_ROOT, 0, kind, sizeof(kind));
	if (strcmp(kind, k->kind))
		return cni_fail(e, CNI_ERR_NOT_IN_FORCE, "limit not in force",
				"pod %s limit: the root qdisc of %s is %s, not %s", role, dev,
				kind[0] ? kind : "none", k->kind);
	if (pod_params(k, rate, &want) || bq_find_instance(ifindex, TC_H_ROOT, 0, &found, &inst) ||
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
	err = cni_netns_enter(l->netns, &back);
	if (err)
		return cni_fail(e, CNI_ERR_NOT_IN_FORCE, "limit not in force",
				"cannot enter netns %s: %s", l->netns, strerror(-err));
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
	char name[IF_NAMESIZE];
	int err;

	if (cni_netns_cookie() != q->netns_cookie || !if_indextoname(q->ifindex, name) ||
	    strcmp(name, q->dev) || !root_is(q->ifindex, q->kind))
		return 0;
	err = cni_qdisc_del_root(q->ifindex);
	if (err && err != -ENOENT && err != -ENODEV)
		return cni_fail(e, CNI_ERR_IO, "cannot remove the pod's limit",
				"%s on %s: %s", q->kind, q->dev, strerror(-err));
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
		} else if (!netns || !netns[0] || cni_netns_enter(netns, &back)) {
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
