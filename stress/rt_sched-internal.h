/* SPDX-License-Identifier: MIT */
/*
 * Between the deterministic scheduler's core (rt_sched.c: the baton, its
 * hand-off, the switch points, parking for an audit) and its pickers
 * (rt_sched_pick.c: which thread runs next under random, pct and cover,
 * vtime and explore, and pct's and cover's change points). Not for use
 * outside stress/rt_sched*.c.
 */
#ifndef RT_STRESS_RT_SCHED_INTERNAL_H
#define RT_STRESS_RT_SCHED_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"
#include "random.h"
#include "rt_sched.h"

enum slot_state {
	SLOT_RUNNABLE,
	SLOT_WAITING,		/* for a lock: runnable again after a release */
	SLOT_PARKED,		/* at an operation boundary, for the audit */
	SLOT_EXITED,
};

struct slot {
	unsigned int word;	/* futex: bumped at every hand-off to this slot */
	int state;		/* enum slot_state; baton holder */
	unsigned long wait_epoch;	/* S.epoch when it started waiting */
	long prio;		/* pct: higher runs first */
	unsigned int idle;	/* cover: decisions in a row with no coverage event */
	unsigned long op_steps;	/* pct, cover: its decisions since its last operation boundary */
	int point_kind;		/* baton holder: the switch point it stands at (enum */
	int point_cls;		/*   sched_point_kind) and its lock class, or -1 */
} ____cacheline_aligned;

#define RLX(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define SET(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/*
 * The scheduler's state (defined in rt_sched.c). S is the two files'
 * name for it, as it was when they were one.
 */
struct rt_sched_state {
	struct rt_sched_config cfg;
	int nr;
	struct slot *slots;
	int cur;			/* the slot holding the baton */
	unsigned int entered;		/* futex: threads that called rt_sched_enter() */
	unsigned int exits;		/* futex, release/acquire: rt_sched_exit() calls */
	unsigned long steps;		/* decisions taken */
	unsigned long epoch;		/* lock releases */
	uint64_t rng;
	unsigned long *change;		/* pct: sorted change points */
	int nr_change, next_change;
	long low_prio;			/* pct, cover: next priority below everyone */
	unsigned int *site_tries;	/* cover: drops at each site since its last new pair */
	unsigned long cover_drops;	/* cover: change points taken */
	unsigned long tick_drops;	/* pct, cover: threads dropped by PCT_TICK_STEPS */
	unsigned long longest_op;	/* pct, cover: most decisions one thread took in one operation */
	int parking;			/* an audit is due */
	int stop;			/* decided: the run ends */
	int request_stop;		/* main asked for the end */
	unsigned long stop_step;
	unsigned long park_gen;		/* acquire/release: audits done */
	void (*audit)(void *);
	void *audit_arg;
	unsigned int run_len;		/* explore: decisions in a row the holder kept the CPU */
};

extern struct rt_sched_state rt_sched_s;
#define S rt_sched_s

/*
 * explore: the decisions of the last schedule (baton holder writes; main
 * reads after the join). Outside S, so that rt_sched_fini() keeps it.
 * Defined in rt_sched_pick.c.
 */
struct rt_sched_trace_buf {
	struct rt_sched_decision *d;
	unsigned long nr, cap;
};

extern struct rt_sched_trace_buf rt_sched_t;
#define T rt_sched_t

static inline uint64_t sched_rand(void)
{
	uint64_t r = RLX(S.rng);
	uint64_t v = rt_rand(&r);

	SET(S.rng, r);
	return v;
}

/**
 * rt_sched_pick_next() - the slot to run next, under the run's kind
 *
 * Context: the baton holder: main at the start, an exiting thread at its
 * end (rt_sched_pick.c).
 * Return: the slot, or -1 when no thread is left to run.
 */
int rt_sched_pick_next(void);

/**
 * rt_sched_cover_steer() - cover's change point for the running thread
 * @me: the baton holder's slot
 *
 * Context: the baton holder, --sched cover (rt_sched_pick.c).
 */
void rt_sched_cover_steer(int me);

/**
 * rt_sched_tick() - count @me's decisions in its operation; drop it at the bound
 * @me: the baton holder's slot
 *
 * Context: the baton holder, --sched pct or cover (rt_sched_pick.c).
 */
void rt_sched_tick(int me);

#endif /* RT_STRESS_RT_SCHED_INTERNAL_H */
