// SPDX-License-Identifier: MIT
/*
 * mem_map, the one zone, its free list and its LRU lists.
 *
 * There is no buddy allocator: the model allocates single pages, so the
 * zone keeps one free list. It is FIFO (freed pages go to the tail, pages
 * are taken from the head): a freed page stays free for as long as
 * possible, so a stale reference to it meets PG_buddy and count 0 (which
 * the audit and the inline checks see) rather than its next owner.
 *
 * Allocation never aborts: an empty free list returns NULL and the caller
 * takes the VM_FAULT_OOM path. Falling below pages_low (and failing) calls
 * the zone's low hook, the model's wakeup_kswapd().
 *
 * Mirrors mm/page_alloc.c (__alloc_pages, free_pages_check) and mm/swap.c
 * (the LRU) of 2.6.
 */
#include "page_alloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "lockdep.h"
#include "task.h"
#include "vmscan.h"

struct page *mem_map;
unsigned long max_mapnr;
struct zone contig_zone;

static inline void zone_stat_inc(unsigned long *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* zone->lock held; nr_free_pages() reads it without the lock. */
static inline void zone_set_free_pages(struct zone *zone, unsigned long v)
{
	__atomic_store_n(&zone->free_pages, v, __ATOMIC_RELAXED);
}

/**
 * mem_init() - allocate mem_map of @nr_pages and put all but the zero page free
 * @nr_pages: pages of emulated memory, zero page included
 *
 * pfn 0 is the zero page: PG_reserved, count 1, never on the free list.
 * Every other page starts free (PG_buddy, count 0). The watermarks are
 * fractions of memory with a floor: pages_min = max(nr/128, 4),
 * pages_low = 2 * pages_min, pages_high = 3 * pages_min. The low hook is
 * cleared.
 *
 * Mirrors mm/page_alloc.c:free_area_init() and setup_per_zone_pages_min().
 *
 * Context: before any thread uses the model.
 * Return: 0; -EINVAL when @nr_pages is outside [MEM_MIN_PAGES,
 * MEM_MAX_PAGES]; -EBUSY when mem_map is already set up.
 */
int mem_init(unsigned long nr_pages)
{
	struct zone *zone = &contig_zone;
	unsigned long min;

	if (nr_pages < MEM_MIN_PAGES || nr_pages > MEM_MAX_PAGES)
		return -EINVAL;
	if (mem_map)
		return -EBUSY;

	memset(zone, 0, sizeof(*zone));
	spin_lock_init(&zone->lock, LOCK_CLASS_ZONE_LOCK);
	spin_lock_init(&zone->lru_lock, LOCK_CLASS_LRU_LOCK);
	INIT_LIST_HEAD(&zone->free_list);
	INIT_LIST_HEAD(&zone->active_list);
	INIT_LIST_HEAD(&zone->inactive_list);

	min = nr_pages / 128;
	if (min < 4)
		min = 4;
	zone->pages_min = min;
	zone->pages_low = 2 * min;
	zone->pages_high = 3 * min;

	mem_map = rt_calloc(nr_pages, sizeof(*mem_map));
	max_mapnr = nr_pages;

	mem_map[ZERO_PAGE_PFN].flags = page_flag_mask(PG_reserved);
	mem_map[ZERO_PAGE_PFN].count = 1;
	for (unsigned long pfn = 0; pfn < nr_pages; pfn++) {
		struct page *page = &mem_map[pfn];

		if (pfn == ZERO_PAGE_PFN)
			continue;
		page->flags = page_flag_mask(PG_buddy);
		list_add_tail(&page->lru, &zone->free_list);
	}
	zone->free_pages = nr_pages - 1;
	return 0;
}

/**
 * mem_exit() - release mem_map and reset the zone
 *
 * Pages still allocated are simply forgotten: the audit, not this
 * function, reports leaks.
 *
 * Context: after every thread that used the model has stopped.
 */
void mem_exit(void)
{
	if (mem_map) {
		/* TSan reports destroying a lock that is still held. */
		tsan_mutex_destroy(&contig_zone.lock, 0);
		tsan_mutex_destroy(&contig_zone.lru_lock, 0);
	}
	free(mem_map);
	mem_map = NULL;
	max_mapnr = 0;
	memset(&contig_zone, 0, sizeof(contig_zone));
	INIT_LIST_HEAD(&contig_zone.free_list);
	INIT_LIST_HEAD(&contig_zone.active_list);
	INIT_LIST_HEAD(&contig_zone.inactive_list);
}

/**
 * zone_set_low_hook() - install the low-watermark wakeup (wakeup_kswapd())
 * @zone: the zone
 * @fn: called with @arg when free pages fall below pages_low after an
 *	allocation, and when an allocation fails; NULL to remove. It runs in
 *	the allocating task, outside zone->lock but possibly in atomic
 *	context (GFP_ATOMIC under a spinlock), so it must not sleep.
 * @arg: passed to @fn
 *
 * Context: before the threads that allocate start (or after they stop).
 */
void zone_set_low_hook(struct zone *zone, zone_low_hook_fn fn, void *arg)
{
	WRITE_ONCE(zone->low_hook_arg, arg);
	WRITE_ONCE(zone->low_hook, fn);
}

/* Mirrors mm/vmscan.c:wakeup_kswapd(). Outside zone->lock. */
static void wakeup_low_hook(struct zone *zone)
{
	zone_low_hook_fn fn = READ_ONCE(zone->low_hook);

	if (!fn)
		return;
	zone_stat_inc(&zone->nr_low_wakeups);
	fn(zone, READ_ONCE(zone->low_hook_arg));
}

/**
 * _alloc_page() - take a free page, count 1, flags clear
 * @gfp: GFP_KERNEL (may sleep: reported in atomic context) or GFP_ATOMIC;
 *	__GFP_ZERO is accepted and changes nothing
 * @file, @line: the caller's site, for the atomic-sleep report
 *
 * The page comes back with count 1, no flag set, as/index/pte/private
 * zeroed, off every list, and its data word 0: every new page reads as
 * zeroes, with or without __GFP_ZERO, so a stale data stamp never leaks
 * from one owner to the next. When free pages are below pages_low after
 * the allocation, or none was left, the low hook runs (outside
 * zone->lock) and nr_low_wakeups counts it.
 *
 * Direct reclaim: when free pages are at or below pages_min, an
 * allocation that may sleep (__GFP_WAIT, not in atomic context) and is
 * not itself made by reclaim (PF_MEMALLOC) first wakes kswapd and then
 * reclaims a batch itself with try_to_free_pages(), holding whatever
 * its caller holds, and takes a page afterwards. GFP_ATOMIC allocations
 * (under a spinlock) and PF_MEMALLOC ones never reclaim: they dip below
 * the minimum, as 2.6's reserves let them. After one round of direct
 * reclaim the allocation takes whatever is left (2.6 would retry, and
 * at the end kill a process: the model fails with NULL instead, and the
 * caller takes the VM_FAULT_OOM path).
 *
 * Mirrors mm/page_alloc.c:__alloc_pages() for order 0.
 *
 * Context: any when !__GFP_WAIT; process context with __GFP_WAIT (the
 * model reports the call in atomic context as the kernel's might_sleep()
 * does, and then does not reclaim). Takes zone->lock; with __GFP_WAIT
 * below pages_min, the locks of try_to_free_pages().
 * Return: the page, or NULL when memory is exhausted (nr_alloc_fail).
 */
struct page *_alloc_page(gfp_t gfp, const char *file, int line)
{
	struct zone *zone = &contig_zone;
	struct page *page = NULL;
	unsigned long free;
	bool may_reclaim = gfp & __GFP_WAIT;

	if ((gfp & __GFP_WAIT) && unlikely(in_atomic())) {
		_might_sleep("alloc_page(GFP_KERNEL)", file, line);
		may_reclaim = false;
	}
	if (may_reclaim && (current->flags & PF_MEMALLOC))
		may_reclaim = false;
	if (may_reclaim && nr_free_pages() <= zone->pages_min) {
		wakeup_low_hook(zone);
		try_to_free_pages(zone, gfp);
	}

	spin_lock(&zone->lock);
	free = zone->free_pages;
	if (likely(!list_empty(&zone->free_list))) {
		page = list_first_entry(&zone->free_list, struct page, lru);
		list_del(&page->lru);
		BUG_ON(free == 0);
		zone_set_free_pages(zone, --free);
		BUG_ON(__atomic_load_n(&page->flags, __ATOMIC_RELAXED) !=
		       page_flag_mask(PG_buddy));
		__atomic_store_n(&page->flags, 0UL, __ATOMIC_RELAXED);
	}
	spin_unlock(&zone->lock);

	if (unlikely(!page)) {
		zone_stat_inc(&zone->nr_alloc_fail);
		wakeup_low_hook(zone);
		return NULL;
	}

	BUG_ON(page_count(page) != 0);
	page->as.mapping = NULL;
	page->index = 0;
	page->pte.chain = NULL;
	page->private = 0;
	page_data_write(page, 0);
	/*
	 * The page is ours alone: zone->lock ordered its free before this.
	 * The caller publishes it under its own locks.
	 */
	__atomic_store_n(&page->count, 1, __ATOMIC_RELAXED);
	zone_stat_inc(&zone->nr_alloc);

	if (free < zone->pages_low)
		wakeup_low_hook(zone);
	return page;
}

/**
 * __free_page() - return a page whose count has dropped to 0
 * @page: the page; the caller's reference was the last
 *
 * BUGs on what 2.6's free_pages_check() calls a bad page: a count other
 * than 0, a double free (PG_buddy), the zero page (PG_reserved), a page
 * still on an LRU list, locked (PG_locked, PG_chainlock, PG_maplock), in
 * the swap cache or under writeback, still mapped (its rmap state, the
 * pte union, not clear), or a file page still in a page cache (mapping
 * set; an anonymous page's as.anon_vma/as.vma may be left behind, as the
 * kernel clears PageAnon mappings on free). The flags are then reset to
 * PG_buddy alone and the page goes to the tail of the free list.
 *
 * Mirrors mm/page_alloc.c:free_hot_cold_page() / __free_pages_ok().
 *
 * Context: any; takes zone->lock.
 */
void __free_page(struct page *page)
{
	struct zone *zone = page_zone(page);

	BUG_ON(page < mem_map || page >= mem_map + max_mapnr);
	BUG_ON(page_count(page) != 0);
	BUG_ON(PageBuddy(page));	/* double free */
	BUG_ON(PageReserved(page));
	BUG_ON(PageLRU(page));
	BUG_ON(PageLocked(page));
	BUG_ON(test_page_flag(page, PG_chainlock));
	BUG_ON(test_page_flag(page, PG_maplock));
	BUG_ON(PageSwapCache(page));
	BUG_ON(PageWriteback(page));
	BUG_ON(page->pte.chain != NULL);	/* mapped: mapcount, chain or direct */
	BUG_ON(!PageAnon(page) && page->as.mapping != NULL);

	spin_lock(&zone->lock);
	__atomic_store_n(&page->flags, page_flag_mask(PG_buddy), __ATOMIC_RELAXED);
	list_add_tail(&page->lru, &zone->free_list);
	zone_set_free_pages(zone, zone->free_pages + 1);
	spin_unlock(&zone->lock);
	zone_stat_inc(&zone->nr_free);
}

/* ---- LRU ---- */

/*
 * zone->lru_lock held. Counters are written with WRITE_ONCE so that
 * reclaim heuristics may READ_ONCE them without the lock.
 */
static inline void lru_count_add(unsigned long *counter, long delta)
{
	unsigned long v = *counter;

	BUG_ON(delta < 0 && v < (unsigned long)-delta);
	WRITE_ONCE(*counter, v + (unsigned long)delta);
}

/**
 * add_page_to_inactive_list() - put @page at the head of the inactive list
 * @zone: the page's zone
 * @page: a page on no LRU list
 *
 * Sets PG_lru, clears PG_active.
 *
 * Mirrors include/linux/mm_inline.h:add_page_to_inactive_list().
 *
 * Context: the caller holds zone->lru_lock.
 */
void add_page_to_inactive_list(struct zone *zone, struct page *page)
{
	assert_spin_locked(&zone->lru_lock);
	SetPageLRU(page);
	ClearPageActive(page);
	list_add(&page->lru, &zone->inactive_list);
	lru_count_add(&zone->nr_inactive, 1);
}

/**
 * add_page_to_active_list() - put @page at the head of the active list
 * @zone: the page's zone
 * @page: a page on no LRU list
 *
 * Sets PG_lru and PG_active.
 *
 * Mirrors include/linux/mm_inline.h:add_page_to_active_list().
 *
 * Context: the caller holds zone->lru_lock.
 */
void add_page_to_active_list(struct zone *zone, struct page *page)
{
	assert_spin_locked(&zone->lru_lock);
	SetPageLRU(page);
	SetPageActive(page);
	list_add(&page->lru, &zone->active_list);
	lru_count_add(&zone->nr_active, 1);
}

/**
 * del_page_from_lru() - take @page off whichever LRU list it is on
 * @zone: the page's zone
 * @page: a page on an LRU list (PG_active says which)
 *
 * Clears PG_active and PG_lru. BUGs when the page is on no list.
 *
 * Mirrors include/linux/mm_inline.h:del_page_from_lru().
 *
 * Context: the caller holds zone->lru_lock.
 */
void del_page_from_lru(struct zone *zone, struct page *page)
{
	assert_spin_locked(&zone->lru_lock);
	BUG_ON(page->lru.next == NULL);	/* list_del() leaves it NULL */
	list_del(&page->lru);
	if (TestClearPageActive(page))
		lru_count_add(&zone->nr_active, -1);
	else
		lru_count_add(&zone->nr_inactive, -1);
	ClearPageLRU(page);
}

/**
 * lru_cache_add() - add a new page to the inactive list
 * @page: a page the caller holds a reference to, on no LRU list
 *
 * The list takes no reference of its own (see page_alloc.h). There are no
 * pagevecs: the page goes straight onto the list.
 *
 * Mirrors mm/swap.c:lru_cache_add().
 *
 * Context: any; takes zone->lru_lock.
 */
void lru_cache_add(struct page *page)
{
	struct zone *zone = page_zone(page);

	BUG_ON(page_count(page) <= 0);
	BUG_ON(PageReserved(page));
	spin_lock(&zone->lru_lock);
	BUG_ON(PageLRU(page));
	add_page_to_inactive_list(zone, page);
	spin_unlock(&zone->lru_lock);
}

/**
 * lru_cache_add_active() - add a new page to the active list
 * @page: a page the caller holds a reference to, on no LRU list
 *
 * Mirrors mm/swap.c:lru_cache_add_active().
 *
 * Context: any; takes zone->lru_lock.
 */
void lru_cache_add_active(struct page *page)
{
	struct zone *zone = page_zone(page);

	BUG_ON(page_count(page) <= 0);
	BUG_ON(PageReserved(page));
	spin_lock(&zone->lru_lock);
	BUG_ON(PageLRU(page));
	add_page_to_active_list(zone, page);
	spin_unlock(&zone->lru_lock);
}

/**
 * activate_page() - move an inactive LRU page to the active list
 * @page: a page the caller holds a reference to
 *
 * Does nothing when the page is on no LRU list (isolated by reclaim, or
 * not added yet) or already active.
 *
 * Mirrors mm/swap.c:activate_page().
 *
 * Context: any; takes zone->lru_lock.
 */
void activate_page(struct page *page)
{
	struct zone *zone = page_zone(page);

	spin_lock(&zone->lru_lock);
	if (PageLRU(page) && !PageActive(page)) {
		/* One list_move: PG_lru stays set throughout. */
		list_move(&page->lru, &zone->active_list);
		lru_count_add(&zone->nr_inactive, -1);
		lru_count_add(&zone->nr_active, 1);
		SetPageActive(page);
	}
	spin_unlock(&zone->lru_lock);
}
