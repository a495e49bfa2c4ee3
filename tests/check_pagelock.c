// SPDX-License-Identifier: MIT
/*
 * pagelock: lock_page/unlock_page/TestSetPageLocked semantics, mutual
 * exclusion under 32 threads, PG_locked independent of the other flag bits
 * that other threads change at the same time, lock_page in atomic context
 * reported, and the PG_locked lock statistics.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lockdep.h"
#include "page.h"
#include "rt_check.h"
#include "rt_lockval.h"
#include "spinlock.h"
#include "task.h"
#include "waitq.h"

/* The page lock needs no mem_map: these pages are the test's own. */
#define NR_TEST_PAGES	8
static struct page pages[NR_TEST_PAGES];

static void setup_pages(void)
{
	memset(pages, 0, sizeof(pages));
	rt_failure_reset();
}

static void teardown_pages(void)
{
	for (int i = 0; i < NR_TEST_PAGES; i++)
		ck_assert_msg(!PageLocked(&pages[i]), "page %d left locked", i);
	ck_assert(waitq_idle());
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- semantics ---- */

START_TEST(test_pagelock_lock_unlock)
{
	struct page *page = &pages[0];

	ck_assert(!PageLocked(page));
	lock_page(page);
	ck_assert(PageLocked(page));
	ck_assert_uint_eq(page->flags, page_flag_mask(PG_locked));
	unlock_page(page);
	ck_assert(!PageLocked(page));
	ck_assert_uint_eq(page->flags, 0);
	/* Again: the lock is reusable, and lockdep's stack is balanced. */
	lock_page(page);
	ck_assert_int_eq(lockdep_depth(), __lockdep_on ? 1 : 0);
	unlock_page(page);
	ck_assert_int_eq(lockdep_depth(), 0);
}
END_TEST

START_TEST(test_pagelock_testset_true_when_already_locked)
{
	struct page *page = &pages[1];

	/* Kernel convention: false means we got it. */
	ck_assert(!TestSetPageLocked(page));
	ck_assert(PageLocked(page));
	ck_assert(TestSetPageLocked(page));
	ck_assert(PageLocked(page));
	unlock_page(page);
	ck_assert(!PageLocked(page));
	ck_assert(!TestSetPageLocked(page));
	unlock_page(page);
}
END_TEST

START_TEST(test_pagelock_keeps_other_flags)
{
	struct page *page = &pages[2];

	SetPageReferenced(page);
	SetPageDirty(page);
	SetPageLRU(page);
	lock_page(page);
	ck_assert(PageReferenced(page) && PageDirty(page) && PageLRU(page));
	unlock_page(page);
	ck_assert(!PageLocked(page));
	ck_assert(PageReferenced(page) && PageDirty(page) && PageLRU(page));
	ck_assert(!TestSetPageLocked(page));
	ClearPageDirty(page);
	unlock_page(page);
	ck_assert_uint_eq(page->flags,
			  page_flag_mask(PG_referenced) | page_flag_mask(PG_lru));
}
END_TEST

struct handoff {
	struct page *page;
	int stage;		/* acquire/release */
	int released;		/* relaxed; ordered by the page lock */
	int waiter_has_it;	/* relaxed atomic */
};

/* t0 holds the lock while t1 tries, fails, then blocks until t0 unlocks. */
static void handoff_worker(int idx, void *arg)
{
	struct handoff *h = arg;

	if (idx == 0) {
		lock_page(h->page);
		/* Release pairs with t1's acquire: the page is locked now. */
		__atomic_store_n(&h->stage, 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&h->stage, __ATOMIC_ACQUIRE) < 2)
			sched_yield();
		/* t1 is in lock_page(): it must not get in while we hold it. */
		sleep_ms(20);
		rt_check(!__atomic_load_n(&h->waiter_has_it, __ATOMIC_RELAXED));
		__atomic_store_n(&h->released, 1, __ATOMIC_RELAXED);
		unlock_page(h->page);
	} else {
		while (__atomic_load_n(&h->stage, __ATOMIC_ACQUIRE) < 1)
			sched_yield();
		rt_check(TestSetPageLocked(h->page));	/* held by t0 */
		/* Release pairs with t0's acquire of stage 2. */
		__atomic_store_n(&h->stage, 2, __ATOMIC_RELEASE);
		lock_page(h->page);
		__atomic_store_n(&h->waiter_has_it, 1, __ATOMIC_RELAXED);
		/* unlock_page's release -> our lock_page's acquire. */
		rt_check(__atomic_load_n(&h->released, __ATOMIC_RELAXED) == 1);
		unlock_page(h->page);
	}
}

START_TEST(test_pagelock_waiter_blocks_until_unlock)
{
	struct handoff h = { .page = &pages[3] };
	struct lock_class_stats before, after;

	lock_stats_read(LOCK_CLASS_PG_LOCKED, &before);
	rt_run_threads(2, handoff_worker, &h);
	ck_assert_no_worker_failure();
	ck_assert_int_eq(h.waiter_has_it, 1);
	lock_stats_read(LOCK_CLASS_PG_LOCKED, &after);
	ck_assert_uint_eq(after.acquired - before.acquired, 2);
	/* contended is 1 unless t0 let go before t1 tried: not asserted. */
	ck_assert_uint_le(after.contended - before.contended, 1);
	ck_assert_uint_eq(after.try_failures - before.try_failures, 1);
}
END_TEST

/* ---- exclusion ---- */

#define EXCL_THREADS	32
#define EXCL_ITERS	400
#define EXCL_PAGES	3

struct excl {
	struct page *pages;
	unsigned long counter[EXCL_PAGES];	/* PG_locked of pages[i]: plain */
	int owner[EXCL_PAGES];			/* PG_locked; relaxed atomics */
};

static void excl_worker(int idx, void *arg)
{
	struct excl *e = arg;
	uint64_t rng = rt_test_seed() ^ ((uint64_t)(idx + 1) << 20);

	for (int i = 0; i < EXCL_ITERS && !rt_first_failure(); i++) {
		int p = (int)(rt_rand(&rng) % EXCL_PAGES);
		struct page *page = &e->pages[p];

		/* A quarter of the time, the reclaim way: try, then block. */
		if ((rt_rand(&rng) & 3) != 0 || TestSetPageLocked(page))
			lock_page(page);
		if (__atomic_load_n(&e->owner[p], __ATOMIC_RELAXED) != -1)
			rt_fail("page %d: t%d got the lock held by t%d", p, idx,
				__atomic_load_n(&e->owner[p], __ATOMIC_RELAXED));
		__atomic_store_n(&e->owner[p], idx, __ATOMIC_RELAXED);
		e->counter[p]++;	/* non-atomic: only exclusion keeps it exact */
		if ((rt_rand(&rng) & 7) == 0)
			sched_yield();
		rt_check(PageLocked(page));
		__atomic_store_n(&e->owner[p], -1, __ATOMIC_RELAXED);
		unlock_page(page);
	}
}

START_TEST(test_pagelock_mutual_exclusion_32_threads)
{
	struct excl e = { .pages = pages };
	unsigned long total = 0;

	for (int p = 0; p < EXCL_PAGES; p++)
		e.owner[p] = -1;
	rt_run_threads(EXCL_THREADS, excl_worker, &e);
	ck_assert_no_worker_failure();
	for (int p = 0; p < EXCL_PAGES; p++) {
		total += e.counter[p];
		ck_assert(!PageLocked(&pages[p]));
	}
	ck_assert_uint_eq(total, (unsigned long)EXCL_THREADS * EXCL_ITERS);
}
END_TEST

#define BITS_THREADS	32
#define BITS_ITERS	1500

/*
 * t0..t15 lock and unlock random pages; t16..t23 toggle PG_referenced of
 * page (t-16), t24..t31 PG_dirty of page (t-24). Each toggler is the only
 * writer of its bit, so it can check that nobody else's atomic update of
 * the word lost it; the lockers check the same for PG_locked.
 */
static void bits_worker(int idx, void *arg)
{
	struct page *pg = arg;
	uint64_t rng = rt_test_seed() ^ ((uint64_t)(idx + 1) << 24);

	if (idx < 16) {
		for (int i = 0; i < BITS_ITERS && !rt_first_failure(); i++) {
			struct page *page = &pg[rt_rand(&rng) % NR_TEST_PAGES];

			lock_page(page);
			if (!PageLocked(page))
				rt_fail("t%d: PG_locked lost while held", idx);
			unlock_page(page);
		}
	} else if (idx < 24) {
		struct page *page = &pg[idx - 16];

		for (int i = 0; i < BITS_ITERS && !rt_first_failure(); i++) {
			SetPageReferenced(page);
			if (!PageReferenced(page))
				rt_fail("t%d: PG_referenced set and lost", idx);
			ClearPageReferenced(page);
			if (PageReferenced(page))
				rt_fail("t%d: PG_referenced cleared and back", idx);
		}
	} else {
		struct page *page = &pg[idx - 24];

		for (int i = 0; i < BITS_ITERS && !rt_first_failure(); i++) {
			if (TestSetPageDirty(page))
				rt_fail("t%d: PG_dirty was set by nobody", idx);
			if (!TestClearPageDirty(page))
				rt_fail("t%d: PG_dirty set and lost", idx);
		}
	}
}

START_TEST(test_pagelock_independent_of_other_flag_bits)
{
	rt_run_threads(BITS_THREADS, bits_worker, pages);
	ck_assert_no_worker_failure();
	for (int i = 0; i < NR_TEST_PAGES; i++)
		ck_assert_uint_eq(pages[i].flags, 0);
}
END_TEST

/* ---- atomic sleep ---- */

START_TEST(test_pagelock_lock_page_in_atomic_reported)
{
	struct page *page = &pages[4];
	spinlock_t lock;
	struct vm_report r;

	spin_lock_init(&lock, rt_lockval_class("pagelock_test_lock"));
	rt_reports_capture();

	spin_lock(&lock);
	lock_page(page);	/* free, so it returns: the report is the point */
	unlock_page(page);
	spin_unlock(&lock);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 1);
	ck_assert(rt_reports_first(VM_REPORT_ATOMIC_SLEEP, &r));
	ck_assert_str_eq(r.sites[0].what, "lock_page");
	ck_assert_str_eq(r.sites[0].file, __FILE__);

	/* A trylock never sleeps; lock_page outside the spinlock is fine. */
	spin_lock(&lock);
	ck_assert(!TestSetPageLocked(page));
	unlock_page(page);
	spin_unlock(&lock);
	lock_page(page);
	unlock_page(page);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 1);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_BUG), 0);
	/* lock_page is a sleeping lock: it leaves preempt_count alone. */
	lock_page(page);
	ck_assert(!in_atomic());
	unlock_page(page);

	rt_reports_release();
}
END_TEST

/* unlock_page() wakes the task asleep in lock_page() (core/waitq.h). */
START_TEST(test_pagelock_unlock_wakes_waiter)
{
	struct page *page = &pages[6];

	rt_lockval_wake_one(&rt_lock_page, page, page_lock_key(page, PG_locked));
}
END_TEST

/* ---- statistics ---- */

START_TEST(test_pagelock_stats)
{
	struct page *page = &pages[5];
	struct lock_class_stats before, after;

	lock_stats_read(LOCK_CLASS_PG_LOCKED, &before);
	for (int i = 0; i < 3; i++) {
		lock_page(page);
		unlock_page(page);
	}
	ck_assert(!TestSetPageLocked(page));	/* attempt, acquired */
	ck_assert(TestSetPageLocked(page));	/* attempt, failure */
	ck_assert(TestSetPageLocked(page));	/* attempt, failure */
	unlock_page(page);
	lock_stats_read(LOCK_CLASS_PG_LOCKED, &after);

	ck_assert_uint_eq(after.acquired - before.acquired, 4);
	ck_assert_uint_eq(after.try_attempts - before.try_attempts, 3);
	ck_assert_uint_eq(after.try_failures - before.try_failures, 2);
	ck_assert_uint_eq(after.contended - before.contended, 0);
}
END_TEST

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "semantics", 10, setup_pages, teardown_pages, .tests = {
			test_pagelock_lock_unlock,
			test_pagelock_testset_true_when_already_locked,
			test_pagelock_keeps_other_flags,
			test_pagelock_waiter_blocks_until_unlock,
			test_pagelock_unlock_wakes_waiter,
		} },
		{ "exclusion", 60, setup_pages, teardown_pages, .tests = {
			test_pagelock_mutual_exclusion_32_threads,
			test_pagelock_independent_of_other_flag_bits,
		} },
		{ "atomic_sleep", 10, setup_pages, teardown_pages, .tests = {
			test_pagelock_lock_page_in_atomic_reported,
		} },
		{ "stats", 10, setup_pages, teardown_pages, .tests = {
			test_pagelock_stats,
		} },
	};

	return rt_check_main(rt_suite("pagelock", tcs, (int)ARRAY_SIZE(tcs)));
}
