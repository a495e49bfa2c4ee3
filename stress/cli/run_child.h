/* SPDX-License-Identifier: MIT */
/*
 * A `run` in a child process of this binary and what its record says
 * (run_child.c): for `scale` and `bench`, whose every point is a child, so
 * that no run inherits another's heap, caches or lock statistics.
 */
#ifndef RT_STRESS_CLI_RUN_CHILD_H
#define RT_STRESS_CLI_RUN_CHILD_H

#include <stddef.h>

#include <jansson.h>

/* This executable's path (/proc/self/exe). Return: 0 or -ENAMETOOLONG. */
int rt_self_exe(char *path, size_t len);

/**
 * rt_run_child_records() - run `rmaptorture run ARGS --out DIR --no-progress`
 * @args: NULL-terminated run options (after "run")
 * @dir: the run's output directory (created); its output goes to DIR/output.log
 * @timeout_s: as rt_child_run()
 * @recs: receives a new array of the run records the child wrote (run-*.json)
 * @first_line: receives the first line of its output after the START banner
 *	(a usage error, a report); may be NULL
 * @len: size of @first_line
 *
 * Context: as rt_child_run() (forks; not thread-safe).
 * Return: rt_child_run()'s return.
 */
int rt_run_child_records(const char *const *args, const char *dir, double timeout_s,
			 json_t **recs, char *first_line, size_t len);

/*
 * From a run record: ops/s, trylock fallbacks (all sites) per page scanned
 * by reclaim (0 when nothing was scanned), and per 1,000 operations.
 */
void rt_sample_of_run(const json_t *rec, double *ops_per_sec, double *fb_per_scan, double *fb_per_kop);

#endif /* RT_STRESS_CLI_RUN_CHILD_H */
