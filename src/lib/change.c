// SPDX-License-Identifier: GPL-2.0
/*
 * Changing a live qdisc's parameters. BPF qdiscs have no .change: a change
 * rewrites the instance's parameters in bq_slots, which the qdisc reads
 * for every packet, and so does a replace onto a qdisc of the same kind,
 * which the kernel would route to .change. Changers of one kind hold a
 * lock on its pin directory, so a second one is refused rather than
 * interleaved. No libbpf: the tc plugin changes parameters through here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
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
int bq_build_params(const struct bq_qdisc_req *r, const struct bq_params *base,
			struct bq_param_set *set)
{
	int err = bq_kind_params(r->kind, set);

	if (err)
		return err;
	set->val = *base;
	return bq_params_apply(set, r->nparams, r->params);
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
	err = bq_build_params(r, &cur, &set) ?:
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
