// SPDX-License-Identifier: GPL-2.0
/* plain_fifo with a built-in kind's .id, for the loader to refuse (test_load_object). */
#define PLAIN_ID "bpf_fifo"
#include "plain_fifo.bpf.c"
