// SPDX-License-Identifier: MIT
/*
 * `minimize`'s search: each param shrunk in turn (integers halved, then
 * stepped down or bisected; the weights; the seconds; explore's decision
 * list, by its switches), each step a candidate tried as
 * minimize_candidate.c tries it.
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

		r = min_try_int(x, p, val);
		if (r == CAND_STOP)
			return CAND_STOP;
		if (r == CAND_REJECTED) {
			refused = val;
			break;
		}
		kept++;
	}
	while (then == THEN_STEP_DOWN && x->cur.v[p] > floor && x->cur.v[p] - 1 != refused) {
		r = min_try_int(x, p, x->cur.v[p] - 1);
		if (r == CAND_STOP)
			return CAND_STOP;
		if (r == CAND_REJECTED)
			break;
		kept++;
	}
	while (then == THEN_BISECT && refused >= floor && x->cur.v[p] - refused > 1) {
		long long mid = refused + (x->cur.v[p] - refused) / 2;

		r = min_try_int(x, p, mid);
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
		cand = min_state_dup(&x->cur);
		snprintf(what, sizeof(what), "--weights %s=%" JSON_INTEGER_FORMAT " -> %s=0", op,
			 json_integer_value(json_object_get(cand.weights, op)), op);
		json_object_set_new(cand.weights, op, json_integer(0));
		cand.set |= 1u << P_WEIGHTS;
		r = min_try_candidate(x, &cand, what, P_WEIGHTS, op);
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
		struct state cand = min_state_dup(&x->cur);
		char what[128];
		int r;

		cand.seconds = x->cur.seconds / 2;
		cand.set |= 1u << P_SECONDS;
		snprintf(what, sizeof(what), "--seconds %g -> %g", x->cur.seconds, cand.seconds);
		r = min_try_candidate(x, &cand, what, P_SECONDS, NULL);
		if (r != CAND_KEPT)
			return r == CAND_STOP ? CAND_STOP : kept;
		kept++;
	}
	return kept;
}

int min_decisions_switches(const int *d, size_t n)
{
	int s = 0;

	for (size_t i = 1; i < n; i++)
		s += d[i] != d[i - 1];
	return s;
}

bool min_decisions_candidate(const int *d, size_t n, int k, int *out, size_t *out_n)
{
	size_t *starts, *lens, m = 0, o = 0;
	size_t r;
	bool ok = false;

	if (!n)
		return false;
	starts = malloc(2 * n * sizeof(*starts));
	if (!starts)
		rt_die("minimize: out of memory");
	lens = starts + n;
	for (size_t i = 0; i < n; i++) {
		if (!i || d[i] != d[i - 1])
			starts[m] = i, lens[m++] = 0;
		lens[m - 1]++;
	}
	/* k = 0: the last run goes; k = 1 .. m-2: the inner run m-1-k moves; then the tail. */
	r = m - 1 - (size_t)k;
	if (k == 0 && m > 1) {
		memcpy(out, d, starts[m - 1] * sizeof(*d));
		*out_n = starts[m - 1];
		ok = true;
	} else if (k >= 1 && m >= 3 && (size_t)k <= m - 2) {
		for (size_t j = 0; j < m; j++) {
			if (j == r)
				continue;
			for (size_t i = 0; i < lens[j]; i++)
				out[o++] = d[starts[j]];
			/* X runs on through Y's run, then Y's steps join its next run. */
			for (size_t i = 0; j == r + 1 && i < lens[r]; i++)
				out[o++] = d[starts[r]];
		}
		*out_n = o;
		ok = true;
	} else if ((size_t)k == (m >= 2 ? m - 1 : 1) && lens[m - 1] > 1) {
		memcpy(out, d, (starts[m - 1] + 1) * sizeof(*d));
		*out_n = starts[m - 1] + 1;
		ok = true;
	}
	free(starts);
	return ok;
}

/*
 * explore's schedule: drop switches (min_decisions_candidate()) while the
 * failure persists; each kept candidate starts the list over.
 * Return: the number kept, or CAND_STOP.
 */
static int shrink_decisions(struct ctx *x)
{
	int kept = 0;

	for (int k = 0;; k++) {
		struct state cand;
		int *d, *c;
		size_t n, cn;
		char what[256];
		int r;
		bool ok;

		if (!x->cur.decisions || rt_explore_parse(x->cur.decisions, &d, &n))
			return kept;
		c = malloc((n + 1) * sizeof(*c));
		if (!c)
			rt_die("minimize: out of memory");
		ok = min_decisions_candidate(d, n, k, c, &cn);
		if (!ok) {
			free(d);
			free(c);
			return kept;
		}
		cand = min_state_dup(&x->cur);
		free(cand.decisions);
		cand.decisions = malloc(rt_explore_format(c, cn, NULL, 0) + 1);
		if (!cand.decisions)
			rt_die("minimize: out of memory");
		rt_explore_format(c, cn, cand.decisions, rt_explore_format(c, cn, NULL, 0) + 1);
		cand.set |= 1u << P_DECISIONS;
		snprintf(what, sizeof(what), "--decisions %.100s (%d switches) -> %.100s (%d)",
			 x->cur.decisions, min_decisions_switches(d, n), cand.decisions,
			 min_decisions_switches(c, cn));
		free(d);
		free(c);
		r = min_try_candidate(x, &cand, what, P_DECISIONS, NULL);
		if (r == CAND_STOP)
			return CAND_STOP;
		if (r == CAND_KEPT) {
			kept++;
			k = -1;		/* a new list: its candidates from the first */
		}
	}
}

/* One pass over every param. Return: the number kept, or CAND_STOP. */
int min_shrink_pass(struct ctx *x)
{
	int kept = 0, r;

#define STEP(call) do {				\
	r = (call);				\
	if (r == CAND_STOP)			\
		return CAND_STOP;		\
	kept += r;				\
} while (0)

	if (x->cur.decisions) {
		/* explore: the pair and its world stay; only the schedule shrinks. */
		STEP(shrink_decisions(x));
		return kept;
	}
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
