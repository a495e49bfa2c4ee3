// SPDX-License-Identifier: MIT
/*
 * Waiting for emulated locks, and the contended paths of the spinlocks.
 *
 * 32 emulated CPUs share 2 real cores, so a waiter that only spins burns
 * the time slice its lock holder needs. Waiters spin a few rounds, then
 * yield, then sleep until the release wakes them (waitq.h), with a
 * timeout growing up to a millisecond: the lock degrades into a sleeping
 * lock under oversubscription instead of collapsing.
 */
#include "spinlock.h"

#include <sched.h>
#include <time.h>

#define SPIN_ROUNDS	6	/* PAUSE bursts of 1, 2, 4 .. 32 */
#define YIELD_ROUNDS	8
#define SLEEP_MIN_NS	2000L
#define SLEEP_MAX_NS	1000000L

/*
 * Sleep, step @step of a wait: until @w's lock is released (waitq.h) or
 * the step's timeout, 2 us doubling up to 1 ms, passes; a wait with no
 * lock to be woken by sleeps the timeout. The first call for a lock only
 * registers: the caller looks at the lock once more before any sleep.
 */
static void relax_sleep(struct lock_wait *w, unsigned int step)
{
	long ns = SLEEP_MIN_NS << (step < 9 ? step : 9);

	if (ns > SLEEP_MAX_NS)
		ns = SLEEP_MAX_NS;
	if (!w->lock) {
		nanosleep(&(struct timespec){ 0, ns }, NULL);
		return;
	}
	if (!w->q) {
		w->q = waitq_of(w->lock);
		w->seq = waitq_register(w->q);
		return;
	}
	w->seq = waitq_sleep(w->q, w->seq, ns);
}

void lock_wait_relax(struct lock_wait *w)
{
	unsigned int i = w->iter++;

	/* Under the deterministic scheduler: let another thread run. */
	if (sched_point(SP_WAIT, w->lock, w->cls))
		return;

	if (i < SPIN_ROUNDS) {
		for (unsigned int n = 0; n < (1u << i); n++)
			cpu_relax();
	} else if (i < SPIN_ROUNDS + YIELD_ROUNDS) {
		sched_yield();
	} else {
		relax_sleep(w, i - SPIN_ROUNDS - YIELD_ROUNDS);
	}
}

void lock_wait_sleep(struct lock_wait *w)
{
	unsigned int i = w->iter++;

	if (sched_point(SP_WAIT, w->lock, w->cls))
		return;

	if (i < 2)
		cpu_relax();
	else if (i < 2 + YIELD_ROUNDS / 2)
		sched_yield();
	else
		relax_sleep(w, i - 2 - YIELD_ROUNDS / 2);
}

void spin_lock_init(spinlock_t *lock, int class_id)
{
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELAXED);
	lock->dep_map.class_id = (uint16_t)class_id;
	lockdep_note_lock(lock, sizeof(*lock), class_id);
	tsan_mutex_create(lock, RT_TSAN_MUTEX_NOT_STATIC);
}

void _spin_lock_contended(spinlock_t *lock, int cls)
{
	struct lock_wait w = LOCK_WAIT(lock, cls);

	for (;;) {
		while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED))
			lock_wait_relax(&w);
		/* Acquire pairs with the release in _spin_unlock(). */
		if (!__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE))
			break;
	}
	lock_wait_end(&w);
}

void _bit_spin_wait(unsigned int bitnr, unsigned long *addr, void *tsan_key, int cls)
{
	struct lock_wait w = LOCK_WAIT(tsan_key, cls);

	while (__atomic_load_n(addr, __ATOMIC_RELAXED) & (1UL << bitnr))
		lock_wait_relax(&w);
	lock_wait_end(&w);
}
