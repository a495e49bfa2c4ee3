/* SPDX-License-Identifier: MIT */
/* Running the rmaptorture binary from tests. */
#ifndef RT_TESTS_RT_CLI_H
#define RT_TESTS_RT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A test's output directory goes with the harness's own rt_remove_tree(). */
#include "rt_child.h"

/* The binary under test: $RT_BINARY, else the build's stress/rmaptorture. */
const char *rt_cli_binary(void);

/*
 * Run rmaptorture with the NULL-terminated @args (argv[1..]), output into
 * @out. Return: the exit status (-1 if it did not exit normally).
 */
int rt_cli_run(const char *const *args, char *out, size_t len);

/*
 * rt_cli_expect_usage_error() - ck_assert that rmaptorture rejects @args
 * as bad user input: exit status 2 and exactly one line of output, which
 * names @needle (the option or word at fault)
 * @args: NULL-terminated, as rt_cli_run()'s
 * @needle: what the one line must mention
 * @out, @len: the buffer the output goes to (shown when an assertion fails)
 *
 * Context: a test's main thread (it ck_asserts).
 */
void rt_cli_expect_usage_error(const char *const *args, const char *needle, char *out,
			       size_t len);

/*
 * Ctrl-C on a command, robust under load: start it in the background
 * (rt_cli_spawn()), wait until its output shows the work to be kept
 * (rt_cli_wait_output(), polled, never a fixed sleep), then SIGINT
 * (rt_cli_interrupt()).
 */

/*
 * Start rmaptorture with the NULL-terminated @args, stdout and stderr into
 * the file @log, SIGINT and SIGTERM at their defaults and unblocked.
 * Return: its pid.
 */
pid_t rt_cli_spawn(const char *const *args, const char *log);

/*
 * Poll @log until it holds @needle or @limit_s seconds passed; copy it
 * into @out (NUL-terminated, cut to @len). Return: whether it was found.
 */
bool rt_cli_wait_output(const char *log, const char *needle, double limit_s, char *out,
			size_t len);

/*
 * SIGINT to @pid (from rt_cli_spawn()), then wait for it; SIGKILL after
 * @limit_s seconds, so that a test never leaves it behind.
 * Return: its exit status, or -1 if it did not exit by itself.
 */
int rt_cli_interrupt(pid_t pid, double limit_s);

/*
 * What a failure message shows of a run's output @out: from its first
 * sanitizer report (TSan's or ASan's WARNING/ERROR line) if there is one,
 * else its last @n bytes. Check bounds the message (rt_check_main()), so
 * the report itself must come first, not the flight dumps that follow it.
 */
const char *rt_cli_excerpt(const char *out, size_t n);

/*
 * Assert that the record (JSON, or JSON Lines) at @dir/@name is valid
 * against its schema, schemas/<record>.schema.json, by
 * tests/check_records.py (its verdict goes to stderr, out of TAP's way).
 * Without python3-jsonschema (the script's exit 77) it passes.
 */
void rt_cli_assert_schema_valid(const char *dir, const char *name);

#endif /* RT_TESTS_RT_CLI_H */
