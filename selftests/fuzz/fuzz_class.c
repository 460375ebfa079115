// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the argument parsing of `bpfqdisc class`: the
 * input, split into words at NUL bytes, is what follows "bpfqdisc class";
 * the first word is the verb. It runs what bq_cmd_class runs before it
 * checks privileges and looks for the qdisc: the verb check, parse_args
 * (dev, root, parent, handle, the selector, rate, -j), and bq_class_check with
 * the selector (mark, priority as a number or MAJOR:MINOR, cgroup path)
 * and the fields (bpf_hbm's rate: the library, with the registry's kinds,
 * is linked in, their objects embedded). Those parsers are static, so
 * src/cli/class.c (and the CLI's common.c and print.c) is compiled in.
 * "dev lo" comes first, so that inputs without a device of their own get
 * past the device lookup to the selector and the rate.
 */
#include "../../src/cli/class.c"
#include "../../src/cli/common.c"
#include "../../src/cli/print.c"
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *args[66] = { "dev", "lo" };
	struct bq_class_req r;
	int n = 2;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	bq_class_init(&r, text);
	for (size_t i = strlen(text) + 1; i <= size && n < 66; i += strlen(text + i) + 1)
		args[n++] = text + i;
	if (!strcmp(r.verb, "add") || !strcmp(r.verb, "change") || !strcmp(r.verb, "del") ||
	    !strcmp(r.verb, "show"))
		parse_args(n, args, &r) ?: bq_class_check(&r);
	free(text);
	return 0;
}
