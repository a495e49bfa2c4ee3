/* SPDX-License-Identifier: MIT */
/*
 * The merge gate's shared part, for `ci` (cmd_ci.c: options, plan, runs)
 * and `ci-merge` (cmd_ci_merge.c: shards read back): the builds, one
 * configuration and the gate, and what judges and writes a gate however
 * it was filled (ci_gate.c: coverage, summary, JUnit, JSON, verdict).
 */
#ifndef RT_STRESS_CI_INTERNAL_H
#define RT_STRESS_CI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "rmap.h"
#include "rt_sched.h"
#include "workload.h"

/* What each build costs and gets. */
struct ci_build {
	const char *name;
	double share;		/* of the usable budget, before renormalising */
	double min_s;		/* shortest run worth its start-up */
	double overhead_s;	/* first guess at start-up + end audit + teardown */
	int max_threads;	/* worker threads at most; 0: the scenario's */
	double slack_s;		/* past T + overhead before the child is killed */
};

#define CI_NR_BUILDS	3
/* plain, tsan, asan: the gate's fixed order (ci_gate.c). */
extern const struct ci_build ci_builds[CI_NR_BUILDS];

enum ci_state {
	CI_PLANNED,
	CI_SKIPPED,
	CI_PASS,
	CI_FAIL,
	CI_ERROR,
	CI_NR_STATES
};

struct ci_config {
	int index;			/* in the fixed order over the builds asked for */
	int build;			/* ci_builds[] */
	const struct rt_scenario *scenario;
	enum rmap_mode mode;
	enum rt_sched_kind sched;
	uint64_t seed;
	int threads, reclaim_threads;
	bool selected;			/* planned to run */
	enum ci_state state;
	char skip_reason[256];
	double seconds;			/* the run's --seconds */
	double wall;			/* the child's wall time */
	char verdict[128];		/* how the child ended, in words */
	bool have_record;
	long long ops;
	double ops_per_sec;
	json_t *fallbacks;		/* the run record's "trylock_fallbacks" */
	json_t *failures;		/* [{kind, signature, message, artifact, reproduce}] */
	char dir[4096];			/* DIR/BUILD-SCHED-SCENARIO-RMAP */
	char rundir[4200];		/* its try-1, the run's --out */
	char reproduce[8192];
};

struct ci_opts {
	double budget;
	const char *junit, *json, *out_dir;
	int shard_i, shard_n;
	bool build_on[CI_NR_BUILDS];
	bool seed_set;
	uint64_t seed;
	bool no_build, dry_run;
	bool filtered;			/* --scenarios, --rmaps or --scheds given */
	const struct rt_scenario *scenarios[64];
	int nr_scenarios;
	enum rmap_mode modes[RMAP_NR_MODES];
	int nr_modes;
	enum rt_sched_kind scheds[3];
	int nr_scheds;
	const char *inject[64];
	int nr_inject;
	int argc;
	char **argv;
};

/* The plan and what became of it. */
struct ci_gate {
	struct ci_opts o;
	struct ci_config *cfgs;		/* this shard's, in index order */
	int nr_cfgs, nr_all;		/* this shard's; all shards' */
	double usable;			/* budget less the reserve */
	double share[CI_NR_BUILDS];	/* seconds */
	int nr_build[CI_NR_BUILDS];	/* configurations of this shard */
	int nr_selected[CI_NR_BUILDS];
	int window_start[CI_NR_BUILDS];	/* position in the build's list */
	char binary[CI_NR_BUILDS][4096];
	double overhead_sum[CI_NR_BUILDS];
	int overhead_n[CI_NR_BUILDS];
	double build_seconds;		/* building variants, not counted */
	double wall;			/* the gate's runs, from the first child */
	bool interrupted;
	int usage_rc;			/* a child rejected its arguments */
	char usage_line[1024];
	json_t *coverage;		/* site -> fired, over every record */
	json_t *coverage_configs;	/* site -> configurations it fired in */
	bool coverage_judged;
	char coverage_note[512];
	int never_fired;
	int merged;			/* ci-merge: the shards it is made of; 0: ran here */
	double wall_max;		/* ci-merge: the longest shard's wall */
};

/* The build called @name in ci_builds[]; -1 if none. */
int ci_build_by_name(const char *name);
/* "pass", "fail", ...; and back (-1 if unknown). */
const char *ci_state_name(enum ci_state s);
int ci_state_by_name(const char *name);
/* "SCENARIO/RMAP" */
void ci_config_name(const struct ci_config *c, char *buf, size_t len);
/* Build @b's start-up and teardown per configuration: measured, else guessed. */
double ci_overhead_est(const struct ci_gate *g, int b);

/* The directory of @path must exist and be writable (exit 2 naming @opt). */
void ci_check_writable(const char *opt, const char *path);

/*
 * The identity of the gate @o describes, shared by all its shards: seed,
 * budget, N, builds, scenarios, designs, schedules, seeded bugs. A new
 * object; the JSON record carries it as "gate".
 */
json_t *ci_gate_identity(const struct ci_opts *o);

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

#endif /* RT_STRESS_CI_INTERNAL_H */
