// SPDX-License-Identifier: MIT
#include "rt_vm.h"

#include <string.h>

#include "audit.h"
#include "page_alloc.h"
#include "perturb.h"
#include "pgtable.h"
#include "rmap.h"
#include "rt_check.h"
#include "swap.h"
#include "task.h"
#include "vmscan.h"

/* The fixture set up now, and its design; rt_vm_use()'s. */
static struct rt_vm_suite cur;
static const struct rt_vm_suite *checked;

void rt_vm_setup(const struct rt_vm_suite *s, enum rmap_mode design)
{
	int r;

	cur = *s;
	cur.fx.design = design;
	if (cur.checks & RT_VM_TASK)
		rt_task_attach("test-main");
	r = rt_vm_up(&cur.fx);
	ck_assert_msg(r == 0, "[%s] rt_vm_up(%lu pages, %lu slots) = %d", rmap_mode_name(design),
		      cur.fx.pages, cur.fx.slots, r);
	if (cur.checks & RT_VM_CAPTURE)
		rt_reports_capture();
	rt_failure_reset();
}

void rt_vm_teardown(void)
{
	unsigned long v = rt_vm_down(&cur.fx);
	struct vm_report r;

	if (cur.checks & RT_VM_CAPTURE) {
		if (v && rt_reports_first(VM_REPORT_AUDIT, &r))
			ck_abort_msg("[%s] teardown: %lu leaks, first: %s",
				     rmap_mode_name(cur.fx.design), v, r.message);
		ck_assert_int_eq(rt_reports_count(VM_REPORT_AUDIT), 0);
	}
	if (cur.checks & RT_VM_CLEAN)
		for (int k = VM_REPORT_BUG; k < VM_REPORT_NR; k++)
			ck_assert_msg(rt_reports_count((enum vm_report_kind)k) == 0,
				      "[%s] %d reports of kind %d", rmap_mode_name(cur.fx.design),
				      rt_reports_count((enum vm_report_kind)k), k);
	if (cur.checks & RT_VM_CAPTURE)
		rt_reports_release();
	if (cur.checks & RT_VM_TASK)
		rt_task_detach();
}

void rt_vm_use(const struct rt_vm_suite *s)
{
	checked = s;
}

void rt_vm_checked_setup(void)
{
	rt_vm_setup(checked, checked->fx.design);
}

struct mm_struct *rt_mm_with_file(const char *name, unsigned long pages, unsigned long map,
				  struct address_space **f, long *addr)
{
	struct mm_struct *mm;

	*f = file_create(name, pages, pages);
	mm = mm_alloc();
	*addr = rt_mmap(mm, *f, 0, map, VM_READ | VM_WRITE | VM_SHARED, 0);
	ck_assert_int_gt(*addr, 0);
	return mm;
}

void rt_access_pages(struct mm_struct *mm, unsigned long addr, int pages, bool write,
		     uint64_t *stamps)
{
	for (int i = 0; i < pages; i++) {
		unsigned long at = addr + (unsigned long)i * PAGE_SIZE;
		enum mm_access_result r = rt_access(mm, at, write, stamps ? &stamps[i] : NULL);

		ck_assert_msg(r == ACCESS_OK, "[%s] %s of page %d at %#lx: %d",
			      rmap_mode_name(rmap_mode), write ? "write" : "read", i, at, (int)r);
	}
}

void rt_assert_pages(struct mm_struct *mm, unsigned long addr, int pages, const uint64_t *stamps)
{
	for (int i = 0; i < pages; i++) {
		unsigned long at = addr + (unsigned long)i * PAGE_SIZE;
		uint64_t v;
		enum mm_access_result r = rt_access(mm, at, false, &v);

		ck_assert_msg(r == ACCESS_OK, "[%s] read of page %d at %#lx: %d",
			      rmap_mode_name(rmap_mode), i, at, (int)r);
		ck_assert_msg(v == stamps[i], "[%s] page %d at %#lx: stamp %#llx, want %#llx",
			      rmap_mode_name(rmap_mode), i, at, (unsigned long long)v,
			      (unsigned long long)stamps[i]);
	}
}

void rt_assert_no_lockdep_reports(void)
{
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_CYCLE), 0);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_ORDER), 0);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_RECURSION), 0);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_UNHELD), 0);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 0);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_WARN), 0);
}

void rt_audit_ok(struct mm_struct **mms, int nr_mms,
		 struct address_space **files, int nr_files)
{
	struct vm_report r;
	unsigned long v = vm_audit(mms, nr_mms, files, nr_files, NULL);

	if (v && rt_reports_first(VM_REPORT_AUDIT, &r))
		ck_abort_msg("[%s] audit: %lu violations, first: %s", rmap_mode_name(rmap_mode),
			     v, r.message);
	ck_assert_int_eq(v, 0);
}

void rt_audit_and_exit(struct mm_struct **mms, int nr_mms,
		       struct address_space **files, int nr_files)
{
	rt_audit_ok(mms, nr_mms, files, nr_files);
	for (int i = 0; i < nr_mms; i++)
		mmput(mms[i]);
	for (int i = 0; i < nr_files; i++)
		rt_file_free(files[i]);
}

/* rt_swap_in_race()'s state: one race at a time, in one thread. */
static struct {
	const struct perturb_ops *chained;
	struct mm_struct *mm;
	unsigned long addr;
	pte_t orig;
	bool reuse, busy;
	int steps;
} swap_race;

pte_t rt_pte_at(struct mm_struct *mm, unsigned long addr)
{
	pte_t *ptep, pte;

	spin_lock(&mm->page_table_lock);
	ptep = pte_offset(mm->pgd, addr);
	pte = ptep ? ptep_get(ptep) : 0;
	spin_unlock(&mm->page_table_lock);
	return pte;
}

/*
 * The write fault's page is still queued in this task's lru_add_active
 * pagevec, whose reference keeps remove_exclusive_swap_page() from
 * freeing the slot (as in 2.6); the other CPU's next swap-cache check,
 * after its pagevec drained, frees it.
 */
static void swap_race_free_slot(void)
{
	struct page *page;

	lru_add_drain();
	page = rt_page_at(swap_race.mm, swap_race.addr);
	if (page && PageSwapCache(page) && !TestSetPageLocked(page)) {
		remove_exclusive_swap_page(page);
		unlock_page(page);
	}
}

static void swap_race_yield(const char *where)
{
	if (swap_race.chained && swap_race.chained->yield)
		swap_race.chained->yield(where);
	if (swap_race.busy)
		return;
	swap_race.busy = true;
	if (swap_race.steps == 0 && !strcmp(where, "do_swap_page:cache_miss")) {
		/* The other CPU's write fault: swapped in, the slot freed. */
		swap_race.steps = 1;
		handle_mm_fault(swap_race.mm, find_vma(swap_race.mm, swap_race.addr),
				swap_race.addr, true);
		swap_race_free_slot();
	} else if (swap_race.steps == 1 && swap_race.reuse &&
		   !strcmp(where, "do_swap_page:slot_freed")) {
		/* Reclaim: the page out again, to the same, lowest free slot. */
		for (int i = 0; i < 8 && rt_pte_at(swap_race.mm, swap_race.addr) != swap_race.orig; i++)
			shrink_zone(&contig_zone, 256);
		if (rt_pte_at(swap_race.mm, swap_race.addr) == swap_race.orig)
			swap_race.steps = 2;
	}
	swap_race.busy = false;
}

enum mm_access_result rt_swap_in_race(struct mm_struct *mm, unsigned long addr, bool reuse,
				      int *steps)
{
	const struct perturb_ops *prev = __atomic_load_n(&perturb_ops, __ATOMIC_RELAXED);
	const struct perturb_ops race = {
		.yield = swap_race_yield,
		.long_hold = prev ? prev->long_hold : NULL,
	};
	uint64_t hold_mask = __atomic_load_n(&perturb_long_hold_mask, __ATOMIC_RELAXED);
	enum mm_access_result r;

	swap_race.chained = prev;
	swap_race.mm = mm;
	swap_race.addr = addr;
	swap_race.orig = rt_pte_at(mm, addr);
	swap_race.reuse = reuse;
	swap_race.steps = 0;
	ck_assert_msg(is_swap_pte(swap_race.orig), "%#lx does not hold a swap entry", addr);
	ck_assert_msg(!lookup_swap_cache_peek(pte_to_swp_entry(swap_race.orig)),
		      "%#lx's page is still in the swap cache", addr);
	perturb_install(&race, hold_mask);
	r = rt_access(mm, addr, false, NULL);
	perturb_install(prev, hold_mask);
	*steps = swap_race.steps;
	return r;
}
