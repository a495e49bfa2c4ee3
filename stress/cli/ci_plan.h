/* SPDX-License-Identifier: MIT */
/*
 * The merge gate's plan (ci_plan.c), pure: no I/O, no child processes, so
 * that tests/check_ci_plan.c holds it without the binary. The builds and
 * what each costs, the configurations in the fixed order and this shard's
 * share of them, the site runs that fire every trylock fallback site, the
 * budget split between the builds, the window of configurations each
 * build runs, the smallest budget that pays for the site runs, and the
 * run time each child gets.
 * The types are those of the whole gate (ci-internal.h adds what runs,
 * judges and writes it).
 */
#ifndef RT_STRESS_CLI_CI_PLAN_H
#define RT_STRESS_CLI_CI_PLAN_H

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
	double site_s;		/* a site run's bound: its sites fire well within it */
};

#define CI_NR_BUILDS	3
/* plain, tsan, asan: the gate's fixed order (ci_plan.c). */
extern const struct ci_build ci_builds[CI_NR_BUILDS];

/*
 * A site run: the free configuration that fires these trylock fallback
 * sites soonest. Every site is in exactly one (ci_plan.c says how they were
 * chosen); an unrestricted gate runs them first in its first build, in
 * this order, each until its sites fired (run --until-fallbacks), sharing
 * the build's site_s each (ci_site_seconds()).
 */
struct ci_site_run {
	const char *scenario;
	enum rmap_mode mode;
	uint32_t sites;		/* 1 << enum rmap_fallback_site */
};

#define CI_NR_SITE_RUNS	4
extern const struct ci_site_run ci_site_runs[CI_NR_SITE_RUNS];

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
	uint32_t sites;			/* a site run: the fallback sites it must fire */
	bool selected;			/* planned to run */
	enum ci_state state;
	char skip_reason[256];
	double seconds;			/* the run's --seconds */
	double wall;			/* the child's wall time */
	double ran;			/* the run's own time (its record's "seconds") */
	char verdict[128];		/* how the child ended, in words */
	bool have_record;
	long long ops;
	double ops_per_sec;
	json_t *fallbacks;		/* the run record's "trylock_fallbacks" */
	json_t *interleaving;		/* the run record's "coverage" (cover_map.h) */
	json_t *failures;		/* [{kind, signature, message, artifact, reproduce}] */
	char dir[4096];			/* DIR/BUILD-SCHED-SCENARIO-RMAP */
	char rundir[4200];		/* its try-1, the run's --out */
	char reproduce[8192];
};

/*
 * Explore's share of the gate (ci_plan.c says how it is sized and
 * rotated): the cells are (design, ordered pair of the explore
 * scenario's operation kinds), each explored by `rmaptorture explore` in
 * the plain build, every schedule with at most K preemptions.
 */
#define CI_EXPLORE_SCENARIO	"mixed32"
#define CI_EXPLORE_SHARE	0.15	/* of the usable budget, by default */
#define CI_EXPLORE_MIN_S	4.0	/* less is not worth a child */
#define CI_EXPLORE_K		2
#define CI_EXPLORE_MAX_K	3
/* Every ordered pair of kinds, and each kind with kswapd's step both ways. */
#define CI_EXPLORE_MAX_PAIRS	(WL_NR_OPS * WL_NR_OPS + 2 * WL_NR_OPS)

enum ci_xstate {
	CI_X_PLANNED,		/* selected, not (yet) run */
	CI_X_EXHAUSTED,		/* every schedule within K ran: a proof for that world and K */
	CI_X_CUT,		/* the budget ended it first: neither a failure nor a proof */
	CI_X_FAILED,		/* a schedule failed */
	CI_X_ERROR,		/* its explore child could not run or report it */
	CI_X_NR_STATES
};

/* One cell of explore's rotation this gate (shard) explores. */
struct ci_xcell {
	int pos;			/* in the rotation's fixed order */
	int id;				/* design major: design id / pairs, pair id % pairs */
	enum rmap_mode mode;
	int ops[2];			/* CPU 0's, CPU 1's: enum wl_op or RT_OP_KSWAPD */
	enum ci_xstate state;
	long long schedules, pruned;
	double seconds;
	json_t *failure;		/* {signature, decisions, artifact, reproduce} */
};

/* Explore's share: the plan and what became of it. */
struct ci_explore {
	const struct rt_scenario *scenario;	/* the explore scenario; NULL: no explore */
	double share;			/* seconds, taken off the usable budget first */
	double pair_s;			/* the planned seconds per cell at this K */
	int nr_all;			/* cells in the rotation (designs x pairs) */
	int per_gate;			/* cells a gate's window holds, all shards */
	int rotations;			/* N: seeds 1..N together select every cell */
	int block;			/* the window this seed selects, 0..N-1 */
	struct ci_xcell *cells;		/* this shard's, in rotation order */
	int nr_cells;
	char note[256];			/* no explore: why */
	double wall;			/* its children's wall time */
};

struct ci_opts {
	double budget;
	double explore_share;		/* 0: no explore (--no-explore) */
	int explore_k;
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
	int window_start[CI_NR_BUILDS];	/* position in the build's list; with
					 * free_first, in its list of the others */
	bool free_first[CI_NR_BUILDS];	/* every free configuration runs, the
					 * window is over the others */
	int site_build;			/* the build of the site runs; -1: none
					 * (a restricted gate judges no coverage) */
	int nr_sites;			/* site runs in this shard */
	bool sites_paid;		/* the site build's share pays each its site_s */
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
	json_t *interleaving;		/* every record's pairs merged (cover_map.h) */
	struct ci_explore x;
	int merged;			/* ci-merge: the shards it is made of; 0: ran here */
	double wall_max;		/* ci-merge: the longest shard's wall */
};

/* "exhausted", "cut", ...; and back (-1 if unknown). */
const char *ci_xstate_name(enum ci_xstate s);
int ci_xstate_by_name(const char *name);

/*
 * ci_explore_cells() - every cell of explore's rotation, in its fixed
 * order
 * @o: the gate's options
 * @out: receives them (pos, id, mode, ops), or NULL to count
 *
 * The cells are each design of the gate x every ordered pair of the
 * explore scenario's operation kinds and each kind with kswapd's reclaim
 * step, both ways (rt_explore_pairs_kswapd()), numbered
 * design major (id); position p of the rotation holds cell
 * p * stride mod n, the stride near n / phi and prime to n, so that
 * consecutive positions, and so one gate's window, spread over the
 * designs and the pairs.
 * Return: how many; 0 when the gate has no explore scenario.
 */
int ci_explore_cells(const struct ci_opts *o, struct ci_xcell *out);

/* "A,B": cell @x's pair as explore's --ops names it ("kswapd": the reclaim step). */
void ci_xcell_name(const struct ci_xcell *x, char *buf, size_t len);

/* The planned seconds per explored cell at @k preemptions (a first guess). */
double ci_explore_pair_seconds(int k);

/* The build called @name in ci_builds[]; -1 if none. */
int ci_build_by_name(const char *name);
/* "pass", "fail", ...; and back (-1 if unknown). */
const char *ci_state_name(enum ci_state s);
int ci_state_by_name(const char *name);
/* "SCENARIO/RMAP" */
void ci_config_name(const struct ci_config *c, char *buf, size_t len);
/* Build @b's start-up and teardown per configuration: measured, else guessed. */
double ci_overhead_est(const struct ci_gate *g, int b);

/**
 * ci_gate_identity() - the identity of a gate, shared by all its shards
 * @o: the gate's options
 *
 * Seed, budget, N, builds, scenarios, designs, schedules, seeded bugs,
 * whether restricted, explore's share and preemptions: what `ci-merge`
 * compares across shards.
 *
 * Return: a new object; the JSON record carries it as "gate".
 */
json_t *ci_gate_identity(const struct ci_opts *o);


/*
 * ci_make_configs() - the configurations of every build asked for in the
 * fixed order (cmd_ci.c's header comment), this shard's kept
 * @g: g->o filled; fills cfgs (allocated), nr_cfgs, nr_all, nr_build,
 *	site_build, nr_sites
 *
 * Each gets its index, build, scenario, design, schedule, seed, threads,
 * directory (under o.out_dir), the state CI_SKIPPED and, if it is one of
 * ci_site_runs[] in the first build asked for (unless o.filtered), its
 * sites.
 */
void ci_make_configs(struct ci_gate *g);

/* Cost of one configuration of build @b: its minimum run and its overhead. */
double ci_min_cost(int b);
/* Cost of one site run of build @b: its bound (site_s) and its overhead. */
double ci_site_cost(int b);

/*
 * ci_plan() - split the usable budget and choose each build's window
 * @g: after ci_make_configs(); fills usable, share, nr_selected,
 *	window_start, sites_paid, and each configuration's selected, state,
 *	seconds or skip_reason
 *
 * A build whose share cannot pay for one configuration gives it to the
 * others (the dearest such build first). The site runs come first: when
 * the site build's share pays each its site cost (sites_paid), all are
 * selected, at their bound, and the window is over the others.
 *
 * Explore's share (o.explore_share of the usable budget, g->x) comes off
 * first, only as far as the builds can spare it: never a build dropped or
 * a site run unpaid for it; below CI_EXPLORE_MIN_S there is none. Its
 * cells: a window of per_gate consecutive cells of the rotation,
 * block (seed - 1) mod N of N, wrapping, so that seeds 1..N select every
 * cell; a shard takes the window's positions j with j mod N_shards ==
 * I - 1. Nothing here depends on the clock.
 */
void ci_plan(struct ci_gate *g);

/*
 * ci_plan_min_budget() - the smallest budget that pays for the site runs
 * @g: after ci_make_configs()
 *
 * The planner's own split (the reserve, the shares, builds giving theirs
 * away) at each budget, in tenths of a second, against the site runs' cost.
 * Return: the least whole number of seconds from which every budget sets
 * sites_paid; 0 when there are no site runs.
 */
int ci_plan_min_budget(const struct ci_gate *g);

/*
 * ci_plan_order() - the order build @b's selected configurations run in
 * @g: after ci_plan()
 * @b: the build
 * @order: receives indices into g->cfgs (g->nr_cfgs of room)
 *
 * The site runs first, in ci_site_runs[] order, then the others in index
 * order.
 * Return: how many.
 */
int ci_plan_order(const struct ci_gate *g, int b, int *order);

/*
 * The configurations ci_plan() selected, over every build; @cheapest
 * receives the least cost of one configuration of a build that has some.
 */
int ci_plan_selected(const struct ci_gate *g, double *cheapest);

/*
 * ci_child_seconds() - the run time of build @b's next configuration
 * @g: the plan (and the overheads measured so far)
 * @b: the build
 * @now: the clock
 * @build_end: the build's deadline; @last: it is the gate's last build
 *	(whose deadline is the gate's, @build_end then)
 * @left: the build's configurations still to run, this one included
 * @site: the configuration is a site run (it ends when its sites fired)
 *
 * What is left of the build's share over the configurations still to run,
 * less the overhead, at least the build's minimum (a site run's: its
 * site_s), in tenths of a second.
 * Return: the seconds, or -1 when the child would end past the deadline
 * (for a build not the last, by more than a quarter of one configuration).
 */
double ci_child_seconds(const struct ci_gate *g, int b, double now, double build_end,
			bool last, int left, bool site);

/*
 * ci_site_seconds() - the bound of build @b's next site run
 * @g: the plan (and the overheads measured so far)
 * @b: the build
 * @t: what ci_child_seconds() gives it (-1: past the deadline)
 * @now: the clock
 * @sites_end: the end of the site runs' part of the share: their start
 *	plus each one's site cost (ci_site_cost())
 * @sites_left: the site runs still to run, this one included
 *
 * What the site runs before it left of their part, over those still to
 * run, when that is more than @t: one that fired its sites early leaves
 * its time to the next, and the last, the slowest to fire, gets the rest.
 * Return: the seconds, in tenths; -1 when @t is.
 */
double ci_site_seconds(const struct ci_gate *g, int b, double t, double now, double sites_end,
		       int sites_left);

#endif /* RT_STRESS_CLI_CI_PLAN_H */
