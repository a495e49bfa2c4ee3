// SPDX-License-Identifier: MIT
/*
 * `rmaptorture explore`: bounded exhaustive schedules of pairs of
 * operations. From a small world, the same for every schedule (the
 * scenario's, with at most 3 processes and room for 3 more, built and
 * warmed up from --seed: run --fixed-ops), two CPUs each
 * run one operation (or a short fixed sequence, or kswapd's reclaim
 * step), optionally with kswapd's step on a third CPU (--kswapd: run
 * --reclaim-threads 1); every schedule with at most K preemptions over the
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
#include "lockdep.h"
#include "record.h"
#include "rmap.h"
#include "rt_explore.h"
#include "rt_explore_prepass.h"
#include "rt_opt.h"
#include "rt_time.h"
#include "run_opts.h"
#include "run_record.h"

#define EXPLORE_MAX_K		8
#define EXPLORE_MAX_OPS		(WL_NR_OPS * WL_NR_OPS + 2 * WL_NR_OPS)	/* every pair, kswapd's too */

struct explore_opts {
	struct rt_common_opts common;	/* --out, --budget, --quiet */
	const char *scenario, *rmap, *inject;
	const char *ops[EXPLORE_MAX_OPS];	/* --ops, each a pair, in the order given */
	int nr_ops;
	const char *seed;
	int k;
	bool json, progress;
	bool even_budget;	/* each pair at most the budget left over the pairs left */
	bool test_window;	/* test-only: run's --test-window */
	bool test_window_bug;	/* test-only: run's --test-window-bug */
	bool prune;		/* --prune: sleep sets (not sound across runs: --help) */
	bool no_prepass;	/* no serial pre-pass: pairs and switch points in plain order */
	bool kswapd;		/* a third CPU: kswapd's reclaim step */
};

static void explore_usage(FILE *f)
{
	fputs("usage: rmaptorture explore [OPTIONS]\n"
	      "\n"
	      "From a small world, the same for every schedule, two CPUs each run one\n"
	      "operation of the scenario (or a short sequence, or kswapd's reclaim step:\n"
	      "one shrink_zone() pass of 32 pages); every schedule with at most K\n"
	      "preemptions over the deterministic scheduler's switch points (lock\n"
	      "operations and yield points) is run from that world and audited. A pair\n"
	      "explored to the end is a proof for that world and K, and no stronger.\n"
	      "\n"
	      "  -S, --scenario NAME     the scenario whose operations pair up (default mixed32)\n", f);
	fprintf(f, "  -r, --rmap NAME|all     the design (default %s)\n", rmap_mode_name(RMAP_DEFAULT));
	fputs("      --ops A,B           one ordered pair: CPU 0 runs A, CPU 1 runs B; each\n"
	      "                          an operation kind, 'kswapd' (the reclaim step), or\n"
	      "                          up to 4 of them joined by '+', run in order:\n"
	      "                          write+munmap,fork. Repeatable: these pairs, in this\n"
	      "                          order (default: every ordered pair of the scenario's\n"
	      "                          kinds, and each kind with kswapd, in both orders)\n"
	      "      --kswapd            a third CPU runs kswapd's reclaim step once\n"
	      "  -k, --preemptions K     at most K preemptions, 0..8 (default 2)\n"
	      "  -b, --budget S          stop starting schedules after S seconds (default: none)\n"
	      "      --even-budget       each pair stops at what is left of the budget over the\n"
	      "                          pairs left, so that one large pair cannot starve the\n"
	      "                          rest (the pairs before it leave it what they did not use)\n"
	      "      --seed X            the world's seed (default 1)\n"
	      "      --inject NAME       switch on a seeded bug\n"
	      "  -o, --out DIR           the record (explore.json) and failure artifacts there\n"
	      "      --json              print the record on stdout\n"
	      "      --prune             sleep sets: skip a switch back whose segments touch\n"
	      "                          disjoint objects. Faster, but objects are compared\n"
	      "                          by address across runs, and the allocator may put\n"
	      "                          one object elsewhere in another run: the count may\n"
	      "                          vary and a pruned walk is no proof (default: every\n"
	      "                          schedule within K; --no-prune says so explicitly)\n"
	      "      --no-prepass        no serial pre-pass (default: each pair first runs once\n"
	      "                          with no preemption, recording the objects each CPU's\n"
	      "                          sites (lock operations, yield points) touch; pairs\n"
	      "                          whose CPUs touch a common object are\n"
	      "                          'communicating' and explored first, and in every\n"
	      "                          pair preemptions before a CPU's segment that touches\n"
	      "                          such an object run first: the order changes, not\n"
	      "                          the set)\n"
	      "      --no-progress       no progress line on stderr\n"
	      "  -q, --quiet             only the total\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "Exit status: 0 no failure, 1 a failure found, 2 bad usage, 3 internal error.\n", f);
}

static void parse_explore_opts(int argc, char **argv, struct explore_opts *o)
{
	enum { OPT_OPS = 1000, OPT_SEED, OPT_INJECT, OPT_JSON, OPT_NO_PROGRESS, OPT_TEST_WINDOW,
	       OPT_NO_PRUNE, OPT_PRUNE, OPT_NO_PREPASS, OPT_TEST_WINDOW_BUG, OPT_EVEN_BUDGET, OPT_KSWAPD };
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
		{ "test-window-bug", no_argument, NULL, OPT_TEST_WINDOW_BUG },
		{ "no-prune", no_argument, NULL, OPT_NO_PRUNE },
		{ "prune", no_argument, NULL, OPT_PRUNE },
		{ "no-prepass", no_argument, NULL, OPT_NO_PREPASS },
		{ "even-budget", no_argument, NULL, OPT_EVEN_BUDGET },
		{ "kswapd", no_argument, NULL, OPT_KSWAPD },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	rt_common_opts_init(&o->common, "explore", explore_usage, 7 * 86400);
	o->scenario = "mixed32";
	o->rmap = rmap_mode_name(RMAP_DEFAULT);
	o->seed = "1";
	o->k = 2;
	o->progress = isatty(STDERR_FILENO);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":S:r:k:b:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'S': o->scenario = optarg; break;
		case 'r': o->rmap = optarg; break;
		case OPT_OPS:
			if (o->nr_ops == EXPLORE_MAX_OPS)
				rt_usage_error("--ops: more than %d pairs", EXPLORE_MAX_OPS);
			o->ops[o->nr_ops++] = optarg;
			break;
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
		case OPT_TEST_WINDOW_BUG: o->test_window_bug = true; break;
		case OPT_NO_PRUNE: o->prune = false; break;
		case OPT_PRUNE: o->prune = true; break;
		case OPT_NO_PREPASS: o->no_prepass = true; break;
		case OPT_EVEN_BUDGET: o->even_budget = true; break;
		case OPT_KSWAPD: o->kswapd = true; break;
		default: rt_common_opt(&o->common, c, optarg, argv[optind - 1]); break;
		}
	}
	if (optind < argc)
		rt_usage_error("explore: unexpected argument '%s' (see 'rmaptorture explore --help')",
			       argv[optind]);
	if (!wl_find(o->scenario))
		rt_usage_error("--scenario: unknown scenario '%s' (see 'rmaptorture list')", o->scenario);
	if (strcmp(o->rmap, "all") && rmap_mode_by_name(o->rmap) < 0)
		rt_usage_error("--rmap: unknown design '%s' (%s, all)", o->rmap, rt_opt_designs(", "));
	if (o->common.out_dir)
		rt_opt_out_dir("--out", o->common.out_dir);
}

/* --ops A,B (each A or A+B..., rt_fixed_ops_parse()) into @pair. Exit 2 on anything else. */
static void parse_pair(const char *arg, struct rt_fixed_seq pair[2])
{
	struct rt_fixed_seq cpus[RT_FIXED_OPS_MAX];
	char err[128];
	int n = rt_fixed_ops_parse(arg, cpus, RT_FIXED_OPS_MAX, err, sizeof(err));

	if (n < 0)
		rt_usage_error("--ops: '%s': %s", arg, err);
	if (n != 2)
		rt_usage_error("--ops: '%s' is not a pair of operations A,B (a third CPU: --kswapd)",
			       arg);
	pair[0] = cpus[0];
	pair[1] = cpus[1];
}

/* What one pair in one design came to. */
struct pair_result {
	struct rt_fixed_seq ops[2];	/* CPU 0's and CPU 1's */
	char name[2][160];		/* their operations as --ops writes them */
	enum rmap_mode mode;
	unsigned long schedules, diverged, pruned;
	bool exhausted, failed;
	bool abandoned;		/* a hang or a BUG: the model cannot be run again */
	double seconds;
	char signature[256];
	json_t *preempted;	/* the failing schedule's preemptions: [{decision, cpu, site}] */
	char decisions[4096];	/* the failing schedule, run-length coded */
	bool in_warmup;		/* the failure came in the world's serial warm-up */
	bool have_prepass;	/* @prepass is this pair's serial pre-pass */
	struct rt_prepass prepass;
};

/*
 * The run options of one schedule of @pair: `run --sched explore
 * --fixed-ops A,B [--reclaim-threads 1] ...`.
 */
static void pair_run_opts(const struct explore_opts *eo, const struct pair_result *pr,
			  struct rt_run_opts *ro)
{
	char fixed[400];
	char *argv[32];
	int argc = 0;

	snprintf(fixed, sizeof(fixed), "%s,%s", pr->name[0], pr->name[1]);
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
	if (eo->kswapd) {
		argv[argc++] = "--reclaim-threads";
		argv[argc++] = "1";
	}
	if (eo->inject) {
		argv[argc++] = "--inject";
		argv[argc++] = (char *)eo->inject;
	}
	if (eo->test_window)
		argv[argc++] = "--test-window";
	if (eo->test_window_bug)
		argv[argc++] = "--test-window-bug";
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
	ro->cfg.reclaim_threads = eo->kswapd;
	ro->cfg.on_report = rt_run_on_report;
	ro->cfg.on_report_arg = ro;
	/* Its schedules' pairs are never read: record the sites only. */
	ro->cfg.cover_sites_only = true;
	ro->mode_now = pr->mode;
	ro->cfg.mode = pr->mode;
}

/* The CPUs of a schedule, scheduler slots 0.. (the workers, then kswapd): the footprint's. */
static int explore_cpus(const struct rt_run_opts *ro)
{
	int n = ro->cfg.threads + ro->cfg.reclaim_threads;

	return n < COVER_FP_SLOTS ? n : COVER_FP_SLOTS;
}

/*
 * What a preempted CPU was about to do at its switch point, after its
 * last site (@buf): a lock's own site is recorded once it is taken, so a
 * preemption before an acquisition names the lock class it was about to
 * take. A yield point and a release are their own sites.
 */
static void switch_point_format(const struct rt_sched_decision *d, char *buf, size_t len)
{
	size_t n = strlen(buf);
	const char *what = NULL;

	switch (d->point) {
	case SP_LOCK: what = "about to take"; break;
	case SP_WAIT: what = "waiting for"; break;
	default: return;
	}
	if (d->point_cls >= 0 && n < len)
		snprintf(buf + n, len - n, ", %s %s", what, lock_class_name(d->point_cls));
}

/* The failing schedule's preemptions, with the site each CPU was at: the report. */
static void note_failure(struct pair_result *pr, const struct rt_run_result *res,
			 const struct rt_sched_decision *t, unsigned long n, const int *prefix,
			 size_t nr)
{
	snprintf(pr->signature, sizeof(pr->signature), "%s",
		 res->nr_failures ? res->failures[0].signature : "audit");
	pr->in_warmup = res->nr_failures && res->failures[0].op &&
			!strcmp(res->failures[0].op, "warm-up");
	rt_explore_format(prefix, nr, pr->decisions, sizeof(pr->decisions));
	pr->preempted = json_array();
	for (unsigned long i = 0; i < n; i++) {
		char site[256] = "(no site)";

		if (!t[i].me_enabled || t[i].chosen == t[i].me)
			continue;
		if (t[i].site >= 0)
			cover_site_format(t[i].site, site, sizeof(site));
		switch_point_format(&t[i], site, sizeof(site));
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
	struct cover_footprint *fp = NULL;
	struct rt_prepass run_pp;
	const int *prefix;
	size_t nr;
	double start = rt_now_s();
	int ret = 0;

	pair_run_opts(eo, pr, ro);
	inject_mask = ro->cfg.inject_mask;
	rt_explore_init(&x, eo->k, eo->prune);
	if (!eo->no_prepass)
		fp = rt_calloc(1, sizeof(*fp));
	while (!rt_interrupted && rt_explore_next(&x, &prefix, &nr)) {
		const struct rt_sched_decision *t;
		unsigned long n;
		int rc;

		if (deadline > 0 && rt_now_s() >= deadline)
			break;
		ro->cfg.decisions = prefix;
		ro->cfg.nr_decisions = nr;
		ro->run_start = rt_now_s();
		cover_footprint_record(fp);
		rc = rt_run(&ro->cfg, res);
		cover_footprint_record(NULL);
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
		if (fp) {
			/* This run's communicating objects mark its switch points. */
			rt_prepass_classify(fp, explore_cpus(ro), &run_pp);
			rt_explore_set_hot(&x, run_pp.objs, run_pp.nr_objs);
		}
		rt_explore_feed(&x, t, n);
		if (eo->progress && x.schedules % 16 == 0)
			fprintf(stderr, "\r\033[Kexplore %s %s,%s%s: %lu schedules, %.1f s",
				rmap_mode_name(pr->mode), pr->name[0], pr->name[1],
				eo->kswapd ? " +kswapd" : "", x.schedules, rt_now_s() - start);
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
	free(fp);
	rt_explore_free(&x);
	free(ro->decisions);
	free(ro);
	free(res);
	return ret;
}

/*
 * The serial pre-pass of one pair (rt_explore_prepass.h): its default
 * schedule, no preemption, with the footprint recorded. A failure there
 * is the pair's failure, found in its first schedule (@pr says so).
 * Return: 0, or exit status 3.
 */
static int prepass_pair(const struct explore_opts *eo, struct pair_result *pr)
{
	struct rt_run_opts *ro = rt_calloc(1, sizeof(*ro));
	struct rt_run_result *res = rt_calloc(1, sizeof(*res));
	struct cover_footprint *fp = rt_calloc(1, sizeof(*fp));
	int rc, ret = 0;

	pair_run_opts(eo, pr, ro);
	inject_mask = ro->cfg.inject_mask;
	ro->cfg.decisions = NULL;
	ro->cfg.nr_decisions = 0;
	ro->run_start = rt_now_s();
	cover_footprint_record(fp);
	rc = rt_run(&ro->cfg, res);
	cover_footprint_record(NULL);
	if (rc == 3) {
		fprintf(stderr, "rmaptorture: explore: a pre-pass run's setup failed\n");
		ret = RT_EXIT_INTERNAL;
	} else {
		rt_prepass_classify(fp, explore_cpus(ro), &pr->prepass);
		pr->have_prepass = true;
	}
	if (rc && rc != 3) {
		/* The schedule with no preemption fails: the pair's failure, as the walk would find it. */
		const struct rt_sched_decision *t;
		unsigned long n;

		t = rt_sched_trace(&n);
		pr->schedules = 1;
		note_failure(pr, res, t, n, NULL, 0);
		pr->failed = true;
		pr->abandoned = res->hang || res->oops;
		if (pr->abandoned)
			return ret;	/* threads left in the model still read ro->cfg */
	}
	free(fp);
	free(ro->decisions);
	free(ro);
	free(res);
	return ret;
}

/* "; communicating (mm 1, page 2)", "; not communicating", or nothing (no pre-pass). */
static void print_comm(FILE *out, const struct pair_result *pr)
{
	char kinds[256];

	if (!pr->have_prepass)
		return;
	if (!pr->prepass.communicates) {
		fputs("; not communicating", out);
		return;
	}
	rt_prepass_kinds(&pr->prepass, kinds, sizeof(kinds));
	fprintf(out, "; communicating (%s%s)", kinds, pr->prepass.overflow ? ", maybe more" : "");
}

static void print_pair(FILE *out, const struct explore_opts *eo, const struct pair_result *pr)
{
	const char *a = pr->name[0], *b = pr->name[1];

	if (pr->failed) {
		size_t i;
		json_t *p;

		fprintf(out, "%s %s,%s: FAILURE after %lu schedules (%.2f s): %s",
			rmap_mode_name(pr->mode), a, b, pr->schedules, pr->seconds, pr->signature);
		print_comm(out, pr);
		fputc('\n', out);
		fprintf(out, "  the two operations: CPU 0 %s, CPU 1 %s%s; decisions %s\n", a, b,
			eo->kswapd ? ", CPU 2 kswapd" : "", pr->decisions);
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
			" in any schedule of this world with at most %d preemptions%s",
			rmap_mode_name(pr->mode), a, b, eo->k, pr->schedules, pr->pruned, pr->seconds, eo->k,
			pr->diverged ? " (some runs left their prefix: not a proof)" :
			pr->pruned ? " (--prune compared objects by address across runs: not a proof)" : "");
	else
		fprintf(out, "%s %s,%s: cut by the budget after %lu schedules (%lu pruned), %.2f s",
			rmap_mode_name(pr->mode), a, b, pr->schedules, pr->pruned, pr->seconds);
	print_comm(out, pr);
	fputc('\n', out);
}

static json_t *pair_json(const struct pair_result *pr)
{
	json_t *j = json_pack("{s:s, s:[s,s], s:I, s:I, s:b, s:b, s:f, s:I}",
		"rmap", rmap_mode_name(pr->mode),
		"ops", pr->name[0], pr->name[1],
		"schedules", (json_int_t)pr->schedules,
		"pruned", (json_int_t)pr->pruned,
		"exhausted", pr->exhausted,
		"failed", pr->failed,
		"seconds", pr->seconds,
		"diverged", (json_int_t)pr->diverged);

	if (pr->have_prepass) {
		json_t *kinds = json_object();

		for (int k = 0; k < COVER_NR_KINDS; k++)
			if (pr->prepass.kinds[k])
				json_object_set_new(kinds, cover_kind_name(k),
						    json_integer(pr->prepass.kinds[k]));
		json_object_set_new(j, "communicates", json_boolean(pr->prepass.communicates));
		json_object_set_new(j, "communicating_objects", json_pack("{s:i, s:b, s:o}",
			"count", pr->prepass.nr, "maybe_more", pr->prepass.overflow, "kinds", kinds));
	}
	if (pr->failed)
		json_object_set_new(j, "failure", json_pack("{s:s, s:s, s:O}",
			"signature", pr->signature, "decisions", pr->decisions,
			"preempted", pr->preempted));
	return j;
}

/* Room for every ordered pair of kinds, and each kind with kswapd both ways. */
#define EXPLORE_MAX_PAIRS	(WL_NR_OPS * WL_NR_OPS + 2 * WL_NR_OPS)

static bool runs_kswapd(const struct rt_fixed_seq pair[2])
{
	for (int c = 0; c < 2; c++)
		for (int j = 0; j < pair[c].nr; j++)
			if (pair[c].ops[j] == RT_OP_KSWAPD)
				return true;
	return false;
}

/*
 * The pairs to explore, @pairs (at most EXPLORE_MAX_PAIRS), and in
 * @kswapd those of them in which a CPU runs kswapd's step (all of them
 * with --kswapd). Return: how many.
 */
static int plan_pairs(const struct explore_opts *o, struct rt_fixed_seq (*pairs)[2], int *kswapd)
{
	static int ops[EXPLORE_MAX_PAIRS][2];
	const struct rt_scenario *s = wl_find(o->scenario);
	int n;

	if (o->nr_ops) {
		*kswapd = 0;
		for (int i = 0; i < o->nr_ops; i++) {
			parse_pair(o->ops[i], pairs[i]);
			*kswapd += o->kswapd || runs_kswapd(pairs[i]);
		}
		return o->nr_ops;
	}
	n = rt_explore_pairs_kswapd(s->weights, WL_NR_OPS, RT_OP_KSWAPD, ops, EXPLORE_MAX_PAIRS);
	*kswapd = 0;
	for (int i = 0; i < n; i++) {
		for (int c = 0; c < 2; c++)
			pairs[i][c] = (struct rt_fixed_seq){ .nr = 1, .ops = { ops[i][c] } };
		*kswapd += o->kswapd || runs_kswapd(pairs[i]);
	}
	return n;
}

/*
 * The world's serial warm-up failed, before any schedule: every pair of
 * this design starts from that world, so none is explored further. A bug
 * found there needs no race (a lock order, a BUG on one CPU's path).
 */
static void warmup_failed(FILE *out, const struct explore_opts *eo, const struct pair_result *pr)
{
	fprintf(out, "explore: %s: the world's serial warm-up (world seed %s) failed before any"
		" schedule: %s. A bug that needs no race; the design's other pairs are not"
		" explored\n", rmap_mode_name(pr->mode), eo->seed, pr->signature);
}

int cmd_explore(int argc, char **argv)
{
	static struct rt_fixed_seq pairs[EXPLORE_MAX_PAIRS][2];
	struct explore_opts o;
	enum rmap_mode modes[RMAP_NR_MODES];
	int nr_modes = 0, nr_pairs, nr_kswapd, exhausted = 0, failed = 0, done = 0;
	int ret = RT_EXIT_OK;
	int prepass_runs = 0, nr_comm = 0, exhausted_comm = 0, *order;
	bool abandoned = false;	/* a pair's BUG or hang left threads in the model */
	bool warm_failed;	/* this design's world fails in its warm-up */
	struct pair_result *prs;
	bool *comm;
	unsigned long total = 0;
	double start, deadline;
	json_t *rec, *list = json_array();
	FILE *out;

	parse_explore_opts(argc, argv, &o);
	out = o.json ? stderr : stdout;
	if (!strcmp(o.rmap, "all")) {
		for (int m = 0; m < RMAP_NR_MODES; m++)
			modes[nr_modes++] = (enum rmap_mode)m;
	} else {
		modes[nr_modes++] = (enum rmap_mode)rmap_mode_by_name(o.rmap);
	}
	nr_pairs = plan_pairs(&o, pairs, &nr_kswapd);
	prs = rt_calloc((size_t)nr_pairs, sizeof(*prs));
	comm = rt_calloc((size_t)nr_pairs, sizeof(*comm));
	order = rt_calloc((size_t)nr_pairs, sizeof(*order));
	start = rt_now_s();
	deadline = o.common.budget > 0 ? start + o.common.budget : 0;
	for (int m = 0; m < nr_modes && ret != RT_EXIT_INTERNAL && !abandoned; m++) {
		warm_failed = false;
		for (int i = 0; i < nr_pairs; i++) {
			memset(&prs[i], 0, sizeof(prs[i]));
			prs[i].ops[0] = pairs[i][0];
			prs[i].ops[1] = pairs[i][1];
			for (int c = 0; c < 2; c++)
				rt_fixed_ops_format(&prs[i].ops[c], 1, prs[i].name[c],
						    sizeof(prs[i].name[c]));
			prs[i].mode = modes[m];
			order[i] = i;
		}
		for (int i = 0; i < nr_pairs && !o.no_prepass && !rt_interrupted; i++) {
			if (deadline > 0 && rt_now_s() >= deadline)
				break;
			if (o.progress)
				fprintf(stderr, "\r\033[Kexplore %s: pre-pass %d of %d pairs",
					rmap_mode_name(modes[m]), i + 1, nr_pairs);
			if (prepass_pair(&o, &prs[i])) {
				ret = RT_EXIT_INTERNAL;
				break;
			}
			prepass_runs++;
			comm[i] = prs[i].prepass.communicates;
			nr_comm += comm[i];
			if (prs[i].failed) {
				done++;
				failed++;
				total += prs[i].schedules;
				print_pair(out, &o, &prs[i]);
				fflush(NULL);
				json_array_append_new(list, pair_json(&prs[i]));
				json_decref(prs[i].preempted);
				if (prs[i].abandoned) {
					abandoned = true;
					break;
				}
				if (prs[i].in_warmup) {
					warmup_failed(out, &o, &prs[i]);
					warm_failed = true;
					break;
				}
			}
		}
		if (o.progress)
			fputs("\r\033[K", stderr);
		if (!o.no_prepass)
			rt_prepass_order(comm, nr_pairs, order);
		for (int j = 0; j < nr_pairs && !rt_interrupted && ret != RT_EXIT_INTERNAL && !abandoned &&
		     !warm_failed; j++) {
			struct pair_result *pr = &prs[order[j]];
			double now = rt_now_s(), until = deadline;

			if (pr->failed)
				continue;	/* its pre-pass failed, and said so */
			if (deadline > 0 && now >= deadline)
				break;
			if (deadline > 0 && o.even_budget)
				until = now + (deadline - now) / (nr_modes * nr_pairs - done);
			if (explore_pair(&o, pr, until)) {
				ret = RT_EXIT_INTERNAL;
				break;
			}
			done++;
			total += pr->schedules;
			exhausted += pr->exhausted;
			exhausted_comm += pr->exhausted && pr->have_prepass && pr->prepass.communicates;
			failed += pr->failed;
			print_pair(out, &o, pr);
			fflush(NULL);
			json_array_append_new(list, pair_json(pr));
			json_decref(pr->preempted);
			/* A BUG or a hang: the model cannot run again; the record still follows. */
			abandoned = pr->abandoned;
			if (pr->failed && pr->in_warmup) {
				warmup_failed(out, &o, pr);
				warm_failed = true;
			}
		}
		if (abandoned)
			break;
	}
	if (!o.no_prepass)
		fprintf(out, "explore: pre-pass: %d of %d pairs (x %d designs) communicating, %d of them"
			" exhausted\n", nr_comm, prepass_runs, nr_modes, exhausted_comm);
	fprintf(out, "explore: %s, K=%d, world seed %s%s: %d of %d pairs (%d with kswapd's step;"
		" x %d designs) explored, %d exhausted, %d failed, %lu schedules in %.1f s%s\n",
		o.scenario, o.k, o.seed, o.kswapd ? ", kswapd on CPU 2" : "", done, nr_pairs,
		nr_kswapd, nr_modes, exhausted, failed, total, rt_now_s() - start,
		abandoned ? "; stopped: a BUG or a hang left the model unusable" : "");
	rec = rt_record_new("explore");
	json_object_update_new(rec, json_pack(
		"{s:s, s:i, s:o, s:s?, s:b, s:i, s:i, s:i, s:i, s:I, s:f, s:o}",
		"scenario", o.scenario, "preemptions", o.k,
		"seed", rt_seed_json(rt_opt_u64("--seed", o.seed)), "inject", o.inject,
		"kswapd_cpu", o.kswapd, "pairs_kswapd", nr_kswapd * nr_modes,
		"pairs_total", nr_pairs * nr_modes, "pairs_exhausted", exhausted,
		"pairs_failed", failed, "schedules", (json_int_t)total,
		"seconds", rt_now_s() - start, "pairs", list));
	if (!o.no_prepass)
		json_object_set_new(rec, "prepass", json_pack("{s:i, s:i, s:i}",
			"pairs", prepass_runs, "communicating", nr_comm,
			"communicating_exhausted", exhausted_comm));
	if (o.common.out_dir) {
		char path[4200];

		snprintf(path, sizeof(path), "%s/explore.json", o.common.out_dir);
		if (rt_record_write(rec, path))
			ret = RT_EXIT_INTERNAL;
	}
	if (o.json && rt_record_write(rec, "-"))
		ret = RT_EXIT_INTERNAL;
	json_decref(rec);
	free(prs);
	free(comm);
	free(order);
	if (ret == RT_EXIT_OK && failed)
		ret = RT_EXIT_FAILURE;
	if (ret == RT_EXIT_OK && rt_interrupted)
		ret = RT_EXIT_INTERRUPTED;
	if (abandoned) {
		fflush(NULL);
		_exit(ret);	/* stuck threads cannot be joined */
	}
	return ret;
}
