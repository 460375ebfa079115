/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The harnesses' input: the fuzzer's bytes split into words at NUL bytes,
 * as a command line would arrive.
 */
#ifndef FUZZ_WORDS_H
#define FUZZ_WORDS_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * A NUL-terminated copy of data (the caller frees it, NULL if out of
 * memory); its first max words are appended to words[*n...].
 */
static inline char *fuzz_words(const uint8_t *data, size_t size, char **words, int *n, int max)
{
	char *text = malloc(size + 1);

	if (!text)
		return NULL;
	memcpy(text, data, size);
	text[size] = '\0';
	for (size_t i = 0; i <= size && *n < max; i += strlen(text + i) + 1)
		words[(*n)++] = text + i;
	return text;
}
#endif
