// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness for the rtnetlink dump parser: any bytes as a reply. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bq_qdisc_info *v = NULL;
	size_t n = 0, cap = 0;
	/* The kernel's buffers are 4-byte aligned; so is ours. */
	uint32_t *buf = malloc(size + 4);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	bq_nl_parse_dump(buf, size, 0, &v, &n, &cap);
	free(v);
	free(buf);
	return 0;
}
