// SPDX-License-Identifier: GPL-2.0
/* bpfqdisc list: every kind, its defaults, slots and live qdiscs. */
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

const char list_help[] =
	"  list\n"
	"      Show every kind, whether it is loaded, its defaults and its live qdiscs.\n"
	;

static void print_handle(const char *what, __u32 h)
{
	if (h == 0xffffffff)
		printf(" %s root", what);
	else
		printf(" %s %x:%x", what, h >> 16, h & 0xffff);
}

/*
 * The kernel's queue length of q's qdisc, as qdisc show reads it: the
 * kernel counts every packet, wherever the kind keeps it. Only a qdisc of
 * this netns can be asked; false for the others.
 */
static bool kernel_qlen(const struct bq_instance *q, __u64 our_netns, __u32 *qlen)
{
	struct bq_qdisc_info *tc;
	bool found = false;
	size_t n;

	if (q->where.netns_cookie != our_netns || bq_nl_qdisc_list(q->where.ifindex, &tc, &n))
		return false;
	for (size_t i = 0; i < n && !found; i++) {
		found = bq_same_qdisc(q, our_netns, &tc[i]);
		if (found)
			*qlen = tc[i].qlen;
	}
	free(tc);
	return found;
}

static void print_instance(const struct bq_kind *k, const struct bq_param_set *set,
			   const struct bq_instance_info *ii, __u64 our_netns)
{
	const struct bq_instance *q = &ii->inst;
	struct bq_params params;
	char dev[IF_NAMESIZE];
	__u64 drops = 0;
	__u32 qlen;

	for (int i = 0; i < BQ_MAX_DROPS; i++)
		drops += q->cnt.drops[i];
	if (q->where.netns_cookie == our_netns && if_indextoname(q->where.ifindex, dev))
		print_string(PRINT_ANY, "dev", "  dev %s", dev);
	else
		printf("  ifindex %u netns %llu", q->where.ifindex,
		       (unsigned long long)q->where.netns_cookie);
	print_handle("handle", q->handle);
	print_handle("parent", q->where.parent);
	if (q->userns == BQ_USERNS_USER)
		printf(" userns");
	else if (q->userns == BQ_USERNS_ROOT)
		printf(" userns root");
	if (!bq_read_params(k, q->slot, &params))
		print_params(set, &params);
	printf("\n    enqueued %llu dequeued %llu (%llu bytes) dropped %llu",
	       (unsigned long long)q->cnt.enqueued, (unsigned long long)q->cnt.dequeued,
	       (unsigned long long)q->cnt.dequeued_bytes, (unsigned long long)drops);
	if (kernel_qlen(q, our_netns, &qlen))
		printf(" qlen %u", qlen);
	printf("\n");
}

/*
 * "4 slots of 2 classes, 2 for user namespaces (1 held), at most 1 per
 * user, at most 2 per network namespace but the initial one and per user
 * namespace root made" (framework 2.3): what load --max-instances,
 * --class-slots (a kind with classes), --userns-slots, --user-slots and
 * --netns-slots set.
 */
static void print_slots(const struct bq_kind *k, const struct bq_instance_info *v, size_t n)
{
	__u32 classes = bq_class_slot_count(k);
	struct bq_config c;
	size_t held = 0;

	if (bq_read_config(k, &c))
		return;
	for (size_t i = 0; i < n; i++)
		held += v[i].inst.userns == BQ_USERNS_USER;
	printf("  %u slots", bq_slot_count(k));
	if (classes)
		printf(" of %u classes", classes);
	printf(", ");
	if (c.userns_slots)
		printf("%u for user namespaces (%zu held), at most %u per user", c.userns_slots,
		       held, c.user_slots);
	else
		printf("none for user namespaces");
	if (c.netns_slots)
		printf(", at most %u per network namespace but the initial one%s", c.netns_slots,
		       bq_kind_framework_minor(k) >= 3 ? " and per user namespace root made" : "");
	printf("\n");
}

/*
 * "  memory 8470528b in 14 maps, 131072b per instance": what the kind's BPF
 * maps hold now, and an instance's share (bq_kind_memory()). Nothing if
 * they cannot be read (not root).
 */
static void print_memory(const struct bq_kind *k)
{
	struct bq_kind_memory m;

	if (bq_kind_memory(k, &m))
		return;
	print_uint(PRINT_ANY, "memory_bytes", "  memory %llub", m.bytes);
	print_uint(PRINT_ANY, "maps", " in %llu maps", m.maps);
	print_uint(PRINT_ANY, "arena_bytes", " and arena pages (%llub)", m.arena);
	print_uint(PRINT_ANY, "instance_memory_bytes", ", %llub per instance", m.per_instance);
	print_nl();
}

/*
 * A kind without the framework keeps no table of its qdiscs: those tc
 * shows in this network namespace, with tc's counters.
 */
static int print_plain(const struct bq_kind *k)
{
	struct bq_qdisc_info *q;
	size_t n;
	int err = bq_nl_qdisc_list(0, &q, &n);

	printf("%-10s loaded     %s, without the framework: tc's qdiscs of this network namespace\n",
	       k->kind, k->summary);
	if (err) {
		bq_err("cannot list the qdiscs of this network namespace: %s", strerror(-err));
		return BQ_EXIT_FAIL;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(q[i].kind, k->kind))
			continue;
		print_string(PRINT_ANY, "dev", "  dev %s", q[i].dev);
		print_handle("handle", q[i].handle);
		print_handle("parent", q[i].parent);
		printf("\n    sent %llu bytes %llu pkt dropped %u overlimits %u requeues %u qlen %u\n",
		       (unsigned long long)q[i].bytes, (unsigned long long)q[i].packets, q[i].drops,
		       q[i].overlimits, q[i].requeues, q[i].qlen);
	}
	free(q);
	return 0;
}

int do_list(int argc, char **argv)
{
	__u64 our_netns = bq_self_netns_cookie();
	bool failed = false;
	int err;

	err = bq_prepare(BQ_NEED_READ);
	if (err)
		return err;
	for (size_t i = 0; i < bq_nkinds; i++) {
		const struct bq_kind *k = &bq_kinds[i];
		struct bq_instance_info *v = NULL;
		struct bq_param_set set;
		struct bq_params defaults;
		size_t n = 0;

		if (k->plain && bq_is_loaded(k)) {
			failed |= print_plain(k) != 0;
			continue;
		}
		if (!bq_has_state(k)) {
			printf("%-10s not loaded  %s\n", k->kind, k->summary);
			continue;
		}
		if (bq_is_loaded(k))
			printf("%-10s loaded     %s\n", k->kind, k->summary);
		else
			printf("%-10s unloaded with live qdiscs (of the earlier load)  %s\n", k->kind,
			       k->summary);
		if (!bq_kind_params(k, &set) && !bq_read_defaults(k, &defaults)) {
			printf("  defaults:");
			print_params(&set, &defaults);
			printf("\n");
		}
		err = bq_instances(k, &v, &n);
		if (err) {
			bq_err("cannot read the instances of %s: %s", k->kind, strerror(-err));
			failed = true;
		}
		print_slots(k, v, n);
		print_memory(k);
		for (size_t j = 0; j < n; j++)
			print_instance(k, &set, &v[j], our_netns);
		free(v);
	}
	return failed ? BQ_EXIT_FAIL : 0;
}

