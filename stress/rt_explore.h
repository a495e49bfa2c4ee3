/* SPDX-License-Identifier: MIT */
/*
 * The enumerator behind `rmaptorture explore`: every schedule of a run
 * under the deterministic scheduler (kind RT_SCHED_EXPLORE) with at most
 * K preemptions, depth first and statelessly, as CHESS does (Musuvathi
 * and Qadeer, PLDI 2007). Each schedule is a decision prefix; the run
 * replays it from the initial world and goes on without preempting
 * (rt_sched.h); its trace tells the enumerator where the run could have
 * branched. A preemption is a decision that switches away from a thread
 * that could have gone on; switching when it cannot (it waits for a lock,
 * it exited) is free.
 *
 * Pure: no threads, no clock, no I/O; unit-tested without the binary.
 *
 * Pruning (optional): sleep sets (Godefroid) on the objects each segment
 * touched, as the coverage layer reports them (rt_sched_decision's
 * objs). Where the default branch continued CPU X with segment a and the
 * sibling preempts X for Y, X sleeps in the sibling while Y's segments
 * touch none of a's objects: switching back to X there would give a
 * schedule that commutes to one the default branch ran, with no more
 * preemptions (a·[to Y]·b·[to X] costs at most what [to Y]·b·[to X]
 * does). Only with two CPUs enabled; a segment whose objects are not
 * known (none, or too many) is dependent on everything. Sound only as
 * far as the sites name every object a segment touches: an access with
 * no site between two switch points is invisible to it, and only as far
 * as an object's address names it in every run: the segments compared
 * come from different runs, whose allocator state differs (`explore
 * --prune` is opt-in for that reason).
 */
#ifndef RT_STRESS_RT_EXPLORE_H
#define RT_STRESS_RT_EXPLORE_H

#include <stdbool.h>
#include <stddef.h>

#include "rt_sched.h"

/* The objects one segment touched; nr <= 0: not known (dependent on all). */
struct rt_explore_fp {
	int nr;
	const void *o[RT_SCHED_SEG_OBJS];
};

/* One level of the depth-first search: a decision and what was tried there. */
struct rt_explore_level {
	struct rt_sched_decision d;	/* d.chosen: the branch being explored */
	unsigned int tried;		/* slots tried (or over the bound, or pruned) here */
	struct rt_explore_fp seg;	/* the segment d.chosen ran after it */
	struct rt_explore_fp first;	/* d.me's segment in the default branch */
	bool have_first;		/* the default branch continued d.me */
	bool hot;			/* a communicating switch point (rt_explore_set_hot()) */
};

/*
 * The decisions one run added past its prefix (saved as the run left
 * them): the children of that schedule are its untried slots. Kept so
 * that the children can be taken in any order, not only deepest first.
 */
struct rt_explore_frame {
	size_t start, n;		/* path levels start .. start+n-1 */
	size_t at;			/* their copy: rt_explore.saved[at .. at+n-1] */
};

struct rt_explore {
	int k;				/* the preemption bound */
	struct rt_explore_level *lv;	/* the current path */
	size_t nr, cap;
	int *prefix;			/* the next schedule's decisions */
	size_t nr_prefix;
	struct rt_explore_frame *frames;	/* one per schedule on the path */
	size_t nr_frames, cap_frames;
	/*
	 * The frames' copies, a stack, and backtrack()'s scratch: kept from
	 * schedule to schedule, so that the search allocates nothing between
	 * two runs once grown (the runs' worlds then lie where they lay, and
	 * the sleep sets compare their objects by address across runs).
	 */
	struct rt_explore_level *saved;
	size_t nr_saved, cap_saved;
	int *before;
	const void *const *hot;		/* the next fed run's communicating objects */
	int nr_hot;
	unsigned long schedules;	/* fed so far */
	unsigned long diverged;		/* runs whose trace left their prefix (nondeterminism) */
	unsigned long hot_levels;	/* decisions fed that were communicating switch points */
	bool prune;			/* sleep sets on the segments' objects */
	unsigned long pruned;		/* branches within the bound not run for that */
	bool done;
};

/* rt_explore_init() - an empty search for schedules with at most @k preemptions; @prune: sleep sets. */
void rt_explore_init(struct rt_explore *x, int k, bool prune);

/* rt_explore_free() - release what the search holds. */
void rt_explore_free(struct rt_explore *x);

/**
 * rt_explore_next() - the next schedule to run
 * @x: the search
 * @prefix, @nr: receive its decisions (owned by @x, valid until the next call)
 *
 * Context: call rt_explore_feed() with the run's trace before calling again.
 * Return: false when every schedule within the bound has been run.
 */
bool rt_explore_next(struct rt_explore *x, const int **prefix, size_t *nr);

/**
 * rt_explore_feed() - the trace of the schedule just run
 * @x: the search
 * @t, @n: every decision the run took (rt_sched_trace())
 *
 * Extends the path with the decisions past the prefix, then backtracks to
 * the deepest decision with an untried slot whose preemptions, added to
 * those before it, stay within the bound.
 */
void rt_explore_feed(struct rt_explore *x, const struct rt_sched_decision *t, size_t n);

/**
 * rt_explore_set_hot() - the objects the next fed run's CPUs communicate through
 * @x: the search
 * @objs, @nr: objects that two CPUs of that run both touched (core/cover.h's
 *	footprint), comparable with its trace's objects; @nr 0: none known
 *
 * A decision of that run is then a communicating switch point when the
 * CPU it may preempt goes on, in the default branch, with a segment that
 * touches one of them (or objects too many to list): preempting it there
 * lets the others act on that object first. Among the
 * children of a schedule, those that branch at a communicating switch
 * point run first (deepest first among them), then the others (deepest
 * first): the order changes, the set of schedules does not. Without a
 * call, or with @nr 0, the order is plain depth first.
 *
 * Context: @objs must stay valid until rt_explore_feed() returns.
 */
void rt_explore_set_hot(struct rt_explore *x, const void *const *objs, int nr);

/* The preemptions of trace @t (@n decisions). */
int rt_explore_preemptions(const struct rt_sched_decision *t, size_t n);

/*
 * A decision list as text, run-length coded: "0x12,1x3,0" is slot 0
 * twelve times, slot 1 three times, then slot 0 once (`run --decisions`,
 * the artifact's command). Return: the length it needed (as snprintf).
 */
size_t rt_explore_format(const int *d, size_t n, char *buf, size_t len);

/*
 * Parse rt_explore_format()'s text into a new array (@out, free() it).
 * Return: 0, or -EINVAL (a slot outside 0..31, a count of 0, junk).
 */
int rt_explore_parse(const char *text, int **out, size_t *nr);

/**
 * rt_explore_pairs() - the ordered pairs of operation kinds to explore
 * @weights: a scenario's weights, @nr of them; a kind of weight 0 is left out
 * @out: receives the pairs (first CPU's kind, second's), in order
 * @max: room in @out
 *
 * Every ordered pair (a kind with itself too): (a, b) and (b, a) differ in
 * which CPU runs first by default, and so in the schedules within K.
 * Return: the number of pairs (those past @max are not stored).
 */
int rt_explore_pairs(const unsigned int *weights, int nr, int (*out)[2], int max);

/**
 * rt_explore_pairs_kswapd() - rt_explore_pairs(), then each kind with kswapd
 * @weights: a scenario's weights, @nr of them; a kind of weight 0 is left out
 * @kswapd: the number that stands for kswapd's reclaim step (RT_OP_KSWAPD)
 * @out: receives the pairs (first CPU's, second's), in order
 * @max: room in @out
 *
 * After rt_explore_pairs()'s, (a, @kswapd) and (@kswapd, a) for each kind
 * a, in the kinds' order: reclaim against each operation, either CPU first.
 * Return: the number of pairs (those past @max are not stored).
 */
int rt_explore_pairs_kswapd(const unsigned int *weights, int nr, int kswapd, int (*out)[2],
			    int max);

#endif /* RT_STRESS_RT_EXPLORE_H */
