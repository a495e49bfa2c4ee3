/* SPDX-License-Identifier: MIT */
/*
 * The deterministic scheduler (--sched random|pct): one thread of the run
 * at a time; at every emulated lock operation and yield point (the
 * sched_point() hook of core/perturb.h) the running thread picks who runs
 * next, from the seed alone. The same seed and options give the same
 * interleaving, so a failure found this way replays exactly.
 *
 * The hand-off is a relaxed store plus a raw futex call: no
 * happens-before edge that TSan could see, so an access the model's locks
 * do not order is still reported as a race.
 *
 * random: every decision picks uniformly among the threads that can run.
 * pct: Burckhardt et al.'s probabilistic concurrency testing: random
 * distinct priorities, the highest-priority runnable thread runs, and at
 * D-1 change points drawn from the first K steps the running thread drops
 * below everyone. A bug of depth D is found with probability at least
 * 1/(n·K^(D-1)) per run.
 * cover: PCT's priorities, with the change points placed by the
 * interleaving coverage (core/cover.h) instead of at random steps: when
 * the running thread has just reached a site that can still form pairs
 * nobody covered (on its kind of object), it drops below everyone with
 * probability 1/(2 + tries/8) (tries: how often that site was already
 * used so without covering a new pair), so the window it has just opened
 * stays open while the others run into it. A thread that passes 4
 * switch points in a row with no site between them spins for something
 * a lower-priority thread must do: it drops too. Every 64th decision on
 * average it drops anyway, so no thread keeps the CPU for good. The
 * coverage under one thread at a time is a function of the seed, so the
 * schedule is too.
 * explore: the decisions are given (`rmaptorture explore`, rt_explore.h):
 * decision i picks decisions[i] when that thread can run; past the list,
 * the running thread goes on while it can (no preemption), else the next
 * slot after it that can. Every decision is recorded (rt_sched_trace()):
 * who ran, who could, who was picked, and the coverage site the running
 * thread last reached (the switch point's file:line), so that the
 * enumerator can branch and a report can name the preempted points.
 */
#ifndef RT_STRESS_RT_SCHED_H
#define RT_STRESS_RT_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "rt_vtime.h"

enum rt_sched_kind {
	RT_SCHED_FREE,		/* real threads, no scheduler */
	RT_SCHED_RANDOM,
	RT_SCHED_PCT,
	RT_SCHED_VTIME,		/* virtual time, smallest clock first (rt_vtime.h) */
	RT_SCHED_COVER,
	RT_SCHED_EXPLORE,	/* decisions given, then no preemption (rt_explore.h) */
};

struct rt_sched_config {
	enum rt_sched_kind kind;
	uint64_t seed;
	int pct_depth;			/* D >= 1 */
	unsigned long pct_steps;	/* K: change points fall in 1..K */
	unsigned long max_steps;	/* stop after this many decisions; 0: no bound */
	unsigned long audit_steps;	/* park everyone and audit every so many; 0: never */
	struct rt_vtime_config vtime;	/* kind RT_SCHED_VTIME */
	const int *decisions;		/* kind RT_SCHED_EXPLORE: the slots to pick, in order */
	unsigned long nr_decisions;
};

#define RT_SCHED_SEG_OBJS	4	/* = COVER_SEG_OBJS */

/* One decision of an explore schedule, as rt_sched_trace() records it. */
struct rt_sched_decision {
	int me;			/* the slot that held the CPU; -1: main, at the start */
	bool me_enabled;	/* it could have gone on: switching away is a preemption */
	unsigned int enabled;	/* the slots that could be picked, a bit each (slots < 32) */
	int chosen;		/* the slot picked */
	int site;		/* core/cover.h site @me last reached; -1: none (no coverage) */
	int point;		/* the switch point @me stands at (enum sched_point_kind), -1 */
	int point_cls;		/* its lock class (SP_LOCK, SP_UNLOCK), else -1 */
	/*
	 * The objects @me's segment before this decision touched (its
	 * sites' objects and the one whose window it started in); -1: too
	 * many to list; 0: none known (no coverage, no site).
	 */
	int nr_objs;
	const void *objs[RT_SCHED_SEG_OBJS];
};

/* The decisions an explore schedule records, at most. */
#define RT_SCHED_TRACE_MAX	(1UL << 17)

/*
 * The decisions of the last explore schedule (kept after rt_sched_fini(),
 * until the next rt_sched_init()); @nr receives their number.
 */
const struct rt_sched_decision *rt_sched_trace(unsigned long *nr);

const char *rt_sched_name(enum rt_sched_kind kind);
int rt_sched_by_name(const char *name);		/* -1 if unknown */

/* PCT's bound on the probability of hitting a given depth-D bug in one run. */
double rt_sched_pct_bound(int nr_threads, unsigned long steps, int depth);

/**
 * rt_sched_init() - install the scheduler for @nr threads
 * @audit: called by the last thread to park, with every other one parked
 *	at an operation boundary (the model is quiescent)
 * Context: no thread of the run exists yet.
 */
void rt_sched_init(const struct rt_sched_config *cfg, int nr, void (*audit)(void *), void *arg);

/* Uninstall it and free its state, after every thread of the run was joined. */
void rt_sched_fini(void);

/* A thread of the run joins as slot @slot; returns when it is first chosen. */
void rt_sched_enter(int slot);

/* The calling thread leaves the run (it holds no emulated lock). */
void rt_sched_exit(void);

/* Main: wait until all @nr threads entered, then let the first one run. */
void rt_sched_start(void);

/* Threads that have left the run so far (rt_sched_exit()). Context: any. */
unsigned int rt_sched_exits(void);

/*
 * Main: sleep until rt_sched_exits() is no longer @seen, or @ns
 * nanoseconds at most. Return: whether a thread left meanwhile.
 */
bool rt_sched_wait_exit(unsigned int seen, long ns);

/*
 * Between two operations: park if an audit is due. Returns when the audit
 * is done (by the last thread to park, which may be this one).
 */
void rt_sched_park_point(void);

/*
 * The calling thread of the run idles about @ns (kswapd between scans).
 * Return: false if no scheduler runs it (then it sleeps itself); random
 * and pct switch to another thread, vtime advances its clock by @ns.
 */
bool rt_sched_idle(uint64_t ns);

/* Threads of the run are still in it (started, and not all exited). */
bool rt_sched_running(void);

/* The stop decision was taken (by a decision, deterministically). */
bool rt_sched_stopped(void);

/* Main asks for the run to end; the next decision stops it. */
void rt_sched_request_stop(void);

/* Decisions taken so far; and the one at which the stop was decided. */
unsigned long rt_sched_steps(void);
unsigned long rt_sched_stop_step(void);

/*
 * pct, cover: the threads dropped below everyone after PCT_TICK_STEPS
 * decisions inside one operation (a loop waiting for a lower-priority
 * thread), and the most decisions one thread took in one operation.
 */
unsigned long rt_sched_tick_drops(void);
unsigned long rt_sched_longest_op(void);

#endif /* RT_STRESS_RT_SCHED_H */
