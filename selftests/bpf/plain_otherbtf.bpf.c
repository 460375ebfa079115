// SPDX-License-Identifier: GPL-2.0
/* plain_fifo with another kernel's struct Qdisc_ops, for the loader to refuse (test_load_object). */
#define PLAIN_OTHER_KERNEL
#include "plain_fifo.bpf.c"
