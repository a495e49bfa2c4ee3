// SPDX-License-Identifier: MIT
/*
 * filemap: the page cache's insert/lookup/remove and its reference, the
 * fault-time read (backing data, SIGBUS beyond i_size, OOM), writeback,
 * truncate and extend (pages, backing store and shadow beyond the new
 * size), and the lock-free find_get_page() of 16 threads against insert
 * and remove cycles of others (no page returned that is not the slot's,
 * every reference balanced, every page free at the end).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "inject.h"
#include "lockdep.h"
#include "mm.h"
#include "page.h"
#include "page_alloc.h"
#include "rt_check.h"
#include "rt_vm.h"
#include "spinlock.h"
#include "task.h"

#define NR_PAGES	256UL

static unsigned long free_at_start;

static const struct rt_vm_suite filemap_fx = { { RMAP_PTECHAIN, NR_PAGES, 0, false }, RT_VM_TASK };

static void setup(void)
{
	rt_vm_setup(&filemap_fx, RMAP_PTECHAIN);
	free_at_start = nr_free_pages();
}

static uint64_t stamp(unsigned long index)
{
	return 0x5eed00000000ULL | (index + 1);
}

static struct page *new_locked_page(void)
{
	struct page *page = alloc_page(GFP_KERNEL);

	ck_assert_ptr_nonnull(page);
	lock_page(page);
	return page;
}

/* Take a page only the cache holds out of it: the cache's put frees it. */
/*
 * filemap_nopage(), then the new page's pagevec reference goes
 * (lru_add_drain()): the counts below are those of a page on the LRU.
 */
static struct page *nopage_drained(struct address_space *m, unsigned long index)
{
	struct page *page = filemap_nopage(m, index);

	lru_add_drain();
	return page;
}

static void evict(struct page *page)
{
	lock_page(page);
	remove_from_page_cache(page);
	unlock_page(page);	/* a locked page must not be freed */
	put_page(page);		/* the cache's reference */
}

/* ---- create ---- */

START_TEST(test_filemap_create_layout)
{
	struct address_space *a = file_create("a", 8, 16);
	struct address_space *b = file_create(NULL, 0, 1);

	ck_assert_uint_eq(a->i_size, 8);
	ck_assert_uint_eq(a->max_pages, 16);
	ck_assert_uint_eq(a->nrpages, 0);
	ck_assert_uint_eq(a->truncate_count, 0);
	ck_assert_str_eq(a->name, "a");
	ck_assert_int_ne(a->id, b->id);
	ck_assert(list_empty(&a->i_mmap));
	ck_assert(list_empty(&a->i_mmap_shared));
	ck_assert(list_empty(&a->i_mmap_nonlinear));
	ck_assert_int_eq(sema_count(&a->i_shared_sem), 1);
	ck_assert_int_eq(a->tree_lock.dep_map.class_id, LOCK_CLASS_TREE_LOCK);
	ck_assert_int_eq(a->i_shared_sem.dep_map.class_id, LOCK_CLASS_I_SHARED_SEM);
	/* The expected contents take no emulated lock (page.h's protocol). */
	ck_assert_int_eq(lock_class_by_name("data_shadow"), -1);
	for (unsigned long i = 0; i < 16; i++) {
		ck_assert_ptr_null(a->page_tree[i]);
		ck_assert_uint_eq(a->backing[i], 0);
		ck_assert_uint_eq(a->shadow[i], 0);
	}
	file_destroy(a);
	file_destroy(b);
}
END_TEST

/* ---- page cache ---- */

START_TEST(test_filemap_add_lookup_remove)
{
	struct address_space *m = file_create("f", 8, 8);
	struct page *page = new_locked_page(), *other = new_locked_page();
	struct page *found;

	ck_assert_int_eq(add_to_page_cache(page, m, 3), 0);
	ck_assert_int_eq(page_count(page), 2);	/* ours + the cache's */
	ck_assert_ptr_eq(page->as.mapping, m);
	ck_assert_uint_eq(page->index, 3);
	ck_assert_uint_eq(m->nrpages, 1);

	/* The slot is taken: nothing about either page changes. */
	ck_assert_int_eq(add_to_page_cache(other, m, 3), -EEXIST);
	ck_assert_int_eq(page_count(other), 1);
	ck_assert_ptr_null(other->as.mapping);
	ck_assert_uint_eq(m->nrpages, 1);
	unlock_page(other);
	put_page(other);
	unlock_page(page);

	found = find_get_page(m, 3);
	ck_assert_ptr_eq(found, page);
	ck_assert_int_eq(page_count(page), 3);
	put_page(found);
	ck_assert_ptr_null(find_get_page(m, 2));
	ck_assert_ptr_null(find_get_page(m, 8));	/* beyond max_pages */
	ck_assert_ptr_null(find_get_page(m, ~0UL));

	/* Removal hands the cache's reference to the caller. */
	lock_page(page);
	remove_from_page_cache(page);
	ck_assert_ptr_null(page->as.mapping);
	ck_assert_uint_eq(m->nrpages, 0);
	ck_assert_ptr_null(find_get_page(m, 3));
	ck_assert_int_eq(page_count(page), 2);
	put_page(page);
	unlock_page(page);
	ck_assert_int_eq(page_count(page), 1);
	put_page(page);
	ck_assert(PageBuddy(page));
	ck_assert_uint_eq(nr_free_pages(), free_at_start);
	file_destroy(m);
}
END_TEST

START_TEST(test_filemap_cache_reference_keeps_page)
{
	struct address_space *m = file_create("f", 4, 4);
	struct page *page = new_locked_page();

	ck_assert_int_eq(add_to_page_cache(page, m, 0), 0);
	unlock_page(page);
	put_page(page);		/* only the cache holds it now */
	ck_assert_int_eq(page_count(page), 1);
	ck_assert(!PageBuddy(page));
	ck_assert_uint_eq(nr_free_pages(), free_at_start - 1);

	evict(page);		/* the cache's put frees it */
	ck_assert(PageBuddy(page));
	ck_assert_uint_eq(nr_free_pages(), free_at_start);
	file_destroy(m);
}
END_TEST

/* ---- nopage ---- */

START_TEST(test_filemap_nopage_reads_backing)
{
	struct address_space *m = file_create("f", 6, 10);
	struct page *page, *again;

	for (unsigned long i = 0; i < 10; i++)
		m->backing[i] = stamp(i);
	for (unsigned long i = 0; i < 6; i++) {
		page = nopage_drained(m, i);
		ck_assert_ptr_nonnull(page);
		ck_assert_ptr_ne(page, FILEMAP_SIGBUS);
		ck_assert_uint_eq(page_data_read(page), stamp(i));
		ck_assert(PageUptodate(page));
		ck_assert(PageLRU(page));
		ck_assert(!PageLocked(page));
		ck_assert(!PageAnon(page));
		ck_assert_ptr_eq(page->as.mapping, m);
		ck_assert_uint_eq(page->index, i);
		ck_assert_int_eq(page_count(page), 2);	/* the caller's + the cache's */

		/* A hit: the same page, one more reference, no new read. */
		m->backing[i] = 0;
		again = nopage_drained(m, i);
		ck_assert_ptr_eq(again, page);
		ck_assert_int_eq(page_count(page), 3);
		ck_assert_uint_eq(page_data_read(page), stamp(i));
		put_page(again);
		put_page(page);
		ck_assert_int_eq(page_count(page), 1);
	}
	ck_assert_uint_eq(m->nrpages, 6);
	ck_assert_uint_eq(nr_free_pages(), free_at_start - 6);
	/* Beyond i_size (but within max_pages): SIGBUS, nothing cached. */
	ck_assert_ptr_eq(nopage_drained(m, 6), FILEMAP_SIGBUS);
	ck_assert_ptr_eq(nopage_drained(m, 9), FILEMAP_SIGBUS);
	ck_assert_ptr_eq(nopage_drained(m, 1000), FILEMAP_SIGBUS);
	ck_assert_uint_eq(m->nrpages, 6);

	file_destroy(m);	/* drops the cached pages */
	ck_assert_uint_eq(nr_free_pages(), free_at_start);
	ck_assert_uint_eq(contig_zone.nr_inactive + contig_zone.nr_active, 0);
}
END_TEST

START_TEST(test_filemap_nopage_oom_returns_null)
{
	struct address_space *m = file_create("f", 4, 4);
	struct page **pages = calloc(max_mapnr, sizeof(*pages));
	struct page *page;
	unsigned long n = 0;

	ck_assert_ptr_nonnull(pages);
	m->backing[2] = stamp(2);
	while ((pages[n] = alloc_page(GFP_ATOMIC)) != NULL)
		n++;
	ck_assert_uint_eq(n, max_mapnr - 1);

	ck_assert_ptr_null(nopage_drained(m, 2));
	ck_assert_uint_eq(m->nrpages, 0);
	ck_assert_ptr_null(m->page_tree[2]);
	/* Still SIGBUS, not OOM, beyond i_size. */
	ck_assert_ptr_eq(nopage_drained(m, 4), FILEMAP_SIGBUS);

	/* One page back: the fault succeeds. */
	put_page(pages[--n]);
	page = nopage_drained(m, 2);
	ck_assert_ptr_nonnull(page);
	ck_assert_ptr_ne(page, FILEMAP_SIGBUS);
	ck_assert_uint_eq(page_data_read(page), stamp(2));
	ck_assert_ptr_null(nopage_drained(m, 3));
	put_page(page);

	while (n)
		put_page(pages[--n]);
	file_destroy(m);
	ck_assert_uint_eq(nr_free_pages(), free_at_start);
	free(pages);
}
END_TEST

/* ---- writeback ---- */

START_TEST(test_filemap_writeback_copies_data)
{
	struct address_space *m = file_create("f", 4, 4);
	struct page *page = nopage_drained(m, 1);

	ck_assert_ptr_nonnull(page);
	ck_assert_ptr_ne(page, FILEMAP_SIGBUS);
	ck_assert_uint_eq(page_data_read(page), 0);
	page_data_write(page, 0xabcdef);
	set_page_dirty(page);
	ck_assert_uint_eq(m->backing[1], 0);

	lock_page(page);
	writeback_page(page);
	unlock_page(page);
	ck_assert(!PageDirty(page));
	ck_assert_uint_eq(m->backing[1], 0xabcdef);
	ck_assert_uint_eq(m->backing[0], 0);
	ck_assert_uint_eq(m->backing[2], 0);

	/* Evicted and read again: the disk has it. */
	put_page(page);
	evict(page);
	ck_assert(PageBuddy(page));
	page = nopage_drained(m, 1);
	ck_assert_ptr_nonnull(page);
	ck_assert_uint_eq(page_data_read(page), 0xabcdef);
	put_page(page);
	file_destroy(m);
	ck_assert_uint_eq(nr_free_pages(), free_at_start);
}
END_TEST

/* ---- truncate ---- */

START_TEST(test_filemap_truncate_drops_pages_beyond)
{
	struct address_space *m = file_create("f", 16, 16);
	struct page *held = NULL, *page;
	unsigned long tc0;

	rt_reports_capture();
	for (unsigned long i = 0; i < 16; i++) {
		m->backing[i] = stamp(i);
		m->shadow[i] = stamp(i) + 100;
	}
	/* Cache 0..13 (14 and 15 stay uncached), some dirty. */
	for (unsigned long i = 0; i < 14; i++) {
		page = nopage_drained(m, i);
		ck_assert_ptr_nonnull(page);
		ck_assert_ptr_ne(page, FILEMAP_SIGBUS);
		if (i & 1)
			set_page_dirty(page);
		if (i != 10)
			put_page(page);
		else
			held = page;	/* a user other than the cache */
	}
	ck_assert_uint_eq(m->nrpages, 14);
	ck_assert_int_eq(page_count(held), 2);

	tc0 = m->truncate_count;
	vmtruncate(m, 6);

	/* unmap_mapping_range() told racing faults to re-check. */
	ck_assert_uint_gt(m->truncate_count, tc0);
	ck_assert_uint_eq(m->i_size, 6);
	ck_assert_uint_eq(m->nrpages, 6);
	for (unsigned long i = 0; i < 16; i++) {
		page = find_get_page(m, i);
		if (i < 6) {
			ck_assert_ptr_nonnull(page);
			ck_assert_uint_eq(page_data_read(page), stamp(i));
			ck_assert_int_eq(page_count(page), 2);
			ck_assert(PageDirty(page) == (i & 1));
			put_page(page);
			ck_assert_uint_eq(m->backing[i], stamp(i));
			ck_assert_uint_eq(m->shadow[i], stamp(i) + 100);
		} else {
			ck_assert_ptr_null(page);
			ck_assert_uint_eq(m->backing[i], 0);
			ck_assert_uint_eq(m->shadow[i], 0);
		}
	}
	/* The held page left the cache; only our reference remains. */
	ck_assert_ptr_null(held->as.mapping);
	ck_assert(!PageDirty(held));
	ck_assert_int_eq(page_count(held), 1);
	ck_assert_uint_eq(page_data_read(held), stamp(10));
	put_page(held);
	ck_assert(PageBuddy(held));
	ck_assert_uint_eq(nr_free_pages(), free_at_start - 6);
	ck_assert_ptr_eq(nopage_drained(m, 6), FILEMAP_SIGBUS);
	ck_assert_ptr_eq(nopage_drained(m, 15), FILEMAP_SIGBUS);

	/* Truncating to the same size or above only (re)grows. */
	vmtruncate(m, 6);
	ck_assert_uint_eq(m->i_size, 6);
	ck_assert_uint_eq(m->nrpages, 6);

	/* Extend: the new offsets read as zero. */
	file_extend(m, 12);
	ck_assert_uint_eq(m->i_size, 12);
	for (unsigned long i = 6; i < 12; i++) {
		page = nopage_drained(m, i);
		ck_assert_ptr_nonnull(page);
		ck_assert_ptr_ne(page, FILEMAP_SIGBUS);
		ck_assert_uint_eq(page_data_read(page), 0);
		put_page(page);
	}
	ck_assert_ptr_eq(nopage_drained(m, 12), FILEMAP_SIGBUS);
	file_extend(m, 3);		/* not a shrink */
	ck_assert_uint_eq(m->i_size, 12);
	file_extend(m, 1000);		/* clamped */
	ck_assert_uint_eq(m->i_size, 16);
	vmtruncate(m, 0);
	ck_assert_uint_eq(m->i_size, 0);
	ck_assert_uint_eq(m->nrpages, 0);
	ck_assert_uint_eq(nr_free_pages(), free_at_start);
	for (unsigned long i = 0; i < 16; i++)
		ck_assert_uint_eq(m->backing[i], 0);
	vmtruncate(m, 4);		/* grows, as file_extend() */
	ck_assert_uint_eq(m->i_size, 4);
	file_destroy(m);
	ck_assert_uint_eq(contig_zone.nr_inactive + contig_zone.nr_active, 0);
	rt_assert_no_lockdep_reports();
	rt_reports_release();
}
END_TEST

START_TEST(test_filemap_extend_drops_stale_page_beyond_size)
{
	struct address_space *m = file_create("f", 2, 8);
	struct page *page = new_locked_page();

	/*
	 * A page left in the cache beyond i_size, as a fault that raced a
	 * truncate leaves it: extending must not expose its old contents.
	 */
	page_data_write(page, 0xdead);
	ck_assert_int_eq(add_to_page_cache(page, m, 5), 0);
	unlock_page(page);
	put_page(page);
	file_extend(m, 8);
	ck_assert_uint_eq(m->nrpages, 0);
	ck_assert(PageBuddy(page));
	page = nopage_drained(m, 5);
	ck_assert_ptr_nonnull(page);
	ck_assert_uint_eq(page_data_read(page), 0);
	put_page(page);
	file_destroy(m);
	ck_assert_uint_eq(nr_free_pages(), free_at_start);
}
END_TEST

/* ---- concurrency ---- */

#define RACE_READERS	16
#define RACE_WRITERS	4
#define RACE_INDICES	32UL
#define RACE_CYCLES	400
#define RACE_MIN_READS	2000

struct race {
	struct address_space *m;
	int writers_left;		/* atomic */
	unsigned long hits;		/* atomic */
	unsigned long lookups;		/* atomic */
	unsigned long inserted;		/* atomic */
};

static uint64_t race_stamp(unsigned long index, int cycle)
{
	return ((uint64_t)(index + 1) << 32) | (uint64_t)cycle;
}

/* Each writer owns the indices congruent to it: insert, yield, remove. */
static void race_writer(int w, struct race *r)
{
	uint64_t rng = rt_thread_rng(w);
	unsigned long inserted = 0;

	for (int cycle = 0; cycle < RACE_CYCLES && !rt_first_failure(); cycle++) {
		unsigned long index = (unsigned long)w +
			RACE_WRITERS * (rt_rand(&rng) % (RACE_INDICES / RACE_WRITERS));
		struct page *page = alloc_page(GFP_KERNEL);

		if (!page) {
			rt_fail("w%d: out of memory", w);
			break;
		}
		lock_page(page);
		page_data_write(page, race_stamp(index, cycle));
		SetPageUptodate(page);
		if (add_to_page_cache(page, r->m, index)) {
			rt_fail("w%d: index %lu taken though it is ours", w, index);
			unlock_page(page);
			put_page(page);
			break;
		}
		if (rt_rand(&rng) & 1)
			lru_cache_add(page);
		unlock_page(page);
		inserted++;
		if (rt_rand(&rng) % 4 == 0)
			sched_yield();
		lock_page(page);
		remove_from_page_cache(page);
		put_page(page);		/* the cache's reference */
		unlock_page(page);
		put_page(page);		/* ours: freed unless a reader holds it */
	}
	__atomic_fetch_add(&r->inserted, inserted, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&r->writers_left, 1, __ATOMIC_RELEASE);
}

static void race_reader(int idx, struct race *r)
{
	uint64_t rng = rt_seed_child(rt_test_seed(), (uint64_t)(idx + 101));
	unsigned long hits = 0, lookups = 0;

	/* Acquire pairs with the release of the last writer's decrement. */
	while ((__atomic_load_n(&r->writers_left, __ATOMIC_ACQUIRE) > 0 ||
		lookups < RACE_MIN_READS) && !rt_first_failure()) {
		unsigned long index = rt_rand(&rng) % RACE_INDICES;
		struct page *page = find_get_page(r->m, index);
		struct address_space *mapping;
		uint64_t data;

		lookups++;
		if (!page)
			continue;
		hits++;
		/*
		 * We hold a reference: the page cannot be freed and reused,
		 * so it is this file's page at this index, or (removed since)
		 * no file's, and its data is what its writer stamped.
		 */
		data = page_data_read(page);
		mapping = READ_ONCE(page->as.mapping);
		if (data >> 32 != index + 1)
			rt_fail("r%d: index %lu got data %#llx (pfn %lu)", idx, index,
				(unsigned long long)data, page_to_pfn(page));
		if (mapping && (mapping != r->m || READ_ONCE(page->index) != index))
			rt_fail("r%d: index %lu got a page of %p index %lu", idx, index,
				(void *)mapping, READ_ONCE(page->index));
		if (page_count(page) < 1 || PageBuddy(page))
			rt_fail("r%d: index %lu got a free page", idx, index);
		if (rt_rand(&rng) % 8 == 0)
			sched_yield();
		put_page(page);
	}
	__atomic_fetch_add(&r->hits, hits, __ATOMIC_RELAXED);
	__atomic_fetch_add(&r->lookups, lookups, __ATOMIC_RELAXED);
}

static void race_worker(int idx, void *arg)
{
	if (idx < RACE_WRITERS)
		race_writer(idx, arg);
	else
		race_reader(idx, arg);
}

START_TEST(test_filemap_rcu_lookup_vs_insert_remove)
{
	struct race r = { .writers_left = RACE_WRITERS };

	r.m = file_create("race", RACE_INDICES, RACE_INDICES);
	rt_failure_reset();
	rt_reports_capture();
	rt_run_threads(RACE_WRITERS + RACE_READERS, race_worker, &r);
	ck_assert_no_worker_failure();
	rt_assert_no_lockdep_reports();
	rt_reports_release();

	ck_assert_uint_eq(r.inserted, RACE_WRITERS * RACE_CYCLES);
	ck_assert_uint_ge(r.lookups, RACE_READERS * RACE_MIN_READS);
	ck_assert_uint_le(r.hits, r.lookups);
	ck_assert_uint_eq(r.m->nrpages, 0);
	for (unsigned long i = 0; i < RACE_INDICES; i++)
		ck_assert_ptr_null(r.m->page_tree[i]);
	/* Every reference balanced: every page is free again. */
	ck_assert_uint_eq(nr_free_pages(), free_at_start);
	ck_assert_uint_eq(contig_zone.nr_inactive + contig_zone.nr_active, 0);
	for (unsigned long pfn = 1; pfn < max_mapnr; pfn++)
		ck_assert_int_eq(page_count(pfn_to_page(pfn)), 0);
	file_destroy(r.m);
}
END_TEST

#define FAULT_THREADS	16
#define FAULT_INDICES	48UL
#define FAULT_ROUNDS	20

static void fault_worker(int idx, void *arg)
{
	struct address_space *m = arg;
	uint64_t rng = rt_thread_rng(idx);

	for (int round = 0; round < FAULT_ROUNDS && !rt_first_failure(); round++) {
		for (unsigned long k = 0; k < FAULT_INDICES; k++) {
			unsigned long index = (k + rt_rand(&rng)) % FAULT_INDICES;
			struct page *page = nopage_drained(m, index);

			if (!page || page == FILEMAP_SIGBUS) {
				rt_fail("t%d: index %lu: %s", idx, index,
					page ? "SIGBUS" : "OOM");
				return;
			}
			if (page_data_read(page) != stamp(index))
				rt_fail("t%d: index %lu read %#llx", idx, index,
					(unsigned long long)page_data_read(page));
			if (READ_ONCE(page->as.mapping) != m || READ_ONCE(page->index) != index)
				rt_fail("t%d: index %lu: wrong page", idx, index);
			put_page(page);
		}
	}
}

START_TEST(test_filemap_concurrent_nopage_one_page_per_index)
{
	struct address_space *m = file_create("faults", FAULT_INDICES, FAULT_INDICES);

	for (unsigned long i = 0; i < FAULT_INDICES; i++)
		m->backing[i] = stamp(i);
	rt_failure_reset();
	rt_reports_capture();
	rt_run_threads(FAULT_THREADS, fault_worker, m);
	ck_assert_no_worker_failure();
	rt_assert_no_lockdep_reports();
	rt_reports_release();

	/* The losers of each insert race freed their pages: one per index. */
	ck_assert_uint_eq(m->nrpages, FAULT_INDICES);
	ck_assert_uint_eq(nr_free_pages(), free_at_start - FAULT_INDICES);
	for (unsigned long i = 0; i < FAULT_INDICES; i++)
		ck_assert_int_eq(page_count(m->page_tree[i]), 1);
	file_destroy(m);
	ck_assert_uint_eq(nr_free_pages(), free_at_start);
}
END_TEST

#define TRUNC_FAULTERS	8
#define TRUNC_INDICES	32UL
#define TRUNC_ROUNDS	8
#define TRUNC_OPS	60

struct trunc_race {
	struct address_space *m;
	int faulters_left;		/* atomic */
	unsigned long sigbus;		/* atomic */
	unsigned long faults;		/* atomic */
};

static void trunc_worker(int idx, void *arg)
{
	struct trunc_race *tr = arg;
	uint64_t rng = rt_thread_rng(idx);
	unsigned long sigbus = 0, faults = 0;

	if (idx == 0) {
		/* Shrink and grow while others fault; end on a shrink. */
		/* Acquire pairs with the faulters' release decrements. */
		while (__atomic_load_n(&tr->faulters_left, __ATOMIC_ACQUIRE) > 0) {
			file_extend(tr->m, TRUNC_INDICES);
			if (rt_rand(&rng) & 1)
				sched_yield();
			vmtruncate(tr->m, rt_rand(&rng) % TRUNC_INDICES);
		}
		return;
	}
	for (int op = 0; op < TRUNC_OPS && !rt_first_failure(); op++) {
		unsigned long index = rt_rand(&rng) % TRUNC_INDICES;
		struct page *page = nopage_drained(tr->m, index);

		faults++;
		if (!page) {
			rt_fail("t%d: OOM", idx);
			break;
		}
		if (page == FILEMAP_SIGBUS) {
			sigbus++;
			continue;
		}
		/* The disk's stamp, or zero once a truncate passed over it. */
		if (page_data_read(page) != stamp(index) && page_data_read(page) != 0)
			rt_fail("t%d: index %lu read %#llx", idx, index,
				(unsigned long long)page_data_read(page));
		put_page(page);
	}
	__atomic_fetch_add(&tr->sigbus, sigbus, __ATOMIC_RELAXED);
	__atomic_fetch_add(&tr->faults, faults, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&tr->faulters_left, 1, __ATOMIC_RELEASE);
}

START_TEST(test_filemap_nopage_vs_truncate_nothing_cached_beyond_size)
{
	struct trunc_race tr = { 0 };

	tr.m = file_create("trunc", TRUNC_INDICES, TRUNC_INDICES);
	for (unsigned long i = 0; i < TRUNC_INDICES; i++)
		tr.m->backing[i] = stamp(i);
	rt_failure_reset();
	rt_reports_capture();
	for (int round = 0; round < TRUNC_ROUNDS; round++) {
		unsigned long size, cached = 0;

		tr.faulters_left = TRUNC_FAULTERS;
		rt_run_threads(TRUNC_FAULTERS + 1, trunc_worker, &tr);
		ck_assert_no_worker_failure();
		/* Quiescent: what the audit checks. */
		size = tr.m->i_size;
		for (unsigned long i = 0; i < TRUNC_INDICES; i++) {
			struct page *page = tr.m->page_tree[i];

			if (!page)
				continue;
			cached++;
			ck_assert_msg(i < size, "round %d: offset %lu cached beyond i_size %lu",
				      round, i, size);
			ck_assert_int_eq(page_count(page), 1);
			ck_assert_ptr_eq(page->as.mapping, tr.m);
		}
		for (unsigned long i = size; i < TRUNC_INDICES; i++)
			ck_assert_uint_eq(tr.m->backing[i], 0);
		ck_assert_uint_eq(tr.m->nrpages, cached);
		ck_assert_uint_eq(nr_free_pages(), free_at_start - cached);
	}
	rt_assert_no_lockdep_reports();
	rt_reports_release();
	ck_assert_uint_eq(tr.faults, (unsigned long)TRUNC_ROUNDS * TRUNC_FAULTERS * TRUNC_OPS);
	file_destroy(tr.m);
	ck_assert_uint_eq(nr_free_pages(), free_at_start);
}
END_TEST

/* ---- truncate of nonlinear vmas ---- */

static const struct rt_vm_suite nl_fx = RT_VM_AUDITED(RMAP_PTECHAIN, NR_PAGES, 0);

/*
 * A nonlinear window showing file page 9 in its first slot, truncated to
 * 4 pages: 2.6.7 on (every design) zap the vma whole, so page 9 goes and
 * its slot faults SIGBUS; 2.6.3's linear-window zap
 * (truncate-nonlinear-linear) zaps nothing there (the window's linear
 * offsets are 0-3), and truncate reports the page it takes out of the
 * file still mapped.
 */
START_TEST(test_filemap_truncate_zaps_nonlinear_whole)
{
	for (int bug = 0; bug < 2; bug++) {
		__atomic_store_n(&inject_mask, bug ? 1ULL << INJECT_TRUNCATE_NONLINEAR_LINEAR : 0,
				 __ATOMIC_RELAXED);
		RT_VM_EACH_DESIGN(&nl_fx, {
			struct address_space *f = file_create("nlt", 16, 16);
			struct mm_struct *mm = mm_alloc();
			long nl = rt_mmap(mm, f, 0, 4, VM_READ | VM_WRITE | VM_SHARED, 0);
			struct vm_report r;
			int orphans;

			ck_assert_int_gt(nl, 0);
			ck_assert_int_eq(remap_file_pages(mm, nl, PAGE_SIZE, 9), 0);
			ck_assert_int_eq(rt_access(mm, nl, true, NULL), ACCESS_OK);
			ck_assert_int_eq(rt_access(mm, nl + PAGE_SIZE, true, NULL), ACCESS_OK);
			vmtruncate(f, 4);
			orphans = rt_reports_count(VM_REPORT_AUDIT);
			if (!bug) {
				ck_assert_msg(orphans == 0, "[%s] %d reports",
					      rmap_mode_name(rmap_mode), orphans);
				ck_assert_ptr_null(rt_page_at(mm, nl));
				ck_assert_int_eq(rt_access(mm, nl, false, NULL), ACCESS_SIGBUS);
				ck_assert_ptr_nonnull(rt_page_at(mm, nl + PAGE_SIZE));
				rt_audit_ok(&mm, 1, &f, 1);
			} else {
				ck_assert_msg(orphans == 1 && rt_reports_first(VM_REPORT_AUDIT, &r) &&
					      !strcmp(r.signature, "audit:orphaned-pte"),
					      "[%s] %d reports", rmap_mode_name(rmap_mode), orphans);
				rt_reports_release();
				rt_reports_capture();
			}
			mmput(mm);
			file_destroy(f);
		});
	}
	__atomic_store_n(&inject_mask, 0, __ATOMIC_RELAXED);
}
END_TEST

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "create", 10, setup, rt_vm_teardown, .tests = {
			test_filemap_create_layout,
		} },
		{ "page_cache", 10, setup, rt_vm_teardown, .tests = {
			test_filemap_add_lookup_remove,
			test_filemap_cache_reference_keeps_page,
		} },
		{ "nopage", 10, setup, rt_vm_teardown, .tests = {
			test_filemap_nopage_reads_backing,
			test_filemap_nopage_oom_returns_null,
			test_filemap_writeback_copies_data,
		} },
		{ "truncate", 10, setup, rt_vm_teardown, .tests = {
			test_filemap_truncate_drops_pages_beyond,
			test_filemap_extend_drops_stale_page_beyond_size,
		} },
		{ "nonlinear_truncate", 30, NULL, NULL, .tests = {
			test_filemap_truncate_zaps_nonlinear_whole,
		} },
		{ "concurrency", 60, setup, rt_vm_teardown, .tests = {
			test_filemap_rcu_lookup_vs_insert_remove,
			test_filemap_concurrent_nopage_one_page_per_index,
			test_filemap_nopage_vs_truncate_nothing_cached_beyond_size,
		} },
	};

	return rt_check_main(rt_suite("filemap", tcs, (int)ARRAY_SIZE(tcs)));
}
