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
	SP_RELEASE,	/* about to release a lock */
};
typedef bool (*sched_hook_fn)(enum sched_point_kind kind);
extern sched_hook_fn sched_hook;	/* relaxed; set while no thread runs */

static inline bool sched_point(enum sched_point_kind kind)
{
	sched_hook_fn hook = __atomic_load_n(&sched_hook, __ATOMIC_RELAXED);

	return unlikely(hook != NULL) && hook(kind);
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
	sched_point(SP_YIELD);
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
