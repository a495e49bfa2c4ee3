// SPDX-License-Identifier: MIT
/*
 * The merge gate's plan (ci_plan.h): the builds, the configurations in the
 * fixed order, the site runs, the budget split and the windows, the
 * smallest budget that pays for the site runs, each child's run time;
 * the gate's identity, which every shard's record carries.
 * Pure: no I/O, no child processes, no clock (the caller passes it).
 * The budget rule and the fixed order are stated in cmd_ci.c's header.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "random.h"
#include "engine.h"
#include "rt_explore.h"
#include "ci_plan.h"

/*
 * The slack is the build's hang watchdog (RT_WATCHDOG_DEFAULT) and a margin, so
 * that a hang is reported by the run itself, with its holders named,
 * before the gate kills it. The site runs (below) share site_s each: one
 * that fired its sites early leaves its time to the next
 * (ci_site_seconds()). Plain's four, 15 to 30 seeds each on a 2-core
 * machine at load 20 (six busy loops beside other work), took at most
 * 1.9, 3.7, 3.9 and 5.7 s, 15 s together, half their 32 s; tsan's
 * (8 threads) at most 8.4 s each at load 40, asan's 2.4 s at load 30.
 */
const struct ci_build ci_builds[CI_NR_BUILDS] = {
	{ "plain", 0.50, 1.5, 0.5, 0, 35, 8.0 },
	{ "tsan", 0.30, 4.0, 2.5, 8, 135, 20.0 },
	{ "asan", 0.20, 2.5, 0.7, 0, 75, 8.0 },
};

#define FB(site)	(1u << (site))

/*
 * Each site goes to the free run (--perturb 2 --long-hold i_shared_sem, as
 * ci_run.c runs them) that fired it soonest under `run --until-fallbacks`:
 * these fire theirs in about a second, where others take up to a minute
 * or never (shrink_list:PG_locked in many-vmas up to 44 s;
 * try_to_unmap_obj:i_shared_sem only in many-vmas, whose vma churn holds
 * i_shared_sem; try_to_unmap_one in reclaim-pressure/anonvma not in 60 s).
 * They run in this order, the slowest last, which gets what the others left.
 */
const struct ci_site_run ci_site_runs[CI_NR_SITE_RUNS] = {
	{ "truncate-race", RMAP_MAINLINE8,
	  FB(FB_PAGE_REFERENCED_FILE_IMMAP) | FB(FB_PAGE_REFERENCED_ONE_PTL) |
	  FB(FB_TRY_TO_UNMAP_FILE_IMMAP) | FB(FB_TRY_TO_UNMAP_CLUSTER_PTL) },
	{ "forkbomb-cow", RMAP_OBJFILE,
	  FB(FB_SHRINK_LIST_PAGE_LOCKED) | FB(FB_TRY_TO_UNMAP_ONE_PTL) },
	{ "reclaim-pressure", RMAP_ANONVMA,
	  FB(FB_PAGE_REFERENCED_ANON_PTL) | FB(FB_TRY_TO_UNMAP_ANON_PTL) },
	{ "many-vmas", RMAP_OBJFILE,
	  FB(FB_PAGE_REFERENCED_OBJ_ISHARED) | FB(FB_PAGE_REFERENCED_OBJ_ONE_PTL) |
	  FB(FB_TRY_TO_UNMAP_OBJ_ISHARED) | FB(FB_TRY_TO_UNMAP_OBJ_ONE_PTL) },
};

/* The sites @c must fire if it is a site run of build @site_build; else 0. */
static uint32_t config_sites(const struct ci_config *c, int site_build)
{
	if (c->build != site_build || c->sched != RT_SCHED_FREE)
		return 0;
	for (int i = 0; i < CI_NR_SITE_RUNS; i++)
		if (!strcmp(ci_site_runs[i].scenario, c->scenario->name) &&
		    ci_site_runs[i].mode == c->mode)
			return ci_site_runs[i].sites;
	return 0;
}

double ci_overhead_est(const struct ci_gate *g, int b)
{
	double est = ci_builds[b].overhead_s;

	if (g->overhead_n[b])
		est = g->overhead_sum[b] / g->overhead_n[b];
	return est < 0.1 ? 0.1 : est;
}

const char *ci_state_name(enum ci_state s)
{
	switch (s) {
	case CI_PLANNED: return "planned";
	case CI_SKIPPED: return "skipped";
	case CI_PASS: return "pass";
	case CI_FAIL: return "fail";
	case CI_ERROR: return "error";
	case CI_NR_STATES: break;
	}
	return "?";
}

int ci_state_by_name(const char *name)
{
	for (int s = 0; s < CI_NR_STATES; s++)
		if (!strcmp(ci_state_name((enum ci_state)s), name))
			return s;
	return -1;
}

void ci_config_name(const struct ci_config *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", c->scenario->name, rmap_mode_name(c->mode));
}

const char *ci_xstate_name(enum ci_xstate s)
{
	switch (s) {
	case CI_X_PLANNED: return "not-run";
	case CI_X_EXHAUSTED: return "exhausted";
	case CI_X_CUT: return "cut";
	case CI_X_FAILED: return "failed";
	case CI_X_ERROR: return "error";
	case CI_X_NR_STATES: break;
	}
	return "?";
}

int ci_xstate_by_name(const char *name)
{
	for (int s = 0; s < CI_X_NR_STATES; s++)
		if (!strcmp(ci_xstate_name((enum ci_xstate)s), name))
			return s;
	return -1;
}

int ci_build_by_name(const char *name)
{
	for (int b = 0; b < CI_NR_BUILDS; b++)
		if (!strcmp(ci_builds[b].name, name))
			return b;
	return -1;
}


void ci_make_configs(struct ci_gate *g)
{
	const struct ci_opts *o = &g->o;
	int S = o->nr_scenarios, R = o->nr_modes, K = o->nr_scheds, C = R * K;
	int per_build = S * C, index = 0;

	g->cfgs = rt_calloc((size_t)(per_build * CI_NR_BUILDS) + 1, sizeof(*g->cfgs));
	/* A restricted gate judges no coverage: it needs no site runs. */
	g->site_build = -1;
	for (int b = 0; b < CI_NR_BUILDS && !o->filtered; b++)
		if (o->build_on[b]) {
			g->site_build = b;
			break;
		}
	for (int b = 0; b < CI_NR_BUILDS; b++) {
		if (!o->build_on[b])
			continue;
		for (int p = 0; p < per_build; p++, index++) {
			int j = p / S, s = p % S, comb = (j + s) % C;
			const struct rt_scenario *sc = o->scenarios[s];
			struct ci_config *c;

			if (index % o->shard_n != o->shard_i - 1)
				continue;
			c = &g->cfgs[g->nr_cfgs++];
			c->index = index;
			c->build = b;
			c->scenario = sc;
			c->mode = o->modes[comb % R];
			c->sched = o->scheds[(comb / R) % K];
			c->seed = rt_mix64(o->seed ^ rt_mix64((uint64_t)index + 1));
			c->threads = sc->default_threads;
			if (ci_builds[b].max_threads && c->threads > ci_builds[b].max_threads)
				c->threads = ci_builds[b].max_threads;
			c->reclaim_threads = sc->default_reclaim_threads;
			c->sites = config_sites(c, g->site_build);
			g->nr_sites += c->sites != 0;
			c->state = CI_SKIPPED;
			snprintf(c->dir, sizeof(c->dir), "%s/%s-%s-%s-%s", o->out_dir,
				 ci_builds[b].name, rt_sched_name(c->sched), sc->name,
				 rmap_mode_name(c->mode));
			g->nr_build[b]++;
		}
	}
	g->nr_all = index;
}

double ci_min_cost(int b)
{
	return ci_builds[b].min_s + ci_builds[b].overhead_s;
}

double ci_site_cost(int b)
{
	return ci_builds[b].site_s + ci_builds[b].overhead_s;
}

/*
 * The usable part of @budget and each build's share of it (0: a build
 * that cannot pay for one configuration gave it away, the dearest first).
 * Return: the usable budget; @all_on: no build gave its share away.
 */
static double plan_usable(double budget)
{
	return budget >= 20 ? budget - 1.0 : budget * 0.95;
}

/* Split @usable seconds between the builds (plan_shares()). */
static void split_usable(const struct ci_gate *g, double usable, double share[CI_NR_BUILDS],
			 bool *all_on)
{
	bool on[CI_NR_BUILDS];
	bool changed = true;

	*all_on = true;
	for (int b = 0; b < CI_NR_BUILDS; b++)
		on[b] = g->nr_build[b] > 0;
	while (changed) {
		double total = 0;

		changed = false;
		for (int b = 0; b < CI_NR_BUILDS; b++)
			total += on[b] ? ci_builds[b].share : 0;
		for (int b = 0; b < CI_NR_BUILDS; b++)
			share[b] = on[b] && total > 0 ? usable * ci_builds[b].share / total : 0;
		for (int b = 0; b < CI_NR_BUILDS; b++) {
			if (on[b] && share[b] < ci_min_cost(b)) {
				/* Drop the dearest such build first, then look again. */
				int worst = b;

				for (int k = b + 1; k < CI_NR_BUILDS; k++)
					if (on[k] && share[k] < ci_min_cost(k) &&
					    ci_min_cost(k) - share[k] > ci_min_cost(worst) - share[worst])
						worst = k;
				on[worst] = false;
				*all_on = false;
				changed = true;
				break;
			}
		}
	}
}

static double plan_shares(const struct ci_gate *g, double budget, double share[CI_NR_BUILDS],
			  bool *all_on)
{
	double usable = plan_usable(budget);

	split_usable(g, usable, share, all_on);
	return usable;
}

/* Does @share pay every site run of this shard its bound? */
static bool pays_sites(const struct ci_gate *g, const double share[CI_NR_BUILDS])
{
	if (g->site_build < 0 || !g->nr_sites)
		return true;
	return share[g->site_build] >= g->nr_sites * ci_site_cost(g->site_build) - 1e-9;
}

int ci_plan_min_budget(const struct ci_gate *g)
{
	double share[CI_NR_BUILDS], last_short = 0;
	bool all_on;

	if (g->site_build < 0 || !g->nr_sites)
		return 0;
	/*
	 * Shares grow with the budget once no build gives its share away;
	 * below that, a build dropped can raise the others': so every budget
	 * up to the first that pays with every build on is tried.
	 */
	for (int tenths = 1; tenths < 100000000; tenths++) {
		plan_shares(g, tenths / 10.0, share, &all_on);
		if (!pays_sites(g, share))
			last_short = tenths / 10.0;
		else if (all_on)
			break;
	}
	return (int)floor(last_short) + 1;
}

void ci_xcell_name(const struct ci_xcell *x, char *buf, size_t len)
{
	snprintf(buf, len, "%s,%s", rt_fixed_op_name(x->ops[0]), rt_fixed_op_name(x->ops[1]));
}

static int gcd(int a, int b)
{
	while (b) {
		int t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* The rotation's stride over @n cells: near n / phi, prime to n (a bijection). */
static int explore_stride(int n)
{
	int s = (int)(n * 0.6180339887);

	if (s < 1)
		s = 1;
	while (gcd(s, n) != 1)
		s++;
	return s;
}

int ci_explore_cells(const struct ci_opts *o, struct ci_xcell *out)
{
	static int pairs[CI_EXPLORE_MAX_PAIRS][2];
	const struct rt_scenario *sc = NULL;
	int nr_pairs, n, stride;

	for (int i = 0; i < o->nr_scenarios; i++)
		if (!strcmp(o->scenarios[i]->name, CI_EXPLORE_SCENARIO))
			sc = o->scenarios[i];
	if (!sc)
		return 0;
	nr_pairs = rt_explore_pairs_kswapd(sc->weights, WL_NR_OPS, RT_OP_KSWAPD, pairs,
					   CI_EXPLORE_MAX_PAIRS);
	n = nr_pairs * o->nr_modes;
	stride = explore_stride(n);
	for (int p = 0; out && p < n; p++) {
		int id = (int)((long long)p * stride % n);

		out[p] = (struct ci_xcell){
			.pos = p, .id = id, .mode = o->modes[id / nr_pairs],
			.ops = { pairs[id % nr_pairs][0], pairs[id % nr_pairs][1] },
		};
	}
	return n;
}

/*
 * Measured on a 2-core machine at load 3-12 (explore -S mixed32 -k 2, each
 * design's 288 pairs, kswapd's included, every schedule run): 148 to 235 s
 * a design, 0.5 to 0.8 s a pair on average; single pairs from 0.05 s to
 * about 30 s. A shared CI machine is slower: 1 s a pair at K=2. The window
 * is sized on it; a pair that needs more is cut, and says so, or takes
 * what the pairs before it left.
 */
double ci_explore_pair_seconds(int k)
{
	static const double s[CI_EXPLORE_MAX_K + 1] = { 0.05, 0.15, 1.0, 10.0 };

	return s[k < 0 ? 0 : k > CI_EXPLORE_MAX_K ? CI_EXPLORE_MAX_K : k];
}

/*
 * The most of @want seconds that the builds can spare (0.1 s steps): with
 * it taken off @usable, every build that had a share keeps one and the
 * site runs stay paid. Return: the seconds, 0 when under CI_EXPLORE_MIN_S.
 */
static double explore_spare(const struct ci_gate *g, double usable, double want)
{
	double share[CI_NR_BUILDS], base[CI_NR_BUILDS];
	bool all_on, base_on;

	split_usable(g, usable, base, &base_on);
	for (double x = floor(want * 10) / 10; x >= CI_EXPLORE_MIN_S - 1e-9; x -= 0.1) {
		bool kept = true;

		split_usable(g, usable - x, share, &all_on);
		for (int b = 0; b < CI_NR_BUILDS; b++)
			kept &= !base[b] || share[b] >= ci_min_cost(b);
		if (kept && (pays_sites(g, share) || !pays_sites(g, base)))
			return x;
	}
	return 0;
}

/* Explore's share, its window of the rotation, this shard's cells (g->x). */
static void plan_explore(struct ci_gate *g)
{
	struct ci_explore *x = &g->x;
	const struct ci_opts *o = &g->o;
	struct ci_xcell *all;
	int w, start;

	free(x->cells);		/* a gate planned again (zeroed by its allocation first) */
	memset(x, 0, sizeof(*x));
	x->nr_all = ci_explore_cells(o, NULL);
	if (o->explore_share <= 0) {
		snprintf(x->note, sizeof(x->note), "off (--no-explore)");
		return;
	}
	if (!x->nr_all) {
		snprintf(x->note, sizeof(x->note), "none: the gate's scenarios leave out %s, whose"
			 " operations explore pairs", CI_EXPLORE_SCENARIO);
		return;
	}
	if (!o->build_on[0]) {
		snprintf(x->note, sizeof(x->note), "none: explore runs in the plain build, which"
			 " --builds leaves out");
		return;
	}
	if (o->nr_inject > 1) {
		snprintf(x->note, sizeof(x->note), "none: explore takes one seeded bug, not %d",
			 o->nr_inject);
		return;
	}
	x->share = explore_spare(g, plan_usable(o->budget), o->explore_share * plan_usable(o->budget));
	if (x->share <= 0) {
		snprintf(x->note, sizeof(x->note), "none: the budget cannot spare %.0f s for explore"
			 " beyond the builds' minimum and the site runs", CI_EXPLORE_MIN_S);
		return;
	}
	x->scenario = wl_find(CI_EXPLORE_SCENARIO);
	x->pair_s = ci_explore_pair_seconds(o->explore_k);
	w = (int)floor(x->share / x->pair_s);
	if (w < 1)
		w = 1;
	x->per_gate = w * o->shard_n;
	if (x->per_gate > x->nr_all)
		x->per_gate = x->nr_all;
	x->rotations = (x->nr_all + x->per_gate - 1) / x->per_gate;
	x->block = (int)((o->seed % (uint64_t)x->rotations + (uint64_t)x->rotations - 1) %
			 (uint64_t)x->rotations);
	start = x->block * x->per_gate;
	all = rt_calloc((size_t)x->nr_all, sizeof(*all));
	ci_explore_cells(o, all);
	x->cells = rt_calloc((size_t)w + 1, sizeof(*x->cells));
	/* This shard's positions of the window, in order. */
	for (int m = 0; m < o->nr_modes; m++)
		for (int j = 0; j < x->per_gate; j++) {
			const struct ci_xcell *c = &all[(start + j) % x->nr_all];

			/* Grouped by design, one explore child each; in window order within. */
			if (j % o->shard_n == o->shard_i - 1 && c->mode == o->modes[m])
				x->cells[x->nr_cells++] = *c;
		}
	free(all);
}

void ci_plan(struct ci_gate *g)
{
	bool all_on;

	plan_explore(g);
	g->usable = plan_usable(g->o.budget);
	split_usable(g, g->usable - g->x.share, g->share, &all_on);
	g->sites_paid = pays_sites(g, g->share);
	for (int b = 0; b < CI_NR_BUILDS; b++) {
		int n = g->nr_build[b], nf = 0, k, kr, m, start, pos = 0;
		/* The site runs first, when the share pays each its bound. */
		int ns = b == g->site_build && g->sites_paid ? g->nr_sites : 0;
		double even;
		bool ff;

		k = (int)floor(g->share[b] / ci_min_cost(b));
		if (k > n)
			k = n;
		kr = k - ns;
		for (int i = 0; i < g->nr_cfgs; i++)
			nf += g->cfgs[i].build == b && g->cfgs[i].sched == RT_SCHED_FREE &&
			      !(ns && g->cfgs[i].sites);
		/*
		 * When the window would leave some out but every free
		 * configuration fits, all of those run and the window turns
		 * over the others: every scenario runs in every design at full
		 * concurrency, where trylocks meet their busy locks, in every
		 * gate, whatever the seed (a serialising schedule fires few
		 * fallbacks).
		 */
		ff = kr < n - ns && nf > 0 && nf <= kr;
		m = ff ? n - ns - nf : n - ns;
		g->nr_selected[b] = k;
		g->free_first[b] = ff;
		start = m ? (int)(rt_mix64(g->o.seed + (uint64_t)b) % (uint64_t)m) : 0;
		if (kr == n - ns)
			start = 0;
		g->window_start[b] = start;
		even = k ? g->share[b] / k - ci_builds[b].overhead_s : 0;
		for (int i = 0; i < g->nr_cfgs; i++) {
			struct ci_config *c = &g->cfgs[i];
			bool free_run = c->sched == RT_SCHED_FREE;

			if (c->build != b)
				continue;
			if (ns && c->sites) {
				c->selected = true;
			} else if (ff && free_run) {
				c->selected = true;
			} else {
				/* Positions start .. start + w - 1, wrapping. */
				c->selected = (pos - start + m) % m < (ff ? kr - nf : kr);
				pos++;
			}
			if (c->selected) {
				c->state = CI_PLANNED;
				c->seconds = ns && c->sites && even < ci_builds[b].site_s ?
					     ci_builds[b].site_s : even;
			} else if (k) {
				snprintf(c->skip_reason, sizeof(c->skip_reason),
					 "not selected: the budget runs %d of the %d %s configurations"
					 " of this shard (%s%sa window that --seed rotates)",
					 k, n, ci_builds[b].name, ns ? "the site runs, " : "",
					 ff ? "every free one, and of the others " : "");
			} else {
				snprintf(c->skip_reason, sizeof(c->skip_reason),
					 "not selected: the budget cannot pay for one %s configuration"
					 " (%.1f s each)", ci_builds[b].name, ci_min_cost(b));
			}
		}
	}
}

int ci_plan_order(const struct ci_gate *g, int b, int *order)
{
	int n = 0;

	for (int r = 0; r < CI_NR_SITE_RUNS; r++)
		for (int i = 0; i < g->nr_cfgs; i++) {
			const struct ci_config *c = &g->cfgs[i];

			if (c->build == b && c->selected && c->sites == ci_site_runs[r].sites)
				order[n++] = i;
		}
	for (int i = 0; i < g->nr_cfgs; i++) {
		const struct ci_config *c = &g->cfgs[i];

		if (c->build == b && c->selected && !c->sites)
			order[n++] = i;
	}
	return n;
}

int ci_plan_selected(const struct ci_gate *g, double *cheapest)
{
	int sel = 0;

	*cheapest = 1e30;
	for (int b = 0; b < CI_NR_BUILDS; b++) {
		sel += g->nr_selected[b];
		if (g->nr_build[b] && ci_min_cost(b) < *cheapest)
			*cheapest = ci_min_cost(b);
	}
	return sel;
}

double ci_child_seconds(const struct ci_gate *g, int b, double now, double build_end,
			bool last, int left, bool site)
{
	const struct ci_build *cb = &ci_builds[b];
	double oh = ci_overhead_est(g, b), t = (build_end - now) / left - oh;

	if (t < (site ? cb->site_s : cb->min_s))
		t = site ? cb->site_s : cb->min_s;
	t = floor(t * 10) / 10;
	/* Past the build's deadline by more than a quarter of one: its share is spent. */
	if (now + t + oh > (last ? build_end : build_end + 0.25 * (cb->min_s + oh)))
		return -1;
	return t;
}

double ci_site_seconds(const struct ci_gate *g, int b, double t, double now, double sites_end,
		       int sites_left)
{
	double pool = (sites_end - now) / sites_left - ci_overhead_est(g, b);

	pool = floor(pool * 10) / 10;
	return t < 0 || pool <= t ? t : pool;
}

json_t *ci_gate_identity(const struct ci_opts *o)
{
	json_t *builds = json_array(), *scenarios = json_array(), *rmaps = json_array();
	json_t *scheds = json_array(), *inject = json_array();
	char seed[32];

	for (int b = 0; b < CI_NR_BUILDS; b++)
		if (o->build_on[b])
			json_array_append_new(builds, json_string(ci_builds[b].name));
	for (int i = 0; i < o->nr_scenarios; i++)
		json_array_append_new(scenarios, json_string(o->scenarios[i]->name));
	for (int i = 0; i < o->nr_modes; i++)
		json_array_append_new(rmaps, json_string(rmap_mode_name(o->modes[i])));
	for (int i = 0; i < o->nr_scheds; i++)
		json_array_append_new(scheds, json_string(rt_sched_name(o->scheds[i])));
	for (int i = 0; i < o->nr_inject; i++)
		json_array_append_new(inject, json_string(o->inject[i]));
	snprintf(seed, sizeof(seed), "%" PRIu64, o->seed);
	return json_pack("{s:s, s:f, s:i, s:o, s:o, s:o, s:o, s:o, s:b, s:f, s:i}",
			 "seed", seed, "budget", o->budget, "shards", o->shard_n,
			 "builds", builds, "scenarios", scenarios, "rmaps", rmaps,
			 "scheds", scheds, "inject", inject, "filtered", o->filtered,
			 "explore_share", o->explore_share, "explore_k", o->explore_k);
}
