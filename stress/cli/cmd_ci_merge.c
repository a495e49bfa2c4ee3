// SPDX-License-Identifier: MIT
/*
 * `rmaptorture ci-merge SHARD.json...`: the gate spread over machines,
 * judged as one. Each CI job runs `ci --shard I/N --json SHARD.json`;
 * this reads the N records back, checks that they are the N shards of one
 * gate (the same seed, budget, N, configuration axes, seeded bugs and
 * revision; each I exactly once; each configuration index once), and
 * fills one gate with every configuration's result. ci_finish() then
 * judges it exactly as an unsharded gate: the trylock fallback coverage
 * over every configuration, the summary, one JUnit file, one JSON record,
 * the END line and `ci`'s exit status.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "engine.h"
#include "inject.h"
#include "record.h"
#include "commands.h"
#include "rt_opt.h"
#include "ci-internal.h"

struct merge_opts {
	const char *junit, *json;
	char **paths;			/* the shards' records */
	int nr;
	int argc;
	char **argv;
};

/*
 * What the merge holds while it checks: file-scope, so that a bad shard's
 * exit(2) leaves nothing unreachable for LeakSanitizer to report.
 */
static struct {
	json_t **recs;			/* the records, in the order given */
	bool *seen;			/* by configuration index */
	struct ci_gate *g;
} merge;

static void merge_usage(FILE *f)
{
	fputs("usage: rmaptorture ci-merge [OPTIONS] SHARD.json...\n"
	      "\n"
	      "Judge a gate run in shards ('ci --shard I/N --json SHARD.json', one per CI\n"
	      "job) as one: check that the records are the N shards of one gate (the same\n"
	      "seed, budget, N, builds, scenarios, designs, schedules, seeded bugs and\n"
	      "revision; each shard once), merge their results and trylock fallback\n"
	      "coverage, and print the summary and verdict the unsharded gate gives.\n"
	      "\n"
	      "  -j, --junit FILE        one JUnit XML for the whole gate\n"
	      "      --json FILE         one JSON record for the whole gate\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "Exit status: as 'ci': 0 every configuration clean and every fallback site\n"
	      "fired, 1 a failure (or a site that never fired), 3 a configuration's run\n"
	      "could not start, 130 a shard was interrupted; 2 bad usage or a shard\n"
	      "missing, given twice, unreadable or from another gate (one line).\n", f);
}

static void parse_merge_opts(int argc, char **argv, struct merge_opts *o)
{
	static const struct option opts[] = {
		{ "junit", required_argument, NULL, 'j' },
		{ "json", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->argc = argc;
	o->argv = argv;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': o->junit = optarg; break;
		case 'J': o->json = optarg; break;
		case 'h': merge_usage(stdout); exit(RT_EXIT_OK);
		default: rt_opt_bad("ci-merge", c, argv[optind - 1]);
		}
	}
	if (optind == argc)
		rt_usage_error("ci-merge: no shard given (see 'rmaptorture ci-merge --help')");
	o->paths = argv + optind;
	o->nr = argc - optind;
	if (o->junit)
		rt_opt_out_file("--junit", o->junit);
	if (o->json)
		rt_opt_out_file("--json", o->json);
}

/* A shard's record: a `ci` JSON record with what a merge needs, or exit 2. */
static json_t *load_shard(const char *path)
{
	static const char *const fields[] = {
		"gate", "shard", "configs", "results", "totals", "budget", "git", "interrupted",
	};
	json_t *rec = rt_opt_json_file("ci-merge", path);
	const char *kind;
	char why[128] = "";

	kind = rt_record_kind(rec);
	if (!json_is_object(rec) || !kind || strcmp(kind, "ci"))
		snprintf(why, sizeof(why), "%s%s%snot the JSON record of a 'ci' run (ci --json FILE)",
			 kind ? "a " : "", kind ? kind : "", kind ? " record, " : "");
	else if (rt_record_check_format(rec, path, why, sizeof(why)))
		rt_usage_error("ci-merge: %s", why);
	for (size_t i = 0; !why[0] && i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!json_object_get(rec, fields[i]))
			snprintf(why, sizeof(why), "not a ci shard record: no \"%s\"", fields[i]);
	if (!why[0] && json_array_size(json_object_get(rec, "configs")) !=
		       json_array_size(json_object_get(rec, "results")))
		snprintf(why, sizeof(why), "not a ci shard record: configs and results differ");
	if (why[0]) {
		json_decref(rec);
		rt_usage_error("ci-merge: %s: %s", path, why);
	}
	return rec;
}

static int shard_field(const json_t *rec, const char *name)
{
	return (int)json_integer_value(json_object_get(json_object_get(rec, "shard"), name));
}

static int all_shards(const json_t *rec)
{
	return (int)json_integer_value(json_object_get(json_object_get(rec, "totals"),
							"all_shards"));
}

/* A value of a gate's identity in words: 5, 2.2, mixed32, ["plain","tsan"]. */
static const char *brief(const json_t *v, char *buf, size_t len)
{
	char *d;

	if (!v)
		return "none";
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_number(v)) {
		snprintf(buf, len, "%g", json_number_value(v));
		return buf;
	}
	d = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	snprintf(buf, len, "%s", d ? d : "?");
	free(d);
	return buf;
}

/* @b (from @path_b) is a shard of the same gate as @a (from @path_a), or exit 2. */
static void check_same_gate(const json_t *a, const char *path_a, const json_t *b,
			    const char *path_b)
{
	const json_t *ga = json_object_get(a, "gate"), *gb = json_object_get(b, "gate"), *v;
	const char *key;

	json_object_foreach((json_t *)ga, key, v) {
		char va[256], vb[256];

		if (!json_equal(v, json_object_get(gb, key)))
			rt_usage_error("ci-merge: %s is from another gate than %s: %s %s, not %s",
				       path_b, path_a, key,
				       brief(json_object_get(gb, key), vb, sizeof(vb)),
				       brief(v, va, sizeof(va)));
	}
	if (json_object_size(gb) != json_object_size(ga) || !json_equal(json_object_get(a, "git"),
									   json_object_get(b, "git")))
		rt_usage_error("ci-merge: %s is from another gate than %s: revision %s, not %s",
			       path_b, path_a, json_string_value(json_object_get(b, "git")),
			       json_string_value(json_object_get(a, "git")));
	if (all_shards(a) != all_shards(b))
		rt_usage_error("ci-merge: %s is from another gate than %s: %d configurations, not %d",
			       path_b, path_a, all_shards(b), all_shards(a));
}

/* The first of @recs[0..@nr) that is shard @i, or -1. */
static int shard_given(json_t *const *recs, int nr, int i)
{
	for (int k = 0; k < nr; k++)
		if (shard_field(recs[k], "i") == i)
			return k;
	return -1;
}

/* Each shard I of N exactly once, every one there; @recs[k] from @o->paths[k]. */
static void check_shards(const struct merge_opts *o, json_t *const *recs)
{
	int n = shard_field(recs[0], "n");

	for (int k = 0; k < o->nr; k++) {
		int i = shard_field(recs[k], "i"), first;

		if (k)
			check_same_gate(recs[0], o->paths[0], recs[k], o->paths[k]);
		if (i < 1 || i > n || shard_field(recs[k], "n") != n)
			rt_usage_error("ci-merge: %s: shard %d/%d is not a shard of %d", o->paths[k],
				       i, shard_field(recs[k], "n"), n);
		first = shard_given(recs, k, i);
		if (first >= 0)
			rt_usage_error("ci-merge: shard %d/%d given twice: %s and %s", i, n,
				       o->paths[first], o->paths[k]);
	}
	/* N distinct shards of N given: none missing; else name the first. */
	for (int i = 1; o->nr < n && i <= n; i++)
		if (shard_given(recs, o->nr, i) < 0)
			rt_usage_error("ci-merge: shard %d/%d is missing (%d of %d given): every shard's"
				       " --json is needed", i, n, o->nr, n);
}

/* A name of @what among the gate's; exit 2 naming @path when unknown. */
static int known(int v, const char *path, const char *what, const char *name)
{
	if (v < 0)
		rt_usage_error("ci-merge: %s: unknown %s '%s' (a shard of another revision?)", path,
			       what, name ? name : "none");
	return v;
}

static const char *str_at(const json_t *arr, size_t i)
{
	return json_string_value(json_array_get(arr, i));
}

/* The options of the whole gate, from a shard's "gate" identity. */
static void opts_from_gate(struct ci_opts *o, const json_t *gate, const char *path)
{
	const json_t *a;
	size_t i;

	o->seed = strtoull(json_string_value(json_object_get(gate, "seed")) ?: "0", NULL, 10);
	o->seed_set = true;
	o->budget = json_number_value(json_object_get(gate, "budget"));
	o->filtered = json_is_true(json_object_get(gate, "filtered"));
	o->explore_share = json_number_value(json_object_get(gate, "explore_share"));
	o->explore_k = (int)json_integer_value(json_object_get(gate, "explore_k"));
	o->shard_i = o->shard_n = 1;
	a = json_object_get(gate, "builds");
	for (i = 0; i < json_array_size(a); i++)
		o->build_on[known(ci_build_by_name(str_at(a, i) ?: ""), path, "build",
				  str_at(a, i))] = true;
	a = json_object_get(gate, "scenarios");
	for (i = 0; i < json_array_size(a) && o->nr_scenarios < 64; i++) {
		o->scenarios[o->nr_scenarios] = wl_find(str_at(a, i) ?: "");
		known(o->scenarios[o->nr_scenarios] ? 0 : -1, path, "scenario", str_at(a, i));
		o->nr_scenarios++;
	}
	a = json_object_get(gate, "rmaps");
	for (i = 0; i < json_array_size(a) && o->nr_modes < RMAP_NR_MODES; i++)
		o->modes[o->nr_modes++] = (enum rmap_mode)known(
			rmap_mode_by_name(str_at(a, i) ?: ""), path, "design", str_at(a, i));
	a = json_object_get(gate, "scheds");
	for (i = 0; i < json_array_size(a) && o->nr_scheds < 3; i++)
		o->scheds[o->nr_scheds++] = (enum rt_sched_kind)known(
			rt_sched_by_name(str_at(a, i) ?: ""), path, "schedule", str_at(a, i));
	a = json_object_get(gate, "inject");
	for (i = 0; i < json_array_size(a) && o->nr_inject < 64; i++)
		o->inject[o->nr_inject++] = inject_name((enum inject_bug)known(
			inject_by_name(str_at(a, i) ?: ""), path, "seeded bug", str_at(a, i)));
}

static const char *str_of(const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : "";
}

/* One configuration of a shard, its plan (@cfg) and its result (@res). */
static void config_from_json(struct ci_config *c, const json_t *cfg, const json_t *res,
			     const char *path)
{
	const json_t *fb = json_object_get(res, "trylock_fallbacks");
	const json_t *fails = json_object_get(res, "failures");

	c->index = (int)json_integer_value(json_object_get(cfg, "index"));
	c->build = known(ci_build_by_name(str_of(cfg, "build")), path, "build", str_of(cfg, "build"));
	c->scenario = wl_find(str_of(cfg, "scenario"));
	known(c->scenario ? 0 : -1, path, "scenario", str_of(cfg, "scenario"));
	c->mode = (enum rmap_mode)known(rmap_mode_by_name(str_of(cfg, "rmap")), path, "design",
					str_of(cfg, "rmap"));
	c->sched = (enum rt_sched_kind)known(rt_sched_by_name(str_of(cfg, "sched")), path,
					     "schedule", str_of(cfg, "sched"));
	c->seed = strtoull(str_of(cfg, "seed"), NULL, 10);
	c->threads = (int)json_integer_value(json_object_get(cfg, "threads"));
	c->reclaim_threads = (int)json_integer_value(json_object_get(cfg, "reclaim_threads"));
	c->selected = json_is_true(json_object_get(cfg, "selected"));
	c->state = (enum ci_state)known(ci_state_by_name(str_of(res, "result")), path, "result",
					str_of(res, "result"));
	snprintf(c->skip_reason, sizeof(c->skip_reason), "%s", str_of(res, "skip_reason"));
	c->seconds = json_number_value(json_object_get(res, "seconds"));
	c->wall = json_number_value(json_object_get(res, "wall"));
	snprintf(c->verdict, sizeof(c->verdict), "%s", str_of(res, "verdict"));
	c->ops = (long long)json_integer_value(json_object_get(res, "ops"));
	c->ops_per_sec = json_number_value(json_object_get(res, "ops_per_sec"));
	c->have_record = json_is_object(fb);
	c->fallbacks = json_is_object(fb) ? json_incref((json_t *)fb) : NULL;
	c->interleaving = json_incref(json_object_get(res, "interleaving"));
	c->failures = json_is_array(fails) ? json_incref((json_t *)fails) : NULL;
	snprintf(c->dir, sizeof(c->dir), "%s", str_of(res, "dir"));
	snprintf(c->rundir, sizeof(c->rundir), "%s", str_of(res, "dir"));
	snprintf(c->reproduce, sizeof(c->reproduce), "%s", str_of(res, "reproduce"));
}

/* The budget and its use, summed over the shards. */
static void add_budget(struct ci_gate *g, const json_t *rec)
{
	const json_t *budget = json_object_get(rec, "budget");
	const json_t *shares = json_object_get(budget, "shares");
	double wall = json_number_value(json_object_get(budget, "wall"));

	g->usable = json_number_value(json_object_get(budget, "usable"));
	g->wall += wall;
	if (wall > g->wall_max)
		g->wall_max = wall;
	g->build_seconds += json_number_value(json_object_get(budget, "build_seconds"));
	for (int b = 0; b < CI_NR_BUILDS; b++) {
		const json_t *s = json_object_get(shares, ci_builds[b].name);
		int runs = (int)json_integer_value(json_object_get(s, "overhead_runs"));

		if (!s)
			continue;
		g->share[b] += json_number_value(json_object_get(s, "seconds"));
		g->nr_build[b] += (int)json_integer_value(json_object_get(s, "configs"));
		g->nr_selected[b] += (int)json_integer_value(json_object_get(s, "selected"));
		g->overhead_sum[b] += runs * json_number_value(json_object_get(s, "overhead_measured"));
		g->overhead_n[b] += runs;
	}
	if (json_is_true(json_object_get(rec, "interrupted")))
		g->interrupted = true;
}

/* Shard @rec's configurations into their places; each index once, in its shard. */
static void add_shard(struct ci_gate *g, const json_t *rec, const char *path, bool *seen)
{
	const json_t *configs = json_object_get(rec, "configs");
	const json_t *results = json_object_get(rec, "results");
	int i = shard_field(rec, "i"), n = shard_field(rec, "n");

	for (size_t k = 0; k < json_array_size(configs); k++) {
		const json_t *cfg = json_array_get(configs, k);
		const json_t *res = json_array_get(results, k);
		json_int_t idx = json_integer_value(json_object_get(cfg, "index"));

		if (idx < 0 || idx >= g->nr_all || idx % n != i - 1 ||
		    json_integer_value(json_object_get(res, "index")) != idx)
			rt_usage_error("ci-merge: %s: configuration index %lld is not one of shard %d/%d"
				       " of %d", path, (long long)idx, i, n, g->nr_all);
		if (seen[idx])
			rt_usage_error("ci-merge: %s: configuration index %lld twice", path,
				       (long long)idx);
		seen[idx] = true;
		config_from_json(&g->cfgs[idx], cfg, res, path);
	}
	add_budget(g, rec);
}

/* The better of two results of one cell: a failure, else a proof, else the longer try. */
static bool xcell_better(const struct ci_xcell *a, const struct ci_xcell *b)
{
	static const int rank[CI_X_NR_STATES] = {
		[CI_X_PLANNED] = 0, [CI_X_CUT] = 1, [CI_X_EXHAUSTED] = 2, [CI_X_ERROR] = 3,
		[CI_X_FAILED] = 4,
	};

	if (rank[a->state] != rank[b->state])
		return rank[a->state] > rank[b->state];
	return a->schedules > b->schedules;
}

/* Shard @rec's explored cells into the gate's, each cell once (the union, by position). */
static void add_explore(struct ci_gate *g, const json_t *rec, const char *path)
{
	const json_t *x = json_object_get(rec, "explore"), *cells = json_object_get(x, "cells"), *c;
	struct ci_explore *gx = &g->x;
	size_t k;

	if (!x)
		return;
	if (!gx->scenario && json_string_value(json_object_get(x, "scenario"))) {
		gx->scenario = wl_find(json_string_value(json_object_get(x, "scenario")));
		known(gx->scenario ? 0 : -1, path, "scenario",
		      json_string_value(json_object_get(x, "scenario")));
		gx->nr_all = (int)json_integer_value(json_object_get(x, "cells_all"));
		gx->per_gate = (int)json_integer_value(json_object_get(x, "per_gate"));
		gx->rotations = (int)json_integer_value(json_object_get(x, "rotations"));
		gx->block = (int)json_integer_value(json_object_get(x, "window")) - 1;
	}
	if (!gx->note[0])
		snprintf(gx->note, sizeof(gx->note), "%s", str_of(x, "note"));
	gx->share += json_number_value(json_object_get(x, "share"));
	gx->wall += json_number_value(json_object_get(x, "wall"));
	json_array_foreach(cells, k, c) {
		struct ci_xcell cell = { 0 };
		const json_t *ops = json_object_get(c, "ops");
		int i;

		cell.pos = (int)json_integer_value(json_object_get(c, "pos"));
		cell.id = (int)json_integer_value(json_object_get(c, "id"));
		cell.mode = (enum rmap_mode)known(rmap_mode_by_name(str_of(c, "rmap")), path, "design",
						  str_of(c, "rmap"));
		for (int o = 0; o < 2; o++)
			cell.ops[o] = known(rt_fixed_op_by_name(json_string_value(json_array_get(ops,
					    (size_t)o)) ?: ""), path, "operation",
					    json_string_value(json_array_get(ops, (size_t)o)));
		cell.state = (enum ci_xstate)known(ci_xstate_by_name(str_of(c, "result")), path,
						   "explore result", str_of(c, "result"));
		cell.schedules = (long long)json_integer_value(json_object_get(c, "schedules"));
		cell.pruned = (long long)json_integer_value(json_object_get(c, "pruned"));
		cell.seconds = json_number_value(json_object_get(c, "seconds"));
		for (i = 0; i < gx->nr_cells && gx->cells[i].pos != cell.pos; i++)
			;
		if (i < gx->nr_cells && !xcell_better(&cell, &gx->cells[i]))
			continue;
		if (i == gx->nr_cells)
			gx->nr_cells++;	/* room: cmd_ci_merge() counted every shard's */
		else
			json_decref(gx->cells[i].failure);
		cell.failure = json_incref(json_object_get(c, "failure"));
		gx->cells[i] = cell;
	}
}

int cmd_ci_merge(int argc, char **argv)
{
	struct merge_opts mo;
	struct ci_gate *g;
	json_t **recs;
	bool *seen;

	parse_merge_opts(argc, argv, &mo);
	recs = merge.recs = rt_calloc((size_t)mo.nr, sizeof(*recs));
	for (int k = 0; k < mo.nr; k++)
		recs[k] = load_shard(mo.paths[k]);
	check_shards(&mo, recs);

	g = merge.g = rt_calloc(1, sizeof(*g));
	opts_from_gate(&g->o, json_object_get(recs[0], "gate"), mo.paths[0]);
	g->o.junit = mo.junit;
	g->o.json = mo.json;
	g->o.argc = mo.argc;
	g->o.argv = mo.argv;
	g->nr_all = all_shards(recs[0]);
	g->cfgs = rt_calloc((size_t)g->nr_all + 1, sizeof(*g->cfgs));
	seen = merge.seen = rt_calloc((size_t)g->nr_all + 1, sizeof(*seen));
	{
		size_t cells = 1;

		for (int k = 0; k < mo.nr; k++)
			cells += json_array_size(json_object_get(json_object_get(recs[k], "explore"),
								 "cells"));
		g->x.cells = rt_calloc(cells, sizeof(*g->x.cells));
	}
	for (int k = 0; k < mo.nr; k++) {
		add_shard(g, recs[k], mo.paths[k], seen);
		add_explore(g, recs[k], mo.paths[k]);
	}
	for (int idx = 0; idx < g->nr_all; idx++)
		if (!seen[idx])
			rt_usage_error("ci-merge: configuration index %d is in no shard", idx);
	g->nr_cfgs = g->nr_all;
	g->merged = mo.nr;
	printf("ci-merge: %d shards of the gate with seed %" PRIu64 ", budget %g s per shard,"
	       " revision %s: %d configurations\n", mo.nr, g->o.seed, g->o.budget,
	       json_string_value(json_object_get(recs[0], "git")), g->nr_all);
	for (int k = 0; k < mo.nr; k++)
		json_decref(recs[k]);
	free(recs);
	free(seen);
	memset(&merge, 0, sizeof(merge));
	return ci_finish(g);
}
