/* SPDX-License-Identifier: MIT */
/* Running the rmaptorture binary from tests. */
#ifndef RT_TESTS_RT_CLI_H
#define RT_TESTS_RT_CLI_H

#include <stddef.h>

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
 * What a failure message shows of a run's output @out: from its first
 * sanitizer report (TSan's or ASan's WARNING/ERROR line) if there is one,
 * else its last @n bytes. Check bounds the message (rt_check_main()), so
 * the report itself must come first, not the flight dumps that follow it.
 */
const char *rt_cli_excerpt(const char *out, size_t n);

#endif /* RT_TESTS_RT_CLI_H */
