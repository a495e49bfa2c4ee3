// SPDX-License-Identifier: MIT
/*
 * The 2.6 counting semaphore (kernel/semaphore.c's interface; arch
 * semaphores in 2.6). With an initial count of 1 it is a sleeping mutex:
 * i_shared_sem. Only then is it tracked by lockdep and annotated for TSan
 * as a lock; a counting semaphore has no owner to track.
 */
#include "semaphore.h"

#include "bug.h"
#include "perturb.h"
#include "spinlock.h"
#include "task.h"

void sema_init(struct semaphore *sem, int val, int class_id)
{
	BUG_ON(val < 0);
	__atomic_store_n(&sem->count, val, __ATOMIC_RELAXED);
	sem->mutex = val == 1;
	sem->dep_map.class_id = (uint16_t)class_id;
	if (sem->mutex)
		tsan_mutex_create(sem, RT_TSAN_MUTEX_NOT_STATIC);
}

static inline bool down_once(struct semaphore *sem)
{
	int c = __atomic_load_n(&sem->count, __ATOMIC_RELAXED);

	/* Acquire pairs with the release in __up(). */
	return c > 0 && __atomic_compare_exchange_n(&sem->count, &c, c - 1, false,
						    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/**
 * __down() - take one unit of @sem, sleeping until one is free
 * Context: may sleep: reported in atomic context (the seeded bug
 * reclaim-down-ishared is exactly this, under a page's rmap bit lock).
 */
void __down(struct semaphore *sem, int subclass, const char *file, int line)
{
	struct task_struct *t = current;
	int cls = sem->dep_map.class_id;

	if (unlikely(t->preempt_count))
		__might_sleep(lock_class_name(cls), file, line);
	sched_point(SP_LOCK);
	if (sem->mutex)
		tsan_mutex_pre_lock(sem, 0);
	if (unlikely(!down_once(sem))) {
		struct lock_wait w = { 0 };

		lock_stat_add(&t->stats[cls].contended);
		flight_record(FL_WAIT, file, line, cls);
		while (!down_once(sem))
			lock_wait_sleep(&w);
	}
	lock_stat_add(&t->stats[cls].acquired);
	flight_record(FL_LOCK, file, line, cls);
	if (!sem->mutex)
		return;
	tsan_mutex_post_lock(sem, 0);
	if (unlikely(__atomic_load_n(&__lockdep_on, __ATOMIC_RELAXED)))
		lock_acquire(sem, cls, subclass, LOCK_ACQ_BLOCKING, false, file, line);
	lock_hold_point(cls);
}

/**
 * __down_trylock() - take one unit of @sem if one is free
 * Context: any; never sleeps.
 * Return: 0 when taken, 1 when not (the kernel's convention).
 */
int __down_trylock(struct semaphore *sem, const char *file, int line)
{
	struct task_struct *t = current;
	int cls = sem->dep_map.class_id;
	bool ok;

	sched_point(SP_LOCK);
	lock_stat_add(&t->stats[cls].try_attempts);
	if (sem->mutex)
		tsan_mutex_pre_lock(sem, RT_TSAN_MUTEX_TRY_LOCK);
	ok = down_once(sem);
	if (sem->mutex)
		tsan_mutex_post_lock(sem, RT_TSAN_MUTEX_TRY_LOCK |
				     (ok ? 0 : RT_TSAN_MUTEX_TRY_LOCK_FAILED));
	if (!ok) {
		lock_stat_add(&t->stats[cls].try_failures);
		flight_record(FL_TRYFAIL, file, line, cls);
		return 1;
	}
	lock_stat_add(&t->stats[cls].acquired);
	flight_record(FL_TRYLOCK, file, line, cls);
	if (sem->mutex && unlikely(__atomic_load_n(&__lockdep_on, __ATOMIC_RELAXED)))
		lock_acquire(sem, cls, 0, LOCK_ACQ_TRY, false, file, line);
	return 0;
}

void __up(struct semaphore *sem, const char *file, int line)
{
	/* Read before the release: the semaphore may be freed right after. */
	bool mutex = sem->mutex;
	int cls = sem->dep_map.class_id;

	if (mutex) {
		if (unlikely(__atomic_load_n(&__lockdep_on, __ATOMIC_RELAXED)))
			lock_release(sem, cls, file, line);
		tsan_mutex_pre_unlock(sem, 0);
	}
	/* Release pairs with the acquire in down_once(). */
	__atomic_fetch_add(&sem->count, 1, __ATOMIC_RELEASE);
	if (mutex)
		tsan_mutex_post_unlock(sem, 0);
	flight_record(FL_UNLOCK, file, line, cls);
	sched_point(SP_UNLOCK);
}
