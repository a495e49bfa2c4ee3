// SPDX-License-Identifier: MIT
#include "die.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void _rt_die(const char *file, const char *func, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rmaptorture: internal error at %s:%s:%d: ", file, func, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	abort();
}

const char *rt_strerror(int err)
{
	static _Thread_local char buf[64];

	/* The GNU strerror_r may or may not use buf: return what it returns. */
	return strerror_r(err, buf, sizeof(buf));
}

void *rt_malloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		rt_die("malloc(%zu): out of memory", size);
	return p;
}

void *rt_calloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		rt_die("calloc(%zu, %zu): out of memory", nmemb, size);
	return p;
}

void *rt_aligned_alloc(size_t align, size_t size)
{
	void *p;
	int rc = posix_memalign(&p, align, size ? size : align);

	if (rc)
		rt_die("posix_memalign(%zu, %zu): %s", align, size, rt_strerror(rc));
	return p;
}
