// SPDX-License-Identifier: GPL-2.0
/*
 * Qdiscs of the kinds: add, replace and change, with parameters.
 *
 * A new qdisc's parameters travel in the request that creates it, as its
 * TCA_OPTIONS (struct bq_options), which .init checks and applies before
 * the qdisc sees a packet. BPF qdiscs have no .change: a change rewrites
 * the instance's parameters in bq_slots, which the qdisc reads for every
 * packet, and so does a replace onto a qdisc of the same kind, which the
 * kernel would route to .change. Changers of one kind hold a lock on its
 * pin directory, so a second one is refused rather than interleaved.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "lib.h"


int bq_require_loaded(const struct bq_kind *k)
{
	if (bq_is_loaded(k))
		return 0;
	return bq_invalid("%s is not loaded (bpfqdisc load %s)", k->kind, k->name);
}

/* Exclusive right to write parameters of kind k: an fd, or -errno when someone has it. */
static int lock_kind(const struct bq_kind *k)
{
	int fd = bq_try_lock_kind(k);

	if (fd < 0 && errno == EWOULDBLOCK)
		return bq_invalid("another bpfqdisc is changing %s qdiscs; try again", k->kind);
	if (fd < 0)
		return bq_invalid("cannot open %s/%s to lock it: %s", BQ_PIN_ROOT, k->name,
				  strerror(errno));
	return fd;
}

/* Parameters: base values, then "name value" pairs from the request. */
static int build_params(const struct bq_qdisc_req *r, const struct bq_params *base,
			struct bq_param_set *set)
{
	int err = bq_kind_params(r->kind, set);

	if (err)
		return err;
	set->val = *base;
	return bq_params_apply(set, r->nparams, r->params);
}

int bq_find_instance(int ifindex, __u32 parent, __u32 handle, const struct bq_kind **kind,
		     struct bq_instance *inst)
{
	__u64 netns = bq_self_netns_cookie();

	for (size_t i = 0; i < bq_nkinds; i++) {
		const struct bq_kind *k = &bq_kinds[i];
		struct bq_instance_info *v;
		size_t n;
		bool found = false;

		if ((*kind && *kind != k) || !bq_has_state(k) || bq_instances(k, &v, &n))
			continue;
		for (size_t j = 0; j < n && !found; j++) {
			const struct bq_instance *q = &v[j].inst;

			found = q->where.netns_cookie == netns && (int)q->where.ifindex == ifindex &&
				(handle ? q->handle == handle : q->where.parent == parent);
			if (found)
				*inst = *q;
		}
		free(v);
		if (found) {
			*kind = k;
			return 0;
		}
	}
	return -ENOENT;
}

int bq_no_instance(const char *dev, __u32 parent, __u32 handle)
{
	bq_invalid("no BPF qdisc of bpfqdisc at %s %s", dev, handle ? "with that handle" :
		   parent == TC_H_ROOT ? "root" : "with that parent");
	return -ENOENT;
}

/*
 * Under the kind's lock from the read to the write, so that two changes
 * merge rather than one losing the other's. tc may replace the qdisc
 * meanwhile, and its slot go to the new one: the write is for the instance
 * read (its generation), which BPF checks as it writes.
 */
static int change_locked(struct bq_qdisc_req *r)
{
	struct bq_instance inst;
	struct bq_params cur;
	struct bq_param_set set;
	int err;

	if (bq_find_instance(r->ifindex, r->parent, r->handle, &r->kind, &inst))
		return bq_no_instance(r->dev, r->parent, r->handle);
	if (bq_read_params(r->kind, inst.slot, &cur))
		return bq_error(-errno, "cannot read the parameters of %s on %s: %s", r->kind->kind, r->dev, strerror(errno));
	err = build_params(r, &cur, &set) ?:
	      bq_class_rekey_refused(r->kind, &inst, r->dev, &cur, &set.val);
	if (err)
		return err;
	bq_stop_at("write");	/* test_slot_reuse replaces the qdisc here */
	err = bq_write_params(r->kind, &inst, &set.val);
	if (err == -ESTALE)
		return bq_error(-ESTALE, "%s on %s was replaced meanwhile: run the change again", r->kind->kind, r->dev);
	if (err)
		return bq_error(err, "cannot change %s on %s: %s", r->kind->kind, r->dev, strerror(-err));
	/* class add takes no lock: one added meanwhile undoes the change. */
	err = bq_class_rekey_refused(r->kind, &inst, r->dev, &cur, &set.val);
	if (err) {
		bq_write_params(r->kind, &inst, &cur);
		return err;
	}
	bq_class_warn_keys(r->kind, r->dev, &cur, &set.val);
	return 0;
}

int bq_qdisc_change_req(struct bq_qdisc_req *r)
{
	const struct bq_kind *k = r->kind;
	int lock, err;

	/* The lock is the kind's: find it first when the request names none. */
	if (!k) {
		struct bq_instance inst;

		if (bq_find_instance(r->ifindex, r->parent, r->handle, &k, &inst))
			return bq_no_instance(r->dev, r->parent, r->handle);
	}
	lock = lock_kind(k);
	if (lock < 0)
		return lock;
	r->kind = k;
	err = change_locked(r);
	close(lock);
	return err;
}

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

/* Slots of k held in user namespaces, by owner's, and in the netns of cookie. */
struct slots_held {
	size_t userns;
	size_t user;
	size_t netns;
};

static void slots_held(const struct bq_kind *k, __u64 cookie, uid_t owner, struct slots_held *h)
{
	struct bq_instance_info *v;
	size_t n = 0;

	*h = (struct slots_held){};
	if (!bq_instances(k, &v, &n))
		for (size_t i = 0; i < n; i++) {
			h->userns += v[i].inst.userns;
			h->user += v[i].inst.userns && v[i].inst.userns_owner == owner;
			h->netns += v[i].inst.where.netns_cookie == cookie;
		}
	free(v);
}

/*
 * Why .init refused (bq_quota()) where its errno alone misleads root: EPERM
 * and ENOSPC in the netns of a user namespace, ENOSPC in a netns at its
 * --netns-slots. NULL: the errno says it.
 */
static const char *why_refused(const struct bq_kind *k, int err, char *buf, size_t len)
{
	uid_t owner;
	bool in_userns = bq_netns_userns_owner(&owner);
	struct slots_held h;
	struct bq_config c;

	if ((err != -EPERM && err != -ENOSPC) || bq_read_config(k, &c))
		return NULL;
	slots_held(k, bq_self_netns_cookie(), owner, &h);
	if (in_userns && err == -EPERM)
		snprintf(buf, len, "this network namespace belongs to a user namespace, where %s "
			 "allows no qdiscs (load --userns-slots N)", k->kind);
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
	err = build_params(r, &defaults, &set);
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

