// SPDX-License-Identifier: MIT
/*
 * `rmaptorture ci --budget SECONDS`: the merge gate. Every scenario x
 * rmap design x schedule (free, pct) x build (plain, tsan, asan) is one
 * configuration; each runs as one `run` child of its build's binary
 * (rt_try_run(): sanitizer environment, capture, artifacts), within a
 * wall-clock budget split across the builds and their configurations.
 * The gate then sums the trylock fallbacks every run record counted: a
 * fallback site that never fired in the whole gate fails it, since those
 * fallbacks are what the model exists to exercise. So an unrestricted gate
 * runs its site runs first (ci_plan.h: the free runs that fire every site
 * soonest), each until its sites fired, and refuses (exit 2) a budget that
 * cannot pay for them, naming the smallest that can. Output: one
 * line per configuration, a summary, and optionally JUnit XML and a JSON
 * record.
 *
 * The budget rule (docs/usage.md "Gating merges"):
 *  - The usable budget (the budget less a reserve of 1 s, or 5% below
 *    20 s) is split between the builds: plain 50%, tsan 30%, asan 20%
 *    (renormalised over the builds asked for). A build whose share cannot
 *    pay for one configuration gives its share to the others.
 *  - A configuration costs its run time T plus its build's overhead
 *    (start-up, end audit, teardown; first guessed, then measured as the
 *    gate goes). Each build has a minimum useful T: plain 1.5 s, tsan
 *    4 s, asan 2.5 s. When a build's share pays for all its
 *    configurations at that minimum, all run and share it evenly;
 *    otherwise the gate runs as many as it pays for, a window of
 *    consecutive configurations in the fixed order starting at a point
 *    chosen by the seed (so successive seeds rotate through them), and
 *    reports the rest as skipped. When the share pays for every free
 *    configuration of the build but not for all, the free ones all run
 *    and the window is over the others (ci_plan.c says why).
 *  - Time is re-planned before each child from the clock: each build
 *    ends at a deadline (the cumulative shares), a child gets what is
 *    left of its build's share over the configurations still to run,
 *    and a child that would end past the deadline is skipped.
 *  - Building a missing sanitizer variant is not counted.
 *
 * Explore's share (ci_plan.c): before the builds' split, 15% of the
 * usable budget (--explore-share) goes to `rmaptorture explore` in the
 * plain build, as far as the builds can spare it beyond their minimum and
 * the site runs (at least 4 s, else none). It explores a window of the
 * cells (design, ordered pair of mixed32's operation kinds) at K=2, the
 * window that the seed picks of N consecutive ones, so that seeds 1..N
 * together explore every cell (--dry-run prints N). Only plain: a TSan
 * build sees no race under the deterministic scheduler, which runs one CPU
 * at a time and hands over through a lock, and a sanitizer's cost per
 * schedule would explore a handful of pairs where plain explores dozens.
 *
 * The fixed order: builds plain, tsan, asan; within a build, round j
 * and scenario s give position j * S + s and the combination
 * c = (j + s) mod C of design c mod R and schedule (c / R) mod K, so
 * that consecutive positions vary the scenario, the design and the
 * schedule together. A configuration's index is its position over all
 * builds asked for; --shard I/N takes the indices with index mod N ==
 * I - 1; `ci-merge` (cmd_ci_merge.c) reads the shards' JSON records
 * back and judges the whole gate.
 *
 * This file is the command: its options and the plan printed or run. The
 * plan itself is ci_plan.c (pure, unit-tested alone), the runs ci_run.c;
 * what judges a gate, run here or merged, is ci_gate.c, and what writes
 * it ci_output.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "inject.h"
#include "rmap.h"
#include "workload.h"
#include "record.h"
#include "rt_child.h"
#include "commands.h"
#include "rt_inject.h"
#include "rt_opt.h"
#include "rt_sched.h"
#include "rt_time.h"
#include "ci-internal.h"

static void ci_usage(FILE *f)
{
	fputs("usage: rmaptorture ci --budget SECONDS [OPTIONS]\n"
	      "\n", f);
	fprintf(f, "The merge gate: every scenario x rmap design (%s .. %s) x\n",
		rmap_mode_name((enum rmap_mode)0),
		rmap_mode_name((enum rmap_mode)(RMAP_NR_MODES - 1)));
	fputs("schedule (free, pct) x build (plain, tsan, asan) is one configuration, run as\n"
	      "one 'rmaptorture run' child of its build within the budget. Every failure\n"
	      "leaves its artifact and reproduce command in the log; every trylock fallback\n"
	      "site must fire somewhere in the gate. Exit 0 only if all are clean.\n"
	      "\n"
	      "  -b, --budget S          wall-clock seconds for the runs (per shard); building\n"
	      "                          a missing sanitizer variant is not counted\n"
	      "  -j, --junit FILE        JUnit XML: one testcase per configuration and per\n"
	      "                          trylock fallback site\n"
	      "      --json FILE         the same as a JSON record\n"
	      "      --shard I/N         only the configurations with index mod N == I-1; the\n"
	      "                          budget is then this shard's. Fallback coverage is\n"
	      "                          reported but not judged on a partial shard:\n"
	      "                          'rmaptorture ci-merge' of every shard's --json judges\n"
	      "                          the whole gate\n"
	      "  -o, --out DIR           per-configuration run directories (default ci-out)\n"
	      "      --builds LIST       some of plain,tsan,asan (default all three)\n"
	      "      --seed X            rotates the configurations run when the budget is\n"
	      "                          short, and seeds each run (default: random, printed)\n"
	      "      --no-build          fail instead of building a missing sanitizer variant\n"
	      "      --inject NAME       pass --inject NAME to every run (a seeded bug; repeatable)\n"
	      "      --scenarios LIST    only these scenarios (coverage is then not judged)\n"
	      "      --rmaps LIST        only these designs (coverage is then not judged)\n"
	      "      --scheds LIST       only these schedules, of free,random,pct (default\n"
	      "                          free,pct; coverage is then not judged)\n"
	      "      --explore-share F   the fraction of the usable budget explore gets first\n"
	      "                          (default 0.15; 0 or --no-explore: none), as far as the\n"
	      "                          builds can spare it (at least 4 s)\n"
	      "      --explore-k K       explore's preemption bound, 0..3 (default 2)\n"
	      "  -n, --dry-run           print the plan (every configuration of the shard, the\n"
	      "                          run time it would get or why it is skipped); run nothing\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "When the budget cannot give every configuration its build's minimum run time\n"
	      "(plain 1.5 s, tsan 4 s, asan 2.5 s, plus start-up), a window of consecutive\n"
	      "configurations in the fixed order, starting where the seed says, runs and the\n"
	      "rest are reported skipped; when every free-schedule configuration of a build\n"
	      "fits, they all run and the window is over the others. Shares: plain 50%,\n"
	      "tsan 30%, asan 20%. Unless --scenarios/--rmaps/--scheds restrict it, four\n"
	      "site runs that fire every trylock fallback site go first in the first build,\n"
	      "each until its sites fired, sharing plain 8 s, tsan 20 s or asan 8 s each\n"
	      "(one that fired early leaves its time to the next); a budget that cannot pay\n"
	      "for them is refused, naming the smallest that can.\n"
	      "\n"
	      "Explore's share runs first: 'rmaptorture explore' (plain build, world seed 1)\n"
	      "on a window of the cells design x ordered pair of mixed32's operation kinds,\n"
	      "the window the seed picks of N (seeds 1..N together explore every cell; the\n"
	      "dry run prints N). A cell explored to the end at K passes (a proof for that\n"
	      "world and K, no stronger), one cut by the budget is reported as cut (not a\n"
	      "failure, not a proof), a failing schedule fails the gate with its artifact.\n"
	      "\n"
	      "Exit status: 0 every configuration clean and every fallback site fired,\n"
	      "1 a failure (or a site that never fired), 2 bad usage, 3 internal error (a\n"
	      "build missing, a run that could not start), 130 interrupted (the JUnit and\n"
	      "JSON files still describe what ran).\n", f);
}

/* Split the comma list @arg into @toks (at most @max); Return: their number. */
static int split_list(const char *opt, const char *arg, char *buf, size_t len,
		      char **toks, int max)
{
	char *save = NULL, *tok;
	int n = 0;

	if ((size_t)snprintf(buf, len, "%s", arg) >= len)
		rt_usage_error("%s: list too long", opt);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max)
			rt_usage_error("%s: too many entries", opt);
		toks[n++] = tok;
	}
	if (!n)
		rt_usage_error("%s: empty list", opt);
	return n;
}

static void parse_shard(const char *arg, struct ci_opts *o)
{
	char *end;
	long long i, n;

	errno = 0;
	i = strtoll(arg, &end, 10);
	if (end == arg || *end != '/' || errno)
		rt_usage_error("--shard: '%s' is not I/N (e.g. 2/4)", arg);
	n = strtoll(end + 1, &end, 10);
	if (*end || errno || end[-1] == '/')
		rt_usage_error("--shard: '%s' is not I/N (e.g. 2/4)", arg);
	if (n < 1 || n > 1000000 || i < 1 || i > n)
		rt_usage_error("--shard: '%s' needs 1 <= I <= N <= 1000000", arg);
	o->shard_i = (int)i;
	o->shard_n = (int)n;
}

static const struct option ci_options[] = {
	{ "budget", required_argument, NULL, RT_OPT_BUDGET },
	{ "junit", required_argument, NULL, 'j' },
	{ "json", required_argument, NULL, 'J' },
	{ "shard", required_argument, NULL, 'S' },
	{ "out", required_argument, NULL, RT_OPT_OUT },
	{ "builds", required_argument, NULL, 'B' },
	{ "seed", required_argument, NULL, 'X' },
	{ "no-build", no_argument, NULL, RT_OPT_NO_BUILD },
	{ "inject", required_argument, NULL, 'I' },
	{ "scenarios", required_argument, NULL, 's' },
	{ "rmaps", required_argument, NULL, 'r' },
	{ "scheds", required_argument, NULL, 'k' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "explore-share", required_argument, NULL, 'E' },
	{ "no-explore", no_argument, NULL, 'x' },
	{ "explore-k", required_argument, NULL, 'K' },
	{ "help", no_argument, NULL, RT_OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* The lists, as given (NULL: not given). */
struct ci_lists {
	const char *scenarios, *rmaps, *scheds, *builds;
};

static void opt_inject(struct ci_opts *o, const char *arg)
{
	if (inject_by_name(arg) < 0)
		rt_usage_error("--inject: unknown seeded bug '%s' (see 'rmaptorture run --inject list')",
			       arg);
	if (o->nr_inject == (int)(sizeof(o->inject) / sizeof(o->inject[0])))
		rt_usage_error("--inject: too many");
	o->inject[o->nr_inject++] = arg;
}

/* --builds LIST, else all three. */
static void parse_builds(struct ci_opts *o, const char *builds)
{
	char buf[4096], *toks[64];
	int n;

	if (!builds) {
		for (int b = 0; b < CI_NR_BUILDS; b++)
			o->build_on[b] = true;
		return;
	}
	n = split_list("--builds", builds, buf, sizeof(buf), toks, 64);
	for (int i = 0; i < n; i++) {
		int b = ci_build_by_name(toks[i]);

		if (b < 0)
			rt_usage_error("--builds: unknown build '%s' (plain, tsan, asan)", toks[i]);
		o->build_on[b] = true;
	}
}

/* --scenarios LIST (each once, in the order given), else every scenario. */
static void parse_scenarios(struct ci_opts *o, const char *scenarios)
{
	char buf[4096], *toks[64];
	int n;

	if (!scenarios) {
		for (int i = 0; wl_scenarios[i] && i < 64; i++)
			o->scenarios[o->nr_scenarios++] = wl_scenarios[i];
		return;
	}
	n = split_list("--scenarios", scenarios, buf, sizeof(buf), toks, 64);
	for (int i = 0; i < n; i++) {
		const struct rt_scenario *sc = wl_find(toks[i]);

		if (!sc)
			rt_usage_error("--scenarios: unknown scenario '%s' (see 'rmaptorture list')",
				       toks[i]);
		for (int k = 0; k < o->nr_scenarios; k++)
			if (o->scenarios[k] == sc)
				sc = NULL;
		if (sc)
			o->scenarios[o->nr_scenarios++] = sc;
	}
}

/* --rmaps LIST (in the designs' order), else every design. */
static void parse_rmaps(struct ci_opts *o, const char *rmaps)
{
	bool on[RMAP_NR_MODES] = { false };
	char buf[4096], *toks[64];
	int n;

	if (!rmaps) {
		for (int m = 0; m < RMAP_NR_MODES; m++)
			o->modes[o->nr_modes++] = (enum rmap_mode)m;
		return;
	}
	n = split_list("--rmaps", rmaps, buf, sizeof(buf), toks, 64);
	for (int i = 0; i < n; i++) {
		int m = rmap_mode_by_name(toks[i]);

		if (m < 0)
			rt_usage_error("--rmaps: unknown design '%s' (%s)", toks[i], rt_opt_designs(", "));
		on[m] = true;
	}
	for (int m = 0; m < RMAP_NR_MODES; m++)
		if (on[m])
			o->modes[o->nr_modes++] = (enum rmap_mode)m;
}

/* --scheds LIST: free, pct, random, the gate's two first, in that order. */
static void parse_scheds(struct ci_opts *o, const char *scheds)
{
	bool on[3] = { false };
	char buf[4096], *toks[64];
	int n = split_list("--scheds", scheds, buf, sizeof(buf), toks, 64);

	for (int i = 0; i < n; i++) {
		int k = rt_sched_by_name(toks[i]);

		if (k < 0 || k > 2)
			rt_usage_error("--scheds: unknown schedule '%s' (free, random, pct)", toks[i]);
		on[k] = true;
	}
	if (on[RT_SCHED_FREE])
		o->scheds[o->nr_scheds++] = RT_SCHED_FREE;
	if (on[RT_SCHED_PCT])
		o->scheds[o->nr_scheds++] = RT_SCHED_PCT;
	if (on[RT_SCHED_RANDOM])
		o->scheds[o->nr_scheds++] = RT_SCHED_RANDOM;
}

/* A seeded bug in a design that never runs its code would pass for clean there: refused. */
static void check_inject_designs(const struct ci_opts *o)
{
	for (int i = 0; i < o->nr_inject; i++) {
		const struct rt_bug *bug = rt_bug_find(o->inject[i]);
		char designs[RMAP_MODE_LIST_LEN];

		for (int k = 0; bug && k < o->nr_modes; k++)
			if (!rt_bug_in_design(bug, o->modes[k]))
				rt_usage_error("--inject %s cannot fire in design %s: its code is in %s"
					       " only (--rmaps %s)", bug->name,
					       rmap_mode_name(o->modes[k]),
					       rt_bug_designs(bug, designs, sizeof(designs)), designs);
	}
}

/* --explore-share F: a fraction of the usable budget, 0 (none) to 0.9. */
static double parse_explore_share(const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !(v >= 0 && v <= 0.9))
		rt_usage_error("--explore-share: '%s' is not a fraction from 0 to 0.9", arg);
	return v;
}

/* One of ci's own options. Return: false if @c is not one. */
static bool ci_opt(struct ci_opts *o, struct ci_lists *l, int c, const char *arg)
{
	switch (c) {
	case 'j': o->junit = arg; break;
	case 'J': o->json = arg; break;
	case 'S': parse_shard(arg, o); break;
	case 'B': l->builds = arg; break;
	case 'X': o->seed = rt_opt_u64("--seed", arg); o->seed_set = true; break;
	case 'I': opt_inject(o, arg); break;
	case 's': l->scenarios = arg; o->filtered = true; break;
	case 'r': l->rmaps = arg; o->filtered = true; break;
	case 'k': l->scheds = arg; o->filtered = true; break;
	case 'n': o->dry_run = true; break;
	case 'E': o->explore_share = parse_explore_share(arg); break;
	case 'x': o->explore_share = 0; break;
	case 'K': o->explore_k = (int)rt_opt_int("--explore-k", arg, 0, CI_EXPLORE_MAX_K); break;
	default: return false;
	}
	return true;
}

static void parse_ci_opts(int argc, char **argv, struct ci_opts *o)
{
	struct ci_lists l = { .scheds = "free,pct" };
	struct rt_common_opts co;
	int c;

	memset(o, 0, sizeof(*o));
	o->argc = argc;
	o->argv = argv;
	o->shard_i = o->shard_n = 1;
	o->explore_share = CI_EXPLORE_SHARE;
	o->explore_k = CI_EXPLORE_K;
	rt_common_opts_init(&co, "ci", ci_usage, 30 * 86400);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":b:j:o:nh", ci_options, NULL)) != -1)
		if (!ci_opt(o, &l, c, optarg))
			rt_common_opt(&co, c, optarg, argv[optind - 1]);
	if (optind < argc)
		rt_usage_error("ci: unexpected argument '%s' (see 'rmaptorture ci --help')", argv[optind]);
	if (!co.budget_set)
		rt_usage_error("ci: --budget SECONDS is required (see 'rmaptorture ci --help')");
	o->budget = co.budget;
	o->out_dir = co.out_dir ? co.out_dir : "ci-out";
	o->no_build = !co.build_if_missing;
	parse_builds(o, l.builds);
	parse_scenarios(o, l.scenarios);
	parse_rmaps(o, l.rmaps);
	parse_scheds(o, l.scheds);
	check_inject_designs(o);
	if (o->junit)
		rt_opt_out_file("--junit", o->junit);
	if (o->json)
		rt_opt_out_file("--json", o->json);
	if (!o->seed_set)
		o->seed = rt_seed_from_clock();
}

/* The plan's word on the trylock fallback sites: the site runs, or why there are none. */
static void print_sites(const struct ci_gate *g)
{
	if (g->site_build < 0) {
		printf("ci: plan: fallback sites: not judged (--scenarios/--rmaps/--scheds restrict"
		       " the gate): no site runs\n");
		return;
	}
	if (!g->nr_sites) {
		printf("ci: plan: fallback sites: shard %d/%d holds none of the %d site runs;"
		       " 'ci-merge' of every shard judges the sites\n", g->o.shard_i, g->o.shard_n,
		       CI_NR_SITE_RUNS);
		return;
	}
	if (g->o.shard_n > 1)
		printf("ci: plan: fallback sites: this shard's %d of the %d site runs go first",
		       g->nr_sites, CI_NR_SITE_RUNS);
	else
		printf("ci: plan: fallback sites: every site is expected to fire: its %d site runs"
		       " go first", g->nr_sites);
	printf(" in %s, each until its sites fired, sharing %.1f s each; the smallest budget"
	       " that pays for them is %d s\n", ci_builds[g->site_build].name,
	       ci_builds[g->site_build].site_s, ci_plan_min_budget(g));
}

/* The plan's explore share: the window of cells, N, and this shard's cells. */
static void print_explore(const struct ci_gate *g)
{
	const struct ci_explore *x = &g->x;

	if (!x->scenario) {
		printf("ci: plan: explore: %s\n", x->note);
		return;
	}
	printf("ci: plan: explore: %.1f s first, plain build, %s at K=%d: %d of the %d cells"
	       " (design x ordered pair) this shard, window %d of %d (seeds 1..%d together explore"
	       " every cell; about %.2f s planned per cell)\n", x->share, x->scenario->name,
	       g->o.explore_k, x->nr_cells, x->nr_all, x->block + 1, x->rotations, x->rotations,
	       x->pair_s);
	for (int i = 0; i < x->nr_cells; i++) {
		char ops[64];

		ci_xcell_name(&x->cells[i], ops, sizeof(ops));
		printf("explore #%d %s %s\n", x->cells[i].pos, rmap_mode_name(x->cells[i].mode), ops);
	}
}

static void print_plan(const struct ci_gate *g)
{
	printf("ci: plan: %d configurations in shard %d/%d (of %d), budget %g s (usable %.1f s)\n",
	       g->nr_cfgs, g->o.shard_i, g->o.shard_n, g->nr_all, g->o.budget, g->usable);
	for (int b = 0; b < CI_NR_BUILDS; b++)
		if (g->nr_build[b])
			printf("ci: plan: %s: %.1f s for %d of %d configurations (%s threads, minimum run"
			       " %.1f s + about %.1f s start-up and teardown)\n", ci_builds[b].name,
			       g->share[b], g->nr_selected[b], g->nr_build[b],
			       ci_builds[b].max_threads ? "at most 8" : "the scenario's",
			       ci_builds[b].min_s, ci_builds[b].overhead_s);
	print_sites(g);
	print_explore(g);
	for (int i = 0; i < g->nr_cfgs; i++) {
		const struct ci_config *c = &g->cfgs[i];
		char name[128];

		ci_config_name(c, name, sizeof(name));
		if (c->selected)
			printf("plan #%d %s %s %s seed=%" PRIu64 " threads=%d seconds=%.1f%s\n",
			       c->index, ci_builds[c->build].name, rt_sched_name(c->sched), name,
			       c->seed, c->threads, c->seconds,
			       c->sites ? " site-run (first; ends when its sites fired)" : "");
		else
			printf("skip #%d %s %s %s (%s)\n", c->index, ci_builds[c->build].name,
			       rt_sched_name(c->sched), name, c->skip_reason);
	}
}

int cmd_ci(int argc, char **argv)
{
	struct ci_gate *g = rt_calloc(1, sizeof(*g));
	double cheapest;

	parse_ci_opts(argc, argv, &g->o);
	ci_make_configs(g);
	ci_plan(g);
	if (!g->nr_cfgs)
		rt_usage_error("--shard: shard %d/%d holds none of the %d configurations",
			       g->o.shard_i, g->o.shard_n, g->nr_all);
	if (!g->sites_paid)
		rt_usage_error("--budget: %g s cannot pay for the %d runs that fire every trylock"
			       " fallback site (%.1f s each, in the %s build's share of"
			       " %.1f s); the smallest budget that can is %d s", g->o.budget,
			       g->nr_sites, ci_builds[g->site_build].site_s,
			       ci_builds[g->site_build].name, g->share[g->site_build],
			       ci_plan_min_budget(g));
	if (!ci_plan_selected(g, &cheapest))
		rt_usage_error("--budget: %g s cannot pay for one configuration (%.1f s at least)",
			       g->o.budget, cheapest / 0.95);
	if (!g->o.dry_run)
		rt_opt_out_dir("--out", g->o.out_dir);
	printf("ci: seed %" PRIu64 " (--seed %" PRIu64 " repeats this selection and these runs),"
	       " budget %g s, shard %d/%d, %s\n", g->o.seed, g->o.seed, g->o.budget,
	       g->o.shard_i, g->o.shard_n, rt_version());
	if (g->o.dry_run) {
		print_plan(g);
		free(g->x.cells);
		free(g->cfgs);
		free(g);
		return RT_EXIT_OK;
	}
	for (int b = 0; b < CI_NR_BUILDS; b++)
		if (g->nr_build[b])
			printf("ci: %s: %d of %d configurations, %.1f s\n", ci_builds[b].name,
			       g->nr_selected[b], g->nr_build[b], g->share[b]);
	fflush(stdout);
	if (g->x.scenario)
		printf("ci: explore: %.1f s for %d cells (window %d of %d)\n", g->x.share,
		       g->x.nr_cells, g->x.block + 1, g->x.rotations);
	fflush(stdout);
	if (ci_find_binaries(g)) {
		free(g->x.cells);
		free(g->cfgs);
		free(g);
		return RT_EXIT_INTERNAL;
	}
	/* Leftovers of an earlier gate in the same place would read as this one's. */
	for (int i = 0; i < g->nr_cfgs; i++)
		rt_remove_tree(g->cfgs[i].dir);

	ci_run_gate(g);
	if (g->usage_rc) {
		fprintf(stderr, "rmaptorture: ci: the run rejected its arguments: %s\n", g->usage_line);
		return RT_EXIT_USAGE;
	}
	return ci_finish(g);
}
