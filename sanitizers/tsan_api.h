/* SPDX-License-Identifier: MIT */
/*
 * ThreadSanitizer's report interface (the __tsan_get_report_* accessors of
 * compiler-rt's tsan_debugging.cpp, exported by gcc 12's libtsan.so and by
 * clang's runtime): what __tsan_on_report() (hooks.c) learns of a report
 * beyond its text, written next to the flight dump for capture.c.
 *
 * The lines, after the hook's line and before the flight dump of each
 * TSan report (LOG_PREFIX.flight, hooks.c):
 *
 *   == rmaptorture tsan report: TYPE mutexes N ==
 *   == rmaptorture tsan mutex: M<ID> CLASS ==
 *   == rmaptorture tsan access: I CLASS ==
 *
 * TYPE is TSan's own name ("data-race", "lock-order-inversion", ...); one
 * mutex line per mutex of the report, in TSan's order, CLASS the lockdep
 * class of its address (lockdep_class_of()) or "?"; one access line per
 * memory access of the report (the I-th access stack), CLASS that of the
 * lock object holding the accessed address (lockdep_class_within()) or
 * "?" (most accesses are to no lock). No such lines when the
 * runtime lacks the accessors: capture.c then has the text alone.
 */
#ifndef RT_SANITIZERS_TSAN_API_H
#define RT_SANITIZERS_TSAN_API_H

#define RT_TSAN_API_REPORT	"== rmaptorture tsan report: "
#define RT_TSAN_API_MUTEX	"== rmaptorture tsan mutex: "
#define RT_TSAN_API_ACCESS	"== rmaptorture tsan access: "

/**
 * rt_tsan_api_write() - write @report's type, its mutexes' and accesses' classes to @fd
 * @fd: the flight log
 * @report: the report __tsan_on_report() was given
 *
 * Writes nothing when the runtime has no __tsan_get_report_data() or
 * __tsan_get_report_mutex() (they are weak references); no access lines
 * without __tsan_get_report_mop().
 *
 * Context: inside TSan's report, in the reporting thread, which may hold
 * emulated locks: takes no lock, allocates nothing.
 * Return: true when the lines were written (the runtime has the accessors).
 */
_Bool rt_tsan_api_write(int fd, void *report);

#endif /* RT_SANITIZERS_TSAN_API_H */
