// SPDX-License-Identifier: MIT
/*
 * `rmaptorture explore`: bounded exhaustive schedules of pairs of
 * operations. From a small world, the same for every schedule (the
 * scenario's, with at most 3 processes and room for 3 more, built and
 * warmed up from --seed: run --fixed-ops), two CPUs each
 * run one operation; every schedule with at most K preemptions over the
 * deterministic scheduler's switch points is run from that world and
 * audited (stress/rt_explore.h enumerates, the explore kind of
 * stress/rt_sched.h runs each one). A failure leaves the usual artifact,
 * whose command (`run --sched explore --fixed-ops A,B --decisions ...`)
 * `replay` runs again.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "cover.h"
#include "die.h"
#include "inject.h"
#include "record.h"
#include "rmap.h"
#include "rt_explore.h"
#include "rt_opt.h"
#include "rt_time.h"
#include "run_opts.h"

#define EXPLORE_MAX_K		8

struct explore_opts {
	struct rt_common_opts common;	/* --out, --budget, --quiet */
	const char *scenario, *rmap, *ops, *inject;
	const char *seed;
	int k;
	bool json, progress;
	bool test_window;	/* test-only: run's --test-window */
	bool no_prune;
};

static void explore_usage(FILE *f)
{
	fputs("usage: rmaptorture explore [OPTIONS]\n"
	      "\n"
	      "From a small world, the same for every schedule, two CPUs each run one\n"
	      "operation of the scenario; every schedule with at most K preemptions over\n"
	      "the deterministic scheduler's switch points (lock operations and yield\n"
	      "points) is run from that world and audited. A pair explored to the end is\n"
	      "a proof for that world and K, and no stronger.\n"
	      "\n"
	      "  -S, --scenario NAME     the scenario whose operations pair up (default mixed32)\n"
	      "  -r, --rmap NAME|all     the design (default ptechain)\n"
	      "      --ops A,B           one ordered pair (default: every ordered pair of the\n"
	      "                          scenario's operation kinds)\n"
	      "  -k, --preemptions K     at most K preemptions, 0..8 (default 2)\n"
	      "  -b, --budget S          stop starting schedules after S seconds (default: none)\n"
	      "      --seed X            the world's seed (default 1)\n"
	      "      --inject NAME       switch on a seeded bug\n"
	      "  -o, --out DIR           the record (explore.json) and failure artifacts there\n"
	      "      --json              print the record on stdout\n"
	      "      --no-prune          run every schedule within K (default: sleep sets skip\n"
	      "                          a switch back whose segments touch disjoint objects)\n"
	      "      --no-progress       no progress line on stderr\n"
	      "  -q, --quiet             only the total\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "Exit status: 0 no failure, 1 a failure found, 2 bad usage, 3 internal error.\n", f);
}

static void parse_explore_opts(int argc, char **argv, struct explore_opts *o)
{
	enum { OPT_OPS = 1000, OPT_SEED, OPT_INJECT, OPT_JSON, OPT_NO_PROGRESS, OPT_TEST_WINDOW,
	       OPT_NO_PRUNE };
	static const struct option opts[] = {
		{ "scenario", required_argument, NULL, 'S' },
		{ "rmap", required_argument, NULL, 'r' },
		{ "ops", required_argument, NULL, OPT_OPS },
		{ "preemptions", required_argument, NULL, 'k' },
		{ "budget", required_argument, NULL, 'b' },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "inject", required_argument, NULL, OPT_INJECT },
		{ "out", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
		{ "test-window", no_argument, NULL, OPT_TEST_WINDOW },
		{ "no-prune", no_argument, NULL, OPT_NO_PRUNE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	rt_common_opts_init(&o->common, "explore", explore_usage, 7 * 86400);
	o->scenario = "mixed32";
	o->rmap = "ptechain";
	o->seed = "1";
	o->k = 2;
	o->progress = isatty(STDERR_FILENO);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "S:r:k:b:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'S': o->scenario = optarg; break;
		case 'r': o->rmap = optarg; break;
		case OPT_OPS: o->ops = optarg; break;
		case 'k': o->k = (int)rt_opt_int("--preemptions", optarg, 0, EXPLORE_MAX_K); break;
		case OPT_SEED: rt_opt_u64("--seed", optarg); o->seed = optarg; break;
		case OPT_INJECT:
			if (inject_by_name(optarg) < 0)
				rt_usage_error("--inject: unknown seeded bug '%s' (see 'run --inject list')",
					       optarg);
			o->inject = optarg;
			break;
		case OPT_JSON: o->json = true; o->progress = false; break;
		case OPT_NO_PROGRESS: o->progress = false; break;
		case OPT_TEST_WINDOW: o->test_window = true; break;
		case OPT_NO_PRUNE: o->no_prune = true; break;
		default: rt_common_opt(&o->common, c, optarg, argv[optind - 1]); break;
		}
	}
	if (optind < argc)
		rt_usage_error("explore: unexpected argument '%s' (see 'rmaptorture explore --help')",
			       argv[optind]);
	if (!wl_find(o->scenario))
		rt_usage_error("--scenario: unknown scenario '%s' (see 'rmaptorture list')", o->scenario);
	if (strcmp(o->rmap, "all") && rmap_mode_by_name(o->rmap) < 0)
		rt_usage_error("--rmap: unknown design '%s' (ptechain, objfile, anonvma, mainline8, mainline9, all)",
			       o->rmap);
	if (o->common.out_dir)
		rt_opt_out_dir("--out", o->common.out_dir);
}

/* --ops A,B into @pair. Exit 2 on anything else. */
static void parse_pair(const char *arg, int pair[2])
{
	char buf[128], *comma;

	if (strlen(arg) >= sizeof(buf) || !(comma = strchr(strcpy(buf, arg), ',')) ||
	    strchr(comma + 1, ','))
		rt_usage_error("--ops: '%s' is not a pair of operations A,B", arg);
	*comma = '\0';
	pair[0] = wl_op_by_name(buf);
	pair[1] = wl_op_by_name(comma + 1);
	if (pair[0] < 0 || pair[1] < 0)
		rt_usage_error("--ops: unknown operation '%s'", pair[0] < 0 ? buf : comma + 1);
}

/* What one pair in one design came to. */
struct pair_result {
	int ops[2];
	enum rmap_mode mode;
	unsigned long schedules, diverged, pruned;
	bool exhausted, failed;
	bool abandoned;		/* a hang or a BUG: the model cannot be run again */
	double seconds;
	char signature[256];
	json_t *preempted;	/* the failing schedule's preemptions: [{decision, cpu, site}] */
	char decisions[4096];	/* the failing schedule, run-length coded */
};

/* The run options of one schedule of @pair: `run --sched explore --fixed-ops A,B ...`. */
static void pair_run_opts(const struct explore_opts *eo, const struct pair_result *pr,
			  struct rt_run_opts *ro)
{
	char fixed[128];
	char *argv[32];
	int argc = 0;

	snprintf(fixed, sizeof(fixed), "%s,%s", wl_op_name((enum wl_op)pr->ops[0]),
		 wl_op_name((enum wl_op)pr->ops[1]));
	argv[argc++] = "run";
	argv[argc++] = "--scenario";
	argv[argc++] = (char *)eo->scenario;
	argv[argc++] = "--rmap";
	argv[argc++] = (char *)rmap_mode_name(pr->mode);
	argv[argc++] = "--sched";
	argv[argc++] = "explore";
	argv[argc++] = "--fixed-ops";
	argv[argc++] = fixed;
	argv[argc++] = "--seed";
	argv[argc++] = (char *)eo->seed;
	argv[argc++] = "--no-progress";
	if (eo->inject) {
		argv[argc++] = "--inject";
		argv[argc++] = (char *)eo->inject;
	}
	if (eo->test_window)
		argv[argc++] = "--test-window";
	if (eo->common.out_dir) {
		argv[argc++] = "--out";
		argv[argc++] = (char *)eo->common.out_dir;
	}
	argv[argc] = NULL;
	rt_run_parse_opts(argc, argv, ro);
	ro->argc = 0;		/* @argv is ours, and gone on return */
	ro->argv = NULL;
	/* The world is the same for every schedule: no seeded bug's own sched. */
	ro->cfg.sched = RT_SCHED_EXPLORE;
	ro->cfg.threads = 2;
	ro->cfg.reclaim_threads = 0;
	ro->cfg.on_report = rt_run_on_report;
	ro->cfg.on_report_arg = ro;
	/* Its schedules' pairs are never read: record the sites only. */
	ro->cfg.cover_sites_only = true;
	ro->mode_now = pr->mode;
	ro->cfg.mode = pr->mode;
}

/* The failing schedule's preemptions, with the site each CPU was at: the report. */
static void note_failure(struct pair_result *pr, const struct rt_run_result *res,
			 const struct rt_sched_decision *t, unsigned long n, const int *prefix,
			 size_t nr)
{
	snprintf(pr->signature, sizeof(pr->signature), "%s",
		 res->nr_failures ? res->failures[0].signature : "audit");
	rt_explore_format(prefix, nr, pr->decisions, sizeof(pr->decisions));
	pr->preempted = json_array();
	for (unsigned long i = 0; i < n; i++) {
		char site[256] = "(no site)";

		if (!t[i].me_enabled || t[i].chosen == t[i].me)
			continue;
		if (t[i].site >= 0)
			cover_site_format(t[i].site, site, sizeof(site));
		json_array_append_new(pr->preempted, json_pack("{s:I, s:i, s:s}",
			"decision", (json_int_t)i, "cpu", t[i].me, "site", site));
	}
}

/* Every schedule of one pair within K, or until the budget ends. Return: 0, or exit status 3. */
static int explore_pair(const struct explore_opts *eo, struct pair_result *pr, double deadline)
{
	struct rt_run_opts *ro = rt_calloc(1, sizeof(*ro));
	struct rt_run_result *res = rt_calloc(1, sizeof(*res));
	struct rt_explore x;
	const int *prefix;
	size_t nr;
	double start = rt_now_s();
	int ret = 0;

	pair_run_opts(eo, pr, ro);
	inject_mask = ro->cfg.inject_mask;
	rt_explore_init(&x, eo->k, !eo->no_prune);
	while (!rt_interrupted && rt_explore_next(&x, &prefix, &nr)) {
		const struct rt_sched_decision *t;
		unsigned long n;
		int rc;

		if (deadline > 0 && rt_now_s() >= deadline)
			break;
		ro->cfg.decisions = prefix;
		ro->cfg.nr_decisions = nr;
		ro->run_start = rt_now_s();
		rc = rt_run(&ro->cfg, res);
		if (rc == 3) {
			fprintf(stderr, "rmaptorture: explore: a schedule's setup failed\n");
			ret = RT_EXIT_INTERNAL;
			break;
		}
		t = rt_sched_trace(&n);
		if (rc) {
			pr->schedules = x.schedules + 1;
			note_failure(pr, res, t, n, prefix, nr);
			pr->failed = true;
			pr->abandoned = res->hang || res->oops;
			break;
		}
		rt_explore_feed(&x, t, n);
		if (eo->progress && x.schedules % 16 == 0)
			fprintf(stderr, "\r\033[Kexplore %s %s,%s: %lu schedules, %.1f s",
				rmap_mode_name(pr->mode), wl_op_name((enum wl_op)pr->ops[0]),
				wl_op_name((enum wl_op)pr->ops[1]), x.schedules, rt_now_s() - start);
	}
	if (eo->progress)
		fputs("\r\033[K", stderr);
	if (!pr->failed)
		pr->schedules = x.schedules;
	pr->exhausted = x.done && !pr->failed;
	pr->diverged = x.diverged;
	pr->pruned = x.pruned;
	pr->seconds = rt_now_s() - start;
	if (pr->abandoned)
		return ret;	/* threads left in the model still read ro->cfg: the caller exits */
	rt_explore_free(&x);
	free(ro->decisions);
	free(ro);
	free(res);
	return ret;
}

static void print_pair(FILE *out, const struct explore_opts *eo, const struct pair_result *pr)
{
	const char *a = wl_op_name((enum wl_op)pr->ops[0]), *b = wl_op_name((enum wl_op)pr->ops[1]);

	if (pr->failed) {
		size_t i;
		json_t *p;

		fprintf(out, "%s %s,%s: FAILURE after %lu schedules (%.2f s): %s\n",
			rmap_mode_name(pr->mode), a, b, pr->schedules, pr->seconds, pr->signature);
		fprintf(out, "  the two operations: CPU 0 %s, CPU 1 %s; decisions %s\n", a, b,
			pr->decisions);
		json_array_foreach(pr->preempted, i, p)
			fprintf(out, "  preempted: CPU %d at %s (decision %" JSON_INTEGER_FORMAT ")\n",
				(int)json_integer_value(json_object_get(p, "cpu")),
				json_string_value(json_object_get(p, "site")),
				json_integer_value(json_object_get(p, "decision")));
		return;
	}
	if (eo->common.quiet)
		return;
	if (pr->exhausted)
		fprintf(out, "%s %s,%s: exhausted at K=%d: %lu schedules (%lu pruned), %.2f s: no failure"
			" in any schedule of this world with at most %d preemptions%s\n",
			rmap_mode_name(pr->mode), a, b, eo->k, pr->schedules, pr->pruned, pr->seconds, eo->k,
			pr->diverged ? " (some runs left their prefix: not a proof)" : "");
	else
		fprintf(out, "%s %s,%s: cut by the budget after %lu schedules (%lu pruned), %.2f s\n",
			rmap_mode_name(pr->mode), a, b, pr->schedules, pr->pruned, pr->seconds);
}

static json_t *pair_json(const struct pair_result *pr)
{
	json_t *j = json_pack("{s:s, s:[s,s], s:I, s:I, s:b, s:b, s:f, s:I}",
		"rmap", rmap_mode_name(pr->mode),
		"ops", wl_op_name((enum wl_op)pr->ops[0]), wl_op_name((enum wl_op)pr->ops[1]),
		"schedules", (json_int_t)pr->schedules,
		"pruned", (json_int_t)pr->pruned,
		"exhausted", pr->exhausted,
		"failed", pr->failed,
		"seconds", pr->seconds,
		"diverged", (json_int_t)pr->diverged);

	if (pr->failed)
		json_object_set_new(j, "failure", json_pack("{s:s, s:s, s:O}",
			"signature", pr->signature, "decisions", pr->decisions,
			"preempted", pr->preempted));
	return j;
}

/* The pairs to explore, @pairs (at most WL_NR_OPS^2). Return: how many. */
static int plan_pairs(const struct explore_opts *o, int (*pairs)[2])
{
	const struct rt_scenario *s = wl_find(o->scenario);

	if (o->ops) {
		parse_pair(o->ops, pairs[0]);
		return 1;
	}
	return rt_explore_pairs(s->weights, WL_NR_OPS, pairs, WL_NR_OPS * WL_NR_OPS);
}

int cmd_explore(int argc, char **argv)
{
	static int pairs[WL_NR_OPS * WL_NR_OPS][2];
	struct explore_opts o;
	enum rmap_mode modes[RMAP_NR_MODES];
	int nr_modes = 0, nr_pairs, exhausted = 0, failed = 0, done = 0, ret = RT_EXIT_OK;
	unsigned long total = 0;
	double start, deadline;
	json_t *rec, *list = json_array();
	FILE *out;

	parse_explore_opts(argc, argv, &o);
	out = o.json ? stderr : stdout;
	if (!strcmp(o.rmap, "all")) {
		for (int m = 0; m < RMAP_NR_MODES; m++)
			if (!rmap_select((enum rmap_mode)m))
				modes[nr_modes++] = (enum rmap_mode)m;
	} else {
		modes[nr_modes++] = (enum rmap_mode)rmap_mode_by_name(o.rmap);
		if (rmap_select(modes[0]))
			rt_usage_error("--rmap: design '%s' is not built yet", o.rmap);
	}
	nr_pairs = plan_pairs(&o, pairs);
	start = rt_now_s();
	deadline = o.common.budget > 0 ? start + o.common.budget : 0;
	for (int m = 0; m < nr_modes && ret != RT_EXIT_INTERNAL; m++)
		for (int i = 0; i < nr_pairs && !rt_interrupted; i++) {
			struct pair_result pr = { .ops = { pairs[i][0], pairs[i][1] }, .mode = modes[m] };

			if (deadline > 0 && rt_now_s() >= deadline)
				break;
			if (explore_pair(&o, &pr, deadline)) {
				ret = RT_EXIT_INTERNAL;
				break;
			}
			done++;
			total += pr.schedules;
			exhausted += pr.exhausted;
			failed += pr.failed;
			print_pair(out, &o, &pr);
			fflush(NULL);
			if (pr.abandoned)
				_exit(RT_EXIT_FAILURE);	/* stuck threads cannot be joined */
			json_array_append_new(list, pair_json(&pr));
			json_decref(pr.preempted);
		}
	fprintf(out, "explore: %s, K=%d, world seed %s: %d of %d pairs (x %d designs) explored,"
		" %d exhausted, %d failed, %lu schedules in %.1f s\n",
		o.scenario, o.k, o.seed, done, nr_pairs, nr_modes, exhausted, failed, total,
		rt_now_s() - start);
	rec = rt_record_new("explore");
	json_object_update_new(rec, json_pack("{s:s, s:i, s:s, s:s?, s:i, s:i, s:i, s:I, s:f, s:o}",
		"scenario", o.scenario, "preemptions", o.k, "seed", o.seed, "inject", o.inject,
		"pairs_total", nr_pairs * nr_modes, "pairs_exhausted", exhausted,
		"pairs_failed", failed, "schedules", (json_int_t)total,
		"seconds", rt_now_s() - start, "pairs", list));
	if (o.common.out_dir) {
		char path[4200];

		snprintf(path, sizeof(path), "%s/explore.json", o.common.out_dir);
		if (rt_record_write(rec, path))
			ret = RT_EXIT_INTERNAL;
	}
	if (o.json && rt_record_write(rec, "-"))
		ret = RT_EXIT_INTERNAL;
	json_decref(rec);
	if (ret == RT_EXIT_OK && failed)
		ret = RT_EXIT_FAILURE;
	if (ret == RT_EXIT_OK && rt_interrupted)
		ret = RT_EXIT_INTERRUPTED;
	return ret;
}
