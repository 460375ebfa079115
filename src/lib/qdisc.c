// SPDX-License-Identifier: GPL-2.0
/*
 * New qdiscs of the kinds, with parameters: a new qdisc's parameters
 * travel in the request that creates it, as its TCA_OPTIONS (struct
 * bq_options), which .init checks and applies before the qdisc sees a
 * packet. A replace onto a qdisc of the same kind is a change (change.c).
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib.h"

/* The kind's egress program, if any, on the device: it sees the packets of
 * the root qdisc and, under mq, of every child. */
static int attach_egress(const struct bq_qdisc_req *r)
{
	int err = bq_attach_egress(r->kind, r->ifindex);

	if (err)
		return bq_error(err, "%s is on %s, but its egress program is not: %s", r->kind->kind,
				r->dev, strerror(-err));
	return 0;
}

/*
 * Slots of k held in users' user namespaces, by owner's, by the user
 * namespace root made of inode inum, and in the netns of cookie.
 */
struct slots_held {
	size_t userns;
	size_t user;
	size_t root;
	size_t netns;
};

static void slots_held(const struct bq_kind *k, __u64 cookie, uid_t owner, __u32 inum,
		       struct slots_held *h)
{
	struct bq_instance_info *v;
	size_t n = 0;

	*h = (struct slots_held){};
	if (!bq_instances(k, &v, &n))
		for (size_t i = 0; i < n; i++) {
			const struct bq_instance *q = &v[i].inst;

			h->userns += q->userns == BQ_USERNS_USER;
			h->user += q->userns == BQ_USERNS_USER && q->userns_owner == owner;
			h->root += q->userns == BQ_USERNS_ROOT && q->userns_owner == inum;
			h->netns += q->where.netns_cookie == cookie;
		}
	free(v);
}

/*
 * Why .init refused (bq_quota()) where its errno alone misleads root: EPERM
 * and ENOSPC in the netns of a user namespace, ENOSPC in a netns at its
 * --netns-slots or of a user namespace root made at its --netns-slots.
 * NULL: the errno says it.
 */
static const char *why_refused(const struct bq_kind *k, int err, char *buf, size_t len)
{
	uid_t owner = (uid_t)-1;
	__u32 inum = 0;
	bool in_userns = bq_netns_userns(&owner, &inum);
	struct slots_held h;
	struct bq_config c;

	if ((err != -EPERM && err != -ENOSPC) || bq_read_config(k, &c))
		return NULL;
	slots_held(k, bq_self_netns_cookie(), owner, inum, &h);
	if (in_userns && err == -EPERM)
		snprintf(buf, len, "this network namespace belongs to a user namespace, where %s "
			 "allows no qdiscs (load --userns-slots N)", k->kind);
	else if (in_userns && err == -ENOSPC && c.netns_slots && h.root >= c.netns_slots)
		snprintf(buf, len, "this network namespace belongs to a user namespace root made, "
			 "which holds the %u slot%s %s allows each (load --netns-slots)",
			 c.netns_slots, c.netns_slots == 1 ? "" : "s", k->kind);
	else if (in_userns && err == -ENOSPC && h.userns >= c.userns_slots)
		snprintf(buf, len, "this network namespace belongs to a user namespace, and the %u "
			 "slots %s leaves to user namespaces are taken (load --userns-slots)",
			 c.userns_slots, k->kind);
	else if (in_userns && err == -ENOSPC && h.user >= c.user_slots)
		snprintf(buf, len, "this network namespace belongs to a user namespace of uid %u, "
			 "who holds the %u slot%s each user may have of %s (load --user-slots)",
			 owner, c.user_slots, c.user_slots == 1 ? "" : "s", k->kind);
	else if (err == -ENOSPC && c.netns_slots && h.netns >= c.netns_slots &&
		 !bq_in_initial_netns())
		snprintf(buf, len, "this network namespace holds the %u slots %s allows each "
			 "but the initial one (load --netns-slots)", c.netns_slots, k->kind);
	else
		return NULL;
	return buf;
}

int bq_qdisc_create(struct bq_qdisc_req *r, bool replace)
{
	struct bq_options opts;
	struct bq_param_set set;
	struct bq_params defaults;
	char msg[256], now[BQ_KIND_LEN];
	int err;

	/* A kind without the framework has no defaults: say what it lacks. */
	if (r->kind->plain)
		return bq_kind_params(r->kind, &set);
	if (bq_read_defaults(r->kind, &defaults))
		return bq_error(-errno, "cannot read the defaults of %s: %s", r->kind->kind, strerror(errno));
	err = bq_build_params(r, &defaults, &set);
	if (err)
		return err;
	bq_nl_qdisc_kind(r->ifindex, r->parent, r->handle, now, sizeof(now));
	/*
	 * The kernel would route this one to .change, which BPF qdiscs lack:
	 * change the live instance instead. Should another replace make the
	 * place's qdisc this kind in the meantime, the request below meets
	 * .change and fails with "Change operation not supported", changing
	 * nothing.
	 */
	if (replace && !strcmp(now, r->kind->kind))
		return bq_qdisc_change_req(r);
	bq_params_options(&set, &opts);
	err = bq_nl_qdisc_new(r->ifindex, r->parent, r->handle, r->kind->kind, replace, &opts,
			      sizeof(opts), msg, sizeof(msg));
	if (err && !msg[0] && !why_refused(r->kind, err, msg, sizeof(msg)))
		snprintf(msg, sizeof(msg), "%s", strerror(-err));
	/* The kernel's EINVAL, EEXIST and ENOENT: the request was wrong. */
	if (err == -EINVAL || err == -EEXIST || err == -ENOENT)
		bq_invalid("cannot %s %s on %s: %s", replace ? "replace with" : "add", r->kind->kind,
			   r->dev, msg);
	else if (err)
		bq_err("cannot %s %s on %s: %s", replace ? "replace with" : "add", r->kind->kind,
		       r->dev, msg);
	if (err)
		return err;
	err = attach_egress(r);
	if (!err)
		bq_class_warn_keys(r->kind, r->dev, NULL, &set.val);
	return err;
}

