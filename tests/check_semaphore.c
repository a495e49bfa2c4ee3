// SPDX-License-Identifier: MIT
/*
 * Check suite "semaphore": the 2.6 counting semaphore and its use as a
 * sleeping mutex (i_shared_sem).
 *
 * Counting semantics, mutual exclusion of the count-1 semaphore checked by
 * an exact counter and a holder word, the kernel's down_trylock() return
 * convention, the report for down() in atomic context, and the per-class
 * statistics.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lockdep.h"
#include "rt_check.h"
#include "rt_lockval.h"
#include "semaphore.h"
#include "spinlock.h"
#include "task.h"

/* Wait until *@v reaches @target; false on timeout. */
static bool wait_value(const int *v, int target)
{
	double deadline = rt_now() + RT_WAIT_LIMIT_S;

	while (__atomic_load_n(v, __ATOMIC_ACQUIRE) < target) {
		if (rt_now() > deadline)
			return false;
		sched_yield();
	}
	return true;
}

/* ---- counting ---- */

START_TEST(test_semaphore_counting)
{
	struct semaphore sem;

	sema_init(&sem, 3, rt_lockval_class("test_sem_count"));
	ck_assert(!sem.mutex);
	ck_assert_int_eq(sema_count(&sem), 3);
	down(&sem);
	down(&sem);
	down(&sem);
	ck_assert_int_eq(sema_count(&sem), 0);
	/* A counting semaphore has no owner: lockdep does not track it. */
	ck_assert_int_eq(lockdep_depth(), 0);
	ck_assert(!lock_is_held(&sem));
	ck_assert_int_eq(down_trylock(&sem), 1);
	ck_assert_int_eq(sema_count(&sem), 0);
	up(&sem);
	ck_assert_int_eq(sema_count(&sem), 1);
	ck_assert_int_eq(down_trylock(&sem), 0);
	ck_assert_int_eq(sema_count(&sem), 0);
	up(&sem);
	up(&sem);
	up(&sem);
	ck_assert_int_eq(sema_count(&sem), 3);
	ck_assert_int_eq(lockdep_depth(), 0);
}
END_TEST

#define COUNT_HOLDERS	3

struct count_run {
	struct semaphore sem;
	int inside;		/* atomic */
	int tried;
	int fourth_try;		/* the fourth thread's down_trylock() result */
	int fourth_in;
};

static void count_worker(int idx, void *arg)
{
	struct count_run *c = arg;

	if (idx < COUNT_HOLDERS) {
		down(&c->sem);
		__atomic_fetch_add(&c->inside, 1, __ATOMIC_RELEASE);
		/* Stay until the fourth has seen all three inside at once. */
		if (!rt_wait_flag(&c->tried))
			rt_fail("t%d: the fourth never tried", idx);
		__atomic_fetch_sub(&c->inside, 1, __ATOMIC_RELAXED);
		up(&c->sem);
	} else {
		if (!wait_value(&c->inside, COUNT_HOLDERS)) {
			rt_fail("the three holders were never inside together");
			rt_set_flag(&c->tried);
			return;
		}
		__atomic_store_n(&c->fourth_try, down_trylock(&c->sem), __ATOMIC_RELAXED);
		if (__atomic_load_n(&c->fourth_try, __ATOMIC_RELAXED) == 0)
			up(&c->sem);
		rt_set_flag(&c->tried);
		/* Blocks until one holder has called up(). */
		down(&c->sem);
		rt_set_flag(&c->fourth_in);
		up(&c->sem);
	}
}

START_TEST(test_semaphore_counting_threads)
{
	struct count_run c = { .fourth_try = -1 };

	sema_init(&c.sem, COUNT_HOLDERS, rt_lockval_class("test_sem_count"));
	rt_run_threads(COUNT_HOLDERS + 1, count_worker, &c);
	ck_assert_no_worker_failure();
	ck_assert_int_eq(c.fourth_try, 1);
	ck_assert_int_eq(c.fourth_in, 1);
	ck_assert_int_eq(c.inside, 0);
	ck_assert_int_eq(sema_count(&c.sem), COUNT_HOLDERS);
}
END_TEST

/* Never more than three inside a count-3 semaphore, under contention. */
struct bound_run {
	struct semaphore sem;
	int iters;
	int inside;		/* atomic */
	int max_inside;		/* atomic */
};

static void bound_worker(int idx, void *arg)
{
	struct bound_run *b = arg;
	uint64_t rng = rt_thread_rng(idx);

	for (int i = 0; i < b->iters; i++) {
		int n, m;

		down(&b->sem);
		n = __atomic_add_fetch(&b->inside, 1, __ATOMIC_RELAXED);
		if (n > COUNT_HOLDERS)
			rt_fail("t%d: %d inside a count-%d semaphore", idx, n, COUNT_HOLDERS);
		m = __atomic_load_n(&b->max_inside, __ATOMIC_RELAXED);
		while (n > m && !__atomic_compare_exchange_n(&b->max_inside, &m, n, false,
							     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
		if (rt_rand(&rng) % 4 == 0)
			sched_yield();
		__atomic_fetch_sub(&b->inside, 1, __ATOMIC_RELAXED);
		up(&b->sem);
	}
}

START_TEST(test_semaphore_counting_bound)
{
	struct bound_run b = { .iters = 1000 };

	sema_init(&b.sem, COUNT_HOLDERS, rt_lockval_class("test_sem_bound"));
	rt_run_threads(16, bound_worker, &b);
	ck_assert_no_worker_failure();
	printf("# counting bound: at most %d inside\n", b.max_inside);
	ck_assert_int_le(b.max_inside, COUNT_HOLDERS);
	ck_assert_int_ge(b.max_inside, 1);
	ck_assert_int_eq(b.inside, 0);
	ck_assert_int_eq(sema_count(&b.sem), COUNT_HOLDERS);
}
END_TEST

/* ---- mutex semaphore ---- */

START_TEST(test_semaphore_mutex_tracked)
{
	struct semaphore sem;

	sema_init(&sem, 1, rt_lockval_class("test_sem_mutex"));
	ck_assert(sem.mutex);
	down(&sem);
	ck_assert_int_eq(sema_count(&sem), 0);
	ck_assert(lock_is_held(&sem));
	ck_assert_int_eq(lockdep_depth(), 1);
	ck_assert_int_eq(current->preempt_count, 0);	/* a sleeping lock */
	up(&sem);
	ck_assert(!lock_is_held(&sem));
	ck_assert_int_eq(lockdep_depth(), 0);
	ck_assert_int_eq(sema_count(&sem), 1);
}
END_TEST

#define MUTEX_THREADS	32

START_TEST(test_semaphore_mutex_exclusion)
{
	int cls = rt_lockval_class("test_sem_excl");
	struct semaphore sem;
	struct rt_lockval_excl m = {
		.type = &rt_lock_semaphore, .lock = &sem, .iters = 1000, .yield_one_in = 4,
	};
	struct lock_class_stats st;

	sema_init(&sem, 1, cls);
	rt_lockval_excl_run(&m, MUTEX_THREADS);
	ck_assert_no_worker_failure();
	ck_assert_uint_eq(m.counter, (unsigned long)MUTEX_THREADS * (unsigned long)m.iters);
	ck_assert_int_eq(m.holder, 0);
	ck_assert_int_eq(sema_count(&sem), 1);

	lock_stats_read(cls, &st);
	printf("# semaphore mutex: %d threads x %d, contended %lu\n",
	       MUTEX_THREADS, m.iters, st.contended);
	ck_assert_uint_eq(st.acquired, (unsigned long)MUTEX_THREADS * (unsigned long)m.iters);
	ck_assert_uint_gt(st.contended, 0);
	ck_assert_uint_eq(st.try_attempts, 0);
}
END_TEST

/* ---- down_trylock() convention ---- */

START_TEST(test_semaphore_trylock_convention)
{
	struct semaphore sem;

	sema_init(&sem, 1, rt_lockval_class("test_sem_try"));
	/* 0 when taken, exactly 1 when not: not a boolean "success". */
	ck_assert_int_eq(down_trylock(&sem), 0);
	ck_assert_int_eq(sema_count(&sem), 0);
	ck_assert(lock_is_held(&sem));
	ck_assert_int_eq(down_trylock(&sem), 1);
	ck_assert_int_eq(sema_count(&sem), 0);
	up(&sem);
	ck_assert_int_eq(sema_count(&sem), 1);
	ck_assert(!lock_is_held(&sem));

	sema_init(&sem, 0, rt_lockval_class("test_sem_try"));
	ck_assert_int_eq(down_trylock(&sem), 1);
	ck_assert_int_eq(sema_count(&sem), 0);
	up(&sem);
	ck_assert_int_eq(down_trylock(&sem), 0);
	ck_assert_int_eq(sema_count(&sem), 0);
}
END_TEST

struct try_other {
	struct semaphore *sem;
	int result;
};

static void try_other_worker(int idx, void *arg)
{
	struct try_other *t = arg;
	int r = down_trylock(t->sem);

	if (r == 0)
		up(t->sem);
	__atomic_store_n(&t->result, r, __ATOMIC_RELAXED);
}

START_TEST(test_semaphore_trylock_other_thread)
{
	struct semaphore sem;
	struct try_other t = { .sem = &sem, .result = -1 };

	sema_init(&sem, 1, rt_lockval_class("test_sem_try"));
	down(&sem);
	rt_run_threads(1, try_other_worker, &t);
	ck_assert_int_eq(t.result, 1);
	up(&sem);
	t.result = -1;
	rt_run_threads(1, try_other_worker, &t);
	ck_assert_int_eq(t.result, 0);
	ck_assert_int_eq(sema_count(&sem), 1);
	ck_assert_no_worker_failure();
}
END_TEST

/* ---- atomic context ---- */

START_TEST(test_semaphore_down_atomic_reported)
{
	int scls = rt_lockval_class("test_sem_outer_spin");
	const char *sem_name = lock_class_name(LOCK_CLASS_I_SHARED_SEM);
	struct semaphore sem;
	struct vm_report r;
	spinlock_t l;
	int lock_line, down_line;
	bool found = false;

	spin_lock_init(&l, scls);
	sema_init(&sem, 1, LOCK_CLASS_I_SHARED_SEM);
	rt_reports_capture();

	down(&sem);		/* not atomic: nothing to report */
	up(&sem);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 0);

	lock_line = __LINE__ + 1;
	spin_lock(&l);
	down_line = __LINE__ + 1;
	down(&sem);
	up(&sem);
	spin_unlock(&l);
	ck_assert_int_eq(current->preempt_count, 0);

	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 1);
	ck_assert(rt_reports_first(VM_REPORT_ATOMIC_SLEEP, &r));
	ck_assert_ptr_nonnull(strstr(r.message, "test_sem_outer_spin"));
	ck_assert_ptr_nonnull(strstr(r.message, sem_name));
	ck_assert_ptr_nonnull(strstr(r.signature, sem_name));
	ck_assert_int_ge(r.nr_sites, 2);
	/* The sleeping call first, then the held locks. */
	ck_assert_str_eq(r.sites[0].what, sem_name);
	ck_assert_str_eq(r.sites[0].file, __FILE__);
	ck_assert_int_eq(r.sites[0].line, down_line);
	for (int i = 1; i < r.nr_sites; i++) {
		if (!strcmp(r.sites[i].what, "test_sem_outer_spin")) {
			ck_assert_str_eq(r.sites[i].file, __FILE__);
			ck_assert_int_eq(r.sites[i].line, lock_line);
			found = true;
		}
	}
	ck_assert_msg(found, "spinlock class missing from the report's sites");
	ck_assert_int_eq(rt_reports_count(VM_REPORT_BUG), 0);
	rt_reports_release();
}
END_TEST

START_TEST(test_semaphore_trylock_atomic_not_reported)
{
	struct semaphore sem;
	spinlock_t l;

	spin_lock_init(&l, rt_lockval_class("test_sem_outer_spin"));
	sema_init(&sem, 1, rt_lockval_class("test_sem_try"));
	rt_reports_capture();
	spin_lock(&l);
	ck_assert_int_eq(down_trylock(&sem), 0);
	up(&sem);
	spin_unlock(&l);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 0);
	rt_reports_release();
}
END_TEST

/* ---- statistics ---- */

START_TEST(test_semaphore_stats_trylock)
{
	int cls = rt_lockval_class("test_sem_stats");
	struct lock_class_stats st;
	struct semaphore sem;

	sema_init(&sem, 1, cls);
	down(&sem);
	ck_assert_int_eq(down_trylock(&sem), 1);
	ck_assert_int_eq(down_trylock(&sem), 1);
	up(&sem);
	ck_assert_int_eq(down_trylock(&sem), 0);
	up(&sem);

	lock_stats_read(cls, &st);
	ck_assert_uint_eq(st.acquired, 2);
	ck_assert_uint_eq(st.contended, 0);
	ck_assert_uint_eq(st.try_attempts, 3);
	ck_assert_uint_eq(st.try_failures, 2);

	/* A counting semaphore is counted too. */
	sema_init(&sem, 2, cls);
	down(&sem);
	down(&sem);
	ck_assert_int_eq(down_trylock(&sem), 1);
	up(&sem);
	up(&sem);
	lock_stats_read(cls, &st);
	ck_assert_uint_eq(st.acquired, 4);
	ck_assert_uint_eq(st.try_attempts, 4);
	ck_assert_uint_eq(st.try_failures, 3);
}
END_TEST

START_TEST(test_semaphore_stats_contended)
{
	int cls = rt_lockval_class("test_sem_contend");
	struct semaphore sem;
	struct lock_class_stats st;
	int seen_contended;

	sema_init(&sem, 1, cls);
	seen_contended = rt_lockval_contend_one(&rt_lock_semaphore, &sem, cls);
	ck_assert_no_worker_failure();
	ck_assert_int_eq(seen_contended, 1);
	lock_stats_read(cls, &st);
	ck_assert_uint_eq(st.acquired, 2);
	ck_assert_uint_eq(st.contended, 1);
	ck_assert_uint_eq(st.try_attempts, 0);
	ck_assert_int_eq(sema_count(&sem), 1);
}
END_TEST

/* up() wakes the task asleep in down() (core/waitq.h). */
START_TEST(test_semaphore_up_wakes_waiter)
{
	struct semaphore sem;

	sema_init(&sem, 1, rt_lockval_class("test_sem_wake"));
	rt_lockval_wake_one(&rt_lock_semaphore, &sem, &sem);
	ck_assert_int_eq(sema_count(&sem), 1);
}
END_TEST

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "counting", rt_tmo(30), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_semaphore_counting,
			test_semaphore_counting_threads,
			test_semaphore_counting_bound,
		} },
		{ "mutex", rt_tmo(30), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_semaphore_mutex_tracked,
			test_semaphore_mutex_exclusion,
		} },
		{ "trylock", rt_tmo(10), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_semaphore_trylock_convention,
			test_semaphore_trylock_other_thread,
		} },
		{ "atomic", rt_tmo(10), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_semaphore_down_atomic_reported,
			test_semaphore_trylock_atomic_not_reported,
		} },
		{ "stats", rt_tmo(30), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_semaphore_stats_trylock,
			test_semaphore_stats_contended,
		} },
		{ "wake", rt_tmo(30), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_semaphore_up_wakes_waiter,
		} },
	};

	return rt_check_main(rt_suite("semaphore", tcs, (int)ARRAY_SIZE(tcs)));
}
