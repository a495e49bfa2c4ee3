// SPDX-License-Identifier: MIT
/*
 * The merge gate's planner (stress/cli/ci_plan.c), without the binary: the
 * configurations in the fixed order, --shard I/N partitioning them, the
 * budget split between the builds (a build that cannot pay for one
 * configuration giving its share to the others, the dearest first), the
 * seeded window of configurations a short budget runs (the free ones
 * first when they all fit), the site runs (every trylock fallback site in
 * one, run first) and the smallest budget that pays for them, and the run
 * time each child gets from the clock. Explore's share: seeds 1..N
 * together explore every cell (design x ordered pair), in every shard
 * layout; the share stays within the budget and never costs a build its
 * share or the site runs their pay; small budgets and gates without
 * mixed32 or the plain build have none. `ci --dry-run` through the binary is
 * tests/check_ci.c's "plan" case.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ci_plan.h"
#include "rt_check.h"

#define B_PLAIN	0
#define B_TSAN	1
#define B_ASAN	2

/* The options of a gate over every scenario, built design and free+pct, the builds in @builds. */
static struct ci_gate *gate_opts(double budget, unsigned builds, uint64_t seed, int shard_i,
				 int shard_n)
{
	struct ci_gate *g = calloc(1, sizeof(*g));
	struct ci_opts *o = &g->o;

	ck_assert_ptr_nonnull(g);
	o->budget = budget;
	o->seed = seed;
	o->shard_i = shard_i;
	o->shard_n = shard_n;
	o->out_dir = "ci-out";
	for (int b = 0; b < CI_NR_BUILDS; b++)
		o->build_on[b] = builds & (1u << b);
	for (int i = 0; wl_scenarios[i] && i < 64; i++)
		o->scenarios[o->nr_scenarios++] = wl_scenarios[i];
	for (int m = 0; m < RMAP_NR_MODES; m++)
		o->modes[o->nr_modes++] = (enum rmap_mode)m;
	o->scheds[o->nr_scheds++] = RT_SCHED_FREE;
	o->scheds[o->nr_scheds++] = RT_SCHED_PCT;
	return g;
}

/* That gate, its configurations made and planned. */
static struct ci_gate *gate_new(double budget, unsigned builds, uint64_t seed, int shard_i,
				int shard_n)
{
	struct ci_gate *g = gate_opts(budget, builds, seed, shard_i, shard_n);

	ci_make_configs(g);
	ci_plan(g);
	return g;
}

static void gate_free(struct ci_gate *g)
{
	free(g->x.cells);
	free(g->cfgs);
	free(g);
}

static int per_build(const struct ci_gate *g)
{
	return g->o.nr_scenarios * g->o.nr_modes * g->o.nr_scheds;
}

/* Every build runs every scenario x design x schedule once, in index order. */
START_TEST(test_ci_plan_fixed_order_covers_every_combination)
{
	struct ci_gate *g = gate_new(1e6, 7, 7, 1, 1);
	int n = per_build(g);

	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(g->nr_all, 3 * n);
	ck_assert_int_eq(g->nr_cfgs, 3 * n);
	for (int i = 0; i < g->nr_cfgs; i++) {
		const struct ci_config *c = &g->cfgs[i];

		ck_assert_int_eq(c->index, i);
		ck_assert_int_eq(c->build, i / n);
		/* Consecutive positions vary the scenario. */
		ck_assert_ptr_eq(c->scenario, g->o.scenarios[(i % n) % g->o.nr_scenarios]);
		for (int k = i + 1; k < g->nr_cfgs && g->cfgs[k].build == c->build; k++)
			ck_assert_msg(g->cfgs[k].scenario != c->scenario || g->cfgs[k].mode != c->mode ||
				      g->cfgs[k].sched != c->sched, "#%d and #%d are the same", i, k);
		ck_assert_msg(strstr(c->dir, c->scenario->name) && !strncmp(c->dir, "ci-out/", 7),
			      "dir %s", c->dir);
	}
	/* tsan's configurations are capped at 8 threads. */
	for (int i = n; i < 2 * n; i++)
		ck_assert_int_le(g->cfgs[i].threads, 8);
	gate_free(g);
}
END_TEST

/* --shard I/N for N up to 5: each configuration in exactly one shard, identical there. */
START_TEST(test_ci_plan_shards_partition_the_gate)
{
	struct ci_gate *all = gate_new(1e6, 7, 11, 1, 1);
	int *seen = calloc((size_t)all->nr_all, sizeof(int));

	for (int n = 2; n <= 5; n++) {
		memset(seen, 0, (size_t)all->nr_all * sizeof(int));
		for (int i = 1; i <= n; i++) {
			struct ci_gate *g = gate_new(1e6, 7, 11, i, n);

			ck_assert_int_eq(g->nr_all, all->nr_all);
			for (int k = 0; k < g->nr_cfgs; k++) {
				const struct ci_config *c = &g->cfgs[k], *w = &all->cfgs[c->index];

				ck_assert_int_eq(c->index % n, i - 1);
				ck_assert_int_eq(c->build, w->build);
				ck_assert_ptr_eq(c->scenario, w->scenario);
				ck_assert_int_eq(c->mode, w->mode);
				ck_assert_int_eq(c->sched, w->sched);
				ck_assert_uint_eq(c->seed, w->seed);
				seen[c->index]++;
			}
			gate_free(g);
		}
		for (int k = 0; k < all->nr_all; k++)
			ck_assert_msg(seen[k] == 1, "N=%d: #%d in %d shards", n, k, seen[k]);
	}
	free(seen);
	gate_free(all);
}
END_TEST

/* A budget that pays for everything: all run; shares 50/30/20 of the usable budget. */
START_TEST(test_ci_plan_large_budget_runs_all)
{
	struct ci_gate *g = gate_new(10000, 7, 3, 1, 1);
	double sum = 0;

	ck_assert_double_eq_tol(g->usable, 9999, 1e-9);
	ck_assert_double_eq_tol(g->share[B_PLAIN], 9999 * 0.5, 1e-6);
	ck_assert_double_eq_tol(g->share[B_TSAN], 9999 * 0.3, 1e-6);
	ck_assert_double_eq_tol(g->share[B_ASAN], 9999 * 0.2, 1e-6);
	for (int b = 0; b < CI_NR_BUILDS; b++) {
		sum += g->share[b];
		ck_assert_int_eq(g->nr_selected[b], g->nr_build[b]);
		ck_assert_int_eq(g->window_start[b], 0);
	}
	ck_assert_double_eq_tol(sum, g->usable, 1e-6);
	for (int i = 0; i < g->nr_cfgs; i++) {
		const struct ci_config *c = &g->cfgs[i];

		ck_assert(c->selected);
		ck_assert_int_eq(c->state, CI_PLANNED);
		ck_assert_double_eq_tol(c->seconds, g->share[c->build] / g->nr_build[c->build] -
					ci_builds[c->build].overhead_s, 1e-9);
	}
	gate_free(g);
}
END_TEST

/* Below 20 s the reserve is 5%; a short budget runs a seeded window, the rest named. */
START_TEST(test_ci_plan_short_budget_runs_a_seeded_window)
{
	struct ci_gate *g1 = gate_new(10, 1u << B_PLAIN, 1, 1, 1);
	int n = g1->nr_build[B_PLAIN], k = (int)floor(9.5 / ci_min_cost(B_PLAIN));
	int starts_differ = 0;

	ck_assert_double_eq_tol(g1->usable, 9.5, 1e-9);
	ck_assert_int_lt(k, n);
	ck_assert_int_eq(g1->nr_selected[B_PLAIN], k);
	for (int i = 0; i < n; i++) {
		const struct ci_config *c = &g1->cfgs[i];
		bool in = (i - g1->window_start[B_PLAIN] + n) % n < k;

		ck_assert_msg(c->selected == in, "#%d selected %d, window from %d", i, c->selected,
			      g1->window_start[B_PLAIN]);
		if (!in)
			ck_assert_msg(strstr(c->skip_reason, "not selected") != NULL, "#%d: '%s'", i,
				      c->skip_reason);
	}
	for (uint64_t seed = 2; seed < 10; seed++) {
		struct ci_gate *g = gate_new(10, 1u << B_PLAIN, seed, 1, 1);

		starts_differ += g->window_start[B_PLAIN] != g1->window_start[B_PLAIN];
		gate_free(g);
	}
	ck_assert_msg(starts_differ > 0, "eight seeds all start the window at %d",
		      g1->window_start[B_PLAIN]);
	gate_free(g1);
}
END_TEST

/*
 * A share that pays for every free configuration of the build but not for
 * all: every free one runs, whatever the seed, and a seeded window of the
 * others fills the rest. Below that (the 10 s budget above) the window is
 * over all of them.
 */
START_TEST(test_ci_plan_free_configurations_first)
{
	/* plain alone: usable 119, k = floor(119 / 2.0) = 59. */
	struct ci_gate *g1 = gate_new(120, 1u << B_PLAIN, 1, 1, 1);
	int n = g1->nr_build[B_PLAIN], nf = 0, k = (int)floor(119 / ci_min_cost(B_PLAIN));
	int starts_differ = 0, pos = 0, others = 0;

	for (int i = 0; i < n; i++)
		nf += g1->cfgs[i].sched == RT_SCHED_FREE;
	ck_assert_int_eq(nf, n / 2);
	ck_assert_msg(nf <= k && k < n, "nf %d, k %d, n %d", nf, k, n);
	ck_assert_int_eq(g1->nr_selected[B_PLAIN], k);
	ck_assert(g1->free_first[B_PLAIN]);
	for (int i = 0; i < n; i++) {
		const struct ci_config *c = &g1->cfgs[i];

		if (c->sched == RT_SCHED_FREE) {
			ck_assert_msg(c->selected, "free #%d not selected", i);
			continue;
		}
		/* The others: the window from window_start over their own order. */
		bool in = (pos - g1->window_start[B_PLAIN] + (n - nf)) % (n - nf) < k - nf;

		ck_assert_msg(c->selected == in, "other #%d (position %d) selected %d, window from %d",
			      i, pos, c->selected, g1->window_start[B_PLAIN]);
		if (!in)
			ck_assert_msg(strstr(c->skip_reason, "every free one") != NULL, "#%d: '%s'",
				      i, c->skip_reason);
		others += c->selected;
		pos++;
	}
	ck_assert_int_eq(others, k - nf);
	for (uint64_t seed = 2; seed < 10; seed++) {
		struct ci_gate *g = gate_new(120, 1u << B_PLAIN, seed, 1, 1);

		for (int i = 0; i < n; i++)
			ck_assert(!(g->cfgs[i].sched == RT_SCHED_FREE) || g->cfgs[i].selected);
		starts_differ += g->window_start[B_PLAIN] != g1->window_start[B_PLAIN];
		gate_free(g);
	}
	ck_assert_msg(starts_differ > 0, "eight seeds all start the window at %d",
		      g1->window_start[B_PLAIN]);
	gate_free(g1);

	/* The 10 s gate cannot pay for every free one: one window over all. */
	g1 = gate_new(10, 1u << B_PLAIN, 1, 1, 1);
	ck_assert(!g1->free_first[B_PLAIN]);
	gate_free(g1);
}
END_TEST

/* A build that cannot pay for one configuration gives its share away, the dearest first. */
START_TEST(test_ci_plan_poor_builds_give_their_share)
{
	/* usable 9.5: tsan 2.85 < 6.5 is dropped first, then asan 2.71 < 3.2. */
	struct ci_gate *g = gate_new(10, 7, 5, 1, 1);
	double cheapest;

	ck_assert_double_eq_tol(ci_min_cost(B_TSAN), 6.5, 1e-9);
	ck_assert_double_eq_tol(g->share[B_TSAN], 0, 1e-9);
	ck_assert_double_eq_tol(g->share[B_ASAN], 0, 1e-9);
	ck_assert_double_eq_tol(g->share[B_PLAIN], 9.5, 1e-9);
	ck_assert_int_eq(g->nr_selected[B_TSAN], 0);
	ck_assert_int_eq(g->nr_selected[B_ASAN], 0);
	ck_assert_int_eq(ci_plan_selected(g, &cheapest), 4);
	ck_assert_double_eq_tol(cheapest, ci_min_cost(B_PLAIN), 1e-9);
	for (int i = 0; i < g->nr_cfgs; i++)
		if (g->cfgs[i].build != B_PLAIN)
			ck_assert_msg(strstr(g->cfgs[i].skip_reason, "cannot pay") != NULL, "'%s'",
				      g->cfgs[i].skip_reason);
	gate_free(g);

	/* One second pays for nothing. */
	g = gate_new(1, 7, 5, 1, 1);
	ck_assert_int_eq(ci_plan_selected(g, &cheapest), 0);
	gate_free(g);
}
END_TEST

/* Each child: what is left of the share over the children left, the minimum, the deadline. */
START_TEST(test_ci_plan_child_seconds)
{
	struct ci_gate *g = gate_new(10000, 7, 3, 1, 1);
	double oh = ci_builds[B_PLAIN].overhead_s;

	/* 20 s left for 4 children: 5 s each less the overhead, in tenths. */
	ck_assert_double_eq_tol(ci_child_seconds(g, B_PLAIN, 100, 120, false, 4, false),
				floor((5 - oh) * 10) / 10, 1e-9);
	/* A site run gets at least its bound, the others at least the minimum. */
	ck_assert_double_eq_tol(ci_child_seconds(g, B_PLAIN, 100, 120, false, 8, true),
				ci_builds[B_PLAIN].site_s, 1e-9);
	ck_assert_double_eq_tol(ci_child_seconds(g, B_PLAIN, 100, 120, false, 8, false),
				floor((20.0 / 8 - oh) * 10) / 10, 1e-9);
	/*
	 * Four site runs from 100: the first gets its bound; one that fired
	 * early leaves its time to those after it; the build's even share
	 * wins when larger; past the deadline stays past it.
	 */
	{
		double end = 100 + 4 * ci_site_cost(B_PLAIN), site_s = ci_builds[B_PLAIN].site_s;

		ck_assert_double_eq_tol(ci_site_seconds(g, B_PLAIN, site_s, 100, end, 4), site_s,
					1e-9);
		ck_assert_double_eq_tol(ci_site_seconds(g, B_PLAIN, site_s, 101, end, 3),
					floor(((end - 101) / 3 - oh) * 10) / 10, 1e-9);
		ck_assert_double_gt(ci_site_seconds(g, B_PLAIN, site_s, 101, end, 3), site_s);
		ck_assert_double_eq_tol(ci_site_seconds(g, B_PLAIN, site_s, 103, end, 1),
					floor((end - 103 - oh) * 10) / 10, 1e-9);
		ck_assert_double_eq_tol(ci_site_seconds(g, B_PLAIN, 50, 101, end, 3), 50, 1e-9);
		ck_assert_double_lt(ci_site_seconds(g, B_PLAIN, -1, 101, end, 3), 0);
	}
	/* Too little left: the minimum, if it still ends within a quarter past the deadline. */
	ck_assert_double_eq_tol(ci_child_seconds(g, B_PLAIN, 100, 101.6, false, 1, false),
				ci_builds[B_PLAIN].min_s, 1e-9);
	ck_assert_double_lt(ci_child_seconds(g, B_PLAIN, 100, 100.5, false, 1, false), 0);
	/* The last build ends at the gate's deadline, no quarter past it. */
	ck_assert_double_lt(ci_child_seconds(g, B_PLAIN, 100, 101.6, true, 1, false), 0);
	/* A measured overhead replaces the guess. */
	g->overhead_sum[B_PLAIN] = 6;
	g->overhead_n[B_PLAIN] = 2;
	ck_assert_double_eq_tol(ci_overhead_est(g, B_PLAIN), 3, 1e-9);
	ck_assert_double_eq_tol(ci_child_seconds(g, B_PLAIN, 100, 120, false, 4, false), 2, 1e-9);
	gate_free(g);
}
END_TEST

/*
 * Every trylock fallback site belongs to exactly one site run, a free
 * configuration of the first build asked for; a restricted gate, which
 * judges no coverage, has none.
 */
START_TEST(test_ci_plan_site_runs_cover_every_site)
{
	static const unsigned masks[] = { 7, 6, 4 };
	uint32_t all = 0;
	struct ci_gate *g;

	for (int i = 0; i < CI_NR_SITE_RUNS; i++) {
		ck_assert_msg(wl_find(ci_site_runs[i].scenario), "no scenario %s",
			      ci_site_runs[i].scenario);
		ck_assert_int_eq(rmap_select(ci_site_runs[i].mode), 0);
		ck_assert_uint_ne(ci_site_runs[i].sites, 0);
		ck_assert_msg(!(all & ci_site_runs[i].sites), "site run %d repeats a site", i);
		all |= ci_site_runs[i].sites;
	}
	ck_assert_uint_eq(all, (1u << FB_NR_SITES) - 1);
	for (size_t m = 0; m < sizeof(masks) / sizeof(masks[0]); m++) {
		uint32_t got = 0;

		g = gate_new(1e6, masks[m], 1, 1, 1);
		ck_assert_int_eq(g->site_build, __builtin_ctz(masks[m]));
		ck_assert_int_eq(g->nr_sites, CI_NR_SITE_RUNS);
		for (int i = 0; i < g->nr_cfgs; i++) {
			const struct ci_config *c = &g->cfgs[i];

			if (!c->sites)
				continue;
			ck_assert_int_eq(c->build, g->site_build);
			ck_assert_int_eq(c->sched, RT_SCHED_FREE);
			ck_assert(!(got & c->sites));
			got |= c->sites;
		}
		ck_assert_uint_eq(got, all);
		gate_free(g);
	}
	g = gate_opts(1, 7, 1, 1, 1);
	g->o.filtered = true;
	ci_make_configs(g);
	ci_plan(g);
	ck_assert_int_eq(g->site_build, -1);
	ck_assert_int_eq(g->nr_sites, 0);
	ck_assert(g->sites_paid);
	ck_assert_int_eq(ci_plan_min_budget(g), 0);
	gate_free(g);
}
END_TEST

/*
 * The short gate (60 s, plain and tsan) pays for its site runs,
 * whatever the seed: every one is selected at its bound at least and runs
 * before any other configuration of its build; the window is over the rest.
 */
START_TEST(test_ci_plan_site_runs_first)
{
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct ci_gate *g = gate_new(60, (1u << B_PLAIN) | (1u << B_TSAN), seed, 1, 1);
		int *order = calloc((size_t)g->nr_cfgs, sizeof(int));
		int n = ci_plan_order(g, B_PLAIN, order), prev = -1;
		uint32_t got = 0;

		ck_assert(g->sites_paid);
		ck_assert_int_eq(n, g->nr_selected[B_PLAIN]);
		ck_assert_int_gt(n, CI_NR_SITE_RUNS);
		for (int k = 0; k < n; k++) {
			const struct ci_config *c = &g->cfgs[order[k]];

			ck_assert(c->selected);
			if (k < CI_NR_SITE_RUNS) {
				/* In the table's order: the slowest to fire last. */
				ck_assert_msg(c->sites == ci_site_runs[k].sites,
					      "seed %llu: #%d runs before site run %d",
					      (unsigned long long)seed, c->index, k);
				ck_assert_double_ge(c->seconds, ci_builds[B_PLAIN].site_s);
				got |= c->sites;
			} else {
				ck_assert(!c->sites);
				ck_assert_int_gt(c->index, prev);
				prev = c->index;
			}
		}
		ck_assert_uint_eq(got, (1u << FB_NR_SITES) - 1);
		/* tsan has none: its order is its selection in index order. */
		n = ci_plan_order(g, B_TSAN, order);
		ck_assert_int_eq(n, g->nr_selected[B_TSAN]);
		for (int k = 0; k < n; k++)
			ck_assert(!g->cfgs[order[k]].sites && (!k || order[k] > order[k - 1]));
		free(order);
		gate_free(g);
	}
}
END_TEST

/* Re-plan @g at @budget. Return: it pays for its site runs (each selected at its bound). */
static bool pays_at(struct ci_gate *g, double budget)
{
	g->o.budget = budget;
	ci_plan(g);
	for (int i = 0; g->sites_paid && i < g->nr_cfgs; i++) {
		const struct ci_config *c = &g->cfgs[i];

		if (c->sites)
			ck_assert_msg(c->selected && c->seconds >= ci_builds[c->build].site_s - 1e-9,
				      "budget %g: site run #%d not planned at its bound", budget,
				      c->index);
	}
	return g->sites_paid;
}

/*
 * The smallest budget the CLI accepts is the planner's: below it the site
 * build's share cannot pay each site run its bound (a budget just under
 * it is refused), from it on every budget can. For every set of builds,
 * and each shard of a sharded gate needs only its own site runs.
 */
START_TEST(test_ci_plan_min_budget_pays_the_site_runs)
{
	static const unsigned masks[] = { 1, 3, 5, 7, 2, 6, 4 };
	int whole = 0, shards[2];

	for (size_t m = 0; m < sizeof(masks) / sizeof(masks[0]); m++) {
		struct ci_gate *g = gate_new(1, masks[m], 1, 1, 1);
		int min = ci_plan_min_budget(g);
		bool refused = false;

		ck_assert(!g->sites_paid);
		ck_assert_int_gt(min, 1);
		for (int tenths = (min - 1) * 10; tenths < min * 10; tenths++)
			refused |= !pays_at(g, tenths / 10.0);
		ck_assert_msg(refused, "builds %#x: every budget from %d - 1 pays", masks[m], min);
		for (int tenths = min * 10; tenths <= 3000 * 10; tenths += 7)
			ck_assert_msg(pays_at(g, tenths / 10.0), "builds %#x: %.1f s (from %d) refused",
				      masks[m], tenths / 10.0, min);
		if (masks[m] == 7)
			whole = min;
		gate_free(g);
	}
	/* plain alone: the usable budget (less 1 s) pays four site costs. */
	{
		struct ci_gate *g = gate_new(1, 1u << B_PLAIN, 1, 1, 1);

		ck_assert_int_eq(ci_plan_min_budget(g),
				 (int)ceil(CI_NR_SITE_RUNS * ci_site_cost(B_PLAIN) + 1));
		gate_free(g);
	}
	for (int i = 1; i <= 2; i++) {
		struct ci_gate *g = gate_new(1, 7, 1, i, 2);

		shards[i - 1] = g->nr_sites;
		ck_assert_int_lt(ci_plan_min_budget(g), whole);
		ck_assert(pays_at(g, ci_plan_min_budget(g)));
		gate_free(g);
	}
	ck_assert_int_eq(shards[0] + shards[1], CI_NR_SITE_RUNS);
}
END_TEST

/* That gate with explore's share @share at K=2. */
static struct ci_gate *gate_x(double budget, unsigned builds, uint64_t seed, int shard_i,
			      int shard_n, double share)
{
	struct ci_gate *g = gate_opts(budget, builds, seed, shard_i, shard_n);

	g->o.explore_share = share;
	g->o.explore_k = CI_EXPLORE_K;
	ci_make_configs(g);
	ci_plan(g);
	return g;
}

/* Re-plan @g with @seed (a gate's configurations take megabytes: made once). */
static struct ci_gate *replan(struct ci_gate *g, uint64_t seed)
{
	g->o.seed = seed;
	ci_plan(g);
	return g;
}

/*
 * Pair rotation: seeds 1..N (N the plan's rotations) together explore
 * every cell of every design, at CI's budget and a larger one, unsharded
 * and in every shard of 2 and 3; each seed's window is the same in every
 * shard layout, the shards partition it, and seed N + 1 repeats seed 1.
 * One gate's window spreads over the designs (the stride).
 */
START_TEST(test_ci_plan_explore_rotation_covers_every_cell)
{
	static const double budgets[] = { 150, 400 };
	struct ci_gate *g[3];
	int nr_all, nr_pairs = 0, *first = NULL;
	char *seen;

	/* Every ordered pair of mixed32's kinds, and each with kswapd both ways, in every design. */
	for (int k = 0; k < WL_NR_OPS; k++)
		nr_pairs += wl_find(CI_EXPLORE_SCENARIO)->weights[k] != 0;
	ck_assert_int_gt(nr_pairs, 1);
	nr_pairs = nr_pairs * nr_pairs + 2 * nr_pairs;
	for (size_t b = 0; b < sizeof(budgets) / sizeof(budgets[0]); b++) {
		for (int n = 1; n <= 3; n++) {
			int rotations;

			for (int i = 1; i <= n; i++)
				g[i - 1] = gate_x(budgets[b], 7, 1, i, n, CI_EXPLORE_SHARE);
			rotations = g[0]->x.rotations;
			nr_all = g[0]->x.nr_all;
			ck_assert_int_eq(nr_all, nr_pairs * g[0]->o.nr_modes);
			ck_assert_msg(g[0]->x.scenario && rotations > 1, "budget %g: no rotation",
				      budgets[b]);
			seen = calloc((size_t)nr_all, 1);
			for (uint64_t seed = 1; seed <= (uint64_t)rotations + 1; seed++) {
				int in_window = 0;

				for (int i = 0; i < n; i++) {
					const struct ci_explore *x = &replan(g[i], seed)->x;

					ck_assert_int_eq(x->rotations, rotations);
					for (int c = 0; c < x->nr_cells; c++) {
						ck_assert(x->cells[c].id >= 0 && x->cells[c].id < nr_all);
						ck_assert_int_eq(x->cells[c].mode,
							g[i]->o.modes[x->cells[c].id / nr_pairs]);
						if (seed <= (uint64_t)rotations)
							seen[x->cells[c].id] = 1;
					}
					in_window += x->nr_cells;
					if (n == 1 && seed == 1) {
						first = calloc((size_t)x->nr_cells + 1, sizeof(int));
						for (int c = 0; c < x->nr_cells; c++)
							first[c] = x->cells[c].pos;
					}
					if (n == 1 && seed == (uint64_t)rotations + 1)
						for (int c = 0; c < x->nr_cells; c++)
							ck_assert_int_eq(x->cells[c].pos, first[c]);
				}
				/* The shards split one window of per_gate cells between them. */
				ck_assert_int_eq(in_window, g[0]->x.per_gate);
			}
			for (int c = 0; c < nr_all; c++)
				ck_assert_msg(seen[c], "budget %g, %d shards: cell %d in none of seeds 1..%d",
					      budgets[b], n, c, rotations);
			if (n == 1) {
				const struct ci_explore *x = &replan(g[0], 1)->x;
				int designs = 0;

				for (int m = 0; m < g[0]->o.nr_modes; m++)
					for (int c = 0; c < x->nr_cells; c++)
						if (x->cells[c].mode == g[0]->o.modes[m]) {
							designs++;
							break;
						}
				ck_assert_msg(x->nr_cells < 2 * g[0]->o.nr_modes || designs > 1,
					      "budget %g: one design in seed 1's window", budgets[b]);
			}
			free(seen);
			free(first);
			first = NULL;
			for (int i = 0; i < n; i++)
				gate_free(g[i]);
		}
	}
}
END_TEST

/*
 * The share is within the budget: explore's and the builds' together are
 * the usable budget; explore's is none or at least its minimum, at most
 * the fraction asked; it never drops a build or unpays the site runs that
 * the same budget pays without it. At the smallest budget the gate takes,
 * there is none.
 */
START_TEST(test_ci_plan_explore_share_within_budget)
{
	static const unsigned masks[] = { 1, 7, 3 };

	for (size_t m = 0; m < sizeof(masks) / sizeof(masks[0]); m++) {
		struct ci_gate *g = gate_x(1, masks[m], 3, 1, 1, CI_EXPLORE_SHARE);
		struct ci_gate *off = gate_x(1, masks[m], 3, 1, 1, 0);
		int least = ci_plan_min_budget(g);

		for (int tenths = 10; tenths <= 4000; tenths += 13) {
			double budget = tenths / 10.0, sum = 0;

			g->o.budget = off->o.budget = budget;
			ci_plan(g);
			ci_plan(off);
			for (int b = 0; b < CI_NR_BUILDS; b++) {
				sum += g->share[b];
				ck_assert_msg(!off->share[b] || g->share[b] >= ci_min_cost(b),
					      "budget %g: explore drops build %d", budget, b);
			}
			ck_assert_double_le_tol(sum + g->x.share, g->usable, 1e-6);
			ck_assert_double_eq_tol(g->usable, off->usable, 1e-9);
			ck_assert(g->x.share == 0 || g->x.share >= CI_EXPLORE_MIN_S - 1e-9);
			ck_assert_double_le_tol(g->x.share, CI_EXPLORE_SHARE * g->usable, 1e-9);
			ck_assert(!off->sites_paid || g->sites_paid);
			ck_assert((g->x.share > 0) == (g->x.nr_cells > 0));
			ck_assert((g->x.share > 0) == (g->x.scenario != NULL));
			if (!g->x.share)
				ck_assert_msg(g->x.note[0], "budget %g: no explore, no reason", budget);
		}
		g->o.budget = least;
		ci_plan(g);
		ck_assert_msg(g->x.share == 0, "builds %#x: explore at the least budget %d", masks[m],
			      least);
		gate_free(off);
		gate_free(g);
	}
	/* CI's budget explores, and stays within it. */
	{
		struct ci_gate *g = gate_x(150, 7, 1, 1, 1, CI_EXPLORE_SHARE);

		ck_assert(g->sites_paid);
		ck_assert_double_ge(g->x.share, CI_EXPLORE_MIN_S);
		ck_assert_int_gt(g->x.nr_cells, 0);
		gate_free(g);
	}
}
END_TEST

/* No explore: off, no mixed32, no plain build, several seeded bugs. */
START_TEST(test_ci_plan_explore_none)
{
	struct ci_gate *g = gate_x(400, 7, 1, 1, 1, 0);

	ck_assert_ptr_null(g->x.scenario);
	ck_assert_int_eq(g->x.nr_cells, 0);
	ck_assert_ptr_nonnull(strstr(g->x.note, "off"));
	gate_free(g);

	g = gate_opts(400, 7, 1, 1, 1);
	g->o.explore_share = CI_EXPLORE_SHARE;
	g->o.nr_scenarios = 1;
	g->o.scenarios[0] = wl_find("forkbomb-cow");
	ci_make_configs(g);
	ci_plan(g);
	ck_assert_int_eq(g->x.nr_cells, 0);
	ck_assert_ptr_nonnull(strstr(g->x.note, CI_EXPLORE_SCENARIO));
	gate_free(g);

	g = gate_x(400, (1u << B_TSAN) | (1u << B_ASAN), 1, 1, 1, CI_EXPLORE_SHARE);
	ck_assert_int_eq(g->x.nr_cells, 0);
	ck_assert_ptr_nonnull(strstr(g->x.note, "plain"));
	gate_free(g);

	g = gate_opts(400, 7, 1, 1, 1);
	g->o.explore_share = CI_EXPLORE_SHARE;
	g->o.inject[g->o.nr_inject++] = "a";
	g->o.inject[g->o.nr_inject++] = "b";
	ci_make_configs(g);
	ci_plan(g);
	ck_assert_int_eq(g->x.nr_cells, 0);
	gate_free(g);
}
END_TEST

START_TEST(test_ci_plan_names)
{
	for (int b = 0; b < CI_NR_BUILDS; b++)
		ck_assert_int_eq(ci_build_by_name(ci_builds[b].name), b);
	ck_assert_int_eq(ci_build_by_name("msan"), -1);
	for (int s = 0; s < CI_NR_STATES; s++)
		ck_assert_int_eq(ci_state_by_name(ci_state_name((enum ci_state)s)), s);
	ck_assert_int_eq(ci_state_by_name("?"), -1);
	for (int s = 0; s < CI_X_NR_STATES; s++)
		ck_assert_int_eq(ci_xstate_by_name(ci_xstate_name((enum ci_xstate)s)), s);
	ck_assert_int_eq(ci_xstate_by_name("?"), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ci_plan");
	TCase *tc = tcase_create("plan");

	tcase_set_timeout(tc, rt_tmo(60));
	tcase_add_test(tc, test_ci_plan_fixed_order_covers_every_combination);
	tcase_add_test(tc, test_ci_plan_shards_partition_the_gate);
	tcase_add_test(tc, test_ci_plan_large_budget_runs_all);
	tcase_add_test(tc, test_ci_plan_short_budget_runs_a_seeded_window);
	tcase_add_test(tc, test_ci_plan_free_configurations_first);
	tcase_add_test(tc, test_ci_plan_poor_builds_give_their_share);
	tcase_add_test(tc, test_ci_plan_child_seconds);
	tcase_add_test(tc, test_ci_plan_site_runs_cover_every_site);
	tcase_add_test(tc, test_ci_plan_site_runs_first);
	tcase_add_test(tc, test_ci_plan_min_budget_pays_the_site_runs);
	tcase_add_test(tc, test_ci_plan_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("explore");
	tcase_set_timeout(tc, rt_tmo(60));
	tcase_add_test(tc, test_ci_plan_explore_rotation_covers_every_cell);
	tcase_add_test(tc, test_ci_plan_explore_share_within_budget);
	tcase_add_test(tc, test_ci_plan_explore_none);
	suite_add_tcase(s, tc);
	return rt_check_main(s);
}
