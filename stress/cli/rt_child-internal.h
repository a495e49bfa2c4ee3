/* SPDX-License-Identifier: MIT */
/*
 * What rt_child.c shares with rt_try.c: a child's command line and its
 * output directory. The commands use rt_child.h.
 */
#ifndef RT_STRESS_CLI_RT_CHILD_INTERNAL_H
#define RT_STRESS_CLI_RT_CHILD_INTERNAL_H

#include <stddef.h>

#include <jansson.h>

/**
 * rt_child_argv() - the argv of a run of @argv0 with @args into @dir
 * @argv0: the child's argv[0]
 * @args: a JSON array of strings, the arguments after argv[0]
 * @signature: the failure to halt at (--halt-on-signature); "" for none
 * @dir: the run's --out directory
 *
 * ARGV0 ARGS... --out DIR --no-progress, then --halt-on-signature
 * SIGNATURE unless @signature is "", NULL-terminated. The strings are
 * borrowed from the arguments.
 *
 * Context: any; allocates.
 * Return: a new array (free() it), or NULL when out of memory.
 */
char **rt_child_argv(const char *argv0, const json_t *args, const char *signature,
		     const char *dir);

/**
 * rt_child_mkdir() - create a child's output directory
 * @dir: the directory; it may exist already
 *
 * Return: 0, or RT_CHILD_ERROR (the reason printed on stderr).
 */
int rt_child_mkdir(const char *dir);

/**
 * rt_child_run_in() - rt_child_run() with the output into DIR/output.log
 * @binary, @argv, @timeout_s: as rt_child_run()
 * @dir: the child's output directory (rt_child_mkdir())
 *
 * Context: as rt_child_run().
 * Return: as rt_child_run().
 */
int rt_child_run_in(const char *binary, char *const argv[], const char *dir, double timeout_s);

/**
 * rt_child_first_line() - the first line of a child's DIR/output.log
 * @dir: the child's output directory
 * @skip: a line starting with this is passed over (NULL: none is)
 * @buf: receives the line, without its newline; "" when there is none
 * @len: room in @buf
 */
void rt_child_first_line(const char *dir, const char *skip, char *buf, size_t len);

#endif /* RT_STRESS_CLI_RT_CHILD_INTERNAL_H */
