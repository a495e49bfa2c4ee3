// SPDX-License-Identifier: MIT
/*
 * The merge gate's plan (ci_plan.h): the builds, the configurations in the
 * fixed order, the budget split and the windows, each child's run time.
 * Pure: no I/O, no child processes, no clock (the caller passes it).
 * The budget rule and the fixed order are stated in cmd_ci.c's header.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "die.h"
#include "ci_plan.h"

/*
 * The slack is the build's hang watchdog (RT_WATCHDOG_DEFAULT) and a margin, so
 * that a hang is reported by the run itself, with its holders named,
 * before the gate kills it.
 */
const struct ci_build ci_builds[CI_NR_BUILDS] = {
	{ "plain", 0.50, 1.5, 0.5, 0, 35 },
	{ "tsan", 0.30, 4.0, 2.5, 8, 135 },
	{ "asan", 0.20, 2.5, 0.7, 0, 75 },
};

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

int ci_build_by_name(const char *name)
{
	for (int b = 0; b < CI_NR_BUILDS; b++)
		if (!strcmp(ci_builds[b].name, name))
			return b;
	return -1;
}


uint64_t ci_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void ci_make_configs(struct ci_gate *g)
{
	const struct ci_opts *o = &g->o;
	int S = o->nr_scenarios, R = o->nr_modes, K = o->nr_scheds, C = R * K;
	int per_build = S * C, index = 0;

	g->cfgs = rt_calloc((size_t)(per_build * CI_NR_BUILDS) + 1, sizeof(*g->cfgs));
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
			c->seed = ci_mix64(o->seed ^ ci_mix64((uint64_t)index + 1));
			c->threads = sc->default_threads;
			if (ci_builds[b].max_threads && c->threads > ci_builds[b].max_threads)
				c->threads = ci_builds[b].max_threads;
			c->reclaim_threads = sc->default_reclaim_threads;
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

void ci_plan(struct ci_gate *g)
{
	bool on[CI_NR_BUILDS];
	bool changed = true;

	g->usable = g->o.budget >= 20 ? g->o.budget - 1.0 : g->o.budget * 0.95;
	for (int b = 0; b < CI_NR_BUILDS; b++)
		on[b] = g->nr_build[b] > 0;
	while (changed) {
		double total = 0;

		changed = false;
		for (int b = 0; b < CI_NR_BUILDS; b++)
			total += on[b] ? ci_builds[b].share : 0;
		for (int b = 0; b < CI_NR_BUILDS; b++)
			g->share[b] = on[b] && total > 0 ? g->usable * ci_builds[b].share / total : 0;
		for (int b = 0; b < CI_NR_BUILDS; b++) {
			if (on[b] && g->share[b] < ci_min_cost(b)) {
				/* Drop the dearest such build first, then look again. */
				int worst = b;

				for (int k = b + 1; k < CI_NR_BUILDS; k++)
					if (on[k] && g->share[k] < ci_min_cost(k) &&
					    ci_min_cost(k) - g->share[k] > ci_min_cost(worst) - g->share[worst])
						worst = k;
				on[worst] = false;
				changed = true;
				break;
			}
		}
	}
	for (int b = 0; b < CI_NR_BUILDS; b++) {
		int n = g->nr_build[b], nf = 0, k, m, start, pos = 0;
		bool ff;

		k = on[b] ? (int)floor(g->share[b] / ci_min_cost(b)) : 0;
		if (k > n)
			k = n;
		for (int i = 0; i < g->nr_cfgs; i++)
			nf += g->cfgs[i].build == b && g->cfgs[i].sched == RT_SCHED_FREE;
		/*
		 * When the window would leave some out but every free
		 * configuration fits, all of those run and the window turns
		 * over the others: every scenario runs in every design at full
		 * concurrency, where trylocks meet their busy locks, in every
		 * gate, whatever the seed (a serialising schedule fires few
		 * fallbacks, and a gate whose window missed a scenario's free
		 * runs could miss a site).
		 */
		ff = k < n && nf > 0 && nf <= k;
		m = ff ? n - nf : n;
		g->nr_selected[b] = k;
		g->free_first[b] = ff;
		start = m ? (int)(ci_mix64(g->o.seed + (uint64_t)b) % (uint64_t)m) : 0;
		if (k == n)
			start = 0;
		g->window_start[b] = start;
		for (int i = 0; i < g->nr_cfgs; i++) {
			struct ci_config *c = &g->cfgs[i];
			bool free_run = c->sched == RT_SCHED_FREE;

			if (c->build != b)
				continue;
			if (ff && free_run) {
				c->selected = true;
			} else {
				/* Positions start .. start + w - 1, wrapping. */
				c->selected = (pos - start + m) % m < (ff ? k - nf : k);
				pos++;
			}
			if (c->selected) {
				c->state = CI_PLANNED;
				c->seconds = g->share[b] / k - ci_builds[b].overhead_s;
			} else if (k) {
				snprintf(c->skip_reason, sizeof(c->skip_reason),
					 "not selected: the budget runs %d of the %d %s configurations"
					 " of this shard (%sa window that --seed rotates)",
					 k, n, ci_builds[b].name,
					 ff ? "every free one, and of the others " : "");
			} else {
				snprintf(c->skip_reason, sizeof(c->skip_reason),
					 "not selected: the budget cannot pay for one %s configuration"
					 " (%.1f s each)", ci_builds[b].name, ci_min_cost(b));
			}
		}
	}
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
			bool last, int left)
{
	const struct ci_build *cb = &ci_builds[b];
	double oh = ci_overhead_est(g, b), t = (build_end - now) / left - oh;

	if (t < cb->min_s)
		t = cb->min_s;
	t = floor(t * 10) / 10;
	/* Past the build's deadline by more than a quarter of one: its share is spent. */
	if (now + t + oh > (last ? build_end : build_end + 0.25 * (cb->min_s + oh)))
		return -1;
	return t;
}
