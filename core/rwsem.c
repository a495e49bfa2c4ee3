// SPDX-License-Identifier: MIT
/*
 * struct rw_semaphore on one atomic word: the reader count in the low
 * bits, RWSEM_WRITER when a writer holds it, RWSEM_WAITING when a writer
 * waits (new readers then wait too). Mirrors the semantics of 2.6's
 * lib/rwsem.c (fair to writers), not its wait queues: waiters poll with
 * lock_wait_sleep(), which sleeps soon, as a blocked task would.
 */
#include "rwsem.h"

#include "bug.h"
#include "lock_events.h"
#include "spinlock.h"
#include "task.h"

void init_rwsem(struct rw_semaphore *sem, int class_id)
{
	__atomic_store_n(&sem->count, 0, __ATOMIC_RELAXED);
	sem->dep_map.class_id = (uint16_t)class_id;
	lockdep_note_lock(sem, sizeof(*sem), class_id);
	tsan_mutex_create(sem, RT_TSAN_MUTEX_NOT_STATIC);
}

static inline bool read_trylock_once(struct rw_semaphore *sem)
{
	long c = __atomic_load_n(&sem->count, __ATOMIC_RELAXED);

	/* Acquire pairs with the release in _up_write()/_downgrade_write(). */
	return !(c & (RWSEM_WRITER | RWSEM_WAITING)) &&
	       __atomic_compare_exchange_n(&sem->count, &c, c + 1, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline bool write_trylock_once(struct rw_semaphore *sem)
{
	long c = __atomic_load_n(&sem->count, __ATOMIC_RELAXED);

	/* Acquire pairs with the release in _up_read()/_up_write(). */
	return (c & ~RWSEM_WAITING) == 0 &&
	       __atomic_compare_exchange_n(&sem->count, &c, RWSEM_WRITER, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/**
 * _down_read() - take @sem shared; sleeps while a writer holds or waits
 * Context: may sleep: reported in atomic context.
 */
void _down_read(struct rw_semaphore *sem, int subclass, const char *file, int line)
{
	int cls = sem->dep_map.class_id;

	if (unlikely(current->preempt_count))
		_might_sleep(lock_class_name(cls), file, line);
	lock_ev_pre_lock(sem, cls, LOCK_ACQ_BLOCKING, true, false, true);
	if (unlikely(!read_trylock_once(sem))) {
		struct lock_wait w = LOCK_WAIT(sem, cls);

		lock_ev_contended(cls, subclass, file, line);
		while (!read_trylock_once(sem))
			lock_wait_sleep(&w);
		lock_wait_end(&w);
	}
	lock_ev_post_lock(sem, LOCK_ACQ_BLOCKING, true, true, true);
	lock_ev_acquired(cls, LOCK_ACQ_BLOCKING, file, line);
	lock_ev_held(sem, cls, subclass, LOCK_ACQ_BLOCKING, true, file, line);
}

bool _down_read_trylock(struct rw_semaphore *sem, const char *file, int line)
{
	int cls = sem->dep_map.class_id;
	bool ok;

	lock_ev_pre_lock(sem, cls, LOCK_ACQ_TRY, true, false, true);
	ok = read_trylock_once(sem);
	lock_ev_post_lock(sem, LOCK_ACQ_TRY, true, ok, true);
	return lock_ev_try_done(sem, cls, true, ok, false, true, file, line);
}

void _up_read(struct rw_semaphore *sem, const char *file, int line)
{
	/* Read before the release: the rwsem's memory may be freed right after. */
	int cls = sem->dep_map.class_id;
	long old;

	lock_ev_pre_unlock(sem, cls, true, true, file, line);
	/* Release pairs with the acquire in write_trylock_once(). */
	old = __atomic_fetch_sub(&sem->count, 1, __ATOMIC_RELEASE);
	lock_ev_post_unlock(sem, true, true);
	BUG_ON((old & ~(RWSEM_WAITING | RWSEM_WRITER)) == 0 || (old & RWSEM_WRITER));
	lock_ev_released(sem, cls, false, file, line);
}

/**
 * _down_write() - take @sem exclusively; new readers wait meanwhile
 * Context: may sleep: reported in atomic context.
 */
void _down_write(struct rw_semaphore *sem, int subclass, const char *file, int line)
{
	int cls = sem->dep_map.class_id;

	if (unlikely(current->preempt_count))
		_might_sleep(lock_class_name(cls), file, line);
	lock_ev_pre_lock(sem, cls, LOCK_ACQ_BLOCKING, false, false, true);
	if (unlikely(!write_trylock_once(sem))) {
		struct lock_wait w = LOCK_WAIT(sem, cls);

		lock_ev_contended(cls, subclass, file, line);
		while (!write_trylock_once(sem)) {
			long c = __atomic_load_n(&sem->count, __ATOMIC_RELAXED);

			/* Hold off new readers; the winning writer clears it. */
			if (!(c & RWSEM_WAITING))
				__atomic_fetch_or(&sem->count, RWSEM_WAITING, __ATOMIC_RELAXED);
			lock_wait_sleep(&w);
		}
		lock_wait_end(&w);
	}
	lock_ev_post_lock(sem, LOCK_ACQ_BLOCKING, false, true, true);
	lock_ev_acquired(cls, LOCK_ACQ_BLOCKING, file, line);
	lock_ev_held(sem, cls, subclass, LOCK_ACQ_BLOCKING, false, file, line);
}

bool _down_write_trylock(struct rw_semaphore *sem, const char *file, int line)
{
	int cls = sem->dep_map.class_id;
	bool ok;

	lock_ev_pre_lock(sem, cls, LOCK_ACQ_TRY, false, false, true);
	ok = write_trylock_once(sem);
	lock_ev_post_lock(sem, LOCK_ACQ_TRY, false, ok, true);
	return lock_ev_try_done(sem, cls, false, ok, false, true, file, line);
}

void _up_write(struct rw_semaphore *sem, const char *file, int line)
{
	int cls = sem->dep_map.class_id;	/* before the release, as in _up_read() */
	long old;

	lock_ev_pre_unlock(sem, cls, false, true, file, line);
	/* Release pairs with the acquires in read/write_trylock_once(). */
	old = __atomic_fetch_and(&sem->count, ~RWSEM_WRITER, __ATOMIC_RELEASE);
	lock_ev_post_unlock(sem, false, true);
	BUG_ON(!(old & RWSEM_WRITER));
	lock_ev_released(sem, cls, false, file, line);
}

/*
 * Not a release and an acquire: the hold goes on, shared, with no
 * scheduler point, no statistics and no flight event; lockdep and TSan
 * see the write hold end and a read hold (a trylock: no new edge) begin.
 */
void _downgrade_write(struct rw_semaphore *sem, const char *file, int line)
{
	int cls = sem->dep_map.class_id;
	long old;

	lock_ev_pre_unlock(sem, cls, false, true, file, line);
	/* Writer becomes one reader; release pairs with write_trylock_once(). */
	old = __atomic_fetch_add(&sem->count, 1 - RWSEM_WRITER, __ATOMIC_RELEASE);
	lock_ev_post_unlock(sem, false, true);
	BUG_ON(!(old & RWSEM_WRITER));
	waitq_wake(sem);	/* readers may go on now */
	tsan_mutex_pre_lock(sem, RT_TSAN_MUTEX_READ_LOCK);
	tsan_mutex_post_lock(sem, RT_TSAN_MUTEX_READ_LOCK);
	lock_ev_held(sem, cls, 0, LOCK_ACQ_TRY, true, file, line);
}
