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
 * `replay` runs again. Here: the options, the pairs, the loop over the
 * designs and pairs, the summary and the record; the work on one pair is
 * explore_pair.c's.
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
#include "explore-internal.h"
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
			if (explore_prepass(&o, &prs[i])) {
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
				explore_print_pair(out, &o, &prs[i]);
				fflush(NULL);
				json_array_append_new(list, explore_pair_json(&prs[i]));
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
			explore_print_pair(out, &o, pr);
			fflush(NULL);
			json_array_append_new(list, explore_pair_json(pr));
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
