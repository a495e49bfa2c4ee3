// SPDX-License-Identifier: MIT
/*
 * Sanitizer report hooks: each report a sanitizer makes arrives with the
 * flight recorder of every task (what each thread did just before).
 *
 * ThreadSanitizer calls __tsan_on_report() for every report it prints,
 * after the suppressions (a weak no-op in the runtime that an application
 * may override: gcc 12's libtsan.so calls it through the PLT, compiler-rt
 * 14's static runtime links to ours); ASan and UBSan call the death
 * callback once, before they exit. Both append to the file named by
 * $RT_FLIGHT_LOG (stderr when unset), opened once at startup:
 *
 *   == rmaptorture sanitizer hook: tsan task cpu-2 op do_anonymous_page ==
 *   == rmaptorture tsan report: data-race mutexes 1 ==   (TSan: tsan_api.h)
 *   == rmaptorture tsan mutex: M1181 PG_maplock ==
 *   == rmaptorture tsan access: 0 ? ==
 *   == rmaptorture flight recorder ==
 *   ...
 *   == end ==
 *
 * one such block per report, in report order, which is how capture.c
 * pairs block i with report i. Linked whole (sanitizers/meson.build):
 * nothing references these functions, the runtimes find them. With gcc's
 * separate libubsan.so, the constructor also points UBSan's log and death
 * callback where ASan's go (rt_san_hook_ubsan()).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compiler.h"
#include "flight.h"
#include "task.h"
#include "tsan_api.h"

#if RT_TSAN || RT_ASAN

static int hook_fd = STDERR_FILENO;	/* set once by the constructor */
static struct timespec hook_start;	/* the process's start, by the constructor */

/*
 * Name the reporting thread and its operation, then (TSan) the classes of
 * the report's mutexes and accesses, then dump every ring. Reads current_task, never
 * current (which would attach a task).
 */
__attribute__((noinline))
static void rt_san_hook_dump(const char *sanitizer, void *tsan_report)
{
	struct task_struct *t = current_task;
	const char *op = t ? __atomic_load_n(&t->op, __ATOMIC_RELAXED) : NULL;
	struct timespec now;
	char line[192];
	int n;

	/* Seconds since start: how long the finding took (the matrix reads it). */
	clock_gettime(CLOCK_MONOTONIC, &now);
	n = snprintf(line, sizeof(line),
		     "== rmaptorture sanitizer hook: %s task %s op %s elapsed %.3f ==\n",
		     sanitizer, t ? t->comm : "-", op ? op : "-",
		     (double)(now.tv_sec - hook_start.tv_sec) +
		     (double)(now.tv_nsec - hook_start.tv_nsec) * 1e-9);
	if (n > 0 && write(hook_fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1) < 0)
		return;
#if RT_TSAN
	if (tsan_report)
		rt_tsan_api_write(hook_fd, tsan_report);
#else
	(void)tsan_report;
#endif
	flight_dump_fd(hook_fd);
}

#if RT_TSAN
/* compiler-rt's tsan_interface.h */
void __tsan_on_report(void *report);
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);

/**
 * __tsan_on_report() - ThreadSanitizer's per-report callback (overrides its weak no-op)
 * @report: TSan's report (its text goes to its log; its mutexes are named
 *	by class through the report interface, tsan_api.c)
 *
 * Context: inside TSan's report, interceptors ignored; the dump's reads of
 * other tasks' rings are hidden from TSan too (ignore_thread), so that the
 * hook cannot report a race of its own while a report is in progress.
 */
void __tsan_on_report(void *report)
{
	__tsan_ignore_thread_begin();
	rt_san_hook_dump("tsan", report);
	__tsan_ignore_thread_end();
}
#endif /* RT_TSAN */

#if RT_ASAN
/* compiler-rt's sanitizer/common_interface_defs.h */
void __sanitizer_set_death_callback(void (*callback)(void));

/* ASan, UBSan (halting) and LeakSanitizer call this once, before _exit(). */
static void rt_san_hook_death(void)
{
	rt_san_hook_dump("asan", NULL);
}

/*
 * gcc links -fsanitize=address,undefined against two runtimes, libasan.so
 * and libubsan.so, each with its own copy of the common code. Their
 * exported entry points resolve to libasan's, so libubsan never learns its
 * log_path (it reports on stderr) nor our death callback. Reach libubsan's
 * own copies by dlsym() on its handle: its reports go to
 * LOG_PATH.ubsan.PID (a file of its own: each runtime truncates the file
 * it opens), which capture.c reads with the others. clang's runtime is
 * one library, where there is nothing to do.
 */
static void rt_san_hook_ubsan(void)
{
	void *h = dlopen("libubsan.so.1", RTLD_NOW | RTLD_NOLOAD);
	void (*set_path)(const char *);
	void (*set_death)(void (*)(void));
	const char *opts = getenv("UBSAN_OPTIONS"), *p, *last = NULL;
	char path[PATH_MAX];
	size_t n;

	if (!h)
		return;
	*(void **)&set_death = dlsym(h, "__sanitizer_set_death_callback");
	if (set_death)
		set_death(rt_san_hook_death);
	/* The last log_path= wins, as in the sanitizers' own parser. */
	for (p = opts; p && (p = strstr(p, "log_path=")); p += 9)
		if (p == opts || strchr(": ,\t", p[-1]))
			last = p + 9;
	*(void **)&set_path = dlsym(h, "__sanitizer_set_report_path");
	if (last && set_path) {
		n = strcspn(last, ": ,\t");
		if (n && n < sizeof(path) - 8 &&
		    !(n == 6 && (!strncmp(last, "stderr", 6) || !strncmp(last, "stdout", 6)))) {
			snprintf(path, sizeof(path), "%.*s.ubsan", (int)n, last);
			set_path(path);
		}
	}
	/* The handle stays open: libubsan is loaded for the process's life anyway. */
}
#endif /* RT_ASAN */

__attribute__((constructor))
static void rt_san_hook_init(void)
{
	const char *path = getenv("RT_FLIGHT_LOG");

	clock_gettime(CLOCK_MONOTONIC, &hook_start);
	if (path && *path) {
		int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

		if (fd >= 0)
			hook_fd = fd;
		else
			perror(path);
	}
#if RT_ASAN
	__sanitizer_set_death_callback(rt_san_hook_death);
	rt_san_hook_ubsan();
#endif
}

#else

/* A build without a sanitizer has no report to hook. */
extern int rt_san_hooks_absent;

#endif /* RT_TSAN || RT_ASAN */
