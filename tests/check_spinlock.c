// SPDX-License-Identifier: MIT
/*
 * Check suite "spinlock": spinlock_t and the bit spinlocks.
 *
 * The oracle of every concurrent test is an invariant of its own: a counter
 * bumped with a non-atomic read-modify-write must come out exact, and a
 * "holder" word written on entry must be unchanged at exit. The
 * oversubscribed runs pin the process to two CPUs so that 32 or 64 emulated
 * CPUs really share 2 cores, whatever the host, and the holder yields inside
 * the critical section to hand its core to the waiters.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lockdep.h"
#include "rt_check.h"
#include "rt_lockval.h"
#include "spinlock.h"
#include "task.h"

/* Bounded waits (rt_wait_flag): a broken lock fails the test instead of hanging it. */

/* Pin the calling thread (and the threads it starts) to two CPUs. */
static int pin_two_cpus(cpu_set_t *saved)
{
	cpu_set_t two;
	int n = 0;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(*saved), saved), 0);
	CPU_ZERO(&two);
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++) {
		if (CPU_ISSET(c, saved)) {
			CPU_SET(c, &two);
			n++;
		}
	}
	ck_assert_int_eq(sched_setaffinity(0, sizeof(two), &two), 0);
	return n;
}

static void unpin(const cpu_set_t *saved)
{
	ck_assert_int_eq(sched_setaffinity(0, sizeof(*saved), saved), 0);
}

/* ---- basic: lock, unlock, trylock ---- */

START_TEST(test_spinlock_lock_unlock)
{
	int cls = rt_lockval_class("test_spin_basic");
	spinlock_t l;
	spinlock_t s = __SPIN_LOCK_UNLOCKED(LOCK_CLASS_LRU_LOCK);

	spin_lock_init(&l, cls);
	ck_assert(!spin_is_locked(&l));
	spin_lock(&l);
	ck_assert(spin_is_locked(&l));
	ck_assert(lock_is_held(&l));
	ck_assert_int_eq(lockdep_depth(), 1);
	spin_unlock(&l);
	ck_assert(!spin_is_locked(&l));
	ck_assert(!lock_is_held(&l));
	ck_assert_int_eq(lockdep_depth(), 0);

	/* The static initialiser gives a free lock of its class. */
	ck_assert_int_eq(s.dep_map.class_id, LOCK_CLASS_LRU_LOCK);
	ck_assert(!spin_is_locked(&s));
	spin_lock(&s);
	ck_assert(spin_is_locked(&s));
	spin_unlock(&s);
	ck_assert(!spin_is_locked(&s));
}
END_TEST

START_TEST(test_spinlock_trylock_own)
{
	int cls = rt_lockval_class("test_spin_basic");
	spinlock_t l;

	spin_lock_init(&l, cls);
	ck_assert(spin_trylock(&l));
	ck_assert(spin_is_locked(&l));
	/* Not recursive: the holder itself cannot take it again. */
	ck_assert(!spin_trylock(&l));
	ck_assert(spin_is_locked(&l));
	ck_assert_int_eq(lockdep_depth(), 1);
	spin_unlock(&l);
	ck_assert(!spin_is_locked(&l));
	ck_assert(spin_trylock(&l));
	spin_unlock(&l);
	ck_assert(!spin_is_locked(&l));
}
END_TEST

struct try_other {
	spinlock_t *lock;
	bool expect;
	int got;
};

static void try_other_worker(int idx, void *arg)
{
	struct try_other *t = arg;
	int pc = current->preempt_count;
	bool ok = spin_trylock(t->lock);

	rt_check(ok == t->expect);
	if (ok) {
		rt_check(current->preempt_count == pc + 1);
		rt_check(lock_is_held(t->lock));
		spin_unlock(t->lock);
	}
	rt_check(current->preempt_count == pc);
	__atomic_store_n(&t->got, ok ? 1 : 0, __ATOMIC_RELAXED);
}

START_TEST(test_spinlock_trylock_other_thread)
{
	int cls = rt_lockval_class("test_spin_basic");
	spinlock_t l;
	struct try_other t = { .lock = &l };

	spin_lock_init(&l, cls);
	spin_lock(&l);
	t.expect = false;
	t.got = -1;
	rt_run_threads(1, try_other_worker, &t);
	ck_assert_int_eq(t.got, 0);
	ck_assert(spin_is_locked(&l));
	spin_unlock(&l);

	t.expect = true;
	t.got = -1;
	rt_run_threads(1, try_other_worker, &t);
	ck_assert_int_eq(t.got, 1);
	ck_assert(!spin_is_locked(&l));
	ck_assert_no_worker_failure();
}
END_TEST

/* ---- preempt_count ---- */

START_TEST(test_spinlock_preempt_count)
{
	int cls = rt_lockval_class("test_spin_preempt");
	spinlock_t a, b;
	int base = current->preempt_count;

	spin_lock_init(&a, cls);
	spin_lock_init(&b, cls);
	ck_assert(!in_atomic());
	spin_lock(&a);
	ck_assert_int_eq(current->preempt_count, base + 1);
	ck_assert(in_atomic());
	spin_lock_nested(&b, SINGLE_DEPTH_NESTING);
	ck_assert_int_eq(current->preempt_count, base + 2);
	spin_unlock(&b);
	ck_assert_int_eq(current->preempt_count, base + 1);
	ck_assert(in_atomic());
	spin_unlock(&a);
	ck_assert_int_eq(current->preempt_count, base);
	ck_assert(!in_atomic());
}
END_TEST

START_TEST(test_spinlock_preempt_count_trylock)
{
	int cls = rt_lockval_class("test_spin_preempt");
	spinlock_t l;
	int base = current->preempt_count;

	spin_lock_init(&l, cls);
	ck_assert(spin_trylock(&l));
	ck_assert_int_eq(current->preempt_count, base + 1);
	/* A failed trylock leaves preempt_count where it was. */
	ck_assert(!spin_trylock(&l));
	ck_assert_int_eq(current->preempt_count, base + 1);
	spin_unlock(&l);
	ck_assert_int_eq(current->preempt_count, base);
	ck_assert(!in_atomic());
}
END_TEST

/* ---- mutual exclusion, oversubscribed ---- */

static void run_excl(const char *cls_name, int nthreads, int iters, bool expect_contended)
{
	int cls = rt_lockval_class(cls_name);
	spinlock_t lock;
	struct rt_lockval_excl r = {
		.type = &rt_lock_spinlock, .lock = &lock, .iters = iters, .yield_one_in = 4,
	};
	struct lock_class_stats st;
	cpu_set_t saved;
	int ncpu;
	double t0;

	spin_lock_init(&lock, cls);
	ncpu = pin_two_cpus(&saved);
	t0 = rt_now();
	rt_lockval_excl_run(&r, nthreads);
	unpin(&saved);
	ck_assert_no_worker_failure();
	ck_assert_uint_eq(r.counter, (unsigned long)nthreads * (unsigned long)iters);
	ck_assert_int_eq(r.holder, 0);
	ck_assert(!spin_is_locked(&lock));

	lock_stats_read(cls, &st);
	printf("# %s: %d threads x %d on %d cpus: %.2fs, acquired %lu, contended %lu\n",
	       cls_name, nthreads, iters, ncpu, rt_now() - t0, st.acquired, st.contended);
	ck_assert_uint_eq(st.acquired, (unsigned long)nthreads * (unsigned long)iters);
	ck_assert_uint_le(st.contended, st.acquired);
	ck_assert_uint_eq(st.try_attempts, 0);
	ck_assert_uint_eq(st.try_failures, 0);
	if (expect_contended)
		ck_assert_uint_gt(st.contended, 0);
}

START_TEST(test_spinlock_exclusion_32)
{
	run_excl("test_spin_excl32", 32, 4000, true);
}
END_TEST

START_TEST(test_spinlock_exclusion_64)
{
	run_excl("test_spin_excl64", 64, 2000, true);
}
END_TEST

/*
 * Fixed work, 32 threads on 2 cores, short sections and the occasional long
 * one: must complete well inside the timeout. No timing assertion: a lock
 * whose waiters only spin starves its holder and runs into the timeout.
 */
struct hammer_run {
	spinlock_t lock;
	int iters;
	unsigned long counter;		/* lock */
};

static void hammer_worker(int idx, void *arg)
{
	struct hammer_run *r = arg;
	uint64_t rng = rt_thread_rng(idx);

	for (int i = 0; i < r->iters; i++) {
		unsigned long v;

		spin_lock(&r->lock);
		v = PLAIN_LOAD(r->counter);
		if (rt_rand(&rng) % 64 == 0) {
			for (int n = 0; n < 2000; n++)
				cpu_relax();
		}
		PLAIN_STORE(r->counter, v + 1);
		spin_unlock(&r->lock);
	}
}

START_TEST(test_spinlock_oversubscribed_completes)
{
	int cls = rt_lockval_class("test_spin_hammer");
	struct hammer_run r = { .iters = 20000 };
	struct lock_class_stats st;
	cpu_set_t saved;
	double t0;

	spin_lock_init(&r.lock, cls);
	pin_two_cpus(&saved);
	t0 = rt_now();
	rt_run_threads(32, hammer_worker, &r);
	unpin(&saved);
	lock_stats_read(cls, &st);
	printf("# hammer: 32 threads x %d: %.2fs, contended %lu\n",
	       r.iters, rt_now() - t0, st.contended);
	ck_assert_no_worker_failure();
	ck_assert_uint_eq(r.counter, 32UL * (unsigned long)r.iters);
	ck_assert_uint_eq(st.acquired, 32UL * (unsigned long)r.iters);
}
END_TEST

/* ---- statistics ---- */

START_TEST(test_spinlock_stats_trylock)
{
	int cls = rt_lockval_class("test_spin_stats");
	struct lock_class_stats st;
	spinlock_t l;

	spin_lock_init(&l, cls);
	spin_lock(&l);
	for (int i = 0; i < 5; i++)
		ck_assert(!spin_trylock(&l));
	spin_unlock(&l);
	ck_assert(spin_trylock(&l));
	spin_unlock(&l);

	lock_stats_read(cls, &st);
	ck_assert_uint_eq(st.acquired, 2);
	ck_assert_uint_eq(st.contended, 0);
	ck_assert_uint_eq(st.try_attempts, 6);
	ck_assert_uint_eq(st.try_failures, 5);

	lock_stats_reset();
	lock_stats_read(cls, &st);
	ck_assert_uint_eq(st.acquired, 0);
	ck_assert_uint_eq(st.try_attempts, 0);
	ck_assert_uint_eq(st.try_failures, 0);
}
END_TEST

START_TEST(test_spinlock_stats_contended)
{
	int cls = rt_lockval_class("test_spin_contend");
	spinlock_t lock;
	struct lock_class_stats st;
	int seen_contended;

	spin_lock_init(&lock, cls);
	seen_contended = rt_lockval_contend_one(&rt_lock_spinlock, &lock, cls);
	ck_assert_no_worker_failure();
	ck_assert_int_eq(seen_contended, 1);
	/* Exited tasks' statistics are kept. */
	lock_stats_read(cls, &st);
	ck_assert_uint_eq(st.acquired, 2);
	ck_assert_uint_eq(st.contended, 1);
	ck_assert_uint_eq(st.try_attempts, 0);
}
END_TEST

/* A release wakes the waiter that went to sleep on the lock (core/waitq.h). */
START_TEST(test_spinlock_release_wakes_waiter)
{
	spinlock_t lock;

	spin_lock_init(&lock, rt_lockval_class("test_spin_wake"));
	rt_lockval_wake_one(&rt_lock_spinlock, &lock, &lock);
}
END_TEST

/* ---- bit spinlocks ---- */

#define BIT_A		3
#define BIT_B		17
#define FLIP_BASE	32
#define NR_LOCKERS	6	/* per bit */
#define NR_FLIPPERS	8
#define NR_BIT_THREADS	(2 * NR_LOCKERS + NR_FLIPPERS)

struct bit_run {
	unsigned long word;		/* atomic bit operations only */
	char key[2];			/* TSan/lockdep keys, one per lock bit */
	int cls;
	int iters;
	int flips;
	unsigned long counter[2];	/* bit lock */
	int holder[2];			/* bit lock */
	unsigned long try_attempts;	/* atomic */
	unsigned long try_failures;	/* atomic */
};

static void bit_locker(struct bit_run *r, int idx, int which)
{
	unsigned int bit = which ? BIT_B : BIT_A;
	unsigned long mask = 1UL << bit;
	uint64_t rng = rt_thread_rng(idx);
	unsigned long attempts = 0, failures = 0;
	int me = idx + 1;

	for (int i = 0; i < r->iters; i++) {
		unsigned long v;
		int h;

		if (i % 4 == 3) {
			attempts++;
			while (!_bit_spin_trylock(bit, &r->word, &r->key[which], r->cls,
						  __FILE__, __LINE__)) {
				failures++;
				attempts++;
				sched_yield();
			}
		} else {
			_bit_spin_lock(bit, &r->word, &r->key[which], r->cls,
				       __FILE__, __LINE__);
		}
		if (!(__atomic_load_n(&r->word, __ATOMIC_RELAXED) & mask))
			rt_fail("t%d holds bit %u but it is clear", idx, bit);
		h = PLAIN_LOAD(r->holder[which]);
		if (h != 0)
			rt_fail("t%d entered bit %u while t%d holds it", idx, bit, h - 1);
		PLAIN_STORE(r->holder[which], me);
		v = PLAIN_LOAD(r->counter[which]);
		if (rt_rand(&rng) % 8 == 0)
			sched_yield();
		PLAIN_STORE(r->counter[which], v + 1);
		h = PLAIN_LOAD(r->holder[which]);
		if (h != me)
			rt_fail("t%d: bit %u holder changed to t%d", idx, bit, h - 1);
		PLAIN_STORE(r->holder[which], 0);
		_bit_spin_unlock(bit, &r->word, &r->key[which], r->cls, __FILE__, __LINE__);
	}
	__atomic_fetch_add(&r->try_attempts, attempts, __ATOMIC_RELAXED);
	__atomic_fetch_add(&r->try_failures, failures, __ATOMIC_RELAXED);
}

/* Flipper j owns bit FLIP_BASE + j; nobody else writes it. */
static void bit_flipper(struct bit_run *r, int j)
{
	unsigned long mask = 1UL << (FLIP_BASE + j);

	for (int i = 0; i < r->flips; i++) {
		unsigned long old = __atomic_fetch_or(&r->word, mask, __ATOMIC_RELAXED);

		if (old & mask)
			rt_fail("flipper %d: bit already set: lost clear", j);
		if (i % 16 == 0)
			sched_yield();
		old = __atomic_fetch_and(&r->word, ~mask, __ATOMIC_RELAXED);
		if (!(old & mask))
			rt_fail("flipper %d: bit clear before clearing: lost set", j);
	}
	/* Odd flippers leave their bit set: checked after the run. */
	if (j & 1)
		__atomic_fetch_xor(&r->word, mask, __ATOMIC_RELAXED);
}

static void bit_worker(int idx, void *arg)
{
	struct bit_run *r = arg;

	if (idx < NR_LOCKERS)
		bit_locker(r, idx, 0);
	else if (idx < 2 * NR_LOCKERS)
		bit_locker(r, idx, 1);
	else
		bit_flipper(r, idx - 2 * NR_LOCKERS);
}

START_TEST(test_spinlock_bit_locks_shared_word)
{
	struct bit_run r = { .cls = rt_lockval_class("test_spin_bit"), .iters = 1500, .flips = 20000 };
	unsigned long expect = 0;
	struct lock_class_stats st;
	cpu_set_t saved;

	pin_two_cpus(&saved);
	rt_run_threads(NR_BIT_THREADS, bit_worker, &r);
	unpin(&saved);
	ck_assert_no_worker_failure();
	ck_assert_uint_eq(r.counter[0], NR_LOCKERS * (unsigned long)r.iters);
	ck_assert_uint_eq(r.counter[1], NR_LOCKERS * (unsigned long)r.iters);
	for (int j = 1; j < NR_FLIPPERS; j += 2)
		expect |= 1UL << (FLIP_BASE + j);
	/* Lock bits released, flipper bits as their owners left them. */
	ck_assert_uint_eq(r.word, expect);

	lock_stats_read(r.cls, &st);
	ck_assert_uint_eq(st.acquired, 2UL * NR_LOCKERS * (unsigned long)r.iters);
	ck_assert_uint_eq(st.try_attempts, r.try_attempts);
	ck_assert_uint_eq(st.try_failures, r.try_failures);
	ck_assert_uint_eq(r.try_attempts - r.try_failures,
			  2UL * NR_LOCKERS * (unsigned long)(r.iters / 4));
}
END_TEST

START_TEST(test_spinlock_bit_trylock_preempt)
{
	int cls = rt_lockval_class("test_spin_bit");
	unsigned long word = 1UL << 40;	/* another flag, left alone */
	char key;
	int base = current->preempt_count;

	ck_assert(_bit_spin_trylock(5, &word, &key, cls, __FILE__, __LINE__));
	ck_assert_uint_eq(word, (1UL << 40) | (1UL << 5));
	ck_assert_int_eq(current->preempt_count, base + 1);
	ck_assert(lock_is_held(&key));
	ck_assert(!_bit_spin_trylock(5, &word, &key, cls, __FILE__, __LINE__));
	ck_assert_int_eq(current->preempt_count, base + 1);
	_bit_spin_unlock(5, &word, &key, cls, __FILE__, __LINE__);
	ck_assert_uint_eq(word, 1UL << 40);
	ck_assert_int_eq(current->preempt_count, base);
	ck_assert(!lock_is_held(&key));
	_bit_spin_lock(5, &word, &key, cls, __FILE__, __LINE__);
	ck_assert_uint_eq(word, (1UL << 40) | (1UL << 5));
	_bit_spin_unlock(5, &word, &key, cls, __FILE__, __LINE__);
	ck_assert_uint_eq(word, 1UL << 40);
}
END_TEST

/* ---- lockdep annotations ---- */

START_TEST(test_spinlock_nested_annotation)
{
	int cls = rt_lockval_class("test_spin_nested");
	spinlock_t a, b;

	spin_lock_init(&a, cls);
	spin_lock_init(&b, cls);
	lockdep_reset_graph();
	rt_reports_capture();

	spin_lock(&a);
	spin_lock_nested(&b, SINGLE_DEPTH_NESTING);
	ck_assert(lock_is_held(&a));
	ck_assert(lock_is_held(&b));
	ck_assert_int_eq(lockdep_depth(), 2);
	spin_unlock(&b);
	spin_unlock(&a);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_RECURSION), 0);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_CYCLE), 0);
	ck_assert_int_eq(lockdep_depth(), 0);

	/* The same pair without the annotation is reported, once. */
	spin_lock(&a);
	spin_lock(&b);
	spin_unlock(&b);
	spin_unlock(&a);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_RECURSION), 1);
	rt_reports_release();
	lockdep_reset_graph();
}
END_TEST

START_TEST(test_spinlock_assert_locked)
{
	int cls = rt_lockval_class("test_spin_assert");
	spinlock_t l;

	spin_lock_init(&l, cls);
	rt_reports_capture();
	spin_lock(&l);
	assert_spin_locked(&l);		/* a BUG would abort the test */
	spin_unlock(&l);
	ck_assert(!lock_is_held(&l));

	lockdep_set_enabled(false);
	ck_assert(!lockdep_enabled());
	spin_lock(&l);
	assert_spin_locked(&l);
	ck_assert_int_eq(lockdep_depth(), 0);
	spin_unlock(&l);
	lockdep_set_enabled(true);
	ck_assert(!spin_is_locked(&l));
	ck_assert_int_eq(rt_reports_count(VM_REPORT_BUG), 0);
	rt_reports_release();
}
END_TEST

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "basic", rt_tmo(10), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_spinlock_lock_unlock,
			test_spinlock_trylock_own,
			test_spinlock_trylock_other_thread,
		} },
		{ "preempt", rt_tmo(10), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_spinlock_preempt_count,
			test_spinlock_preempt_count_trylock,
		} },
		{ "exclusion", rt_tmo(30), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_spinlock_exclusion_32,
			test_spinlock_exclusion_64,
			test_spinlock_oversubscribed_completes,
		} },
		{ "stats", rt_tmo(30), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_spinlock_stats_trylock,
			test_spinlock_stats_contended,
		} },
		{ "wake", rt_tmo(30), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_spinlock_release_wakes_waiter,
		} },
		{ "bitlock", rt_tmo(30), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_spinlock_bit_locks_shared_word,
			test_spinlock_bit_trylock_preempt,
		} },
		{ "lockdep", rt_tmo(10), rt_lockval_setup, rt_lockval_teardown, .tests = {
			test_spinlock_nested_annotation,
			test_spinlock_assert_locked,
		} },
	};

	return rt_check_main(rt_suite("spinlock", tcs, (int)ARRAY_SIZE(tcs)));
}
