// SPDX-License-Identifier: MIT
/*
 * The 2.6 counting semaphore (kernel/semaphore.c's interface; arch
 * semaphores in 2.6). With an initial count of 1 it is a sleeping mutex:
 * i_shared_sem. Only then is it tracked by lockdep and annotated for TSan
 * as a lock; a counting semaphore has no owner to track.
 */
#include "semaphore.h"

#include "bug.h"
#include "lock_events.h"
#include "spinlock.h"
#include "task.h"

void sema_init(struct semaphore *sem, int val, int class_id)
{
	BUG_ON(val < 0);
	__atomic_store_n(&sem->count, val, __ATOMIC_RELAXED);
	sem->mutex = val == 1;
	sem->dep_map.class_id = (uint16_t)class_id;
	lockdep_note_lock(sem, sizeof(*sem), class_id);
	if (sem->mutex)
		tsan_mutex_create(sem, RT_TSAN_MUTEX_NOT_STATIC);
}

static inline bool down_once(struct semaphore *sem)
{
	int c = __atomic_load_n(&sem->count, __ATOMIC_RELAXED);

	/* Acquire pairs with the release in _up(). */
	return c > 0 && __atomic_compare_exchange_n(&sem->count, &c, c - 1, false,
						    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/**
 * _down() - take one unit of @sem, sleeping until one is free
 * Context: may sleep: reported in atomic context (the seeded bug
 * reclaim-down-ishared is exactly this, under a page's rmap bit lock).
 */
void _down(struct semaphore *sem, int subclass, const char *file, int line)
{
	int cls = sem->dep_map.class_id;

	if (unlikely(current->preempt_count))
		_might_sleep(lock_class_name(cls), file, line);
	lock_ev_pre_lock(sem, cls, LOCK_ACQ_BLOCKING, false, false, sem->mutex);
	if (unlikely(!down_once(sem))) {
		struct lock_wait w = LOCK_WAIT(sem, cls);

		lock_ev_contended(cls, sem->mutex ? subclass : -1, file, line);
		while (!down_once(sem))
			lock_wait_sleep(&w);
		lock_wait_end(&w);
	}
	lock_ev_acquired(cls, LOCK_ACQ_BLOCKING, file, line);
	if (!sem->mutex)
		return;
	lock_ev_post_lock(sem, LOCK_ACQ_BLOCKING, false, true, true);
	lock_ev_held(sem, cls, subclass, LOCK_ACQ_BLOCKING, false, file, line);
}

/**
 * _down_trylock() - take one unit of @sem if one is free
 * Context: any; never sleeps.
 * Return: 0 when taken, 1 when not (the kernel's convention).
 */
int _down_trylock(struct semaphore *sem, const char *file, int line)
{
	int cls = sem->dep_map.class_id;
	bool ok;

	lock_ev_pre_lock(sem, cls, LOCK_ACQ_TRY, false, false, sem->mutex);
	ok = down_once(sem);
	lock_ev_post_lock(sem, LOCK_ACQ_TRY, false, ok, sem->mutex);
	return !lock_ev_try_done(sem, cls, false, ok, false, sem->mutex, file, line);
}

void _up(struct semaphore *sem, const char *file, int line)
{
	/* Read before the release: the semaphore may be freed right after. */
	bool mutex = sem->mutex;
	int cls = sem->dep_map.class_id;

	lock_ev_pre_unlock(sem, cls, false, mutex, file, line);
	/* Release pairs with the acquire in down_once(). */
	__atomic_fetch_add(&sem->count, 1, __ATOMIC_RELEASE);
	lock_ev_post_unlock(sem, false, mutex);
	lock_ev_released(sem, cls, false, file, line);
}
