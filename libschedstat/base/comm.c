// SPDX-License-Identifier: GPL-2.0
/* Text from the kernel made safe to print: the one sanitizer. */
#include "schedstat-local.h"

bool schedstat_text_unsafe(unsigned char c, bool ascii)
{
	return c < 0x20 || c == 0x7f || (ascii && c >= 0x80);
}

/*
 * A comm is whatever the task wrote with prctl(PR_SET_NAME): an escape
 * sequence in it would drive the user's terminal. Bytes >= 0x80 go too: the
 * kernel cuts comm at 15 bytes, possibly inside a UTF-8 sequence, and a
 * lone lead byte can swallow the column separator that follows it.
 */
void schedstat_comm_sanitize(char *dst, const char *src, size_t len)
{
	size_t i;

	if (!len)
		return;
	for (i = 0; i < len - 1 && src[i]; i++) {
		unsigned char c = src[i];

		dst[i] = schedstat_text_unsafe(c, true) ? '?' : c;
	}
	dst[i] = '\0';
}
