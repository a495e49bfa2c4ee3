/* SPDX-License-Identifier: MIT */
/*
 * `explore`'s state, shared by the command (cmd_explore.c: options, the
 * pairs planned, the loop over designs and pairs, the record) and its
 * work on one pair (explore_pair.c: the pair's run options, its serial
 * pre-pass, its schedules within K, its line and its JSON).
 */
#ifndef RT_STRESS_CLI_EXPLORE_INTERNAL_H
#define RT_STRESS_CLI_EXPLORE_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "rmap.h"
#include "rt_explore_prepass.h"
#include "rt_opt.h"
#include "run_opts.h"
#include "workload.h"

#define EXPLORE_MAX_K		8
#define EXPLORE_MAX_OPS		(WL_NR_OPS * WL_NR_OPS + 2 * WL_NR_OPS)	/* every pair, kswapd's too */

struct explore_opts {
	struct rt_common_opts common;	/* --out, --budget, --quiet */
	const char *scenario, *rmap, *inject;
	const char *ops[EXPLORE_MAX_OPS];	/* --ops, each a pair, in the order given */
	int nr_ops;
	const char *seed;
	int k;
	bool json, progress;
	bool even_budget;	/* each pair at most the budget left over the pairs left */
	bool test_window;	/* test-only: run's --test-window */
	bool test_window_bug;	/* test-only: run's --test-window-bug */
	bool prune;		/* --prune: sleep sets (not sound across runs: --help) */
	bool no_prepass;	/* no serial pre-pass: pairs and switch points in plain order */
	bool kswapd;		/* a third CPU: kswapd's reclaim step */
};

/* What one pair in one design came to. */
struct pair_result {
	struct rt_fixed_seq ops[2];	/* CPU 0's and CPU 1's */
	char name[2][160];		/* their operations as --ops writes them */
	enum rmap_mode mode;
	unsigned long schedules, diverged, pruned;
	bool exhausted, failed;
	bool abandoned;		/* a hang or a BUG: the model cannot be run again */
	double seconds;
	char signature[256];
	json_t *preempted;	/* the failing schedule's preemptions: [{decision, cpu, site}] */
	char decisions[4096];	/* the failing schedule, run-length coded */
	bool in_warmup;		/* the failure came in the world's serial warm-up */
	bool have_prepass;	/* @prepass is this pair's serial pre-pass */
	struct rt_prepass prepass;
};
/**
 * explore_pair() - every schedule of one pair within K, or until the budget ends
 * @eo: the command's options
 * @pr: the pair and its design; its result
 * @deadline: rt_now_s() to stop at, or 0 for none
 *
 * Return: 0, or exit status 3 (RT_EXIT_INTERNAL).
 */
int explore_pair(const struct explore_opts *eo, struct pair_result *pr, double deadline);

/**
 * explore_prepass() - the serial pre-pass of one pair (rt_explore_prepass.h)
 * @eo: the command's options
 * @pr: the pair and its design; its pre-pass, and its failure if it failed
 *
 * Return: 0, or exit status 3 (RT_EXIT_INTERNAL).
 */
int explore_prepass(const struct explore_opts *eo, struct pair_result *pr);

/* @pr's line (its failure's lines) on @out; nothing for a clean pair with --quiet. */
void explore_print_pair(FILE *out, const struct explore_opts *eo, const struct pair_result *pr);

/* @pr as the "pairs" entry of the explore record (a new reference). */
json_t *explore_pair_json(const struct pair_result *pr);

#endif /* RT_STRESS_CLI_EXPLORE_INTERNAL_H */
