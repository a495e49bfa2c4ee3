// SPDX-License-Identifier: MIT
/*
 * `minimize`'s candidates: each is the current state with one param
 * lowered, passed to a real child run as explicit options in the input's
 * args (run's own option table finds them in any spelling); a candidate
 * whose child fails with the same signature, and whose artifact is smaller
 * in what it changed and no larger than the input anywhere, is kept. Which
 * candidates are tried, param by param, is minimize_shrink.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact.h"
#include "die.h"
#include "record.h"
#include "rt_explore.h"
#include "run_opts.h"
#include "rt_time.h"
#include "minimize-internal.h"

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
	[P_DECISIONS] = { "decisions", "decisions" },
};

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

void min_weights_str(const json_t *w, char *buf, size_t len, bool nonzero_only)
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

void min_state_from_art(struct state *s, const json_t *art)
{
	for (int p = 0; p < P_NR; p++)
		if (p != P_SECONDS && p != P_WEIGHTS && p != P_DECISIONS)
			s->v[p] = json_integer_value(json_object_get(art, params[p].field));
	s->seconds = json_number_value(json_object_get(art, "seconds"));
	json_decref(s->weights);
	s->weights = json_deep_copy(json_object_get(art, "weights"));
	free(s->decisions);
	s->decisions = NULL;
	{
		const json_t *args = json_object_get(art, "args");

		for (size_t i = 0; i + 1 < json_array_size(args); i++)
			if (!strcmp(json_string_value(json_array_get(args, i)) ?: "", "--decisions"))
				s->decisions = strdup(json_string_value(json_array_get(args, i + 1)));
	}
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
			min_weights_str(s->weights, val, sizeof(val), false);
		else if (p == P_DECISIONS) {
			json_array_append_new(args, json_string("--decisions"));
			json_array_append_new(args, json_string(s->decisions));
			continue;
		}
		else
			snprintf(val, sizeof(val), "%lld", s->v[p]);
		json_array_append_new(args, json_sprintf("--%s", params[p].opt));
		json_array_append_new(args, json_string(val));
	}
	return args;
}

long long min_field_int(const json_t *art, const char *f)
{
	return json_integer_value(json_object_get(art, f));
}

/* Not larger than the input in any measure the guarantee names. */
static bool not_larger(const json_t *art, const json_t *input, char *why, size_t len)
{
	static const char *const ints[] = { "threads", "reclaim_threads", "procs", "sched_steps" };
	long long ops = min_field_int(art, "ops"), in_ops = min_field_int(input, "ops");

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		if (min_field_int(art, ints[i]) > min_field_int(input, ints[i])) {
			snprintf(why, len, "its %s %lld exceeds the input's %lld", ints[i],
				 min_field_int(art, ints[i]), min_field_int(input, ints[i]));
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

bool min_budget_left(struct ctx *x)
{
	if (rt_now_s() - x->start < x->o.common.budget)
		return true;
	x->budget_out = true;
	return false;
}

/* The --decisions of artifact @art, parsed (@d NULL: none). */
static void art_decisions(const json_t *art, int **d, size_t *n)
{
	struct state s = { 0 };

	*d = NULL;
	*n = 0;
	min_state_from_art(&s, art);
	if (s.decisions && rt_explore_parse(s.decisions, d, n))
		*d = NULL;
	free(s.decisions);
	json_decref(s.weights);
}

/* Fewer switches, or as many in a shorter list. */
static bool decisions_smaller(const json_t *art, const json_t *cur, char *why, size_t len)
{
	int *a, *b;
	size_t na, nb;
	bool smaller;
	int sa, sb;

	art_decisions(art, &a, &na);
	art_decisions(cur, &b, &nb);
	sa = min_decisions_switches(a, na);
	sb = min_decisions_switches(b, nb);
	smaller = a && b && (sa < sb || (sa == sb && na < nb));
	if (!smaller)
		snprintf(why, len, "its decisions kept %d switches in %zu", sa, na);
	free(a);
	free(b);
	return smaller;
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
	case P_DECISIONS:
		return decisions_smaller(art, cur, why, len);
	case P_SECONDS:
		if (json_number_value(json_object_get(art, "seconds")) <
		    json_number_value(json_object_get(cur, "seconds")))
			return true;
		snprintf(why, len, "its seconds did not shrink");
		return false;
	default:
		now = min_field_int(art, params[p].field);
		was = min_field_int(cur, params[p].field);
		if (p == P_OPS ? now && (!was || now < was) : now < was)
			return true;
		snprintf(why, len, "its %s stayed %lld", params[p].field, now);
		return false;
	}
}

/* A candidate: the current state, with its own copy of the weights. */
struct state min_state_dup(const struct state *s)
{
	struct state c = *s;

	c.weights = json_deep_copy(s->weights);
	c.decisions = s->decisions ? strdup(s->decisions) : NULL;
	c.art = NULL;
	c.dir[0] = '\0';
	return c;
}

void min_state_release(struct state *s)
{
	json_decref(s->weights);
	json_decref(s->art);
	free(s->decisions);
	s->weights = NULL;
	s->art = NULL;
	s->decisions = NULL;
}

/*
 * Try the candidate @cand (described by @what) with the tries a step gets.
 * Kept: @cand, updated from its child's artifact, becomes x->cur (which
 * takes over its references). Otherwise @cand is released. CAND_STOP: out
 * of budget, interrupted, or a run that could not start.
 */
int min_try_candidate(struct ctx *x, struct state *cand, const char *what, enum param changed,
		      const char *op)
{
	int tries = x->deterministic ? 1 : x->tries_per_step;
	json_t *args = candidate_args(x, cand);
	json_t *context = rt_try_context(x->input, args);
	int verdict = CAND_REJECTED;
	char rcs[64];

	/* What a sanitizer report's artifact says of the run (rt_try_run()). */
	for (int p = 0; p < P_NR; p++)
		if (p != P_SECONDS && p != P_WEIGHTS && p != P_DECISIONS)
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

		if (rt_child_interrupted() || !min_budget_left(x)) {
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
		if (rc != 1 && !min_budget_left(x)) {
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

			if (rt_artifact_check(art, path, rt_opt_design_names(), err, sizeof(err)))
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
		min_state_release(cand);
		return verdict;
	}
	/* The candidate's values, as its own artifact reports them. */
	min_state_from_art(cand, cand->art);
	min_state_release(&x->cur);
	x->cur = *cand;
	x->kept++;
	return CAND_KEPT;
}

/* Lower integer param @p to @val (a candidate); the verdict of min_try_candidate(). */
int min_try_int(struct ctx *x, enum param p, long long val)
{
	struct state cand = min_state_dup(&x->cur);
	char what[128];

	snprintf(what, sizeof(what), "--%s %lld -> %lld", params[p].opt, x->cur.v[p], val);
	cand.v[p] = val;
	cand.set |= 1u << p;
	return min_try_candidate(x, &cand, what, p, NULL);
}
