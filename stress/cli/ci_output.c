// SPDX-License-Identifier: MIT
/*
 * The merge gate's output, however it was filled (run here by `ci`, or
 * read back from its shards by `ci-merge`): the summary, the JUnit XML
 * and the JSON record.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "engine.h"
#include "inject.h"
#include "junit.h"
#include "record.h"
#include "rt_opt.h"
#include "ci-internal.h"
#include "cover_map.h"

void ci_count_states(const struct ci_gate *g, int n[CI_NR_STATES])
{
	memset(n, 0, CI_NR_STATES * sizeof(int));
	for (int i = 0; i < g->nr_cfgs; i++)
		n[g->cfgs[i].state]++;
}

void ci_count_xstates(const struct ci_gate *g, int n[CI_X_NR_STATES])
{
	memset(n, 0, CI_X_NR_STATES * sizeof(int));
	for (int i = 0; i < g->x.nr_cells; i++)
		n[g->x.cells[i].state]++;
}

static void failures_text(const struct ci_config *c, char *buf, size_t len)
{
	size_t i, n = 0;
	json_t *f;

	buf[0] = '\0';
	json_array_foreach(c->failures, i, f) {
		const char *art = json_string_value(json_object_get(f, "artifact"));

		if (n < len)
			n += (size_t)snprintf(buf + n, len - n,
				"%s %s\n%s\nartifact: %s\nreproduce: %s\n%s%s%s\n",
				json_string_value(json_object_get(f, "kind")),
				json_string_value(json_object_get(f, "signature")),
				json_string_value(json_object_get(f, "message")),
				art ? art : "(none: see the log)",
				json_string_value(json_object_get(f, "reproduce")),
				art ? "replay: rmaptorture replay " : "", art ? art : "",
				art ? "\n" : "");
	}
	if (n < len)
		snprintf(buf + n, len - n, "log: %s/output.log (%s)\n", c->rundir, c->verdict);
}

static void props(struct rt_junit *j, int suite, const struct ci_gate *g)
{
	char v[256];

	snprintf(v, sizeof(v), "%" PRIu64, g->o.seed);
	rt_junit_property(j, suite, "seed", v);
	snprintf(v, sizeof(v), "%g", g->o.budget);
	rt_junit_property(j, suite, "budget", v);
	if (g->merged)
		snprintf(v, sizeof(v), "merged from %d shards", g->merged);
	else
		snprintf(v, sizeof(v), "%d/%d", g->o.shard_i, g->o.shard_n);
	rt_junit_property(j, suite, "shard", v);
	rt_junit_property(j, suite, "version", rt_version());
}

/* One testcase per explored cell: exhausted passes, cut and not run are skipped. */
static void explore_junit(struct rt_junit *j, const struct ci_gate *g)
{
	char name[64], cls[64], out[512], text[4096], msg[256];
	int suite;

	if (!g->x.nr_cells)
		return;
	suite = rt_junit_suite(j, "rmaptorture.explore");
	if (suite < 0)
		rt_die("out of memory");
	props(j, suite, g);
	for (int i = 0; i < g->x.nr_cells; i++) {
		const struct ci_xcell *x = &g->x.cells[i];
		const json_t *f = x->failure;
		enum rt_junit_result r = RT_JUNIT_PASS;
		const char *m = NULL, *type = NULL;

		ci_xcell_name(x, name, sizeof(name));
		snprintf(cls, sizeof(cls), "rmaptorture.explore.%s", rmap_mode_name(x->mode));
		snprintf(out, sizeof(out), "cell %d of %d, K=%d: %s, %lld schedules (%lld pruned),"
			 " %.2f s\n", x->pos, g->x.nr_all, g->o.explore_k, ci_xstate_name(x->state),
			 x->schedules, x->pruned, x->seconds);
		text[0] = msg[0] = '\0';
		if (x->state == CI_X_FAILED || x->state == CI_X_ERROR) {
			r = x->state == CI_X_FAILED ? RT_JUNIT_FAILURE : RT_JUNIT_ERROR;
			m = json_string_value(json_object_get(f, "signature"));
			type = x->state == CI_X_FAILED ? "explore" : "internal";
			snprintf(text, sizeof(text), "decisions: %s\nartifact: %s\nreproduce: %s\n",
				 json_string_value(json_object_get(f, "decisions")) ?: "?",
				 json_string_value(json_object_get(f, "artifact")) ?: "(none: see the log)",
				 json_string_value(json_object_get(f, "reproduce")) ?: "(see the log)");
		} else if (x->state == CI_X_CUT) {
			r = RT_JUNIT_SKIPPED;
			snprintf(msg, sizeof(msg), "cut by the budget after %lld schedules: not a proof",
				 x->schedules);
		} else if (x->state == CI_X_PLANNED) {
			r = RT_JUNIT_SKIPPED;
			snprintf(msg, sizeof(msg), "not run: explore's share ran out first");
		}
		if (rt_junit_case(j, suite, cls, name, x->seconds, r, m ? m : msg[0] ? msg : NULL,
				  type, text[0] ? text : NULL, out) < 0)
			rt_die("out of memory");
	}
}

/* Configuration @c of build @b as a test case of @suite. */
static void config_junit(struct rt_junit *j, int suite, const struct ci_config *c, int b)
{
	char text[16384], out[16384];
	char name[128], cls[128];
	enum rt_junit_result r = RT_JUNIT_PASS;
	const char *m = NULL, *type = NULL;

	ci_config_name(c, name, sizeof(name));
	snprintf(cls, sizeof(cls), "rmaptorture.%s.%s", ci_builds[b].name,
		 rt_sched_name(c->sched));
	out[0] = '\0';
	if (c->state != CI_SKIPPED && c->state != CI_PLANNED)
		snprintf(out, sizeof(out),
			 "index %d, seed %" PRIu64 ", run %.1f s, wall %.1f s, %lld ops, %.0f ops/s, %s\n"
			 "command: %s\ndirectory: %s\n", c->index, c->seed, c->seconds,
			 c->wall, c->ops, c->ops_per_sec, c->verdict, c->reproduce,
			 c->rundir);
	text[0] = '\0';
	if (c->state == CI_FAIL || c->state == CI_ERROR) {
		json_t *f0 = json_array_get(c->failures, 0);

		r = c->state == CI_FAIL ? RT_JUNIT_FAILURE : RT_JUNIT_ERROR;
		m = f0 ? json_string_value(json_object_get(f0, "signature")) : c->verdict;
		type = f0 ? json_string_value(json_object_get(f0, "kind")) : "internal";
		failures_text(c, text, sizeof(text));
	} else if (c->state == CI_SKIPPED || c->state == CI_PLANNED) {
		r = RT_JUNIT_SKIPPED;
		m = c->skip_reason;
	}
	if (rt_junit_case(j, suite, cls, name, c->wall, r, m, type,
			  text[0] ? text : NULL, out[0] ? out : NULL) < 0)
		rt_die("out of memory");
}

/* The suite "rmaptorture.coverage": one case per trylock fallback site. */
static void coverage_junit(struct rt_junit *j, const struct ci_gate *g)
{
	char out[256], msg[256];
	const char *key;
	json_t *v;
	int suite = rt_junit_suite(j, "rmaptorture.coverage");

	if (suite < 0)
		rt_die("out of memory");
	props(j, suite, g);
	json_object_foreach(g->coverage, key, v) {
		long long fired = json_integer_value(v);
		long long cfgs = json_integer_value(json_object_get(g->coverage_configs, key));
		enum rt_junit_result r = RT_JUNIT_PASS;

		snprintf(out, sizeof(out), "fired %lld times in %lld configurations\n", fired, cfgs);
		msg[0] = '\0';
		if (!g->coverage_judged) {
			r = RT_JUNIT_SKIPPED;
			snprintf(msg, sizeof(msg), "coverage %s", g->coverage_note);
		} else if (!fired) {
			r = RT_JUNIT_FAILURE;
			snprintf(msg, sizeof(msg), "trylock fallback %s never fired in the whole gate", key);
		}
		if (rt_junit_case(j, suite, "rmaptorture.coverage.trylock_fallback", key, 0, r,
				  msg[0] ? msg : NULL, r == RT_JUNIT_FAILURE ? "coverage" : NULL,
				  r == RT_JUNIT_FAILURE ?
				  "The gate ran every configuration it could in its budget and this"
				  " fallback never fired: the path that copes with the failed trylock"
				  " went unexercised.\n" : NULL, out) < 0)
			rt_die("out of memory");
	}
}

int ci_write_junit(const struct ci_gate *g)
{
	struct rt_junit *j = rt_junit_new("rmaptorture ci");
	char name[128];
	int suite, rc;

	if (!j)
		rt_die("out of memory");
	for (int b = 0; b < CI_NR_BUILDS; b++) {
		if (!g->nr_build[b])
			continue;
		snprintf(name, sizeof(name), "rmaptorture.%s", ci_builds[b].name);
		suite = rt_junit_suite(j, name);
		if (suite < 0)
			rt_die("out of memory");
		props(j, suite, g);
		for (int i = 0; i < g->nr_cfgs; i++)
			if (g->cfgs[i].build == b)
				config_junit(j, suite, &g->cfgs[i], b);
	}
	explore_junit(j, g);
	coverage_junit(j, g);
	rc = rt_junit_write(j, g->o.junit);
	rt_junit_free(j);
	return rc;
}

int ci_write_json(const struct ci_gate *g, int exit_code)
{
	json_t *rec = rt_record_new("ci"), *configs = json_array(), *results = json_array();
	json_t *cmd = json_array(), *shares = json_object(), *never = json_array(), *v;
	const char *key;
	char seed[32];
	int n[CI_NR_STATES], rc;

	for (int i = 0; i < g->o.argc; i++)
		json_array_append_new(cmd, json_string(g->o.argv[i]));
	for (int i = 0; i < g->nr_cfgs; i++) {
		const struct ci_config *c = &g->cfgs[i];
		char s[32];

		snprintf(s, sizeof(s), "%" PRIu64, c->seed);
		json_array_append_new(configs, json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:b}",
			"index", c->index, "build", ci_builds[c->build].name,
			"sched", rt_sched_name(c->sched), "scenario", c->scenario->name,
			"rmap", rmap_mode_name(c->mode), "seed", s, "threads", c->threads,
			"reclaim_threads", c->reclaim_threads, "selected", c->selected));
		json_array_append_new(results, json_pack(
			"{s:i, s:s, s:s?, s:f, s:f, s:s, s:I, s:f, s:O?, s:O?, s:O?, s:s, s:s}",
			"index", c->index, "result", ci_state_name(c->state),
			"skip_reason", c->state == CI_SKIPPED || c->state == CI_PLANNED ?
				c->skip_reason : NULL,
			"seconds", c->seconds, "wall", c->wall, "verdict", c->verdict,
			"ops", (json_int_t)c->ops, "ops_per_sec", c->ops_per_sec,
			"trylock_fallbacks", c->fallbacks, "interleaving", c->interleaving,
			"failures", c->failures,
			"dir", c->rundir, "reproduce", c->reproduce));
	}
	for (int b = 0; b < CI_NR_BUILDS; b++)
		if (g->nr_build[b])
			json_object_set_new(shares, ci_builds[b].name, json_pack(
				"{s:f, s:i, s:i, s:f, s:i}", "seconds", g->share[b],
				"configs", g->nr_build[b], "selected", g->nr_selected[b],
				"overhead_measured", g->overhead_n[b] ? ci_overhead_est(g, b) : 0.0,
				"overhead_runs", g->overhead_n[b]));
	json_object_foreach(g->coverage, key, v)
		if (!json_integer_value(v))
			json_array_append_new(never, json_string(key));
	ci_count_states(g, n);
	snprintf(seed, sizeof(seed), "%" PRIu64, g->o.seed);
	json_object_update_new(rec, json_pack(
		"{s:o, s:s, s:o, s:o,"
		" s:{s:O, s:O, s:b, s:s, s:o},"
		" s:{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i},"
		" s:{s:f, s:f, s:f, s:f, s:o},"
		" s:{s:i, s:i}}",
		"command", cmd, "seed", seed, "configs", configs, "results", results,
		"coverage", "sites", g->coverage, "configs", g->coverage_configs,
		"judged", g->coverage_judged, "note", g->coverage_note, "never_fired", never,
		"totals", "configs", g->nr_cfgs, "all_shards", g->nr_all,
		"ran", n[CI_PASS] + n[CI_FAIL] + n[CI_ERROR], "passed", n[CI_PASS],
		"failed", n[CI_FAIL], "errors", n[CI_ERROR], "skipped", n[CI_SKIPPED] + n[CI_PLANNED],
		"coverage_failed", g->coverage_judged ? g->never_fired : 0, "exit", exit_code,
		"budget", "seconds", g->o.budget, "usable", g->usable, "wall", g->wall,
		"build_seconds", g->build_seconds, "shares", shares,
		"shard", "i", g->o.shard_i, "n", g->o.shard_n));
	json_object_set_new(rec, "gate", ci_gate_identity(&g->o));
	json_object_set_new(rec, "explore", ci_explore_json(g));
	json_object_set_new(rec, "interrupted", json_boolean(g->interrupted));
	json_object_set_new(rec, "interleaving", json_pack("{s:I, s:I, s:I, s:i}",
		"distinct", (json_int_t)json_object_size(json_object_get(g->interleaving, "pairs")),
		"sites", (json_int_t)json_object_size(json_object_get(g->interleaving, "sites")),
		"never", (json_int_t)rt_cover_uncovered(g->interleaving, NULL, NULL),
		"records", (int)json_integer_value(json_object_get(g->interleaving, "records"))));
	if (g->merged)
		json_object_set_new(rec, "merged", json_pack("{s:i, s:f}", "shards", g->merged,
							      "longest_wall", g->wall_max));
	rc = rt_record_write(rec, g->o.json);
	json_decref(rec);
	return rc;
}

json_t *ci_explore_json(const struct ci_gate *g)
{
	const struct ci_explore *x = &g->x;
	json_t *cells = json_array();
	int n[CI_X_NR_STATES];

	for (int i = 0; i < x->nr_cells; i++) {
		const struct ci_xcell *c = &x->cells[i];

		json_array_append_new(cells, json_pack("{s:i, s:i, s:s, s:[s,s], s:s, s:I, s:I, s:f,"
			" s:O?}", "pos", c->pos, "id", c->id, "rmap", rmap_mode_name(c->mode),
			"ops", rt_fixed_op_name(c->ops[0]), rt_fixed_op_name(c->ops[1]),
			"result", ci_xstate_name(c->state), "schedules", (json_int_t)c->schedules,
			"pruned", (json_int_t)c->pruned, "seconds", c->seconds, "failure", c->failure));
	}
	ci_count_xstates(g, n);
	return json_pack("{s:s?, s:s, s:i, s:f, s:i, s:i, s:i, s:i, s:f, s:i, s:i, s:o}",
		"scenario", x->scenario ? x->scenario->name : NULL, "note", x->note,
		"k", g->o.explore_k, "share", x->share, "cells_all", x->nr_all,
		"per_gate", x->per_gate, "rotations", x->rotations, "window", x->block + 1,
		"wall", x->wall, "exhausted", n[CI_X_EXHAUSTED], "failed", n[CI_X_FAILED],
		"cells", cells);
}

static void print_skipped(const struct ci_gate *g)
{
	for (int b = 0; b < CI_NR_BUILDS; b++) {
		for (int k = 0; k < g->o.nr_scheds; k++) {
			const char *reason = NULL;
			int cnt = 0;

			for (int i = 0; i < g->nr_cfgs; i++) {
				const struct ci_config *c = &g->cfgs[i];
				char name[128];

				if (c->build != b || c->sched != g->o.scheds[k] ||
				    (c->state != CI_SKIPPED && c->state != CI_PLANNED))
					continue;
				if (!cnt++)
					printf("ci: skipped %s %s:", ci_builds[b].name,
					       rt_sched_name(c->sched));
				ci_config_name(c, name, sizeof(name));
				printf(" %s", name);
				reason = c->skip_reason;
			}
			if (cnt)
				printf("  (%d; e.g. %s)\n", cnt, reason);
		}
	}
}

/* Explore's line: cells exhausted of this gate's and of every cell of the rotation. */
static void print_explore_summary(const struct ci_gate *g)
{
	int n[CI_X_NR_STATES];

	if (!g->x.nr_cells) {
		printf("ci: explore: %s\n", g->x.note[0] ? g->x.note : "no cells");
		return;
	}
	ci_count_xstates(g, n);
	printf("ci: explore: pairs exhausted %d / total %d (this gate), %d / %d (all pairs);"
	       " %d cut by the budget, %d not run, %d failed, %d errors (K=%d, %s, window %d"
	       " of %d)\n", n[CI_X_EXHAUSTED], g->x.nr_cells, n[CI_X_EXHAUSTED], g->x.nr_all,
	       n[CI_X_CUT], n[CI_X_PLANNED], n[CI_X_FAILED], n[CI_X_ERROR], g->o.explore_k,
	       g->x.scenario ? g->x.scenario->name : CI_EXPLORE_SCENARIO, g->x.block + 1,
	       g->x.rotations);
	for (int i = 0; i < g->x.nr_cells; i++) {
		const struct ci_xcell *x = &g->x.cells[i];
		char ops[64];

		if (x->state != CI_X_FAILED && x->state != CI_X_ERROR)
			continue;
		ci_xcell_name(x, ops, sizeof(ops));
		printf("ci: %s explore %s %s: %s\n    %s\n", x->state == CI_X_FAILED ? "FAILED" : "ERROR",
		       rmap_mode_name(x->mode), ops,
		       json_string_value(json_object_get(x->failure, "signature")) ?: "?",
		       json_string_value(json_object_get(x->failure, "artifact")) ?:
		       json_string_value(json_object_get(x->failure, "reproduce")) ?: "(see the log)");
	}
}

void ci_print_summary(const struct ci_gate *g)
{
	int n[CI_NR_STATES];
	const char *key;
	json_t *v;

	ci_count_states(g, n);
	printf("\n%-44s %12s %8s\n", "trylock fallback site", "fired", "configs");
	json_object_foreach(g->coverage, key, v)
		printf("%-44s %12lld %8lld%s\n", key, (long long)json_integer_value(v),
		       (long long)json_integer_value(json_object_get(g->coverage_configs, key)),
		       json_integer_value(v) ? "" : "   never fired");
	printf("ci: trylock fallback coverage %s\n", g->coverage_note);
	print_explore_summary(g);
	printf("ci: ");
	rt_cover_print(stdout, g->interleaving, 0);
	print_skipped(g);
	if (g->merged)
		printf("ci: %d configurations from %d shards:", g->nr_cfgs, g->merged);
	else
		printf("ci: %d configurations in shard %d/%d (of %d):", g->nr_cfgs, g->o.shard_i,
		       g->o.shard_n, g->nr_all);
	printf(" ran %d, passed %d, failed %d, errors %d, skipped %d\n",
	       n[CI_PASS] + n[CI_FAIL] + n[CI_ERROR], n[CI_PASS], n[CI_FAIL], n[CI_ERROR],
	       n[CI_SKIPPED] + n[CI_PLANNED]);
	if (g->merged)
		printf("ci: runs took %.1f s in %d shards (the longest %.1f s), each of a %g s budget",
		       g->wall, g->merged, g->wall_max, g->o.budget);
	else
		printf("ci: runs took %.1f s of a %g s budget", g->wall, g->o.budget);
	if (g->build_seconds > 0.5)
		printf(" (building the variants took %.0f s more, not counted)", g->build_seconds);
	printf("\n");
	for (int i = 0; i < g->nr_cfgs; i++) {
		const struct ci_config *c = &g->cfgs[i];
		json_t *f;
		size_t k;

		if (c->state != CI_FAIL && c->state != CI_ERROR)
			continue;
		json_array_foreach(c->failures, k, f) {
			const char *art = json_string_value(json_object_get(f, "artifact"));

			printf("ci: FAILED %s %s %s/%s: %s %s\n    %s\n", ci_builds[c->build].name,
			       rt_sched_name(c->sched), c->scenario->name, rmap_mode_name(c->mode),
			       json_string_value(json_object_get(f, "kind")),
			       json_string_value(json_object_get(f, "signature")),
			       art ? art : json_string_value(json_object_get(f, "reproduce")));
		}
		if (!json_array_size(c->failures))
			printf("ci: ERROR %s %s %s/%s: %s (log %s/output.log)\n",
			       ci_builds[c->build].name, rt_sched_name(c->sched), c->scenario->name,
			       rmap_mode_name(c->mode), c->verdict, c->rundir);
	}
}

