/* SPDX-License-Identifier: MIT */
/*
 * The record of a run: the options it was given (run_opts.h), the JSON
 * result record (run-SCENARIO-RMAP-SEED.json), the command that
 * reproduces it, and the failure artifacts (failure context, the report,
 * the flight recorder).
 * `run` fills and writes it (stress/cli/cmd_run.c); `run --build` uses the
 * failure context for a sanitizer build's reports.
 */
#ifndef RT_STRESS_CLI_RUN_RECORD_H
#define RT_STRESS_CLI_RUN_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "engine.h"
#include "run_opts.h"

/**
 * rt_fixed_ops_parse() - explore's CPUs and their operations, from text
 * @arg: the CPUs' sequences separated by ',', each one or more operations
 *	joined by '+' (an operation kind, or "kswapd"): "write+munmap,fork"
 * @cpus: receives each CPU's sequence
 * @max: room in @cpus
 * @err: receives a one-line reason on failure
 * @len: room in @err
 *
 * Return: the number of CPUs, or -1 (an empty element, an unknown
 * operation, more than RT_FIXED_SEQ_MAX operations on a CPU, more than
 * @max CPUs).
 */
int rt_fixed_ops_parse(const char *arg, struct rt_fixed_seq *cpus, int max, char *err,
		       size_t len);

/**
 * rt_fixed_ops_format() - @n CPUs' sequences as rt_fixed_ops_parse() reads them
 * @cpus: the sequences
 * @n: how many
 * @buf: receives the text
 * @len: room in @buf
 *
 * Return: the length the text needed (as snprintf).
 */
size_t rt_fixed_ops_format(const struct rt_fixed_seq *cpus, int n, char *buf, size_t len);

/* The share of scanned mapped pages that reclaim got as far as unmapping. */
double rt_unmap_share(const struct reclaim_stats *rs);

/*
 * The arguments (after the program name) that reproduce this run in
 * @mode, a new JSON array of strings. A deterministic run is bounded by
 * @sched_steps decisions (0: as this run was), which is how an artifact
 * replays up to its failure.
 */
json_t *rt_reproduce_args(const struct rt_run_opts *o, enum rmap_mode mode,
			  unsigned long sched_steps);

/* "rmaptorture " followed by @args joined with spaces, into @buf. */
void rt_reproduce_cmd(json_t *args, char *buf, size_t len);

/* The result record of a run in @mode that ended with @rc. A new object. */
json_t *rt_run_record_json(const struct rt_run_opts *o, enum rmap_mode mode,
			   const struct rt_run_result *res, int rc);

/* @rec to DIR/run-SCENARIO-RMAP-SEED.json under --out DIR; nothing without. */
void rt_run_record_write(const struct rt_run_opts *o, enum rmap_mode mode, json_t *rec);

/* The decision at which the run record in @dir says it stopped; 0 if none. */
unsigned long rt_run_record_stop_step(const struct rt_run_opts *o, enum rmap_mode mode,
				      const char *dir);

/*
 * The fields every failure artifact of this run shares: the whole
 * configuration and the command that reproduces it, bounded (for a
 * deterministic schedule) by @sched_steps decisions; a finding of the
 * @build sanitizer build reproduces there. A new object.
 */
json_t *rt_failure_context(const struct rt_run_opts *o, enum rmap_mode mode,
			   unsigned long sched_steps, const char *build);

/**
 * rt_run_on_report() - the engine's report hook: a report becomes an artifact
 * @r: the model's report
 * @arg: the struct rt_run_opts of the run
 *
 * Every report becomes an artifact in --out DIR at once (a BUG's task then
 * leaves the model, which is abandoned), deduplicated by signature.
 *
 * Context: the engine's report lock held; any thread.
 */
void rt_run_on_report(const struct vm_report *r, void *arg);

#endif /* RT_STRESS_CLI_RUN_RECORD_H */
