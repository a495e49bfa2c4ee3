/* SPDX-License-Identifier: MIT */
/*
 * rt_die() - the one exit for failures of the harness's own infrastructure
 * (pthread_*, allocations the harness makes for itself). Not for failures
 * of the emulated kernel: those are BUG_ON/WARN_ON reports (bug.h).
 */
#ifndef RT_CORE_DIE_H
#define RT_CORE_DIE_H

#include <stddef.h>

__attribute__((noreturn, format(printf, 4, 5)))
void _rt_die(const char *file, const char *func, int line, const char *fmt, ...);

#define rt_die(...) _rt_die(__FILE__, __func__, __LINE__, __VA_ARGS__)

/* Check a pthread_* return code: 0 or die naming the call and the errno. */
#define RT_PTHREAD(call) do {						\
	int __rc = (call);						\
	if (__rc)							\
		_rt_die(__FILE__, __func__, __LINE__, "%s: %s", #call,	\
			rt_strerror(__rc));				\
} while (0)

const char *rt_strerror(int err);

/* Allocations made by the harness for itself: never NULL. */
void *rt_malloc(size_t size);
void *rt_calloc(size_t nmemb, size_t size);
void *rt_aligned_alloc(size_t align, size_t size);

#endif /* RT_CORE_DIE_H */
