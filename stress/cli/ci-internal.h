/* SPDX-License-Identifier: MIT */
/*
 * The merge gate's shared part, for `ci` (cmd_ci.c: options; ci_run.c:
 * the runs; ci_explore.c: explore's share of them) and `ci-merge`
 * (cmd_ci_merge.c: shards read back): what judges a gate however it was
 * filled (ci_gate.c: coverage, verdict) and writes it (ci_output.c:
 * summary, JUnit, JSON). The plan is ci_plan.h.
 */
#ifndef RT_STRESS_CI_INTERNAL_H
#define RT_STRESS_CI_INTERNAL_H

#include <stdio.h>

#include "ci_plan.h"

/**
 * ci_finish() - judge the gate, print its summary, write its files, free it
 * @g: every configuration's result in; freed
 *
 * Sums the trylock fallbacks of every configuration and judges coverage
 * (not on a shard, a restricted or interrupted gate), prints the summary
 * and the END line, writes --junit and --json.
 *
 * Context: main. Return: the exit status of `ci` (0, 1, 3 or 130).
 */
int ci_finish(struct ci_gate *g);

/* How many configurations ended in each state. */
void ci_count_states(const struct ci_gate *g, int n[CI_NR_STATES]);
/* How many of the gate's explore cells ended in each state. */
void ci_count_xstates(const struct ci_gate *g, int n[CI_X_NR_STATES]);
/* The summary: totals, coverage, skipped and failed configurations (ci_output.c). */
void ci_print_summary(const struct ci_gate *g);
/* --junit and --json (ci_output.c). Return: 0, or -1 (said on stderr). */
int ci_write_junit(const struct ci_gate *g);
int ci_write_json(const struct ci_gate *g, int exit_code);
/* The gate's "explore" object: its share, rotation and every cell's result. */
json_t *ci_explore_json(const struct ci_gate *g);

/* The gate's runs (ci_run.c). */
/* The binaries of the builds that have configurations to run. Return: 0 or -1. */
int ci_find_binaries(struct ci_gate *g);
/* Every selected configuration in turn, each re-planned from the clock. Context: main. */
void ci_run_gate(struct ci_gate *g);
/* Explore's share of the gate, until @end (ci_explore.c). Context: main, ci_run_gate(). */
void ci_run_explore(struct ci_gate *g, double end);

#endif /* RT_STRESS_CI_INTERNAL_H */
