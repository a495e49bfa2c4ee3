/* SPDX-License-Identifier: MIT */
/*
 * spinlock_t and bit spinlocks, built to survive an oversubscribed box:
 * 32 emulated CPUs on 2 real cores. A waiter spins briefly with PAUSE, then
 * yields the core, then sleeps in growing steps, so the holder gets to run.
 *
 * Every acquisition raises the task's preempt_count (so sleeping inside is
 * reported), counts in the per-class statistics, goes through lockdep, and
 * is annotated for ThreadSanitizer so its reports name the lock and its
 * deadlock detector sees the order: the steps of lock_events.h.
 */
#ifndef RT_CORE_SPINLOCK_H
#define RT_CORE_SPINLOCK_H

#include <stdbool.h>

#include "bug.h"
#include "compiler.h"
#include "lock_events.h"
#include "lockdep.h"
#include "perturb.h"
#include "task.h"
#include "waitq.h"

typedef struct spinlock {
	unsigned int locked;		/* atomic: 0 free, 1 held */
	struct lockdep_map dep_map;
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(cls)	{ .locked = 0, .dep_map = { .class_id = (cls) } }

/*
 * Waiting for any emulated lock: spin a little, then sched_yield(), then
 * sleep until the lock's release wakes the waiter (waitq.h), at most
 * about a millisecond at a time. One state per wait, made with
 * LOCK_WAIT(key, cls) for a lock (the scheduler hook is told which, and
 * the release of that key wakes) or LOCK_WAIT_NONE for a wait that is
 * not for a lock (it polls). A wait for a lock ends with lock_wait_end().
 */
struct lock_wait {
	unsigned int iter;
	int cls;		/* the lock's class, or -1 */
	const void *lock;	/* the lock's key (lock_events.h), or NULL */
	struct waitq *q;	/* registered on this bucket, or NULL */
	unsigned int seq;	/* q's word when the waiter last looked */
};
#define LOCK_WAIT(key, c)	((struct lock_wait){ .iter = 0, .cls = (c), .lock = (key) })
#define LOCK_WAIT_NONE		LOCK_WAIT(NULL, -1)
void lock_wait_relax(struct lock_wait *w);
/* Waits for sleeping locks (semaphore, rwsem, lock_page) go to sleep sooner. */
void lock_wait_sleep(struct lock_wait *w);

/* The lock was taken (or the wait given up): stop being woken. */
static inline void lock_wait_end(struct lock_wait *w)
{
	if (w->q)
		waitq_unregister(w->q);
	w->q = NULL;
}

void spin_lock_init(spinlock_t *lock, int class_id);
void _spin_lock_contended(spinlock_t *lock, int cls);

static force_inline void _spin_lock(spinlock_t *lock, int subclass,
			      const char *file, int line)
{
	int cls = lock->dep_map.class_id;

	lock_ev_pre_lock(lock, cls, LOCK_ACQ_BLOCKING, false, true, true);
	if (unlikely(__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE))) {
		/* Pairs with the release in _spin_unlock(). */
		lock_ev_contended(cls, subclass, file, line);
		_spin_lock_contended(lock, cls);
	}
	lock_ev_post_lock(lock, LOCK_ACQ_BLOCKING, false, true, true);
	lock_ev_acquired(cls, LOCK_ACQ_BLOCKING, file, line);
	lock_ev_held(lock, cls, subclass, LOCK_ACQ_BLOCKING, false, file, line);
}

static force_inline bool _spin_trylock(spinlock_t *lock, const char *file, int line)
{
	int cls = lock->dep_map.class_id;
	bool ok;

	lock_ev_pre_lock(lock, cls, LOCK_ACQ_TRY, false, true, true);
	/* Acquire pairs with the release in _spin_unlock(). */
	ok = !__atomic_load_n(&lock->locked, __ATOMIC_RELAXED) &&
	     !__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE);
	lock_ev_post_lock(lock, LOCK_ACQ_TRY, false, ok, true);
	return lock_ev_try_done(lock, cls, false, ok, true, true, file, line);
}

static force_inline void _spin_unlock(spinlock_t *lock, const char *file, int line)
{
	/* Read before the release: the lock's memory may be freed right after. */
	int cls = lock->dep_map.class_id;

	lock_ev_pre_unlock(lock, cls, false, true, file, line);
	/* Pairs with the acquire in _spin_lock()/_spin_trylock(). */
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
	lock_ev_post_unlock(lock, false, true);
	lock_ev_released(lock, cls, true, file, line);
}

static inline bool spin_is_locked(const spinlock_t *lock)
{
	return __atomic_load_n(&lock->locked, __ATOMIC_RELAXED) != 0;
}

#define spin_lock(l)		_spin_lock((l), 0, __FILE__, __LINE__)
#define spin_lock_nested(l, s)	_spin_lock((l), (s), __FILE__, __LINE__)
#define spin_trylock(l)		_spin_trylock((l), __FILE__, __LINE__)
#define spin_unlock(l)		_spin_unlock((l), __FILE__, __LINE__)

/*
 * Assert the current task holds @l (lockdep on), or at least that someone
 * does (lockdep off). For __foo() functions that expect the caller's lock.
 */
#define assert_spin_locked(l) \
	BUG_ON(__lockdep_on ? !lock_is_held(l) : !spin_is_locked(l))

/*
 * Bit spinlocks: one bit of a flags word, the rest of which other CPUs
 * change concurrently with atomic bit operations (page->flags).
 * @tsan_key is a distinct address per (word, bit) for TSan: never the
 * word's own address, where the other flag atomics live.
 */
void _bit_spin_wait(unsigned int bitnr, unsigned long *addr, void *tsan_key, int cls);

static force_inline void _bit_spin_lock(unsigned int bitnr, unsigned long *addr,
				  void *tsan_key, int cls,
				  const char *file, int line)
{
	unsigned long mask = 1UL << bitnr;

	lock_ev_pre_lock(tsan_key, cls, LOCK_ACQ_BLOCKING, false, true, true);
	/* Acquire pairs with the release in _bit_spin_unlock(). */
	while (unlikely(__atomic_fetch_or(addr, mask, __ATOMIC_ACQUIRE) & mask)) {
		lock_ev_contended(cls, 0, file, line);
		_bit_spin_wait(bitnr, addr, tsan_key, cls);
	}
	lock_ev_post_lock(tsan_key, LOCK_ACQ_BLOCKING, false, true, true);
	lock_ev_acquired(cls, LOCK_ACQ_BLOCKING, file, line);
	lock_ev_held(tsan_key, cls, 0, LOCK_ACQ_BLOCKING, false, file, line);
}

static force_inline bool _bit_spin_trylock(unsigned int bitnr, unsigned long *addr,
				     void *tsan_key, int cls,
				     const char *file, int line)
{
	unsigned long mask = 1UL << bitnr;
	bool ok;

	lock_ev_pre_lock(tsan_key, cls, LOCK_ACQ_TRY, false, true, true);
	ok = !(__atomic_fetch_or(addr, mask, __ATOMIC_ACQUIRE) & mask);
	lock_ev_post_lock(tsan_key, LOCK_ACQ_TRY, false, ok, true);
	return lock_ev_try_done(tsan_key, cls, false, ok, true, true, file, line);
}

static force_inline void _bit_spin_unlock(unsigned int bitnr, unsigned long *addr,
				    void *tsan_key, int cls,
				    const char *file, int line)
{
	lock_ev_pre_unlock(tsan_key, cls, false, true, file, line);
	/* Pairs with the acquire in _bit_spin_lock()/_bit_spin_trylock(). */
	__atomic_fetch_and(addr, ~(1UL << bitnr), __ATOMIC_RELEASE);
	lock_ev_post_unlock(tsan_key, false, true);
	lock_ev_released(tsan_key, cls, true, file, line);
}

#endif /* RT_CORE_SPINLOCK_H */
