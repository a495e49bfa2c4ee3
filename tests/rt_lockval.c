// SPDX-License-Identifier: MIT
/*
 * The lock suites' shared validation (rt_lockval.h): lock types, test
 * classes, fixtures, and the exclusion and contention workers.
 */
#include "rt_lockval.h"

#include <sched.h>

#include "lockdep.h"
#include "rt_check.h"
#include "page.h"
#include "rwsem.h"
#include "semaphore.h"
#include "spinlock.h"
#include "task.h"
#include "waitq.h"

/*
 * An rt_lock_type @var named @label, through the lock/unlock pair of the
 * kernel API @lockf/@unlockf on a @ctype (macros: the sites lockdep sees
 * are this file's).
 */
#define RT_LOCK_TYPE(var, label, ctype, lockf, unlockf, spin)		\
	static void var##_lock(void *l) { lockf((ctype *)l); }		\
	static void var##_unlock(void *l) { unlockf((ctype *)l); }		\
	const struct rt_lock_type var = {					\
		.name = (label), .lock = var##_lock, .unlock = var##_unlock,	\
		.spins = (spin),						\
	}

RT_LOCK_TYPE(rt_lock_spinlock, "lock", spinlock_t, spin_lock, spin_unlock, true);
RT_LOCK_TYPE(rt_lock_semaphore, "semaphore", struct semaphore, down, up, false);
RT_LOCK_TYPE(rt_lock_page, "page lock", struct page, lock_page, unlock_page, false);
RT_LOCK_TYPE(rt_lock_rwsem_write, "rw_semaphore", struct rw_semaphore, down_write, up_write,
	     false);

int rt_lockval_class(const char *name)
{
	int cls = lock_class_by_name(name);

	if (cls < 0)
		cls = lockdep_register_class(name, -1);
	ck_assert_int_ge(cls, LOCK_CLASS_NR_STATIC);
	return cls;
}

void rt_lockval_setup(void)
{
	rt_failure_reset();
	lockdep_set_enabled(true);
	lock_stats_reset();
	ck_assert_int_eq(current->preempt_count, 0);
	ck_assert_int_eq(lockdep_depth(), 0);
}

void rt_lockval_teardown(void)
{
	rt_reports_release();
	lockdep_set_enabled(true);
	/* Every wait that registered to be woken (waitq.h) ended. */
	ck_assert(waitq_idle());
}

void rt_lockval_graph_setup(void)
{
	lockdep_set_enabled(true);
	lockdep_reset_graph();
	rt_reports_capture();
}

void rt_lockval_graph_teardown(void)
{
	rt_reports_release();
	ck_assert_int_eq(current->preempt_count, 0);
	ck_assert_int_eq(lockdep_depth(), 0);
	ck_assert(waitq_idle());
}

static void excl_worker(int idx, void *arg)
{
	struct rt_lockval_excl *r = arg;
	const struct rt_lock_type *type = r->type;
	uint64_t rng = rt_thread_rng(idx);
	int me = idx + 1;

	for (int i = 0; i < r->iters; i++) {
		unsigned long v;
		int h;

		type->lock(r->lock);
		h = PLAIN_LOAD(r->holder);
		if (h != 0)
			rt_fail("t%d entered while t%d holds the %s", idx, h - 1, type->name);
		PLAIN_STORE(r->holder, me);
		if (type->spins && current->preempt_count != 1)
			rt_fail("t%d: preempt_count %d inside", idx, current->preempt_count);
		v = PLAIN_LOAD(r->counter);
		if (r->yield_one_in && rt_rand(&rng) % r->yield_one_in == 0)
			sched_yield();
		PLAIN_STORE(r->counter, v + 1);
		h = PLAIN_LOAD(r->holder);
		if (h != me)
			rt_fail("t%d: holder changed to t%d inside the section", idx, h - 1);
		PLAIN_STORE(r->holder, 0);
		type->unlock(r->lock);
		if (type->spins && current->preempt_count != 0)
			rt_fail("t%d: preempt_count %d after unlock", idx, current->preempt_count);
	}
}

void rt_lockval_excl_run(struct rt_lockval_excl *r, int nthreads)
{
	rt_run_threads(nthreads, excl_worker, r);
}

/*
 * Two threads on one lock: worker 0 takes it and holds it until @seen,
 * which it polls, says the blocked worker 1 got where the test wants it
 * (or RT_WAIT_LIMIT_S passes), then lets go; worker 1 takes and releases
 * it. @seen's last value, read right before the release, is kept.
 */
struct hold_one {
	const struct rt_lock_type *type;
	void *lock;
	unsigned long (*seen)(struct hold_one *h);
	int cls;		/* contend_seen()'s class */
	struct waitq *q;	/* wake_seen()'s wait queue */
	bool registered;	/* the holder registered on q, ... */
	unsigned int seq;	/* ... when q's word was this */
	int held;
	unsigned long last;
};

static void hold_one_worker(int idx, void *arg)
{
	struct hold_one *h = arg;

	if (idx == 0) {
		double deadline;

		h->type->lock(h->lock);
		rt_set_flag(&h->held);
		deadline = rt_now() + RT_WAIT_LIMIT_S;
		while (!h->seen(h) && rt_now() < deadline)
			sched_yield();
		h->last = h->seen(h);
		h->type->unlock(h->lock);
	} else {
		if (!rt_wait_flag(&h->held)) {
			rt_fail("holder never took the %s", h->type->name);
			return;
		}
		h->type->lock(h->lock);
		h->type->unlock(h->lock);
	}
}

/* The waiter counts its contention before it waits. */
static unsigned long contend_seen(struct hold_one *h)
{
	struct lock_class_stats st;

	lock_stats_read(h->cls, &st);
	return st.contended;
}

int rt_lockval_contend_one(const struct rt_lock_type *type, void *lock, int cls)
{
	struct hold_one h = { .type = type, .lock = lock, .seen = contend_seen, .cls = cls };

	rt_run_threads(2, hold_one_worker, &h);
	return (int)h.last;
}

/*
 * The waiter spins, yields, then registers to be woken. Once it has, the
 * holder registers too and stays registered across its release: the
 * waiter, spinning rather than asleep, may take the lock and unregister
 * before the release looks at the queue (TSan's timing showed it), and
 * the release must still find someone to wake and move the word.
 */
static unsigned long wake_seen(struct hold_one *h)
{
	unsigned long n = __atomic_load_n(&h->q->sleepers, __ATOMIC_RELAXED);

	if (n && !h->registered) {
		h->seq = waitq_register(h->q);
		h->registered = true;
	}
	return n;
}

void rt_lockval_wake_one(const struct rt_lock_type *type, void *lock, const void *key)
{
	struct hold_one h = { .type = type, .lock = lock, .seen = wake_seen,
			      .q = waitq_of(key) };

	rt_run_threads(2, hold_one_worker, &h);
	ck_assert_no_worker_failure();
	ck_assert_msg(h.registered, "the %s's waiter never registered on its wait queue",
		      type->name);
	/* Only releases of this bucket's keys moved the word: ours did. */
	ck_assert_msg(__atomic_load_n(&h.q->seq, __ATOMIC_RELAXED) != h.seq,
		      "the %s's release did not wake its queue", type->name);
	waitq_unregister(h.q);
	ck_assert_msg(waitq_idle(), "the %s's waiter is still registered", type->name);
}
