// SPDX-License-Identifier: MIT
/*
 * get_user_pages() (core/memory.c) and the direct I/O through its pins:
 * a pinned anonymous page stays mapped through try_to_unmap() where the
 * design's source had 2.6.7's test (mainline8, mainline9), and where it
 * had none (ptechain, objfile, anonvma: 2.6.3 and the seeds) reclaim
 * takes it and a write fault copies the user away from the I/O's data,
 * the source's bug; pins against concurrent reclaim, COW and the data
 * oracle, in every design.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "audit.h"
#include "inject.h"
#include "mm.h"
#include "page_alloc.h"
#include "rmap.h"
#include "rt_check.h"
#include "rt_vm.h"
#include "swap.h"
#include "vmscan.h"

static const struct rt_vm_suite vm = RT_VM_AUDITED(RMAP_PTECHAIN, 512, 512);
static const struct rt_vm_suite vm_small = RT_VM_AUDITED(RMAP_PTECHAIN, 192, 1024);

static bool has_pin_test(enum rmap_mode d)
{
	return rmap_design(d)->gup_pin_test;
}

static bool lacks_pin_test(enum rmap_mode d)
{
	return !has_pin_test(d);
}

/* get_user_pages() of one page under mmap_sem for read. */
static struct page *pin(struct mm_struct *mm, unsigned long addr, bool write)
{
	struct page *page = NULL;
	int n;

	down_read(&mm->mmap_sem);
	n = get_user_pages(mm, addr, 1, write, &page, NULL);
	up_read(&mm->mmap_sem);
	ck_assert_int_eq(n, 1);
	return page;
}

/*
 * What shrink_page() does to a mapped anonymous page, with its isolation
 * reference: into the swap cache, the young bits taken (so only the count
 * can refuse), then try_to_unmap(). Return: its answer.
 */
static int reclaim_one(struct page *page)
{
	int ret;

	get_page(page);
	lock_page(page);
	ClearPageReferenced(page);
	if (!PageSwapCache(page))
		ck_assert(add_to_swap(page));
	rmap_lock(page);
	(void)rmap->page_referenced(page);
	ret = rmap->try_to_unmap(page);
	rmap_unlock(page);
	unlock_page(page);
	put_page(page);
	return ret;
}

/* ---- the pin test of try_to_unmap_one() ---- */

/*
 * Deterministic, one thread: pinned for write, the page survives reclaim
 * and the user's write and the I/O's store meet in it; unpinned, the same
 * reclaim unmaps it (so it was the pin that kept it).
 */
START_TEST(test_gup_pinned_page_stays_mapped)
{
	RT_VM_EACH_DESIGN_IF(&vm, has_pin_test, {
		struct mm_struct *mm = mm_alloc();
		long a = rt_mmap(mm, NULL, 0, 4, VM_READ | VM_WRITE, 0);
		struct page *page;
		uint64_t v, seen;

		ck_assert_int_gt(a, 0);
		rt_touch(mm, (unsigned long)a, true);
		lru_add_drain();	/* reclaim sees LRU pages only: no pagevec reference */
		page = pin(mm, (unsigned long)a, true);
		ck_assert_ptr_eq(page, rt_page_at(mm, (unsigned long)a));
		ck_assert_int_eq(reclaim_one(page), SWAP_FAIL);
		ck_assert(pte_present(rt_pte_at(mm, (unsigned long)a)));
		ck_assert_uint_eq(pte_pfn(rt_pte_at(mm, (unsigned long)a)), page_to_pfn(page));
		/* The user's store lands in the pinned page, then the I/O's. */
		rt_touch(mm, (unsigned long)a, true);
		ck_assert_ptr_eq(rt_page_at(mm, (unsigned long)a), page);
		v = gup_dma_write(mm, (unsigned long)a, page);
		put_page(page);
		ck_assert_int_eq(rt_access(mm, (unsigned long)a, false, &seen), ACCESS_OK);
		ck_assert_uint_eq(seen, v);
		/* Unpinned, the same reclaim takes it. */
		ck_assert_int_ne(reclaim_one(page), SWAP_FAIL);
		ck_assert(!pte_present(rt_pte_at(mm, (unsigned long)a)));
		ck_assert_int_eq(rt_access(mm, (unsigned long)a, false, &seen), ACCESS_OK);
		ck_assert_uint_eq(seen, v);
		rt_audit_and_exit(&mm, 1, NULL, 0);
	});
}
END_TEST

/*
 * 2.6.3 and the seeds had no pin test: reclaim unmaps the pinned page, a
 * user write brings it back read-only, do_wp_page() counts the pin as a
 * sharer and copies, and the I/O's store goes to a page the user no
 * longer sees: the data oracle reports it. The model keeps the source's
 * bug (docs/model.md "Locks by design"); this pins it down.
 */
START_TEST(test_gup_source_without_pin_test_loses_data)
{
	RT_VM_EACH_DESIGN_IF(&vm, lacks_pin_test, {
		struct mm_struct *mm = mm_alloc();
		long a = rt_mmap(mm, NULL, 0, 4, VM_READ | VM_WRITE, 0);
		struct page *page;
		int corrupt;

		ck_assert_int_gt(a, 0);
		rt_touch(mm, (unsigned long)a, true);
		page = pin(mm, (unsigned long)a, true);
		ck_assert_int_ne(reclaim_one(page), SWAP_FAIL);
		ck_assert(!pte_present(rt_pte_at(mm, (unsigned long)a)));
		rt_touch(mm, (unsigned long)a, true);
		ck_assert_ptr_ne(rt_page_at(mm, (unsigned long)a), page);
		(void)gup_dma_write(mm, (unsigned long)a, page);
		put_page(page);
		ck_assert_int_eq(rt_access(mm, (unsigned long)a, false, NULL), ACCESS_CORRUPT);
		corrupt = rt_reports_count(VM_REPORT_AUDIT);
		ck_assert_int_ge(corrupt, 1);
		/* The report was the point: the stamp is fixed up for the tear-down. */
		rt_reports_capture();
		rt_touch(mm, (unsigned long)a, true);
		rt_audit_and_exit(&mm, 1, NULL, 0);
	});
}
END_TEST

/* The seeded bug gup-unmap: mainline without its pin test loses the same data. */
START_TEST(test_gup_unmap_injected_loses_data)
{
	RT_VM_EACH_DESIGN_IF(&vm, has_pin_test, {
		struct mm_struct *mm = mm_alloc();
		long a = rt_mmap(mm, NULL, 0, 4, VM_READ | VM_WRITE, 0);
		struct page *page;

		ck_assert_int_gt(a, 0);
		rt_touch(mm, (unsigned long)a, true);
		page = pin(mm, (unsigned long)a, true);
		inject_mask = 1ULL << INJECT_GUP_UNMAP;
		ck_assert_int_ne(reclaim_one(page), SWAP_FAIL);
		inject_mask = 0;
		rt_touch(mm, (unsigned long)a, true);
		(void)gup_dma_write(mm, (unsigned long)a, page);
		put_page(page);
		ck_assert_int_eq(rt_access(mm, (unsigned long)a, false, NULL), ACCESS_CORRUPT);
		rt_reports_capture();
		rt_touch(mm, (unsigned long)a, true);
		rt_audit_and_exit(&mm, 1, NULL, 0);
	});
}
END_TEST

/* A read of untouched anonymous memory pins the zero page, with no fault. */
START_TEST(test_gup_read_untouched_pins_zero_page)
{
	RT_VM_EACH_DESIGN(&vm, {
		struct mm_struct *mm = mm_alloc();
		long a = rt_mmap(mm, NULL, 0, 4, VM_READ | VM_WRITE, 0);
		struct page *pages[2];
		struct vm_area_struct *vmas[2];
		int n;

		ck_assert_int_gt(a, 0);
		down_read(&mm->mmap_sem);
		n = get_user_pages(mm, (unsigned long)a, 2, false, pages, vmas);
		up_read(&mm->mmap_sem);
		ck_assert_int_eq(n, 2);
		ck_assert(PageReserved(pages[0]) && PageReserved(pages[1]));
		ck_assert_ptr_eq(vmas[0], mm->mmap);
		ck_assert_uint_eq(mm->rss, 0);
		/* No fault ran: not even a page table, let alone a zero-page pte. */
		ck_assert(pte_none(rt_pte_at(mm, (unsigned long)a)));
		/* A write pin faults a page and breaks nothing else. */
		pages[0] = pin(mm, (unsigned long)a, true);
		ck_assert(!PageReserved(pages[0]));
		ck_assert_uint_eq(mm->rss, 1);
		put_page(pages[0]);
		down_read(&mm->mmap_sem);
		ck_assert_int_eq(get_user_pages(mm, (unsigned long)a + 8 * PAGE_SIZE, 1, false,
						pages, NULL), -EFAULT);
		up_read(&mm->mmap_sem);
		rt_audit_and_exit(&mm, 1, NULL, 0);
	});
}
END_TEST

/* A write pin of a page shared by fork breaks COW: the child keeps the old data. */
START_TEST(test_gup_write_pin_breaks_cow)
{
	RT_VM_EACH_DESIGN(&vm, {
		struct mm_struct *mm = mm_alloc(), *child, *mms[2];
		long a = rt_mmap(mm, NULL, 0, 2, VM_READ | VM_WRITE, 0);
		struct page *page;
		uint64_t old, v, seen;

		ck_assert_int_gt(a, 0);
		ck_assert_int_eq(rt_access(mm, (unsigned long)a, true, &old), ACCESS_OK);
		child = dup_mm(mm);
		ck_assert_ptr_nonnull(child);
		page = pin(mm, (unsigned long)a, true);
		ck_assert_ptr_ne(page, rt_page_at(child, (unsigned long)a));
		v = gup_dma_write(mm, (unsigned long)a, page);
		put_page(page);
		ck_assert_int_eq(rt_access(mm, (unsigned long)a, false, &seen), ACCESS_OK);
		ck_assert_uint_eq(seen, v);
		ck_assert_int_eq(rt_access(child, (unsigned long)a, false, &seen), ACCESS_OK);
		ck_assert_uint_eq(seen, old);
		mms[0] = mm;
		mms[1] = child;
		rt_audit_and_exit(mms, 2, NULL, 0);
	});
}
END_TEST

/*
 * A read pin's check (a write(2) from memory): the user's own store at
 * the address may change the page under the I/O; a store that reached
 * the pinned page by another way (here written straight into the page,
 * as a page reused behind the pin would be) is reported.
 */
START_TEST(test_gup_read_pin_check_judges_the_writer)
{
	RT_VM_EACH_DESIGN(&vm, {
		struct mm_struct *mm = mm_alloc();
		long a = rt_mmap(mm, NULL, 0, 2, VM_READ | VM_WRITE, 0);
		struct vm_area_struct *vma;
		struct page *page;
		struct gup_dma dma;

		ck_assert_int_gt(a, 0);
		rt_touch(mm, (unsigned long)a, true);
		down_read(&mm->mmap_sem);
		ck_assert_int_eq(get_user_pages(mm, (unsigned long)a, 1, false, &page, &vma), 1);
		gup_dma_begin(mm, vma, (unsigned long)a, page, &dma);
		up_read(&mm->mmap_sem);
		ck_assert_ptr_nonnull(dma.word);
		rt_touch(mm, (unsigned long)a, true);		/* the user's store */
		ck_assert_int_eq(gup_dma_check(mm, (unsigned long)a, page, &dma), ACCESS_OK);
		gup_dma_begin(mm, vma, (unsigned long)a, page, &dma);
		page_data_write(page, 0x5eed);			/* nobody's store */
		ck_assert_int_eq(gup_dma_check(mm, (unsigned long)a, page, &dma), ACCESS_CORRUPT);
		ck_assert_int_eq(rt_reports_count(VM_REPORT_AUDIT), 1);
		put_page(page);
		rt_reports_capture();
		rt_touch(mm, (unsigned long)a, true);		/* a stamp the tear-down can check */
		rt_audit_and_exit(&mm, 1, NULL, 0);
	});
}
END_TEST

/*
 * A read pin of a shared file page: the user's store moves the file's
 * shadow word, then a truncate takes the page out of the file (still
 * pinned, the store's data in it) and zeroes the word back to what the
 * pin saw. The check must not take the word's old value for "nobody
 * stored": the reset is counted. A later pin still catches a store by
 * nobody.
 */
START_TEST(test_gup_read_pin_check_through_truncate)
{
	RT_VM_EACH_DESIGN(&vm, {
		struct address_space *f;
		long a;
		struct mm_struct *mm = rt_mm_with_file("gup-trunc", 2, 2, &f, &a);
		struct vm_area_struct *vma;
		struct page *page;
		struct gup_dma dma;

		rt_touch(mm, (unsigned long)a, false);		/* the page, never written */
		down_read(&mm->mmap_sem);
		ck_assert_int_eq(get_user_pages(mm, (unsigned long)a, 1, false, &page, &vma), 1);
		gup_dma_begin(mm, vma, (unsigned long)a, page, &dma);
		up_read(&mm->mmap_sem);
		ck_assert_ptr_nonnull(dma.word);
		ck_assert_uint_eq(dma.word_then, 0);
		rt_touch(mm, (unsigned long)a, true);		/* the user's store */
		vmtruncate(f, 0);				/* the word back to 0 */
		file_extend(f, 2);
		ck_assert_uint_eq(__atomic_load_n(dma.word, __ATOMIC_RELAXED), 0);
		ck_assert_uint_ne(page_data_read(page), 0);
		ck_assert_int_eq(gup_dma_check(mm, (unsigned long)a, page, &dma), ACCESS_OK);
		ck_assert_int_eq(rt_reports_count(VM_REPORT_AUDIT), 0);
		put_page(page);
		/* The oracle still judges a pin with no reset in its window. */
		rt_touch(mm, (unsigned long)a, true);
		down_read(&mm->mmap_sem);
		ck_assert_int_eq(get_user_pages(mm, (unsigned long)a, 1, false, &page, &vma), 1);
		gup_dma_begin(mm, vma, (unsigned long)a, page, &dma);
		up_read(&mm->mmap_sem);
		page_data_write(page, 0x5eed);			/* nobody's store */
		ck_assert_int_eq(gup_dma_check(mm, (unsigned long)a, page, &dma), ACCESS_CORRUPT);
		ck_assert_int_eq(rt_reports_count(VM_REPORT_AUDIT), 1);
		put_page(page);
		rt_reports_capture();
		rt_touch(mm, (unsigned long)a, true);		/* a stamp the tear-down can check */
		rt_audit_and_exit(&mm, 1, &f, 1);
	});
}
END_TEST

/* ---- pins against reclaim and COW, real threads ---- */

#define T_PAGES		24
#define T_WORKERS	3
#define T_ROUNDS	3000

struct race {
	struct mm_struct *mm, *child;
	unsigned long a;
	int stop;		/* acquire/release */
	int corrupt;		/* atomic: ACCESS_CORRUPT results */
	int pins;		/* atomic: pages pinned */
};

/*
 * Workers 0..T_WORKERS-1: the parent's direct I/O (pin, transfer, unpin)
 * and its loads and stores; the next: the child's stores (COW away from
 * the shared pages) and loads; the last: reclaim until the others stop.
 */
static void race_worker(int idx, void *arg)
{
	struct race *r = arg;
	uint64_t rng = rt_thread_rng(idx);

	if (idx == T_WORKERS + 1) {
		while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
			shrink_zone(&contig_zone, 32);
		return;
	}
	for (int i = 0; i < T_ROUNDS; i++) {
		unsigned long addr = r->a + (rt_rand(&rng) % T_PAGES) * PAGE_SIZE;
		struct mm_struct *mm = idx == T_WORKERS ? r->child : r->mm;
		enum mm_access_result res = ACCESS_OK;
		unsigned int what = (unsigned int)(rt_rand(&rng) % 4);

		if (idx < T_WORKERS && what >= 2) {
			struct vm_area_struct *vma;
			struct page *page;
			struct gup_dma dma;
			bool write = what == 3;

			down_read(&mm->mmap_sem);
			if (get_user_pages(mm, addr, 1, write, &page, &vma) != 1) {
				up_read(&mm->mmap_sem);
				continue;
			}
			if (!write)
				gup_dma_begin(mm, vma, addr, page, &dma);
			up_read(&mm->mmap_sem);
			__atomic_fetch_add(&r->pins, 1, __ATOMIC_RELAXED);
			/* The transfer starts later: the program runs on meanwhile. */
			for (int k = 0; k < 4 && res != ACCESS_CORRUPT; k++)
				res = rt_access(mm, r->a + (rt_rand(&rng) % T_PAGES) * PAGE_SIZE,
						rt_rand(&rng) & 1, NULL);
			if (res != ACCESS_CORRUPT && write)
				(void)gup_dma_write(mm, addr, page);
			else if (res != ACCESS_CORRUPT)
				res = gup_dma_check(mm, addr, page, &dma);
			put_page(page);
		} else {
			res = rt_access(mm, addr, what & 1, NULL);
		}
		if (res == ACCESS_CORRUPT)
			__atomic_fetch_add(&r->corrupt, 1, __ATOMIC_RELAXED);
		else if (res != ACCESS_OK && res != ACCESS_OOM)
			rt_fail("access at %#lx: %d", addr, (int)res);
	}
	/* The last of the user workers stops reclaim. */
	if (idx == T_WORKERS)
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
}

static void race_in_design(void)
{
	struct race r = { 0 };
	struct reclaim_stats st;
	struct mm_struct *mms[2];
	unsigned long flags = VM_READ | VM_WRITE;
	long a;

	/*
	 * Where reclaim may take a pinned page (2.6.3, the seeds) a user of
	 * raw I/O mlocked its buffer; so does this test there.
	 */
	if (!gup_pin_keeps_mapping())
		flags |= VM_LOCKED;
	r.mm = mm_alloc();
	a = rt_mmap(r.mm, NULL, 0, T_PAGES, flags, 0);
	ck_assert_int_gt(a, 0);
	r.a = (unsigned long)a;
	rt_access_pages(r.mm, r.a, T_PAGES, true, NULL);
	r.child = dup_mm(r.mm);
	ck_assert_ptr_nonnull(r.child);
	/* Filler the child owns alone: memory is short from the start. */
	a = rt_mmap(r.child, NULL, 0, 160, VM_READ | VM_WRITE, 0);
	ck_assert_int_gt(a, 0);
	rt_access_pages(r.child, (unsigned long)a, 160, true, NULL);
	reclaim_stats_reset();
	rt_run_threads(T_WORKERS + 2, race_worker, &r);
	ck_assert_msg(!rt_first_failure(), "%s", rt_first_failure());
	ck_assert_int_eq(__atomic_load_n(&r.corrupt, __ATOMIC_RELAXED), 0);
	ck_assert_int_gt(__atomic_load_n(&r.pins, __ATOMIC_RELAXED), 0);
	reclaim_stats_read(&st);
	ck_assert_uint_gt(st.swapped_out, 0);
	/* Every page shows what its last store or transfer left. */
	for (int i = 0; i < T_PAGES; i++) {
		ck_assert_int_eq(rt_access(r.mm, r.a + (unsigned long)i * PAGE_SIZE, false, NULL),
				 ACCESS_OK);
		ck_assert_int_eq(rt_access(r.child, r.a + (unsigned long)i * PAGE_SIZE, false,
					   NULL), ACCESS_OK);
	}
	mms[0] = r.mm;
	mms[1] = r.child;
	rt_audit_and_exit(mms, 2, NULL, 0);
}

START_TEST(test_gup_pins_against_reclaim_and_cow)
{
	RT_VM_EACH_DESIGN(&vm_small, race_in_design());
}
END_TEST

static Suite *gup_suite(void)
{
	Suite *s = suite_create("gup");
	TCase *tc;

	tc = tcase_create("pin_test");
	tcase_set_timeout(tc, rt_tmo(60));
	tcase_add_test(tc, test_gup_pinned_page_stays_mapped);
	tcase_add_test(tc, test_gup_source_without_pin_test_loses_data);
	tcase_add_test(tc, test_gup_unmap_injected_loses_data);
	suite_add_tcase(s, tc);

	tc = tcase_create("pin");
	tcase_set_timeout(tc, rt_tmo(60));
	tcase_add_test(tc, test_gup_read_untouched_pins_zero_page);
	tcase_add_test(tc, test_gup_write_pin_breaks_cow);
	tcase_add_test(tc, test_gup_read_pin_check_judges_the_writer);
	tcase_add_test(tc, test_gup_read_pin_check_through_truncate);
	suite_add_tcase(s, tc);

	tc = tcase_create("race");
	tcase_set_timeout(tc, rt_tmo(240));
	tcase_add_test(tc, test_gup_pins_against_reclaim_and_cow);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_check_main(gup_suite());
}
