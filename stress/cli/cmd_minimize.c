// SPDX-License-Identifier: MIT
/*
 * `rmaptorture minimize ARTIFACT`: shrink a failing run, greedily, while
 * the same failure signature persists: fewer worker and reclaim threads,
 * fewer operations or scheduling steps, fewer processes, fewer operation
 * kinds, a shorter run. Each candidate is a real child run; an accepted
 * one's own artifact (written by the child, so its fields agree with its
 * args) becomes the new current one, and the last is the result.
 *
 * The result is never larger than the input: every shrunk value is passed
 * explicitly and only ever lowered, and a candidate whose artifact shows
 * more threads, reclaim threads, processes, ops, steps or seconds than the
 * input is refused.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "artifact.h"
#include "record.h"
#include "rt_child.h"
#include "commands.h"
#include "run_opts.h"
#include "rt_opt.h"
#include "rt_time.h"

/* What minimize shrinks, in the order it tries them. */
enum param {
	P_STEPS,	/* --sched-steps: deterministic runs only */
	P_THREADS,
	P_RECLAIM,
	P_OPS,
	P_PROCS,
	P_WEIGHTS,
	P_SECONDS,
	P_NR,
};

static const struct {
	const char *opt;	/* run's long option, without "--" */
	const char *field;	/* the artifact's field */
} params[P_NR] = {
	[P_STEPS] = { "sched-steps", "sched_steps" },
	[P_THREADS] = { "threads", "threads" },
	[P_RECLAIM] = { "reclaim-threads", "reclaim_threads" },
	[P_OPS] = { "ops", "ops" },
	[P_PROCS] = { "procs", "procs" },
	[P_WEIGHTS] = { "weights", "weights" },
	[P_SECONDS] = { "seconds", "seconds" },
};

struct min_opts {
	const char *artifact;
	struct rt_common_opts common;	/* --out, --budget, --no-build, --quiet */
	long long tries_per_step;
};

/* The values a candidate passes, and the artifact they came from. */
struct state {
	long long v[P_NR];	/* P_SECONDS and P_WEIGHTS unused */
	double seconds;
	json_t *weights;	/* owned */
	unsigned set;		/* 1 << param: stated explicitly in the args */
	json_t *art;		/* owned: the artifact these values produced */
	char dir[4096];		/* the try directory that holds it ("" for the input) */
};

struct ctx {
	struct min_opts o;
	struct rt_try_config cfg;
	const json_t *input;
	const json_t *input_args;
	const char *signature;
	bool deterministic;
	int tries_per_step;
	double start;
	int try_no;
	int candidates, kept;
	bool budget_out;
	struct state cur;
};

static void min_usage(FILE *f)
{
	fputs("usage: rmaptorture minimize ARTIFACT [OPTIONS]\n"
	      "\n"
	      "Shrink the run recorded in a failure artifact while the same failure\n"
	      "signature persists, one change at a time, each tried as a real run:\n"
	      "worker threads (halved, then one by one down to 1), reclaim threads (the\n"
	      "same, down to 0), --ops and, for a deterministic schedule, --sched-steps\n"
	      "(halved), --procs (halved, then bisected), the scenario's operation kinds\n"
	      "(each weight zeroed in turn, kept zero if the failure persists) and, for a\n"
	      "run bounded by time, --seconds (halved). Up to three passes. The smallest\n"
	      "artifact is written next to the input as NAME-min.json (or into --out DIR):\n"
	      "the artifact its last kept run wrote, never larger than the input.\n"
	      "\n"
	      "  -o, --out DIR           write NAME-min.json there instead\n"
	      "  -b, --budget S          stop trying after S seconds (default 300); the best so\n"
	      "                          far is written\n"
	      "  -n, --tries-per-step N  free schedule: tries per candidate (default 3); a\n"
	      "                          deterministic schedule gets one\n"
	      "      --build-if-missing  build the artifact's sanitizer build when it is not\n"
	      "                          there (the default)\n"
	      "      --no-build          fail instead of building it\n"
	      "  -q, --quiet             no line per candidate\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "Exit status: 0 a minimized artifact was written (a copy of the input when\n"
	      "nothing could be shrunk), 1 the input did not reproduce, 2 bad usage or a bad\n"
	      "artifact, 3 internal error, 130 interrupted (the best so far is written).\n", f);
}

static void parse_min_opts(int argc, char **argv, struct min_opts *o)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "budget", required_argument, NULL, 'b' },
		{ "tries-per-step", required_argument, NULL, 'n' },
		{ "build-if-missing", no_argument, NULL, RT_OPT_BUILD_IF_MISSING },
		{ "no-build", no_argument, NULL, RT_OPT_NO_BUILD },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	rt_common_opts_init(&o->common, "minimize", min_usage, 7 * 86400);
	o->common.budget = 300;
	o->tries_per_step = 3;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:b:n:qh", opts, NULL)) != -1) {
		if (c == 'n')
			o->tries_per_step = rt_opt_int("--tries-per-step", optarg, 1, 1000);
		else
			rt_common_opt(&o->common, c, optarg, argv[optind - 1]);
	}
	o->artifact = rt_opt_artifact("minimize", argc, argv);
}

static bool dropped(const struct option *ro, unsigned mask)
{
	for (int p = 0; p < P_NR; p++)
		if ((mask & (1u << p)) && !strcmp(ro->name, params[p].opt))
			return true;
	return false;
}

/* @args without the options of the params in @mask (and their values). */
static json_t *args_without(const json_t *args, unsigned mask)
{
	size_t n = json_array_size(args);
	json_t *out = json_array();
	bool options = true;

	for (size_t i = 0; i < n; i++) {
		const char *t = json_string_value(json_array_get(args, i));
		const struct option *ro = NULL;
		bool inline_value = false;

		if (options && !strcmp(t, "--")) {
			options = false;
		} else if (options && t[0] == '-' && t[1] == '-') {
			const char *eq = strchr(t + 2, '=');

			ro = rt_run_option_long(t + 2, eq ? (size_t)(eq - t - 2) : strlen(t + 2));
			inline_value = eq != NULL;
		} else if (options && t[0] == '-' && t[1]) {
			ro = rt_run_option_short(t[1]);
			inline_value = t[2] != '\0';
		}
		if (!ro) {
			json_array_append_new(out, json_string(t));
			continue;
		}
		if (!dropped(ro, mask))
			json_array_append_new(out, json_string(t));
		if (ro->has_arg == required_argument && !inline_value && i + 1 < n) {
			i++;
			if (!dropped(ro, mask))
				json_array_append(out, json_array_get(args, i));
		}
	}
	return out;
}

static void weights_str(const json_t *w, char *buf, size_t len, bool nonzero_only)
{
	const char *key;
	json_t *v;
	size_t n = 0;

	buf[0] = '\0';
	json_object_foreach((json_t *)w, key, v) {
		if (nonzero_only && !json_integer_value(v))
			continue;
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s=%" JSON_INTEGER_FORMAT,
					      n ? "," : "", key, json_integer_value(v));
	}
}

static void state_from_art(struct state *s, const json_t *art)
{
	for (int p = 0; p < P_NR; p++)
		if (p != P_SECONDS && p != P_WEIGHTS)
			s->v[p] = json_integer_value(json_object_get(art, params[p].field));
	s->seconds = json_number_value(json_object_get(art, "seconds"));
	json_decref(s->weights);
	s->weights = json_deep_copy(json_object_get(art, "weights"));
}

/* The input's args with the stated params replaced by their values. */
static json_t *candidate_args(const struct ctx *x, const struct state *s)
{
	json_t *args = args_without(x->input_args, s->set);
	char val[8192];

	for (int p = 0; p < P_NR; p++) {
		if (!(s->set & (1u << p)))
			continue;
		if (p == P_SECONDS)
			snprintf(val, sizeof(val), "%g", s->seconds);
		else if (p == P_WEIGHTS)
			weights_str(s->weights, val, sizeof(val), false);
		else
			snprintf(val, sizeof(val), "%lld", s->v[p]);
		json_array_append_new(args, json_sprintf("--%s", params[p].opt));
		json_array_append_new(args, json_string(val));
	}
	return args;
}

static long long field_int(const json_t *art, const char *f)
{
	return json_integer_value(json_object_get(art, f));
}

/* Not larger than the input in any measure the guarantee names. */
static bool not_larger(const json_t *art, const json_t *input, char *why, size_t len)
{
	static const char *const ints[] = { "threads", "reclaim_threads", "procs", "sched_steps" };
	long long ops = field_int(art, "ops"), in_ops = field_int(input, "ops");

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		if (field_int(art, ints[i]) > field_int(input, ints[i])) {
			snprintf(why, len, "its %s %lld exceeds the input's %lld", ints[i],
				 field_int(art, ints[i]), field_int(input, ints[i]));
			return false;
		}
	}
	if (in_ops && (!ops || ops > in_ops)) {
		snprintf(why, len, "its ops %lld exceeds the input's %lld", ops, in_ops);
		return false;
	}
	if (json_number_value(json_object_get(art, "seconds")) >
	    json_number_value(json_object_get(input, "seconds"))) {
		snprintf(why, len, "its seconds exceed the input's");
		return false;
	}
	return true;
}

static bool budget_left(struct ctx *x)
{
	if (rt_now_s() - x->start < x->o.common.budget)
		return true;
	x->budget_out = true;
	return false;
}

/*
 * Whether the child's artifact @art is smaller than the current one in
 * what the candidate changed (@p; @op for a weight): a run may report
 * other values than it was given (a deterministic run's sched_steps are
 * where it failed), and a candidate that shrank nothing is not kept.
 */
static bool shrunk(const struct ctx *x, const json_t *art, enum param p, const char *op,
		   char *why, size_t len)
{
	const json_t *cur = x->cur.art;
	long long now, was;

	switch (p) {
	case P_WEIGHTS:
		now = json_integer_value(json_object_get(json_object_get(art, "weights"), op));
		if (!now)
			return true;
		snprintf(why, len, "its weights still give %s %lld", op, now);
		return false;
	case P_SECONDS:
		if (json_number_value(json_object_get(art, "seconds")) <
		    json_number_value(json_object_get(cur, "seconds")))
			return true;
		snprintf(why, len, "its seconds did not shrink");
		return false;
	default:
		now = field_int(art, params[p].field);
		was = field_int(cur, params[p].field);
		if (p == P_OPS ? now && (!was || now < was) : now < was)
			return true;
		snprintf(why, len, "its %s stayed %lld", params[p].field, now);
		return false;
	}
}

enum { CAND_REJECTED = 0, CAND_KEPT = 1, CAND_STOP = -1 };

/* A candidate: the current state, with its own copy of the weights. */
static struct state state_dup(const struct state *s)
{
	struct state c = *s;

	c.weights = json_deep_copy(s->weights);
	c.art = NULL;
	c.dir[0] = '\0';
	return c;
}

static void state_release(struct state *s)
{
	json_decref(s->weights);
	json_decref(s->art);
	s->weights = NULL;
	s->art = NULL;
}

/*
 * Try the candidate @cand (described by @what) with the tries a step gets.
 * Kept: @cand, updated from its child's artifact, becomes x->cur (which
 * takes over its references). Otherwise @cand is released. CAND_STOP: out
 * of budget, interrupted, or a run that could not start.
 */
static int try_candidate(struct ctx *x, struct state *cand, const char *what, enum param changed,
			 const char *op)
{
	int tries = x->deterministic ? 1 : x->tries_per_step;
	json_t *args = candidate_args(x, cand);
	json_t *context = rt_try_context(x->input, args);
	int verdict = CAND_REJECTED;
	char rcs[64];

	/* What a sanitizer report's artifact says of the run (rt_try_run()). */
	for (int p = 0; p < P_NR; p++)
		if (p != P_SECONDS && p != P_WEIGHTS)
			json_object_set_new(context, params[p].field, json_integer(cand->v[p]));
	json_object_set_new(context, "seconds", json_real(cand->seconds));
	json_object_set(context, "weights", cand->weights);

	x->candidates++;
	for (int t = 1; t <= tries && verdict == CAND_REJECTED; t++) {
		struct rt_try_config cfg;
		struct rt_try_result res;
		char why[4800] = "";
		double left;
		int rc;

		if (rt_child_interrupted() || !budget_left(x)) {
			verdict = CAND_STOP;
			break;
		}
		/* A try ends with the budget: --budget bounds the whole search. */
		cfg = x->cfg;
		left = x->o.common.budget - (rt_now_s() - x->start);
		if (cfg.timeout_s <= 0 || cfg.timeout_s > left)
			cfg.timeout_s = left;
		rc = rt_try_run(&cfg, args, x->signature, context, ++x->try_no, &res);
		if (rc == RT_CHILD_INTERRUPTED || rc == RT_CHILD_ERROR || res.rc == 127) {
			rt_try_release(&res);
			verdict = CAND_STOP;
			break;
		}
		if (rc != 1 && !budget_left(x)) {
			/* Cut short by the budget: no verdict on the candidate. */
			rt_remove_tree(res.dir);
			rt_try_release(&res);
			verdict = CAND_STOP;
			break;
		}
		if (rc == 1) {
			json_t *art = json_object_get(res.match, "artifact");
			const char *path = json_string_value(json_object_get(res.match, "path"));
			char err[4600];

			if (rt_artifact_check(art, path, err, sizeof(err)))
				snprintf(why, sizeof(why), "reproduced, but %s", err);
			else if (!not_larger(art, x->input, err, sizeof(err)) ||
				 !shrunk(x, art, changed, op, err, sizeof(err)))
				snprintf(why, sizeof(why), "reproduced, but %s", err);
			else
				verdict = CAND_KEPT;
			if (verdict == CAND_KEPT) {
				cand->art = json_deep_copy(art);
				snprintf(cand->dir, sizeof(cand->dir), "%s", res.dir);
			}
		} else {
			const char *other = json_string_value(json_object_get(
				json_array_get(res.artifacts, 0), "signature"));

			char line[512] = "";

			if (res.rc == RT_EXIT_USAGE)
				rt_try_first_line(&res, line, sizeof(line));
			snprintf(why, sizeof(why), "not reproduced%s: %s%s%s%s%s", tries > 1 ?
				 " in any try; the last" : "", rt_child_rc_str(res.rc, rcs, sizeof(rcs)),
				 other ? ", found " : "", other ? other : "",
				 *line ? ", the run said: " : "", line);
		}
		if (!x->o.common.quiet && verdict == CAND_KEPT)
			printf("  %s: kept (reproduced on try %d/%d, %.1f s)\n", what, t, tries,
			       res.seconds);
		else if (!x->o.common.quiet && t == tries)
			printf("  %s: rejected (%s, %.1f s)\n", what, why, res.seconds);
		fflush(stdout);
		if (verdict != CAND_KEPT)
			rt_remove_tree(res.dir);
		rt_try_release(&res);
	}
	json_decref(args);
	json_decref(context);
	if (verdict != CAND_KEPT) {
		state_release(cand);
		return verdict;
	}
	/* The candidate's values, as its own artifact reports them. */
	state_from_art(cand, cand->art);
	state_release(&x->cur);
	x->cur = *cand;
	x->kept++;
	return CAND_KEPT;
}

/* Lower integer param @p to @val (a candidate); the verdict of try_candidate(). */
static int try_int(struct ctx *x, enum param p, long long val)
{
	struct state cand = state_dup(&x->cur);
	char what[128];

	snprintf(what, sizeof(what), "--%s %lld -> %lld", params[p].opt, x->cur.v[p], val);
	cand.v[p] = val;
	cand.set |= 1u << p;
	return try_candidate(x, &cand, what, p, NULL);
}

/* After halving @p stops: how to go on toward the value that was refused. */
enum after_halving {
	THEN_STOP,
	THEN_STEP_DOWN,		/* one at a time, until refused */
	THEN_BISECT,		/* between the refused value and the current one */
};

/*
 * Halve @p while the failure persists, never below @floor; then go on as
 * @then says. Return: the number kept, or CAND_STOP.
 */
static int shrink_int(struct ctx *x, enum param p, long long floor, enum after_halving then)
{
	long long refused = -1;
	int kept = 0, r;

	while (x->cur.v[p] > floor) {
		long long val = x->cur.v[p] / 2 < floor ? floor : x->cur.v[p] / 2;

		r = try_int(x, p, val);
		if (r == CAND_STOP)
			return CAND_STOP;
		if (r == CAND_REJECTED) {
			refused = val;
			break;
		}
		kept++;
	}
	while (then == THEN_STEP_DOWN && x->cur.v[p] > floor && x->cur.v[p] - 1 != refused) {
		r = try_int(x, p, x->cur.v[p] - 1);
		if (r == CAND_STOP)
			return CAND_STOP;
		if (r == CAND_REJECTED)
			break;
		kept++;
	}
	while (then == THEN_BISECT && refused >= floor && x->cur.v[p] - refused > 1) {
		long long mid = refused + (x->cur.v[p] - refused) / 2;

		r = try_int(x, p, mid);
		if (r == CAND_STOP)
			return CAND_STOP;
		if (r == CAND_REJECTED)
			refused = mid;
		else
			kept++;
	}
	return kept;
}

/* Zero each operation kind's weight in turn; keep it zero if the failure persists. */
static int shrink_weights(struct ctx *x)
{
	json_t *keys = json_array();
	const char *key;
	json_t *v;
	int kept = 0;
	size_t i;

	json_object_foreach(x->cur.weights, key, v)
		if (json_integer_value(v) > 0)
			json_array_append_new(keys, json_string(key));
	json_array_foreach(keys, i, v) {
		const char *op = json_string_value(v);
		struct state cand;
		size_t nonzero = 0;
		char what[256];
		json_t *w;
		int r;

		json_object_foreach(x->cur.weights, key, w)
			nonzero += json_integer_value(w) > 0;
		if (nonzero <= 1)
			break;		/* a run needs one kind of operation */
		cand = state_dup(&x->cur);
		snprintf(what, sizeof(what), "--weights %s=%" JSON_INTEGER_FORMAT " -> %s=0", op,
			 json_integer_value(json_object_get(cand.weights, op)), op);
		json_object_set_new(cand.weights, op, json_integer(0));
		cand.set |= 1u << P_WEIGHTS;
		r = try_candidate(x, &cand, what, P_WEIGHTS, op);
		if (r == CAND_STOP) {
			json_decref(keys);
			return CAND_STOP;
		}
		kept += r == CAND_KEPT;
	}
	json_decref(keys);
	return kept;
}

/* Halve --seconds while the failure persists, down to about a quarter second. */
static int shrink_seconds(struct ctx *x)
{
	int kept = 0;

	while (x->cur.seconds > 0.25) {
		struct state cand = state_dup(&x->cur);
		char what[128];
		int r;

		cand.seconds = x->cur.seconds / 2;
		cand.set |= 1u << P_SECONDS;
		snprintf(what, sizeof(what), "--seconds %g -> %g", x->cur.seconds, cand.seconds);
		r = try_candidate(x, &cand, what, P_SECONDS, NULL);
		if (r != CAND_KEPT)
			return r == CAND_STOP ? CAND_STOP : kept;
		kept++;
	}
	return kept;
}

/* One pass over every param. Return: the number kept, or CAND_STOP. */
static int shrink_pass(struct ctx *x)
{
	int kept = 0, r;

#define STEP(call) do {				\
	r = (call);				\
	if (r == CAND_STOP)			\
		return CAND_STOP;		\
	kept += r;				\
} while (0)

	STEP(shrink_int(x, P_THREADS, 1, THEN_STEP_DOWN));
	STEP(shrink_int(x, P_RECLAIM, 0, THEN_STEP_DOWN));
	if (x->cur.v[P_OPS] > 0)
		STEP(shrink_int(x, P_OPS, 1, THEN_STOP));
	if (x->deterministic && x->cur.v[P_STEPS] > 0)
		STEP(shrink_int(x, P_STEPS, 1, THEN_STOP));
	STEP(shrink_int(x, P_PROCS, 1, THEN_BISECT));
	STEP(shrink_weights(x));
	/* A run bounded by its scheduling steps has no time bound to shorten. */
	if (!x->deterministic || !x->cur.v[P_STEPS])
		STEP(shrink_seconds(x));
#undef STEP
	return kept;
}

/*
 * The child's artifact names the try directory it was written to (our
 * --out, with --no-progress, appended to its args): drop both, so that its
 * command reproduces it as it stands.
 */
static void drop_try_out(json_t *art, const char *dir)
{
	json_t *args = json_object_get(art, "args");
	const char *repro = json_string_value(json_object_get(art, "reproduce"));
	size_t n = json_array_size(args);

	if (n >= 3 && !strcmp(json_string_value(json_array_get(args, n - 3)), "--out") &&
	    !strcmp(json_string_value(json_array_get(args, n - 2)), dir) &&
	    !strcmp(json_string_value(json_array_get(args, n - 1)), "--no-progress")) {
		json_array_remove(args, n - 1);
		json_array_remove(args, n - 2);
		json_array_remove(args, n - 3);
	}
	if (repro) {
		char needle[4200], *buf = strdup(repro), *at;

		snprintf(needle, sizeof(needle), " --out %s", dir);
		if (buf && (at = strstr(buf, needle))) {
			char *rest = at + strlen(needle);

			if (!strncmp(rest, " --no-progress", 14) && (!rest[14] || rest[14] == ' '))
				rest += 14;
			memmove(at, rest, strlen(rest) + 1);
			json_object_set_new(art, "reproduce", json_string(buf));
		}
		free(buf);
	}
}

static void describe(const char *label, const json_t *art)
{
	char w[4096];
	long long ops = field_int(art, "ops");

	weights_str(json_object_get(art, "weights"), w, sizeof(w), true);
	printf("%s threads %lld, reclaim_threads %lld, procs %lld, ops %lld%s, sched_steps %lld,"
	       " seconds %g, weights %s\n", label, field_int(art, "threads"),
	       field_int(art, "reclaim_threads"), field_int(art, "procs"), ops,
	       ops ? "" : " (unbounded)", field_int(art, "sched_steps"),
	       json_number_value(json_object_get(art, "seconds")), w);
}

/* NAME-min.json, in @out_dir or next to @input. */
static void output_path(const char *input, const char *out_dir, char *path, size_t len)
{
	const char *slash = strrchr(input, '/'), *base = slash ? slash + 1 : input;
	size_t blen = strlen(base);

	if (blen > 5 && !strcmp(base + blen - 5, ".json"))
		blen -= 5;
	if (out_dir)
		snprintf(path, len, "%s/%.*s-min.json", out_dir, (int)blen, base);
	else if (slash)
		snprintf(path, len, "%.*s%.*s-min.json", (int)(base - input), input, (int)blen, base);
	else
		snprintf(path, len, "%.*s-min.json", (int)blen, base);
}

/* The baseline: does the input reproduce at all? Return: CAND_KEPT, _REJECTED or _STOP. */
static int baseline(struct ctx *x, int *usage)
{
	int tries = x->deterministic ? 1 : x->tries_per_step;
	json_t *context = rt_try_context(x->input, NULL);
	int verdict = CAND_REJECTED;
	char rcs[64];

	for (int t = 1; t <= tries && verdict == CAND_REJECTED; t++) {
		struct rt_try_result res;
		int rc;

		if (rt_child_interrupted() || !budget_left(x)) {
			verdict = CAND_STOP;
			break;
		}
		rc = rt_try_run(&x->cfg, x->input_args, x->signature, context, ++x->try_no, &res);
		if (rc == RT_CHILD_INTERRUPTED || rc == RT_CHILD_ERROR || res.rc == 127) {
			rt_try_release(&res);
			verdict = CAND_STOP;
			break;
		}
		*usage = res.rc == RT_EXIT_USAGE;
		if (*usage) {
			char line[512];

			rt_try_first_line(&res, line, sizeof(line));
			fprintf(stderr, "rmaptorture: minimize: the run rejected the artifact's args: %s\n",
				line);
		}
		if (!x->o.common.quiet)
			printf("  the input as it stands: %s (try %d/%d, %s, %.1f s)\n",
			       rc == 1 ? "reproduced" : "not reproduced", t, tries,
			       rt_child_rc_str(res.rc, rcs, sizeof(rcs)), res.seconds);
		fflush(stdout);
		rt_remove_tree(res.dir);
		rt_try_release(&res);
		if (rc == 1)
			verdict = CAND_KEPT;
		else if (*usage)
			break;
	}
	json_decref(context);
	return verdict;
}

static int write_result(struct ctx *x, const char *path)
{
	if (!x->kept && rt_child_interrupted()) {
		printf("minimize: interrupted before anything was shrunk; nothing written\n");
		return RT_EXIT_INTERRUPTED;
	}
	if (!x->kept) {
		int err = rt_copy_file(x->o.artifact, path);

		if (err) {
			fprintf(stderr, "rmaptorture: minimize: cannot write %s: %s\n", path,
				strerror(-err));
			return RT_EXIT_INTERNAL;
		}
		printf("minimize: nothing could be shrunk%s; wrote a copy of the input to %s\n",
		       x->budget_out ? " within the budget" : "", path);
		return RT_EXIT_OK;
	}
	drop_try_out(x->cur.art, x->cur.dir);
	if (rt_record_write(x->cur.art, path))
		return RT_EXIT_INTERNAL;
	printf("minimize: wrote %s (%d of %d candidates kept, %.0f s)\n", path, x->kept,
	       x->candidates, rt_now_s() - x->start);
	describe("before:", x->input);
	describe("after: ", x->cur.art);
	printf("reproduce: %s\n", json_string_value(json_object_get(x->cur.art, "reproduce")));
	return RT_EXIT_OK;
}

int cmd_minimize(int argc, char **argv)
{
	struct ctx x;
	char err[4600], binary[4096], workdir[4096], out[4200];
	const char *tmp;
	json_t *input;
	int ret, usage = 0, r = 0;

	memset(&x, 0, sizeof(x));
	parse_min_opts(argc, argv, &x.o);
	input = rt_artifact_load(x.o.artifact, err, sizeof(err));
	if (!input) {
		fprintf(stderr, "rmaptorture: %s\n", err);
		return RT_EXIT_USAGE;
	}
	if (x.o.common.out_dir)
		rt_opt_out_dir("--out", x.o.common.out_dir);
	output_path(x.o.artifact, x.o.common.out_dir, out, sizeof(out));
	x.input = input;
	x.input_args = json_object_get(input, "args");
	x.signature = json_string_value(json_object_get(input, "signature"));
	x.deterministic = strcmp(json_string_value(json_object_get(input, "sched")), "free") != 0;
	x.tries_per_step = (int)x.o.tries_per_step;
	x.cur.art = json_incref(input);
	state_from_art(&x.cur, input);

	if (rt_build_binary(json_string_value(json_object_get(input, "build")),
			    x.o.common.build_if_missing, binary, sizeof(binary))) {
		state_release(&x.cur);
		json_decref(input);
		return RT_EXIT_INTERNAL;
	}
	tmp = getenv("TMPDIR");
	snprintf(workdir, sizeof(workdir), "%s/rmaptorture-minimize-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(workdir)) {
		fprintf(stderr, "rmaptorture: minimize: cannot create a work directory: %s\n",
			strerror(errno));
		state_release(&x.cur);
		json_decref(input);
		return RT_EXIT_INTERNAL;
	}
	x.cfg = (struct rt_try_config){ .binary = binary,
		.build = json_string_value(json_object_get(input, "build")),
		.workdir = workdir, .timeout_s = rt_try_timeout(input) };
	if (!x.o.common.quiet) {
		printf("minimize: %s: %s failure, signature %s\n", x.o.artifact,
		       json_string_value(json_object_get(input, "kind")), x.signature);
		printf("minimize: sched %s (%d %s per candidate), build %s, budget %g s\n",
		       json_string_value(json_object_get(input, "sched")),
		       x.deterministic ? 1 : x.tries_per_step,
		       x.deterministic || x.tries_per_step == 1 ? "try" : "tries",
		       x.cfg.build, x.o.common.budget);
		fflush(stdout);
	}

	rt_child_catch_interrupt();
	x.start = rt_now_s();
	r = baseline(&x, &usage);
	if (r != CAND_KEPT) {
		rt_remove_tree(workdir);
		if (rt_child_interrupted()) {
			printf("minimize: interrupted before the input reproduced\n");
			ret = RT_EXIT_INTERRUPTED;
		} else if (usage) {
			ret = RT_EXIT_USAGE;
		} else if (r == CAND_STOP && !x.budget_out) {
			ret = RT_EXIT_INTERNAL;
		} else {
			printf("minimize: the input did not reproduce (%d %s%s); nothing written\n",
			       x.try_no, x.try_no == 1 ? "try" : "tries",
			       x.budget_out ? ", the budget ran out" : "");
			ret = RT_EXIT_FAILURE;
		}
		state_release(&x.cur);
		json_decref(input);
		return ret;
	}

	for (int pass = 0; pass < 3; pass++) {
		if (!x.o.common.quiet) {
			printf("pass %d:\n", pass + 1);
			fflush(stdout);
		}
		r = shrink_pass(&x);
		if (r <= 0)
			break;
	}
	ret = write_result(&x, out);
	if (ret == RT_EXIT_OK) {
		if (x.budget_out && x.kept)
			printf("minimize: the budget (%g s) ran out; this is the smallest so far\n",
			       x.o.common.budget);
		if (rt_child_interrupted()) {
			printf("minimize: interrupted; this is the smallest so far\n");
			ret = RT_EXIT_INTERRUPTED;
		} else if (r == CAND_STOP && !x.budget_out) {
			ret = RT_EXIT_INTERNAL;
		}
		printf("replay: rmaptorture replay %s\n", out);
	}
	rt_remove_tree(workdir);
	state_release(&x.cur);
	json_decref(input);
	return ret;
}
