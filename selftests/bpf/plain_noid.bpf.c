// SPDX-License-Identifier: GPL-2.0
/* plain_fifo with no .id, for the loader to refuse (test_load_object). */
#define PLAIN_ID ""
#include "plain_fifo.bpf.c"
