/* SPDX-License-Identifier: MIT */
/* The subcommands of rmaptorture: each takes the argv after its name. */
#ifndef RT_STRESS_RT_CMD_H
#define RT_STRESS_RT_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

int cmd_locks(int argc, char **argv);
/* `bench`, `bench locks`, `bench vm` (cmd_bench.c). */
int cmd_bench(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
/* `replay ARTIFACT` and `minimize ARTIFACT` (cmd_replay.c, cmd_minimize.c). */
int cmd_replay(int argc, char **argv);
int cmd_minimize(int argc, char **argv);
/* `ci --budget SECONDS ...`: the merge gate (cmd_ci.c). */
int cmd_ci(int argc, char **argv);
/* `ci-merge SHARD.json...`: a gate's shards judged as one (cmd_ci_merge.c). */
int cmd_ci_merge(int argc, char **argv);
/* `matrix`: every seeded bug run in its configuration, and without it (cmd_matrix.c). */
int cmd_matrix(int argc, char **argv);

/* The numbers (issue 8): `scale` (cmd_scale.c), `report` (cmd_report.c). */
int cmd_scale(int argc, char **argv);
int cmd_report(int argc, char **argv);

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

/* True when the run option @opt (e.g. "--scenario") takes a value. */
bool rt_run_option_takes_value(const char *opt);

/*
 * A comma-separated list of distinct integers in [@min, @max], sorted, into
 * @out (at most @maxn). Exit 2 naming @opt on a bad list. Return: the count.
 */
int rt_opt_int_list(const char *opt, const char *arg, long long min, long long max, int *out, int maxn);

/* --rmap MODE|all into @modes (at most @max); exit 2 naming @opt. Return: the count. */
int rt_opt_modes(const char *opt, const char *arg, const char *modes[], int max);

/*
 * From a run record: ops/s, trylock fallbacks (all sites) per page scanned
 * by reclaim (0 when nothing was scanned), and per 1,000 operations.
 */
void rt_sample_of_run(const json_t *rec, double *ops_per_sec, double *fb_per_scan, double *fb_per_kop);

#endif /* RT_STRESS_RT_CMD_H */
