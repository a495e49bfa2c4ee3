/* SPDX-License-Identifier: MIT */
/*
 * The instrumentation every emulated lock runs, in one place: the
 * deterministic scheduler's switch points (sched_point()), the per-class
 * lock statistics, the ThreadSanitizer mutex annotations, the flight
 * recorder, lockdep, and the long-hold perturbation (lock_hold_point()).
 * spinlock_t and the bit spinlocks (spinlock.h), the rw_semaphore
 * (rwsem.c), the semaphore (semaphore.c) and the page lock (page.c) call
 * these steps around their own atomic operations, in this order:
 *
 *   acquire:  lock_ev_pre_lock()    sched_point(SP_LOCK), [try_attempts],
 *                                   [preempt_disable()], TSan pre_lock
 *             -- the atomic op that takes the lock --
 *             lock_ev_contended()   (busy: lockdep order check, contended,
 *                                   FL_WAIT; then wait
 *                                   with a struct lock_wait from LOCK_WAIT())
 *             lock_ev_post_lock()   TSan post_lock
 *             lock_ev_try_failed()  (a trylock that failed: stop here)
 *             lock_ev_acquired()    acquired, FL_LOCK / FL_TRYLOCK
 *             lock_ev_held()        lockdep acquire, [lock_hold_point()]
 *             (a trylock ends with lock_ev_try_done(): the last three)
 *
 * Interleaving coverage (cover.h) records the lock's site and object at
 * lock_ev_held() (taken), lock_ev_contended() and lock_ev_try_failed()
 * (found busy: the key comes from lock_ev_pre_lock()) and
 * lock_ev_released(), before its switch point.
 *
 *   release:  lock_ev_pre_unlock()  sched_point(SP_RELEASE), lockdep release,
 *                                   TSan pre_unlock
 *             -- the atomic op that releases the lock --
 *             lock_ev_post_unlock() TSan post_unlock
 *             lock_ev_released()    [preempt_enable()], wake waiters, FL_UNLOCK,
 *                                   sched_point(SP_UNLOCK)
 *
 * The TSan pre/post pair brackets exactly the atomic op (and any wait):
 * TSan ignores the accesses in between and synchronises at post_lock and
 * pre_unlock, so a step may not move across them; this is why the steps
 * are separate and not one lock_ev_lock(). The four steps that call TSan
 * are macros, the rest static inline functions: TSan's stacks then show
 * the lock function (spin_lock's implementation, ...) right under the
 * annotation, where an inline function would add a frame of its own and
 * change the signature a report is keyed on (sanitizers/san_report.c
 * takes the top frames). Every step costs a relaxed load or two when
 * nothing is switched on.
 *
 * @key names the lock everywhere: the lock's address, or for a bit lock
 * a distinct address per (word, bit) (page_lock_key()). The same key is
 * given to TSan, lockdep and the scheduler hook.
 */
#ifndef RT_CORE_LOCK_EVENTS_H
#define RT_CORE_LOCK_EVENTS_H

#include <stdbool.h>

#include "compiler.h"
#include "cover.h"
#include "flight.h"
#include "lockdep.h"
#include "perturb.h"
#include "task.h"
#include "waitq.h"

/* lockdep's validator switch (lockdep_set_enabled()); relaxed. */
extern bool __lockdep_on;

static force_inline bool lock_ev_lockdep_on(void)
{
	return unlikely(__atomic_load_n(&__lockdep_on, __ATOMIC_RELAXED));
}

static inline unsigned int lock_ev_tsan_flags(enum lock_acquire_mode mode, bool read)
{
	return (read ? RT_TSAN_MUTEX_READ_LOCK : 0) |
	       (mode == LOCK_ACQ_TRY ? RT_TSAN_MUTEX_TRY_LOCK : 0);
}

/**
 * lock_ev_before() - the part of lock_ev_pre_lock() before TSan's pre_lock
 * @key, @cls, @mode, @preempt: as given to lock_ev_pre_lock()
 *
 * Context: any; the deterministic scheduler may switch threads here.
 */
static force_inline void lock_ev_before(const void *key, int cls, enum lock_acquire_mode mode,
				  bool preempt)
{
	sched_point(SP_LOCK, key, cls);
	cover_lock_intent(key, cls);
	if (mode == LOCK_ACQ_TRY)
		lock_stat_add(&current->stats[cls].try_attempts);
	if (preempt)
		preempt_disable();
}

/**
 * lock_ev_pre_lock() - before the atomic op that tries to take a lock
 * @key: the lock's identity (see the top of this file)
 * @cls: its lock class
 * @mode: LOCK_ACQ_BLOCKING, or LOCK_ACQ_TRY (counts a try attempt)
 * @read: a shared (rwsem read) acquisition
 * @preempt: a spinning lock: raise preempt_count for the hold
 * @tsan: annotate for TSan (false only for counting semaphores)
 *
 * A scheduler switch point (SP_LOCK), then the TSan pre_lock annotation.
 * A macro, as are the other steps that call TSan (see the top of the file).
 *
 * Context: any; the deterministic scheduler may switch threads here.
 */
#define lock_ev_pre_lock(key, cls, mode, read, preempt, tsan) do {		\
	lock_ev_before((key), (cls), (mode), (preempt));			\
	if (tsan)								\
		tsan_mutex_pre_lock((key), lock_ev_tsan_flags((mode), (read)));	\
} while (0)

/**
 * lock_ev_contended() - the lock was busy; the caller waits next
 * @cls: the lock's class
 * @subclass: its nesting level, or -1 for a lock lockdep does not track
 * @file, @line: the acquisition site
 *
 * Validates the acquisition's order with lockdep before the wait, as the
 * kernel's lock_acquire() does before it spins: an inversion that
 * deadlocks is reported as one, not only as the hang that follows.
 * Counts a contended acquisition and records FL_WAIT. Between
 * lock_ev_pre_lock() and lock_ev_post_lock().
 *
 * Context: any.
 */
static force_inline void lock_ev_contended(int cls, int subclass, const char *file, int line)
{
	if (subclass >= 0 && lock_ev_lockdep_on())
		lock_check_order(cls, subclass, file, line);
	lock_stat_add(&current->stats[cls].contended);
	flight_record(FL_WAIT, file, line, cls);
	cover_lock_busy(COVER_OP_CONTENDED, file, line);
}

/**
 * lock_ev_post_lock() - TSan post_lock, right after the atomic op
 * @key, @mode, @read, @tsan: as given to lock_ev_pre_lock()
 * @ok: the lock was taken (false only for a failed trylock)
 *
 * Context: any.
 */
#define lock_ev_post_lock(key, mode, read, ok, tsan) do {			\
	if (tsan)								\
		tsan_mutex_post_lock((key), lock_ev_tsan_flags((mode), (read)) |	\
				     ((ok) ? 0 : RT_TSAN_MUTEX_TRY_LOCK_FAILED));	\
} while (0)

/**
 * lock_ev_try_failed() - a trylock found the lock busy
 * @cls: the lock's class
 * @preempt: as given to lock_ev_pre_lock(): drop the preempt_count again
 * @file, @line: the trylock's site
 *
 * After lock_ev_post_lock(); the caller then returns failure.
 *
 * Context: any.
 */
static force_inline void lock_ev_try_failed(int cls, bool preempt, const char *file, int line)
{
	if (preempt)
		preempt_enable();
	lock_stat_add(&current->stats[cls].try_failures);
	flight_record(FL_TRYFAIL, file, line, cls);
	cover_lock_busy(COVER_OP_TRYFAIL, file, line);
}

/**
 * lock_ev_acquired() - count the acquisition and record it
 * @cls: the lock's class
 * @mode: LOCK_ACQ_BLOCKING (FL_LOCK) or LOCK_ACQ_TRY (FL_TRYLOCK)
 * @file, @line: the acquisition site
 *
 * Context: the caller now holds the lock.
 */
static force_inline void lock_ev_acquired(int cls, enum lock_acquire_mode mode,
				    const char *file, int line)
{
	lock_stat_add(&current->stats[cls].acquired);
	flight_record(mode == LOCK_ACQ_TRY ? FL_TRYLOCK : FL_LOCK, file, line, cls);
}

/**
 * lock_ev_held() - tell lockdep, and hold longer where asked (blocking only)
 * @key, @cls: the lock
 * @subclass: its nesting level (spin_lock_nested() and friends)
 * @mode, @read: as given to lock_ev_pre_lock()
 * @file, @line: the acquisition site
 *
 * The last step of an acquisition. A blocking acquisition then passes
 * lock_hold_point(), where the long-hold perturbation may keep it.
 *
 * Context: the caller now holds the lock.
 */
static force_inline void lock_ev_held(void *key, int cls, int subclass,
				enum lock_acquire_mode mode, bool read,
				const char *file, int line)
{
	if (lock_ev_lockdep_on())
		lock_acquire(key, cls, subclass, mode, read, file, line);
	cover_lock(key, cls, mode == LOCK_ACQ_TRY ? COVER_OP_TRYLOCK : COVER_OP_LOCK, file, line);
	if (mode == LOCK_ACQ_BLOCKING)
		lock_hold_point(cls);
}

/**
 * lock_ev_try_done() - the end of a trylock, after lock_ev_post_lock()
 * @key, @cls: the lock
 * @read, @preempt: as given to lock_ev_pre_lock()
 * @ok: the lock was taken
 * @tracked: tell lockdep (false only for counting semaphores)
 * @file, @line: the trylock's site
 *
 * lock_ev_try_failed() when @ok is false; else lock_ev_acquired(), then
 * lock_ev_held() for a tracked lock (a trylock: no long hold).
 *
 * Context: any.
 * Return: @ok.
 */
static force_inline bool lock_ev_try_done(void *key, int cls, bool read, bool ok, bool preempt,
				    bool tracked, const char *file, int line)
{
	if (!ok) {
		lock_ev_try_failed(cls, preempt, file, line);
		return false;
	}
	lock_ev_acquired(cls, LOCK_ACQ_TRY, file, line);
	if (tracked)
		lock_ev_held(key, cls, 0, LOCK_ACQ_TRY, read, file, line);
	return true;
}

/* The lockdep half of lock_ev_pre_unlock(). Context: the caller holds the lock. */
static force_inline void lock_ev_release(const void *key, int cls, const char *file, int line)
{
	if (lock_ev_lockdep_on())
		lock_release(key, cls, file, line);
}

/**
 * lock_ev_pre_unlock() - before the atomic op that releases a lock
 * @key, @cls: the lock
 * @read: a shared hold is released
 * @tracked: the lock is tracked by lockdep and TSan (false only for
 *	counting semaphores)
 * @file, @line: the release site
 *
 * A switch point before the release (SP_RELEASE: only --sched vtime
 * decides there, so that a release happens at its virtual time), lockdep
 * release, then the TSan pre_unlock annotation. Read the class before:
 * the lock's memory may be freed right after the release.
 *
 * Context: the caller holds the lock; the vtime scheduler may switch
 * threads here.
 */
#define lock_ev_pre_unlock(key, cls, read, tracked, file, line) do {		\
	sched_point(SP_RELEASE, (key), (cls));					\
	if (tracked) {								\
		lock_ev_release((key), (cls), (file), (line));			\
		tsan_mutex_pre_unlock((key), (read) ? RT_TSAN_MUTEX_READ_LOCK : 0); \
	}									\
} while (0)

/* TSan post_unlock, right after the releasing atomic op. Context: any. */
#define lock_ev_post_unlock(key, read, tracked) do {				\
	if (tracked)								\
		tsan_mutex_post_unlock((key), (read) ? RT_TSAN_MUTEX_READ_LOCK : 0); \
} while (0)

/**
 * lock_ev_released() - the last step of a release
 * @key, @cls: the lock; @key only names it here, it may be freed already
 * @preempt: a spinning lock: drop the preempt_count raised for the hold
 * @file, @line: the release site
 *
 * Wakes the lock's sleeping waiters (waitq.h), records FL_UNLOCK, then
 * a scheduler switch point (SP_UNLOCK).
 *
 * Context: any; the deterministic scheduler may switch threads here.
 */
static force_inline void lock_ev_released(const void *key, int cls, bool preempt,
				    const char *file, int line)
{
	if (preempt)
		preempt_enable();
	waitq_wake(key);
	flight_record(FL_UNLOCK, file, line, cls);
	cover_lock(key, cls, COVER_OP_UNLOCK, file, line);
	sched_point(SP_UNLOCK, key, cls);
}

#endif /* RT_CORE_LOCK_EVENTS_H */
