// SPDX-License-Identifier: MIT
/*
 * swap: slot allocation until full (slot 0 never handed out), counts
 * under duplicate/free, the slot data round trip, the swap cache and its
 * count rule (a slot's count is its swap ptes plus one while cached),
 * add_to_swap() on a full area, remove_exclusive_swap_page()'s
 * conditions, and a 32-thread storm of get/duplicate/free and swap cache
 * cycles, each thread checking the counts of the slots it owns; and
 * swapoff (core/swapfile.c), alone and against fork, exit, swap-in and
 * reclaim on other threads, in every design: every slot freed, every
 * swap pte back to its page, the audit clean.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "lockdep.h"
#include "mm.h"
#include "page.h"
#include "page_alloc.h"
#include "pgtable.h"
#include "rt_check.h"
#include "rt_vm.h"
#include "swap.h"
#include "task.h"
#include "vm_fixture.h"
#include "vmscan.h"

#define NR_PAGES	256UL
#define NR_SLOTS	64UL

static unsigned long free_at_start;

static const struct rt_vm_suite swap_fx = { { RMAP_PTECHAIN, NR_PAGES, NR_SLOTS, false }, RT_VM_TASK };

static void setup(void)
{
	rt_vm_setup(&swap_fx, RMAP_PTECHAIN);
	free_at_start = nr_free_pages();
}

/* A locked anonymous page, as reclaim holds it before add_to_swap(). */
static struct page *new_anon_page(void)
{
	struct page *page = alloc_page(GFP_KERNEL);

	ck_assert_ptr_nonnull(page);
	SetPageAnon(page);
	lock_page(page);
	return page;
}

static void free_anon_page(struct page *page)
{
	unlock_page(page);
	ClearPageAnon(page);
	put_page(page);
}

/* ---- init ---- */

START_TEST(test_swap_init_sizes)
{
	ck_assert_int_eq(swap_init(NR_SLOTS), -EBUSY);
	ck_assert_uint_eq(nr_swap_slots(), NR_SLOTS);
	ck_assert_uint_eq(nr_swap_used(), 0);
	ck_assert_uint_eq(swap_cache_pages(), 0);
	ck_assert_uint_eq(swap_leaked_slots(), 0);

	swap_exit();
	ck_assert_uint_eq(nr_swap_slots(), 0);
	/* No area: full, and nothing can be looked up. */
	ck_assert_uint_eq(get_swap_page().val, 0);
	ck_assert_ptr_null(lookup_swap_cache(swp_entry(0, 1)));
	ck_assert(!swap_duplicate(swp_entry(0, 1)));
	ck_assert_int_eq(swap_init(0), -EINVAL);
	ck_assert_int_eq(swap_init(1), -EINVAL);
	ck_assert_int_eq(swap_init(2), 0);
	ck_assert_uint_eq(nr_swap_slots(), 2);
	swap_exit();
	ck_assert_int_eq(swap_init(NR_SLOTS), 0);	/* for teardown */
}
END_TEST

/* ---- slots ---- */

START_TEST(test_swap_alloc_until_full)
{
	swp_entry_t e[NR_SLOTS];
	bool seen[NR_SLOTS] = { false };
	swp_entry_t again;
	unsigned long n = 0;

	for (;;) {
		swp_entry_t entry = get_swap_page();

		if (!entry.val)
			break;
		ck_assert_uint_lt(n, NR_SLOTS - 1);
		ck_assert_uint_eq(swp_type(entry), 0);
		ck_assert_uint_ne(swp_offset(entry), 0);	/* the header */
		ck_assert_uint_lt(swp_offset(entry), NR_SLOTS);
		ck_assert_msg(!seen[swp_offset(entry)], "slot %lu twice", swp_offset(entry));
		seen[swp_offset(entry)] = true;
		ck_assert_int_eq(swap_count(entry), 1);
		e[n++] = entry;
	}
	ck_assert_uint_eq(n, NR_SLOTS - 1);
	ck_assert_uint_eq(nr_swap_used(), NR_SLOTS - 1);
	ck_assert_uint_eq(swap_leaked_slots(), NR_SLOTS - 1);
	ck_assert_uint_eq(get_swap_page().val, 0);	/* still full */

	/* A freed slot is handed out again. */
	swap_free(e[17]);
	ck_assert_int_eq(swap_count(e[17]), 0);
	ck_assert_uint_eq(nr_swap_used(), NR_SLOTS - 2);
	again = get_swap_page();
	ck_assert_uint_eq(again.val, e[17].val);
	ck_assert_uint_eq(get_swap_page().val, 0);

	for (unsigned long i = 0; i < n; i++)
		swap_free(e[i]);
	ck_assert_uint_eq(nr_swap_used(), 0);
	ck_assert_uint_eq(swap_leaked_slots(), 0);
}
END_TEST

/* swap_counts(), the audit's one-lock read of the map, agrees with swap_count() slot by slot. */
START_TEST(test_swap_counts_reads_every_slot)
{
	unsigned int counts[NR_SLOTS + 1];
	swp_entry_t a = get_swap_page(), b = get_swap_page(), c = get_swap_page();

	ck_assert(swap_duplicate(a));
	ck_assert(swap_duplicate(a));
	swap_free(b);
	memset(counts, 0xff, sizeof(counts));
	ck_assert_uint_eq(swap_counts(counts, NR_SLOTS + 1), NR_SLOTS);
	ck_assert_uint_eq(counts[NR_SLOTS], ~0u);	/* nothing past the area */
	ck_assert_uint_eq(counts[swp_offset(a)], 3);
	ck_assert_uint_eq(counts[swp_offset(b)], 0);
	ck_assert_uint_eq(counts[swp_offset(c)], 1);
	for (unsigned long off = 1; off < NR_SLOTS; off++)
		ck_assert_int_eq((int)counts[off], swap_count(swp_entry(0, off)));
	/* Room for fewer: that many, and no more. */
	memset(counts, 0xff, sizeof(counts));
	ck_assert_uint_eq(swap_counts(counts, 2), 2);
	ck_assert_uint_eq(counts[2], ~0u);
	for (int i = 0; i < 3; i++)
		swap_free(a);
	swap_free(c);
	ck_assert_uint_eq(nr_swap_used(), 0);
}
END_TEST

START_TEST(test_swap_duplicate_and_free_counts)
{
	swp_entry_t entry = get_swap_page(), other = get_swap_page();

	ck_assert_uint_ne(entry.val, 0);
	ck_assert_uint_ne(other.val, entry.val);
	for (int i = 0; i < 3; i++)
		ck_assert(swap_duplicate(entry));
	ck_assert_int_eq(swap_count(entry), 4);
	ck_assert_int_eq(swap_count(other), 1);
	ck_assert_uint_eq(nr_swap_used(), 2);
	for (int i = 0; i < 3; i++)
		swap_free(entry);
	ck_assert_int_eq(swap_count(entry), 1);
	ck_assert_uint_eq(nr_swap_used(), 2);
	swap_free(entry);
	ck_assert_int_eq(swap_count(entry), 0);
	ck_assert_uint_eq(nr_swap_used(), 1);

	/* Stale and foreign entries are refused. */
	ck_assert(!swap_duplicate(entry));
	ck_assert_int_eq(swap_count(entry), 0);
	ck_assert(!swap_duplicate(swp_entry(0, 0)));
	ck_assert(!swap_duplicate(swp_entry(0, NR_SLOTS)));
	ck_assert(!swap_duplicate(swp_entry(1, swp_offset(other))));
	ck_assert_int_eq(swap_count(other), 1);
	swap_free(other);
	ck_assert_uint_eq(nr_swap_used(), 0);
}
END_TEST

START_TEST(test_swap_data_round_trip)
{
	struct page *page = new_anon_page(), *in;
	swp_entry_t entry;

	page_data_write(page, 0xfeedface);
	ck_assert(add_to_swap(page));
	entry.val = page->private;
	ck_assert_uint_ne(entry.val, 0);
	ck_assert(PageDirty(page));	/* must be written before it is freed */
	swap_writepage(page);
	ck_assert(!PageDirty(page));

	in = alloc_page(GFP_KERNEL);
	ck_assert_ptr_nonnull(in);
	lock_page(in);
	ck_assert(!PageUptodate(in));
	swap_readpage(in, entry);
	ck_assert(PageUptodate(in));
	ck_assert_uint_eq(page_data_read(in), 0xfeedface);
	unlock_page(in);
	put_page(in);

	/* A rewrite replaces the slot's data. */
	page_data_write(page, 0x1234);
	SetPageDirty(page);
	swap_writepage(page);
	in = alloc_page(GFP_KERNEL);
	ck_assert_ptr_nonnull(in);
	lock_page(in);
	swap_readpage(in, entry);
	ck_assert_uint_eq(page_data_read(in), 0x1234);
	unlock_page(in);
	put_page(in);

	delete_from_swap_cache(page);
	free_anon_page(page);
	ck_assert_uint_eq(nr_swap_used(), 0);
	ck_assert_uint_eq(nr_free_pages(), free_at_start);
}
END_TEST

/* ---- swap cache ---- */

START_TEST(test_swap_cache_add_lookup_delete)
{
	struct page *page = new_anon_page(), *other = new_anon_page(), *found;
	swp_entry_t entry = get_swap_page(), spare = get_swap_page();

	ck_assert_uint_ne(entry.val, 0);
	/* The count get_swap_page() gave us becomes the cache's. */
	ck_assert_int_eq(add_to_swap_cache(page, entry), 0);
	ck_assert(PageSwapCache(page));
	ck_assert_uint_eq(page->private, entry.val);
	ck_assert_int_eq(page_count(page), 2);
	ck_assert_int_eq(swap_count(entry), 1);
	ck_assert_uint_eq(swap_cache_pages(), 1);

	found = lookup_swap_cache(entry);
	ck_assert_ptr_eq(found, page);
	ck_assert_int_eq(page_count(page), 3);
	put_page(found);
	ck_assert_ptr_null(lookup_swap_cache(spare));
	ck_assert_ptr_null(lookup_swap_cache(swp_entry(0, 0)));

	/* Another page for the same entry loses; no count moves. */
	ck_assert_int_eq(add_to_swap_cache(other, entry), -EEXIST);
	ck_assert(!PageSwapCache(other));
	ck_assert_uint_eq(other->private, 0);
	ck_assert_int_eq(page_count(other), 1);
	ck_assert_int_eq(swap_count(entry), 1);
	ck_assert_uint_eq(swap_cache_pages(), 1);

	/* Deleting drops the cache's slot count (freeing it) and reference. */
	delete_from_swap_cache(page);
	ck_assert(!PageSwapCache(page));
	ck_assert_uint_eq(page->private, 0);
	ck_assert_int_eq(page_count(page), 1);
	ck_assert_int_eq(swap_count(entry), 0);
	ck_assert_uint_eq(swap_cache_pages(), 0);
	ck_assert_ptr_null(lookup_swap_cache(entry));

	free_anon_page(page);
	free_anon_page(other);
	swap_free(spare);
	ck_assert_uint_eq(nr_swap_used(), 0);
	ck_assert_uint_eq(nr_free_pages(), free_at_start);
}
END_TEST

START_TEST(test_swap_cache_count_rule_swapin)
{
	struct page *page;
	swp_entry_t entry;

	/*
	 * Swap-out: the page's slot; two "swap ptes" take their counts as
	 * try_to_unmap() does; the cache lets go after writeback.
	 */
	page = new_anon_page();
	ck_assert(add_to_swap(page));
	entry.val = page->private;
	ck_assert(swap_duplicate(entry));
	ck_assert(swap_duplicate(entry));
	ck_assert_int_eq(swap_count(entry), 2 + 1);
	swap_writepage(page);
	delete_from_swap_cache(page);
	ck_assert_int_eq(swap_count(entry), 2);
	free_anon_page(page);

	/* Swap-in: duplicate first (the cache's count), then insert. */
	page = alloc_page(GFP_KERNEL);
	ck_assert_ptr_nonnull(page);
	lock_page(page);
	ck_assert(swap_duplicate(entry));
	ck_assert_int_eq(add_to_swap_cache(page, entry), 0);
	ck_assert_int_eq(swap_count(entry), 2 + 1);
	swap_readpage(page, entry);
	SetPageAnon(page);
	/* One pte maps the page instead of naming the slot. */
	swap_free(entry);
	ck_assert_int_eq(swap_count(entry), 1 + 1);
	/* Another pte still names the slot: not exclusive. */
	ck_assert(!remove_exclusive_swap_page(page));
	ck_assert(PageSwapCache(page));
	swap_free(entry);		/* that pte zapped */
	ck_assert_int_eq(swap_count(entry), 1);
	ck_assert(remove_exclusive_swap_page(page));
	ck_assert_int_eq(swap_count(entry), 0);
	ck_assert_uint_eq(nr_swap_used(), 0);
	free_anon_page(page);
	ck_assert_uint_eq(nr_free_pages(), free_at_start);
}
END_TEST

START_TEST(test_swap_add_to_swap_full_returns_false)
{
	swp_entry_t e[NR_SLOTS];
	struct page *page = new_anon_page();
	unsigned long n = 0;

	while ((e[n] = get_swap_page()).val)
		n++;
	ck_assert_uint_eq(n, NR_SLOTS - 1);
	ck_assert(!add_to_swap(page));
	ck_assert(!PageSwapCache(page));
	ck_assert(!PageDirty(page));
	ck_assert_uint_eq(page->private, 0);
	ck_assert_int_eq(page_count(page), 1);
	ck_assert_uint_eq(swap_cache_pages(), 0);

	swap_free(e[5]);
	ck_assert(add_to_swap(page));
	ck_assert_uint_eq(page->private, e[5].val);
	ck_assert_int_eq(swap_count(e[5]), 1);
	delete_from_swap_cache(page);
	free_anon_page(page);
	for (unsigned long i = 0; i < n; i++)
		if (i != 5)
			swap_free(e[i]);
	ck_assert_uint_eq(nr_swap_used(), 0);
}
END_TEST

START_TEST(test_swap_remove_exclusive_conditions)
{
	struct page *page = new_anon_page();
	swp_entry_t entry;

	/* Not in the swap cache: nothing to do. */
	ck_assert(!remove_exclusive_swap_page(page));

	ck_assert(add_to_swap(page));
	entry.val = page->private;

	/* A swap pte names the slot: not exclusive. */
	ck_assert(swap_duplicate(entry));
	ck_assert(!remove_exclusive_swap_page(page));
	ck_assert_int_eq(swap_count(entry), 2);
	swap_free(entry);

	/* Someone else holds the page (a lookup in flight): not exclusive. */
	get_page(page);
	ck_assert(!remove_exclusive_swap_page(page));
	ck_assert(PageSwapCache(page));
	ck_assert_int_eq(page_count(page), 3);
	put_page(page);

	/* Only the caller and the cache: removed, slot freed. */
	ck_assert(remove_exclusive_swap_page(page));
	ck_assert(!PageSwapCache(page));
	ck_assert_uint_eq(page->private, 0);
	ck_assert_int_eq(page_count(page), 1);
	ck_assert_int_eq(swap_count(entry), 0);
	ck_assert_uint_eq(nr_swap_used(), 0);
	ck_assert_uint_eq(swap_cache_pages(), 0);
	ck_assert_ptr_null(lookup_swap_cache(entry));
	free_anon_page(page);
}
END_TEST

START_TEST(test_swap_free_swap_and_cache)
{
	struct page *page = new_anon_page();
	swp_entry_t entry, plain = get_swap_page();

	/* No cache page: a plain swap_free(). */
	ck_assert(swap_duplicate(plain));
	free_swap_and_cache(plain);
	ck_assert_int_eq(swap_count(plain), 1);
	free_swap_and_cache(plain);
	ck_assert_int_eq(swap_count(plain), 0);

	/* Two swap ptes and the cache; reclaim let go of the page. */
	ck_assert(add_to_swap(page));
	entry.val = page->private;
	ck_assert(swap_duplicate(entry));
	ck_assert(swap_duplicate(entry));
	swap_writepage(page);

	/* A pte remains: nothing else happens. */
	free_swap_and_cache(entry);
	ck_assert_int_eq(swap_count(entry), 2);
	ck_assert(PageSwapCache(page));

	/* The last pte goes while we hold the page locked: the trylock fails. */
	free_swap_and_cache(entry);
	ck_assert_int_eq(swap_count(entry), 1);
	ck_assert(PageSwapCache(page));
	ck_assert(PageLocked(page));

	/* Unlocked, but we still hold a reference: it stays cached. */
	ck_assert(swap_duplicate(entry));
	unlock_page(page);
	free_swap_and_cache(entry);
	ck_assert_int_eq(swap_count(entry), 1);
	ck_assert(PageSwapCache(page));
	ck_assert(!PageLocked(page));
	ck_assert_int_eq(page_count(page), 2);
	ck_assert_uint_eq(swap_cache_pages(), 1);

	/* The last pte zapped with only the cache holding the page: both go. */
	ck_assert(swap_duplicate(entry));
	put_page(page);				/* only the cache's now */
	ck_assert_int_eq(page_count(page), 1);
	free_swap_and_cache(entry);
	ck_assert_int_eq(swap_count(entry), 0);
	ck_assert_uint_eq(swap_cache_pages(), 0);
	ck_assert_uint_eq(nr_swap_used(), 0);
	ck_assert(PageBuddy(page));
	ck_assert_uint_eq(nr_free_pages(), free_at_start);
}
END_TEST

START_TEST(test_swap_leaked_slots_after_exit)
{
	swp_entry_t a = get_swap_page(), b = get_swap_page();

	ck_assert(swap_duplicate(a));
	ck_assert_uint_eq(swap_leaked_slots(), 2);
	swap_free(b);
	ck_assert_uint_eq(swap_leaked_slots(), 1);
	swap_exit();
	ck_assert_uint_eq(swap_leaked_slots(), 1);
	ck_assert_int_eq(swap_init(NR_SLOTS), 0);
	ck_assert_uint_eq(swap_leaked_slots(), 0);
	ck_assert_uint_eq(nr_swap_used(), 0);
}
END_TEST

/* ---- concurrency ---- */

#define STORM_THREADS	32
#define STORM_OPS	1500
#define STORM_HELD	8
#define STORM_SLOTS	128UL

struct storm {
	unsigned long full_seen;	/* atomic */
	unsigned long cached;		/* atomic */
};

struct held_slot {
	swp_entry_t entry;
	int count;
};

/* Check that the slot of every entry we own has exactly our count. */
static void storm_check_counts(int idx, const struct held_slot *h, int n)
{
	for (int i = 0; i < n; i++) {
		int c = swap_count(h[i].entry);

		if (c != h[i].count)
			rt_fail("t%d: slot %lu count %d, we hold %d: handed out twice?",
				idx, swp_offset(h[i].entry), c, h[i].count);
	}
}

/* A swap-out and swap-in cycle through the cache with our own page. */
static void storm_cache_cycle(int idx, struct storm *st)
{
	struct page *page = alloc_page(GFP_KERNEL), *found;
	swp_entry_t entry;

	if (!page) {
		rt_fail("t%d: out of memory", idx);
		return;
	}
	SetPageAnon(page);
	lock_page(page);
	if (!add_to_swap(page))
		goto out;	/* full */
	entry.val = READ_ONCE(page->private);
	rt_check(swap_count(entry) == 1);
	page_data_write(page, ((uint64_t)idx << 32) | swp_offset(entry));
	swap_writepage(page);
	found = lookup_swap_cache(entry);
	rt_check(found == page);
	if (found)
		put_page(found);
	rt_check(remove_exclusive_swap_page(page));
	rt_check(!PageSwapCache(page));
	__atomic_fetch_add(&st->cached, 1, __ATOMIC_RELAXED);
out:
	unlock_page(page);
	ClearPageAnon(page);
	put_page(page);
}

static void storm_worker(int idx, void *arg)
{
	struct storm *st = arg;
	uint64_t rng = rt_thread_rng(idx);
	struct held_slot h[STORM_HELD];
	unsigned long full = 0;
	int n = 0;

	for (int op = 0; op < STORM_OPS && !rt_first_failure(); op++) {
		unsigned int r = (unsigned int)(rt_rand(&rng) % 16);

		if (r < 5 && n < STORM_HELD) {
			swp_entry_t e = get_swap_page();

			if (!e.val) {
				full++;
				continue;
			}
			if (swp_offset(e) == 0 || swp_offset(e) >= STORM_SLOTS)
				rt_fail("t%d: bad entry %#lx", idx, e.val);
			h[n++] = (struct held_slot){ .entry = e, .count = 1 };
		} else if (r < 9 && n > 0) {
			int i = (int)(rt_rand(&rng) % (unsigned int)n);

			if (!swap_duplicate(h[i].entry))
				rt_fail("t%d: duplicate of a held slot failed", idx);
			h[i].count++;
		} else if (r < 14 && n > 0) {
			int i = (int)(rt_rand(&rng) % (unsigned int)n);

			swap_free(h[i].entry);
			if (--h[i].count == 0)
				h[i] = h[--n];
		} else if (r == 14) {
			storm_cache_cycle(idx, st);
		} else {
			storm_check_counts(idx, h, n);
			if (rt_rand(&rng) & 1)
				sched_yield();
		}
	}
	storm_check_counts(idx, h, n);
	for (int i = 0; i < n; i++)
		while (h[i].count--)
			swap_free(h[i].entry);
	__atomic_fetch_add(&st->full_seen, full, __ATOMIC_RELAXED);
}

START_TEST(test_swap_storm_32_threads)
{
	struct storm st = { 0 };

	swap_exit();
	ck_assert_int_eq(swap_init(STORM_SLOTS), 0);
	rt_failure_reset();
	rt_reports_capture();
	rt_run_threads(STORM_THREADS, storm_worker, &st);
	ck_assert_no_worker_failure();
	rt_assert_no_lockdep_reports();
	rt_reports_release();

	ck_assert_uint_eq(nr_swap_used(), 0);
	ck_assert_uint_eq(swap_leaked_slots(), 0);
	ck_assert_uint_eq(swap_cache_pages(), 0);
	for (unsigned long off = 1; off < STORM_SLOTS; off++)
		ck_assert_ptr_null(lookup_swap_cache(swp_entry(0, off)));
	ck_assert_uint_gt(st.cached, 0);
	ck_assert_uint_eq(nr_free_pages(), free_at_start);
}
END_TEST


/* ---- swapoff ---- */

#define SO_PAGES	64
#define SO_MMS		4

/* The swapoff suites' model: audited, memory for every page at once. */
static const struct rt_vm_suite swapoff_fx = RT_VM_AUDITED(RMAP_PTECHAIN, 1024, 512);

/* Reclaim hard enough to swap anonymous pages out (twice: young bits). */
static void so_swap_out(void)
{
	for (int i = 0; i < 16; i++)
		shrink_zone(&contig_zone, 256);
}

/* Swap ptes left in [@a, @a + SO_PAGES) of @mm. */
static int so_swap_ptes(struct mm_struct *mm, long a)
{
	int n = 0;

	for (int i = 0; i < SO_PAGES; i++)
		if (is_swap_pte(rt_pte_at(mm, (unsigned long)a + (unsigned long)i * PAGE_SIZE)))
			n++;
	return n;
}

START_TEST(test_swap_swapoff_every_pte_back)
{
	RT_VM_EACH_DESIGN(&swapoff_fx, {
		struct mm_struct *mms[2] = { mm_alloc(), NULL };
		long a = rt_mmap(mms[0], NULL, 0, SO_PAGES, VM_READ | VM_WRITE, 0);
		uint64_t st[SO_PAGES];
		unsigned long used;

		rt_access_pages(mms[0], a, SO_PAGES, true, st);
		so_swap_out();
		mms[1] = dup_mm(mms[0]);	/* the swap ptes in two mms */
		ck_assert_ptr_nonnull(mms[1]);
		used = nr_swap_used();
		ck_assert_msg(used > 0 && so_swap_ptes(mms[0], a) > 0 && so_swap_ptes(mms[1], a) > 0,
			      "[%s] nothing swapped out", rmap_mode_name(rmap_mode));
		rt_audit_ok(mms, 2, NULL, 0);

		ck_assert_int_eq(swapoff(), 0);
		ck_assert_uint_eq(nr_swap_used(), 0);
		ck_assert_uint_eq(swap_cache_pages(), 0);
		ck_assert_int_eq(so_swap_ptes(mms[0], a), 0);
		ck_assert_int_eq(so_swap_ptes(mms[1], a), 0);
		/* Off: no slot handed out, a second swapoff refused. */
		ck_assert_uint_eq(get_swap_page().val, 0);
		ck_assert_int_eq(swapoff(), -EBUSY);
		rt_audit_ok(mms, 2, NULL, 0);
		rt_assert_pages(mms[0], a, SO_PAGES, st);
		rt_assert_pages(mms[1], a, SO_PAGES, st);

		ck_assert_int_eq(swapon(), 0);
		ck_assert_int_eq(swapon(), -EBUSY);
		so_swap_out();			/* swapping again after swapon */
		ck_assert_uint_gt(nr_swap_used(), 0);
		rt_assert_pages(mms[1], a, SO_PAGES, st);
		rt_audit_and_exit(mms, 2, NULL, 0);
	});
}
END_TEST

/*
 * swapoff against fork, exit, swap-in and reclaim. Roles by thread: 0
 * swaps the area off and on (reclaim first, so there is something to
 * bring back); 1 forks a process over another one, which exits; 2 and 3
 * read and write the pages, faulting them in; 4 reclaims. Every mm maps
 * the same range (forks of one). Thread 0 ends with the area off.
 */
#define SO_ROUNDS	6
#define SO_MIN_OPS	16	/* forks, and accesses, before thread 0 stops */
#define SO_MAX_ROUNDS	2000
#define SO_THREADS	5

struct so_race {
	pthread_mutex_t lock;		/* the table: a harness mutex */
	struct mm_struct *mms[SO_MMS];	/* lock; each holds a reference */
	long a;
	int done;			/* atomic: thread 0 finished */
	unsigned long brought_back;	/* thread 0: slots in use before its swapoffs */
	unsigned long forks, accesses, oom;	/* atomics */
};

/* A reference to a random mm of the table. */
static struct mm_struct *so_get(struct so_race *r, uint64_t *rng)
{
	struct mm_struct *mm;

	RT_PTHREAD(pthread_mutex_lock(&r->lock));
	mm = r->mms[rt_rand(rng) % SO_MMS];
	if (!mmget_not_zero(mm))
		rt_fail("an mm of the table has no user");
	RT_PTHREAD(pthread_mutex_unlock(&r->lock));
	return mm;
}

static void so_admin(struct so_race *r)
{
	bool off = false;

	/*
	 * Rounds go on until the others did their share too and a swapoff
	 * had slots to free (no clock; the cap makes a broken swap-out a
	 * failure, not a hang).
	 */
	for (int round = 0; !rt_first_failure() && round < SO_MAX_ROUNDS &&
	     (round < SO_ROUNDS || !r->brought_back ||
	      __atomic_load_n(&r->forks, __ATOMIC_RELAXED) < SO_MIN_OPS ||
	      __atomic_load_n(&r->accesses, __ATOMIC_RELAXED) < SO_MIN_OPS); round++) {
		unsigned long used;
		int err;

		if (off)
			rt_check(swapon() == 0);
		so_swap_out();
		used = nr_swap_used();
		err = swapoff();
		off = err == 0;
		if (err == -ENOMEM) {		/* the area is on again */
			__atomic_fetch_add(&r->oom, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (err) {
			rt_fail("round %d: swapoff() = %d", round, err);
			break;
		}
		r->brought_back += used;
		/* Off and empty: fork, exit and swap-in cannot take a slot. */
		if (nr_swap_used() || swap_cache_pages())
			rt_fail("round %d: after swapoff %lu slots in use, %lu cached",
				round, nr_swap_used(), swap_cache_pages());
	}
	/* Release pairs with the acquire loads of the other threads. */
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

static void so_forker(struct so_race *r, uint64_t *rng)
{
	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) && !rt_first_failure()) {
		struct mm_struct *mm = so_get(r, rng), *child = dup_mm(mm), *old;
		unsigned int slot = (unsigned int)(rt_rand(rng) % SO_MMS);

		mmput(mm);
		if (!child) {
			__atomic_fetch_add(&r->oom, 1, __ATOMIC_RELAXED);
			continue;
		}
		RT_PTHREAD(pthread_mutex_lock(&r->lock));
		old = r->mms[slot];
		r->mms[slot] = child;		/* the child's user is the table's */
		RT_PTHREAD(pthread_mutex_unlock(&r->lock));
		mmput(old);			/* the process it replaced exits */
		__atomic_fetch_add(&r->forks, 1, __ATOMIC_RELAXED);
	}
}

/* Loads and stores over the range: swap-ins, COW breaks, stamp checks. */
static void so_accessor(struct so_race *r, uint64_t *rng)
{
	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) && !rt_first_failure()) {
		struct mm_struct *mm = so_get(r, rng);
		unsigned long addr = (unsigned long)r->a + (rt_rand(rng) % SO_PAGES) * PAGE_SIZE;
		enum mm_access_result res = rt_access(mm, addr, rt_rand(rng) & 1, NULL);

		if (res == ACCESS_OOM)
			__atomic_fetch_add(&r->oom, 1, __ATOMIC_RELAXED);
		else if (res != ACCESS_OK)
			rt_fail("mm %d %#lx: access result %d", mm->id, addr, (int)res);
		mmput(mm);
		__atomic_fetch_add(&r->accesses, 1, __ATOMIC_RELAXED);
	}
}

static void so_worker(int idx, void *arg)
{
	struct so_race *r = arg;
	uint64_t rng = rt_thread_rng(idx);

	switch (idx) {
	case 0:
		so_admin(r);
		break;
	case 1:
		so_forker(r, &rng);
		break;
	case 4:
		while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) && !rt_first_failure()) {
			shrink_zone(&contig_zone, 32);
			sched_yield();
		}
		break;
	default:
		so_accessor(r, &rng);
		break;
	}
}

START_TEST(test_swap_swapoff_races_fork_exit_swapin)
{
	RT_VM_EACH_DESIGN(&swapoff_fx, {
		struct so_race r = { .lock = PTHREAD_MUTEX_INITIALIZER };
		int err;

		r.mms[0] = mm_alloc();
		r.a = rt_mmap(r.mms[0], NULL, 0, SO_PAGES, VM_READ | VM_WRITE, 0);
		rt_access_pages(r.mms[0], r.a, SO_PAGES, true, NULL);
		for (int i = 1; i < SO_MMS; i++) {
			r.mms[i] = dup_mm(r.mms[0]);
			ck_assert_ptr_nonnull(r.mms[i]);
			rt_access_pages(r.mms[i], r.a, SO_PAGES / 2, true, NULL);
		}
		rt_failure_reset();
		rt_run_threads(SO_THREADS, so_worker, &r);
		ck_assert_no_worker_failure();
		/* Off already (-EBUSY), unless the last round ran out of memory. */
		err = swapoff();
		ck_assert_msg(err == 0 || err == -EBUSY, "[%s] swapoff() = %d",
			      rmap_mode_name(rmap_mode), err);
		ck_assert_uint_eq(nr_swap_used(), 0);
		ck_assert_uint_eq(swap_cache_pages(), 0);
		for (int i = 0; i < SO_MMS; i++)
			ck_assert_msg(so_swap_ptes(r.mms[i], r.a) == 0, "[%s] mm %d: swap ptes left",
				      rmap_mode_name(rmap_mode), r.mms[i]->id);
		ck_assert_msg(r.brought_back > 0, "[%s] no swapoff had a slot to free",
			      rmap_mode_name(rmap_mode));
		ck_assert_uint_gt(r.forks, 0);
		ck_assert_int_eq(swapon(), 0);
		rt_audit_and_exit(r.mms, SO_MMS, NULL, 0);
	});
}
END_TEST

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "init", 10, setup, rt_vm_teardown, .tests = {
			test_swap_init_sizes,
			test_swap_leaked_slots_after_exit,
		} },
		{ "slots", 10, setup, rt_vm_teardown, .tests = {
			test_swap_alloc_until_full,
			test_swap_duplicate_and_free_counts,
			test_swap_counts_reads_every_slot,
			test_swap_data_round_trip,
		} },
		{ "swap_cache", 10, setup, rt_vm_teardown, .tests = {
			test_swap_cache_add_lookup_delete,
			test_swap_cache_count_rule_swapin,
			test_swap_add_to_swap_full_returns_false,
			test_swap_remove_exclusive_conditions,
			test_swap_free_swap_and_cache,
		} },
		{ "concurrency", 60, setup, rt_vm_teardown, .tests = {
			test_swap_storm_32_threads,
		} },
		{ "swapoff", 120, NULL, NULL, .tests = {
			test_swap_swapoff_every_pte_back,
			test_swap_swapoff_races_fork_exit_swapin,
		} },
	};

	return rt_check_main(rt_suite("swap", tcs, (int)ARRAY_SIZE(tcs)));
}
