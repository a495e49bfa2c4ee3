// SPDX-License-Identifier: MIT
/*
 * mem_map, the one zone, its free list and its LRU lists.
 *
 * There is no buddy allocator: the model allocates single pages, so the
 * zone keeps one free list. It is FIFO (pages given back go to the tail,
 * pages are taken from the head): a freed page stays free for as long as
 * possible, so a stale reference to it meets PG_buddy and count 0 (which
 * the audit and the inline checks see) rather than its next owner.
 *
 * In front of it, as in 2.6, each CPU (here: each task, pageset.h) keeps
 * a hot and a cold list of free pages, touched without zone->lock.
 * buffered_rmqueue() refills a list with a batch from the zone when it is
 * down to its low mark and takes the head; free_hot_cold_page() adds at
 * the head and, at its high mark, first gives a batch back from the tail.
 * zone->lock is taken only for those batches. The per-CPU lists are LIFO
 * (a page freed is the next one its task gets, still hot in its cache),
 * so a task's own stale reference may meet its own next page: the pages
 * reach the FIFO zone list, and other tasks, only a batch at a time.
 * Batch, low and high are 2.6.9's, from zone_batchsize(); at most
 * 6 + 2 batches stay with a task. rt_task_detach() drains a task's lists
 * (2.6's CPU_DEAD notifier), mem_exit() forgets them.
 *
 * New pages reach the LRU as in 2.6, through the task's pagevecs
 * (lru_cache_add()): sixteen at a time under one hold of lru_lock, each
 * with a reference the pagevec holds until then (docs/model.md,
 * "LRU pagevecs").
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
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "lockdep.h"
#include "pgtable.h"
#include "task.h"
#include "vmscan.h"

struct page *mem_map;
unsigned long max_mapnr;
struct page_frame *page_frames;
static void *page_frames_mem;	/* what page_frames was carved from */
struct zone contig_zone;

/* Statistics of exited tasks, and the folding of them: a harness mutex. */
static pthread_mutex_t zone_stats_lock = PTHREAD_MUTEX_INITIALIZER;
static struct zone_stats exited_zone_stats;	/* zone_stats_lock */

/* The task's own statistics: single writer, relaxed (pageset.h). */
static inline void zone_stat_inc(unsigned long *counter)
{
	__atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

/* zone->lock held; nr_free_pages() reads it without the lock. */
static inline void zone_set_free_pages(struct zone *zone, unsigned long v)
{
	__atomic_store_n(&zone->free_pages, v, __ATOMIC_RELAXED);
}

/*
 * About a thousandth of the zone, at most 256 KiB, a quarter of that
 * (low and high are multiples), at least 1. Mirrors 2.6.9's
 * free_area_init_core().
 */
static int zone_batchsize(unsigned long present_pages)
{
	unsigned long batch = present_pages / 1024;

	if (batch * PAGE_SIZE > 256 * 1024)
		batch = (256 * 1024) / PAGE_SIZE;
	batch /= 4;
	if (batch < 1)
		batch = 1;
	return (int)batch;
}

/* Name the pages' bit locks by their keys (lockdep_class_of(): TSan's reports). */
static void mem_map_note_locks(unsigned long nr_pages)
{
	static const struct { int bit, cls; } bit_locks[] = {
		{ PG_locked, LOCK_CLASS_PG_LOCKED },
		{ PG_chainlock, LOCK_CLASS_PG_CHAINLOCK },
		{ PG_maplock, LOCK_CLASS_PG_MAPLOCK },
	};
	struct lockdep_array_key keys[ARRAY_SIZE(bit_locks)];

	for (size_t i = 0; i < ARRAY_SIZE(bit_locks); i++)
		keys[i] = (struct lockdep_array_key){
			.offset = (size_t)((char *)page_lock_key(&mem_map[0], bit_locks[i].bit) -
					   (char *)&mem_map[0]),
			.class_id = bit_locks[i].cls,
		};
	/* Four slots, one mem_map at a time (-EBUSY above): never full. */
	BUG_ON(lockdep_register_lock_array(mem_map, nr_pages, sizeof(*mem_map), keys,
					   (int)ARRAY_SIZE(keys)));
}

/**
 * mem_init() - allocate mem_map of @nr_pages and put all but the zero page free
 * @nr_pages: pages of emulated memory, zero page included
 *
 * pfn 0 is the zero page: PG_reserved, count 1, never on the free list.
 * Every other page starts free (PG_buddy, count 0). The watermarks are
 * fractions of memory with a floor: pages_min = max(nr/128, 4),
 * pages_low = 2 * pages_min, pages_high = 3 * pages_min. The low hook is
 * cleared. The per-CPU batch is zone_batchsize()'s; each task sets up its
 * lists with it at its first allocation or free.
 *
 * Mirrors mm/page_alloc.c:free_area_init_core() and setup_per_zone_pages_min().
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
	zone->pcp_batch = zone_batchsize(nr_pages);

	mem_map = rt_calloc(nr_pages, sizeof(*mem_map));
	/* Zeroed lazily by calloc's fresh mappings: a line each, one more to align. */
	page_frames_mem = rt_calloc(nr_pages + 1, sizeof(*page_frames));
	page_frames = (struct page_frame *)(((uintptr_t)page_frames_mem + SMP_CACHE_BYTES - 1) &
					    ~(uintptr_t)(SMP_CACHE_BYTES - 1));
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
	mem_map_note_locks(nr_pages);
	return 0;
}

/* rt_task_for_each(): drop @t's per-CPU lists with mem_map. */
static void pageset_forget(struct task_struct *t, void *arg)
{
	(void)arg;
	for (int cold = 0; cold < 2; cold++) {
		struct per_cpu_pages *pcp = &t->pageset.pcp[cold];

		__atomic_store_n(&pcp->count, 0, __ATOMIC_RELAXED);
		pcp->batch = 0;
		INIT_LIST_HEAD(&pcp->list);
	}
	pagevec_init(&t->pageset.lru_add_pvecs, 0);
	pagevec_init(&t->pageset.lru_add_active_pvecs, 0);
}

/**
 * mem_exit() - release mem_map and reset the zone
 *
 * Pages still allocated are simply forgotten: the audit, not this
 * function, reports leaks. So are the pages on every task's per-CPU
 * lists and LRU-addition pagevecs: they are emptied, and the lists set
 * up again from the next zone.
 *
 * Context: after every thread that used the model has stopped.
 */
void mem_exit(void)
{
	rt_task_for_each(pageset_forget, NULL);
	if (mem_map) {
		/* TSan reports destroying a lock that is still held. */
		tsan_mutex_destroy(&contig_zone.lock, 0);
		tsan_mutex_destroy(&contig_zone.lru_lock, 0);
	}
	lockdep_unregister_lock_array(mem_map);
	free(mem_map);
	free(page_frames_mem);
	mem_map = NULL;
	page_frames = NULL;
	page_frames_mem = NULL;
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
	zone_stat_inc(&current->pageset.stats.nr_low_wakeups);
	fn(zone, READ_ONCE(zone->low_hook_arg));
}

/* ---- the per-CPU lists ---- */

/* The owner's count; relaxed, since nr_free_pages() reads it from afar. */
static inline void pcp_set_count(struct per_cpu_pages *pcp, int count)
{
	__atomic_store_n(&pcp->count, count, __ATOMIC_RELAXED);
}

/*
 * The calling task's hot (0) or cold (1) list, set up from @zone at its
 * first use: 2.6.9's free_area_init_core() did it for every CPU at boot.
 */
static struct per_cpu_pages *task_pcp(struct zone *zone, int cold)
{
	struct per_cpu_pageset *ps = &current->pageset;
	int batch = zone->pcp_batch;

	if (unlikely(!ps->pcp[0].batch)) {
		ps->pcp[0] = (struct per_cpu_pages){
			.low = 2 * batch, .high = 6 * batch, .batch = batch };
		ps->pcp[1] = (struct per_cpu_pages){
			.low = 0, .high = 2 * batch, .batch = batch };
		INIT_LIST_HEAD(&ps->pcp[0].list);
		INIT_LIST_HEAD(&ps->pcp[1].list);
	}
	return &ps->pcp[cold];
}

/* zone->lock held: the head of the free list, or NULL. Mirrors __rmqueue(). */
static struct page *__rmqueue(struct zone *zone)
{
	struct page *page;

	assert_spin_locked(&zone->lock);
	if (list_empty(&zone->free_list))
		return NULL;
	page = list_first_entry(&zone->free_list, struct page, lru);
	list_del(&page->lru);
	BUG_ON(zone->free_pages == 0);
	zone_set_free_pages(zone, zone->free_pages - 1);
	BUG_ON(__atomic_load_n(&page->flags, __ATOMIC_RELAXED) != page_flag_mask(PG_buddy));
	return page;
}

/*
 * Move up to @count pages from the head of the zone's free list to the
 * tail of @list, under zone->lock; they stay free (PG_buddy, count 0).
 * Return: how many. Mirrors mm/page_alloc.c:rmqueue_bulk() for order 0.
 */
static int rmqueue_bulk(struct zone *zone, int count, struct list_head *list)
{
	int allocated = 0;
	struct page *page;

	spin_lock(&zone->lock);
	while (allocated < count && (page = __rmqueue(zone)) != NULL) {
		list_add_tail(&page->lru, list);
		allocated++;
	}
	spin_unlock(&zone->lock);
	return allocated;
}

/*
 * Give up to @count pages from the tail of @list (the coldest) to the
 * tail of the zone's free list, under zone->lock. Return: how many.
 * Mirrors mm/page_alloc.c:free_pages_bulk() for order 0.
 */
static int free_pages_bulk(struct zone *zone, int count, struct list_head *list)
{
	int freed = 0;

	spin_lock(&zone->lock);
	while (freed < count && !list_empty(list)) {
		list_move_tail(list->prev, &zone->free_list);
		freed++;
	}
	zone_set_free_pages(zone, zone->free_pages + (unsigned long)freed);
	spin_unlock(&zone->lock);
	return freed;
}

/* The head of the owner's @pcp, or NULL when it is empty. */
static struct page *pcp_take(struct per_cpu_pages *pcp)
{
	struct page *page;

	if (!pcp->count)
		return NULL;
	page = list_first_entry(&pcp->list, struct page, lru);
	list_del(&page->lru);
	pcp_set_count(pcp, pcp->count - 1);
	return page;
}

/*
 * A free page for the calling task: the head of its hot or cold list,
 * refilled with a batch from the zone first when down to its low mark.
 * Mirrors mm/page_alloc.c:buffered_rmqueue() for order 0.
 *
 * Departure: when the zone has nothing left either, 2.6.9 failed even
 * with pages on the CPU's other list; the model takes the head of the
 * task's other list first. Test memories are a few hundred pages, where
 * a page just freed hot must serve a cold allocation ("one page back,
 * the fault succeeds"); later kernels reach the same by draining the
 * per-CPU lists when an allocation fails after direct reclaim
 * (drain_all_pages()).
 * Other tasks' lists stay out of reach: their owners use them unlocked.
 */
static struct page *buffered_rmqueue(struct zone *zone, gfp_t gfp)
{
	int cold = !!(gfp & __GFP_COLD);
	struct per_cpu_pages *pcp = task_pcp(zone, cold);
	struct page *page;

	if (pcp->count <= pcp->low)
		pcp_set_count(pcp, pcp->count +
			      rmqueue_bulk(zone, pcp->batch, &pcp->list));
	page = pcp_take(pcp);
	if (unlikely(!page)) {
		spin_lock(&zone->lock);
		page = __rmqueue(zone);
		spin_unlock(&zone->lock);
	}
	if (unlikely(!page))
		page = pcp_take(&current->pageset.pcp[!cold]);
	return page;
}

/**
 * page_alloc_task_exit() - give a task's per-CPU pages back to the zone
 * @t: the exiting task, which must be current
 *
 * Puts the task's queued LRU additions on the LRU (lru_add_drain(), 2.6's
 * lru_drain_cache() at CPU_DEAD), empties both lists, coldest first, to
 * the tail of the zone's free list under zone->lock, and folds the task's statistics into the exited
 * totals (so that zone_stats_read() counts them once).
 *
 * Mirrors mm/page_alloc.c:page_alloc_cpu_notify() (CPU_DEAD) and
 * __drain_pages().
 *
 * Context: rt_task_detach(); holds no emulated lock; takes zone->lru_lock,
 * then zone->lock.
 */
void page_alloc_task_exit(struct task_struct *t)
{
	struct per_cpu_pageset *ps = &t->pageset;
	struct zone_stats *s = &ps->stats;

	BUG_ON(t != current_task);
	/* Before the lists: a pagevec reference may be a page's last. */
	lru_add_drain();
	for (int cold = 0; cold < 2; cold++) {
		struct per_cpu_pages *pcp = &ps->pcp[cold];

		/* A count means a list set up from the live zone (mem_exit() forgets). */
		if (pcp->count)
			pcp_set_count(pcp, pcp->count -
				      free_pages_bulk(&contig_zone, pcp->count, &pcp->list));
		BUG_ON(pcp->count != 0);
	}
	RT_PTHREAD(pthread_mutex_lock(&zone_stats_lock));
	exited_zone_stats.nr_alloc += s->nr_alloc;
	exited_zone_stats.nr_alloc_fail += s->nr_alloc_fail;
	exited_zone_stats.nr_free += s->nr_free;
	exited_zone_stats.nr_low_wakeups += s->nr_low_wakeups;
	__atomic_store_n(&s->nr_alloc, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->nr_alloc_fail, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->nr_free, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->nr_low_wakeups, 0, __ATOMIC_RELAXED);
	RT_PTHREAD(pthread_mutex_unlock(&zone_stats_lock));
}

static void pcp_count_add(struct task_struct *t, void *arg)
{
	unsigned long *sum = arg;

	for (int cold = 0; cold < 2; cold++)
		*sum += (unsigned long)__atomic_load_n(&t->pageset.pcp[cold].count,
						       __ATOMIC_RELAXED);
}

unsigned long nr_free_pages(void)
{
	unsigned long sum = zone_free_pages(&contig_zone);

	rt_task_for_each(pcp_count_add, &sum);
	return sum;
}

static void zone_stats_add(struct task_struct *t, void *arg)
{
	const struct zone_stats *s = &t->pageset.stats;
	struct zone_stats *out = arg;

	out->nr_alloc += __atomic_load_n(&s->nr_alloc, __ATOMIC_RELAXED);
	out->nr_alloc_fail += __atomic_load_n(&s->nr_alloc_fail, __ATOMIC_RELAXED);
	out->nr_free += __atomic_load_n(&s->nr_free, __ATOMIC_RELAXED);
	out->nr_low_wakeups += __atomic_load_n(&s->nr_low_wakeups, __ATOMIC_RELAXED);
}

void zone_stats_read(struct zone *zone, struct zone_stats *out)
{
	(void)zone;	/* one zone: the statistics are the machine's */
	RT_PTHREAD(pthread_mutex_lock(&zone_stats_lock));
	*out = exited_zone_stats;
	rt_task_for_each(zone_stats_add, out);
	RT_PTHREAD(pthread_mutex_unlock(&zone_stats_lock));
}

/**
 * _alloc_page() - take a free page, count 1, flags clear
 * @gfp: GFP_KERNEL (may sleep: reported in atomic context) or GFP_ATOMIC;
 *	__GFP_ZERO is accepted and changes nothing; __GFP_COLD takes the
 *	page from the task's cold list
 * @file, @line: the caller's site, for the atomic-sleep report
 *
 * The page comes back with count 1, no flag set, as/index/pte/private
 * zeroed, off every list, and its data word 0: every new page reads as
 * zeroes, with or without __GFP_ZERO, so a stale data stamp never leaks
 * from one owner to the next. It comes from the task's per-CPU list,
 * refilled from the zone a batch at a time (buffered_rmqueue()). When the
 * zone's free list is below pages_low after the allocation, or no page
 * was left, the low hook runs (outside zone->lock) and nr_low_wakeups
 * counts it.
 *
 * Direct reclaim: when the zone's free pages are at or below pages_min,
 * an allocation that may sleep (__GFP_WAIT, not in atomic context) and is
 * not itself made by reclaim (PF_MEMALLOC) first wakes kswapd and then
 * reclaims a batch itself with try_to_free_pages(), holding whatever
 * its caller holds, and takes a page afterwards. GFP_ATOMIC allocations
 * (under a spinlock) and PF_MEMALLOC ones never reclaim: they dip below
 * the minimum, as 2.6's reserves let them. After one round of direct
 * reclaim the allocation takes whatever is left (2.6 would retry, and
 * at the end kill a process: the model fails with NULL instead, and the
 * caller takes the VM_FAULT_OOM path). Pages on other tasks' per-CPU
 * lists are not reachable, as in 2.6.9 (which drained no other CPU's).
 *
 * Mirrors mm/page_alloc.c:__alloc_pages() for order 0.
 *
 * Context: any when !__GFP_WAIT; process context with __GFP_WAIT (the
 * model reports the call in atomic context as the kernel's might_sleep()
 * does, and then does not reclaim). Takes zone->lock when the task's list
 * needs a refill; with __GFP_WAIT below pages_min, the locks of
 * try_to_free_pages().
 * Return: the page, or NULL when memory is exhausted (nr_alloc_fail).
 */
struct page *_alloc_page(gfp_t gfp, const char *file, int line)
{
	struct zone *zone = &contig_zone;
	struct page *page;
	bool may_reclaim = gfp & __GFP_WAIT;

	if ((gfp & __GFP_WAIT) && unlikely(in_atomic())) {
		_might_sleep("alloc_page(GFP_KERNEL)", file, line);
		may_reclaim = false;
	}
	if (may_reclaim && (current->flags & PF_MEMALLOC))
		may_reclaim = false;
	if (may_reclaim && zone_free_pages(zone) <= zone->pages_min) {
		wakeup_low_hook(zone);
		try_to_free_pages(zone, gfp);
	}

	page = buffered_rmqueue(zone, gfp);
	if (unlikely(!page)) {
		zone_stat_inc(&current->pageset.stats.nr_alloc_fail);
		wakeup_low_hook(zone);
		return NULL;
	}

	/* prep_new_page(): free until now, whichever list it came from. */
	BUG_ON(__atomic_load_n(&page->flags, __ATOMIC_RELAXED) != page_flag_mask(PG_buddy));
	BUG_ON(page_count(page) != 0);
	__atomic_store_n(&page->flags, 0UL, __ATOMIC_RELAXED);
	page->as.mapping = NULL;
	page->index = 0;
	page->pte.chain = NULL;
	page->private = 0;
	page_data_write(page, 0);
	/*
	 * The page is ours alone: zone->lock, or our own earlier free,
	 * ordered its free before this. The caller publishes it under its
	 * own locks.
	 */
	__atomic_store_n(&page->count, 1, __ATOMIC_RELAXED);
	zone_stat_inc(&current->pageset.stats.nr_alloc);

	if (zone_free_pages(zone) < zone->pages_low)
		wakeup_low_hook(zone);
	return page;
}

/*
 * BUGs on what 2.6's free_pages_check() calls a bad page; see
 * __free_page(). Then the page is free: PG_buddy alone.
 */
static void free_pages_check(struct page *page)
{
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
	__atomic_store_n(&page->flags, page_flag_mask(PG_buddy), __ATOMIC_RELAXED);
}

/*
 * Free onto the calling task's hot or cold list, giving a batch back to
 * the zone first when the list is at its high mark.
 * Mirrors mm/page_alloc.c:free_hot_cold_page().
 */
static void free_hot_cold_page(struct page *page, int cold)
{
	struct zone *zone = page_zone(page);
	struct per_cpu_pages *pcp;
	int count;

	free_pages_check(page);
	pcp = task_pcp(zone, cold);
	count = pcp->count;
	if (count >= pcp->high)
		count -= free_pages_bulk(zone, pcp->batch, &pcp->list);
	list_add(&page->lru, &pcp->list);
	pcp_set_count(pcp, count + 1);
	zone_stat_inc(&current->pageset.stats.nr_free);
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
 * PG_buddy alone and the page goes to the head of the task's hot list.
 *
 * Mirrors mm/page_alloc.c:free_hot_page().
 *
 * Context: any; takes zone->lock when the list is at its high mark.
 */
void __free_page(struct page *page)
{
	free_hot_cold_page(page, 0);
}

/**
 * free_cold_page() - __free_page() onto the task's cold list
 * @page: the page; the caller's reference was the last
 *
 * Mirrors mm/page_alloc.c:free_cold_page().
 *
 * Context: any; takes zone->lock when the list is at its high mark.
 */
void free_cold_page(struct page *page)
{
	free_hot_cold_page(page, 1);
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

/*
 * One hold of lru_lock for the whole pagevec, then the pagevec's
 * references go (one of them may be a page's last: release_pages()).
 */
static void pagevec_lru_add(struct pagevec *pvec, bool active)
{
	struct zone *zone = NULL;

	for (unsigned int i = 0; i < pagevec_count(pvec); i++) {
		struct page *page = pvec->pages[i];
		struct zone *pagezone = page_zone(page);

		if (pagezone != zone) {
			if (zone)
				spin_unlock(&zone->lru_lock);
			zone = pagezone;
			spin_lock(&zone->lru_lock);
		}
		BUG_ON(PageLRU(page));	/* 2.6: if (TestSetPageLRU(page)) BUG(); */
		if (active)
			add_page_to_active_list(zone, page);
		else
			add_page_to_inactive_list(zone, page);
	}
	if (zone)
		spin_unlock(&zone->lru_lock);
	release_pages(pvec->pages, (int)pagevec_count(pvec), pvec->cold);
	pagevec_reinit(pvec);
}

void __pagevec_lru_add(struct pagevec *pvec)
{
	pagevec_lru_add(pvec, false);
}

void __pagevec_lru_add_active(struct pagevec *pvec)
{
	pagevec_lru_add(pvec, true);
}

void __pagevec_free(struct pagevec *pvec)
{
	for (unsigned int i = 0; i < pagevec_count(pvec); i++)
		free_hot_cold_page(pvec->pages[i], pvec->cold);
	pagevec_reinit(pvec);
}

/* lru_cache_add() and lru_cache_add_active(): the pagevec's own reference. */
static void lru_cache_add_pvec(struct page *page, bool active)
{
	struct per_cpu_pageset *ps = &current->pageset;
	struct pagevec *pvec = active ? &ps->lru_add_active_pvecs : &ps->lru_add_pvecs;

	BUG_ON(page_count(page) <= 0);
	BUG_ON(PageReserved(page));
	BUG_ON(PageLRU(page));
	get_page(page);		/* page_cache_get(): the pagevec's */
	if (!pagevec_add(pvec, page))
		pagevec_lru_add(pvec, active);
}

void lru_cache_add(struct page *page)
{
	lru_cache_add_pvec(page, false);
}

void lru_cache_add_active(struct page *page)
{
	lru_cache_add_pvec(page, true);
}

void lru_add_drain(void)
{
	struct per_cpu_pageset *ps = &current->pageset;

	if (pagevec_count(&ps->lru_add_pvecs))
		__pagevec_lru_add(&ps->lru_add_pvecs);
	if (pagevec_count(&ps->lru_add_active_pvecs))
		__pagevec_lru_add_active(&ps->lru_add_active_pvecs);
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
