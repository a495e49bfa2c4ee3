/* SPDX-License-Identifier: MIT */
/*
 * `minimize`'s state, shared by the command (cmd_minimize.c: options, the
 * baseline, the result), its candidates (minimize_candidate.c: their args,
 * their runs, their verdicts) and its search (minimize_shrink.c: each
 * param shrunk in turn).
 */
#ifndef RT_STRESS_CLI_MINIMIZE_INTERNAL_H
#define RT_STRESS_CLI_MINIMIZE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "rt_child.h"
#include "rt_opt.h"

/* What minimize shrinks, in the order it tries them. */
enum param {
	P_STEPS,	/* --sched-steps: deterministic runs only */
	P_THREADS,
	P_RECLAIM,
	P_OPS,
	P_PROCS,
	P_WEIGHTS,
	P_SECONDS,
	P_DECISIONS,	/* --decisions: explore's schedules only (the rest is the pair's world) */
	P_NR,
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
	char *decisions;	/* owned: --decisions as given (NULL: none) */
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

enum { CAND_REJECTED = 0, CAND_KEPT = 1, CAND_STOP = -1 };

/* The artifact's integer field @f (0 if none). */
long long min_field_int(const json_t *art, const char *f);
/* The weights as op=w,... (only the non-zero ones with @nonzero_only) into @buf. */
void min_weights_str(const json_t *w, char *buf, size_t len, bool nonzero_only);
/* @s's values from the artifact @art. */
void min_state_from_art(struct state *s, const json_t *art);
/* Drop @s's references (weights, artifact). */
void min_state_release(struct state *s);
/* Whether the budget has time left; sets x->budget_out when not. */
bool min_budget_left(struct ctx *x);
/* The number of switches of decision list @d (@n): a slot that differs from the one before. */
int min_decisions_switches(const int *d, size_t n);

/**
 * min_decisions_candidate() - the @k-th simpler decision list of @d (@n)
 * @out: receives it (room for @n)
 * @out_n: its length
 *
 * The list as runs of one slot: k = 0 .. drops a switch, from the last to
 * the first: the last run goes (its CPU then runs on by default); an inner
 * run of Y between two of X moves after the second (X runs on through
 * it, Y's steps join its next run): two switches fewer, each CPU's steps
 * in the same order. Then one more: the last run cut to its first
 * decision (past the list every CPU runs on anyway).
 * Return: false when there is no @k-th candidate.
 */
bool min_decisions_candidate(const int *d, size_t n, int k, int *out, size_t *out_n);

/* A candidate: @s with its own copy of the weights and decisions, no artifact. */
struct state min_state_dup(const struct state *s);
/*
 * Try the candidate @cand (described by @what) with the tries a step gets;
 * kept, it becomes x->cur, else it is released (minimize_candidate.c).
 * Return: CAND_KEPT, CAND_REJECTED or CAND_STOP.
 */
int min_try_candidate(struct ctx *x, struct state *cand, const char *what, enum param changed,
		      const char *op);
/* Lower integer param @p to @val (a candidate); the verdict of min_try_candidate(). */
int min_try_int(struct ctx *x, enum param p, long long val);

/* One pass over every param. Return: the number kept, or CAND_STOP. */
int min_shrink_pass(struct ctx *x);

#endif /* RT_STRESS_CLI_MINIMIZE_INTERNAL_H */
