// SPDX-License-Identifier: MIT
/*
 * Reclaim: the inactive-list scan of kswapd. Mirrors mm/vmscan.c of
 * 2.6.3 (shrink_zone, shrink_cache, shrink_list, refill_inactive_zone)
 * with seed 001's objrmap: page_referenced() and try_to_unmap() go
 * through the selected rmap design, whose failed trylocks count as
 * "referenced" or SWAP_AGAIN.
 *
 * The flow:
 *
 *   shrink_zone()
 *     refill_inactive_zone()   when the inactive list is short: isolate a
 *                              batch off the active tail, ask the rmap
 *                              whether each page was referenced, put the
 *                              referenced back on the active list and the
 *                              rest on the inactive list
 *     isolate a batch off the inactive tail, then for each page:
 *     shrink_page()            the body of shrink_list() for one page:
 *       TestSetPageLocked        a locked page is left for the next round
 *       page_referenced          referenced and mapped: activate
 *       add_to_swap              anonymous memory gets a slot first
 *       try_to_unmap             SWAP_FAIL: activate; SWAP_AGAIN: keep
 *       writeback                dirty pages are written (synchronously)
 *       remove from the cache    only when nobody else holds the page
 *       free                     our isolation reference is the last
 *
 * Isolation takes a reference with get_page_unless_zero() under
 * lru_lock: a page whose count is already 0 is inside its last
 * put_page(), which waits for lru_lock to take it off the list, and is
 * left there. The LRU holds no reference (page_alloc.h), so the
 * isolation reference is what keeps an isolated page alive; it is
 * dropped with put_page() only after lru_lock is released, since the
 * last put_page() takes lru_lock itself.
 *
 * Locks, in the documented order (core/lockdep.c): reclaim takes the
 * page lock only with a trylock (2.6's TestSetPageLocked), then the
 * page's rmap lock (rmap_lock()), inside which the rmap ops only *try*
 * i_shared_sem and page_table_lock. lru_lock is a leaf: it is taken with
 * the page lock (and possibly the rmap lock) held, never the other way
 * round. swap_lock and tree_lock are taken with the page lock alone
 * (PG_maplock, the anonvma rmap lock, has neither below it).
 *
 * The model differs from 2.6.3 where noted: pages are handled one at a
 * time (shrink_page()) rather than as a pagevec list; I/O is synchronous;
 * refill_inactive_zone() always reclaims mapped pages (no swap_tendency);
 * a clean page-cache page is removed with its count frozen (the
 * later kernels' remove_mapping()/page_freeze_refs()), because the
 * model's find_get_page() is lock-free.
 */
#include "cover.h"
#include "vmscan.h"

#include <stddef.h>

#include "bug.h"
#include "fs.h"
#include "list.h"
#include "page.h"
#include "page_alloc.h"
#include "percpu.h"
#include "perturb.h"
#include "rcu.h"
#include "rmap.h"
#include "spinlock.h"
#include "swap.h"
#include "task.h"

/* Pages isolated per lru_lock round trip, as 2.6's SWAP_CLUSTER_MAX. */
#define SWAP_CLUSTER_MAX	32UL

/*
 * The counters of struct reclaim_stats, field by field, are per-task
 * counters (percpu.h) from PCPU_RECLAIM on: the reclaiming task counts
 * in its own lines.
 */
#define NR_RECLAIM_STATS	(sizeof(struct reclaim_stats) / sizeof(unsigned long))
_Static_assert(NR_RECLAIM_STATS <= RT_PCPU_RECLAIM_STATS, "percpu.h: RT_PCPU_RECLAIM_STATS");
#define stat_add(field, n)						\
	rt_pcpu_mod(PCPU_RECLAIM +					\
		    offsetof(struct reclaim_stats, field) / sizeof(unsigned long), (long)(n))
#define stat_inc(field)	stat_add(field, 1)

/**
 * reclaim_stats_read() - a snapshot of the reclaim counters
 * @out: filled with the counters (each read on its own: exact only when
 *	reclaim is quiescent)
 *
 * Context: takes the task list lock.
 */
void reclaim_stats_read(struct reclaim_stats *out)
{
	unsigned long *field = (unsigned long *)out;

	for (size_t i = 0; i < NR_RECLAIM_STATS; i++)
		field[i] = (unsigned long)rt_pcpu_sum(PCPU_RECLAIM + (int)i);
}

/**
 * reclaim_stats_reset() - zero the reclaim counters
 *
 * Context: takes the task list lock; an increment racing the reset may
 * land either side of it.
 */
void reclaim_stats_reset(void)
{
	rt_pcpu_reset(PCPU_RECLAIM, (int)NR_RECLAIM_STATS);
}

/*
 * Anonymous memory: PG_anon and not in a page cache. objfile's
 * page_convert_anon() (seed 001) sets PG_anon on nonlinearly mapped file
 * pages and leaves them in their file's cache with as.mapping set: those
 * are file pages (page_in_file_cache()), reclaimed as such: unmapped
 * through their pte_chain, written back to the file, dropped from its
 * cache.
 */
static bool page_is_anon_memory(const struct page *page)
{
	return !page_in_file_cache(page);
}

/*
 * Put an isolated page back on the active or inactive list, then drop
 * the isolation reference (outside lru_lock: the last put_page() takes
 * it). Mirrors the keep/activate tails of shrink_list() and the
 * putback loop of shrink_cache().
 */
static void putback_page(struct page *page, bool active)
{
	struct zone *zone = page_zone(page);

	spin_lock(&zone->lru_lock);
	BUG_ON(PageLRU(page));
	if (active)
		add_page_to_active_list(zone, page);
	else
		add_page_to_inactive_list(zone, page);
	spin_unlock(&zone->lru_lock);
	put_page(page);
}

/*
 * Take a clean, unmapped page out of its file's page cache if nobody but
 * us and the cache holds it. Under tree_lock: the slot still holds the
 * page, the count goes from 2 (ours and the cache's) to 0 in one
 * compare-and-swap, so a lock-free find_get_page() either got its
 * reference first (the swap fails: busy) or meets count 0 and retries
 * until the slot is empty; tree_lock keeps truncate's locked lookup
 * (get_page() under tree_lock) from seeing the frozen count. Then, and
 * only then, PG_dirty must be clear (else the count is put back: busy).
 * The slot is then cleared as __remove_from_page_cache() does, and the
 * count set to 1: our reference, the cache's being gone with the slot.
 *
 * The order is 2.6's ("It is critical to check PageDirty _after_ making
 * sure that the page is freeable and not in use by anybody"): whoever
 * still holds a reference may dirty the page before dropping it. A zap's
 * mmu_gather does exactly that: the pte and its rmap are gone at once,
 * but the pte's dirty bit reaches the page only after the TLB flush,
 * just before the gather's put_page() (memory.c: tlb_flush_mmu()). Dirty
 * first and freeze second let such a page go clean between the two, and
 * the store behind the dirty bit was lost with it (a later fault read
 * the stale backing store).
 *
 * Mirrors the tree_lock section of mm/vmscan.c:shrink_list() of 2.6.3
 * ("page_count(page) != 2 || PageDirty(page)", __remove_from_page_cache)
 * with the speculative page cache's page_freeze_refs()/
 * page_unfreeze_refs() of later kernels (__remove_mapping()).
 *
 * Context: page locked; takes tree_lock.
 * Return: true when removed (the caller's reference is then the only one).
 */
static bool remove_mapping(struct address_space *mapping, struct page *page)
{
	unsigned long index = READ_ONCE(page->index);
	bool removed = false;
	int expected = 2;

	BUG_ON(!PageLocked(page));
	BUG_ON(index >= mapping->max_pages);

	spin_lock(&mapping->tree_lock);
	if (rcu_dereference_protected(mapping->page_tree[index],
				      spin_is_locked(&mapping->tree_lock)) != page)
		goto out_unlock;
	/*
	 * The freeze. Acquire pairs with the release of every earlier
	 * put_page(): the references dropped before are done with the page,
	 * and a PG_dirty set before such a drop is seen below.
	 */
	if (!__atomic_compare_exchange_n(&page->count, &expected, 0, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		goto out_unlock;
	/* A reference dropped just before the freeze may have dirtied it. */
	if (PageDirty(page)) {
		/* page_unfreeze_refs(): nobody could take one meanwhile. */
		__atomic_store_n(&page->count, 2, __ATOMIC_RELEASE);
		goto out_unlock;
	}
	__remove_from_page_cache(page);
	/*
	 * Unfreeze to our reference alone. Release pairs with the acquire of
	 * get_page_unless_zero()/put_page(): nobody can take a reference
	 * now (the page is in no cache, no pte, no LRU), but the store
	 * publishes the cleared fields to whoever frees it.
	 */
	__atomic_store_n(&page->count, 1, __ATOMIC_RELEASE);
	removed = true;
out_unlock:
	spin_unlock(&mapping->tree_lock);
	return removed;
}

/**
 * shrink_page() - reclaim one isolated page, as shrink_list() does for
 * each page of its list
 * @page: a page off every LRU list, with a reference the caller gives
 *	up to this function (the isolation reference)
 *
 * Locks the page (a failed trylock is the shrink_list:PG_locked
 * fallback: the page goes back to the inactive list), asks the rmap
 * whether it was referenced (activated if so and mapped), gives
 * anonymous memory a swap slot, unmaps it (SWAP_FAIL: activate;
 * SWAP_AGAIN: back to the inactive list), writes a dirty page back
 * (swap slot or file backing store, synchronously), then removes it from
 * the swap cache or page cache if nobody else holds it, and frees it
 * with the isolation reference. A page kept is put back on an LRU list
 * and the isolation reference dropped.
 *
 * Mirrors the loop body of mm/vmscan.c:shrink_list() of 2.6.3, with
 * seed 001's objrmap (page_mapped() is the design's).
 *
 * Context: may sleep; no lock held. Takes the page lock (trylock), the
 * page's rmap lock, and inside it the rmap ops' trylocks; swap_lock,
 * tree_lock and lru_lock with the page lock held.
 * Return: true when the page was freed.
 */
bool shrink_page(struct page *page)
{
	struct address_space *mapping;
	bool anon, mapped;
	int referenced = 0;

	BUG_ON(PageLRU(page));
	BUG_ON(page_count(page) <= 0);

	if (TestSetPageLocked(page)) {
		rmap_fallback(FB_SHRINK_LIST_PAGE_LOCKED);
		stat_inc(locked_skip);
		putback_page(page, false);
		return false;
	}
	yield_point_on("shrink_page:locked", page, COVER_PAGE);

	rmap_lock(page);
	mapped = rmap->page_mapped(page);
	/* A failed trylock inside counts as referenced (seed 001). */
	if (mapped) {
		stat_inc(mapped_scanned);
		referenced = rmap->page_referenced(page);
	}
	if (TestClearPageReferenced(page))
		referenced++;
	if (referenced && mapped) {
		rmap_unlock(page);
		stat_inc(referenced);
		goto activate_locked;
	}

	anon = page_is_anon_memory(page);

	/*
	 * Anonymous memory without backing store: give it a swap slot.
	 * 2.6.3 drops the chain lock around add_to_swap(); it must here,
	 * since PG_maplock has neither swap_lock nor tree_lock below it.
	 * An unmapped anonymous page is on its way out (zap_page_range()
	 * or exit dropped its ptes): 2.6.3 keeps it ("!mapping") and lets
	 * its last reference free it.
	 */
	if (anon && !PageSwapCache(page)) {
		rmap_unlock(page);
		if (!mapped)
			goto keep_locked;
		if (!add_to_swap(page)) {
			stat_inc(swap_full);
			goto activate_locked;
		}
		rmap_lock(page);
		mapped = rmap->page_mapped(page);
	}

	/*
	 * page_referenced() let go of i_shared_sem and page_table_lock:
	 * mmap, munmap and truncate may take them before try_to_unmap()
	 * tries again (its i_shared_sem fallback).
	 */
	yield_point_on("shrink_page:referenced", page, COVER_PAGE);
	if (mapped) {
		stat_inc(unmap_tried);
		switch (rmap->try_to_unmap(page)) {
		case SWAP_FAIL:
			rmap_unlock(page);
			stat_inc(unmap_fail);
			goto activate_locked;
		case SWAP_AGAIN:
			rmap_unlock(page);
			stat_inc(unmap_again);
			goto keep_locked;
		case SWAP_SUCCESS:
			break;
		default:
			BUG();
		}
	}
	rmap_unlock(page);
	yield_point_on("shrink_page:unmapped", page, COVER_PAGE);

	if (PageSwapCache(page)) {
		/* The model's I/O is synchronous: written when this returns. */
		if (PageDirty(page))
			swap_writepage(page);
		/*
		 * Ours and the swap cache's references only, and no pte: a
		 * swap-in fault that found the page in the cache holds one
		 * more (it is mapped again only under the page lock, which
		 * we hold). A lookup_swap_cache() that takes its reference
		 * between this check and delete_from_swap_cache() is safe:
		 * do_swap_page() re-checks PageSwapCache under the page lock
		 * and retries; its reference, not ours, then frees the page.
		 * The count before PG_dirty, and with acquire (pairing with
		 * put_page()'s release), as remove_mapping() freezes before
		 * it looks: a zap's mmu_gather dirties the page only after
		 * its rmap is gone, just before it drops its reference.
		 */
		rmap_lock(page);
		mapped = rmap->page_mapped(page);
		rmap_unlock(page);
		if (mapped || __atomic_load_n(&page->count, __ATOMIC_ACQUIRE) != 2 ||
		    PageDirty(page)) {
			stat_inc(busy);
			goto activate_locked;
		}
		delete_from_swap_cache(page);
		stat_inc(swapped_out);
		goto free_it;
	}

	mapping = READ_ONCE(page->as.mapping);
	if (anon || !mapping) {
		/* Truncate got there first: the last reference frees it. */
		goto keep_locked;
	}
	if (PageDirty(page)) {
		writeback_page(page);
		stat_inc(file_written);
	}
	if (!remove_mapping(mapping, page)) {
		stat_inc(busy);
		goto activate_locked;
	}
	stat_inc(file_dropped);

free_it:
	unlock_page(page);
	put_page_cold(page);	/* the isolation reference: the last one; cold as 2.6's freed_pvec */
	stat_inc(freed);
	return true;

activate_locked:
	unlock_page(page);
	putback_page(page, true);
	return false;

keep_locked:
	unlock_page(page);
	putback_page(page, false);
	return false;
}

/*
 * Isolate up to @max pages from the tail of @list (the zone's active or
 * inactive list) into @batch, each with a reference, scanning at most
 * @max pages. A page whose count is 0 is in its last put_page(), which
 * takes it off the list once it gets lru_lock: it goes to the head so
 * that the scan moves on. Mirrors the isolation loops of 2.6.3's
 * shrink_cache() and refill_inactive_zone().
 * Context: takes lru_lock. Return: the number of pages isolated.
 */
static unsigned long isolate_lru_pages(struct zone *zone, struct list_head *list,
				       struct page **batch, unsigned long max)
{
	unsigned long scanned = 0, taken = 0;

	spin_lock(&zone->lru_lock);
	while (scanned < max && !list_empty(list)) {
		struct page *page = list_last_entry(list, struct page, lru);

		scanned++;
		BUG_ON(!PageLRU(page));
		if (!get_page_unless_zero(page)) {
			list_move(&page->lru, list);
			continue;
		}
		del_page_from_lru(zone, page);
		batch[taken++] = page;
	}
	spin_unlock(&zone->lru_lock);
	return taken;
}

/*
 * Whether an isolated active page stays active: mapped and referenced
 * since the last look (a failed trylock in the rmap counts as
 * referenced), or anonymous memory when there is no swap to write it to.
 *
 * No page lock: 2.6.3's refill_inactive_zone() asked page_referenced()
 * under pte_chain_lock() alone, seed 001 and 2.6.8 under their rmap bit
 * lock alone (the page lock came with 2.6.9, and only for file pages,
 * as a trylock). Nothing the rmap reads here needs it: mapcount, the
 * pte_chain, PG_anon/PG_direct and page->as are the rmap lock's, a
 * mapped page keeps its index, objrmap's page->as.mapping is read once
 * and only i_shared_sem (tried) guards its vma lists, and young bits
 * are cleared atomically. The anonvma design answers without its rmap
 * lock held across the walk, as 2.6.9 did
 * (rmap_ops.page_referenced_unlocked); the others under it.
 *
 * Context: no lock held; takes the page's rmap lock.
 */
static bool page_stays_active(struct page *page)
{
	bool active, anon;

	if (rmap->page_referenced_unlocked) {
		active = rmap->page_referenced_unlocked(page) > 0;
		/* page_in_file_cache() reads only PG_anon outside objfile. */
		anon = page_is_anon_memory(page);
	} else {
		rmap_lock(page);
		active = rmap->page_mapped(page) && rmap->page_referenced(page);
		anon = page_is_anon_memory(page);
		rmap_unlock(page);
	}
	if (!active && nr_swap_slots() == 0 && anon)
		active = true;
	return active;
}

/*
 * Move up to @nr_pages pages from the tail of the active list: the
 * referenced ones back to its head, the others to the inactive list.
 * Mirrors mm/vmscan.c:refill_inactive_zone() of 2.6.3, with reclaim_mapped
 * always set (the model has no swap_tendency).
 * Context: may sleep; no lock held.
 */
static void refill_inactive_zone(struct zone *zone, unsigned long nr_pages)
{
	struct page *batch[SWAP_CLUSTER_MAX];
	bool active[SWAP_CLUSTER_MAX];

	while (nr_pages) {
		unsigned long want = nr_pages < SWAP_CLUSTER_MAX ? nr_pages : SWAP_CLUSTER_MAX;
		unsigned long n, refilled = 0;

		n = isolate_lru_pages(zone, &zone->active_list, batch, want);
		nr_pages -= want;
		if (!n)
			break;
		for (unsigned long i = 0; i < n; i++)
			active[i] = page_stays_active(batch[i]);

		spin_lock(&zone->lru_lock);
		for (unsigned long i = 0; i < n; i++) {
			if (active[i]) {
				add_page_to_active_list(zone, batch[i]);
			} else {
				add_page_to_inactive_list(zone, batch[i]);
				refilled++;
			}
		}
		spin_unlock(&zone->lru_lock);
		stat_add(refilled, refilled);

		/* Outside lru_lock: a last put_page() takes it. */
		for (unsigned long i = 0; i < n; i++)
			put_page(batch[i]);
	}
}

/**
 * shrink_zone() - scan up to @nr_to_scan pages of the inactive list,
 * refilling it from the active list first when it runs short
 * @zone: the zone
 * @nr_to_scan: inactive pages to look at
 *
 * The inactive list is short when it holds fewer than @nr_to_scan pages
 * or less than a third of the LRU; refill_inactive_zone() then moves up
 * to @nr_to_scan pages from the active list. The inactive tail is then
 * isolated in batches of SWAP_CLUSTER_MAX and each page handed to
 * shrink_page().
 *
 * Mirrors mm/vmscan.c:shrink_zone() and shrink_cache() of 2.6.3.
 *
 * Context: may sleep; no lock held; the calling thread is attached
 * (rt_task_attach()). Takes lru_lock, and the locks of shrink_page().
 * Return: the number of pages freed.
 */
unsigned long shrink_zone(struct zone *zone, unsigned long nr_to_scan)
{
	struct page *batch[SWAP_CLUSTER_MAX];
	unsigned long nr_active = READ_ONCE(zone->nr_active);
	unsigned long nr_inactive = READ_ONCE(zone->nr_inactive);
	unsigned long freed = 0;

	/* shrink_cache()'s: this task's queued pages become reclaimable. */
	lru_add_drain();
	if (nr_inactive < nr_to_scan || 3 * nr_inactive < nr_active + nr_inactive)
		refill_inactive_zone(zone, nr_to_scan);

	while (nr_to_scan) {
		unsigned long want = nr_to_scan < SWAP_CLUSTER_MAX ? nr_to_scan : SWAP_CLUSTER_MAX;
		unsigned long n;

		n = isolate_lru_pages(zone, &zone->inactive_list, batch, want);
		nr_to_scan -= want;
		if (!n)
			break;
		stat_add(scanned, n);
		for (unsigned long i = 0; i < n; i++)
			freed += shrink_page(batch[i]);
	}
	return freed;
}

/* 2.6's DEF_PRIORITY: the first pass scans nr_inactive >> 12 pages. */
#define DEF_PRIORITY	12

/**
 * try_to_free_pages() - direct reclaim by the allocating task
 * @zone: the zone below its minimum watermark
 * @gfp: the allocation's flags; must include __GFP_WAIT
 *
 * Scans the zone with rising priority (nr_inactive >> priority pages, at
 * least SWAP_CLUSTER_MAX) until SWAP_CLUSTER_MAX pages are freed or the
 * priorities run out. The task is PF_MEMALLOC meanwhile, so allocations
 * made inside reclaim do not recurse into it. Nothing the caller holds
 * is dropped: its mmap_sem, page lock or i_shared_sem stay held across
 * the scan, and reclaim's trylocks against them simply fail (and are
 * counted at their fallback sites), as on a loaded 2.6 machine. lockdep
 * and the atomic-context check see every lock reclaim takes, on top of
 * the caller's.
 *
 * Mirrors mm/vmscan.c:try_to_free_pages() of 2.6.3 (one zone; no
 * slab shrinking, no congestion wait, no OOM kill: the allocator takes
 * whatever is left, or fails with the VM_FAULT_OOM path).
 *
 * Context: may sleep; no spinlock held; not PF_MEMALLOC. Takes the
 * locks of shrink_zone() on top of whatever the caller holds.
 * Return: the number of pages freed.
 */
unsigned long try_to_free_pages(struct zone *zone, gfp_t gfp)
{
	struct task_struct *tsk = current;
	unsigned long freed = 0;

	BUG_ON(!(gfp & __GFP_WAIT));
	BUG_ON(tsk->flags & PF_MEMALLOC);
	BUG_ON(in_atomic());
	tsk->flags |= PF_MEMALLOC;
	stat_inc(direct_calls);
	for (int priority = DEF_PRIORITY; priority >= 0 && freed < SWAP_CLUSTER_MAX; priority--) {
		unsigned long scan = READ_ONCE(zone->nr_inactive) >> priority;

		if (scan < SWAP_CLUSTER_MAX)
			scan = SWAP_CLUSTER_MAX;
		freed += shrink_zone(zone, scan);
	}
	tsk->flags &= ~PF_MEMALLOC;
	stat_add(direct_freed, freed);
	return freed;
}
