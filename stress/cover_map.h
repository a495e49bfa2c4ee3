/* SPDX-License-Identifier: MIT */
/*
 * Interleaving coverage on the harness side (core/cover.h records it):
 * the run's timeline of distinct pairs, its JSON form in the run record,
 * merging records (the ci gate, `rmaptorture coverage`), the pairs that
 * no record covered, and --cover-map, a file of pairs known from earlier
 * runs.
 *
 * The record's "coverage" object:
 *   {"sched": "cover", "distinct": N, "new": M | null, "events": E, "hits": H,
 *    "dropped_sites": .., "dropped_pairs": .., "evicted_open": ..,
 *    "sites": {"SITE": "KIND", ...},
 *    "pairs": {"SITE_A | SITE_B": {"count": C, "ops": {"OP_A x OP_B": C, ...}}, ...},
 *    "timeline": [[SECONDS, DISTINCT], ...]}
 * with SITE_A <= SITE_B (strcmp), OP_A the operation at SITE_A.
 */
#ifndef RT_STRESS_COVER_MAP_H
#define RT_STRESS_COVER_MAP_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

/* The engine: a run starts (recording on), and samples its timeline. */
void rt_cover_run_start(double start, bool record, bool deterministic);
/* A run that records each CPU's sites only, no pairs (cover_reset_sites_only()). */
void rt_cover_run_start_sites(double start);
void rt_cover_sample(double now);

/* The run's coverage, after it ended (no thread runs). */
json_t *rt_cover_record(const char *sched);

/*
 * Fold @cov (a record's "coverage") into @acc: sites united, pair counts
 * and operations summed, "configs" (records that covered each pair)
 * counted. @acc NULL: a new one. Return: @acc.
 */
json_t *rt_cover_merge(json_t *acc, const json_t *cov);

/*
 * Call @fn for every pair of known sites of one object kind that @merged
 * never covered; Return: how many.
 */
unsigned long rt_cover_uncovered(const json_t *merged,
				 void (*fn)(const char *a, const char *b, const char *kind, void *arg),
				 void *arg);

/* Print a summary: distinct, per kind covered/possible, the first @list uncovered. */
void rt_cover_print(FILE *f, const json_t *merged, int list);

/*
 * --cover-map FILE: count the pairs of @cov not in FILE (a map written
 * here, a run record, or a ci --json); store the count as "new" in @cov
 * and write FILE back as the union. Return: 0, or -1 (message printed).
 */
int rt_cover_map_update(const char *path, json_t *cov);

/* The coverage of a loaded file (run record, ci --json, map), merged; NULL: none. */
json_t *rt_cover_of_file(json_t *root);

/*
 * --cover-map FILE before the run: absent, or readable coverage; else a
 * one-line error, exit 2 (stress/cli/cmd_coverage.c).
 */
void rt_cover_map_check(const char *path);

/*
 * After a run: put its coverage in @rec, update @map (may be NULL), and
 * print one line on @out. Return: 0, or -1 when the map failed.
 */
int rt_cover_finish_run(FILE *out, json_t *rec, const char *sched, const char *map);

/* stress/cli/cmd_coverage.c */
int cmd_coverage(int argc, char **argv);

#endif /* RT_STRESS_COVER_MAP_H */
