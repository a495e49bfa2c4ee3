/* SPDX-License-Identifier: MIT */
/*
 * Sanitizer capture: after a child of a sanitizer build ran with
 * rt_variant_setenv()'s environment, turn what its sanitizer wrote
 * (LOG_PREFIX.PID) and what its report hooks dumped (LOG_PREFIX.flight)
 * into failure artifacts, one per root cause, and print the new ones.
 */
#ifndef RT_SANITIZERS_CAPTURE_H
#define RT_SANITIZERS_CAPTURE_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "san_report.h"

/**
 * rt_sanitizer_collect() - save the sanitizer reports of a run as artifacts
 * @log_prefix: the log_path the child ran with
 * @context: the run's fields (scenario, rmap, threads, seed, sched, build,
 *	reproduce, args, ...), copied into each artifact; may be NULL
 * @out_dir: where the artifacts go (rt_artifact_save(), deduplicated)
 * @term: where the first report of each new group is printed
 *	(rt_sanitizer_print()); NULL for nowhere
 * @nr_new, @nr_repeat: receive the number of new groups (artifacts) and
 *	of repeats (either may be NULL)
 *
 * Reads every LOG_PREFIX.<pid> (and LOG_PREFIX.ubsan.<pid>, hooks.c) file,
 * in pid order, and the flight blocks of LOG_PREFIX.flight: block i goes
 * with report i (a child that ran children of its own would break that
 * pairing). The reports are grouped by root cause (rt_san_group()); each
 * group is one artifact: its first report's context plus kind, message,
 * stack, task and op (from the hook's line; else the task is the thread
 * name the sanitizer printed, or "", and op null) and flight (a TSan
 * report's also mutexes and tsan_api, san_report_locks.h), with the
 * group's signature and title, and "group": each distinct report
 * signature in it with its count and first message.
 *
 * Context: the caller's thread; allocates. Return: the number of reports
 * found, or -errno (a message printed) when an artifact cannot be saved.
 */
int rt_sanitizer_collect(const char *log_prefix, json_t *context, const char *out_dir,
			 FILE *term, int *nr_new, int *nr_repeat);

/**
 * rt_sanitizer_print() - the sanitizer findings of a run, for a terminal
 * @f: where to print
 * @reps, @nr: the run's reports
 * @groups, @nr_groups: their groups (rt_san_group())
 * @fresh: per group, whether its signature is new (only those are printed)
 * @dir: where the artifacts are
 *
 * Prints, as Go's race detector does, each new group's first report: its
 * title, message and primary stacks trimmed to the model's frames (no
 * runtime, libc or hook frames; at most eight a stack), and its
 * signature; then "and N more reports (M signatures) in DIR" for every
 * report not printed (M: their distinct report signatures).
 *
 * Context: any.
 */
void rt_sanitizer_print(FILE *f, const struct rt_san_report *reps, int nr,
			const struct rt_san_group *groups, int nr_groups,
			const bool *fresh, const char *dir);

/**
 * rt_sanitizer_report_json() - the artifact of @rep: @context plus its fields
 * @rep: a parsed report
 * @context: copied (deeply); NULL for none
 * @flight: the flight block's array, or NULL; its reference is taken
 * @task, @op: from the report hook's line; NULL when unknown
 * Return: a new object (NULL when out of memory).
 */
json_t *rt_sanitizer_report_json(const struct rt_san_report *rep, json_t *context,
				 json_t *flight, const char *task, const char *op);

/**
 * rt_sanitizer_logs_remove() - remove the logs rt_sanitizer_collect() reads
 * Return: the number of files removed.
 */
int rt_sanitizer_logs_remove(const char *log_prefix);

#endif /* RT_SANITIZERS_CAPTURE_H */
