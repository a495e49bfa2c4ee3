// SPDX-License-Identifier: MIT
/*
 * The mainline designs (core/rmap_mainline{,8,9}.c): the anon_vma prepared at
 * the first anonymous fault and adopted from a mergeable neighbour, fork
 * chains reclaimed and garbage collected, try_to_unmap of a file page
 * visiting only the tree nodes near its offset however many vmas map the
 * file elsewhere, nonlinear vmas reclaimed by clusters, the design's
 * invariants broken on purpose and reported by the audit, and the lock
 * tree at the top of the file equal to lockdep's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon_vma.h"
#include "audit.h"
#include "fs.h"
#include "i_mmap.h"
#include "inject.h"
#include "lockdep.h"
#include "mm-internal.h"
#include "mm.h"
#include "page_alloc.h"
#include "prio_tree.h"
#include "rmap.h"
#include "rt_check.h"
#include "rt_vm.h"
#include "swap.h"
#include "task.h"
#include "vmscan.h"

#define P PAGE_SIZE

/* The design of the TCase running: mainline8 or mainline9. */
static enum rmap_mode design;

static void setup(void)
{
	rt_task_attach("test-main");
	ck_assert_int_eq(rmap_select(design), 0);
	ck_assert_int_eq(mem_init(4096), 0);
	ck_assert_int_eq(swap_init(512), 0);
	rt_reports_capture();
	reclaim_stats_reset();
	rmap_fallback_reset();
	rt_failure_reset();
}

static void teardown(void)
{
	struct vm_report r;
	unsigned long v;

	for (int i = 0; i < 8 && nr_free_pages() != max_mapnr - 1; i++)
		shrink_zone(&contig_zone, max_mapnr);
	v = vm_teardown_check();
	if (v && rt_reports_first(VM_REPORT_AUDIT, &r))
		ck_abort_msg("teardown: %lu leaks, first: %s", v, r.message);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_AUDIT), 0);
	for (int k = VM_REPORT_BUG; k < VM_REPORT_NR; k++)
		ck_assert_msg(rt_reports_count((enum vm_report_kind)k) == 0,
			      "%d reports of kind %d", rt_reports_count((enum vm_report_kind)k), k);
	rt_reports_release();
	swap_exit();
	mem_exit();
	rmap_select(RMAP_PTECHAIN);
	rt_task_detach();
}

static void setup8(void)
{
	design = RMAP_MAINLINE8;
	setup();
}

static void setup9(void)
{
	design = RMAP_MAINLINE9;
	setup();
}

/* 2.6.9 keeps PAGE_MAPPING_ANON in the low bit of the anon_vma pointer. */
static struct anon_vma *anon_of(struct page *page)
{
	uintptr_t m = (uintptr_t)page->as.anon_vma;

	return (struct anon_vma *)(design == RMAP_MAINLINE9 ? m & ~1UL : m);
}

static void set_anon(struct page *page, struct anon_vma *anon_vma)
{
	uintptr_t m = (uintptr_t)anon_vma;

	if (design == RMAP_MAINLINE9 && m)
		m |= 1;
	page->as.anon_vma = (struct anon_vma *)m;
}

static struct rmap_bytes bytes(void)
{
	struct rmap_bytes rb;

	rmap_bytes_read(&rb);
	return rb;
}

static struct vm_area_struct *vma_at(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma;

	down_read(&mm->mmap_sem);
	vma = find_vma(mm, addr);
	up_read(&mm->mmap_sem);
	return vma;
}

/* Reclaim until the mms' rss is 0 or nothing moves for a while. */
static void reclaim_until_unmapped(struct mm_struct **mms, int nr)
{
	int idle = 0;

	for (int round = 0; round < 600 && idle < 16; round++) {
		unsigned long rss = 0;

		for (int i = 0; i < nr; i++)
			rss += mms[i]->rss;
		if (!rss)
			return;
		idle = shrink_zone(&contig_zone, 512) ? 0 : idle + 1;
	}
}

/* The audit's violations of @kind in the run just made, then forget them. */
static int audit_violations(struct mm_struct **mms, int nr, const char *invariant)
{
	struct vm_report r;
	int n;

	rt_reports_release();
	rt_reports_capture();
	vm_audit(mms, nr, NULL, 0, NULL);
	n = rt_reports_count(VM_REPORT_AUDIT);
	if (n && invariant) {
		ck_assert(rt_reports_first(VM_REPORT_AUDIT, &r));
		ck_assert_msg(strstr(r.signature, invariant) || strstr(r.message, invariant),
			      "first violation %s: %s, expected %s", r.signature, r.message,
			      invariant);
	}
	rt_reports_release();
	rt_reports_capture();
	return n;
}

START_TEST(test_mainline_first_fault_prepares_and_adopts)
{
	struct mm_struct *mm = mm_alloc();
	unsigned long a, b = 0;
	struct vm_area_struct *va, *vb;
	struct page *pa, *pb;

	a = (unsigned long)rt_mmap(mm, NULL, 0, 4, VM_READ | VM_WRITE, 0);
	va = vma_at(mm, a);
	ck_assert_ptr_null(va->anon_vma);
	/* A read maps the zero page: no anon_vma yet. */
	ck_assert_int_eq(rt_access(mm, a, false, NULL), ACCESS_OK);
	ck_assert_ptr_null(va->anon_vma);
	ck_assert_int_eq(rt_access(mm, a, true, NULL), ACCESS_OK);
	ck_assert_ptr_nonnull(va->anon_vma);
	pa = rt_page_at(mm, a);
	ck_assert(PageAnon(pa));
	ck_assert_ptr_eq(anon_of(pa), va->anon_vma);

	/* A neighbour that cannot merge yet (read-only), then made writable. */
	b = a + 4 * P;
	ck_assert_int_eq(rt_mmap(mm, NULL, b, 4, VM_READ, 0), (long)b);
	vb = vma_at(mm, b);
	ck_assert_ptr_ne(va, vb);
	down_write(&mm->mmap_sem);
	ck_assert_int_eq(do_mprotect(mm, b, 4 * P, VM_WRITE, 0), 0);
	up_write(&mm->mmap_sem);
	ck_assert_int_eq(rt_access(mm, b + P, true, NULL), ACCESS_OK);
	/* find_mergeable_anon_vma(): the neighbour's. */
	ck_assert_ptr_eq(vb->anon_vma, va->anon_vma);
	pb = rt_page_at(mm, b + P);
	ck_assert_ptr_eq(anon_of(pb), va->anon_vma);
	ck_assert_uint_eq(bytes().anon_vma_now, sizeof(struct anon_vma));
	ck_assert_int_eq(anon_vma_nr_vmas(va->anon_vma), 2);
	rt_audit_ok(&mm, 1, NULL, 0);
	mmput(mm);
	ck_assert_uint_eq(bytes().anon_vma_now, 0);
}
END_TEST

START_TEST(test_mainline_fork_chain_reclaim_and_free)
{
	struct mm_struct *mms[3];
	unsigned long a;

	mms[0] = mm_alloc();
	a = (unsigned long)rt_mmap(mms[0], NULL, 0, 16, VM_READ | VM_WRITE, 0);
	for (int i = 0; i < 16; i++)
		ck_assert_int_eq(rt_access(mms[0], a + i * P, true, NULL), ACCESS_OK);
	mms[1] = dup_mm(mms[0]);
	ck_assert_ptr_nonnull(mms[1]);
	/* The child writes half: copies on its side, same anon_vma. */
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(rt_access(mms[1], a + i * P, true, NULL), ACCESS_OK);
	mms[2] = dup_mm(mms[1]);
	ck_assert_ptr_nonnull(mms[2]);
	ck_assert_ptr_eq(vma_at(mms[2], a)->anon_vma, vma_at(mms[0], a)->anon_vma);
	ck_assert_int_eq(anon_vma_nr_vmas(vma_at(mms[0], a)->anon_vma), 3);
	rt_audit_ok(mms, 3, NULL, 0);
	reclaim_until_unmapped(mms, 3);
	ck_assert_uint_eq(mms[0]->rss + mms[1]->rss + mms[2]->rss, 0);
	rt_audit_ok(mms, 3, NULL, 0);
	/* Everything comes back from swap, each stamp as written. */
	for (int m = 0; m < 3; m++)
		for (int i = 0; i < 16; i++)
			ck_assert_int_eq(rt_access(mms[m], a + i * P, false, NULL), ACCESS_OK);
	rt_audit_ok(mms, 3, NULL, 0);
	mmput(mms[1]);
	mmput(mms[0]);
	ck_assert_uint_eq(bytes().anon_vma_now, sizeof(struct anon_vma));
	mmput(mms[2]);
	ck_assert_uint_eq(bytes().anon_vma_now, 0);
}
END_TEST

/*
 * 1000 vmas of one file, none mapping page 3, and one that does: the
 * unmap of page 3 visits a handful of tree nodes, not 1001 vmas.
 */
START_TEST(test_mainline_try_to_unmap_visits_only_the_offset)
{
	struct address_space *f = file_create("many", 4096, 4096);
	struct mm_struct *mm = mm_alloc();
	unsigned long a, before, visited;
	struct page *page;
	int ret;

	for (int i = 0; i < 1000; i++)
		ck_assert_int_gt(rt_mmap(mm, f, 0, 2, VM_READ | VM_SHARED, 8 + 4 * (unsigned long)i), 0);
	a = (unsigned long)rt_mmap(mm, f, 0, 1, VM_READ | VM_SHARED, 3);
	ck_assert_int_eq(rt_access(mm, a, false, NULL), ACCESS_OK);
	page = rt_page_at(mm, a);
	ck_assert_ptr_nonnull(page);
	get_page(page);
	lock_page(page);
	rmap_lock(page);
	before = prio_tree_nodes_visited();
	ret = rmap->try_to_unmap(page);
	visited = prio_tree_nodes_visited() - before;
	rmap_unlock(page);
	unlock_page(page);
	put_page(page);
	/* Young from the access: the first try fails, the pte stays. */
	ck_assert_int_eq(ret, SWAP_FAIL);
	ck_assert_uint_le(visited, 2 * (f->i_mmap_tree.index_bits + 1));
	ck_assert_uint_ge(visited, 1);
	rt_audit_ok(&mm, 1, &f, 1);
	mmput(mm);
	file_destroy(f);
}
END_TEST

/* remap_file_pages windows reclaimed by try_to_unmap_cluster(). */
START_TEST(test_mainline_nonlinear_cluster_reclaim)
{
	struct address_space *f = file_create("nl", 64, 64);
	struct mm_struct *mm = mm_alloc();
	unsigned long nl;

	nl = (unsigned long)rt_mmap(mm, f, 0, 48, VM_READ | VM_WRITE | VM_SHARED, 0);
	/* Pages 16..47 of the file, backwards, over the first 32 slots. */
	for (unsigned long i = 0; i < 32; i++)
		ck_assert_int_eq(remap_file_pages(mm, nl + i * P, P, 47 - i), 0);
	ck_assert(vma_at(mm, nl)->vm_flags & VM_NONLINEAR);
	for (unsigned long i = 0; i < 48; i++)
		ck_assert_int_eq(rt_access(mm, nl + i * P, true, NULL), ACCESS_OK);
	rt_audit_ok(&mm, 1, &f, 1);
	reclaim_until_unmapped(&mm, 1);
	ck_assert_uint_eq(mm->rss, 0);
	rt_audit_ok(&mm, 1, &f, 1);
	for (unsigned long i = 0; i < 48; i++)
		ck_assert_int_eq(rt_access(mm, nl + i * P, false, NULL), ACCESS_OK);
	rt_audit_ok(&mm, 1, &f, 1);
	mmput(mm);
	file_destroy(f);
}
END_TEST

/*
 * mprotect of the head of a vma with anonymous pages to the flags of the
 * vma below it: the boundary moves, and the vma below imports the
 * anon_vma (2.6.8's vma_adjust()); without the importer its new ptes
 * are outside their pages' anon_vma, and the audit says so.
 */
static void mprotect_head_into_prev(bool importer)
{
	struct mm_struct *mm = mm_alloc();
	struct vm_area_struct *lo, *hi;
	unsigned long a;

	a = (unsigned long)rt_mmap(mm, NULL, 0, 12, VM_READ | VM_WRITE, 0);
	/* [a, a+4P) read-only and untouched, [a+4P, a+12P) written. */
	down_write(&mm->mmap_sem);
	ck_assert_int_eq(do_mprotect(mm, a, 4 * P, 0, VM_WRITE), 0);
	up_write(&mm->mmap_sem);
	for (int i = 4; i < 12; i++)
		ck_assert_int_eq(rt_access(mm, a + (unsigned long)i * P, true, NULL), ACCESS_OK);
	down_write(&mm->mmap_sem);
	ck_assert_int_eq(do_mprotect(mm, a + 4 * P, 8 * P, 0, VM_WRITE), 0);
	up_write(&mm->mmap_sem);
	lo = vma_at(mm, a);
	hi = vma_at(mm, a + 4 * P);
	ck_assert_ptr_ne(lo, hi);
	ck_assert_ptr_null(lo->anon_vma);
	ck_assert_ptr_nonnull(hi->anon_vma);
	/* The head of hi takes lo's flags: lo grows over it. */
	down_write(&mm->mmap_sem);
	ck_assert_int_eq(do_mprotect(mm, a + 4 * P, 2 * P, 0, VM_WRITE), 0);
	up_write(&mm->mmap_sem);
	ck_assert_uint_eq(lo->vm_end, a + 6 * P);
	ck_assert_uint_eq(hi->vm_start, a + 6 * P);
	if (importer) {
		ck_assert_ptr_eq(lo->anon_vma, hi->anon_vma);
		rt_audit_ok(&mm, 1, NULL, 0);
		reclaim_until_unmapped(&mm, 1);
		ck_assert_uint_eq(mm->rss, 0);
		rt_audit_ok(&mm, 1, NULL, 0);
	} else {
		ck_assert_ptr_null(lo->anon_vma);
		ck_assert_int_ge(audit_violations(&mm, 1, AUDIT_ANON_VMA), 2);
		/* Put right what the bug left, so that teardown's walk is sound. */
		down_write(&mm->mmap_sem);
		lo->anon_vma = hi->anon_vma;
		spin_lock(&lo->anon_vma->lock);
		list_add(&lo->anon_vma_node, &lo->anon_vma->head);
		spin_unlock(&lo->anon_vma->lock);
		rmap_account_vma_extra((long)ANON_VMA_VMA_EXTRA_BYTES);
		up_write(&mm->mmap_sem);
		ck_assert_int_eq(audit_violations(&mm, 1, NULL), 0);
	}
	mmput(mm);
}

START_TEST(test_mainline_mprotect_merge_imports_anon_vma)
{
	mprotect_head_into_prev(true);
}
END_TEST

START_TEST(test_mainline_mprotect_merge_without_importer_caught)
{
	__atomic_store_n(&inject_mask, 1ULL << INJECT_VMA_ADJUST_NO_IMPORTER, __ATOMIC_RELAXED);
	mprotect_head_into_prev(false);
	__atomic_store_n(&inject_mask, 0, __ATOMIC_RELAXED);
}
END_TEST

/* ---- the design's invariants, broken on purpose ---- */

START_TEST(test_mainline_audit_catches_anon_page_without_mapping)
{
	struct mm_struct *mm = mm_alloc();
	struct anon_vma *saved;
	struct page *page;
	unsigned long a;

	a = (unsigned long)rt_mmap(mm, NULL, 0, 2, VM_READ | VM_WRITE, 0);
	ck_assert_int_eq(rt_access(mm, a, true, NULL), ACCESS_OK);
	page = rt_page_at(mm, a);
	ck_assert_int_eq(audit_violations(&mm, 1, NULL), 0);
	/* A mapped page has a mapping: take it away. */
	rmap_lock(page);
	saved = anon_of(page);
	set_anon(page, NULL);
	rmap_unlock(page);
	ck_assert_int_ge(audit_violations(&mm, 1, AUDIT_ANON_VMA), 1);
	rmap_lock(page);
	set_anon(page, saved);
	rmap_unlock(page);
	ck_assert_int_eq(audit_violations(&mm, 1, NULL), 0);
	mmput(mm);
}
END_TEST

START_TEST(test_mainline_audit_catches_pte_outside_its_anon_vma)
{
	struct mm_struct *mms[2] = { mm_alloc(), mm_alloc() };
	struct anon_vma *saved;
	struct page *page;
	unsigned long a, b;

	a = (unsigned long)rt_mmap(mms[0], NULL, 0, 2, VM_READ | VM_WRITE, 0);
	b = (unsigned long)rt_mmap(mms[1], NULL, 0, 2, VM_READ | VM_WRITE, 0);
	ck_assert_int_eq(rt_access(mms[0], a, true, NULL), ACCESS_OK);
	ck_assert_int_eq(rt_access(mms[1], b, true, NULL), ACCESS_OK);
	ck_assert_ptr_ne(vma_at(mms[0], a)->anon_vma, vma_at(mms[1], b)->anon_vma);
	ck_assert_int_eq(audit_violations(mms, 2, NULL), 0);
	/* The page of mm 0 now names mm 1's anon_vma: its pte is in no vma of it. */
	page = rt_page_at(mms[0], a);
	rmap_lock(page);
	saved = anon_of(page);
	set_anon(page, vma_at(mms[1], b)->anon_vma);
	rmap_unlock(page);
	ck_assert_int_ge(audit_violations(mms, 2, AUDIT_ANON_VMA), 1);
	rmap_lock(page);
	set_anon(page, saved);
	rmap_unlock(page);
	/* A vma taken off its anon_vma's list: its ptes and itself are reported. */
	{
		struct vm_area_struct *v = vma_at(mms[0], a);

		spin_lock(&v->anon_vma->lock);
		list_del_init(&v->anon_vma_node);
		spin_unlock(&v->anon_vma->lock);
		ck_assert_int_ge(audit_violations(mms, 2, AUDIT_ANON_VMA), 2);
		spin_lock(&v->anon_vma->lock);
		list_add(&v->anon_vma_node, &v->anon_vma->head);
		spin_unlock(&v->anon_vma->lock);
	}
	ck_assert_int_eq(audit_violations(mms, 2, NULL), 0);
	mmput(mms[0]);
	mmput(mms[1]);
}
END_TEST

/* ---- mremap against truncate ---- */

/* The vmas of a file in the order a truncate's walk visits them. */
struct visit_order {
	struct vm_area_struct *seen[4];
	int nr;
};

static int record_visit(struct vm_area_struct *vma, void *arg)
{
	struct visit_order *o = arg;

	if (o->nr < 4)
		o->seen[o->nr++] = vma;
	return 0;
}

/*
 * Why mremap must lock truncate out in the mainline designs: the prio
 * tree visits an interval that ends later first, so a source vma
 * (pages 0-3) is visited after the grown destination (0-7) that a move
 * creates; a pte moved between the two visits would escape truncate.
 */
START_TEST(test_mainline_truncate_visits_grown_destination_first)
{
	struct address_space *f = file_create("order", 16, 16);
	struct mm_struct *mm = mm_alloc();
	struct visit_order o = { .nr = 0 };
	long src, dst;

	src = rt_mmap(mm, f, 0, 4, VM_READ | VM_SHARED, 0);
	dst = rt_mmap(mm, f, 0, 8, VM_READ | VM_SHARED, 0);
	ck_assert_int_gt(src, 0);
	ck_assert_int_gt(dst, 0);
	spin_lock(&f->i_mmap_lock);
	vma_prio_tree_foreach(f, 0, 15, record_visit, &o);
	spin_unlock(&f->i_mmap_lock);
	ck_assert_int_eq(o.nr, 2);
	ck_assert_uint_eq(o.seen[0]->vm_start, (unsigned long)dst);
	ck_assert_uint_eq(o.seen[1]->vm_start, (unsigned long)src);
	mmput(mm);
	file_destroy(f);
}
END_TEST

/*
 * A file vma moved by mremap: 2.6.8's and 2.6.9's move_one_page() take
 * i_mmap_lock, then page_table_lock, for each page; lockdep records the
 * nesting and the lock counters one acquisition per page more than
 * mremap-no-immap-lock (2.6.3's page_table_lock alone) takes.
 */
START_TEST(test_mainline_mremap_takes_i_mmap_lock)
{
	struct address_space *f = file_create("mv", 16, 16);
	struct mm_struct *mm = mm_alloc();
	unsigned long taken[2];
	bool nested[2];

	for (int bug = 0; bug < 2; bug++) {
		struct lock_class_stats before, after;
		long a, b;

		__atomic_store_n(&inject_mask, bug ? 1ULL << INJECT_MREMAP_NO_IMMAP_LOCK : 0,
				 __ATOMIC_RELAXED);
		a = rt_mmap(mm, f, 0, 4, VM_READ | VM_SHARED, 0);
		ck_assert_int_gt(a, 0);
		/* Something right after it, so that it cannot grow in place. */
		ck_assert_int_eq(rt_mmap(mm, NULL, a + 4 * P, 1, VM_READ | VM_WRITE, 0), a + 4 * P);
		for (int i = 0; i < 4; i++)
			ck_assert_int_eq(rt_access(mm, a + i * P, false, NULL), ACCESS_OK);
		lockdep_reset_graph();
		lock_stats_read(LOCK_CLASS_I_MMAP_LOCK, &before);
		down_write(&mm->mmap_sem);
		b = do_mremap(mm, a, 4 * P, 8 * P, 0);
		up_write(&mm->mmap_sem);
		lock_stats_read(LOCK_CLASS_I_MMAP_LOCK, &after);
		nested[bug] = lockdep_has_edge(LOCK_CLASS_I_MMAP_LOCK, LOCK_CLASS_PAGE_TABLE_LOCK);
		taken[bug] = after.acquired - before.acquired;
		ck_assert_int_gt(b, 0);
		ck_assert_int_ne(b, a);
		for (int i = 0; i < 4; i++)
			ck_assert_ptr_nonnull(rt_page_at(mm, b + i * P));
		rt_audit_ok(&mm, 1, &f, 1);
		ck_assert_int_eq(rt_munmap(mm, b, 8), 0);
		ck_assert_int_eq(rt_munmap(mm, a + 4 * P, 1), 0);
	}
	__atomic_store_n(&inject_mask, 0, __ATOMIC_RELAXED);
	ck_assert_msg(nested[0] && !nested[1], "i_mmap_lock -> page_table_lock: %d, bug %d",
		      nested[0], nested[1]);
	ck_assert_msg(taken[0] == taken[1] + 4, "i_mmap_lock taken %lu times, %lu with the bug",
		      taken[0], taken[1]);
	mmput(mm);
	file_destroy(f);
}
END_TEST

/* ---- the lock-order comment ---- */

START_TEST(test_mainline_lock_tree_matches_lockdep)
{
	bool seen[LOCK_CLASS_MAX] = { false };

	ck_assert_int_eq(rmap_select(RMAP_MAINLINE8), 0);
	rt_assert_lock_tree(RT_SOURCE_ROOT "/core/rmap_mainline8.c", "Lock ordering in this rmap",
			    10, seen);
	ck_assert(seen[LOCK_CLASS_I_MMAP_LOCK]);
	ck_assert(seen[LOCK_CLASS_PG_MAPLOCK]);
	ck_assert(seen[LOCK_CLASS_ANON_VMA_LOCK]);
	ck_assert(seen[LOCK_CLASS_PAGE_TABLE_LOCK]);
	rmap_select(RMAP_PTECHAIN);
}
END_TEST

/* 2.6.9's tree, which lockdep enforces while mainline9 is selected. */
START_TEST(test_mainline9_lock_tree_matches_lockdep)
{
	bool seen[LOCK_CLASS_MAX] = { false };

	ck_assert_int_eq(rmap_select(RMAP_MAINLINE9), 0);
	rt_assert_lock_tree(RT_SOURCE_ROOT "/core/rmap_mainline9.c",
			    "Lock ordering in 2.6.9's rmap", 10, seen);
	ck_assert(seen[LOCK_CLASS_I_MMAP_LOCK]);
	ck_assert(seen[LOCK_CLASS_ANON_VMA_LOCK]);
	ck_assert(seen[LOCK_CLASS_PAGE_TABLE_LOCK]);
	/* anon_vma->lock outside page_table_lock: the reverse of 2.6.8. */
	ck_assert(lockdep_order_allows(LOCK_CLASS_ANON_VMA_LOCK, LOCK_CLASS_PAGE_TABLE_LOCK));
	ck_assert(!lockdep_order_allows(LOCK_CLASS_PAGE_TABLE_LOCK, LOCK_CLASS_ANON_VMA_LOCK));
	rmap_select(RMAP_PTECHAIN);
	ck_assert(lockdep_order_allows(LOCK_CLASS_PAGE_TABLE_LOCK, LOCK_CLASS_ANON_VMA_LOCK));
}
END_TEST

struct design_cases {
	const char *names[4];	/* TCase names: Check keeps the pointers */
	void (*fixture)(void);
};

static void add_design_cases(Suite *s, const struct design_cases *d)
{
	TCase *tc;

	tc = tcase_create(d->names[0]);
	tcase_add_checked_fixture(tc, d->fixture, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_mainline_first_fault_prepares_and_adopts);
	tcase_add_test(tc, test_mainline_fork_chain_reclaim_and_free);
	tcase_add_test(tc, test_mainline_mprotect_merge_imports_anon_vma);
	tcase_add_test(tc, test_mainline_mprotect_merge_without_importer_caught);
	suite_add_tcase(s, tc);

	tc = tcase_create(d->names[1]);
	tcase_add_checked_fixture(tc, d->fixture, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_mainline_try_to_unmap_visits_only_the_offset);
	tcase_add_test(tc, test_mainline_nonlinear_cluster_reclaim);
	suite_add_tcase(s, tc);

	tc = tcase_create(d->names[2]);
	tcase_add_checked_fixture(tc, d->fixture, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_mainline_audit_catches_anon_page_without_mapping);
	tcase_add_test(tc, test_mainline_audit_catches_pte_outside_its_anon_vma);
	suite_add_tcase(s, tc);

	tc = tcase_create(d->names[3]);
	tcase_add_checked_fixture(tc, d->fixture, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_mainline_truncate_visits_grown_destination_first);
	tcase_add_test(tc, test_mainline_mremap_takes_i_mmap_lock);
	suite_add_tcase(s, tc);
}

static Suite *mainline_suite(void)
{
	Suite *s = suite_create("mainline");
	TCase *tc;

	static const struct design_cases ml8 = { { "anon_vma8", "file8", "audit8", "mremap8" }, setup8 };
	static const struct design_cases ml9 = { { "anon_vma9", "file9", "audit9", "mremap9" }, setup9 };

	add_design_cases(s, &ml8);
	add_design_cases(s, &ml9);
	tc = tcase_create("order");
	tcase_add_test(tc, test_mainline_lock_tree_matches_lockdep);
	tcase_add_test(tc, test_mainline9_lock_tree_matches_lockdep);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_check_main(mainline_suite());
}
