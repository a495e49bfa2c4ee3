/* SPDX-License-Identifier: MIT */
/*
 * mem_map and the one zone: a free list under zone->lock, each task's
 * hot and cold per-CPU page lists in front of it (pageset.h), active and
 * inactive LRU lists under zone->lru_lock, watermarks, and a hook that
 * wakes reclaim when free memory falls below pages_low. Allocation fails
 * cleanly (NULL) when memory is exhausted: the caller takes the OOM path.
 * Mirrors mm/page_alloc.c and mm/swap.c of 2.6.
 *
 * What "free" means. A page on a per-CPU list is free to every check
 * (PG_buddy, count 0), but zone->free_pages counts the zone's free list
 * only, as 2.6's did. The watermarks see zone_free_pages(), as 2.6's
 * __alloc_pages() and kswapd did: the direct-reclaim check against
 * pages_min, the low hook below pages_low, kswapd's pages_high. The
 * model departs from 2.6 in nr_free_pages(): 2.6 summed zone->free_pages
 * alone; the model adds every task's per-CPU lists, so that a leak check
 * or a test's exact figure ("every page is free again") does not depend
 * on how many pages the tasks happen to hold in their lists. It is exact
 * only when the tasks that allocate are quiescent.
 */
#ifndef RT_CORE_PAGE_ALLOC_H
#define RT_CORE_PAGE_ALLOC_H

#include <stdbool.h>
#include <stdint.h>

#include "list.h"
#include "page.h"
#include "pageset.h"
#include "spinlock.h"

typedef unsigned int gfp_t;
#define __GFP_WAIT	0x1u	/* may sleep: reported in atomic context */
#define __GFP_ZERO	0x2u	/* data word starts at 0 */
#define __GFP_COLD	0x4u	/* from the cold per-CPU list (page_cache_alloc_cold()) */
#define GFP_ATOMIC	0u
#define GFP_KERNEL	__GFP_WAIT

struct task_struct;
struct zone;
typedef void (*zone_low_hook_fn)(struct zone *zone, void *arg);

struct zone {
	spinlock_t lock;
	struct list_head free_list;	/* zone->lock */
	unsigned long free_pages;	/* zone->lock; READ_ONCE for watermarks */
	int pcp_batch;			/* set at init: zone_batchsize() */

	unsigned long pages_min, pages_low, pages_high;	/* set at init */

	spinlock_t lru_lock;
	struct list_head active_list;	/* lru_lock */
	struct list_head inactive_list;	/* lru_lock */
	unsigned long nr_active;	/* lru_lock */
	unsigned long nr_inactive;	/* lru_lock */

	zone_low_hook_fn low_hook;	/* set before threads start */
	void *low_hook_arg;
	/* Statistics are per task: task->pageset.stats, zone_stats_read(). */
};

extern struct page *mem_map;		/* set by mem_init(), read-only after */
extern unsigned long max_mapnr;		/* pages in mem_map */
extern struct zone contig_zone;		/* the one zone */

/* pfn 0 is the zero page: reserved, never allocated, never freed. */
#define ZERO_PAGE_PFN	0UL

static inline unsigned long page_to_pfn(const struct page *page)
{
	return (unsigned long)(page - mem_map);
}

static inline struct page *pfn_to_page(unsigned long pfn)
{
	return mem_map + pfn;
}

static inline bool pfn_valid(unsigned long pfn)
{
	return pfn < max_mapnr;
}

static inline struct page *ZERO_PAGE(void)
{
	return pfn_to_page(ZERO_PAGE_PFN);
}

/* The zone a page belongs to: there is one. */
static inline struct zone *page_zone(const struct page *page)
{
	(void)page;
	return &contig_zone;
}

#define MEM_MIN_PAGES	16UL
#define MEM_MAX_PAGES	(1UL << 26)

/**
 * mem_init() - allocate mem_map of @nr_pages and put all but the zero page free
 * Return: 0, or -EINVAL when @nr_pages is outside [MEM_MIN_PAGES, MEM_MAX_PAGES],
 * or -EBUSY when mem_map is already set up (mem_exit() first).
 * Context: before any thread uses the model.
 */
int mem_init(unsigned long nr_pages);
/* Release mem_map. Context: after every thread has stopped. */
void mem_exit(void);

void zone_set_low_hook(struct zone *zone, zone_low_hook_fn fn, void *arg);

/**
 * alloc_page() - take a free page, count 1, flags clear
 * @gfp: GFP_KERNEL (may sleep: reported in atomic context) or GFP_ATOMIC
 *
 * Wakes the low-watermark hook when free pages drop below pages_low.
 *
 * Context: takes zone->lock.
 * Return: the page, or NULL when memory is exhausted.
 */
#define alloc_page(gfp) _alloc_page((gfp), __FILE__, __LINE__)
struct page *_alloc_page(gfp_t gfp, const char *file, int line);

/*
 * Free a page whose count has dropped to 0 (the last put_page) onto the
 * task's hot list; free_cold_page() onto its cold list (pages reclaim
 * freed, as 2.6's shrink_list() did with its cold pagevec).
 */
void __free_page(struct page *page);
void free_cold_page(struct page *page);

/* The zone's free list alone: what the watermarks see. Racy read. */
static inline unsigned long zone_free_pages(const struct zone *zone)
{
	return __atomic_load_n(&zone->free_pages, __ATOMIC_RELAXED);
}

/**
 * nr_free_pages() - free pages: the zone's free list and every task's lists
 *
 * Departs from 2.6, which counted the zone alone (see the top of this
 * file). Not for hot paths: it walks the task list.
 *
 * Context: any; takes the task list lock (a harness mutex).
 * Return: the count; exact when the allocating tasks are quiescent.
 */
unsigned long nr_free_pages(void);

/**
 * zone_stats_read() - the allocator's statistics, folded over every task
 * @zone: the zone
 * @out: filled with the totals of live and exited tasks
 *
 * Mirrors mm/page_alloc.c:get_page_state() summing per-CPU page_states.
 *
 * Context: any; takes harness mutexes only.
 */
void zone_stats_read(struct zone *zone, struct zone_stats *out);

/**
 * page_alloc_task_exit() - give a task's per-CPU pages back to the zone
 * @t: the exiting task, which must be current
 *
 * Empties both lists into the zone's free list under zone->lock and folds
 * the task's statistics into the exited totals.
 *
 * Mirrors mm/page_alloc.c:page_alloc_cpu_notify() (CPU_DEAD) and
 * __drain_pages().
 *
 * Context: rt_task_detach(); holds no emulated lock; takes zone->lock.
 */
void page_alloc_task_exit(struct task_struct *t);

/* ---- LRU: mirrors mm/swap.c ---- */

/*
 * The LRU lists hold no reference of their own (a pagevec on the way to
 * them does: lru_cache_add()): put_page() of the last
 * reference takes the page off its list under lru_lock, then frees it.
 * The list helpers keep PG_lru and PG_active in step with the list the
 * page is on (add sets PG_lru, del clears it), so the 2.6 idiom of
 * TestSetPageLRU/TestClearPageLRU around them still works.
 */

/**
 * get_page_unless_zero() - take a reference unless the count is already 0
 * @page: a page found without holding a reference (on an LRU list)
 *
 * For reclaim scanners under lru_lock: a page whose count has dropped to
 * 0 is on its way to __free_page() (its put_page() waits for lru_lock to
 * take it off the list), and must be left alone. get_page() BUGs there.
 *
 * Context: any; normally under zone->lru_lock.
 * Return: true when the caller now holds a reference.
 */
static inline bool get_page_unless_zero(struct page *page)
{
	int old = __atomic_load_n(&page->count, __ATOMIC_RELAXED);

	do {
		if (old <= 0)
			return false;
		/* Acquire pairs with the release in put_page(). */
	} while (!__atomic_compare_exchange_n(&page->count, &old, old + 1, true,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	return true;
}

/* ---- pagevecs: mirrors include/linux/pagevec.h ---- */

/* The owner sets the count; the audit reads it from afar, relaxed. */
static inline void pagevec_set_count(struct pagevec *pvec, unsigned int nr)
{
	__atomic_store_n(&pvec->nr, nr, __ATOMIC_RELAXED);
}

static inline void pagevec_init(struct pagevec *pvec, int cold)
{
	pagevec_set_count(pvec, 0);
	pvec->cold = cold;
}

static inline void pagevec_reinit(struct pagevec *pvec)
{
	pagevec_set_count(pvec, 0);
}

static inline unsigned int pagevec_count(const struct pagevec *pvec)
{
	return pvec->nr;
}

static inline unsigned int pagevec_space(const struct pagevec *pvec)
{
	return PAGEVEC_SIZE - pvec->nr;
}

/* Add @page (its reference goes with it). Return: the room left; 0: full. */
static inline unsigned int pagevec_add(struct pagevec *pvec, struct page *page)
{
	pvec->pages[pvec->nr] = page;
	pagevec_set_count(pvec, pvec->nr + 1);
	return pagevec_space(pvec);
}

/**
 * release_pages() - drop one reference to each of @pages, freeing the last
 * @pages: the pages; each reference is the caller's
 * @nr: how many
 * @cold: free to the cold per-CPU list
 *
 * The pages whose count reaches 0 leave their LRU list under one hold of
 * lru_lock (taken at the first such page, kept for the rest) and are
 * freed PAGEVEC_SIZE at a time with lru_lock dropped.
 *
 * Mirrors mm/swap.c:release_pages() of 2.6.9.
 *
 * Context: any; takes zone->lru_lock, then zone->lock (one after the
 * other), so the caller must hold neither.
 */
void release_pages(struct page **pages, int nr, int cold);

/*
 * Free the pages of @pvec, each with count 0 and off the LRU, and empty
 * it. Mirrors mm/page_alloc.c:__pagevec_free().
 */
void __pagevec_free(struct pagevec *pvec);

/*
 * Put every page of @pvec on the inactive (active) list under one hold
 * of lru_lock, then drop the pagevec's references (release_pages()) and
 * empty it. Mirrors mm/swap.c:__pagevec_lru_add(), __pagevec_lru_add_active().
 */
void __pagevec_lru_add(struct pagevec *pvec);
void __pagevec_lru_add_active(struct pagevec *pvec);

/**
 * lru_cache_add() - queue a new page for the inactive list
 * @page: a page the caller holds a reference to, on no LRU list
 *
 * The calling task's lru_add_pvecs takes a reference of its own and the
 * page; the sixteenth page puts all of them on the list under one hold
 * of lru_lock. Until then the page is not PG_lru: reclaim cannot see it.
 * lru_cache_add_active() does the same with lru_add_active_pvecs.
 *
 * Mirrors mm/swap.c:lru_cache_add().
 *
 * Context: any; takes zone->lru_lock when the pagevec is full, and
 * zone->lock after it if a pagevec reference was the page's last.
 */
void lru_cache_add(struct page *page);
void lru_cache_add_active(struct page *page);

/**
 * lru_add_drain() - put the calling task's queued pages on the LRU now
 *
 * Mirrors mm/swap.c:lru_add_drain(): called where 2.6.9 called it (the
 * start of reclaim's scans, zap_page_range(), the mmu_gather's freeing)
 * and when the task leaves (page_alloc_task_exit()).
 *
 * Context: any; as lru_cache_add() with a full pagevec.
 */
void lru_add_drain(void);
/* Move an inactive LRU page to the active list. Context: takes lru_lock. */
void activate_page(struct page *page);
/*
 * Caller holds lru_lock. del: the page is on an LRU list; clears PG_lru and
 * PG_active. add: sets PG_lru, and sets (active) or clears (inactive)
 * PG_active.
 */
void del_page_from_lru(struct zone *zone, struct page *page);
void add_page_to_inactive_list(struct zone *zone, struct page *page);
void add_page_to_active_list(struct zone *zone, struct page *page);

#endif /* RT_CORE_PAGE_ALLOC_H */
