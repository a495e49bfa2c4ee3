/* SPDX-License-Identifier: MIT */
/*
 * Shared support for the Check suites: a TAP main, a thread runner with a
 * start gate, the first-failure recorder that workers use instead of
 * ck_assert, a report capture sink, and the printed, replayable seed.
 */
#ifndef RT_TESTS_RT_CHECK_H
#define RT_TESTS_RT_CHECK_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bug.h"
#include "random.h"	/* rt_rand(), for per-thread PRNGs seeded from rt_test_seed() */

/*
 * Check's ck_assert_msg(), which every ck_assert_*() expands to, less the
 * _mark_point() it calls when the assertion holds. In fork mode each
 * mark point is a message to the runner, and the runner consumes its
 * message file with a memmove per message: quadratic in the assertions
 * that pass. The prio_tree suite's 10^6 checks spent 80% of its time
 * there, 71 s under TSan. A failure still reports its file and line;
 * what is lost is the "last checkpoint" of a test that crashes, which
 * the sanitizer builds give as a stack trace. Tests that want one call
 * mark_point().
 */
#undef ck_assert_msg
#define ck_assert_msg(expr, ...)						\
	((expr) ? (void)0 :							\
		  _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", \
				    ##__VA_ARGS__))

/* Run @s with TAP on stdout; the process exit status. Prints the seed first. */
int rt_check_main(Suite *s);

/*
 * A TCase @name added to @s, @timeout seconds a test, each test set up
 * and torn down by @setup and @teardown (Check's checked fixture; both
 * NULL: none). Return: the TCase, for tcase_add_test().
 */
TCase *rt_tcase(Suite *s, const char *name, double timeout, SFun setup, SFun teardown);

/* One TCase of a suite table (rt_suite()). */
#define RT_TCASE_MAX_TESTS 16
struct rt_tcase {
	const char *name;
	double timeout;			/* seconds a test */
	SFun setup, teardown;		/* Check's checked fixture; NULL: none */
	const TTest *tests[RT_TCASE_MAX_TESTS];	/* up to the first NULL */
	/*
	 * Tests that must die of SIGABRT (a BUG report): added only where
	 * Check forks each test (CK_FORK is not "no"), after @tests.
	 */
	const TTest *bug_tests[4];
};

/* A suite @name of the @n TCases of @tcs, in order. */
Suite *rt_suite(const char *name, const struct rt_tcase *tcs, int n);

/* The test seed: $RT_SEED if set, else time-based; printed by rt_check_main. */
uint64_t rt_test_seed(void);

/*
 * Start @n threads, each attached as an emulated task "t<idx>", released
 * together, running @fn(idx, arg); join them all. Dies on pthread errors.
 */
void rt_run_threads(int n, void (*fn)(int idx, void *arg), void *arg);

/* Workers record the first failure here; the main thread asserts. */
void rt_fail_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define rt_fail(...) rt_fail_at(__FILE__, __LINE__, __VA_ARGS__)
#define rt_check(cond) do {						\
	if (!(cond))							\
		rt_fail("check failed: %s", #cond);			\
} while (0)
/* NULL when nothing failed. */
const char *rt_first_failure(void);
void rt_failure_reset(void);
#define ck_assert_no_worker_failure() \
	ck_assert_msg(rt_first_failure() == NULL, "worker failure: %s", rt_first_failure())

/*
 * Capture vm_reports (lockdep, atomic sleep, WARN) instead of printing
 * them: rt_reports_capture() installs the sink and clears the log.
 */
void rt_reports_capture(void);
void rt_reports_release(void);
int rt_reports_count(enum vm_report_kind kind);
/* Copy of the first captured report of @kind; false if none. */
bool rt_reports_first(enum vm_report_kind kind, struct vm_report *out);

/*
 * Run @argv[0] with @argv, the inherited environment plus @env_set
 * ("NAME=value" replacing any NAME=..., or NULL), stdout and stderr
 * captured into @out (NUL-terminated, truncated to @outlen - 1).
 * Return: the wait status. For probes whose sanitizer report is the result.
 */
int rt_run_capture(char *const argv[], const char *env_set, char *out, size_t outlen);
/* rt_run_capture() with exactly the environment @envp (NULL-terminated; { NULL }: none). */
int rt_run_capture_envp(char *const argv[], char *const envp[], char *out, size_t outlen);

/*
 * Parse a lock-ordering tree from a comment in @path (the indented form of
 * mm/rmap.c): it starts after the line containing @marker and a blank
 * " *" line, and ends at the next blank line. Fills @parents[class] with
 * the classes each line's parents name (a class may appear under several)
 * and @seen[class]; ck_asserts that every name is a known class.
 * Return: the number of tree lines.
 */
int rt_parse_lock_tree(const char *path, const char *marker,
		       uint64_t parents[], bool seen[]);

/*
 * Parse the tree (as rt_parse_lock_tree()) and ck_assert that it has at
 * least @min_entries lines and that every class it shows has exactly
 * lockdep's documented parents. Fills @seen for further checks.
 */
void rt_assert_lock_tree(const char *path, const char *marker, int min_entries,
			 bool seen[]);

/* A Check timeout scaled for the build (TSan x6, ASan x3, as meson's). */
double rt_tmo(double plain_s);
/* A per-thread PRNG state derived from the printed seed. */
uint64_t rt_thread_rng(int idx);
/* CLOCK_MONOTONIC in seconds. */
double rt_now(void);
/* Hand-shakes between threads: false if @flag was not set within RT_WAIT_LIMIT_S. */
#define RT_WAIT_LIMIT_S	20
bool rt_wait_flag(const int *flag);
void rt_set_flag(int *flag);

#endif /* RT_TESTS_RT_CHECK_H */
