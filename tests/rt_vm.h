/* SPDX-License-Identifier: MIT */
/*
 * The VM suites' fixture: workloads/vm_fixture.h's set-up and tear-down
 * with Check's assertions on top (a leak or an audit violation fails the
 * test, naming the design), for tcase_add_checked_fixture() or for a loop
 * over the designs.
 */
#ifndef RT_TESTS_RT_VM_H
#define RT_TESTS_RT_VM_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>

#include "pgtable.h"
#include "rmap.h"
#include "vm_fixture.h"

/* What the test side adds to a fixture (struct rt_vm_suite.checks). */
enum rt_vm_checks {
	/* The main thread is the emulated task "test-main" from set-up to tear-down. */
	RT_VM_TASK = 1 << 0,
	/*
	 * vm_reports are captured from set-up to tear-down (rt_reports_capture()),
	 * and the tear-down fails on a leak or an audit report.
	 */
	RT_VM_CAPTURE = 1 << 1,
	/* With RT_VM_CAPTURE: the tear-down also fails on a report of any other kind. */
	RT_VM_CLEAN = 1 << 2,
};

/**
 * struct rt_vm_suite - a VM suite's fixture
 * @fx: the model (@fx.design: the design of tests that do not loop)
 * @checks: enum rt_vm_checks
 */
struct rt_vm_suite {
	struct rt_vm_fixture fx;
	unsigned int checks;
};

/*
 * The model of the suites that audit it: @pages of memory and @slots of
 * swap in @design, reports captured, leaks and audit reports failing the
 * test at tear-down.
 */
#define RT_VM_AUDITED(design, pages, slots)				\
	{ { (design), (pages), (slots), true }, RT_VM_TASK | RT_VM_CAPTURE }

/**
 * rt_vm_setup() - set up @s with @design
 * @s: the suite's fixture (kept until rt_vm_teardown())
 * @design: the rmap design, in place of @s->fx.design
 *
 * ck_asserts that the design was selected and memory and swap were set
 * up: a design missing from core's table fails the test.
 */
void rt_vm_setup(const struct rt_vm_suite *s, enum rmap_mode design);

/* Tear down what rt_vm_setup() set up, with the checks it was given. */
void rt_vm_teardown(void);

static inline bool rt_vm_any_design(enum rmap_mode design)
{
	(void)design;
	return true;
}

/*
 * The statements run once in each design of core's table that @want (a
 * predicate on the design) accepts, each time on a model set up fresh by
 * rt_vm_setup(@s, design) and torn down after; rmap_mode is the design.
 */
#define RT_VM_EACH_DESIGN_IF(s, want, ...) do {				\
	RT_VM_FOR_EACH_DESIGN(rt_vm_design_) {				\
		ck_assert_msg(rmap_design(rt_vm_design_),		\
			      "mode %d: no design in core's table", rt_vm_design_); \
		if (!(want)(rt_vm_design_))				\
			continue;					\
		rt_vm_setup((s), rt_vm_design_);			\
		__VA_ARGS__;						\
		rt_vm_teardown();					\
	}								\
} while (0)
#define RT_VM_EACH_DESIGN(s, ...) RT_VM_EACH_DESIGN_IF(s, rt_vm_any_design, __VA_ARGS__)

/*
 * The suite's fixture for rt_vm_checked_setup() (Check's fixtures take no
 * argument: one per suite). @s must outlive the suite.
 */
void rt_vm_use(const struct rt_vm_suite *s);

/* rt_vm_setup() of rt_vm_use()'s fixture in its design, for a suite table. */
void rt_vm_checked_setup(void);

/**
 * rt_mm_with_file() - a new mm mapping a new file shared, read/write
 * @name: the file's name
 * @pages: its size, and the most it may grow to
 * @map: pages mapped, from offset 0
 * @f: receives the file (file_create())
 * @addr: receives the mapping's address (ck_asserted)
 *
 * Return: the mm (mm_alloc()).
 */
struct mm_struct *rt_mm_with_file(const char *name, unsigned long pages, unsigned long map,
				  struct address_space **f, long *addr);

/*
 * Write (@write) or read each of @pages pages from @addr in @mm
 * (rt_access()); ck_asserts each is ACCESS_OK. The stamps into @stamps
 * (NULL: not kept).
 */
void rt_access_pages(struct mm_struct *mm, unsigned long addr, int pages, bool write,
		     uint64_t *stamps);

/* Read each of @pages pages from @addr in @mm: ck_asserts ACCESS_OK and stamp @stamps[i]. */
void rt_assert_pages(struct mm_struct *mm, unsigned long addr, int pages, const uint64_t *stamps);

/* ck_asserts that no lockdep, atomic-sleep or WARN report was captured. */
void rt_assert_no_lockdep_reports(void);

/* Run the audit; ck_abort with the first violation, naming the design. */
void rt_audit_ok(struct mm_struct **mms, int nr_mms,
		 struct address_space **files, int nr_files);

/*
 * The end of a test: rt_audit_ok(), then each of @mms exits (mmput(), in
 * order) and each of @files goes (rt_file_free()).
 */
void rt_audit_and_exit(struct mm_struct **mms, int nr_mms,
		       struct address_space **files, int nr_files);

/* The pte mapping @addr in @mm, or 0 (none). Takes page_table_lock. */
pte_t rt_pte_at(struct mm_struct *mm, unsigned long addr);

/*
 * rt_swap_in_race() - fault in a swapped-out page while a second swap-in
 * of it runs in the first one's window (deterministic: yield points)
 * @mm, @addr: an anonymous page whose pte holds a swap entry, the page
 *	not in the swap cache
 * @reuse: reclaim then swaps the page out again, to the same slot,
 *	before the first fault re-takes page_table_lock
 * @steps: receives the window's steps that ran: 1 when the second
 *	swap-in freed the slot before the first fault's swap_duplicate(),
 *	2 when (with @reuse) the pte held the first fault's entry again
 *
 * The first fault reads the pte, drops page_table_lock and misses the
 * swap cache ("do_swap_page:cache_miss"); there a write fault of @addr
 * swaps the page in and frees the slot (remove_exclusive_swap_page()).
 * Its swap_duplicate() fails ("do_swap_page:slot_freed"); there, with
 * @reuse, reclaim swaps the page out to the slot just freed, the lowest.
 * A perturb_ops yield hook installed before the call keeps seeing every
 * point (the race's hook calls it first), and is installed again after.
 *
 * Context: an attached task; no other thread uses the model.
 * Return: the first access's result (rt_access(), a read).
 */
enum mm_access_result rt_swap_in_race(struct mm_struct *mm, unsigned long addr, bool reuse,
				      int *steps);

#endif /* RT_TESTS_RT_VM_H */
