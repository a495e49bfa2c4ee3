// SPDX-License-Identifier: MIT
/*
 * Check suite "rwsem": struct rw_semaphore (mm->mmap_sem).
 *
 * Readers share, a writer excludes everyone, a waiting writer holds off new
 * readers, downgrade_write() turns a writer into a reader, and taking the
 * semaphore in atomic context is reported. The scenarios are driven by
 * flags with bounded waits, so a broken semaphore fails a check rather than
 * hanging; the mixed run checks a two-word invariant and an exact counter.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lockdep.h"
#include "rt_check.h"
#include "rt_lockval.h"
#include "rwsem.h"
#include "spinlock.h"
#include "task.h"

static bool flag_is_set(const int *flag)
{
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE) != 0;
}

static long sem_count(struct rw_semaphore *sem)
{
	return __atomic_load_n(&sem->count, __ATOMIC_RELAXED);
}

/* Wait until a writer has announced itself on @sem; false on timeout. */
static bool wait_writer_waiting(struct rw_semaphore *sem)
{
	double deadline = rt_now() + RT_WAIT_LIMIT_S;

	while (!(sem_count(sem) & RWSEM_WAITING)) {
		if (rt_now() > deadline)
			return false;
		sched_yield();
	}
	return true;
}

/* ---- trylocks and state ---- */

START_TEST(test_rwsem_trylock)
{
	int cls = rt_lockval_class("test_rwsem_try");
	struct rw_semaphore sem;
	struct lock_class_stats st;

	init_rwsem(&sem, cls);
	ck_assert(!rwsem_is_locked(&sem));
	ck_assert(down_write_trylock(&sem));
	ck_assert(rwsem_is_locked(&sem));
	ck_assert(rwsem_is_write_locked(&sem));
	ck_assert(!down_read_trylock(&sem));
	ck_assert(!down_write_trylock(&sem));
	up_write(&sem);
	ck_assert(!rwsem_is_locked(&sem));
	ck_assert_int_eq(sem_count(&sem), 0);

	ck_assert(down_read_trylock(&sem));
	ck_assert(down_read_trylock(&sem));
	ck_assert(rwsem_is_locked(&sem));
	ck_assert(!rwsem_is_write_locked(&sem));
	ck_assert_int_eq(sem_count(&sem), 2);
	ck_assert(!down_write_trylock(&sem));
	up_read(&sem);
	ck_assert(!down_write_trylock(&sem));
	up_read(&sem);
	ck_assert(!rwsem_is_locked(&sem));
	ck_assert(down_write_trylock(&sem));
	up_write(&sem);
	ck_assert_int_eq(sem_count(&sem), 0);
	ck_assert_int_eq(lockdep_depth(), 0);

	lock_stats_read(cls, &st);
	ck_assert_uint_eq(st.try_attempts, 8);
	ck_assert_uint_eq(st.try_failures, 4);
	ck_assert_uint_eq(st.acquired, 4);
	ck_assert_uint_eq(st.contended, 0);
}
END_TEST

START_TEST(test_rwsem_blocking_uncontended)
{
	int cls = rt_lockval_class("test_rwsem_try");
	struct rw_semaphore sem;
	struct lock_class_stats st;

	init_rwsem(&sem, cls);
	down_read(&sem);
	ck_assert(lock_is_held(&sem));
	ck_assert_int_eq(sem_count(&sem), 1);
	ck_assert_int_eq(current->preempt_count, 0);	/* a sleeping lock */
	up_read(&sem);
	down_write(&sem);
	ck_assert(lock_is_held(&sem));
	ck_assert(rwsem_is_write_locked(&sem));
	up_write(&sem);
	ck_assert(!lock_is_held(&sem));
	ck_assert_int_eq(sem_count(&sem), 0);

	lock_stats_read(cls, &st);
	ck_assert_uint_eq(st.acquired, 2);
	ck_assert_uint_eq(st.contended, 0);
	ck_assert_uint_eq(st.try_attempts, 0);
}
END_TEST

/* ---- readers share ---- */

struct share {
	struct rw_semaphore sem;
	int a_in, b_in;
	long count_seen;
};

static void share_worker(int idx, void *arg)
{
	struct share *s = arg;

	if (idx == 0) {
		down_read(&s->sem);
		rt_set_flag(&s->a_in);
		/* Still holding: the second reader must get in meanwhile. */
		if (!rt_wait_flag(&s->b_in))
			rt_fail("second reader did not enter while the first held the rwsem");
		else
			__atomic_store_n(&s->count_seen, sem_count(&s->sem), __ATOMIC_RELAXED);
		up_read(&s->sem);
	} else {
		if (!rt_wait_flag(&s->a_in)) {
			rt_fail("first reader never entered");
			return;
		}
		down_read(&s->sem);
		rt_set_flag(&s->b_in);
		up_read(&s->sem);
	}
}

START_TEST(test_rwsem_readers_share)
{
	struct share s = { 0 };

	init_rwsem(&s.sem, rt_lockval_class("test_rwsem_share"));
	rt_run_threads(2, share_worker, &s);
	ck_assert_no_worker_failure();
	ck_assert(flag_is_set(&s.b_in));
	/* Both readers counted, or the second had already left. */
	ck_assert(s.count_seen == 1 || s.count_seen == 2);
	ck_assert_int_eq(sem_count(&s.sem), 0);
}
END_TEST

/* ---- writers exclude: mixed run ---- */

#define MIX_THREADS	32

struct mix {
	struct rw_semaphore sem;
	int iters;
	/* rwsem: written by writers only. */
	unsigned long w0, w1;		/* invariant: w1 == ~w0 */
	unsigned long counter;
	int writer;			/* id + 1 of the writer inside, or 0 */
	int readers_in;			/* atomic */
	unsigned long writes;		/* atomic: writes done, summed */
	unsigned long reads;		/* atomic */
};

static void mix_worker(int idx, void *arg)
{
	struct mix *m = arg;
	uint64_t rng = rt_thread_rng(idx);
	unsigned long writes = 0, reads = 0;
	int me = idx + 1;

	for (int i = 0; i < m->iters; i++) {
		uint64_t x = rt_rand(&rng);

		if (x % 5 == 0) {
			unsigned long v;
			int r, w;

			down_write(&m->sem);
			w = PLAIN_LOAD(m->writer);
			r = __atomic_load_n(&m->readers_in, __ATOMIC_RELAXED);
			if (w || r)
				rt_fail("t%d writes with writer t%d and %d readers inside",
					idx, w - 1, r);
			PLAIN_STORE(m->writer, me);
			v = PLAIN_LOAD(m->counter) + 1;
			PLAIN_STORE(m->w0, v);
			if ((x >> 8) % 4 == 0)
				sched_yield();
			PLAIN_STORE(m->w1, ~v);
			PLAIN_STORE(m->counter, v);
			w = PLAIN_LOAD(m->writer);
			r = __atomic_load_n(&m->readers_in, __ATOMIC_RELAXED);
			if (w != me || r)
				rt_fail("t%d: writer t%d and %d readers appeared inside",
					idx, w - 1, r);
			PLAIN_STORE(m->writer, 0);
			up_write(&m->sem);
			writes++;
		} else {
			unsigned long a, b;
			int w;

			down_read(&m->sem);
			__atomic_fetch_add(&m->readers_in, 1, __ATOMIC_RELAXED);
			a = PLAIN_LOAD(m->w0);
			if ((x >> 8) % 4 == 0)
				sched_yield();
			b = PLAIN_LOAD(m->w1);
			if (b != ~a)
				rt_fail("t%d read a torn pair %#lx/%#lx", idx, a, b);
			w = PLAIN_LOAD(m->writer);
			if (w)
				rt_fail("t%d reads while t%d writes", idx, w - 1);
			__atomic_fetch_sub(&m->readers_in, 1, __ATOMIC_RELAXED);
			up_read(&m->sem);
			reads++;
		}
	}
	__atomic_fetch_add(&m->writes, writes, __ATOMIC_RELAXED);
	__atomic_fetch_add(&m->reads, reads, __ATOMIC_RELAXED);
}

START_TEST(test_rwsem_writer_excludes)
{
	int cls = rt_lockval_class("test_rwsem_mix");
	struct mix m = { .iters = 2000, .w0 = 0, .w1 = ~0UL };
	struct lock_class_stats st;

	init_rwsem(&m.sem, cls);
	rt_run_threads(MIX_THREADS, mix_worker, &m);
	ck_assert_no_worker_failure();
	ck_assert_uint_eq(m.reads + m.writes, (unsigned long)MIX_THREADS * (unsigned long)m.iters);
	ck_assert_uint_gt(m.writes, 0);
	ck_assert_uint_eq(m.counter, m.writes);
	ck_assert_uint_eq(m.w0, m.writes);
	ck_assert_uint_eq(m.w1, ~m.writes);
	ck_assert_int_eq(sem_count(&m.sem), 0);

	lock_stats_read(cls, &st);
	printf("# rwsem mix: %lu reads, %lu writes, contended %lu\n",
	       m.reads, m.writes, st.contended);
	ck_assert_uint_eq(st.acquired, m.reads + m.writes);
}
END_TEST

/* ---- writer preference ---- */

struct pref {
	struct rw_semaphore sem;
	int cls;
	int a_in;		/* A holds read */
	int c_tried;		/* C's trylock is done */
	int b_acquired;		/* B got write */
	int a_releasing;	/* A is about to up_read */
	int c_try_ok;		/* C's down_read_trylock result */
	int c_saw_b;		/* C's down_read returned after B's write */
};

static void pref_worker(int idx, void *arg)
{
	struct pref *p = arg;

	switch (idx) {
	case 0:		/* A: the reader in possession */
		down_read(&p->sem);
		rt_set_flag(&p->a_in);
		if (!rt_wait_flag(&p->c_tried))
			rt_fail("C never tried");
		if (flag_is_set(&p->b_acquired))
			rt_fail("writer got in while a reader held the rwsem");
		rt_set_flag(&p->a_releasing);
		up_read(&p->sem);
		break;
	case 1:		/* B: the waiting writer */
		if (!rt_wait_flag(&p->a_in))
			return;
		down_write(&p->sem);
		if (!flag_is_set(&p->a_releasing))
			rt_fail("writer got in before the reader released");
		rt_set_flag(&p->b_acquired);
		/*
		 * Hold on until C is blocked in down_read() too (it counts its
		 * contention before it waits), so its wait is certain.
		 */
		{
			struct lock_class_stats st;
			double deadline = rt_now() + RT_WAIT_LIMIT_S;

			do {
				sched_yield();
				lock_stats_read(p->cls, &st);
			} while (st.contended < 2 && rt_now() < deadline);
		}
		up_write(&p->sem);
		break;
	case 2:		/* C: the new reader, held off */
		if (!rt_wait_flag(&p->a_in))
			return;
		if (!wait_writer_waiting(&p->sem)) {
			rt_fail("writer never set RWSEM_WAITING");
		} else if (down_read_trylock(&p->sem)) {
			__atomic_store_n(&p->c_try_ok, 1, __ATOMIC_RELAXED);
			up_read(&p->sem);
		}
		rt_set_flag(&p->c_tried);
		/* Blocks until the waiting writer has been and gone. */
		down_read(&p->sem);
		__atomic_store_n(&p->c_saw_b, flag_is_set(&p->b_acquired), __ATOMIC_RELAXED);
		up_read(&p->sem);
		break;
	}
}

START_TEST(test_rwsem_waiting_writer_blocks_readers)
{
	int cls = rt_lockval_class("test_rwsem_pref");
	struct pref p = { .cls = cls };
	struct lock_class_stats st;

	init_rwsem(&p.sem, cls);
	rt_run_threads(3, pref_worker, &p);
	ck_assert_no_worker_failure();
	ck_assert_int_eq(p.c_try_ok, 0);
	ck_assert_int_eq(p.c_saw_b, 1);
	ck_assert(flag_is_set(&p.b_acquired));
	ck_assert_int_eq(sem_count(&p.sem), 0);

	lock_stats_read(cls, &st);
	ck_assert_uint_eq(st.acquired, 3);
	ck_assert_uint_eq(st.try_attempts, 1);
	ck_assert_uint_eq(st.try_failures, 1);
	/* B waited for A, C waited for B. */
	ck_assert_uint_eq(st.contended, 2);
}
END_TEST

/* ---- downgrade_write ---- */

struct down {
	struct rw_semaphore sem;
	int data;		/* rwsem */
	int downgraded, r_in, x_tried, w_releasing;
	int r_saw;		/* the reader's view of data */
	int x_try_ok;
	int x_saw_release;
	long count_after;
};

static void down_worker(int idx, void *arg)
{
	struct down *d = arg;

	switch (idx) {
	case 0:		/* W: writes, downgrades, stays a reader */
		down_write(&d->sem);
		PLAIN_STORE(d->data, 42);
		downgrade_write(&d->sem);
		__atomic_store_n(&d->count_after, sem_count(&d->sem), __ATOMIC_RELAXED);
		if (!lock_is_held(&d->sem))
			rt_fail("lockdep lost the downgraded rwsem");
		rt_set_flag(&d->downgraded);
		if (!rt_wait_flag(&d->r_in))
			rt_fail("reader did not get in after downgrade_write");
		if (!rt_wait_flag(&d->x_tried))
			rt_fail("writer never tried");
		rt_set_flag(&d->w_releasing);
		up_read(&d->sem);
		break;
	case 1:		/* R: a reader let in by the downgrade */
		if (!rt_wait_flag(&d->downgraded))
			return;
		down_read(&d->sem);
		__atomic_store_n(&d->r_saw, PLAIN_LOAD(d->data), __ATOMIC_RELAXED);
		rt_set_flag(&d->r_in);
		up_read(&d->sem);
		break;
	case 2:		/* X: a writer kept out until W lets go */
		if (!rt_wait_flag(&d->downgraded))
			return;
		if (down_write_trylock(&d->sem)) {
			__atomic_store_n(&d->x_try_ok, 1, __ATOMIC_RELAXED);
			up_write(&d->sem);
		}
		/* Do not hold R off with RWSEM_WAITING before it got in. */
		if (!rt_wait_flag(&d->r_in))
			return;
		rt_set_flag(&d->x_tried);
		down_write(&d->sem);
		__atomic_store_n(&d->x_saw_release, flag_is_set(&d->w_releasing),
				 __ATOMIC_RELAXED);
		PLAIN_STORE(d->data, 43);
		up_write(&d->sem);
		break;
	}
}

START_TEST(test_rwsem_downgrade_write)
{
	struct down d = { 0 };

	init_rwsem(&d.sem, rt_lockval_class("test_rwsem_downgrade"));
	rt_run_threads(3, down_worker, &d);
	ck_assert_no_worker_failure();
	ck_assert_int_eq(d.count_after & ~RWSEM_WAITING, 1);	/* one reader, no writer */
	ck_assert_int_eq(d.r_saw, 42);
	ck_assert_int_eq(d.x_try_ok, 0);
	ck_assert_int_eq(d.x_saw_release, 1);
	ck_assert_int_eq(d.data, 43);
	ck_assert_int_eq(sem_count(&d.sem), 0);
}
END_TEST

START_TEST(test_rwsem_downgrade_single)
{
	struct rw_semaphore sem;

	init_rwsem(&sem, rt_lockval_class("test_rwsem_downgrade"));
	down_write(&sem);
	downgrade_write(&sem);
	ck_assert(!rwsem_is_write_locked(&sem));
	ck_assert(rwsem_is_locked(&sem));
	ck_assert_int_eq(sem_count(&sem), 1);
	ck_assert(!down_write_trylock(&sem));
	ck_assert(down_read_trylock(&sem));
	ck_assert_int_eq(sem_count(&sem), 2);
	up_read(&sem);
	up_read(&sem);
	ck_assert(!rwsem_is_locked(&sem));
	ck_assert_int_eq(lockdep_depth(), 0);
}
END_TEST

/* ---- atomic context ---- */

START_TEST(test_rwsem_down_read_atomic_reported)
{
	int scls = rt_lockval_class("test_rwsem_outer_spin");
	int rcls = rt_lockval_class("test_rwsem_atomic");
	struct rw_semaphore sem;
	struct vm_report r;
	spinlock_t l;

	spin_lock_init(&l, scls);
	init_rwsem(&sem, rcls);
	rt_reports_capture();

	/* Not atomic: nothing reported. */
	down_read(&sem);
	up_read(&sem);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 0);

	spin_lock(&l);
	down_read(&sem);
	up_read(&sem);
	spin_unlock(&l);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 1);
	ck_assert(rt_reports_first(VM_REPORT_ATOMIC_SLEEP, &r));
	ck_assert_ptr_nonnull(strstr(r.message, "test_rwsem_outer_spin"));
	ck_assert_int_ge(r.nr_sites, 2);
	ck_assert_str_eq(r.sites[0].what, "test_rwsem_atomic");
	ck_assert_str_eq(r.sites[1].what, "test_rwsem_outer_spin");
	ck_assert_int_eq(rt_reports_count(VM_REPORT_BUG), 0);

	/* down_write in atomic context is reported too. */
	spin_lock(&l);
	down_write(&sem);
	up_write(&sem);
	spin_unlock(&l);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 2);
	rt_reports_release();
	ck_assert_int_eq(current->preempt_count, 0);
	ck_assert_int_eq(lockdep_depth(), 0);
}
END_TEST

START_TEST(test_rwsem_trylock_atomic_not_reported)
{
	struct rw_semaphore sem;
	spinlock_t l;

	spin_lock_init(&l, rt_lockval_class("test_rwsem_outer_spin"));
	init_rwsem(&sem, rt_lockval_class("test_rwsem_atomic"));
	rt_reports_capture();
	spin_lock(&l);
	ck_assert(down_read_trylock(&sem));
	up_read(&sem);
	ck_assert(down_write_trylock(&sem));
	up_write(&sem);
	spin_unlock(&l);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 0);
	rt_reports_release();
}
END_TEST

/* up_write() wakes the task asleep in down_write() (core/waitq.h). */
START_TEST(test_rwsem_up_write_wakes_waiter)
{
	struct rw_semaphore sem;

	init_rwsem(&sem, rt_lockval_class("test_rwsem_wake"));
	rt_lockval_wake_one(&rt_lock_rwsem_write, &sem, &sem);
}
END_TEST

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "trylock", rt_tmo(10), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_rwsem_trylock,
			test_rwsem_blocking_uncontended,
		} },
		{ "sharing", rt_tmo(30), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_rwsem_readers_share,
			test_rwsem_writer_excludes,
		} },
		{ "writer_preference", rt_tmo(30), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_rwsem_waiting_writer_blocks_readers,
		} },
		{ "downgrade", rt_tmo(30), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_rwsem_downgrade_write,
			test_rwsem_downgrade_single,
		} },
		{ "atomic", rt_tmo(10), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_rwsem_down_read_atomic_reported,
			test_rwsem_trylock_atomic_not_reported,
		} },
		{ "wake", rt_tmo(30), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_rwsem_up_write_wakes_waiter,
		} },
	};

	return rt_check_main(rt_suite("rwsem", tcs, (int)ARRAY_SIZE(tcs)));
}
