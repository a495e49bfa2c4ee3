// SPDX-License-Identifier: MIT
/*
 * page_alloc: mem_map set-up, allocation until exhaustion and back,
 * the low-watermark hook, the zero page, get_page/put_page and the LRU
 * lists, a 32-thread allocation storm that would catch a page handed to
 * two owners, the per-task hot and cold lists (batches, detach, the
 * audit's accounting), and GFP_KERNEL reported in atomic context.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "lockdep.h"
#include "page.h"
#include "page_alloc.h"
#include "rt_check.h"
#include "rt_vm.h"
#include "spinlock.h"
#include "task.h"

#define NR_PAGES	256UL

/* Memory only: no swap, no mapping (the design is the default one). */
static const struct rt_vm_suite mem_fx = { { RMAP_PTECHAIN, NR_PAGES, 0, false }, 0 };

/* One of the allocator's statistics, folded over every task. */
static struct zone_stats zstats(void)
{
	struct zone_stats zs;

	zone_stats_read(&contig_zone, &zs);
	return zs;
}
#define zstat(field)	(zstats().field)

/* Allocate every page there is into @out (room for max_mapnr); the count. */
static unsigned long alloc_all(struct page **out, gfp_t gfp)
{
	unsigned long n = 0;
	struct page *page;

	while ((page = alloc_page(gfp)) != NULL) {
		ck_assert_uint_lt(n, max_mapnr);
		out[n++] = page;
	}
	return n;
}

/* A lock of a class outside the documented order: only cycles reported. */
static int test_lock_class(void)
{
	static int cls = -1;

	if (cls < 0)
		cls = lockdep_register_class("page_alloc_test_lock", -1);
	ck_assert_int_ge(cls, 0);
	return cls;
}

/* ---- init ---- */

START_TEST(test_page_alloc_init_rejects_bad_sizes)
{
	ck_assert_int_eq(mem_init(0), -EINVAL);
	ck_assert_int_eq(mem_init(MEM_MIN_PAGES - 1), -EINVAL);
	ck_assert_int_eq(mem_init(MEM_MAX_PAGES + 1), -EINVAL);
	ck_assert_ptr_null(mem_map);

	ck_assert_int_eq(mem_init(MEM_MIN_PAGES), 0);
	ck_assert_int_eq(mem_init(MEM_MIN_PAGES), -EBUSY);
	ck_assert_uint_eq(max_mapnr, MEM_MIN_PAGES);
	mem_exit();
	ck_assert_ptr_null(mem_map);
	ck_assert_uint_eq(max_mapnr, 0);
}
END_TEST

START_TEST(test_page_alloc_init_layout)
{
	struct page *zero = ZERO_PAGE();
	struct zone *z = &contig_zone;

	ck_assert_uint_eq(max_mapnr, NR_PAGES);
	ck_assert_uint_eq(nr_free_pages(), NR_PAGES - 1);
	ck_assert_uint_eq(page_to_pfn(zero), ZERO_PAGE_PFN);
	ck_assert(PageReserved(zero));
	ck_assert(!PageBuddy(zero));
	ck_assert_int_eq(page_count(zero), 1);
	for (unsigned long pfn = 1; pfn < max_mapnr; pfn++) {
		struct page *page = pfn_to_page(pfn);

		ck_assert(pfn_valid(pfn));
		ck_assert_uint_eq(page->flags, page_flag_mask(PG_buddy));
		ck_assert_int_eq(page_count(page), 0);
	}
	ck_assert(!pfn_valid(max_mapnr));
	ck_assert_uint_ge(z->pages_min, 4);
	ck_assert_uint_lt(z->pages_min, z->pages_low);
	ck_assert_uint_lt(z->pages_low, z->pages_high);
	ck_assert_uint_lt(z->pages_high, max_mapnr - 1);
	ck_assert_uint_eq(z->nr_active + z->nr_inactive, 0);
}
END_TEST

/* ---- exhaustion ---- */

START_TEST(test_page_alloc_exhaustion_returns_null)
{
	struct page **pages = calloc(max_mapnr, sizeof(*pages));
	bool *seen = calloc(max_mapnr, sizeof(*seen));
	unsigned long n, fails0 = zstat(nr_alloc_fail);

	ck_assert_ptr_nonnull(pages);
	ck_assert_ptr_nonnull(seen);
	n = alloc_all(pages, GFP_KERNEL);
	ck_assert_uint_eq(n, max_mapnr - 1);
	ck_assert_uint_eq(nr_free_pages(), 0);
	ck_assert_uint_eq(zstat(nr_alloc_fail), fails0 + 1);
	/* Failing again is just as clean. */
	ck_assert_ptr_null(alloc_page(GFP_ATOMIC));
	ck_assert_uint_eq(zstat(nr_alloc_fail), fails0 + 2);

	for (unsigned long i = 0; i < n; i++) {
		unsigned long pfn = page_to_pfn(pages[i]);

		ck_assert(pfn_valid(pfn));
		ck_assert_uint_ne(pfn, ZERO_PAGE_PFN);	/* never handed out */
		ck_assert_msg(!seen[pfn], "pfn %lu allocated twice", pfn);
		seen[pfn] = true;
		ck_assert_int_eq(page_count(pages[i]), 1);
		ck_assert_uint_eq(pages[i]->flags, 0);
		ck_assert_uint_eq(page_data_read(pages[i]), 0);
	}
	for (unsigned long i = 0; i < n; i++)
		put_page(pages[i]);
	ck_assert_uint_eq(nr_free_pages(), max_mapnr - 1);
	free(pages);
	free(seen);
}
END_TEST

START_TEST(test_page_alloc_refill_after_free_all)
{
	struct page **pages = calloc(max_mapnr, sizeof(*pages));
	unsigned long alloc0 = zstat(nr_alloc);
	unsigned long free0 = zstat(nr_free);

	ck_assert_ptr_nonnull(pages);
	for (int round = 0; round < 3; round++) {
		unsigned long n = alloc_all(pages, round & 1 ? GFP_ATOMIC : GFP_KERNEL);

		ck_assert_uint_eq(n, max_mapnr - 1);
		for (unsigned long i = 0; i < n; i++) {
			page_data_write(pages[i], 0xdead0000ULL + i);
			pages[i]->index = i;
			put_page(pages[i]);
			ck_assert(PageBuddy(pages[i]));
		}
		ck_assert_uint_eq(nr_free_pages(), max_mapnr - 1);
	}
	ck_assert_uint_eq(zstat(nr_alloc) - alloc0, 3 * (max_mapnr - 1));
	ck_assert_uint_eq(zstat(nr_free) - free0, 3 * (max_mapnr - 1));
	free(pages);
}
END_TEST

START_TEST(test_page_alloc_new_page_reads_zero)
{
	struct page **pages = calloc(max_mapnr, sizeof(*pages));
	unsigned long n;

	ck_assert_ptr_nonnull(pages);
	n = alloc_all(pages, GFP_KERNEL);
	for (unsigned long i = 0; i < n; i++) {
		page_data_write(pages[i], ~0ULL);
		pages[i]->index = 7;
		pages[i]->private = 9;
		SetPageDirty(pages[i]);
		ClearPageDirty(pages[i]);
		put_page(pages[i]);
	}
	/* With and without __GFP_ZERO the data word starts at 0. */
	for (unsigned long i = 0; i < n; i++) {
		pages[i] = alloc_page(i & 1 ? GFP_KERNEL | __GFP_ZERO : GFP_ATOMIC);
		ck_assert_ptr_nonnull(pages[i]);
		ck_assert_uint_eq(page_data_read(pages[i]), 0);
		ck_assert_uint_eq(pages[i]->index, 0);
		ck_assert_uint_eq(pages[i]->private, 0);
		ck_assert_ptr_null(pages[i]->as.mapping);
		ck_assert_ptr_null(pages[i]->pte.chain);
		ck_assert_uint_eq(pages[i]->flags, 0);
	}
	for (unsigned long i = 0; i < n; i++)
		put_page(pages[i]);
	free(pages);
}
END_TEST

START_TEST(test_page_alloc_zero_page_is_never_freed)
{
	struct page *zero = ZERO_PAGE();
	unsigned long free = nr_free_pages();

	/* As 2.6: references to a reserved page are taken, never dropped. */
	get_page(zero);
	ck_assert_int_eq(page_count(zero), 2);
	put_page(zero);
	put_page(zero);
	put_page(zero);
	ck_assert_int_eq(page_count(zero), 2);
	ck_assert(PageReserved(zero));
	ck_assert(!PageBuddy(zero));
	ck_assert_uint_eq(nr_free_pages(), free);
}
END_TEST

/* ---- watermark ---- */

struct hook_state {
	unsigned long calls;	/* relaxed atomic */
	bool lock_held_seen;	/* relaxed atomic */
	bool threaded;		/* set before threads start */
	struct zone *zone_seen;
};

/* Does the calling task hold zone->lock? Exact with lockdep on. */
static bool zone_lock_held_by_me(struct zone *zone, const struct hook_state *h)
{
	if (lockdep_enabled())
		return lock_is_held(&zone->lock);
	return !h->threaded && spin_is_locked(&zone->lock);
}

static void count_hook(struct zone *zone, void *arg)
{
	struct hook_state *h = arg;

	if (zone_lock_held_by_me(zone, h))
		__atomic_store_n(&h->lock_held_seen, true, __ATOMIC_RELAXED);
	__atomic_store_n(&h->zone_seen, zone, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->calls, 1, __ATOMIC_RELAXED);
}

START_TEST(test_page_alloc_low_hook_fires_below_pages_low)
{
	struct page **pages = calloc(max_mapnr, sizeof(*pages));
	struct hook_state h = { 0 };
	unsigned long n = 0, wake0 = zstat(nr_low_wakeups);
	unsigned long low = contig_zone.pages_low;

	ck_assert_ptr_nonnull(pages);
	zone_set_low_hook(&contig_zone, count_hook, &h);
	/* Down to exactly pages_low free: no wakeup yet. */
	while (nr_free_pages() > low) {
		pages[n] = alloc_page(GFP_KERNEL);
		ck_assert_ptr_nonnull(pages[n]);
		n++;
	}
	ck_assert_uint_eq(nr_free_pages(), low);
	ck_assert_uint_eq(h.calls, 0);

	/* Crossing below pages_low wakes the hook, once per allocation. */
	pages[n++] = alloc_page(GFP_ATOMIC);
	ck_assert_ptr_nonnull(pages[n - 1]);
	ck_assert_uint_eq(h.calls, 1);
	ck_assert_ptr_eq(h.zone_seen, &contig_zone);
	pages[n++] = alloc_page(GFP_ATOMIC);
	ck_assert_uint_eq(h.calls, 2);

	/* Exhaustion wakes it too, and counts as a failure. */
	while ((pages[n] = alloc_page(GFP_ATOMIC)) != NULL)
		n++;
	ck_assert_uint_eq(n, max_mapnr - 1);
	ck_assert_uint_eq(h.calls, 2 + (low - 2) + 1);
	ck_assert(!h.lock_held_seen);	/* called outside zone->lock */
	ck_assert_uint_eq(zstat(nr_low_wakeups) - wake0, h.calls);

	/* Freeing back above pages_low: allocation is quiet again. */
	for (unsigned long i = 0; i < n; i++)
		put_page(pages[i]);
	h.calls = 0;
	pages[0] = alloc_page(GFP_KERNEL);
	ck_assert_uint_eq(h.calls, 0);
	put_page(pages[0]);
	free(pages);
}
END_TEST

/* ---- refcount ---- */

START_TEST(test_page_alloc_put_page_frees_at_zero)
{
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned long free = nr_free_pages();

	ck_assert_ptr_nonnull(page);
	get_page(page);
	get_page(page);
	ck_assert_int_eq(page_count(page), 3);
	put_page(page);
	put_page(page);
	ck_assert_int_eq(page_count(page), 1);
	ck_assert_uint_eq(nr_free_pages(), free);
	ck_assert(!PageBuddy(page));
	put_page(page);
	ck_assert_int_eq(page_count(page), 0);
	ck_assert(PageBuddy(page));
	ck_assert_uint_eq(nr_free_pages(), free + 1);
}
END_TEST

START_TEST(test_page_alloc_put_page_removes_from_lru)
{
	struct page *in = alloc_page(GFP_KERNEL);
	struct page *act = alloc_page(GFP_KERNEL);
	struct zone *z = &contig_zone;
	unsigned long free = nr_free_pages();

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(act);
	lru_cache_add(in);
	lru_cache_add_active(act);
	lru_add_drain();	/* the pagevecs' references go */
	ck_assert_uint_eq(z->nr_inactive, 1);
	ck_assert_uint_eq(z->nr_active, 1);

	/* The LRU holds no reference: a page on it is freed by its last put. */
	get_page(in);
	put_page(in);
	ck_assert(PageLRU(in));
	put_page(in);
	ck_assert(!PageLRU(in));
	ck_assert(PageBuddy(in));
	ck_assert_uint_eq(z->nr_inactive, 0);
	ck_assert(list_empty(&z->inactive_list));

	put_page(act);
	ck_assert(!PageLRU(act));
	ck_assert(!PageActive(act));
	ck_assert(PageBuddy(act));
	ck_assert_uint_eq(z->nr_active, 0);
	ck_assert(list_empty(&z->active_list));
	ck_assert_uint_eq(nr_free_pages(), free + 2);
}
END_TEST

START_TEST(test_page_alloc_get_page_unless_zero)
{
	struct page *page = alloc_page(GFP_KERNEL);

	ck_assert_ptr_nonnull(page);
	ck_assert(get_page_unless_zero(page));
	ck_assert_int_eq(page_count(page), 2);
	put_page(page);
	put_page(page);
	/* Freed: a scanner must leave it alone. */
	ck_assert(!get_page_unless_zero(page));
	ck_assert_int_eq(page_count(page), 0);
	ck_assert(PageBuddy(page));
}
END_TEST

/* ---- lru ---- */

static unsigned long list_len(const struct list_head *head)
{
	const struct list_head *pos;
	unsigned long n = 0;

	list_for_each(pos, head)
		n++;
	return n;
}

START_TEST(test_page_alloc_lru_add_activate_del)
{
	struct zone *z = &contig_zone;
	struct page *p[5];

	for (int i = 0; i < 5; i++) {
		p[i] = alloc_page(GFP_KERNEL);
		ck_assert_ptr_nonnull(p[i]);
	}
	lru_cache_add(p[0]);
	lru_cache_add(p[1]);
	lru_cache_add(p[2]);
	lru_cache_add_active(p[3]);
	lru_cache_add_active(p[4]);
	lru_add_drain();
	ck_assert_uint_eq(z->nr_inactive, 3);
	ck_assert_uint_eq(z->nr_active, 2);
	ck_assert_uint_eq(list_len(&z->inactive_list), 3);
	ck_assert_uint_eq(list_len(&z->active_list), 2);
	/* New pages go to the head, as in 2.6. */
	ck_assert_ptr_eq(list_first_entry(&z->inactive_list, struct page, lru), p[2]);
	for (int i = 0; i < 5; i++) {
		ck_assert(PageLRU(p[i]));
		ck_assert(PageActive(p[i]) == (i >= 3));
	}

	activate_page(p[1]);
	ck_assert(PageActive(p[1]));
	ck_assert(PageLRU(p[1]));
	ck_assert_uint_eq(z->nr_inactive, 2);
	ck_assert_uint_eq(z->nr_active, 3);
	activate_page(p[1]);	/* already active: nothing */
	activate_page(p[3]);
	ck_assert_uint_eq(z->nr_active, 3);
	ck_assert_uint_eq(list_len(&z->active_list), 3);

	spin_lock(&z->lru_lock);
	del_page_from_lru(z, p[0]);
	del_page_from_lru(z, p[3]);
	spin_unlock(&z->lru_lock);
	ck_assert(!PageLRU(p[0]));
	ck_assert(!PageLRU(p[3]));
	ck_assert(!PageActive(p[3]));
	ck_assert_uint_eq(z->nr_inactive, 1);
	ck_assert_uint_eq(z->nr_active, 2);

	/* Off the LRU (isolated): activate_page leaves it alone. */
	activate_page(p[0]);
	ck_assert(!PageLRU(p[0]));
	ck_assert(!PageActive(p[0]));
	ck_assert_uint_eq(z->nr_active, 2);

	/* Put back by hand, as reclaim does after isolating. */
	spin_lock(&z->lru_lock);
	add_page_to_active_list(z, p[0]);
	add_page_to_inactive_list(z, p[3]);
	spin_unlock(&z->lru_lock);
	ck_assert(PageActive(p[0]));
	ck_assert(!PageActive(p[3]));
	ck_assert_uint_eq(z->nr_inactive, 2);
	ck_assert_uint_eq(z->nr_active, 3);

	for (int i = 0; i < 5; i++)
		put_page(p[i]);
	ck_assert_uint_eq(z->nr_inactive + z->nr_active, 0);
	ck_assert(list_empty(&z->inactive_list));
	ck_assert(list_empty(&z->active_list));
	ck_assert_uint_eq(nr_free_pages(), max_mapnr - 1);
}
END_TEST

/* ---- stress ---- */

#define STORM_THREADS	32
#define STORM_ROUNDS	300
#define STORM_BATCH	24
#define STORM_PAGES	512UL

struct storm {
	unsigned long null_allocs;	/* relaxed atomic */
	unsigned long allocs;		/* relaxed atomic */
	struct hook_state hook;
};

static void storm_worker(int idx, void *arg)
{
	struct storm *st = arg;
	uint64_t rng = rt_thread_rng(idx);
	struct page *batch[STORM_BATCH];
	uint64_t stamp[STORM_BATCH];
	unsigned long nulls = 0, allocs = 0;

	/*
	 * The storm tests the free list, and checks that each page it holds
	 * has its reference alone: no direct reclaim, whose isolation would
	 * take a second one off the LRU (PF_MEMALLOC, as reclaim itself).
	 */
	current->flags |= PF_MEMALLOC;
	for (int round = 0; round < STORM_ROUNDS && !rt_first_failure(); round++) {
		int n = 1 + (int)(rt_rand(&rng) % STORM_BATCH);
		int got = 0;

		for (int i = 0; i < n; i++) {
			struct page *page = alloc_page(rt_rand(&rng) & 1 ? GFP_KERNEL : GFP_ATOMIC);

			if (!page) {
				nulls++;
				continue;
			}
			allocs++;
			if (page == ZERO_PAGE())
				rt_fail("the zero page was allocated");
			rt_check(page_count(page) == 1);
			rt_check(page_data_read(page) == 0);
			rt_check(!PageBuddy(page));
			stamp[got] = ((uint64_t)(idx + 1) << 32) | (uint64_t)(round * STORM_BATCH + i);
			page_data_write(page, stamp[got]);
			/* Some pages go on the LRU, so put_page takes them off. */
			switch (rt_rand(&rng) % 4) {
			case 0:
				lru_cache_add(page);
				break;
			case 1:
				lru_cache_add(page);
				activate_page(page);
				break;
			case 2:
				lru_cache_add_active(page);
				break;
			default:
				break;
			}
			batch[got++] = page;
		}
		lru_add_drain();	/* the pagevecs' references go */
		if (rt_rand(&rng) & 1)
			sched_yield();
		for (int i = 0; i < got; i++) {
			uint64_t seen = page_data_read(batch[i]);

			if (seen != stamp[i])
				rt_fail("t%d: pfn %lu stamp %#llx, expected %#llx: page given to two owners",
					idx, page_to_pfn(batch[i]),
					(unsigned long long)seen, (unsigned long long)stamp[i]);
			rt_check(page_count(batch[i]) == 1);
			put_page(batch[i]);
		}
	}
	current->flags &= ~PF_MEMALLOC;
	__atomic_fetch_add(&st->null_allocs, nulls, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->allocs, allocs, __ATOMIC_RELAXED);
}

START_TEST(test_page_alloc_storm_32_threads)
{
	struct storm st = { 0 };
	unsigned long alloc0, free0;

	mem_exit();
	ck_assert_int_eq(mem_init(STORM_PAGES), 0);
	st.hook.threaded = true;
	zone_set_low_hook(&contig_zone, count_hook, &st.hook);
	alloc0 = zstat(nr_alloc);
	free0 = zstat(nr_free);
	rt_failure_reset();

	rt_run_threads(STORM_THREADS, storm_worker, &st);

	ck_assert_no_worker_failure();
	ck_assert_uint_eq(nr_free_pages(), max_mapnr - 1);
	ck_assert_uint_eq(contig_zone.nr_active, 0);
	ck_assert_uint_eq(contig_zone.nr_inactive, 0);
	ck_assert(list_empty(&contig_zone.active_list));
	ck_assert(list_empty(&contig_zone.inactive_list));
	ck_assert_uint_eq(zstat(nr_alloc) - alloc0, st.allocs);
	ck_assert_uint_eq(zstat(nr_free) - free0, st.allocs);
	ck_assert(!st.hook.lock_held_seen);
	for (unsigned long pfn = 1; pfn < max_mapnr; pfn++) {
		ck_assert_uint_eq(pfn_to_page(pfn)->flags, page_flag_mask(PG_buddy));
		ck_assert_int_eq(page_count(pfn_to_page(pfn)), 0);
	}
}
END_TEST

#define SHARE_PAGES	64

struct share {
	struct page *pages[SHARE_PAGES];
};

static void share_worker(int idx, void *arg)
{
	struct share *sh = arg;

	/* Every thread drops one reference to every page, in its own order. */
	for (int i = 0; i < SHARE_PAGES; i++) {
		int j = (i + idx * 7) % SHARE_PAGES;

		if (idx & 1)
			activate_page(sh->pages[j]);
		put_page(sh->pages[j]);
	}
}

START_TEST(test_page_alloc_concurrent_put_frees_once)
{
	struct share sh;
	unsigned long free = nr_free_pages();

	for (int i = 0; i < SHARE_PAGES; i++) {
		sh.pages[i] = alloc_page(GFP_KERNEL);
		ck_assert_ptr_nonnull(sh.pages[i]);
		for (int r = 1; r < STORM_THREADS; r++)
			get_page(sh.pages[i]);
		if (i % 3 == 0)
			lru_cache_add(sh.pages[i]);
		else if (i % 3 == 1)
			lru_cache_add_active(sh.pages[i]);
	}
	lru_add_drain();
	rt_failure_reset();
	rt_run_threads(STORM_THREADS, share_worker, &sh);
	ck_assert_no_worker_failure();
	ck_assert_uint_eq(nr_free_pages(), free);
	ck_assert_uint_eq(contig_zone.nr_active + contig_zone.nr_inactive, 0);
	for (int i = 0; i < SHARE_PAGES; i++) {
		ck_assert(PageBuddy(sh.pages[i]));
		ck_assert_int_eq(page_count(sh.pages[i]), 0);
	}
}
END_TEST

/* ---- pcp: the per-CPU (here per-task) hot and cold lists ---- */

/* 16384 pages: zone_batchsize() gives 4, so hot low 8, high 24; cold high 8. */
#define PCP_PAGES	16384UL
#define PCP_BATCH	4
#define PCP_HOT_LOW	(2 * PCP_BATCH)
#define PCP_HOT_HIGH	(6 * PCP_BATCH)
#define PCP_RUN		64

/* A memory of PCP_PAGES, whose lists the calling task has not set up yet. */
static void pcp_memory(void)
{
	mem_exit();
	ck_assert_int_eq(mem_init(PCP_PAGES), 0);
	ck_assert_int_eq(contig_zone.pcp_batch, PCP_BATCH);
	ck_assert_int_eq(current->pageset.pcp[0].count, 0);
	ck_assert_int_eq(current->pageset.pcp[1].count, 0);
}

static int pcp_count(int cold)
{
	return current->pageset.pcp[cold].count;
}

/* zone->lock acquisitions so far, as lockdep's statistics count them. */
static unsigned long zone_lock_taken(void)
{
	struct lock_class_stats st;

	lock_stats_read(LOCK_CLASS_ZONE_LOCK, &st);
	return st.acquired;
}

START_TEST(test_page_alloc_pcp_batch_follows_zone_size)
{
	/* 2.6.9: present/1024 pages, capped at 256 KiB, a quarter, at least 1. */
	static const struct { unsigned long pages; int batch; } sizes[] = {
		{ NR_PAGES, 1 }, { 8192, 2 }, { PCP_PAGES, 4 }, { 65536, 16 }, { 1UL << 18, 16 },
	};
	const struct per_cpu_pages *hot = &current->pageset.pcp[0];
	const struct per_cpu_pages *cold = &current->pageset.pcp[1];

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct page *page;

		mem_exit();
		ck_assert_int_eq(mem_init(sizes[i].pages), 0);
		ck_assert_int_eq(contig_zone.pcp_batch, sizes[i].batch);
		page = alloc_page(GFP_KERNEL);
		ck_assert_ptr_nonnull(page);
		ck_assert_int_eq(hot->batch, sizes[i].batch);
		ck_assert_int_eq(hot->low, 2 * sizes[i].batch);
		ck_assert_int_eq(hot->high, 6 * sizes[i].batch);
		ck_assert_int_eq(cold->batch, sizes[i].batch);
		ck_assert_int_eq(cold->low, 0);
		ck_assert_int_eq(cold->high, 2 * sizes[i].batch);
		put_page(page);
	}
}
END_TEST

START_TEST(test_page_alloc_pcp_freed_page_comes_back_first)
{
	struct page *page, *cold;

	pcp_memory();
	page = alloc_page(GFP_KERNEL);
	ck_assert_ptr_nonnull(page);
	put_page(page);
	/* On the task's list: free to every check, not in the zone's count. */
	ck_assert(PageBuddy(page));
	ck_assert_int_eq(page_count(page), 0);
	ck_assert_uint_eq(nr_free_pages(), max_mapnr - 1);
	ck_assert_uint_eq(zone_free_pages(&contig_zone) + (unsigned long)pcp_count(0),
			  max_mapnr - 1);
	/* LIFO: the page just freed, the hottest, is the next one. */
	ck_assert_ptr_eq(alloc_page(GFP_KERNEL), page);

	/* The cold list is its own: a cold free is the next cold page, not hot. */
	cold = alloc_page(GFP_KERNEL | __GFP_COLD);
	ck_assert_ptr_nonnull(cold);
	put_page_cold(cold);
	ck_assert_int_eq(pcp_count(1), PCP_BATCH);
	ck_assert_ptr_ne(alloc_page(GFP_KERNEL), cold);
	put_page(page);
	ck_assert_ptr_eq(alloc_page(GFP_KERNEL | __GFP_COLD), cold);
	put_page(cold);
	ck_assert_uint_eq(nr_free_pages(), max_mapnr - 2);
}
END_TEST

START_TEST(test_page_alloc_pcp_refill_takes_batch_at_low)
{
	struct page *pages[PCP_RUN];
	int refills = 0, quiet = 0;

	pcp_memory();
	for (int i = 0; i < PCP_RUN; i++) {
		int before = pcp_count(0);
		unsigned long zone_before = zone_free_pages(&contig_zone);
		unsigned long locked_before = zone_lock_taken();
		bool refill = before <= PCP_HOT_LOW;

		pages[i] = alloc_page(GFP_KERNEL);
		ck_assert_ptr_nonnull(pages[i]);
		ck_assert_uint_eq(zone_before - zone_free_pages(&contig_zone),
				  refill ? PCP_BATCH : 0);
		/* zone->lock, seen by lockdep, once per batch and only then. */
		ck_assert_uint_eq(zone_lock_taken() - locked_before, refill ? 1 : 0);
		ck_assert_int_eq(pcp_count(0), before + (refill ? PCP_BATCH : 0) - 1);
		/* The zone's list is FIFO and a refill joins the list's tail. */
		ck_assert_uint_eq(page_to_pfn(pages[i]), (unsigned long)i + 1);
		refills += refill;
		quiet += !refill;
	}
	ck_assert_int_gt(refills, 0);
	ck_assert_int_gt(quiet, 0);
	for (int i = 0; i < PCP_RUN; i++)
		put_page(pages[i]);
}
END_TEST

START_TEST(test_page_alloc_pcp_free_at_high_gives_batch_from_tail)
{
	const struct per_cpu_pages *hot = &current->pageset.pcp[0];
	struct page *pages[PCP_RUN];
	int give_backs = 0;

	pcp_memory();
	for (int i = 0; i < PCP_RUN; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		ck_assert_ptr_nonnull(pages[i]);
	}
	for (int i = 0; i < PCP_RUN; i++) {
		int before = pcp_count(0);
		unsigned long zone_before = zone_free_pages(&contig_zone);
		unsigned long locked_before = zone_lock_taken();
		struct page *tail[PCP_BATCH];
		struct list_head *p = hot->list.prev;

		/* tail[0] is the list's last (coldest) page. */
		for (int k = 0; k < PCP_BATCH && before >= PCP_HOT_HIGH; k++, p = p->prev)
			tail[k] = list_entry(p, struct page, lru);
		put_page(pages[i]);
		ck_assert_ptr_eq(list_first_entry(&hot->list, struct page, lru), pages[i]);
		ck_assert_int_le(pcp_count(0), PCP_HOT_HIGH);
		ck_assert_uint_eq(zone_lock_taken() - locked_before, before < PCP_HOT_HIGH ? 0 : 1);
		if (before < PCP_HOT_HIGH) {
			ck_assert_uint_eq(zone_free_pages(&contig_zone), zone_before);
			ck_assert_int_eq(pcp_count(0), before + 1);
			continue;
		}
		give_backs++;
		ck_assert_uint_eq(zone_free_pages(&contig_zone) - zone_before, PCP_BATCH);
		ck_assert_int_eq(pcp_count(0), before - PCP_BATCH + 1);
		/* Coldest first, to the tail of the FIFO zone list. */
		p = contig_zone.free_list.prev;
		for (int k = PCP_BATCH - 1; k >= 0; k--, p = p->prev) {
			ck_assert_ptr_eq(list_entry(p, struct page, lru), tail[k]);
			ck_assert(PageBuddy(tail[k]));
		}
	}
	ck_assert_int_gt(give_backs, 1);
	ck_assert_uint_eq(nr_free_pages(), max_mapnr - 1);
}
END_TEST

#define PCP_THREAD_PAGES	40

struct pcp_thread {
	int count_at_exit;	/* the worker's hot count; read after the join */
};

static void pcp_alloc_free_worker(int idx, void *arg)
{
	struct pcp_thread *pt = arg;
	struct page *pages[PCP_THREAD_PAGES];

	for (int i = 0; i < PCP_THREAD_PAGES; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		if (!pages[i]) {
			rt_fail("t%d: allocation %d failed", idx, i);
			while (i--)
				put_page(pages[i]);
			return;
		}
	}
	for (int i = 0; i < PCP_THREAD_PAGES; i++)
		put_page(pages[i]);
	pt->count_at_exit = current->pageset.pcp[0].count;
}

START_TEST(test_page_alloc_pcp_detach_gives_pages_back)
{
	struct pcp_thread pt = { 0 };
	unsigned long alloc0, free0;

	pcp_memory();
	alloc0 = zstat(nr_alloc);
	free0 = zstat(nr_free);
	rt_failure_reset();
	rt_run_threads(1, pcp_alloc_free_worker, &pt);
	ck_assert_no_worker_failure();
	ck_assert_int_gt(pt.count_at_exit, 0);
	/* The worker's lists went back to the zone's list at its detach. */
	ck_assert_int_eq(pcp_count(0) + pcp_count(1), 0);
	ck_assert_uint_eq(zone_free_pages(&contig_zone), max_mapnr - 1);
	ck_assert_uint_eq(nr_free_pages(), max_mapnr - 1);
	ck_assert_uint_eq(vm_audit(NULL, 0, NULL, 0, NULL), 0);
	/* And its statistics were folded into the totals, not lost. */
	ck_assert_uint_eq(zstat(nr_alloc) - alloc0, PCP_THREAD_PAGES);
	ck_assert_uint_eq(zstat(nr_free) - free0, PCP_THREAD_PAGES);
}
END_TEST

START_TEST(test_page_alloc_pcp_audit_accounts_every_page)
{
	struct per_cpu_pages *hot = &current->pageset.pcp[0];
	struct page *pages[PCP_BATCH * 2], *lost, *busy;
	struct vm_report r;

	pcp_memory();
	for (int i = 0; i < PCP_BATCH * 2; i++)
		pages[i] = alloc_page(GFP_KERNEL);
	for (int i = 0; i < PCP_BATCH * 2; i++)
		put_page(pages[i]);
	rt_reports_capture();
	ck_assert_uint_eq(vm_audit(NULL, 0, NULL, 0, NULL), 0);

	/* A page drops off the hot list, its count unchanged: lost. */
	lost = list_first_entry(&hot->list, struct page, lru);
	list_del(&lost->lru);
	/* The list's count, the lost pfn, and the sum over all lists. */
	ck_assert_uint_eq(vm_audit(NULL, 0, NULL, 0, NULL), 3);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_AUDIT), 3);
	ck_assert(rt_reports_first(VM_REPORT_AUDIT, &r));
	ck_assert_str_eq(r.signature, "audit:free-list");
	ck_assert_msg(strstr(r.message, "hot list holds"), "%s", r.message);
	list_add(&lost->lru, &hot->list);
	rt_reports_release();

	/* A page in use linked onto the list (count kept right): not free. */
	busy = alloc_page(GFP_KERNEL);
	ck_assert_ptr_nonnull(busy);
	rt_reports_capture();
	list_add(&busy->lru, &hot->list);
	hot->count++;
	ck_assert_uint_ge(vm_audit(NULL, 0, NULL, 0, NULL), 1);
	ck_assert(rt_reports_first(VM_REPORT_AUDIT, &r));
	ck_assert_msg(strstr(r.message, "on a free list but in use"), "%s", r.message);
	list_del(&busy->lru);
	hot->count--;
	rt_reports_release();
	put_page(busy);

	rt_reports_capture();
	ck_assert_uint_eq(vm_audit(NULL, 0, NULL, 0, NULL), 0);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_AUDIT), 0);
	rt_reports_release();
}
END_TEST

#define PCP_PAIR_ROUNDS	3000
#define PCP_PAIR_HELD	48

/* Two workers churn their lists; the third audits while they hold them. */
struct pcp_pair {
	int parked;		/* atomic: workers done and waiting */
	int go;			/* atomic: the audit is done */
	unsigned long audit;	/* the auditor's result: read after the join */
};

static void pcp_pair_churn(int idx)
{
	uint64_t rng = rt_thread_rng(idx);
	struct page *held[PCP_PAIR_HELD];
	int n = 0;

	for (int round = 0; round < PCP_PAIR_ROUNDS && !rt_first_failure(); round++) {
		if (n < PCP_PAIR_HELD && (n == 0 || (rt_rand(&rng) & 1))) {
			struct page *page = alloc_page(rt_rand(&rng) & 3 ? GFP_KERNEL
						       : GFP_KERNEL | __GFP_COLD);

			if (!page) {
				rt_fail("t%d: allocation failed with %lu pages", idx, max_mapnr);
				break;
			}
			page_data_write(page, ((uint64_t)idx << 32) | (uint64_t)round);
			page->index = (unsigned long)round;
			held[n++] = page;
			continue;
		}
		n--;
		if (page_data_read(held[n]) != (((uint64_t)idx << 32) | held[n]->index))
			rt_fail("t%d: pfn %lu changed under its owner", idx, page_to_pfn(held[n]));
		if (rt_rand(&rng) & 1)
			put_page(held[n]);
		else
			put_page_cold(held[n]);
	}
	while (n)
		put_page(held[--n]);
}

static void pcp_pair_worker(int idx, void *arg)
{
	struct pcp_pair *pp = arg;

	if (idx < 2) {
		current->flags |= PF_MEMALLOC;	/* no direct reclaim: memory only */
		pcp_pair_churn(idx);
		current->flags &= ~PF_MEMALLOC;
		/* Release pairs with the auditor's acquire: our lists are quiescent. */
		__atomic_fetch_add(&pp->parked, 1, __ATOMIC_RELEASE);
		/* Acquire pairs with the auditor's release: it read our lists. */
		while (!__atomic_load_n(&pp->go, __ATOMIC_ACQUIRE))
			sched_yield();
		return;
	}
	while (__atomic_load_n(&pp->parked, __ATOMIC_ACQUIRE) < 2)
		sched_yield();
	pp->audit = vm_audit(NULL, 0, NULL, 0, NULL);
	__atomic_store_n(&pp->go, 1, __ATOMIC_RELEASE);
}

START_TEST(test_page_alloc_pcp_two_threads_then_audit_clean)
{
	struct pcp_pair pp = { 0 };

	pcp_memory();
	rt_reports_capture();
	rt_failure_reset();
	rt_run_threads(3, pcp_pair_worker, &pp);
	ck_assert_no_worker_failure();
	ck_assert_uint_eq(pp.audit, 0);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_AUDIT), 0);
	ck_assert_uint_eq(nr_free_pages(), max_mapnr - 1);
	ck_assert_uint_eq(zone_free_pages(&contig_zone) + (unsigned long)(pcp_count(0) + pcp_count(1)),
			  max_mapnr - 1);
	ck_assert_uint_eq(vm_audit(NULL, 0, NULL, 0, NULL), 0);
	rt_reports_release();
}
END_TEST

/* ---- pagevecs ---- */

static unsigned long lru_lock_acquired(void)
{
	struct lock_class_stats st;

	lock_stats_read(LOCK_CLASS_LRU_LOCK, &st);
	return st.acquired;
}

START_TEST(test_page_alloc_pagevec_fills_then_drains_under_one_lock)
{
	struct pagevec *pvec = &current->pageset.lru_add_active_pvecs;
	struct page *pages[PAGEVEC_SIZE];
	struct zone *z = &contig_zone;
	unsigned long locks;

	for (int i = 0; i < PAGEVEC_SIZE; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		ck_assert_ptr_nonnull(pages[i]);
	}
	locks = lru_lock_acquired();
	for (int i = 0; i < PAGEVEC_SIZE - 1; i++)
		lru_cache_add_active(pages[i]);
	/* Queued: the pagevec's reference, not on the LRU, no lock taken. */
	ck_assert_uint_eq(pagevec_count(pvec), PAGEVEC_SIZE - 1);
	ck_assert_uint_eq(lru_lock_acquired(), locks);
	ck_assert_uint_eq(z->nr_active, 0);
	for (int i = 0; i < PAGEVEC_SIZE - 1; i++) {
		ck_assert_int_eq(page_count(pages[i]), 2);
		ck_assert(!PageLRU(pages[i]));
	}
	/* The sixteenth: all of them on the active list, lru_lock once. */
	lru_cache_add_active(pages[PAGEVEC_SIZE - 1]);
	ck_assert_uint_eq(pagevec_count(pvec), 0);
	ck_assert_uint_eq(lru_lock_acquired() - locks, 1);
	ck_assert_uint_eq(z->nr_active, PAGEVEC_SIZE);
	for (int i = 0; i < PAGEVEC_SIZE; i++) {
		ck_assert_int_eq(page_count(pages[i]), 1);
		ck_assert(PageLRU(pages[i]) && PageActive(pages[i]));
		put_page(pages[i]);
	}
	ck_assert_uint_eq(z->nr_active, 0);
}
END_TEST

START_TEST(test_page_alloc_pagevec_drain_empties_both)
{
	struct per_cpu_pageset *ps = &current->pageset;
	struct zone *z = &contig_zone;
	unsigned long free = nr_free_pages();
	struct page *p[5];

	for (int i = 0; i < 5; i++) {
		p[i] = alloc_page(GFP_KERNEL);
		ck_assert_ptr_nonnull(p[i]);
		if (i < 3)
			lru_cache_add(p[i]);
		else
			lru_cache_add_active(p[i]);
	}
	/* The last user goes while the page is queued: the pagevec keeps it. */
	put_page(p[0]);
	ck_assert_int_eq(page_count(p[0]), 1);
	ck_assert(!PageBuddy(p[0]));
	lru_add_drain();
	ck_assert_uint_eq(pagevec_count(&ps->lru_add_pvecs), 0);
	ck_assert_uint_eq(pagevec_count(&ps->lru_add_active_pvecs), 0);
	/* p[0]'s last reference was the pagevec's: freed, off the LRU. */
	ck_assert(PageBuddy(p[0]));
	ck_assert_uint_eq(z->nr_inactive, 2);
	ck_assert_uint_eq(z->nr_active, 2);
	for (int i = 1; i < 5; i++) {
		ck_assert_int_eq(page_count(p[i]), 1);
		ck_assert(PageLRU(p[i]));
		put_page(p[i]);
	}
	ck_assert_uint_eq(nr_free_pages(), free);
}
END_TEST

#define PVEC_THREAD_PAGES	5

struct pvec_thread {
	struct page *pages[PVEC_THREAD_PAGES];
	int queued;		/* the worker's pagevec count before it left */
};

static void pvec_queue_worker(int idx, void *arg)
{
	struct pvec_thread *pt = arg;

	(void)idx;
	for (int i = 0; i < PVEC_THREAD_PAGES; i++) {
		pt->pages[i] = alloc_page(GFP_KERNEL);
		if (!pt->pages[i]) {
			rt_fail("allocation %d failed", i);
			return;
		}
		lru_cache_add(pt->pages[i]);
		put_page(pt->pages[i]);	/* only the pagevec holds it now */
	}
	pt->queued = (int)pagevec_count(&current->pageset.lru_add_pvecs);
}

START_TEST(test_page_alloc_pagevec_detach_drains)
{
	struct pvec_thread pt = { 0 };
	unsigned long free = nr_free_pages();

	rt_failure_reset();
	rt_run_threads(1, pvec_queue_worker, &pt);
	ck_assert_no_worker_failure();
	ck_assert_int_eq(pt.queued, PVEC_THREAD_PAGES);
	/* Its detach put them on the LRU and dropped the last references. */
	for (int i = 0; i < PVEC_THREAD_PAGES; i++)
		ck_assert(PageBuddy(pt.pages[i]));
	ck_assert_uint_eq(contig_zone.nr_inactive, 0);
	ck_assert_uint_eq(nr_free_pages(), free);
	ck_assert_uint_eq(vm_audit(NULL, 0, NULL, 0, NULL), 0);
}
END_TEST

START_TEST(test_page_alloc_pagevec_audit_counts_references)
{
	struct pagevec *pvec = &current->pageset.lru_add_pvecs;
	struct page *page = alloc_page(GFP_KERNEL);
	struct vm_report r;

	ck_assert_ptr_nonnull(page);
	lru_cache_add(page);
	put_page(page);		/* the pagevec's reference alone */
	rt_reports_capture();
	ck_assert_uint_eq(vm_audit(NULL, 0, NULL, 0, NULL), 0);

	/* The pagevec loses the page, the reference with it: a leak. */
	pagevec_set_count(pvec, 0);
	ck_assert_uint_eq(vm_audit(NULL, 0, NULL, 0, NULL), 2);
	ck_assert(rt_reports_first(VM_REPORT_AUDIT, &r));
	ck_assert_str_eq(r.signature, "audit:page-count");
	ck_assert_msg(strstr(r.message, "count 1, expected 0"), "%s", r.message);
	rt_reports_release();

	/* The reference is dropped, the page still queued. */
	rt_reports_capture();
	pagevec_set_count(pvec, 1);
	__atomic_store_n(&page->count, 0, __ATOMIC_RELAXED);
	ck_assert_uint_eq(vm_audit(NULL, 0, NULL, 0, NULL), 1);
	ck_assert(rt_reports_first(VM_REPORT_AUDIT, &r));
	ck_assert_msg(strstr(r.message, "count 0, expected 1"), "%s", r.message);
	__atomic_store_n(&page->count, 1, __ATOMIC_RELAXED);
	rt_reports_release();

	/* Queued and on the LRU at once. */
	rt_reports_capture();
	spin_lock(&contig_zone.lru_lock);
	add_page_to_inactive_list(&contig_zone, page);
	spin_unlock(&contig_zone.lru_lock);
	ck_assert_uint_eq(vm_audit(NULL, 0, NULL, 0, NULL), 1);
	ck_assert(rt_reports_first(VM_REPORT_AUDIT, &r));
	ck_assert_str_eq(r.signature, "audit:lru");
	spin_lock(&contig_zone.lru_lock);
	del_page_from_lru(&contig_zone, page);
	spin_unlock(&contig_zone.lru_lock);
	rt_reports_release();

	lru_add_drain();
	ck_assert(PageBuddy(page));
	ck_assert_uint_eq(vm_audit(NULL, 0, NULL, 0, NULL), 0);
}
END_TEST

#define RELEASE_PAGES	(PAGEVEC_SIZE + 4)

START_TEST(test_page_alloc_release_pages_frees_batch)
{
	struct page *pages[RELEASE_PAGES], *odd;
	unsigned long free = nr_free_pages(), locks;

	for (int i = 0; i < RELEASE_PAGES; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		ck_assert_ptr_nonnull(pages[i]);
		if (i % 2)
			lru_cache_add(pages[i]);
	}
	lru_add_drain();
	get_page(pages[0]);	/* a second user: not freed */
	odd = pages[1];
	get_page(ZERO_PAGE());
	pages[1] = ZERO_PAGE();	/* reserved: skipped */
	locks = lru_lock_acquired();
	release_pages(pages, RELEASE_PAGES, 0);
	/* 18 freed: one lru_lock hold per PAGEVEC_SIZE of them. */
	ck_assert_uint_eq(lru_lock_acquired() - locks, 2);
	ck_assert_int_eq(page_count(pages[0]), 1);
	ck_assert(!PageBuddy(pages[0]));
	for (int i = 2; i < RELEASE_PAGES; i++) {
		ck_assert(PageBuddy(pages[i]));
		ck_assert(!PageLRU(pages[i]));
	}
	ck_assert_uint_eq(contig_zone.nr_inactive, 1);	/* odd's */
	put_page(pages[0]);
	put_page(odd);
	ck_assert_uint_eq(contig_zone.nr_inactive, 0);
	ck_assert_uint_eq(nr_free_pages(), free);
}
END_TEST

#define PVEC_CHURN_ROUNDS	200
#define PVEC_CHURN_PAGES	7	/* not a divisor of PAGEVEC_SIZE: pages stay queued */

/* Two workers fault and unmap in their own mms; the third audits while they hold pagevecs. */
struct pvec_churn {
	struct mm_struct *mm[2];
	int parked;		/* atomic: workers done and waiting */
	int go;			/* atomic: the audit is done */
	unsigned long audit;	/* the auditor's result: read after the join */
	int queued;		/* atomic: pages the workers left queued */
};

static void pvec_churn_worker(int idx, void *arg)
{
	struct pvec_churn *pc = arg;

	if (idx < 2) {
		struct mm_struct *mm = pc->mm[idx];
		long a = 0;

		current->flags |= PF_MEMALLOC;	/* no direct reclaim */
		for (int round = 0; round < PVEC_CHURN_ROUNDS && !rt_first_failure(); round++) {
			if (round)
				rt_munmap(mm, (unsigned long)a, PVEC_CHURN_PAGES);
			a = rt_mmap(mm, NULL, 0, PVEC_CHURN_PAGES, VM_READ | VM_WRITE, 0);
			for (int i = 0; i < PVEC_CHURN_PAGES; i++)
				if (rt_access(mm, (unsigned long)a + (unsigned long)i * PAGE_SIZE,
					      true, NULL) != ACCESS_OK)
					rt_fail("t%d: fault %d of round %d failed", idx, i, round);
		}
		current->flags &= ~PF_MEMALLOC;
		__atomic_fetch_add(&pc->queued,
				   (int)pagevec_count(&current->pageset.lru_add_active_pvecs),
				   __ATOMIC_RELAXED);
		/* Release pairs with the auditor's acquire: our pagevecs are quiescent. */
		__atomic_fetch_add(&pc->parked, 1, __ATOMIC_RELEASE);
		/* Acquire pairs with the auditor's release: it read our pagevecs. */
		while (!__atomic_load_n(&pc->go, __ATOMIC_ACQUIRE))
			sched_yield();
		return;
	}
	while (__atomic_load_n(&pc->parked, __ATOMIC_ACQUIRE) < 2)
		sched_yield();
	pc->audit = vm_audit(pc->mm, 2, NULL, 0, NULL);
	__atomic_store_n(&pc->go, 1, __ATOMIC_RELEASE);
}

START_TEST(test_page_alloc_pagevec_churn_then_audit_clean)
{
	struct pvec_churn pc = { .mm = { mm_alloc(), mm_alloc() } };

	rt_reports_capture();
	rt_failure_reset();
	rt_run_threads(3, pvec_churn_worker, &pc);
	ck_assert_no_worker_failure();
	ck_assert_uint_eq(pc.audit, 0);
	ck_assert_int_gt(pc.queued, 0);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_AUDIT), 0);
	/* The workers' detach drained their pagevecs: the audit still balances. */
	ck_assert_uint_eq(vm_audit(pc.mm, 2, NULL, 0, NULL), 0);
	rt_reports_release();
	rt_audit_and_exit(pc.mm, 2, NULL, 0);
	ck_assert_uint_eq(nr_free_pages(), max_mapnr - 1);
}
END_TEST

/* ---- atomic sleep ---- */

START_TEST(test_page_alloc_gfp_kernel_in_atomic_reported)
{
	spinlock_t lock;
	struct vm_report r;
	struct page *page;

	spin_lock_init(&lock, test_lock_class());
	rt_reports_capture();

	spin_lock(&lock);
	page = alloc_page(GFP_KERNEL);
	spin_unlock(&lock);
	ck_assert_ptr_nonnull(page);
	put_page(page);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 1);
	ck_assert(rt_reports_first(VM_REPORT_ATOMIC_SLEEP, &r));
	/* The report names the caller's site, not page_alloc.c. */
	ck_assert_str_eq(r.sites[0].file, __FILE__);

	/* GFP_ATOMIC under the lock, and GFP_KERNEL outside it: quiet. */
	spin_lock(&lock);
	page = alloc_page(GFP_ATOMIC);
	spin_unlock(&lock);
	ck_assert_ptr_nonnull(page);
	put_page(page);
	page = alloc_page(GFP_KERNEL);
	ck_assert_ptr_nonnull(page);
	put_page(page);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 1);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_BUG), 0);

	rt_reports_release();
}
END_TEST

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "init", 10, NULL, NULL, .tests = {
			test_page_alloc_init_rejects_bad_sizes,
		} },
		{ "layout", 10, rt_vm_checked_setup, rt_vm_teardown, .tests = {
			test_page_alloc_init_layout,
			test_page_alloc_zero_page_is_never_freed,
		} },
		{ "exhaustion", 10, rt_vm_checked_setup, rt_vm_teardown, .tests = {
			test_page_alloc_exhaustion_returns_null,
			test_page_alloc_refill_after_free_all,
			test_page_alloc_new_page_reads_zero,
		} },
		{ "watermark", 10, rt_vm_checked_setup, rt_vm_teardown, .tests = {
			test_page_alloc_low_hook_fires_below_pages_low,
		} },
		{ "refcount", 10, rt_vm_checked_setup, rt_vm_teardown, .tests = {
			test_page_alloc_put_page_frees_at_zero,
			test_page_alloc_put_page_removes_from_lru,
			test_page_alloc_get_page_unless_zero,
		} },
		{ "lru", 10, rt_vm_checked_setup, rt_vm_teardown, .tests = {
			test_page_alloc_lru_add_activate_del,
		} },
		{ "concurrency", 60, rt_vm_checked_setup, rt_vm_teardown, .tests = {
			test_page_alloc_storm_32_threads,
			test_page_alloc_concurrent_put_frees_once,
		} },
		{ "pcp", 60, rt_vm_checked_setup, rt_vm_teardown, .tests = {
			test_page_alloc_pcp_batch_follows_zone_size,
			test_page_alloc_pcp_freed_page_comes_back_first,
			test_page_alloc_pcp_refill_takes_batch_at_low,
			test_page_alloc_pcp_free_at_high_gives_batch_from_tail,
			test_page_alloc_pcp_detach_gives_pages_back,
			test_page_alloc_pcp_audit_accounts_every_page,
			test_page_alloc_pcp_two_threads_then_audit_clean,
		} },
		{ "pagevec", 60, rt_vm_checked_setup, rt_vm_teardown, .tests = {
			test_page_alloc_pagevec_fills_then_drains_under_one_lock,
			test_page_alloc_pagevec_drain_empties_both,
			test_page_alloc_pagevec_detach_drains,
			test_page_alloc_pagevec_audit_counts_references,
			test_page_alloc_release_pages_frees_batch,
			test_page_alloc_pagevec_churn_then_audit_clean,
		} },
		{ "atomic_sleep", 10, rt_vm_checked_setup, rt_vm_teardown, .tests = {
			test_page_alloc_gfp_kernel_in_atomic_reported,
		} },
	};

	rt_vm_use(&mem_fx);
	return rt_check_main(rt_suite("page_alloc", tcs, (int)ARRAY_SIZE(tcs)));
}
