/* SPDX-License-Identifier: MIT */
/*
 * Perturbation points: places in the model where a race window opens
 * (between a lookup and the re-check under a lock, between unmapping and
 * freeing, ...). Each calls yield_point("name"), which costs one load
 * when nothing is installed. The harness installs a hook that yields or
 * sleeps there at random, as liburcu's debug-yield does, to widen the
 * windows on a 2-core machine; and a long-hold hook that keeps chosen
 * lock classes held longer, as locktorture's long_hold does.
 */
#ifndef RT_CORE_PERTURB_H
#define RT_CORE_PERTURB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "flight.h"

struct perturb_ops {
	/*
	 * At a yield point named @where; may yield or sleep, even where the
	 * caller holds spinlocks: a CPU stalled there, as a preempted vCPU
	 * or an interrupt would stall it.
	 */
	void (*yield)(const char *where);
	/* A lock of class @cls was just acquired; may spin or sleep. */
	void (*long_hold)(int cls);
};

extern const struct perturb_ops *perturb_ops;	/* set before threads start */

/*
 * Switch points of the deterministic scheduler (--sched random|pct): every
 * emulated lock operation and yield point calls sched_point(). The hook
 * returns false for a thread the scheduler does not run; for one it runs,
 * it may hand the CPU to another thread before returning true. At
 * SP_WAIT (a lock is busy) it must switch away: the holder has to run.
 */
enum sched_point_kind {
	SP_LOCK,	/* about to take a lock */
	SP_UNLOCK,	/* just released one */
	SP_WAIT,	/* the lock wanted is busy */
	SP_YIELD,	/* a yield point of the model */
	SP_RELEASE,	/* about to release a lock (only vtime switches here) */
};

/**
 * typedef sched_hook_fn - the hook behind every sched_point()
 * @kind: which switch point
 * @lock: the lock's identity: the key it has in lockdep and TSan (its
 *	address, or page_lock_key() for a bit lock). NULL at SP_YIELD and
 *	at waits that are not for a lock (a TLB flush waiting for a CPU, a
 *	page's shadow word, an idle kswapd). Only a name: at SP_UNLOCK the
 *	lock may be freed already, so the hook must never dereference it.
 * @cls: the lock's class (lockdep.h), or -1 where @lock is NULL
 *
 * One hook is installed at a time (stress/rt_sched.c's deterministic
 * scheduler); a hook that wants more (coverage of lock events, a virtual
 * clock) sees every lock operation of the model here.
 *
 * Context: the calling emulated task, possibly holding spinlocks (and at
 * SP_UNLOCK just after a release; at SP_LOCK before the TSan pre_lock);
 * the hook must take no emulated lock.
 * Return: true when the scheduler runs this thread (and it may have
 * switched away and back), false when it does not.
 */
typedef bool (*sched_hook_fn)(enum sched_point_kind kind, const void *lock, int cls);
extern sched_hook_fn sched_hook;	/* relaxed; set while no thread runs */

/**
 * sched_point() - a switch point of the deterministic scheduler
 * @kind, @lock, @cls: passed to the hook (see sched_hook_fn)
 *
 * Costs one relaxed load when no hook is installed.
 *
 * Context: as for sched_hook_fn.
 * Return: the hook's answer; false when none is installed.
 */
static inline bool sched_point(enum sched_point_kind kind, const void *lock, int cls)
{
	sched_hook_fn hook = __atomic_load_n(&sched_hook, __ATOMIC_RELAXED);

	return unlikely(hook != NULL) && hook(kind, lock, cls);
}
extern uint64_t perturb_long_hold_mask;		/* classes for long_hold */

/* Install @ops (NULL: none) with @long_hold_mask. Context: no thread runs. */
void perturb_install(const struct perturb_ops *ops, uint64_t long_hold_mask);

/* Every point's name, for --help and validation; NULL-terminated. */
extern const char *const yield_point_names[];

static inline void yield_point(const char *where)
{
	const struct perturb_ops *ops;

	if (__atomic_load_n(&flight_enabled, __ATOMIC_RELAXED))
		flight_yield(where);
	sched_point(SP_YIELD, NULL, -1);
	ops = __atomic_load_n(&perturb_ops, __ATOMIC_RELAXED);

	if (unlikely(ops && ops->yield))
		ops->yield(where);
}

static inline void lock_hold_point(int cls)
{
	if (unlikely(__atomic_load_n(&perturb_long_hold_mask, __ATOMIC_RELAXED) &
		     (1ULL << cls)))
		perturb_ops->long_hold(cls);
}

#endif /* RT_CORE_PERTURB_H */
