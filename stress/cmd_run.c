// SPDX-License-Identifier: MIT
/*
 * `rmaptorture run` and `rmaptorture list`: options, the start line, the
 * live progress line, the end summary, the JSON result record and the
 * failure records.
 */
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compiler.h"
#include "die.h"
#include "engine.h"
#include "flight.h"
#include "inject.h"
#include "lockdep.h"
#include "perturb.h"
#include "artifact.h"
#include "record.h"
#include "rt_child.h"
#include "rt_inject.h"
#include "capture.h"
#include "variant.h"
#include "rt_cmd.h"
#include "rt_opt.h"
#include "rt_time.h"

#if RT_TSAN
# define WATCHDOG_DEFAULT 120.0		/* TSan runs 10-50x slower */
#elif RT_ASAN
# define WATCHDOG_DEFAULT 60.0
#else
# define WATCHDOG_DEFAULT 20.0
#endif

struct run_opts {
	struct rt_run_config cfg;
	struct rt_scenario scenario;	/* the named one, with --weights applied */
	bool weights_set, procs_set, seconds_set;
	bool all_modes;
	bool json;
	bool check_determinism;
	const char *out_dir;
	const char *build;		/* --build: run in this build's binary */
	bool no_build;
	int argc;
	char **argv;
	enum rmap_mode mode_now;	/* the design running now (--rmap all) */
	double run_start;		/* CLOCK_MONOTONIC seconds at its start */
	unsigned long artifacts_new, artifacts_repeat;
};

/* The share of scanned mapped pages that reclaim got as far as unmapping. */
static double rt_unmap_share(const struct reclaim_stats *rs)
{
	return rs->mapped_scanned ? (double)rs->unmap_tried / (double)rs->mapped_scanned : 0.0;
}

static void run_usage(FILE *f)
{
	fputs("usage: rmaptorture run [OPTIONS]\n"
	      "\n"
	      "Run a stress scenario against the emulated 2.6 VM in one rmap design (or each\n"
	      "in turn), audit it, and report. Prints the seed first; the same seed and\n"
	      "options give the same operation streams.\n"
	      "\n"
	      "  -S, --scenario NAME     scenario (default mixed32; see 'rmaptorture list')\n"
	      "  -r, --rmap MODE         ptechain | objfile | anonvma | mainline8 | mainline9 | all\n"
	      "                          (default ptechain)\n"
	      "  -t, --threads N         worker threads, 1..1024 (default: the scenario's)\n"
	      "  -R, --reclaim-threads N kswapd threads, 0..64 (default: the scenario's)\n"
	      "  -s, --seconds S         run time, 0 < S <= 86400 (default 5)\n"
	      "  -n, --ops N             stop after N operations (with --seconds: whichever first)\n"
	      "      --seed X            PRNG seed (default: random)\n"
	      "  -p, --pages N           emulated memory in pages (default: the scenario's)\n"
	      "      --swap N            swap slots (default: the scenario's)\n"
	      "  -a, --audit-every S     park all threads and audit every S seconds (default 1;\n"
	      "                          0: only at the end)\n"
	      "  -o, --out DIR           write the result record and failure records there\n"
	      "      --json              print the result record as JSON on stdout\n"
	      "      --perturb LEVEL     0..3: random yields and delays at the model's yield points\n"
	      "      --yield-points LIST comma-separated points to perturb (default all); 'list'\n"
	      "                          prints them\n"
	      "      --long-hold LIST    lock classes to hold longer now and then (locktorture)\n"
	      "      --watchdog S        seconds without progress that count as a hang\n"
	      "      --sched KIND        free (real threads, default) | random | pct: one thread\n"
	      "                          at a time, switching at every lock operation, chosen\n"
	      "                          from the seed, so the run replays exactly\n"
	      "      --pct-depth D       pct: bug depth aimed at, 1..16 (default 3)\n"
	      "      --pct-steps K       pct: change points fall in the first K decisions\n"
	      "                          (default 20000)\n"
	      "      --sched-steps N     random/pct: stop after N decisions (no time bound\n"
	      "                          unless --seconds is given)\n"
	      "      --check-determinism random/pct: run twice and compare every thread's\n"
	      "                          operation sequence and the outcome (exit 3 if not equal)\n"
	      "      --inject NAME       switch on a seeded bug (repeatable; 'list' names them)\n"
	      "      --weights LIST      op=weight,... overriding the scenario's operation mix\n"
	      "      --procs N           at most N processes (fork stops there)\n"
	      "      --no-flight         switch the flight recorder off\n"
	      "      --halt-on-failure   end the run at the first failure (it still audits)\n"
	      "      --build KIND        plain | tsan | asan: run this command in that build\n"
	      "                          (found next to this one, or built with meson and\n"
	      "                          ninja), capture every sanitizer report and turn it\n"
	      "                          into an artifact in --out DIR, one per signature\n"
	      "      --no-build          with --build: fail if that build is not there\n"
	      "      --test-race         test-only: workers race on an unlocked counter\n"
	      "      --no-progress       no live progress line\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "With --out, every failure leaves DIR/failure-KIND-HASH.json (one per signature,\n"
	      "repeats counted): what, where, each thread's last events, and the command that\n"
	      "reproduces it ('rmaptorture replay FILE').\n"
	      "\n"
	      "Exit status: 0 clean, 1 a failure was found, 2 bad usage, 3 internal error,\n"
	      "130 interrupted (the run stops cleanly, audits and reports what it measured).\n",
	      f);
}

static bool yield_filter[64];
static bool yield_filter_on;

static uint64_t parse_classes(const char *opt, const char *arg)
{
	char buf[512], *save = NULL, *tok;
	uint64_t mask = 0;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int c = lock_class_by_name(tok);

		if (c < 0 || c >= LOCK_CLASS_NR_STATIC)
			rt_usage_error("%s: unknown lock class '%s'", opt, tok);
		mask |= 1ULL << c;
	}
	return mask;
}

/* --weights read=10,fork=0,...: override the named ops' weights. */
static void parse_weights(const char *arg, struct rt_scenario *s)
{
	char buf[1024], *save = NULL, *tok;
	unsigned long total = 0;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", arg) >= sizeof(buf))
		rt_usage_error("--weights: list too long");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int k;

		if (!eq)
			rt_usage_error("--weights: '%s' is not op=weight", tok);
		*eq = '\0';
		for (k = 0; k < WL_NR_OPS; k++)
			if (!strcmp(wl_op_name((enum wl_op)k), tok))
				break;
		if (k == WL_NR_OPS)
			rt_usage_error("--weights: unknown operation '%s'", tok);
		s->weights[k] = (unsigned int)rt_opt_int("--weights", eq + 1, 0, 1000000);
	}
	for (int k = 0; k < WL_NR_OPS; k++)
		total += s->weights[k];
	if (!total)
		rt_usage_error("--weights: every operation has weight 0");
}

static void parse_yield_points(const char *arg)
{
	char buf[1024], *save = NULL, *tok;

	if (!strcmp(arg, "list")) {
		for (int i = 0; yield_point_names[i]; i++)
			printf("%s\n", yield_point_names[i]);
		exit(RT_EXIT_OK);
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; yield_point_names[i]; i++)
			if (!strcmp(yield_point_names[i], tok))
				break;
		if (!yield_point_names[i])
			rt_usage_error("--yield-points: unknown point '%s' (see --yield-points list)", tok);
		yield_filter[i] = true;
	}
	yield_filter_on = true;
}

static void parse_run_opts(int argc, char **argv, struct run_opts *o)
{
	static const struct option opts[] = {
		{ "scenario", required_argument, NULL, 'S' },
		{ "rmap", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 't' },
		{ "reclaim-threads", required_argument, NULL, 'R' },
		{ "seconds", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'X' },
		{ "pages", required_argument, NULL, 'p' },
		{ "swap", required_argument, NULL, 'W' },
		{ "audit-every", required_argument, NULL, 'a' },
		{ "out", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "perturb", required_argument, NULL, 'P' },
		{ "yield-points", required_argument, NULL, 'Y' },
		{ "long-hold", required_argument, NULL, 'L' },
		{ "watchdog", required_argument, NULL, 'w' },
		{ "no-progress", no_argument, NULL, 'N' },
		{ "test-hang", required_argument, NULL, 'H' },
		{ "test-race", no_argument, NULL, 'T' },
		{ "sched", required_argument, NULL, 'D' },
		{ "pct-depth", required_argument, NULL, 'E' },
		{ "pct-steps", required_argument, NULL, 'K' },
		{ "sched-steps", required_argument, NULL, 'Z' },
		{ "check-determinism", no_argument, NULL, 'C' },
		{ "inject", required_argument, NULL, 'I' },
		{ "weights", required_argument, NULL, 'G' },
		{ "procs", required_argument, NULL, 'U' },
		{ "no-flight", no_argument, NULL, 'F' },
		{ "halt-on-failure", no_argument, NULL, 'J' },
		{ "build", required_argument, NULL, 'B' },
		{ "no-build", no_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *scenario = "mixed32", *weights = NULL;
	bool scenario_set = false, rmap_set = false, sched_set = false, watchdog_set = false;
	const struct rt_bug *bug = NULL;
	long long threads = -1, reclaim = -1, pages = -1, swap = -1, procs = -1;
	bool seed_set = false;
	int c;

	memset(o, 0, sizeof(*o));
	o->argc = argc;
	o->argv = argv;
	o->cfg.mode = RMAP_PTECHAIN;
	o->cfg.seconds = 5;
	o->cfg.audit_every = 1;
	o->cfg.watchdog = WATCHDOG_DEFAULT;
	o->cfg.progress = isatty(STDERR_FILENO);
	o->cfg.pct_depth = 3;
	o->cfg.pct_steps = 20000;
	o->cfg.sched_audit_steps = 20000;
	flight_enabled = 1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "S:r:t:R:s:n:p:a:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'S': scenario = optarg; scenario_set = true; break;
		case 'r':
			rmap_set = true;
			if (!strcmp(optarg, "all")) {
				o->all_modes = true;
			} else {
				int m = rmap_mode_by_name(optarg);

				if (m < 0)
					rt_usage_error("--rmap: unknown design '%s' (ptechain, objfile, anonvma, mainline8, mainline9, all)",
						       optarg);
				o->cfg.mode = (enum rmap_mode)m;
			}
			break;
		case 't': threads = rt_opt_int("--threads", optarg, 1, 1024); break;
		case 'R': reclaim = rt_opt_int("--reclaim-threads", optarg, 0, 64); break;
		case 's':
			o->cfg.seconds = rt_opt_seconds("--seconds", optarg, 0, 86400);
			o->seconds_set = true;
			break;
		case 'n': o->cfg.ops = (unsigned long)rt_opt_int("--ops", optarg, 1, 1000000000000LL); break;
		case 'X': o->cfg.seed = rt_opt_u64("--seed", optarg); seed_set = true; break;
		case 'p': pages = rt_opt_int("--pages", optarg, (long long)MEM_MIN_PAGES,
					     (long long)MEM_MAX_PAGES); break;
		case 'W': swap = rt_opt_int("--swap", optarg, 2, 1LL << 24); break;
		case 'a':
			o->cfg.audit_every = strcmp(optarg, "0") ?
				rt_opt_seconds("--audit-every", optarg, 0, 86400) : 0;
			break;
		case 'o': o->out_dir = optarg; break;
		case 'j': o->json = true; break;
		case 'P': o->cfg.perturb = (int)rt_opt_int("--perturb", optarg, 0, 3); break;
		case 'Y': parse_yield_points(optarg); break;
		case 'L': o->cfg.long_hold_mask = parse_classes("--long-hold", optarg); break;
		case 'w':
			o->cfg.watchdog = rt_opt_seconds("--watchdog", optarg, 0, 86400);
			watchdog_set = true;
			break;
		case 'N': o->cfg.progress = false; break;
		case 'H': o->cfg.test_hang = optarg; break;
		case 'T': o->cfg.test_race = true; break;
		case 'D': {
			int k = rt_sched_by_name(optarg);

			if (k < 0)
				rt_usage_error("--sched: unknown schedule '%s' (free, random, pct)", optarg);
			o->cfg.sched = (enum rt_sched_kind)k;
			sched_set = true;
			break;
		}
		case 'E': o->cfg.pct_depth = (int)rt_opt_int("--pct-depth", optarg, 1, 16); break;
		case 'K': o->cfg.pct_steps = (unsigned long)rt_opt_int("--pct-steps", optarg, 1, 1LL << 40); break;
		case 'Z': o->cfg.sched_steps = (unsigned long)rt_opt_int("--sched-steps", optarg, 1, 1LL << 50); break;
		case 'C': o->check_determinism = true; break;
		case 'I': {
			int b;

			if (!strcmp(optarg, "list")) {
				for (int i = 0; i < INJECT_NR_BUGS; i++)
					printf("%s\n", inject_name((enum inject_bug)i));
				exit(RT_EXIT_OK);
			}
			b = inject_by_name(optarg);
			if (b < 0)
				rt_usage_error("--inject: unknown seeded bug '%s' (see --inject list)", optarg);
			o->cfg.inject_mask |= 1ULL << b;
			if (!bug)
				bug = rt_bug_find(optarg);
			break;
		}
		case 'G': weights = optarg; break;
		case 'U': procs = rt_opt_int("--procs", optarg, 1, 4096); break;
		case 'F': flight_enabled = 0; break;
		case 'J': o->cfg.halt_on_failure = true; break;
		case 'B':
			if (strcmp(optarg, "plain") && strcmp(optarg, "tsan") && strcmp(optarg, "asan"))
				rt_usage_error("--build: unknown build '%s' (plain, tsan, asan)", optarg);
			o->build = optarg;
			break;
		case 'Q': o->no_build = true; break;
		case 'h': run_usage(stdout); exit(RT_EXIT_OK);
		default: rt_opt_bad("run", optopt, argv[optind - 1]);
		}
	}
	if (optind < argc)
		rt_usage_error("run: unexpected argument '%s' (see 'rmaptorture run --help')",
			       argv[optind]);
	/*
	 * --inject alone: the bug's own configuration (list --bugs), so that
	 * its one-liner reproduces it; anything given explicitly still wins.
	 */
	if (bug && !scenario_set && !rmap_set && !sched_set) {
		int m = rmap_mode_by_name(bug->rmap);

		scenario = bug->scenario;
		o->cfg.mode = (enum rmap_mode)(m >= 0 ? m : RMAP_PTECHAIN);
		o->cfg.sched = (enum rt_sched_kind)rt_sched_by_name(bug->sched);
		if (threads < 0)
			threads = bug->threads;
		if (reclaim < 0)
			reclaim = bug->reclaim_threads;
		if (!seed_set) {
			o->cfg.seed = bug->seed;
			seed_set = true;
		}
		if (o->cfg.sched != RT_SCHED_FREE && !o->cfg.sched_steps)
			o->cfg.sched_steps = bug->sched_steps;
		if (!o->seconds_set) {
			o->cfg.seconds = bug->seconds;
			o->seconds_set = true;
		}
		if (!watchdog_set && bug->watchdog > 0)
			o->cfg.watchdog = bug->watchdog;
		if (o->cfg.sched == RT_SCHED_FREE && !o->cfg.perturb && bug->perturb) {
			o->cfg.perturb = bug->perturb;
			if (bug->yield_points && !yield_filter_on)
				parse_yield_points(bug->yield_points);
		}
		if (strcmp(bug->build, RT_BUILD_KIND) && !o->build)
			fprintf(stderr, "rmaptorture: note: %s is caught in the %s build: add --build %s\n",
				bug->name, bug->build, bug->build);
	}
	o->cfg.scenario = wl_find(scenario);
	if (!o->cfg.scenario)
		rt_usage_error("--scenario: unknown scenario '%s' (see 'rmaptorture list')", scenario);
	o->scenario = *o->cfg.scenario;
	o->cfg.scenario = &o->scenario;
	if (weights)
		parse_weights(weights, &o->scenario);
	o->weights_set = weights != NULL;
	o->cfg.params = o->cfg.scenario->params;
	if (procs > 0) {
		o->cfg.params.procs_max = (int)procs;
		if (o->cfg.params.procs_initial > (int)procs)
			o->cfg.params.procs_initial = (int)procs;
		o->procs_set = true;
	}
	if (o->cfg.sched == RT_SCHED_FREE) {
		if (o->cfg.sched_steps)
			rt_usage_error("--sched-steps: needs --sched random or pct");
		if (o->check_determinism)
			rt_usage_error("--check-determinism: needs --sched random or pct");
	} else {
		if (o->cfg.perturb || o->cfg.long_hold_mask)
			rt_usage_error("--perturb/--long-hold: the %s schedule decides every switch; use --sched free",
				       rt_sched_name(o->cfg.sched));
		/* Bounded by decisions alone unless a time was asked for. */
		if (o->cfg.sched_steps && !o->seconds_set)
			o->cfg.seconds = 0;
	}
	o->cfg.threads = threads > 0 ? (int)threads : o->cfg.scenario->default_threads;
	o->cfg.reclaim_threads = reclaim >= 0 ? (int)reclaim :
				 o->cfg.scenario->default_reclaim_threads;
	if (pages > 0)
		o->cfg.params.pages = (unsigned long)pages;
	if (swap > 0)
		o->cfg.params.swap_slots = (unsigned long)swap;
	if (o->cfg.params.pages < wl_min_pages(&o->cfg.params))
		rt_usage_error("--pages: %lu pages is too small for scenario %s (needs at least %lu)",
			       o->cfg.params.pages, scenario, wl_min_pages(&o->cfg.params));
	if (o->cfg.long_hold_mask && !o->cfg.perturb)
		o->cfg.perturb = 1;
	if (!seed_set) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		o->cfg.seed = ((uint64_t)ts.tv_sec * 1000003ULL) ^ (uint64_t)ts.tv_nsec ^
			      ((uint64_t)getpid() << 32);
	}
	if (o->json)
		o->cfg.progress = false;
}

static void args_add(json_t *args, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void args_add(json_t *args, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(args, json_string(buf));
}

/*
 * The arguments (after the program name) that reproduce this run in
 * @mode. A deterministic run is bounded by @sched_steps decisions (0:
 * as this run was), which is how an artifact replays up to its failure.
 */
static json_t *reproduce_args(const struct run_opts *o, enum rmap_mode mode,
			      unsigned long sched_steps)
{
	const struct rt_run_config *c = &o->cfg;
	json_t *args = json_array();

	args_add(args, "run");
	args_add(args, "--scenario");
	args_add(args, "%s", c->scenario->name);
	args_add(args, "--rmap");
	args_add(args, "%s", rmap_mode_name(mode));
	args_add(args, "--threads");
	args_add(args, "%d", c->threads);
	args_add(args, "--reclaim-threads");
	args_add(args, "%d", c->reclaim_threads);
	args_add(args, "--seed");
	args_add(args, "%" PRIu64, c->seed);
	args_add(args, "--pages");
	args_add(args, "%lu", c->params.pages);
	args_add(args, "--swap");
	args_add(args, "%lu", c->params.swap_slots);
	if (o->procs_set) {
		args_add(args, "--procs");
		args_add(args, "%d", c->params.procs_max);
	}
	if (o->weights_set) {
		char w[1024];
		int n = 0;

		w[0] = '\0';
		for (int k = 0; k < WL_NR_OPS; k++)
			n += snprintf(w + n, sizeof(w) - (size_t)n, "%s%s=%u", n ? "," : "",
				      wl_op_name((enum wl_op)k), c->scenario->weights[k]);
		args_add(args, "--weights");
		args_add(args, "%s", w);
	}
	for (int b = 0; b < INJECT_NR_BUGS; b++) {
		if (c->inject_mask & (1ULL << b)) {
			args_add(args, "--inject");
			args_add(args, "%s", inject_name((enum inject_bug)b));
		}
	}
	if (c->sched != RT_SCHED_FREE) {
		args_add(args, "--sched");
		args_add(args, "%s", rt_sched_name(c->sched));
		if (c->sched == RT_SCHED_PCT) {
			args_add(args, "--pct-depth");
			args_add(args, "%d", c->pct_depth);
			args_add(args, "--pct-steps");
			args_add(args, "%lu", c->pct_steps);
		}
		if (!sched_steps)
			sched_steps = c->sched_steps;
	}
	if (c->ops) {
		args_add(args, "--ops");
		args_add(args, "%lu", c->ops);
	}
	if (sched_steps) {
		args_add(args, "--sched-steps");
		args_add(args, "%lu", sched_steps);
	} else if (c->seconds > 0) {
		args_add(args, "--seconds");
		args_add(args, "%g", c->seconds);
	}
	if (c->audit_every != 1) {
		args_add(args, "--audit-every");
		args_add(args, "%g", c->audit_every);
	}
	if (c->perturb) {
		args_add(args, "--perturb");
		args_add(args, "%d", c->perturb);
	}
	if (c->perturb && c->yield_filter) {
		char l[1024];
		int n = 0;

		l[0] = '\0';
		for (int i = 0; yield_point_names[i]; i++)
			if (c->yield_filter[i])
				n += snprintf(l + n, sizeof(l) - (size_t)n, "%s%s", n ? "," : "",
					      yield_point_names[i]);
		args_add(args, "--yield-points");
		args_add(args, "%s", l);
	}
	if (c->long_hold_mask) {
		char l[512];
		int n = 0;

		l[0] = '\0';
		for (int cls = 0; cls < LOCK_CLASS_NR_STATIC; cls++)
			if (c->long_hold_mask & (1ULL << cls))
				n += snprintf(l + n, sizeof(l) - (size_t)n, "%s%s", n ? "," : "",
					      lock_class_name(cls));
		args_add(args, "--long-hold");
		args_add(args, "%s", l);
	}
	if (c->test_hang) {
		args_add(args, "--test-hang");
		args_add(args, "%s", c->test_hang);
	}
	if (c->watchdog != WATCHDOG_DEFAULT) {
		args_add(args, "--watchdog");
		args_add(args, "%g", c->watchdog);
	}
	if (c->test_race)
		args_add(args, "--test-race");
	return args;
}

/* "rmaptorture " followed by @args joined with spaces. */
static void reproduce_cmd(json_t *args, char *buf, size_t len)
{
	size_t i, n = (size_t)snprintf(buf, len, "rmaptorture");
	json_t *a;

	json_array_foreach(args, i, a)
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, " %s", json_string_value(a));
}

static void reproduce_line(const struct run_opts *o, enum rmap_mode mode, char *buf, size_t len)
{
	json_t *args = reproduce_args(o, mode, 0);

	reproduce_cmd(args, buf, len);
	json_decref(args);
}

static json_t *result_json(const struct run_opts *o, enum rmap_mode mode,
			   const struct rt_run_result *res, int rc)
{
	const struct rt_run_config *c = &o->cfg;
	json_t *rec = rt_record_new("run"), *ops = json_object(), *locks = json_object();
	json_t *fb = json_object(), *fails = json_array(), *cmd = json_array();
	char repro[1024];

	for (int i = 0; i < o->argc; i++)
		json_array_append_new(cmd, json_string(o->argv[i]));
	for (int k = 0; k < WL_NR_OPS; k++)
		json_object_set_new(ops, wl_op_name((enum wl_op)k), json_integer((json_int_t)res->ops_by_kind[k]));
	for (int cls = 0; cls < LOCK_CLASS_NR_STATIC; cls++) {
		const struct lock_class_stats *s = &res->locks[cls];

		json_object_set_new(locks, lock_class_name(cls),
			json_pack("{s:I, s:I, s:I, s:I}",
				  "acquired", (json_int_t)s->acquired,
				  "contended", (json_int_t)s->contended,
				  "try_attempts", (json_int_t)s->try_attempts,
				  "try_failures", (json_int_t)s->try_failures));
	}
	for (int s = 0; s < FB_NR_SITES; s++)
		json_object_set_new(fb, rmap_fallback_name((enum rmap_fallback_site)s),
				    json_integer((json_int_t)res->fallbacks[s]));
	for (int i = 0; i < res->nr_failures && i < RT_MAX_FAILURES; i++)
		json_array_append_new(fails, json_pack("{s:s, s:s, s:s, s:s?}",
			"kind", vm_report_kind_name(res->failures[i].kind),
			"message", res->failures[i].message,
			"signature", res->failures[i].signature,
			"op", res->failures[i].op));
	reproduce_line(o, mode, repro, sizeof(repro));
	json_object_update_new(rec, json_pack(
		"{s:o, s:s, s:s, s:i, s:i, s:I, s:f, s:I, s:f, s:o, s:o, s:o,"
		" s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:I, s:I},"
		" s:{s:I, s:I}, s:o,"
		" s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f},"
		" s:{s:I, s:I, s:I}, s:b, s:b, s:s, s:s, s:I, s:I, s:I}",
		"command", cmd,
		"scenario", c->scenario->name,
		"rmap", rmap_mode_name(mode),
		"threads", c->threads,
		"reclaim_threads", c->reclaim_threads,
		"seed", (json_int_t)c->seed,
		"seconds", res->elapsed,
		"ops", (json_int_t)res->ops,
		"ops_per_sec", res->elapsed > 0 ? (double)res->ops / res->elapsed : 0.0,
		"ops_by_kind", ops,
		"lock_stats", locks,
		"trylock_fallbacks", fb,
		"reclaim",
		"scanned", (json_int_t)res->reclaim.scanned,
		"locked_skip", (json_int_t)res->reclaim.locked_skip,
		"referenced", (json_int_t)res->reclaim.referenced,
		"swap_full", (json_int_t)res->reclaim.swap_full,
		"unmap_again", (json_int_t)res->reclaim.unmap_again,
		"unmap_fail", (json_int_t)res->reclaim.unmap_fail,
		"swapped_out", (json_int_t)res->reclaim.swapped_out,
		"file_dropped", (json_int_t)res->reclaim.file_dropped,
		"file_written", (json_int_t)res->reclaim.file_written,
		"busy", (json_int_t)res->reclaim.busy,
		"freed", (json_int_t)res->reclaim.freed,
		"refilled", (json_int_t)res->reclaim.refilled,
		"mapped_scanned", (json_int_t)res->reclaim.mapped_scanned,
		"unmap_tried", (json_int_t)res->reclaim.unmap_tried,
		"unmap_share", rt_unmap_share(&res->reclaim),
		"direct_calls", (json_int_t)res->reclaim.direct_calls,
		"direct_freed", (json_int_t)res->reclaim.direct_freed,
		"audits", "passed", (json_int_t)(res->audits - (res->audit_violations ? 1 : 0)),
		"violations", (json_int_t)res->audit_violations,
		"failures", fails,
		"rmap_bytes",
		"pte_chain_now", (json_int_t)res->rmap_bytes.pte_chain_now,
		"pte_chain_peak", (json_int_t)res->rmap_bytes.pte_chain_peak,
		"anon_vma_now", (json_int_t)res->rmap_bytes.anon_vma_now,
		"anon_vma_peak", (json_int_t)res->rmap_bytes.anon_vma_peak,
		"vma_extra_now", (json_int_t)res->rmap_bytes.vma_extra_now,
		"vma_extra_peak", (json_int_t)res->rmap_bytes.vma_extra_peak,
		"mapped_pages_peak", (json_int_t)res->mapped_pages_peak,
		"peak_bytes_per_mapped_page", res->mapped_pages_peak ?
			(double)(res->rmap_bytes.pte_chain_peak + res->rmap_bytes.anon_vma_peak +
				 res->rmap_bytes.vma_extra_peak) /
			(double)res->mapped_pages_peak : 0.0,
		"outcomes", "oom", (json_int_t)res->oom, "skipped", (json_int_t)res->skipped,
		"corrupt", (json_int_t)res->corrupt,
		"hang", res->hang,
		"interrupted", res->interrupted,
		"result", rc ? "fail" : "pass",
		"reproduce", repro,
		"sched_steps", (json_int_t)res->stop_step,
		"pages", (json_int_t)c->params.pages,
		"swap_slots", (json_int_t)c->params.swap_slots));
	return rec;
}

static void write_records(const struct run_opts *o, enum rmap_mode mode, json_t *rec)
{
	char path[4096];

	if (!o->out_dir)
		return;
	snprintf(path, sizeof(path), "%s/run-%s-%s-%" PRIu64 ".json", o->out_dir,
		 o->cfg.scenario->name, rmap_mode_name(mode), o->cfg.seed);
	rt_record_write(rec, path);
}

/*
 * The fields every failure artifact of this run shares: the whole
 * configuration and the command that reproduces it, bounded (for a
 * deterministic schedule) by @sched_steps decisions.
 */
static json_t *failure_context(const struct run_opts *o, enum rmap_mode mode,
			       unsigned long sched_steps, const char *build)
{
	const struct rt_run_config *c = &o->cfg;
	json_t *art = rt_record_new("failure"), *inject = json_array(), *weights = json_object();
	json_t *args = reproduce_args(o, mode, sched_steps);
	char seed[32], repro[2048];

	for (int b = 0; b < INJECT_NR_BUGS; b++)
		if (c->inject_mask & (1ULL << b))
			json_array_append_new(inject, json_string(inject_name((enum inject_bug)b)));
	for (int k = 0; k < WL_NR_OPS; k++)
		json_object_set_new(weights, wl_op_name((enum wl_op)k),
				    json_integer(c->scenario->weights[k]));
	snprintf(seed, sizeof(seed), "%" PRIu64, c->seed);
	reproduce_cmd(args, repro, sizeof(repro));
	/* A sanitizer's finding reproduces in its build; "args" stay the run's own. */
	if (strcmp(build, "plain"))
		snprintf(repro + strlen(repro), sizeof(repro) - strlen(repro), " --build %s", build);
	json_object_update_new(art, json_pack(
		"{s:s, s:s, s:s, s:i, s:i, s:s, s:s, s:I, s:o, s:I, s:I, s:I, s:f, s:i, s:i,"
		" s:o, s:s, s:s, s:o, s:i}",
		"record", "failure",
		"scenario", c->scenario->name,
		"rmap", rmap_mode_name(mode),
		"threads", c->threads,
		"reclaim_threads", c->reclaim_threads,
		"seed", seed,
		"sched", rt_sched_name(c->sched),
		"sched_steps", (json_int_t)(c->sched == RT_SCHED_FREE ? 0 : sched_steps),
		"inject", inject,
		"pages", (json_int_t)c->params.pages,
		"swap", (json_int_t)c->params.swap_slots,
		"ops", (json_int_t)c->ops,
		"seconds", c->seconds,
		"perturb", c->perturb,
		"procs", c->params.procs_max,
		"weights", weights,
		"build", build,
		"reproduce", repro,
		"args", args,
		"count", 1));
	if (c->sched == RT_SCHED_PCT)
		json_object_set_new(art, "pct_depth", json_integer(c->pct_depth));
	return art;
}

static json_t *sites_json(const struct vm_report_site *sites, int nr)
{
	json_t *a = json_array();

	for (int i = 0; i < nr; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:i}",
			"what", sites[i].what ? sites[i].what : "?",
			"file", sites[i].file ? sites[i].file : "?",
			"line", sites[i].line));
	return a;
}

static void flight_task_json(const char *task, const char *const *events, int nr, void *arg)
{
	json_t *ev = json_array();

	for (int i = 0; i < nr; i++)
		json_array_append_new(ev, json_string(events[i]));
	json_array_append_new(arg, json_pack("{s:s, s:o}", "task", task, "events", ev));
}

/* A hang report's every task: [{task, op, held: [{what, file, line}]}]. */
static json_t *tasks_json(const struct vm_report *r)
{
	json_t *a = json_array();

	for (int i = 0; i < r->nr_tasks; i++)
		json_array_append_new(a, json_pack("{s:s, s:s?, s:o}", "task", r->tasks[i].task,
			"op", r->tasks[i].op, "held",
			sites_json(r->tasks[i].held, r->tasks[i].nr_held)));
	return a;
}

/*
 * Every report of the model becomes an artifact at once (a BUG's task
 * then leaves the model, which is abandoned), deduplicated by signature.
 * Context: the engine's report lock held; any thread.
 */
static void on_report(const struct vm_report *r, void *arg)
{
	struct run_opts *o = arg;
	unsigned long steps = 0;
	json_t *art, *flight;
	char path[4096];
	int ret;

	if (!o->out_dir)
		return;
	if (o->cfg.sched != RT_SCHED_FREE)
		steps = rt_sched_running() ? rt_sched_steps() + 1 : rt_sched_stop_step();
	art = failure_context(o, o->mode_now, steps, RT_BUILD_KIND);
	flight = json_array();
	if (flight_enabled)
		flight_for_each(flight_task_json, flight);
	json_object_update_new(art, json_pack("{s:s, s:s, s:s, s:s?, s:s, s:o, s:o, s:o}",
		"kind", vm_report_kind_name(r->kind),
		"message", r->message,
		"signature", r->signature,
		"op", r->op,
		"task", r->task,
		"sites", sites_json(r->sites, r->nr_sites),
		"held", sites_json(r->held, r->nr_held),
		"flight", flight));
	if (r->nr_tasks)
		json_object_set_new(art, "tasks", tasks_json(r));
	json_object_set_new(art, "elapsed_s", json_real(rt_now_s() - o->run_start));
	ret = rt_artifact_save(art, o->out_dir, path, sizeof(path));
	if (ret == 1) {
		o->artifacts_new++;
		fprintf(stderr, "rmaptorture: artifact %s\n", path);
	} else if (ret == 0) {
		o->artifacts_repeat++;
	}
	json_decref(art);
}

static void print_summary(FILE *f, const struct run_opts *o, enum rmap_mode mode,
			  const struct rt_run_result *r)
{
	fprintf(f, "\n%s / %s: %lu ops in %.2f s = %.0f ops/s (%d workers, %d kswapd, %d processes at the end)\n",
		o->cfg.scenario->name, rmap_mode_name(mode), r->ops, r->elapsed,
		r->elapsed > 0 ? (double)r->ops / r->elapsed : 0.0, o->cfg.threads,
		o->cfg.reclaim_threads, r->procs_end);
	fprintf(f, "\n%-18s %12s\n", "operation", "count");
	for (int k = 0; k < WL_NR_OPS; k++)
		if (r->ops_by_kind[k])
			fprintf(f, "%-18s %12lu\n", wl_op_name((enum wl_op)k), r->ops_by_kind[k]);
	fprintf(f, "%-18s %12lu   (skipped %lu: no target)\n", "backed off (OOM)", r->oom, r->skipped);

	fprintf(f, "\n%-18s %12s %11s %7s %11s %11s\n", "lock class", "acquired",
		"contended", "cont%", "try", "try-failed");
	for (int cls = 0; cls < LOCK_CLASS_NR_STATIC; cls++) {
		const struct lock_class_stats *s = &r->locks[cls];

		if (!s->acquired && !s->try_attempts)
			continue;
		fprintf(f, "%-18s %12lu %11lu %6.2f%% %11lu %11lu\n", lock_class_name(cls),
			s->acquired, s->contended,
			s->acquired ? 100.0 * (double)s->contended / (double)s->acquired : 0.0,
			s->try_attempts, s->try_failures);
	}
	fprintf(f, "\n%-42s %10s\n", "trylock fallback site", "fired");
	for (int s = 0; s < FB_NR_SITES; s++)
		if (r->fallbacks[s])
			fprintf(f, "%-42s %10lu\n", rmap_fallback_name((enum rmap_fallback_site)s),
				r->fallbacks[s]);
	fprintf(f, "\nreclaim: scanned %lu, freed %lu (swapped out %lu, file dropped %lu, written %lu),"
		" referenced %lu, SWAP_AGAIN %lu, SWAP_FAIL %lu, locked %lu, busy %lu, swap full %lu\n",
		r->reclaim.scanned, r->reclaim.freed, r->reclaim.swapped_out, r->reclaim.file_dropped,
		r->reclaim.file_written, r->reclaim.referenced, r->reclaim.unmap_again,
		r->reclaim.unmap_fail, r->reclaim.locked_skip, r->reclaim.busy, r->reclaim.swap_full);
	fprintf(f, "reclaim: %lu scanned pages were mapped, %lu of them reached try_to_unmap (%.1f%%)\n",
		r->reclaim.mapped_scanned, r->reclaim.unmap_tried, 100.0 * rt_unmap_share(&r->reclaim));
	fprintf(f, "reclaim: direct reclaim (try_to_free_pages) %lu calls, %lu pages freed\n",
		r->reclaim.direct_calls, r->reclaim.direct_freed);
	fprintf(f, "rmap bytes: pte_chains %lu now / %lu peak, anon_vmas %lu / %lu, vma fields %lu / %lu;"
		" %lu pages mapped at the peak audit\n",
		r->rmap_bytes.pte_chain_now, r->rmap_bytes.pte_chain_peak,
		r->rmap_bytes.anon_vma_now, r->rmap_bytes.anon_vma_peak,
		r->rmap_bytes.vma_extra_now, r->rmap_bytes.vma_extra_peak, r->mapped_pages_peak);
	fprintf(f, "audits: %lu run, %lu violations; reports: %lu; teardown: %s\n",
		r->audits, r->audit_violations, rt_result_failures(r),
		r->oops ? "not run (a task died in BUG holding locks)" :
		r->hang ? "not run (hung tasks hold locks)" :
		r->teardown_violations ? "LEAKS" : "clean");
}

/* The decision at which the child's run record says it stopped; 0 if none. */
static unsigned long child_stop_step(const struct run_opts *o, enum rmap_mode mode,
				     const char *dir)
{
	char path[4096];
	unsigned long steps = 0;
	json_t *rec;

	snprintf(path, sizeof(path), "%s/run-%s-%s-%" PRIu64 ".json", dir,
		 o->cfg.scenario->name, rmap_mode_name(mode), o->cfg.seed);
	rec = json_load_file(path, 0, NULL);
	if (rec) {
		steps = (unsigned long)json_integer_value(json_object_get(rec, "sched_steps"));
		json_decref(rec);
	}
	return steps;
}

/*
 * run --build tsan|asan: run this very command in that build's binary
 * (the seed fixed, so it is the same run), with the sanitizer options the
 * capture needs, and turn every report into an artifact next to the
 * run's own. Exit: the child's, a sanitizer report counting as 1.
 */
static int run_in_build(struct run_opts *o, enum rmap_mode *modes, int nr_modes)
{
	char binary[4096], dir[4096], prefix[4200], line[256];
	int worst = RT_EXIT_OK;

	if (rt_build_binary(o->build, !o->no_build, binary, sizeof(binary)))
		return RT_EXIT_INTERNAL;
	if (o->out_dir) {
		snprintf(dir, sizeof(dir), "%s", o->out_dir);
	} else {
		snprintf(dir, sizeof(dir), "/tmp/rmaptorture-%s-XXXXXX", o->build);
		if (!mkdtemp(dir))
			rt_die("mkdtemp %s", dir);
		fprintf(stderr, "rmaptorture: artifacts go to %s\n", dir);
	}
	rt_child_catch_interrupt();
	for (int i = 0; i < nr_modes && !rt_child_interrupted(); i++) {
		json_t *args = reproduce_args(o, modes[i], 0), *context, *a;
		char **argv = rt_calloc(json_array_size(args) + 6, sizeof(*argv));
		int n = 0, nr_new = 0, nr_repeat = 0, rc, found;
		size_t k;

		argv[n++] = binary;
		json_array_foreach(args, k, a)
			argv[n++] = (char *)json_string_value(a);
		argv[n++] = "--out";
		argv[n++] = dir;
		if (!o->cfg.progress)
			argv[n++] = "--no-progress";
		argv[n] = NULL;
		snprintf(prefix, sizeof(prefix), "%s/sanitizer-%s-%s", dir, o->build,
			 rmap_mode_name(modes[i]));
		rt_sanitizer_logs_remove(prefix);
		rt_variant_setenv(o->build, prefix);
		fprintf(stderr, "rmaptorture: running in the %s build: %s\n", o->build, binary);
		rc = rt_child_run(binary, argv, 0, NULL, NULL);
		context = failure_context(o, modes[i], child_stop_step(o, modes[i], dir), o->build);
		found = rt_sanitizer_collect(prefix, context, dir, &nr_new, &nr_repeat);
		json_decref(context);
		json_decref(args);
		free(argv);
		if (found > 0)
			printf("SANITIZER: %d reports, %d new signatures, %d repeats; artifacts in %s\n"
			       "END: FAILURE (%s reports)\n", found, nr_new, nr_repeat, dir, o->build);
		if (rc == RT_CHILD_INTERRUPTED)
			return RT_EXIT_INTERRUPTED;
		if (rc < 0 || (rc != RT_EXIT_OK && rc != RT_EXIT_FAILURE && rc != 66 &&
			       rc != RT_EXIT_INTERRUPTED)) {
			fprintf(stderr, "rmaptorture: the %s build's run ended with %s\n", o->build,
				rt_child_rc_str(rc, line, sizeof(line)));
			if (found <= 0)
				return rc == RT_EXIT_USAGE ? RT_EXIT_USAGE : RT_EXIT_INTERNAL;
		}
		if (rc == RT_EXIT_INTERRUPTED)
			return RT_EXIT_INTERRUPTED;
		if (rc != RT_EXIT_OK || found > 0)
			worst = RT_EXIT_FAILURE;
	}
	return worst;
}

static const char *inject_list(const struct run_opts *o)
{
	static char buf[512];
	int n = 0;

	buf[0] = '\0';
	for (int b = 0; b < INJECT_NR_BUGS; b++)
		if (o->cfg.inject_mask & (1ULL << b))
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s%s", n ? "," : "",
				      inject_name((enum inject_bug)b));
	return n ? buf : "none";
}

/*
 * --check-determinism: replay the run just done, bounded by the decision
 * at which it stopped, and compare every thread's operation sequence and
 * the outcome. A difference is a bug of the harness (exit 3).
 */
static int check_determinism(struct run_opts *o, const struct rt_run_result *first, FILE *out)
{
	struct rt_run_config cfg = o->cfg;
	struct rt_run_result *again = rt_calloc(1, sizeof(*again));
	int rc, bad = -1;

	cfg.sched_steps = first->stop_step ? first->stop_step : cfg.sched_steps;
	cfg.seconds = 0;
	cfg.on_report = NULL;
	cfg.progress = false;
	fprintf(out, "determinism: replaying %lu decisions...\n", first->stop_step);
	fflush(out);
	rc = rt_run(&cfg, again);
	if (rc == 3) {
		free(again);
		fprintf(out, "END: FAILURE (internal: the determinism replay could not start)\n");
		return RT_EXIT_INTERNAL;
	}
	for (int i = 0; i < first->nr_threads && i < RT_MAX_THREADS; i++) {
		if (first->thread_ops[i] != again->thread_ops[i] ||
		    first->thread_hash[i] != again->thread_hash[i]) {
			bad = i;
			break;
		}
	}
	if (bad >= 0 || first->nr_threads != again->nr_threads || first->ops != again->ops ||
	    first->nr_failures != again->nr_failures ||
	    first->audit_violations != again->audit_violations ||
	    (first->nr_failures && strcmp(first->failures[0].signature, again->failures[0].signature))) {
		if (bad >= 0)
			fprintf(out, "determinism: MISMATCH (a harness bug): thread %d did %lu operations"
				" (sequence %016" PRIx64 ") then %lu (%016" PRIx64 ")\n", bad,
				first->thread_ops[bad], first->thread_hash[bad],
				again->thread_ops[bad], again->thread_hash[bad]);
		else
			fprintf(out, "determinism: MISMATCH (a harness bug): outcome %lu ops, %d failures,"
				" %lu violations then %lu ops, %d failures, %lu violations\n",
				first->ops, first->nr_failures, first->audit_violations,
				again->ops, again->nr_failures, again->audit_violations);
		fprintf(out, "END: FAILURE (internal: nondeterministic schedule)\n");
		free(again);
		return RT_EXIT_INTERNAL;
	}
	fprintf(out, "determinism: OK: %d threads, %lu operations, %lu decisions, %d failures:"
		" the same sequences twice\n", first->nr_threads, first->ops,
		again->sched_steps, first->nr_failures);
	free(again);
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	rt_interrupted = 1;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o;
	enum rmap_mode modes[RMAP_NR_MODES];
	int nr_modes = 0, worst = RT_EXIT_OK;
	json_t *all = NULL;
	struct sigaction sa;
	FILE *out;

	parse_run_opts(argc, argv, &o);
	out = o.json ? stderr : stdout;
	if (o.all_modes) {
		for (int m = 0; m < RMAP_NR_MODES; m++)
			if (!rmap_select((enum rmap_mode)m))
				modes[nr_modes++] = (enum rmap_mode)m;
		all = json_array();
	} else {
		if (rmap_select(o.cfg.mode))
			rt_usage_error("--rmap: design '%s' is not built yet", rmap_mode_name(o.cfg.mode));
		modes[nr_modes++] = o.cfg.mode;
	}
	if (o.out_dir)
		rt_opt_out_dir("--out", o.out_dir);
	if (yield_filter_on)
		o.cfg.yield_filter = yield_filter;
	/* A sanitizer build always runs as a child: its options are set at exec. */
	if (o.build && !(!strcmp(o.build, "plain") && !strcmp(RT_BUILD_KIND, "plain"))) {
		if (o.json || o.check_determinism)
			rt_usage_error("--build: --json and --check-determinism run in this build only");
		return run_in_build(&o, modes, nr_modes);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	o.cfg.on_report = on_report;
	o.cfg.on_report_arg = &o;
	inject_mask = o.cfg.inject_mask;
	for (int i = 0; i < nr_modes && !rt_interrupted; i++) {
		struct rt_run_result *res = rt_calloc(1, sizeof(*res));
		json_t *rec;
		int rc;

		o.cfg.mode = modes[i];
		o.mode_now = modes[i];
		fprintf(out, "START: rmaptorture run scenario=%s rmap=%s threads=%d reclaim_threads=%d seconds=%g ops=%lu seed=%" PRIu64 " pages=%lu swap=%lu audit_every=%g perturb=%d sched=%s inject=%s build=%s cores=%d version=%s\n",
			o.cfg.scenario->name, rmap_mode_name(modes[i]), o.cfg.threads,
			o.cfg.reclaim_threads, o.cfg.seconds, o.cfg.ops, o.cfg.seed,
			o.cfg.params.pages, o.cfg.params.swap_slots, o.cfg.audit_every,
			o.cfg.perturb, rt_sched_name(o.cfg.sched), inject_list(&o),
			RT_BUILD_KIND, rt_machine_cores(), rt_version());
		if (o.cfg.sched == RT_SCHED_PCT) {
			int n = o.cfg.threads + o.cfg.reclaim_threads;

			fprintf(out, "PCT: %d threads, depth %d, change points in the first %lu decisions:"
				" a depth-%d bug is hit with probability >= 1/(n*k^(d-1)) = %.3g per run\n",
				n, o.cfg.pct_depth, o.cfg.pct_steps, o.cfg.pct_depth,
				rt_sched_pct_bound(n, o.cfg.pct_steps, o.cfg.pct_depth));
		}
		fflush(out);
		o.run_start = rt_now_s();
		rc = rt_run(&o.cfg, res);
		if (rc != 3 && o.check_determinism && !res->hang && !res->oops && !res->interrupted) {
			int d = check_determinism(&o, res, out);

			if (d) {
				free(res);
				return d;
			}
		}
		if (rc == 3) {
			fprintf(out, "END: FAILURE (internal: setup failed)\n");
			free(res);
			return RT_EXIT_INTERNAL;
		}
		print_summary(out, &o, modes[i], res);
		rec = result_json(&o, modes[i], res, rc);
		write_records(&o, modes[i], rec);
		if (all)
			json_array_append_new(all, rec);
		else if (o.json)
			rt_record_write(rec, "-");
		if (!all)
			json_decref(rec);
		if (rc) {
			fprintf(out, "END: FAILURE (%s)\n", res->nr_failures ?
				res->failures[0].signature : "audit");
			worst = RT_EXIT_FAILURE;
			if (res->hang || res->oops) {
				/* The model is abandoned: stuck threads cannot be joined. */
				fflush(NULL);
				_exit(RT_EXIT_FAILURE);
			}
		} else if (res->interrupted) {
			fprintf(out, "END: INTERRUPTED\n");
		} else {
			fprintf(out, "END: SUCCESS\n");
		}
		fflush(out);
		free(res);
	}
	if (all) {
		if (o.json)
			rt_record_write(all, "-");
		json_decref(all);
	}
	if (rt_interrupted && worst == RT_EXIT_OK)
		return RT_EXIT_INTERRUPTED;
	return worst;
}

int cmd_list(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: rmaptorture list [--bugs]\n\nThe scenarios, one line each, then the rmap designs.\n"
		     "--bugs: the seeded bugs (--inject NAME): where each comes from, the\n"
		     "configuration and build that catch it, the detector expected to, and\n"
		     "the one-liner that reproduces it.");
		return RT_EXIT_OK;
	}
	if (argc >= 2 && !strcmp(argv[1], "--bugs")) {
		if (argc > 2)
			rt_usage_error("list: unexpected argument '%s'", argv[2]);
		rt_bug_list(stdout);
		return RT_EXIT_OK;
	}
	if (argc > 1)
		rt_usage_error("list: unexpected argument '%s'", argv[1]);
	printf("%-18s %-8s %s\n", "scenario", "threads", "what it does");
	for (int i = 0; wl_scenarios[i]; i++)
		printf("%-18s %3d+%-4d %s\n", wl_scenarios[i]->name, wl_scenarios[i]->default_threads,
		       wl_scenarios[i]->default_reclaim_threads, wl_scenarios[i]->summary);
	printf("\nrmap designs:");
	for (int m = 0; m < RMAP_NR_MODES; m++)
		printf(" %s%s", rmap_mode_name((enum rmap_mode)m),
		       rmap_select((enum rmap_mode)m) ? " (not built)" : "");
	putchar('\n');
	return RT_EXIT_OK;
}

