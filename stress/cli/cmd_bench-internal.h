/* SPDX-License-Identifier: MIT */
/* Between cmd_bench.c (`bench`) and cmd_bench_sweep.c (its child runs). */
#ifndef RT_STRESS_CMD_BENCH_INTERNAL_H
#define RT_STRESS_CMD_BENCH_INTERNAL_H

#include <stdbool.h>

#include <jansson.h>

#include "bench.h"
#include "rmap.h"

#define MAX_LIST 16

/* What a child sweep measures per run record. */
enum sweep_what { SWEEP_SHM_BYTES, SWEEP_FALLBACKS };

struct sweep {
	enum sweep_what what;
	const char *scenario;
	const char *param_opt;		/* the run option swept */
	int params[MAX_LIST], np;
	/* per design, per parameter: the samples */
	double v[RMAP_NR_MODES][MAX_LIST][RT_BENCH_MAX_REPEAT];
	/* SWEEP_FALLBACKS also: the share of scanned mapped pages unmapped */
	double share[RMAP_NR_MODES][MAX_LIST][RT_BENCH_MAX_REPEAT];
	int n[RMAP_NR_MODES][MAX_LIST];
};

struct bench_all_opts {
	int repeat, threads;
	double run_seconds;
	const char *workdir;
	int failures, errors;
};

/*
 * Run the sweep: for repeat k, every parameter and every design in turn
 * (the order reversed on odd k), one child `run` each, into @sw; counts
 * the runs that found a failure or did not finish in @bo.
 * Return: 0, or RT_EXIT_USAGE / RT_EXIT_INTERRUPTED to stop.
 */
int run_sweep(struct sweep *sw, const char *const *modes, int nm, struct bench_all_opts *bo);

/* @sw's samples (or shares, with @share) as key -> statistics under each design's @key. */
void sweep_json(const struct sweep *sw, const char *const *modes, int nm, json_t *designs,
		const char *key, bool share);

#endif /* RT_STRESS_CMD_BENCH_INTERNAL_H */
