// SPDX-License-Identifier: GPL-2.0
/* plain_fifo with two Qdisc_ops maps, for the loader to refuse (test_load_object). */
#define PLAIN_TWO_OPS
#include "plain_fifo.bpf.c"
