// SPDX-License-Identifier: MIT
/*
 * ThreadSanitizer's report interface in the report hook (tsan_api.h): each
 * mutex of a report, by TSan's id and address, named by its lockdep class.
 * Built into the hooks (sanitizers/meson.build), TSan builds only.
 */
#include "tsan_api.h"

#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "compiler.h"
#include "lockdep.h"

#if RT_TSAN

/*
 * compiler-rt's tsan_debugging.cpp. Weak: a runtime without them leaves
 * them NULL, and the capture falls back to the report's text.
 */
int __tsan_get_report_data(void *report, const char **description, int *count,
			   int *stack_count, int *mop_count, int *loc_count,
			   int *mutex_count, int *thread_count, int *unique_tid_count,
			   void **sleep_trace, unsigned long trace_size) __attribute__((weak));
int __tsan_get_report_mutex(void *report, unsigned long idx, unsigned long *mutex_id,
			    void **addr, int *destroyed, void **trace,
			    unsigned long trace_size) __attribute__((weak));
int __tsan_get_report_mop(void *report, unsigned long idx, int *tid, void **addr, int *size,
			  int *write, int *atomic, void **trace,
			  unsigned long trace_size) __attribute__((weak));

static void put_line(int fd, const char *line, int n, size_t size)
{
	if (n > 0 && write(fd, line, (size_t)n < size ? (size_t)n : size - 1) < 0)
		return;
}

bool rt_tsan_api_write(int fd, void *report)
{
	int count, stacks, mops, locs, mutexes = 0, threads, tids;
	const char *type = NULL;
	void *trace[1] = { NULL };
	char line[160];

	if (!__tsan_get_report_data || !__tsan_get_report_mutex || !report)
		return false;
	if (!__tsan_get_report_data(report, &type, &count, &stacks, &mops, &locs, &mutexes,
				    &threads, &tids, trace, 1))
		return false;
	put_line(fd, line, snprintf(line, sizeof(line), RT_TSAN_API_REPORT "%s mutexes %d ==\n",
				    type ? type : "?", mutexes), sizeof(line));
	for (int i = 0; i < mutexes; i++) {
		unsigned long id = 0;
		void *addr = NULL;
		int destroyed = 0, cls;

		if (!__tsan_get_report_mutex(report, (unsigned long)i, &id, &addr, &destroyed,
					     trace, 1))
			continue;
		cls = lockdep_class_of(addr);
		put_line(fd, line, snprintf(line, sizeof(line), RT_TSAN_API_MUTEX "M%lu %s ==\n",
					    id, cls >= 0 ? lock_class_name(cls) : "?"),
			 sizeof(line));
	}
	for (int i = 0; __tsan_get_report_mop && i < mops; i++) {
		int tid, size, write, atomic, cls;
		void *addr = NULL;

		if (!__tsan_get_report_mop(report, (unsigned long)i, &tid, &addr, &size, &write,
					   &atomic, trace, 1))
			continue;
		cls = lockdep_class_within(addr);
		put_line(fd, line, snprintf(line, sizeof(line), RT_TSAN_API_ACCESS "%d %s ==\n",
					    i, cls >= 0 ? lock_class_name(cls) : "?"),
			 sizeof(line));
	}
	return true;
}

#endif /* RT_TSAN */
