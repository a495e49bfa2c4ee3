/* SPDX-License-Identifier: MIT */
/*
 * Sleeping until a lock is released: the model's wait queues.
 *
 * The kernel wakes a sleeping lock's waiters at the release (up(),
 * up_read(), unlock_page()'s wake_up_page()), and a spinning CPU sees the
 * release within a cache-line transfer. The emulated locks' waiters
 * (spinlock.c) spin, yield, and then sleep; before this file they slept
 * in polled steps of 2 us up to 1 ms, each at least the kernel's 50 us
 * timer slack, for holds of a few microseconds. On 2 cores that barely
 * showed; on 16 it made the harness's backoff, not the rmap design, the
 * limit of a real `scale` run (docs/numbers.md, "Virtual time").
 *
 * Now a waiter past its spin and yield rounds registers on one of
 * WAITQ_NR buckets, hashed from the lock's key (the key lock_events.h
 * gives every step), and sleeps on the bucket's futex word; every release
 * (lock_ev_released()) looks at its bucket and, when someone sleeps
 * there, bumps the word and wakes them. A bucket's sleepers re-check
 * their own lock and sleep again if it is still held (another key in the
 * bucket, or another waiter came first).
 *
 * This is the harness's machinery, not the model: relaxed atomics only,
 * so ThreadSanitizer sees no happens-before here that the model's own
 * locks do not make, and the deterministic schedules never get here
 * (they decide at SP_WAIT). A wake can be missed: a spinlock's release
 * is a plain store, and no fence orders it before the releaser's look at
 * the bucket (unlock stays a store and a load; a fence there, on every
 * unlock, was not tried). The sleep's timeout, the old poll step, bounds
 * what a missed wake costs.
 */
#ifndef RT_CORE_WAITQ_H
#define RT_CORE_WAITQ_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"

#define WAITQ_BITS	10
#define WAITQ_NR	(1u << WAITQ_BITS)

struct waitq {
	unsigned int seq;		/* atomic, relaxed: the futex word; +1 per wake */
	unsigned int sleepers;		/* atomic, relaxed: tasks registered here */
} __attribute__((aligned(64)));

extern struct waitq waitq_table[WAITQ_NR];

/* The bucket of a lock's key. Context: any. */
static inline struct waitq *waitq_of(const void *key)
{
	uint64_t k = (uint64_t)(uintptr_t)key;

	/* Keys are aligned addresses: mix the high bits down (Fibonacci hashing). */
	return &waitq_table[(k * 0x9e3779b97f4a7c15ULL) >> (64 - WAITQ_BITS)];
}

void __waitq_wake(struct waitq *q);

/**
 * waitq_wake() - wake the tasks sleeping in @key's bucket
 * @key: the lock just released; only hashed, it may be freed already
 *
 * Costs one relaxed load when nobody sleeps there.
 *
 * Context: any; never sleeps.
 */
static force_inline void waitq_wake(const void *key)
{
	struct waitq *q = waitq_of(key);

	if (unlikely(__atomic_load_n(&q->sleepers, __ATOMIC_RELAXED)))
		__waitq_wake(q);
}

/**
 * waitq_register() - be woken by the releases in @q from now on
 * @q: the bucket of the lock waited for
 *
 * The caller looks at its lock once more after this, then sleeps with
 * waitq_sleep() on the value returned: a release after that look either
 * sees it registered or changes the word first.
 *
 * Context: a task that will call waitq_unregister() when its wait ends.
 * Return: the bucket's futex word now.
 */
unsigned int waitq_register(struct waitq *q);

/**
 * waitq_sleep() - sleep until @q is woken or @ns pass
 * @q: a bucket the caller registered on
 * @seq: the word's value when the caller last looked at its lock
 * @ns: the timeout, in nanoseconds (< 1 s)
 *
 * Context: may sleep.
 * Return: the word's value now, for the next sleep.
 */
unsigned int waitq_sleep(struct waitq *q, unsigned int seq, long ns);

/* The wait is over. Context: a task registered on @q. */
void waitq_unregister(struct waitq *q);

/* No task is registered on any bucket (a test's and a run's end). Context: any. */
bool waitq_idle(void);

#endif /* RT_CORE_WAITQ_H */
