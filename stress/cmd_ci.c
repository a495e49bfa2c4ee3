// SPDX-License-Identifier: MIT
/*
 * `rmaptorture ci --budget SECONDS`: the merge gate. Every scenario x
 * rmap design x schedule (free, pct) x build (plain, tsan, asan) is one
 * configuration; each runs as one `run` child of its build's binary
 * (rt_try_run(): sanitizer environment, capture, artifacts), within a
 * wall-clock budget split across the builds and their configurations.
 * The gate then sums the trylock fallbacks every run record counted: a
 * fallback site that never fired in the whole gate fails it, since those
 * fallbacks are what the model exists to exercise. Output: one line per
 * configuration, a summary, and optionally JUnit XML and a JSON record.
 *
 * The budget rule (README "Gating merges"):
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
 *    reports the rest as skipped.
 *  - Time is re-planned before each child from the clock: each build
 *    ends at a deadline (the cumulative shares), a child gets what is
 *    left of its build's share over the configurations still to run,
 *    and a child that would end past the deadline is skipped.
 *  - Building a missing sanitizer variant is not counted.
 *
 * The fixed order: builds plain, tsan, asan; within a build, round j
 * and scenario s give position j * S + s and the combination
 * c = (j + s) mod C of design c mod R and schedule (c / R) mod K, so
 * that consecutive positions vary the scenario, the design and the
 * schedule together. A configuration's index is its position over all
 * builds asked for; --shard I/N takes the indices with index mod N ==
 * I - 1; `ci-merge` (cmd_ci_merge.c) reads the shards' JSON records
 * back and judges the whole gate. What judges and writes a gate, run
 * here or merged, is in ci_gate.c.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "die.h"
#include "inject.h"
#include "rmap.h"
#include "workload.h"
#include "record.h"
#include "rt_child.h"
#include "rt_cmd.h"
#include "rt_opt.h"
#include "rt_sched.h"
#include "rt_time.h"
#include "ci-internal.h"

static void ci_usage(FILE *f)
{
	fputs("usage: rmaptorture ci --budget SECONDS [OPTIONS]\n"
	      "\n"
	      "The merge gate: every scenario x rmap design (ptechain .. mainline9) x\n"
	      "schedule (free, pct) x build (plain, tsan, asan) is one configuration, run as\n"
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
	      "  -n, --dry-run           print the plan (every configuration of the shard, the\n"
	      "                          run time it would get or why it is skipped); run nothing\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "When the budget cannot give every configuration its build's minimum run time\n"
	      "(plain 1.5 s, tsan 4 s, asan 2.5 s, plus start-up), a window of consecutive\n"
	      "configurations in the fixed order, starting where the seed says, runs and the\n"
	      "rest are reported skipped. Shares: plain 50%, tsan 30%, asan 20%.\n"
	      "\n"
	      "Exit status: 0 every configuration clean and every fallback site fired,\n"
	      "1 a failure (or a site that never fired), 2 bad usage, 3 internal error (a\n"
	      "build missing, a run that could not start), 130 interrupted (the JUnit and\n"
	      "JSON files still describe what ran).\n", f);
}

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
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

static void parse_ci_opts(int argc, char **argv, struct ci_opts *o)
{
	static const struct option opts[] = {
		{ "budget", required_argument, NULL, 'b' },
		{ "junit", required_argument, NULL, 'j' },
		{ "json", required_argument, NULL, 'J' },
		{ "shard", required_argument, NULL, 'S' },
		{ "out", required_argument, NULL, 'o' },
		{ "builds", required_argument, NULL, 'B' },
		{ "seed", required_argument, NULL, 'X' },
		{ "no-build", no_argument, NULL, 'N' },
		{ "inject", required_argument, NULL, 'I' },
		{ "scenarios", required_argument, NULL, 's' },
		{ "rmaps", required_argument, NULL, 'r' },
		{ "scheds", required_argument, NULL, 'k' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *scenarios = NULL, *rmaps = NULL, *scheds = "free,pct", *builds = NULL;
	char buf[4096], *toks[64];
	bool budget_set = false;
	int c, n;

	memset(o, 0, sizeof(*o));
	o->argc = argc;
	o->argv = argv;
	o->out_dir = "ci-out";
	o->shard_i = o->shard_n = 1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "b:j:o:nh", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			o->budget = rt_opt_seconds("--budget", optarg, 0, 30 * 86400);
			budget_set = true;
			break;
		case 'j': o->junit = optarg; break;
		case 'J': o->json = optarg; break;
		case 'S': parse_shard(optarg, o); break;
		case 'o': o->out_dir = optarg; break;
		case 'B': builds = optarg; break;
		case 'X': o->seed = rt_opt_u64("--seed", optarg); o->seed_set = true; break;
		case 'N': o->no_build = true; break;
		case 'I':
			if (inject_by_name(optarg) < 0)
				rt_usage_error("--inject: unknown seeded bug '%s' (see 'rmaptorture run --inject list')",
					       optarg);
			if (o->nr_inject == (int)(sizeof(o->inject) / sizeof(o->inject[0])))
				rt_usage_error("--inject: too many");
			o->inject[o->nr_inject++] = optarg;
			break;
		case 's': scenarios = optarg; o->filtered = true; break;
		case 'r': rmaps = optarg; o->filtered = true; break;
		case 'k': scheds = optarg; o->filtered = true; break;
		case 'n': o->dry_run = true; break;
		case 'h': ci_usage(stdout); exit(RT_EXIT_OK);
		default: rt_opt_bad("ci", optopt, argv[optind - 1]);
		}
	}
	if (optind < argc)
		rt_usage_error("ci: unexpected argument '%s' (see 'rmaptorture ci --help')", argv[optind]);
	if (!budget_set)
		rt_usage_error("ci: --budget SECONDS is required (see 'rmaptorture ci --help')");

	if (builds) {
		n = split_list("--builds", builds, buf, sizeof(buf), toks, 64);
		for (int i = 0; i < n; i++) {
			int b = ci_build_by_name(toks[i]);

			if (b < 0)
				rt_usage_error("--builds: unknown build '%s' (plain, tsan, asan)", toks[i]);
			o->build_on[b] = true;
		}
	} else {
		for (int b = 0; b < CI_NR_BUILDS; b++)
			o->build_on[b] = true;
	}

	if (scenarios) {
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
	} else {
		for (int i = 0; wl_scenarios[i] && i < 64; i++)
			o->scenarios[o->nr_scenarios++] = wl_scenarios[i];
	}

	if (rmaps) {
		bool on[RMAP_NR_MODES] = { false };

		n = split_list("--rmaps", rmaps, buf, sizeof(buf), toks, 64);
		for (int i = 0; i < n; i++) {
			int m = rmap_mode_by_name(toks[i]);

			if (m < 0)
				rt_usage_error("--rmaps: unknown design '%s' (ptechain, objfile, anonvma, mainline8, mainline9)",
					       toks[i]);
			on[m] = true;
		}
		for (int m = 0; m < RMAP_NR_MODES; m++)
			if (on[m])
				o->modes[o->nr_modes++] = (enum rmap_mode)m;
	} else {
		for (int m = 0; m < RMAP_NR_MODES; m++)
			if (!rmap_select((enum rmap_mode)m))	/* the designs that are built */
				o->modes[o->nr_modes++] = (enum rmap_mode)m;
	}

	{
		bool on[3] = { false };

		n = split_list("--scheds", scheds, buf, sizeof(buf), toks, 64);
		for (int i = 0; i < n; i++) {
			int k = rt_sched_by_name(toks[i]);

			if (k < 0 || k > 2)
				rt_usage_error("--scheds: unknown schedule '%s' (free, random, pct)", toks[i]);
			on[k] = true;
		}
		/* free, pct, random: the gate's two first, in that order */
		if (on[RT_SCHED_FREE])
			o->scheds[o->nr_scheds++] = RT_SCHED_FREE;
		if (on[RT_SCHED_PCT])
			o->scheds[o->nr_scheds++] = RT_SCHED_PCT;
		if (on[RT_SCHED_RANDOM])
			o->scheds[o->nr_scheds++] = RT_SCHED_RANDOM;
	}

	if (o->junit)
		ci_check_writable("--junit", o->junit);
	if (o->json)
		ci_check_writable("--json", o->json);
	if (!o->seed_set) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		o->seed = splitmix64(((uint64_t)ts.tv_sec * 1000003ULL) ^ (uint64_t)ts.tv_nsec ^
				     ((uint64_t)getpid() << 32));
	}
}

/* The configurations of every build asked for, in the fixed order; keep this shard's. */
static void make_configs(struct ci_gate *g)
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
			c->seed = splitmix64(o->seed ^ splitmix64((uint64_t)index + 1));
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

/* Cost of one configuration of build @b: its minimum run and its overhead. */
static double min_cost(int b)
{
	return ci_builds[b].min_s + ci_builds[b].overhead_s;
}

/*
 * Split the usable budget between the builds with configurations in this
 * shard; a build whose share cannot pay for one gives it to the others.
 * Then choose each build's window of configurations.
 */
static void plan(struct ci_gate *g)
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
			if (on[b] && g->share[b] < min_cost(b)) {
				/* Drop the dearest such build first, then look again. */
				int worst = b;

				for (int k = b + 1; k < CI_NR_BUILDS; k++)
					if (on[k] && g->share[k] < min_cost(k) &&
					    min_cost(k) - g->share[k] > min_cost(worst) - g->share[worst])
						worst = k;
				on[worst] = false;
				changed = true;
				break;
			}
		}
	}
	for (int b = 0; b < CI_NR_BUILDS; b++) {
		int n = g->nr_build[b], k, start, pos = 0;

		k = on[b] ? (int)floor(g->share[b] / min_cost(b)) : 0;
		if (k > n)
			k = n;
		g->nr_selected[b] = k;
		start = n ? (int)(splitmix64(g->o.seed + (uint64_t)b) % (uint64_t)n) : 0;
		if (k == n)
			start = 0;
		g->window_start[b] = start;
		for (int i = 0; i < g->nr_cfgs; i++) {
			struct ci_config *c = &g->cfgs[i];

			if (c->build != b)
				continue;
			/* Positions start .. start + k - 1, wrapping. */
			c->selected = (pos - start + n) % n < k;
			if (c->selected) {
				c->state = CI_PLANNED;
				c->seconds = g->share[b] / k - ci_builds[b].overhead_s;
			} else if (k) {
				snprintf(c->skip_reason, sizeof(c->skip_reason),
					 "not selected: the budget runs %d of the %d %s configurations"
					 " of this shard (a window that --seed rotates)",
					 k, n, ci_builds[b].name);
			} else {
				snprintf(c->skip_reason, sizeof(c->skip_reason),
					 "not selected: the budget cannot pay for one %s configuration"
					 " (%.1f s each)", ci_builds[b].name, min_cost(b));
			}
			pos++;
		}
	}
}

static json_t *run_args(const struct ci_gate *g, const struct ci_config *c)
{
	json_t *a = json_array();
	char num[64];

#define ADD(s) json_array_append_new(a, json_string(s))
	ADD("run");
	ADD("--scenario");
	ADD(c->scenario->name);
	ADD("--rmap");
	ADD(rmap_mode_name(c->mode));
	ADD("--threads");
	snprintf(num, sizeof(num), "%d", c->threads);
	ADD(num);
	ADD("--reclaim-threads");
	snprintf(num, sizeof(num), "%d", c->reclaim_threads);
	ADD(num);
	ADD("--seed");
	snprintf(num, sizeof(num), "%" PRIu64, c->seed);
	ADD(num);
	if (c->sched != RT_SCHED_FREE) {
		ADD("--sched");
		ADD(rt_sched_name(c->sched));
	} else {
		/*
		 * Free runs widen the race windows, as locktorture does: random
		 * yields at the model's yield points and i_shared_sem held
		 * longer now and then. Without that, try_to_unmap_obj()'s
		 * i_shared_sem fallback (another CPU taking the semaphore
		 * between page_referenced() and try_to_unmap()) never fires in a
		 * short gate: the coverage check below would fail on it.
		 */
		ADD("--perturb");
		ADD("2");
		ADD("--long-hold");
		ADD("i_shared_sem");
	}
	ADD("--seconds");
	snprintf(num, sizeof(num), "%.1f", c->seconds);
	ADD(num);
	for (int i = 0; i < g->o.nr_inject; i++) {
		ADD("--inject");
		ADD(g->o.inject[i]);
	}
#undef ADD
	return a;
}

/*
 * The run fields every sanitizer report's artifact carries (as
 * cmd_run.c's failure_context() writes them for the run's own reports).
 */
static json_t *sanitizer_context(const struct ci_gate *g, const struct ci_config *c,
				 json_t *args)
{
	json_t *art = rt_record_new("failure"), *inject = json_array(), *weights = json_object();
	char seed[32];

	for (int i = 0; i < g->o.nr_inject; i++)
		json_array_append_new(inject, json_string(g->o.inject[i]));
	for (int k = 0; k < WL_NR_OPS; k++)
		json_object_set_new(weights, wl_op_name((enum wl_op)k),
				    json_integer(c->scenario->weights[k]));
	snprintf(seed, sizeof(seed), "%" PRIu64, c->seed);
	json_object_update_new(art, json_pack(
		"{s:s, s:s, s:s, s:i, s:i, s:s, s:s, s:i, s:o, s:I, s:I, s:i, s:f, s:i, s:i,"
		" s:o, s:s, s:s, s:O, s:i}",
		"record", "failure",
		"scenario", c->scenario->name,
		"rmap", rmap_mode_name(c->mode),
		"threads", c->threads,
		"reclaim_threads", c->reclaim_threads,
		"seed", seed,
		"sched", rt_sched_name(c->sched),
		"sched_steps", 0,
		"inject", inject,
		"pages", (json_int_t)c->scenario->params.pages,
		"swap", (json_int_t)c->scenario->params.swap_slots,
		"ops", 0,
		"seconds", c->seconds,
		"perturb", 0,
		"procs", c->scenario->params.procs_max,
		"weights", weights,
		"build", ci_builds[c->build].name,
		"reproduce", c->reproduce,
		"args", args,
		"count", 1));
	if (c->sched == RT_SCHED_PCT)
		json_object_set_new(art, "pct_depth", json_integer(3));
	return art;
}

/* The run record the child wrote (run-*.json in its directory), or NULL. */
static json_t *load_run_record(const char *dir)
{
	struct dirent *de;
	json_t *rec = NULL;
	DIR *d = opendir(dir);

	if (!d)
		return NULL;
	while (!rec && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char path[8300];

		if (strncmp(de->d_name, "run-", 4) || len < 9 || strcmp(de->d_name + len - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		rec = json_load_file(path, 0, NULL);
		if (rec && !json_is_object(rec)) {
			json_decref(rec);
			rec = NULL;
		}
	}
	closedir(d);
	return rec;
}

static void add_failure(struct ci_config *c, const char *kind, const char *signature,
			const char *message, const char *artifact, const char *reproduce)
{
	json_array_append_new(c->failures, json_pack("{s:s, s:s, s:s, s:s?, s:s}",
		"kind", kind, "signature", signature, "message", message ? message : "",
		"artifact", artifact, "reproduce", reproduce));
}

/* A failure that left no artifact: what the run record or the exit says. */
static void failure_without_artifact(struct ci_config *c, json_t *rec, int rc)
{
	json_t *fails = json_object_get(rec, "failures"), *f;
	char what[256];
	size_t i;

	json_array_foreach(fails, i, f) {
		const char *kind = json_string_value(json_object_get(f, "kind"));
		const char *sig = json_string_value(json_object_get(f, "signature"));

		add_failure(c, kind ? kind : "run", sig ? sig : "?",
			    json_string_value(json_object_get(f, "message")), NULL, c->reproduce);
	}
	if (json_array_size(c->failures))
		return;
	if (rc == RT_CHILD_TIMEOUT) {
		snprintf(what, sizeof(what), "timeout: killed after %.0f s (run time %.1f s)",
			 c->wall, c->seconds);
		add_failure(c, "timeout", "timeout", what, NULL, c->reproduce);
	} else if (rc > 128) {
		snprintf(what, sizeof(what), "crash:signal-%d", rc - 128);
		add_failure(c, "crash", what, c->verdict, NULL, c->reproduce);
	} else {
		snprintf(what, sizeof(what), "run:exit-%d", rc);
		add_failure(c, "run", rec ? "audit" : what, c->verdict, NULL, c->reproduce);
	}
}

/* Fill @c from the try: its verdict, its record's numbers, its failures. */
static void judge(struct ci_gate *g, struct ci_config *c, const struct rt_try_result *res)
{
	json_t *rec = load_run_record(c->rundir), *a;
	int rc = res->rc;
	size_t i;

	rt_child_rc_str(rc, c->verdict, sizeof(c->verdict));
	c->wall = res->seconds;
	c->failures = json_array();
	if (rec) {
		c->have_record = true;
		c->ops = (long long)json_integer_value(json_object_get(rec, "ops"));
		c->ops_per_sec = json_number_value(json_object_get(rec, "ops_per_sec"));
		c->fallbacks = json_incref(json_object_get(rec, "trylock_fallbacks"));
	}
	json_array_foreach(res->artifacts, i, a) {
		const json_t *art = json_object_get(a, "artifact");
		const char *repro = json_string_value(json_object_get(art, "reproduce"));

		const char *kind = json_string_value(json_object_get(a, "kind"));
		const char *sig = json_string_value(json_object_get(a, "signature"));

		add_failure(c, kind ? kind : "?", sig ? sig : "?",
			    json_string_value(json_object_get(art, "message")),
			    json_string_value(json_object_get(a, "path")),
			    repro ? repro : c->reproduce);
	}
	if (rc == RT_EXIT_USAGE && !json_array_size(c->failures)) {
		rt_try_first_line(res, g->usage_line, sizeof(g->usage_line));
		g->usage_rc = RT_EXIT_USAGE;
		c->state = CI_ERROR;
	} else if (rc == RT_EXIT_INTERNAL || rc == 127) {
		c->state = CI_ERROR;
	} else if (rc == RT_EXIT_OK && !json_array_size(c->failures)) {
		c->state = CI_PASS;
	} else {
		c->state = CI_FAIL;
		if (!json_array_size(c->failures))
			failure_without_artifact(c, rec, rc);
	}
	/* A sanitizer build's overhead, measured: wall less the run's own time. */
	if (rc == RT_EXIT_OK || rc == RT_EXIT_FAILURE || rc == 66) {
		g->overhead_sum[c->build] += c->wall - c->seconds;
		g->overhead_n[c->build]++;
	}
	json_decref(rec);
}

static void print_progress(const struct ci_config *c, int n, int total)
{
	char name[128], ops[32];
	json_t *f;
	size_t i;

	ci_config_name(c, name, sizeof(name));
	if (c->have_record)
		snprintf(ops, sizeof(ops), "%9.0f ops/s", c->ops_per_sec);
	else
		snprintf(ops, sizeof(ops), "%15s", "- ops/s");
	printf("ci [%3d/%d] %-5s %-6s %-28s %-5s %s  run %5.1f s  wall %5.1f s%s%s\n", n, total,
	       ci_builds[c->build].name, rt_sched_name(c->sched), name,
	       c->state == CI_PASS ? "pass" : c->state == CI_FAIL ? "FAIL" : "ERROR", ops,
	       c->seconds, c->wall, c->state == CI_PASS ? "" : "  ",
	       c->state == CI_PASS ? "" : c->verdict);
	json_array_foreach(c->failures, i, f) {
		const char *art = json_string_value(json_object_get(f, "artifact"));

		printf("    %s %s\n", json_string_value(json_object_get(f, "kind")),
		       json_string_value(json_object_get(f, "signature")));
		printf("      artifact:  %s\n", art ? art : "(none: see the log)");
		printf("      reproduce: %s\n", json_string_value(json_object_get(f, "reproduce")));
	}
	if (c->state != CI_PASS)
		printf("      log:       %s/output.log\n", c->rundir);
	fflush(stdout);
}

/* Run one planned configuration. Return: false when the gate must stop. */
static bool run_config(struct ci_gate *g, struct ci_config *c, int n, int total)
{
	const struct ci_build *cb = &ci_builds[c->build];
	struct rt_try_config cfg;
	struct rt_try_result res;
	json_t *args, *context = NULL;
	int rc;

	rt_remove_tree(c->dir);
	if (mkdir(c->dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "rmaptorture: ci: cannot create %s: %s\n", c->dir, strerror(errno));
		c->state = CI_ERROR;
		snprintf(c->verdict, sizeof(c->verdict), "cannot create its directory");
		c->failures = json_array();
		return false;
	}
	args = run_args(g, c);
	rt_args_cmdline(args, c->reproduce, sizeof(c->reproduce));
	if (strcmp(cb->name, "plain"))
		snprintf(c->reproduce + strlen(c->reproduce), sizeof(c->reproduce) - strlen(c->reproduce),
			 " --build %s", cb->name);
	if (strcmp(cb->name, "plain"))
		context = sanitizer_context(g, c, args);
	cfg = (struct rt_try_config){
		.binary = g->binary[c->build],
		.build = cb->name,
		.workdir = c->dir,
		.timeout_s = c->seconds + 3 * ci_overhead_est(g, c->build) + cb->slack_s,
	};
	rc = rt_try_run(&cfg, args, "", context, 1, &res);
	snprintf(c->rundir, sizeof(c->rundir), "%s", res.dir);
	json_decref(context);
	json_decref(args);
	if (rc == RT_CHILD_INTERRUPTED || res.rc == RT_EXIT_INTERRUPTED) {
		rt_try_release(&res);
		c->state = CI_SKIPPED;
		snprintf(c->skip_reason, sizeof(c->skip_reason), "interrupted");
		g->interrupted = true;
		return false;
	}
	if (rc == RT_CHILD_ERROR) {
		c->state = CI_ERROR;
		c->failures = json_array();
		snprintf(c->verdict, sizeof(c->verdict), "could not start");
		rt_try_release(&res);
		print_progress(c, n, total);
		return false;
	}
	judge(g, c, &res);
	rt_try_release(&res);
	print_progress(c, n, total);
	return !g->usage_rc;
}

static void run_gate(struct ci_gate *g)
{
	int total = 0, n = 0;
	double start = rt_now_s(), deadline = start + g->usable, build_end = start;
	bool stop = false;

	for (int b = 0; b < CI_NR_BUILDS; b++)
		total += g->nr_selected[b];
	rt_child_catch_interrupt();
	for (int b = 0; b < CI_NR_BUILDS; b++) {
		const struct ci_build *cb = &ci_builds[b];
		int left = g->nr_selected[b];
		bool last = true;

		for (int k = b + 1; k < CI_NR_BUILDS; k++)
			if (g->nr_selected[k])
				last = false;
		build_end += g->share[b];
		if (last)
			build_end = deadline;
		for (int i = 0; i < g->nr_cfgs; i++) {
			struct ci_config *c = &g->cfgs[i];
			double now, oh, t;

			if (c->build != b || !c->selected)
				continue;
			if (stop || rt_child_interrupted()) {
				if (rt_child_interrupted())
					g->interrupted = true;
				c->state = CI_SKIPPED;
				snprintf(c->skip_reason, sizeof(c->skip_reason), "%s",
					 g->interrupted ? "interrupted" : "the gate stopped early");
				continue;
			}
			now = rt_now_s();
			oh = ci_overhead_est(g, b);
			t = (build_end - now) / left - oh;
			left--;
			if (t < cb->min_s)
				t = cb->min_s;
			t = floor(t * 10) / 10;
			/* Past the build's deadline by more than a quarter of one: its share is spent. */
			if (now + t + oh > (last ? deadline : build_end + 0.25 * (cb->min_s + oh))) {
				char name[128];

				c->state = CI_SKIPPED;
				snprintf(c->skip_reason, sizeof(c->skip_reason),
					 "the budget ran out (%s's share)", cb->name);
				ci_config_name(c, name, sizeof(name));
				printf("ci [%3d/%d] %-5s %-6s %-28s skip  %s\n", ++n, total, cb->name,
				       rt_sched_name(c->sched), name, c->skip_reason);
				fflush(stdout);
				continue;
			}
			c->seconds = t;
			if (!run_config(g, c, ++n, total))
				stop = true;
		}
	}
	g->wall = rt_now_s() - start;
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
	for (int i = 0; i < g->nr_cfgs; i++) {
		const struct ci_config *c = &g->cfgs[i];
		char name[128];

		ci_config_name(c, name, sizeof(name));
		if (c->selected)
			printf("plan #%d %s %s %s seed=%" PRIu64 " threads=%d seconds=%.1f\n",
			       c->index, ci_builds[c->build].name, rt_sched_name(c->sched), name,
			       c->seed, c->threads, c->seconds);
		else
			printf("skip #%d %s %s %s (%s)\n", c->index, ci_builds[c->build].name,
			       rt_sched_name(c->sched), name, c->skip_reason);
	}
}

/* The binaries of the builds that have configurations to run (building counts apart). */
static int find_binaries(struct ci_gate *g)
{
	double t0 = rt_now_s();

	for (int b = 0; b < CI_NR_BUILDS; b++) {
		if (!g->nr_selected[b])
			continue;
		if (rt_build_binary(ci_builds[b].name, !g->o.no_build, g->binary[b],
				    sizeof(g->binary[b])))
			return -1;
	}
	g->build_seconds = rt_now_s() - t0;
	return 0;
}

int cmd_ci(int argc, char **argv)
{
	struct ci_gate *g = rt_calloc(1, sizeof(*g));

	parse_ci_opts(argc, argv, &g->o);
	make_configs(g);
	plan(g);
	if (!g->nr_cfgs)
		rt_usage_error("--shard: shard %d/%d holds none of the %d configurations",
			       g->o.shard_i, g->o.shard_n, g->nr_all);
	{
		int sel = 0;
		double cheapest = 1e30;

		for (int b = 0; b < CI_NR_BUILDS; b++) {
			sel += g->nr_selected[b];
			if (g->nr_build[b] && min_cost(b) < cheapest)
				cheapest = min_cost(b);
		}
		if (!sel)
			rt_usage_error("--budget: %g s cannot pay for one configuration (%.1f s at least)",
				       g->o.budget, cheapest / 0.95);
	}
	if (!g->o.dry_run) {
		rt_opt_out_dir("--out", g->o.out_dir);
	}
	printf("ci: seed %" PRIu64 " (--seed %" PRIu64 " repeats this selection and these runs),"
	       " budget %g s, shard %d/%d, %s\n", g->o.seed, g->o.seed, g->o.budget,
	       g->o.shard_i, g->o.shard_n, rt_version());
	if (g->o.dry_run) {
		print_plan(g);
		free(g->cfgs);
		free(g);
		return RT_EXIT_OK;
	}
	for (int b = 0; b < CI_NR_BUILDS; b++)
		if (g->nr_build[b])
			printf("ci: %s: %d of %d configurations, %.1f s\n", ci_builds[b].name,
			       g->nr_selected[b], g->nr_build[b], g->share[b]);
	fflush(stdout);
	if (find_binaries(g)) {
		free(g->cfgs);
		free(g);
		return RT_EXIT_INTERNAL;
	}
	/* Leftovers of an earlier gate in the same place would read as this one's. */
	for (int i = 0; i < g->nr_cfgs; i++)
		rt_remove_tree(g->cfgs[i].dir);

	run_gate(g);
	if (g->usage_rc) {
		fprintf(stderr, "rmaptorture: ci: the run rejected its arguments: %s\n", g->usage_line);
		return RT_EXIT_USAGE;
	}
	return ci_finish(g);
}
