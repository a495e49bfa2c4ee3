// SPDX-License-Identifier: MIT
/*
 * The merge gate's explore share (ci_run_gate() runs it first): the
 * gate's explore cells, one `explore` child of the plain build per design
 * (rt_try_run()), each given its cells' part of the share; each cell
 * judged from the child's artifacts and its explore.json; the cells the
 * even split cut run again with what the others left.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "die.h"
#include "rt_child.h"
#include "rt_opt.h"
#include "rt_time.h"
#include "ci-internal.h"

/* `explore` over @n cells from @x, all of one design, for @budget seconds. */
static json_t *explore_args(const struct ci_gate *g, const struct ci_xcell *x, int n,
			    double budget)
{
	json_t *a = json_array();
	char num[64];

#define ADD(s) json_array_append_new(a, json_string(s))
	ADD("explore");
	ADD("--scenario");
	ADD(g->x.scenario->name);
	ADD("--rmap");
	ADD(rmap_mode_name(x->mode));
	ADD("--preemptions");
	snprintf(num, sizeof(num), "%d", g->o.explore_k);
	ADD(num);
	ADD("--budget");
	snprintf(num, sizeof(num), "%.1f", budget);
	ADD(num);
	ADD("--even-budget");
	for (int i = 0; i < n; i++) {
		ci_xcell_name(&x[i], num, sizeof(num));
		ADD("--ops");
		ADD(num);
	}
	if (g->o.nr_inject) {
		ADD("--inject");
		ADD(g->o.inject[0]);
	}
#undef ADD
	return a;
}

/* The value after @opt in an artifact's "args", or NULL. */
static const char *art_arg(const json_t *art, const char *opt)
{
	const json_t *args = json_object_get(art, "args");

	for (size_t i = 0; i + 1 < json_array_size(args); i++)
		if (!strcmp(json_string_value(json_array_get(args, i)) ?: "", opt))
			return json_string_value(json_array_get(args, i + 1));
	return NULL;
}

/* Each failure artifact to its cell: --fixed-ops and --rmap name it. */
static void explore_artifacts(struct ci_xcell *x, int n, const json_t *arts)
{
	const json_t *a;
	size_t k;

	json_array_foreach(arts, k, a) {
		const json_t *art = json_object_get(a, "artifact");
		const char *fixed = art_arg(art, "--fixed-ops"), *design = art_arg(art, "--rmap");
		char ops[64];

		for (int i = 0; fixed && design && i < n; i++) {
			ci_xcell_name(&x[i], ops, sizeof(ops));
			if (x[i].failure || strcmp(ops, fixed) || strcmp(design, rmap_mode_name(x[i].mode)))
				continue;
			x[i].state = CI_X_FAILED;
			x[i].failure = json_pack("{s:s, s:s?, s:s?, s:s?}",
				"signature", json_string_value(json_object_get(a, "signature")) ?: "?",
				"decisions", art_arg(art, "--decisions"),
				"artifact", json_string_value(json_object_get(a, "path")),
				"reproduce", json_string_value(json_object_get(art, "reproduce")));
			break;
		}
	}
}

/* The cells of explore's record (explore.json in @dir): schedules, exhausted or cut. */
static bool explore_record(struct ci_xcell *x, int n, const char *dir)
{
	char path[4200], ops[64];
	json_t *rec, *p;
	size_t k;

	snprintf(path, sizeof(path), "%s/explore.json", dir);
	rec = json_load_file(path, 0, NULL);
	if (!rec)
		return false;
	json_array_foreach(json_object_get(rec, "pairs"), k, p) {
		const json_t *o = json_object_get(p, "ops");

		snprintf(ops, sizeof(ops), "%s,%s", json_string_value(json_array_get(o, 0)) ?: "",
			 json_string_value(json_array_get(o, 1)) ?: "");
		for (int i = 0; i < n; i++) {
			char mine[64];

			ci_xcell_name(&x[i], mine, sizeof(mine));
			if (strcmp(mine, ops) || x[i].schedules)
				continue;
			x[i].schedules = (long long)json_integer_value(json_object_get(p, "schedules"));
			x[i].pruned = (long long)json_integer_value(json_object_get(p, "pruned"));
			x[i].seconds = json_number_value(json_object_get(p, "seconds"));
			if (x[i].state == CI_X_FAILED || json_is_true(json_object_get(p, "failed"))) {
				x[i].state = CI_X_FAILED;
				if (!x[i].failure)
					x[i].failure = json_pack("{s:s, s:s}", "signature",
						json_string_value(json_object_get(json_object_get(p,
							"failure"), "signature")) ?: "?",
						"decisions", json_string_value(json_object_get(
							json_object_get(p, "failure"), "decisions")) ?: "");
			} else {
				x[i].state = json_is_true(json_object_get(p, "exhausted")) ?
					     CI_X_EXHAUSTED : CI_X_CUT;
			}
			break;
		}
	}
	json_decref(rec);
	return true;
}

static void print_cell(const struct ci_gate *g, const struct ci_xcell *x)
{
	char ops[64];

	ci_xcell_name(x, ops, sizeof(ops));
	printf("ci explore %-9s %-22s %-9s %7lld schedules (%lld pruned) %6.2f s%s\n",
	       rmap_mode_name(x->mode), ops, ci_xstate_name(x->state), x->schedules, x->pruned,
	       x->seconds, x->state == CI_X_EXHAUSTED ? "  (a proof for this world and K, no stronger)"
	       : x->state == CI_X_PLANNED ? "  (the budget ran out first)" : "");
	if (x->state == CI_X_FAILED) {
		const char *art = json_string_value(json_object_get(x->failure, "artifact"));
		const char *repro = json_string_value(json_object_get(x->failure, "reproduce"));

		printf("    %s, decisions %s\n", json_string_value(json_object_get(x->failure,
		       "signature")), json_string_value(json_object_get(x->failure, "decisions")) ?: "?");
		printf("      artifact:  %s\n", art ? art : "(none: see the log)");
		printf("      reproduce: %s\n", repro ? repro : "(see the log)");
	}
	(void)g;
}

/* The cells of @x (@n) still planned, from the first. */
static int first_planned(const struct ci_xcell *x, int n)
{
	int i = 0;

	while (i < n && x[i].state != CI_X_PLANNED)
		i++;
	return i;
}

/*
 * One explore child: @n cells from @x, one design, until @end (@nr names
 * its directory). Explore runs its pairs in order; a BUG that leaves the
 * model unusable ends the child (an abort, or exit 1 before its record)
 * with its artifact written and the pairs after it not run.
 * Return: 1 when the child ended early having settled some cells (run
 * the rest in another), 0 when this design is done (the rest, if any,
 * found no time), -1 when the gate must stop.
 */
static int explore_child(struct ci_gate *g, struct ci_xcell *x, int n, double end, int nr)
{
	const struct ci_build *cb = &ci_builds[0];
	double budget = floor((end - rt_now_s() - ci_overhead_est(g, 0)) * 10) / 10;
	struct rt_try_config cfg;
	struct rt_try_result res;
	char dir[4200], verdict[128];
	bool record, early;
	json_t *args;
	int rc, settled;

	if (budget < 0.5)
		return 0;	/* the cells stay not-run: the budget ran out */
	snprintf(dir, sizeof(dir), "%s/explore-%d-%s", g->o.out_dir, nr, rmap_mode_name(x->mode));
	rt_remove_tree(dir);
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "rmaptorture: ci: cannot create %s: %s\n", dir, strerror(errno));
		return -1;
	}
	args = explore_args(g, x, n, budget);
	cfg = (struct rt_try_config){
		.binary = g->binary[0], .build = cb->name, .workdir = dir,
		.timeout_s = budget + 3 * ci_overhead_est(g, 0) + cb->slack_s,
	};
	rc = rt_try_run(&cfg, args, "", NULL, 1, &res);
	json_decref(args);
	g->x.wall += res.seconds;
	if (rc == RT_CHILD_INTERRUPTED || res.rc == RT_EXIT_INTERRUPTED) {
		g->interrupted = true;
		rt_try_release(&res);
		return -1;
	}
	explore_artifacts(x, n, res.artifacts);
	record = rc != RT_CHILD_ERROR && explore_record(x, n, res.dir);
	settled = first_planned(x, n);
	early = !record || (res.rc != RT_EXIT_OK && res.rc != RT_EXIT_FAILURE);
	if (early && (!settled || res.rc == RT_EXIT_USAGE || rc == RT_CHILD_ERROR)) {
		/* It settled nothing: the rest cannot run either. */
		rt_child_rc_str(res.rc, verdict, sizeof(verdict));
		for (int i = settled; i < n; i++) {
			x[i].state = CI_X_ERROR;
			x[i].failure = json_pack("{s:s, s:s}", "signature", verdict,
						 "artifact", res.dir);
		}
		if (res.rc == RT_EXIT_USAGE) {
			rt_try_first_line(&res, g->usage_line, sizeof(g->usage_line));
			g->usage_rc = RT_EXIT_USAGE;
		}
		settled = n;
	}
	for (int i = 0; i < n; i++)
		if (x[i].state != CI_X_PLANNED)
			print_cell(g, &x[i]);
	fflush(stdout);
	rt_try_release(&res);
	if (g->usage_rc)
		return -1;
	return early && settled < n;
}

/*
 * The cells the even split cut, again from the start, with what the
 * others left of the share (one child per design): a pair cut at its
 * slice while the pairs after it took less is exhausted here. A cell
 * keeps the longer of its two tries.
 */
static void explore_again(struct ci_gate *g, double end)
{
	struct ci_explore *x = &g->x;
	struct ci_xcell *tmp = rt_calloc((size_t)x->nr_cells + 1, sizeof(*tmp));
	int *idx = rt_calloc((size_t)x->nr_cells + 1, sizeof(*idx)), left = 0, nr = 1000;

	for (int i = 0; i < x->nr_cells; i++)
		left += x->cells[i].state == CI_X_CUT;
	for (int m = 0; m < g->o.nr_modes && left && !rt_child_interrupted(); m++) {
		double now = rt_now_s();
		int n = 0, rc;

		for (int i = 0; i < x->nr_cells; i++)
			if (x->cells[i].state == CI_X_CUT && x->cells[i].mode == g->o.modes[m]) {
				idx[n] = i;
				tmp[n] = x->cells[i];
				tmp[n].state = CI_X_PLANNED;
				tmp[n].schedules = tmp[n].pruned = 0;
				tmp[n].seconds = 0;
				tmp[n].failure = NULL;
				n++;
			}
		if (!n)
			continue;
		rc = explore_child(g, tmp, n, now + (end - now) * n / left, nr++);
		left -= n;
		for (int k = 0; k < n; k++) {
			struct ci_xcell *c = &x->cells[idx[k]];

			if (tmp[k].state == CI_X_PLANNED ||
			    (tmp[k].state == CI_X_CUT && tmp[k].schedules <= c->schedules)) {
				json_decref(tmp[k].failure);
				continue;
			}
			json_decref(c->failure);
			*c = tmp[k];
		}
		if (rc < 0)
			break;
	}
	free(idx);
	free(tmp);
}

/* Explore's share: the children of each design's cells in turn, until @end. */
void ci_run_explore(struct ci_gate *g, double end)
{
	struct ci_explore *x = &g->x;
	int nr = 0, rc = 0;

	for (int i = 0; i < x->nr_cells && rc >= 0 && !rt_child_interrupted();) {
		int n = 1, k = 0;

		while (i + n < x->nr_cells && x->cells[i + n].mode == x->cells[i].mode)
			n++;
		do {
			double now = rt_now_s();

			k += first_planned(&x->cells[i + k], n - k);
			if (k == n)
				break;
			/* These cells' part of what is left. */
			rc = explore_child(g, &x->cells[i + k], n - k,
					   now + (end - now) * (n - k) / (x->nr_cells - i - k), nr++);
		} while (rc > 0 && !rt_child_interrupted());
		i += n;
	}
	if (rc >= 0)
		explore_again(g, end);
	for (int i = 0; i < x->nr_cells; i++)
		if (x->cells[i].state == CI_X_PLANNED)
			print_cell(g, &x->cells[i]);
	if (rt_child_interrupted())
		g->interrupted = true;
}
