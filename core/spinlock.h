/* SPDX-License-Identifier: MIT */
/*
 * spinlock_t and bit spinlocks, built to survive an oversubscribed box:
 * 32 emulated CPUs on 2 real cores. A waiter spins briefly with PAUSE, then
 * yields the core, then sleeps in growing steps, so the holder gets to run.
 *
 * Every acquisition raises the task's preempt_count (so sleeping inside is
 * reported), counts in the per-class statistics, goes through lockdep, and
 * is annotated for ThreadSanitizer so its reports name the lock and its
 * deadlock detector sees the order.
 */
#ifndef RT_CORE_SPINLOCK_H
#define RT_CORE_SPINLOCK_H

#include <stdbool.h>

#include "bug.h"
#include "compiler.h"
#include "lockdep.h"
#include "perturb.h"
#include "task.h"

typedef struct spinlock {
	unsigned int locked;		/* atomic: 0 free, 1 held */
	struct lockdep_map dep_map;
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(cls)	{ .locked = 0, .dep_map = { .class_id = (cls) } }

/*
 * Waiting for any emulated lock: spin a little, then sched_yield(), then
 * sleep up to about a millisecond. One state per wait.
 */
struct lock_wait {
	unsigned int iter;
};
void lock_wait_relax(struct lock_wait *w);
/* Waits for sleeping locks (semaphore, rwsem, lock_page) go to sleep sooner. */
void lock_wait_sleep(struct lock_wait *w);

extern bool __lockdep_on;

void spin_lock_init(spinlock_t *lock, int class_id);
void __spin_lock_contended(spinlock_t *lock);

static inline void __spin_lock(spinlock_t *lock, int subclass,
			       const char *file, int line)
{
	struct task_struct *t = current;
	int cls = lock->dep_map.class_id;

	sched_point(SP_LOCK);
	preempt_disable();
	tsan_mutex_pre_lock(lock, 0);
	if (unlikely(__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE))) {
		/* Pairs with the release in __spin_unlock(). */
		lock_stat_add(&t->stats[cls].contended);
		flight_record(FL_WAIT, file, line, cls);
		__spin_lock_contended(lock);
	}
	tsan_mutex_post_lock(lock, 0);
	lock_stat_add(&t->stats[cls].acquired);
	flight_record(FL_LOCK, file, line, cls);
	if (unlikely(__atomic_load_n(&__lockdep_on, __ATOMIC_RELAXED)))
		lock_acquire(lock, cls, subclass, LOCK_ACQ_BLOCKING, false, file, line);
	lock_hold_point(cls);
}

static inline bool __spin_trylock(spinlock_t *lock, const char *file, int line)
{
	struct task_struct *t = current;
	int cls = lock->dep_map.class_id;
	bool ok;

	sched_point(SP_LOCK);
	lock_stat_add(&t->stats[cls].try_attempts);
	preempt_disable();
	tsan_mutex_pre_lock(lock, RT_TSAN_MUTEX_TRY_LOCK);
	/* Acquire pairs with the release in __spin_unlock(). */
	ok = !__atomic_load_n(&lock->locked, __ATOMIC_RELAXED) &&
	     !__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE);
	tsan_mutex_post_lock(lock, ok ? RT_TSAN_MUTEX_TRY_LOCK :
			     RT_TSAN_MUTEX_TRY_LOCK | RT_TSAN_MUTEX_TRY_LOCK_FAILED);
	if (!ok) {
		preempt_enable();
		lock_stat_add(&t->stats[cls].try_failures);
		flight_record(FL_TRYFAIL, file, line, cls);
		return false;
	}
	lock_stat_add(&t->stats[cls].acquired);
	flight_record(FL_TRYLOCK, file, line, cls);
	if (unlikely(__atomic_load_n(&__lockdep_on, __ATOMIC_RELAXED)))
		lock_acquire(lock, cls, 0, LOCK_ACQ_TRY, false, file, line);
	return true;
}

static inline void __spin_unlock(spinlock_t *lock, const char *file, int line)
{
	/* Read before the release: the lock's memory may be freed right after. */
	int cls = lock->dep_map.class_id;

	if (unlikely(__atomic_load_n(&__lockdep_on, __ATOMIC_RELAXED)))
		lock_release(lock, cls, file, line);
	tsan_mutex_pre_unlock(lock, 0);
	/* Pairs with the acquire in __spin_lock()/__spin_trylock(). */
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
	tsan_mutex_post_unlock(lock, 0);
	preempt_enable();
	flight_record(FL_UNLOCK, file, line, cls);
	sched_point(SP_UNLOCK);
}

static inline bool spin_is_locked(const spinlock_t *lock)
{
	return __atomic_load_n(&lock->locked, __ATOMIC_RELAXED) != 0;
}

#define spin_lock(l)		__spin_lock((l), 0, __FILE__, __LINE__)
#define spin_lock_nested(l, s)	__spin_lock((l), (s), __FILE__, __LINE__)
#define spin_trylock(l)		__spin_trylock((l), __FILE__, __LINE__)
#define spin_unlock(l)		__spin_unlock((l), __FILE__, __LINE__)

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
void __bit_spin_wait(unsigned int bitnr, unsigned long *addr);

static inline void __bit_spin_lock(unsigned int bitnr, unsigned long *addr,
				   void *tsan_key, int cls,
				   const char *file, int line)
{
	struct task_struct *t = current;
	unsigned long mask = 1UL << bitnr;

	sched_point(SP_LOCK);
	preempt_disable();
	tsan_mutex_pre_lock(tsan_key, 0);
	/* Acquire pairs with the release in __bit_spin_unlock(). */
	while (unlikely(__atomic_fetch_or(addr, mask, __ATOMIC_ACQUIRE) & mask)) {
		lock_stat_add(&t->stats[cls].contended);
		flight_record(FL_WAIT, file, line, cls);
		__bit_spin_wait(bitnr, addr);
	}
	tsan_mutex_post_lock(tsan_key, 0);
	lock_stat_add(&t->stats[cls].acquired);
	flight_record(FL_LOCK, file, line, cls);
	if (unlikely(__atomic_load_n(&__lockdep_on, __ATOMIC_RELAXED)))
		lock_acquire(tsan_key, cls, 0, LOCK_ACQ_BLOCKING, false, file, line);
	lock_hold_point(cls);
}

static inline bool __bit_spin_trylock(unsigned int bitnr, unsigned long *addr,
				      void *tsan_key, int cls,
				      const char *file, int line)
{
	struct task_struct *t = current;
	unsigned long mask = 1UL << bitnr;
	bool ok;

	sched_point(SP_LOCK);
	lock_stat_add(&t->stats[cls].try_attempts);
	preempt_disable();
	tsan_mutex_pre_lock(tsan_key, RT_TSAN_MUTEX_TRY_LOCK);
	ok = !(__atomic_fetch_or(addr, mask, __ATOMIC_ACQUIRE) & mask);
	tsan_mutex_post_lock(tsan_key, ok ? RT_TSAN_MUTEX_TRY_LOCK :
			     RT_TSAN_MUTEX_TRY_LOCK | RT_TSAN_MUTEX_TRY_LOCK_FAILED);
	if (!ok) {
		preempt_enable();
		lock_stat_add(&t->stats[cls].try_failures);
		flight_record(FL_TRYFAIL, file, line, cls);
		return false;
	}
	lock_stat_add(&t->stats[cls].acquired);
	flight_record(FL_TRYLOCK, file, line, cls);
	if (unlikely(__atomic_load_n(&__lockdep_on, __ATOMIC_RELAXED)))
		lock_acquire(tsan_key, cls, 0, LOCK_ACQ_TRY, false, file, line);
	return true;
}

static inline void __bit_spin_unlock(unsigned int bitnr, unsigned long *addr,
				     void *tsan_key, int cls,
				     const char *file, int line)
{
	if (unlikely(__atomic_load_n(&__lockdep_on, __ATOMIC_RELAXED)))
		lock_release(tsan_key, cls, file, line);
	tsan_mutex_pre_unlock(tsan_key, 0);
	/* Pairs with the acquire in __bit_spin_lock()/__bit_spin_trylock(). */
	__atomic_fetch_and(addr, ~(1UL << bitnr), __ATOMIC_RELEASE);
	tsan_mutex_post_unlock(tsan_key, 0);
	preempt_enable();
	flight_record(FL_UNLOCK, file, line, cls);
	sched_point(SP_UNLOCK);
}

#endif /* RT_CORE_SPINLOCK_H */
