// SPDX-License-Identifier: GPL-2.0
/*
 * Strings from outside (device, cgroup and kind names) in JSON, in
 * Prometheus labels and in text. Each is any bytes but NUL: a user who may
 * name a cgroup or a device must not be able to add fields or lines to the
 * admin's output, make it invalid UTF-8 that a parser refuses, or send
 * escape sequences to the admin's terminal.
 */
#include <stdio.h>
#include <string.h>
#include "lib.h"

size_t bq_utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 :
		   s[0] >= 0xe0 && s[0] <= 0xef ? 3 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;

	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong forms, UTF-16 surrogates and beyond U+10FFFF are not UTF-8. */
	if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (n == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
	    (n == 4 && s[0] == 0xf0 && s[1] < 0x90) || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

/*
 * Writes s between quotes, escaping what the format needs: JSON every
 * control character, Prometheus (json false) only '\n'. Invalid UTF-8
 * becomes U+FFFD.
 */
static void quoted(FILE *f, const char *str, bool json)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		size_t n = bq_utf8_len((const char *)s);

		if (!n) {
			fputs("\xef\xbf\xbd", f);
			s++;
			continue;
		}
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (json && (*s < 0x20 || *s == 0x7f))
			fprintf(f, "\\u%04x", *s);
		else
			fwrite(s, 1, n, f);
		s += n;
	}
	fputc('"', f);
}

void bq_json_str(FILE *f, const char *s)
{
	quoted(f, s, true);
}

void bq_prom_label(FILE *f, const char *s)
{
	quoted(f, s, false);
}

/*
 * Prints as itself in text: not a blank, a C0 or C1 control, DEL or '\\',
 * nor a mark that moves the rest of the line (U+200E-200F, U+2028-202E:
 * bidi marks, line and paragraph separators, embeddings and overrides;
 * U+2066-2069: isolates).
 */
static bool text_plain(const unsigned char *s, size_t n)
{
	if (n == 1)
		return *s > ' ' && *s != 0x7f && *s != '\\';
	if (n == 3 && s[0] == 0xe2 && s[1] == 0x80)
		return !(s[2] == 0x8e || s[2] == 0x8f || (s[2] >= 0xa8 && s[2] <= 0xae));
	if (n == 3 && s[0] == 0xe2 && s[1] == 0x81)
		return !(s[2] >= 0xa6 && s[2] <= 0xa9);
	return !(s[0] == 0xc2 && s[1] < 0xa0);
}

/*
 * Every other byte, and every byte of invalid UTF-8, as \ooo, as
 * /proc/mounts writes a blank: the name stays one word on one line.
 */
const char *bq_text_str(const char *str, char *buf, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t used = 0;

	while (*s) {
		size_t n = bq_utf8_len((const char *)s);
		bool plain = n && text_plain(s, n);

		if (used + (plain ? n : 4) >= len)
			break;
		if (plain) {
			memcpy(buf + used, s, n);
		} else {
			n = 1;
			snprintf(buf + used, 5, "\\%03o", *s);
		}
		used += plain ? n : 4;
		s += n;
	}
	buf[used] = 0;
	return buf;
}
