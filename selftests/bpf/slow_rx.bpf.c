// SPDX-License-Identifier: GPL-2.0
/*
 * A deliberately slow receiver for tests: XDP on the far end of a veth
 * spins for spin_loops iterations per packet. XDP puts veth in NAPI mode,
 * whose 256-entry ring fills, so the sending qdisc's queue really builds.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#ifndef SPIN_LOOPS
#define SPIN_LOOPS 20000
#endif

/* Makefile builds variants with -DSPIN_LOOPS (slow_rx5000.bpf.o). */
const volatile __u32 spin_loops = SPIN_LOOPS;

static long spin(__u64 i, void *ctx)
{
	return 0;
}

SEC("xdp")
int slow_rx(struct xdp_md *ctx)
{
	bpf_loop(spin_loops, spin, NULL, 0);
	return XDP_PASS;
}
