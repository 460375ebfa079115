// SPDX-License-Identifier: GPL-2.0
/* plain_fifo with an .id without bpf_, for the loader to refuse (test_load_object). */
#define PLAIN_ID "plainfifo"
#include "plain_fifo.bpf.c"
