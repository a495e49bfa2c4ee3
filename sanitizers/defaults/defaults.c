// SPDX-License-Identifier: MIT
/*
 * The sanitizer builds' built-in defaults: every executable of a sanitized
 * build carries them (core_dep links this object whole), so that a binary
 * started directly, by a CI job, under gdb or rr, with an empty
 * environment, runs as the test setups and the harness run it: the false
 * liburcu report suppressed, a report ending the run with status 66.
 *
 * The runtimes call these hooks (weak no-ops in the runtime) once at
 * startup, parse what they return, then parse TSAN_OPTIONS, ASAN_OPTIONS
 * or UBSAN_OPTIONS over it: an option set in the environment wins. TSan
 * reads the suppressions returned here in addition to a suppressions=
 * file, so those add to these; RT_TSAN_DEFAULT_SUPPRESSIONS=0 drops these.
 * docs/usage.md "Sanitizers" says why each value is what it is.
 *
 * RT_SAN_THREAD, RT_SAN_ADDRESS and RT_SAN_UNDEFINED say which runtimes
 * the build links (sanitizers/defaults/meson.build, from b_sanitize).
 * This file is compiled without sanitizer instrumentation: the runtimes
 * call it while they initialize, before an instrumented function could
 * run (TSan's function-entry hook would touch a thread state not yet
 * there).
 */
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tsan_supp.h"	/* RT_TSAN_SUPPRESSIONS, generated from sanitizers/tsan.supp */

/*
 * Nothing in the program calls these: "used" keeps the compiler from
 * dropping them, default visibility and the link's
 * --export-dynamic-symbol let gcc's shared runtimes find them.
 */
#define RT_SAN_DEFAULT	__attribute__((used, visibility("default")))

#if RT_SAN_THREAD
const char *__tsan_default_options(void);
const char *__tsan_default_suppressions(void);

/*
 * halt_on_error=1: a direct run ends at its first report, as an ASan run
 * does (run --build tsan, replay and ci ask for 0 in TSAN_OPTIONS, to
 * collect every distinct race of one run). exitcode=66: TSan's own
 * default, said here because the harness and the tests rely on it.
 * second_deadlock_stack=1: a lock-order report shows where both locks
 * were taken. history_size=4: a longer per-thread history, so that the
 * "Previous write" stack of a race is restored instead of "[failed to
 * restore the stack]", which would change the report's signature.
 */
RT_SAN_DEFAULT const char *__tsan_default_options(void)
{
	return "halt_on_error=1:exitcode=66:second_deadlock_stack=1:history_size=4";
}

/*
 * Is NAME=VALUE (@entry) in the environment the process started with?
 * Read from /proc/self/environ by raw system calls: the runtime calls us
 * before libc has set environ (getenv() returns NULL then), and TSan
 * intercepts open() and read() but is not ready to run an interceptor.
 */
static int rt_san_env_has(const char *entry)
{
	char buf[4096];
	long n, pos = 0;	/* chars of @entry matched in this entry; -1: not it */
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/environ", O_RDONLY | O_CLOEXEC);
	int found = 0;

	if (fd < 0)
		return 0;
	while (!found && (n = syscall(SYS_read, fd, buf, sizeof(buf))) > 0) {
		for (long i = 0; i < n && !found; i++) {
			if (buf[i] == '\0') {
				found = pos >= 0 && entry[pos] == '\0';
				pos = 0;
			} else if (pos >= 0) {
				pos = entry[pos] == buf[i] ? pos + 1 : -1;
			}
		}
	}
	syscall(SYS_close, fd);
	return found;
}

/*
 * sanitizers/tsan.supp's entries, without its comments; none when the
 * process starts with RT_TSAN_DEFAULT_SUPPRESSIONS=0, to see the reports
 * they hide (no TSan option can drop them: a suppressions= file only adds
 * to them).
 */
RT_SAN_DEFAULT const char *__tsan_default_suppressions(void)
{
	if (rt_san_env_has("RT_TSAN_DEFAULT_SUPPRESSIONS=0"))
		return "";
	return RT_TSAN_SUPPRESSIONS;
}
#endif /* RT_SAN_THREAD */

#if RT_SAN_ADDRESS
const char *__asan_default_options(void);

/*
 * exitcode=66: the status TSan gives, not ASan's 1, which the harness
 * could not tell from its own exit 1 (a model failure). halt_on_error=1,
 * abort_on_error=0 (no core dump per finding) and detect_leaks=1 are
 * ASan's own defaults on Linux, said here because the tests rely on them.
 * No __lsan_default_suppressions(): no leak is suppressed.
 */
RT_SAN_DEFAULT const char *__asan_default_options(void)
{
	return "exitcode=66:halt_on_error=1:abort_on_error=0:detect_leaks=1";
}
#endif /* RT_SAN_ADDRESS */

#if RT_SAN_UNDEFINED
const char *__ubsan_default_options(void);

/*
 * print_stacktrace=1: UBSan prints only file:line without it.
 * halt_on_error=1 and exitcode=66: a finding fails the run with ASan's and
 * TSan's status (the build also compiles with -fno-sanitize-recover=all).
 */
RT_SAN_DEFAULT const char *__ubsan_default_options(void)
{
	return "exitcode=66:halt_on_error=1:print_stacktrace=1";
}
#endif /* RT_SAN_UNDEFINED */
