/* SPDX-License-Identifier: MIT */
/*
 * The record of a run: the options it was given, the JSON result record
 * (run-SCENARIO-RMAP-SEED.json), the command that reproduces it, and the
 * failure artifacts (failure context, the report, the flight recorder).
 * `run` fills and writes it (stress/cli/cmd_run.c); `run --build` uses the
 * failure context for a sanitizer build's reports.
 */
#ifndef RT_STRESS_RUN_RECORD_H
#define RT_STRESS_RUN_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "engine.h"

#if RT_TSAN
# define RT_WATCHDOG_DEFAULT 120.0	/* TSan runs 10-50x slower */
#elif RT_ASAN
# define RT_WATCHDOG_DEFAULT 60.0
#else
# define RT_WATCHDOG_DEFAULT 20.0
#endif

/* Workers that --fixed-ops can name (explore's CPUs). */
#define RT_FIXED_OPS_MAX	4

/* A run as asked for on the command line, and the state its records need. */
struct rt_run_opts {
	struct rt_run_config cfg;
	struct rt_scenario scenario;	/* the named one, with --weights applied */
	bool weights_set, procs_set, seconds_set;
	bool all_modes;
	bool json;
	bool check_determinism;
	const char *out_dir;
	const char *build;		/* --build: run in this build's binary */
	const char *cover_map;		/* --cover-map FILE */
	bool no_cover;			/* --no-cover */
	bool no_build;
	int argc;
	char **argv;
	enum rmap_mode mode_now;	/* the design running now (--rmap all) */
	double run_start;		/* CLOCK_MONOTONIC seconds at its start */
	unsigned long artifacts_new, artifacts_repeat;	/* on_report's thread */
	/* The first new artifact of the design running now and its command; "": none. */
	char first_artifact[4096];	/* on_report's thread; main after the run */
	char first_reproduce[2048];
	/* --fixed-ops (explore): each worker's sequence; cfg.fixed_ops points here. */
	struct rt_fixed_seq fixed_ops[RT_FIXED_OPS_MAX];
	int nr_fixed_ops;
	int *decisions;			/* --decisions, parsed (cfg.decisions) */
};

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

#endif /* RT_STRESS_RUN_RECORD_H */
