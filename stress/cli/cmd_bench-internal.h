/* SPDX-License-Identifier: MIT */
/*
 * Between the files of `bench`: cmd_bench.c (`bench`, the dispatcher and
 * what the parts share), cmd_bench_locks.c (`bench locks`), cmd_bench_vm.c
 * (`bench vm`) and cmd_bench_sweep.c (`bench`'s child runs).
 */
#ifndef RT_STRESS_CMD_BENCH_INTERNAL_H
#define RT_STRESS_CMD_BENCH_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

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

/* `bench locks` (cmd_bench_locks.c) and `bench vm` (cmd_bench_vm.c): argv[0] is the part's name. */
int cmd_bench_locks(int argc, char **argv);
int cmd_bench_vm(int argc, char **argv);

/**
 * bench_put_record() - write a part's record where --json says, and drop it
 * @rec: the record; released
 * @json_path: --json FILE ('-': stdout), or NULL for none
 * @rc: the exit status so far
 *
 * Context: main.
 * Return: @rc, or RT_EXIT_INTERNAL if the record could not be written.
 */
int bench_put_record(json_t *rec, const char *json_path, int rc);

/**
 * bench_run_vm() - the VM microbenchmark into @rec, its tables to @out
 * @cfg: sizes and sample length (exit 2 if --pages is too small for them)
 * @repeat: samples per measurement
 * @quick: --quick's sizes
 * @out: where the tables go
 * @rec: receives the measurements
 *
 * Used by `bench vm` and by `bench`'s in-process part.
 *
 * Context: main; attaches it as a task for the run, leaves lockdep on.
 * Return: RT_EXIT_OK, or RT_EXIT_FAILURE if reclaim ran or an allocation
 * failed during the samples.
 */
int bench_run_vm(const struct rt_bench_vm_cfg *cfg, int repeat, bool quick, FILE *out, json_t *rec);

/**
 * bench_check_scaling() - --check-scaling: the disjoint-mm row's verdict
 * @rec: a record bench_run_vm() filled
 * @out: the verdict line goes here
 * @rc: the exit status so far
 *
 * Return: @rc, or RT_EXIT_FAILURE in place of RT_EXIT_OK when the row
 * flagged a cost that grew with the CPUs.
 */
int bench_check_scaling(const json_t *rec, FILE *out, int rc);

#endif /* RT_STRESS_CMD_BENCH_INTERNAL_H */
