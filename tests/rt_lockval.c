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

static void spinlock_lock(void *l)
{
	spin_lock((spinlock_t *)l);
}

static void spinlock_unlock(void *l)
{
	spin_unlock((spinlock_t *)l);
}

static void semaphore_down(void *s)
{
	down((struct semaphore *)s);
}

static void semaphore_up(void *s)
{
	up((struct semaphore *)s);
}

const struct rt_lock_type rt_lock_spinlock = {
	.name = "lock",
	.lock = spinlock_lock,
	.unlock = spinlock_unlock,
	.spins = true,
};

const struct rt_lock_type rt_lock_semaphore = {
	.name = "semaphore",
	.lock = semaphore_down,
	.unlock = semaphore_up,
	.spins = false,
};

static void page_lock_fn(void *p)
{
	lock_page((struct page *)p);
}

static void page_unlock_fn(void *p)
{
	unlock_page((struct page *)p);
}

const struct rt_lock_type rt_lock_page = {
	.name = "page lock",
	.lock = page_lock_fn,
	.unlock = page_unlock_fn,
	.spins = false,
};

static void rwsem_down_write(void *s)
{
	down_write((struct rw_semaphore *)s);
}

static void rwsem_up_write(void *s)
{
	up_write((struct rw_semaphore *)s);
}

const struct rt_lock_type rt_lock_rwsem_write = {
	.name = "rw_semaphore",
	.lock = rwsem_down_write,
	.unlock = rwsem_up_write,
	.spins = false,
};

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

struct contend_one {
	const struct rt_lock_type *type;
	void *lock;
	int cls;
	int held;
	int seen_contended;
};

static void contend_one_worker(int idx, void *arg)
{
	struct contend_one *c = arg;

	if (idx == 0) {
		struct lock_class_stats st;
		double deadline;

		c->type->lock(c->lock);
		rt_set_flag(&c->held);
		/* The waiter counts its contention before it waits. */
		deadline = rt_now() + RT_WAIT_LIMIT_S;
		do {
			sched_yield();
			lock_stats_read(c->cls, &st);
		} while (st.contended == 0 && rt_now() < deadline);
		__atomic_store_n(&c->seen_contended, (int)st.contended, __ATOMIC_RELAXED);
		c->type->unlock(c->lock);
	} else {
		if (!rt_wait_flag(&c->held)) {
			rt_fail("holder never took the %s", c->type->name);
			return;
		}
		c->type->lock(c->lock);
		c->type->unlock(c->lock);
	}
}

int rt_lockval_contend_one(const struct rt_lock_type *type, void *lock, int cls)
{
	struct contend_one c = { .type = type, .lock = lock, .cls = cls };

	rt_run_threads(2, contend_one_worker, &c);
	return c.seen_contended;
}

struct wake_one {
	const struct rt_lock_type *type;
	void *lock;
	const void *key;
	int held;
	unsigned int seq_before;
	bool registered;
};

static void wake_one_worker(int idx, void *arg)
{
	struct wake_one *w = arg;

	if (idx == 0) {
		struct waitq *q = waitq_of(w->key);
		double deadline;

		w->type->lock(w->lock);
		rt_set_flag(&w->held);
		/* The waiter spins, yields, then registers to be woken. */
		deadline = rt_now() + RT_WAIT_LIMIT_S;
		while (!__atomic_load_n(&q->sleepers, __ATOMIC_RELAXED) && rt_now() < deadline)
			sched_yield();
		w->registered = __atomic_load_n(&q->sleepers, __ATOMIC_RELAXED) != 0;
		w->seq_before = __atomic_load_n(&q->seq, __ATOMIC_RELAXED);
		w->type->unlock(w->lock);
	} else {
		if (!rt_wait_flag(&w->held)) {
			rt_fail("holder never took the %s", w->type->name);
			return;
		}
		w->type->lock(w->lock);
		w->type->unlock(w->lock);
	}
}

void rt_lockval_wake_one(const struct rt_lock_type *type, void *lock, const void *key)
{
	struct wake_one w = { .type = type, .lock = lock, .key = key };
	struct waitq *q = waitq_of(key);

	rt_run_threads(2, wake_one_worker, &w);
	ck_assert_no_worker_failure();
	ck_assert_msg(w.registered, "the %s's waiter never registered on its wait queue",
		      type->name);
	/* Only releases of this bucket's keys moved the word: ours did. */
	ck_assert_msg(__atomic_load_n(&q->seq, __ATOMIC_RELAXED) != w.seq_before,
		      "the %s's release did not wake its waiter", type->name);
	ck_assert_msg(waitq_idle(), "the %s's waiter is still registered", type->name);
}

