/* SPDX-License-Identifier: MIT */
/*
 * One lock-validation helper for the lock suites (check_spinlock,
 * check_rwsem, check_semaphore, check_pagelock, check_lockdep,
 * check_atomic), parameterised by lock type, as ConcurrencyKit's
 * regressions/ck_spinlock/validate/ share one validate.h: the test lock
 * classes, the fixtures, and the workers that run one lock type through
 * exclusion and contention.
 */
#ifndef RT_TESTS_RT_LOCKVAL_H
#define RT_TESTS_RT_LOCKVAL_H

#include <stdbool.h>

/*
 * Plain (non-atomic) accesses that the compiler may not fold or cache, so
 * the checks really re-read memory and TSan still sees a data race if the
 * lock fails to exclude.
 */
#define PLAIN_LOAD(x)		(*(volatile __typeof__(x) *)&(x))
#define PLAIN_STORE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))

/* A lock type, as the shared workers take and release it. */
struct rt_lock_type {
	const char *name;	/* "lock", "semaphore": in failure messages */
	void (*lock)(void *lock);
	void (*unlock)(void *lock);
	bool spins;		/* preempt_count is 1 inside (checked) */
};

/* spinlock_t (spin_lock/spin_unlock) and a semaphore used as a mutex (down/up). */
extern const struct rt_lock_type rt_lock_spinlock;
extern const struct rt_lock_type rt_lock_semaphore;
/* lock_page/unlock_page, and an rw_semaphore taken for write. */
extern const struct rt_lock_type rt_lock_page;
extern const struct rt_lock_type rt_lock_rwsem_write;

/* A test-only class, outside the documented order; reused by name. */
int rt_lockval_class(const char *name);

/*
 * The fixtures, for a suite table's TCases (rt_check.h's rt_suite()).
 *
 * The statistics fixture (spinlock, rwsem, semaphore): failures cleared,
 * lockdep on, statistics zeroed, no lock held and no preempt_count; the
 * teardown stops capturing reports, leaves lockdep on and checks that no
 * lock wait is still registered on a wait queue (core/waitq.h).
 */
void rt_lockval_setup(void);
void rt_lockval_teardown(void);

/*
 * The lockdep fixture (lockdep, atomic): lockdep on with an empty graph,
 * reports captured; the teardown releases them and checks that the test
 * left no lock held and no preempt_count raised.
 */
void rt_lockval_graph_setup(void);
void rt_lockval_graph_teardown(void);

/*
 * Mutual exclusion: @nthreads threads each enter @lock @iters times; in the
 * section each checks that nobody else is inside (a holder word) and bumps
 * a plain counter, yielding in about one section of @yield_one_in.
 */
struct rt_lockval_excl {
	const struct rt_lock_type *type;
	void *lock;
	int iters;
	unsigned int yield_one_in;	/* 0: never yield inside */
	unsigned long counter;		/* the lock */
	int holder;			/* the lock: id + 1 of the holder, 0 when free */
};
/* Run it; the caller asserts (no worker failure, counter, holder). */
void rt_lockval_excl_run(struct rt_lockval_excl *r, int nthreads);

/*
 * One contended acquisition: t0 takes @lock and holds it until class @cls
 * counts a contention (bounded by RT_WAIT_LIMIT_S), t1 takes it once
 * meanwhile. Return: the contended count t0 saw before releasing (1 for a
 * lock that counts its contention before it waits); the caller asserts.
 */
int rt_lockval_contend_one(const struct rt_lock_type *type, void *lock, int cls);

/*
 * Wake on release (core/waitq.h): the main thread's worker holds @lock
 * until the other, blocked on it, has registered on @key's wait queue,
 * then releases it; the release must move the queue's word, and the
 * waiter, having taken and released the lock, must be unregistered.
 */
void rt_lockval_wake_one(const struct rt_lock_type *type, void *lock, const void *key);

#endif /* RT_TESTS_RT_LOCKVAL_H */
