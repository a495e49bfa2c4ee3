// SPDX-License-Identifier: MIT
/*
 * `rmaptorture run`'s options parsed: the lists (--weights,
 * --yield-points, --long-hold), each option's value, a seeded bug's own
 * configuration, and the checks between options. The table, the short
 * forms and --help are run_opts_table.c's.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cover_map.h"
#include "flight.h"
#include "inject.h"
#include "lockdep.h"
#include "perturb.h"
#include "rt_explore.h"
#include "rt_inject.h"
#include "rt_opt.h"
#include "run_opts.h"
#include "run_opts-internal.h"
#include "run_record.h"

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

/* --until-fallbacks SITE,...: the trylock fallback sites, by rmap_fallback_name(). */
static uint32_t parse_fallbacks(const char *arg)
{
	char buf[1024], *save = NULL, *tok;
	uint32_t mask = 0;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", arg) >= sizeof(buf))
		rt_usage_error("--until-fallbacks: list too long");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int s = 0;

		while (s < FB_NR_SITES && strcmp(rmap_fallback_name((enum rmap_fallback_site)s), tok))
			s++;
		if (s == FB_NR_SITES)
			rt_usage_error("--until-fallbacks: unknown site '%s' (the names 'run' prints"
				       " under 'trylock fallback site')", tok);
		mask |= 1u << s;
	}
	if (!mask)
		rt_usage_error("--until-fallbacks: empty list");
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

/* What parsing gathers before the options can be checked against each other. */
struct run_parse {
	struct rt_run_opts *o;
	const char *scenario, *weights;
	bool scenario_set, rmap_set, sched_set, watchdog_set, seed_set, vtime_set, audit_set;
	const struct rt_bug *bug;
	long long threads, reclaim, pages, swap, procs;
};

static void opt_rmap(struct run_parse *p, const char *arg)
{
	int m;

	p->rmap_set = true;
	if (!strcmp(arg, "all")) {
		p->o->all_modes = true;
		return;
	}
	m = rmap_mode_by_name(arg);
	if (m < 0)
		rt_usage_error("--rmap: unknown design '%s' (%s, all)", arg, rt_opt_designs(", "));
	p->o->cfg.mode = (enum rmap_mode)m;
}

static void opt_sched(struct run_parse *p, const char *arg)
{
	int k = rt_sched_by_name(arg);

	if (k < 0)
		rt_usage_error("--sched: unknown schedule '%s' (free, random, pct, vtime, cover, explore)", arg);
	p->o->cfg.sched = (enum rt_sched_kind)k;
	p->sched_set = true;
}

static void opt_inject(struct run_parse *p, const char *arg)
{
	int b;

	if (!strcmp(arg, "list")) {
		for (int i = 0; i < INJECT_NR_BUGS; i++)
			printf("%s\n", inject_name((enum inject_bug)i));
		exit(RT_EXIT_OK);
	}
	b = inject_by_name(arg);
	if (b < 0)
		rt_usage_error("--inject: unknown seeded bug '%s' (see --inject list)", arg);
	p->o->cfg.inject_mask |= 1ULL << b;
	if (!p->bug)
		p->bug = rt_bug_find(arg);
}

/*
 * --fixed-ops A+B,C: worker i runs the i-th sequence once, in order
 * (explore's runs; rt_fixed_ops_parse()).
 */
static void opt_fixed_ops(struct rt_run_opts *o, const char *arg)
{
	char err[128];
	int n = rt_fixed_ops_parse(arg, o->fixed_ops, RT_FIXED_OPS_MAX, err, sizeof(err));

	if (n < 0)
		rt_usage_error("--fixed-ops: '%s': %s", arg, err);
	o->nr_fixed_ops = n;
	o->cfg.fixed_ops = o->fixed_ops;
}

static void opt_decisions(struct rt_run_opts *o, const char *arg)
{
	size_t n;

	free(o->decisions);
	if (rt_explore_parse(arg, &o->decisions, &n))
		rt_usage_error("--decisions: '%.40s' is not a decision list (e.g. 0x12,1x3,0)", arg);
	o->cfg.decisions = o->decisions;
	o->cfg.nr_decisions = n;
}

/* The run's size and length: -S -r -t -R -s -n --seed -p --swap -a --procs. Return: taken. */
static bool opt_size(struct run_parse *p, int c, const char *arg)
{
	struct rt_run_config *cfg = &p->o->cfg;

	switch (c) {
	case 'S': p->scenario = arg; p->scenario_set = true; break;
	case 'r': opt_rmap(p, arg); break;
	case 't': p->threads = rt_opt_int("--threads", arg, 1, 1024); break;
	case 'R': p->reclaim = rt_opt_int("--reclaim-threads", arg, 0, 64); break;
	case 's':
		cfg->seconds = rt_opt_seconds("--seconds", arg, 0, 86400);
		p->o->seconds_set = true;
		break;
	case 'n': cfg->ops = (unsigned long)rt_opt_int("--ops", arg, 1, 1000000000000LL); break;
	case 'X': cfg->seed = rt_opt_u64("--seed", arg); p->seed_set = true; break;
	case 'p': p->pages = rt_opt_int("--pages", arg, (long long)MEM_MIN_PAGES,
					(long long)MEM_MAX_PAGES); break;
	case 'W': p->swap = rt_opt_int("--swap", arg, 2, 1LL << 24); break;
	case 'a':
		cfg->audit_every = rt_opt_seconds0("--audit-every", arg, 86400);
		p->audit_set = true;
		break;
	case 'G': p->weights = arg; break;
	case 'U': p->procs = rt_opt_int("--procs", arg, 1, 4096); break;
	default: return false;
	}
	return true;
}

/* How the run is driven and watched: every other option. Return: taken. */
static bool opt_drive(struct run_parse *p, int c, const char *arg)
{
	struct rt_run_opts *o = p->o;
	struct rt_run_config *cfg = &o->cfg;

	switch (c) {
	case 'o': o->out_dir = arg; break;
	case 'j': o->json = true; break;
	case 'P': cfg->perturb = (int)rt_opt_int("--perturb", arg, 0, 3); break;
	case 'Y': parse_yield_points(arg); break;
	case 'L': cfg->long_hold_mask = parse_classes("--long-hold", arg); break;
	case 'w':
		cfg->watchdog = rt_opt_seconds("--watchdog", arg, 0, 86400);
		p->watchdog_set = true;
		break;
	case 'N': cfg->progress = false; break;
	case 'H': cfg->test_hang = arg; break;
	case 'T': cfg->test_race = true; break;
	case 'q': cfg->test_spin = true; break;
	case 'M': o->cover_map = arg; break;
	case 'O': o->no_cover = true; break;
	case 'D': opt_sched(p, arg); break;
	case 'E': cfg->pct_depth = (int)rt_opt_int("--pct-depth", arg, 1, 16); break;
	case 'K': cfg->pct_steps = (unsigned long)rt_opt_int("--pct-steps", arg, 1, 1LL << 40); break;
	case 'Z': cfg->sched_steps = (unsigned long)rt_opt_int("--sched-steps", arg, 1, 1LL << 50); break;
	case 'C': o->check_determinism = true; break;
	case 'I': opt_inject(p, arg); break;
	case 'F': flight_enabled = 0; break;
	case 'J': cfg->halt_on_failure = true; break;
	case 'g':
		if (!*arg)
			rt_usage_error("--halt-on-signature: empty signature");
		cfg->halt_signature = arg;
		break;
	case 'u': cfg->until_fallbacks = parse_fallbacks(arg); break;
	case 'B':
		if (strcmp(arg, "plain") && strcmp(arg, "tsan") && strcmp(arg, "asan"))
			rt_usage_error("--build: unknown build '%s' (plain, tsan, asan)", arg);
		o->build = arg;
		break;
	case 'Q': o->no_build = true; break;
	case 'f': opt_fixed_ops(o, arg); break;
	case 'd': opt_decisions(o, arg); break;
	case 'i': cfg->test_window = true; break;
	case 'b': cfg->test_window = cfg->test_window_bug = true; break;
	default: return false;
	}
	return true;
}

/* --sched vtime's options (stress/rt_vtime.h). Return: taken. */
static bool opt_vtime(struct run_parse *p, int c, const char *arg)
{
	struct rt_run_config *cfg = &p->o->cfg;
	int k;

	switch (c) {
	case 'V':
		k = rt_vtime_cost_by_name(arg);
		if (k < 0 || k == RT_VTIME_EXPLICIT)
			rt_usage_error("--vtime-cost: unknown cost source '%s' (model, measured)", arg);
		cfg->vtime_cost = (enum rt_vtime_cost)k;
		break;
	case 'v':
		rt_opt_out_file("--vtime-calibrate", arg);
		cfg->vtime_calibrate = arg;
		break;
	case 'x':
		cfg->vtime_transfer_ns = (uint64_t)rt_opt_int("--vtime-transfer", arg, 0, 1000000);
		break;
	default: return false;
	}
	p->vtime_set = true;
	return true;
}

/* --sched vtime: its options checked, its default length (virtual seconds). */
static void finish_vtime(struct run_parse *p)
{
	struct rt_run_config *cfg = &p->o->cfg;

	if (p->vtime_set && cfg->sched != RT_SCHED_VTIME)
		rt_usage_error("--vtime-cost/--vtime-calibrate/--vtime-transfer: need --sched vtime");
	if (cfg->vtime_calibrate && cfg->vtime_cost != RT_VTIME_MEASURED)
		rt_usage_error("--vtime-calibrate: needs --vtime-cost measured");
	if (cfg->sched != RT_SCHED_VTIME)
		return;
	if (p->o->check_determinism && cfg->vtime_cost == RT_VTIME_MEASURED)
		rt_usage_error("--check-determinism: --vtime-cost measured is not deterministic; use model");
	if (p->o->check_determinism && cfg->vtime_transfer_ns)
		rt_usage_error("--check-determinism: --vtime-transfer follows lock addresses, which"
			       " the allocator reuses differently from run to run");
	if (!p->o->seconds_set && !cfg->sched_steps)
		cfg->seconds = cfg->ops ? 0 : 0.01;	/* virtual: ~3,000 ops a CPU */
}

/*
 * --inject alone: the bug's own configuration (list --bugs), so that
 * its one-liner reproduces it; anything given explicitly still wins.
 */
static void bug_defaults(struct run_parse *p)
{
	const struct rt_bug *bug = p->bug;
	struct rt_run_opts *o = p->o;

	p->scenario = bug->scenario;
	o->cfg.mode = bug->rmap;
	o->cfg.sched = (enum rt_sched_kind)rt_sched_by_name(bug->sched);
	if (p->threads < 0)
		p->threads = bug->threads;
	if (p->reclaim < 0)
		p->reclaim = bug->reclaim_threads;
	if (!p->seed_set) {
		o->cfg.seed = bug->seed;
		p->seed_set = true;
	}
	if (o->cfg.sched != RT_SCHED_FREE && !o->cfg.sched_steps)
		o->cfg.sched_steps = bug->sched_steps;
	if (!o->seconds_set) {
		o->cfg.seconds = bug->seconds;
		o->seconds_set = true;
	}
	if (!p->watchdog_set && bug->watchdog > 0)
		o->cfg.watchdog = bug->watchdog;
	if (!p->audit_set && bug->audit_every > 0)
		o->cfg.audit_every = bug->audit_every;
	if (o->cfg.sched == RT_SCHED_FREE && !o->cfg.perturb && bug->perturb) {
		o->cfg.perturb = bug->perturb;
		if (bug->yield_points && !yield_filter_on)
			parse_yield_points(bug->yield_points);
	}
	if (strcmp(bug->build, RT_BUILD_KIND) && !o->build)
		fprintf(stderr, "rmaptorture: note: %s is caught in the %s build: add --build %s\n",
			bug->name, bug->build, bug->build);
}

/* The scenario, with --weights and --procs applied. */
static void scenario_opts(struct run_parse *p)
{
	struct rt_run_opts *o = p->o;

	o->cfg.scenario = wl_find(p->scenario);
	if (!o->cfg.scenario)
		rt_usage_error("--scenario: unknown scenario '%s' (see 'rmaptorture list')", p->scenario);
	o->scenario = *o->cfg.scenario;
	o->cfg.scenario = &o->scenario;
	if (p->weights)
		parse_weights(p->weights, &o->scenario);
	o->weights_set = p->weights != NULL;
	o->cfg.params = o->cfg.scenario->params;
	if (p->procs > 0) {
		o->cfg.params.procs_max = (int)p->procs;
		if (o->cfg.params.procs_initial > (int)p->procs)
			o->cfg.params.procs_initial = (int)p->procs;
		o->procs_set = true;
	}
}

/* --fixed-ops, --decisions and --sched explore, checked against each other. */
static void finish_fixed_ops(struct run_parse *p)
{
	struct rt_run_opts *o = p->o;
	struct rt_run_config *cfg = &o->cfg;

	if (cfg->decisions && cfg->sched != RT_SCHED_EXPLORE)
		rt_usage_error("--decisions: needs --sched explore");
	if (cfg->sched == RT_SCHED_EXPLORE && !o->nr_fixed_ops)
		rt_usage_error("--sched explore: needs --fixed-ops (see 'rmaptorture explore')");
	if (!o->nr_fixed_ops)
		return;
	if (p->threads > 0 && p->threads != o->nr_fixed_ops)
		rt_usage_error("--fixed-ops: %d operations for --threads %lld",
			       o->nr_fixed_ops, p->threads);
	cfg->threads = o->nr_fixed_ops;
	/* explore --kswapd: one kswapd CPU, its step once (stress/engine.c). */
	if (p->reclaim > 1)
		rt_usage_error("--reclaim-threads: at most 1 with --fixed-ops (explore's kswapd CPU)");
	cfg->reclaim_threads = p->reclaim >= 0 ? (int)p->reclaim : 0;
	/*
	 * explore's small world: at most 3 processes to start with, and
	 * room for 3 more, so that fork and exec have something to do.
	 */
	if (cfg->params.procs_initial > 3)
		cfg->params.procs_initial = 3;
	cfg->params.procs_max = cfg->params.procs_initial + 3;
	cfg->ops = 0;
	/* One operation each: the audit at the end is the one that counts. */
	cfg->sched_audit_steps = 0;
	cfg->seconds = 0;
}

/* The options checked against each other, and the defaults they leave. */
static void finish_opts(struct run_parse *p)
{
	struct rt_run_config *cfg = &p->o->cfg;

	if (p->o->no_cover && (cfg->sched == RT_SCHED_COVER || p->o->cover_map))
		rt_usage_error("--no-cover: the cover schedule and --cover-map need the coverage");
	cfg->cover = !p->o->no_cover;
	if (p->o->cover_map)
		rt_cover_map_check(p->o->cover_map);
	if (cfg->sched == RT_SCHED_FREE) {
		if (cfg->sched_steps)
			rt_usage_error("--sched-steps: needs --sched random, pct, vtime or cover");
		if (p->o->check_determinism)
			rt_usage_error("--check-determinism: needs --sched random, pct, vtime or cover");
	} else {
		if (cfg->perturb || cfg->long_hold_mask)
			rt_usage_error("--perturb/--long-hold: the %s schedule decides every switch; use --sched free",
				       rt_sched_name(cfg->sched));
		/* Bounded by decisions alone unless a time was asked for. */
		if (cfg->sched_steps && !p->o->seconds_set)
			cfg->seconds = 0;
	}
	cfg->threads = p->threads > 0 ? (int)p->threads : cfg->scenario->default_threads;
	cfg->reclaim_threads = p->reclaim >= 0 ? (int)p->reclaim :
			       cfg->scenario->default_reclaim_threads;
	finish_fixed_ops(p);
	if (p->pages > 0)
		cfg->params.pages = (unsigned long)p->pages;
	if (p->swap > 0)
		cfg->params.swap_slots = (unsigned long)p->swap;
	if (cfg->params.pages < wl_min_pages(&cfg->params))
		rt_usage_error("--pages: %lu pages is too small for scenario %s (needs at least %lu)",
			       cfg->params.pages, p->scenario, wl_min_pages(&cfg->params));
	if (cfg->long_hold_mask && !cfg->perturb)
		cfg->perturb = 1;
	if (!p->seed_set)
		cfg->seed = rt_seed_from_clock();
	if (p->o->json)
		cfg->progress = false;
	if (yield_filter_on)
		cfg->yield_filter = yield_filter;
}

/* The note that a seeded bug runs outside its own configuration was printed. */
static bool inject_noted;

/*
 * Every seeded bug asked for against the designs the run runs: one whose
 * code a design does not run cannot fire there (exit 2). One run outside
 * its own configuration (which --inject alone takes) is told so.
 */
static void check_inject(struct run_parse *p)
{
	const struct rt_run_config *cfg = &p->o->cfg;
	bool defaults = !p->scenario_set && !p->rmap_set && !p->sched_set;

	for (int b = 0; b < INJECT_NR_BUGS; b++) {
		const struct rt_bug *bug = rt_bug_find(inject_name((enum inject_bug)b));

		if (!(cfg->inject_mask & (1ULL << b)) || !bug)
			continue;
		for (int m = 0; m < RMAP_NR_MODES; m++) {
			const char *design = rmap_mode_name((enum rmap_mode)m);
			char designs[RMAP_MODE_LIST_LEN];

			if ((p->o->all_modes || (enum rmap_mode)m == cfg->mode) &&
			    !rt_bug_in_design(bug, (enum rmap_mode)m))
				rt_usage_error("--inject %s cannot fire in design %s (--rmap %s%s): its code"
					       " is in %s only; 'run --inject %s' alone takes its own"
					       " configuration", bug->name, design,
					       p->o->all_modes ? "all" : design,
					       p->rmap_set ? "" : ", the default",
					       rt_bug_designs(bug, designs, sizeof(designs)), bug->name);
		}
		/* Once a process: explore parses a run's options per pair. */
		if (!defaults && !inject_noted && (strcmp(cfg->scenario->name, bug->scenario) ||
						   p->o->all_modes ||
						   cfg->mode != bug->rmap ||
						   strcmp(rt_sched_name(cfg->sched), bug->sched))) {
			fprintf(stderr, "rmaptorture: note: --inject %s runs outside its own configuration"
				" (scenario %s, rmap %s, sched %s), which 'run --inject %s' alone takes:"
				" it may not fire\n", bug->name, bug->scenario, rmap_mode_name(bug->rmap),
				bug->sched, bug->name);
			inject_noted = true;
		}
	}
}

void rt_run_parse_opts(int argc, char **argv, struct rt_run_opts *o)
{
	struct run_parse p = {
		.o = o, .scenario = "mixed32",
		.threads = -1, .reclaim = -1, .pages = -1, .swap = -1, .procs = -1,
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->argc = argc;
	o->argv = argv;
	o->cfg.mode = RMAP_DEFAULT;
	o->cfg.seconds = 5;
	o->cfg.audit_every = 1;
	o->cfg.watchdog = RT_WATCHDOG_DEFAULT;
	o->cfg.progress = isatty(STDERR_FILENO);
	o->cfg.pct_depth = 3;
	o->cfg.pct_steps = 20000;
	o->cfg.sched_audit_steps = 20000;
	flight_enabled = 1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, rt_run_short, rt_run_options, NULL)) != -1) {
		if (c == 'h') {
			rt_run_usage(stdout);
			exit(RT_EXIT_OK);
		}
		if (!opt_size(&p, c, optarg) && !opt_drive(&p, c, optarg) &&
		    !opt_vtime(&p, c, optarg))
			rt_opt_bad("run", c, argv[optind - 1]);
	}
	if (optind < argc)
		rt_usage_error("run: unexpected argument '%s' (see 'rmaptorture run --help')",
			       argv[optind]);
	if (p.bug && !p.scenario_set && !p.rmap_set && !p.sched_set)
		bug_defaults(&p);
	scenario_opts(&p);
	finish_opts(&p);
	finish_vtime(&p);
	check_inject(&p);
}
