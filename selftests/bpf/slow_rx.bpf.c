// SPDX-License-Identifier: GPL-2.0
/*
 * A deliberately slow receiver for tests: XDP on the far end of a veth
 * spins for spin_loops iterations per packet. XDP puts veth in NAPI mode,
 * whose 256-entry ring fills, so the sending qdisc's queue really builds.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 spin_loops = 20000;

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
