/* SPDX-License-Identifier: MIT */
/*
 * Between the sanitizer report parser (san_report.c: report headers, the
 * line state machine, the message) and its classification
 * (san_report_classify.c: each finding's type, frames and which of them
 * are the runtime's, the primary stacks, the task, the signature).
 */
#ifndef RT_SANITIZERS_SAN_REPORT_INTERNAL_H
#define RT_SANITIZERS_SAN_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "san_report.h"

/* The longest line kept: the rest is cut, never overrun. */
#define LINE_MAX_LEN	1024

/* Does @s start with @prefix? */
static inline bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The @n bytes of @src into @dst, cut to @len - 1, NUL-terminated. */
static inline void copy(char *dst, size_t len, const char *src, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* @s without leading and (in place) trailing blanks and tabs. */
static inline char *trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* Drop "at 0x..." and bare "0x..." tokens and double spaces, in place. */
void san_strip_addresses(char *s);

/* Remove " (pid=N)" from @s, in place. */
void san_strip_pid(char *s);

/* @s as [A-Za-z0-9_-], other characters as '-', no leading/trailing/double '-', no numbers. */
void san_slug(char *dst, size_t len, const char *s, size_t n);

/*
 * ThreadSanitizer's type: "data race (pid=1)" -> "data-race",
 * "lock-order-inversion (potential deadlock)" -> "lock-order-inversion".
 */
void san_tsan_type(char *dst, size_t len, const char *rest);

/* AddressSanitizer's type from its ERROR line (the SUMMARY line overrides). */
void san_asan_type(char *dst, size_t len, const char *rest);

/*
 * UBSan's short type: the words of the text before its first ':', ',' or
 * quote, less numbers and a trailing "of type"/"for type":
 * "shift exponent 40 is too large for 32-bit type 'int'" ->
 * "shift-exponent-is-too-large".
 */
void san_ubsan_type(char *dst, size_t len, const char *text);

/*
 * A frame line, after "#N ": TSan "FUNC LOC (MODULE+0xOFF)", ASan/UBSan
 * "0xPC in FUNC LOC" or "0xPC  (MODULE+0xOFF)" (maybe "(BuildId: ...)").
 */
void san_parse_frame(struct rt_san_frame *f, const char *s);

/*
 * Is the stack titled @title part of the finding, not thread creation, a
 * location or a lock's history? TSan's titles, then ASan's.
 */
bool san_tsan_primary(const char *title);
bool san_asan_primary(const char *title);

/* rep->task: the emulated task ("t3") that the report's first primary stack ran in. */
void san_find_task(struct rt_san_report *rep);

#endif /* RT_SANITIZERS_SAN_REPORT_INTERNAL_H */
