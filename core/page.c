// SPDX-License-Identifier: MIT
/*
 * The sleeping page lock (PG_locked) and the last-reference free path.
 *
 * lock_page() is a bit lock in page->flags, like the kernel's: the other
 * flag bits change concurrently under their own rules, so every change of
 * PG_locked is an atomic read-modify-write of the one bit. Unlike the bit
 * spinlocks it may sleep: it does not raise preempt_count, a waiter goes to
 * sleep soon (lock_wait_sleep()), and taking it in atomic context is
 * reported as sleeping in atomic context. There are no wait queues: the
 * waiter polls the bit with growing sleeps, so unlock_page() wakes nobody.
 *
 * The model has no I/O completion, so the task that locked a page is the
 * one that unlocks it (lockdep reports a release by any other task).
 *
 * Mirrors mm/filemap.c (lock_page, unlock_page) and mm/swap.c (put_page,
 * __page_cache_release, release_pages) of 2.6.
 */
#include "page.h"

#include "lock_events.h"
#include "lockdep.h"
#include "page_alloc.h"
#include "spinlock.h"
#include "task.h"

#define PG_LOCKED_MASK	page_flag_mask(PG_locked)

/**
 * _lock_page() - take the page lock, sleeping while another task holds it
 * @page: the page
 * @file, @line: the caller's site, for lockdep and atomic-sleep reports
 *
 * Mirrors mm/filemap.c:lock_page() / _lock_page().
 *
 * Context: process context, may sleep: reported (VM_REPORT_ATOMIC_SLEEP)
 * when called in atomic context. Blocking acquisition of
 * LOCK_CLASS_PG_LOCKED: below mmap_sem, above i_shared_sem.
 */
void _lock_page(struct page *page, const char *file, int line)
{
	const int cls = LOCK_CLASS_PG_LOCKED;
	void *key = page_lock_key(page, PG_locked);
	struct lock_wait w = LOCK_WAIT(key, cls);
	bool contended = false;

	/* might_sleep(), with the caller's site in the report. */
	if (unlikely(in_atomic()))
		_might_sleep("lock_page", file, line);

	lock_ev_pre_lock(key, cls, LOCK_ACQ_BLOCKING, false, false, true);
	/* Acquire pairs with the release in _unlock_page(). */
	while (unlikely(__atomic_fetch_or(&page->flags, PG_LOCKED_MASK,
					  __ATOMIC_ACQUIRE) & PG_LOCKED_MASK)) {
		if (!contended) {
			lock_ev_contended(cls, 0, file, line);
			contended = true;
		}
		/*
		 * Wait for the holder without writing the shared word; the
		 * fetch_or above is what orders, so a relaxed load will do.
		 */
		while (__atomic_load_n(&page->flags, __ATOMIC_RELAXED) & PG_LOCKED_MASK)
			lock_wait_sleep(&w);
	}
	lock_wait_end(&w);
	lock_ev_post_lock(key, LOCK_ACQ_BLOCKING, false, true, true);
	lock_ev_acquired(cls, LOCK_ACQ_BLOCKING, file, line);
	lock_ev_held(key, cls, 0, LOCK_ACQ_BLOCKING, false, file, line);
}

/**
 * _trylock_page() - take the page lock if it is free, never wait
 * @page: the page
 * @file, @line: the caller's site, for lockdep
 *
 * The body of TestSetPageLocked() (which inverts the result, as the
 * kernel's does). A trylock adds no lockdep dependency: it is how reclaim
 * locks pages against the order.
 *
 * Mirrors include/linux/page-flags.h:TestSetPageLocked().
 *
 * Context: any; never sleeps.
 * Return: true when the caller now holds the page lock.
 */
bool _trylock_page(struct page *page, const char *file, int line)
{
	const int cls = LOCK_CLASS_PG_LOCKED;
	void *key = page_lock_key(page, PG_locked);
	bool ok;

	lock_ev_pre_lock(key, cls, LOCK_ACQ_TRY, false, false, true);
	/* Acquire pairs with the release in _unlock_page(). */
	ok = !(__atomic_fetch_or(&page->flags, PG_LOCKED_MASK, __ATOMIC_ACQUIRE) &
	       PG_LOCKED_MASK);
	lock_ev_post_lock(key, LOCK_ACQ_TRY, false, ok, true);
	return lock_ev_try_done(key, cls, false, ok, false, true, file, line);
}

/**
 * _unlock_page() - release the page lock
 * @page: a page the current task locked
 * @file, @line: the caller's site, for lockdep
 *
 * BUGs when the page was not locked. lock_ev_released() wakes the
 * waiters (the kernel's wake_up_page()).
 *
 * Mirrors mm/filemap.c:unlock_page().
 *
 * Context: any; never sleeps. The caller holds the page lock.
 */
void _unlock_page(struct page *page, const char *file, int line)
{
	const int cls = LOCK_CLASS_PG_LOCKED;
	void *key = page_lock_key(page, PG_locked);
	unsigned long old;

	lock_ev_pre_unlock(key, cls, false, true, file, line);
	/*
	 * Release pairs with the acquire in _lock_page()/_trylock_page():
	 * what we did under the page lock is seen by its next holder.
	 */
	old = __atomic_fetch_and(&page->flags, ~PG_LOCKED_MASK, __ATOMIC_RELEASE);
	lock_ev_post_unlock(key, false, true);
	BUG_ON(!(old & PG_LOCKED_MASK));
	lock_ev_released(key, cls, false, file, line);
}

/*
 * The last reference is gone: take the page off the LRU, if it is on one,
 * and free it. A reclaim scanner that meets the page on the LRU in the
 * meantime takes references only with get_page_unless_zero() under
 * lru_lock, so it sees count 0 and leaves the page to us; one that had
 * isolated the page holds a reference, so we cannot get here.
 *
 * Mirrors mm/swap.c:__page_cache_release().
 */
static void __page_cache_release(struct page *page, bool cold)
{
	struct zone *zone = page_zone(page);

	if (PageLRU(page)) {
		spin_lock(&zone->lru_lock);
		/* Re-check under the lock: a scanner may hold it isolated. */
		if (PageLRU(page))
			del_page_from_lru(zone, page);
		spin_unlock(&zone->lru_lock);
	}
	if (cold)
		free_cold_page(page);
	else
		__free_page(page);
}

/*
 * Drop a reference; true when it was the last. Mirrors
 * include/linux/mm.h:put_page_testzero().
 */
static inline bool put_page_testzero(struct page *page)
{
	int old;

	/*
	 * Release: our accesses to the page happen before the drop. Acquire
	 * (used by whoever drops the last reference) pairs with the release
	 * of every earlier put_page(), so the page is quiescent when freed.
	 */
	line_write(&page->count, LINE_PAGE);
	old = __atomic_fetch_sub(&page->count, 1, __ATOMIC_ACQ_REL);
	BUG_ON(old <= 0);
	return old == 1;
}

/* put_page() and put_page_cold(): the last reference frees to the hot or cold list. */
static inline void __put_page(struct page *page, bool cold)
{
	if (PageReserved(page))
		return;
	if (put_page_testzero(page))
		__page_cache_release(page, cold);
}

void release_pages(struct page **pages, int nr, int cold)
{
	struct pagevec pages_to_free;
	struct zone *zone = NULL;

	pagevec_init(&pages_to_free, cold);
	for (int i = 0; i < nr; i++) {
		struct page *page = pages[i];
		struct zone *pagezone;

		if (PageReserved(page) || !put_page_testzero(page))
			continue;
		pagezone = page_zone(page);
		if (pagezone != zone) {
			if (zone)
				spin_unlock(&zone->lru_lock);
			zone = pagezone;
			spin_lock(&zone->lru_lock);
		}
		/*
		 * A scanner that meets the page on the LRU now sees count 0
		 * and leaves it (get_page_unless_zero()), so unlike 2.6.9 no
		 * count re-check is needed: the page is ours.
		 */
		if (PageLRU(page))
			del_page_from_lru(zone, page);
		if (!pagevec_add(&pages_to_free, page)) {
			spin_unlock(&zone->lru_lock);
			__pagevec_free(&pages_to_free);
			pagevec_reinit(&pages_to_free);
			zone = NULL;	/* no lock is held */
		}
	}
	if (zone)
		spin_unlock(&zone->lru_lock);
	if (pagevec_count(&pages_to_free))
		__pagevec_free(&pages_to_free);
}

/**
 * put_page() - drop a reference; the last one frees the page
 * @page: a page the caller holds a reference to
 *
 * Reserved pages (the zero page) are never freed: as in 2.6, put_page()
 * on them does nothing at all, so their count only ever grows. A count
 * that goes negative is a BUG (a put without a get, or a use after free).
 *
 * Mirrors include/linux/mm.h:put_page() and mm/swap.c of 2.6.
 *
 * Context: any; at the last reference takes zone->lru_lock (when the page
 * is on an LRU list) and then zone->lock, one after the other, so the
 * caller must hold neither.
 */
void put_page(struct page *page)
{
	__put_page(page, false);
}

/**
 * put_page_cold() - put_page(), freeing to the task's cold per-CPU list
 * @page: a page the caller holds a reference to
 *
 * For reclaim's freed pages, which 2.6's shrink_list() gathered in a cold
 * pagevec: nobody will touch them soon, so they go where allocations that
 * want a cache-hot page do not look first.
 *
 * Mirrors mm/swap.c:__pagevec_release_nonlru() on a cold pagevec.
 *
 * Context: as put_page().
 */
void put_page_cold(struct page *page)
{
	__put_page(page, true);
}
