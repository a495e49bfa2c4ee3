// SPDX-License-Identifier: MIT
/*
 * rmap: the mode table and fallback names; 2.6.3's pte_chain rmap
 * (ptechain) through its ops table: direct -> chain -> direct with exact
 * counts and block accounting, page_referenced, try_to_unmap of file and
 * swap-cache pages (file ptes, swap ptes and slot counts), SWAP_AGAIN
 * when another thread holds a page_table_lock, SWAP_FAIL when mlocked or
 * young, the audit walk, 32 threads mapping shared pages at once, and the
 * lock-order tree of rmap_ptechain.c against lockdep's.
 *
 * The environment: mms from mm_alloc() with one anonymous vma from
 * do_mmap(), pages from mem_init(), ptes set by hand as the fault path
 * sets them (page reference, rss, page_add_rmap under page_table_lock).
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "lockdep.h"
#include "mm.h"
#include "page.h"
#include "page_alloc.h"
#include "pgtable.h"
#include "rcu.h"
#include "rwsem.h"
#include "rmap-internal.h"
#include "rmap.h"
#include "rt_check.h"
#include "rt_vm.h"
#include "swap.h"

#define NR_PAGES	1024UL
#define VMA_BASE	0x10000000UL
#define VMA_PAGES	128UL
#define CHAIN_BYTES	((unsigned long)sizeof(struct pte_chain))

/* An mm with one anonymous vma [VMA_BASE, VMA_BASE + VMA_PAGES pages). */
struct test_mm {
	struct mm_struct *mm;
	struct vm_area_struct *vma;
};

/*
 * do_mmap() of an anonymous vma, then @vm_flags (VM_LOCKED, VM_NONLINEAR)
 * set by hand: do_mmap() would populate an mlocked range, and only
 * remap_file_pages() makes a vma nonlinear.
 */
static struct test_mm *test_mm_create(unsigned long vm_flags)
{
	struct test_mm *t = calloc(1, sizeof(*t));
	long addr;

	ck_assert_ptr_nonnull(t);
	t->mm = mm_alloc();
	ck_assert_ptr_nonnull(t->mm);
	down_write(&t->mm->mmap_sem);
	addr = do_mmap(t->mm, NULL, VMA_BASE, VMA_PAGES * PAGE_SIZE,
		       VM_READ | VM_WRITE, 0);
	ck_assert_int_eq(addr, (long)VMA_BASE);
	t->vma = find_vma(t->mm, VMA_BASE);
	ck_assert_ptr_nonnull(t->vma);
	ck_assert_uint_eq(t->vma->vm_start, VMA_BASE);
	ck_assert_uint_eq(t->vma->vm_end, VMA_BASE + VMA_PAGES * PAGE_SIZE);
	t->vma->vm_flags |= vm_flags;
	up_write(&t->mm->mmap_sem);
	return t;
}

/* Every present pte is gone by now; mmput() zaps file and swap ptes. */
static void test_mm_destroy(struct test_mm *t)
{
	ck_assert_uint_eq(t->mm->rss, 0);
	down_write(&t->mm->mmap_sem);
	t->vma->vm_flags &= ~(VM_LOCKED | VM_NONLINEAR);
	up_write(&t->mm->mmap_sem);
	mmput(t->mm);
	free(t);
}

static unsigned long slot_addr(unsigned long slot)
{
	return VMA_BASE + slot * PAGE_SIZE;
}

/*
 * Map @page at @slot of @t as the fault path does: the chain preallocated
 * before page_table_lock, the pte set, a page reference and rss taken, the
 * rmap told. Leftovers are given back, so chain bytes are exact.
 * @prot_bits: pte bits besides the present/user ones (_PAGE_ACCESSED...).
 * Returns false (no ck_assert: workers call it) when allocation failed.
 */
static bool map_page(struct test_mm *t, struct page *page, unsigned long slot,
		     bool anon, pte_t prot_bits)
{
	unsigned long addr = slot_addr(slot);
	struct pte_chain *chain = rmap->pte_chain_alloc(GFP_KERNEL);
	pte_t *ptep;

	if (!chain)
		return false;
	spin_lock(&t->mm->page_table_lock);
	ptep = pte_alloc(t->mm->pgd, addr);
	if (!ptep || !pte_none(ptep_get(ptep))) {
		spin_unlock(&t->mm->page_table_lock);
		rmap->pte_chain_free(chain);
		return false;
	}
	get_page(page);
	t->mm->rss++;
	set_pte(ptep, pfn_pte(page_to_pfn(page),
			      __pgprot(_PAGE_PRESENT | _PAGE_USER | prot_bits)));
	chain = rmap->page_add_rmap(page, t->vma, addr, ptep, anon, chain);
	spin_unlock(&t->mm->page_table_lock);
	rmap->pte_chain_free(chain);
	return true;
}

/* Zap the pte at @slot of @t, as zap_pte_range does. */
static void unmap_page(struct test_mm *t, struct page *page, unsigned long slot)
{
	pte_t *ptep;

	spin_lock(&t->mm->page_table_lock);
	ptep = pte_offset(t->mm->pgd, slot_addr(slot));
	BUG_ON(!ptep || !pte_present(ptep_get(ptep)));
	BUG_ON(pte_pfn(ptep_get_and_clear(ptep)) != page_to_pfn(page));
	rmap->page_remove_rmap(page, ptep);
	t->mm->rss--;
	spin_unlock(&t->mm->page_table_lock);
	put_page(page);
}

static pte_t *slot_ptep(struct test_mm *t, unsigned long slot)
{
	pte_t *ptep = pte_offset(t->mm->pgd, slot_addr(slot));

	ck_assert_ptr_nonnull(ptep);
	return ptep;
}

static bool mapped_locked(struct page *page)
{
	bool m;

	rmap_lock(page);
	m = rmap->page_mapped(page);
	rmap_unlock(page);
	return m;
}

static unsigned long chain_bytes_now(void)
{
	struct rmap_bytes b;

	rmap_bytes_read(&b);
	return b.pte_chain_now;
}

/* Blocks a chain of @n ptes holds: none while direct, then NRPTE a block. */
static unsigned long blocks_for(unsigned long n)
{
	return n <= 1 ? 0 : (n + NRPTE - 1) / NRPTE;
}

/* ptechain, unless a test selects another; no swap, unless a test sets it up. */
static const struct rt_vm_suite rmap_suite_fx = { { RMAP_PTECHAIN, NR_PAGES, 0, false }, 0 };

static void setup(void)
{
	rt_vm_setup(&rmap_suite_fx, RMAP_PTECHAIN);
	ck_assert_uint_eq(chain_bytes_now(), 0);
}

/* The mms go after a grace period: rt_vm_teardown() waits for it. */
static void teardown(void)
{
	ck_assert_uint_eq(chain_bytes_now(), 0);
	rt_vm_teardown();
}

/* ---- modes, names, counters ---- */

START_TEST(test_rmap_mode_table)
{
	char list[RMAP_MODE_LIST_LEN], prefix[4];
	int n;

	/* Every mode has a design registered in core's table: a missing one fails here. */
	for (int m = 0; m < RMAP_NR_MODES; m++) {
		const struct rmap_ops *ops = rmap_design((enum rmap_mode)m);
		const char *name = rmap_mode_name((enum rmap_mode)m);

		ck_assert_msg(ops != NULL, "mode %d: no design in core/rmap.c's table", m);
		ck_assert_ptr_eq(name, ops->name);
		/* A name fits RMAP_MODE_LIST_LEN and a comma-separated list. */
		ck_assert_msg(*name && strlen(name) < 15 && !strpbrk(name, ", |") &&
			      strcmp(name, "all") && strcmp(name, "?"), "mode %d: name '%s'", m, name);
		ck_assert_int_eq(rmap_mode_by_name(name), m);
		ck_assert_int_eq(rmap_select((enum rmap_mode)m), 0);
		ck_assert_int_eq(rmap_mode, m);
		ck_assert_ptr_eq(rmap, ops);
		for (int k = 0; k < m; k++)
			ck_assert_str_ne(rmap_mode_name((enum rmap_mode)k), name);
	}
	ck_assert_int_eq(rmap_select(RMAP_NR_MODES), -EINVAL);
	ck_assert_int_eq(rmap_select((enum rmap_mode)-1), -EINVAL);
	ck_assert_ptr_null(rmap_design(RMAP_NR_MODES));
	ck_assert_int_eq(rmap_mode_by_name("pte_chain"), -1);
	ck_assert_int_eq(rmap_mode_by_name(NULL), -1);
	ck_assert_str_eq(rmap_mode_name(RMAP_NR_MODES), "?");

	/* Lists of designs: table order, whatever order the bits were set in. */
	ck_assert_int_eq(rmap_mode_list(RMAP_MODE_BIT(RMAP_ANONVMA) | RMAP_MODE_BIT(RMAP_OBJFILE),
					",", list, sizeof(list)), 15);
	ck_assert_str_eq(list, "objfile,anonvma");
	ck_assert_int_eq(rmap_mode_list(0, ",", list, sizeof(list)), 0);
	ck_assert_str_eq(list, "");
	/* Every design, truncated to fit, the whole length counted as snprintf() counts. */
	n = rmap_mode_list(RMAP_ALL_MODES, ", ", NULL, 0);
	ck_assert_int_eq(rmap_mode_list(RMAP_ALL_MODES, ", ", list, sizeof(list)), n);
	ck_assert_int_eq((int)strlen(list), n);
	for (int m = 0; m < RMAP_NR_MODES; m++)
		ck_assert(strstr(list, rmap_mode_name((enum rmap_mode)m)));
	snprintf(prefix, sizeof(prefix), "%.3s", list);
	ck_assert_int_eq(rmap_mode_list(RMAP_ALL_MODES, ", ", list, 4), n);
	ck_assert_str_eq(list, prefix);

	/* The default design, which --rmap's help names. */
	ck_assert_str_eq(rmap_mode_name(RMAP_DEFAULT), "ptechain");
	ck_assert_int_eq(rmap_select(RMAP_DEFAULT), 0);
	ck_assert_ptr_eq(rmap, &rmap_ptechain_ops);
	ck_assert_int_eq(rmap_mode, RMAP_PTECHAIN);
}
END_TEST

START_TEST(test_rmap_fallback_names_and_counts)
{
	static const char *const names[FB_NR_SITES] = {
		"try_to_unmap_one:page_table_lock",
		"page_referenced_obj:i_shared_sem",
		"page_referenced_obj_one:page_table_lock",
		"try_to_unmap_obj:i_shared_sem",
		"try_to_unmap_obj_one:page_table_lock",
		"page_referenced_anon_one:page_table_lock",
		"try_to_unmap_anon_one:page_table_lock",
		"shrink_list:PG_locked",
		"page_referenced_file:i_mmap_lock",
		"page_referenced_one:page_table_lock",
		"try_to_unmap_file:i_mmap_lock",
		"try_to_unmap_cluster:page_table_lock",
	};

	for (int s = 0; s < FB_NR_SITES; s++) {
		ck_assert_str_eq(rmap_fallback_name(s), names[s]);
		for (int k = 0; k <= s; k++)
			rmap_fallback(s);
	}
	for (int s = 0; s < FB_NR_SITES; s++)
		ck_assert_uint_eq(rmap_fallback_count(s), (unsigned long)s + 1);
	ck_assert_str_eq(rmap_fallback_name(FB_NR_SITES), "?");
	rmap_fallback_reset();
	for (int s = 0; s < FB_NR_SITES; s++)
		ck_assert_uint_eq(rmap_fallback_count(s), 0);
}
END_TEST

START_TEST(test_rmap_bytes_peak)
{
	struct rmap_bytes b0, b;

	rmap_bytes_reset_peak();
	rmap_bytes_read(&b0);
	rmap_account_anon_vma(300);
	rmap_bytes_sample();		/* an audit: the peak is what samples saw */
	rmap_account_anon_vma(-100);
	rmap_account_pte_chain(128);
	rmap_account_pte_chain(64);
	rmap_account_pte_chain(-64);	/* no sample saw this one */
	rmap_bytes_read(&b);
	ck_assert_uint_eq(b.anon_vma_now, b0.anon_vma_now + 200);
	ck_assert_uint_eq(b.anon_vma_peak, b0.anon_vma_now + 300);
	ck_assert_uint_eq(b.pte_chain_now, b0.pte_chain_now + 128);
	ck_assert_uint_eq(b.pte_chain_peak, b0.pte_chain_now + 128);
	rmap_account_anon_vma(-200);
	rmap_account_pte_chain(-128);
	rmap_bytes_reset_peak();
	rmap_bytes_read(&b);
	ck_assert_uint_eq(b.anon_vma_now, b0.anon_vma_now);
	ck_assert_uint_eq(b.anon_vma_peak, b0.anon_vma_now);
	ck_assert_uint_eq(b.pte_chain_peak, b0.pte_chain_now);
}
END_TEST

/* ---- ptechain: direct <-> chain ---- */

/* rmap_walk's callback: mark the slot of each pte found, once. */
struct walk_marks {
	struct test_mm *t;
	unsigned char seen[VMA_PAGES];
	int dups, strangers;
};

static int walk_mark(struct page *page, struct mm_struct *mm, unsigned long address,
		     pte_t *ptep, void *arg)
{
	struct walk_marks *w = arg;
	unsigned long slot = (address - VMA_BASE) >> PAGE_SHIFT;

	(void)page;
	if (mm != w->t->mm || slot >= VMA_PAGES ||
	    ptep != pte_offset(mm->pgd, address)) {
		w->strangers++;
		return 0;
	}
	if (w->seen[slot]++)
		w->dups++;
	return 0;
}

/* Everything the rmap says about @page agrees with the @n slots in @slots. */
static void check_page_rmap(struct test_mm *t, struct page *page,
			    const unsigned long *slots, unsigned long n)
{
	struct walk_marks w = { .t = t };

	ck_assert_int_eq(rmap->rmap_count(page), (int)n);
	ck_assert(mapped_locked(page) == (n > 0));
	ck_assert(PageDirect(page) == (n == 1));
	ck_assert_uint_eq(chain_bytes_now(), blocks_for(n) * CHAIN_BYTES);
	ck_assert_int_eq(page_count(page), (int)n + 1);
	ck_assert_uint_eq(t->mm->rss, n);

	ck_assert_int_eq(rmap->rmap_walk(page, walk_mark, &w), (int)n);
	ck_assert_int_eq(w.dups, 0);
	ck_assert_int_eq(w.strangers, 0);
	for (unsigned long k = 0; k < n; k++)
		ck_assert_msg(w.seen[slots[k]] == 1, "slot %lu not walked", slots[k]);
}

static void transitions(unsigned long n)
{
	struct test_mm *t = test_mm_create(0);
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned long slots[VMA_PAGES];
	uint64_t rng = rt_seed_child(rt_test_seed(), n);

	ck_assert_uint_le(n, VMA_PAGES);
	ck_assert_ptr_nonnull(page);
	page->index = 7;

	for (unsigned long k = 0; k < n; k++) {
		ck_assert(map_page(t, page, k, true, _PAGE_RW));
		slots[k] = k;
		ck_assert(PageAnon(page));
		check_page_rmap(t, page, slots, k + 1);
	}

	/* Remove in a random order (Fisher-Yates from the printed seed). */
	for (unsigned long k = n; k > 1; k--) {
		unsigned long j = rt_rand(&rng) % k, tmp = slots[k - 1];

		slots[k - 1] = slots[j];
		slots[j] = tmp;
	}
	for (unsigned long k = n; k > 0; k--) {
		unmap_page(t, page, slots[k - 1]);
		check_page_rmap(t, page, slots, k - 1);
	}

	ck_assert_ptr_null(page->pte.chain);
	ck_assert_int_eq(page_count(page), 1);
	put_page(page);
	test_mm_destroy(t);
}

START_TEST(test_rmap_ptechain_direct_chain_direct)
{
	static const unsigned long sizes[] = { 1, 2, NRPTE, NRPTE + 1, 100 };

	ck_assert_uint_eq(NRPTE, 7);
	ck_assert_uint_eq(sizeof(struct pte_chain), 64);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		transitions(sizes[i]);
}
END_TEST

/*
 * Removing a pte the rmap never recorded is 2.6.3's bad-page report, a
 * BUG here: the test expects the abort (forking runs only, see the suite).
 */
START_TEST(test_rmap_ptechain_remove_unknown_pte_bugs)
{
	struct test_mm *t = test_mm_create(0);
	struct page *page = alloc_page(GFP_KERNEL);
	pte_t *other;

	ck_assert(map_page(t, page, 0, true, 0));
	ck_assert(map_page(t, page, 1, true, 0));
	ck_assert_int_eq(rmap->rmap_count(page), 2);
	spin_lock(&t->mm->page_table_lock);
	other = pte_alloc(t->mm->pgd, slot_addr(5));
	rmap->page_remove_rmap(page, other);
	spin_unlock(&t->mm->page_table_lock);
	ck_abort_msg("page_remove_rmap of an unknown pte returned");
}
END_TEST

/* ---- page_referenced ---- */

START_TEST(test_rmap_ptechain_page_referenced)
{
	struct test_mm *t = test_mm_create(0);
	struct page *page = alloc_page(GFP_KERNEL);

	/* Five ptes, three of them young, plus PG_referenced: 4. */
	for (unsigned long s = 0; s < 5; s++)
		ck_assert(map_page(t, page, s, true, s % 2 ? 0 : _PAGE_ACCESSED));
	SetPageReferenced(page);

	lock_page(page);
	rmap_lock(page);
	ck_assert_int_eq(rmap->page_referenced(page), 4);
	ck_assert(!PageReferenced(page));
	for (unsigned long s = 0; s < 5; s++)
		ck_assert(!pte_young(ptep_get(slot_ptep(t, s))));
	ck_assert_int_eq(rmap->page_referenced(page), 0);
	rmap_unlock(page);

	/* The MMU touches one; only that one counts. */
	ck_assert(ptep_mkyoung(slot_ptep(t, 3), NULL));
	rmap_lock(page);
	ck_assert_int_eq(rmap->page_referenced(page), 1);
	rmap_unlock(page);

	/* Direct: one pte. */
	for (unsigned long s = 1; s < 5; s++)
		unmap_page(t, page, s);
	ck_assert(ptep_mkyoung(slot_ptep(t, 0), NULL));
	rmap_lock(page);
	ck_assert(PageDirect(page));
	ck_assert_int_eq(rmap->page_referenced(page), 1);
	ck_assert_int_eq(rmap->page_referenced(page), 0);
	rmap_unlock(page);
	unlock_page(page);

	unmap_page(t, page, 0);
	put_page(page);
	test_mm_destroy(t);
}
END_TEST

/* ---- try_to_unmap ---- */

static struct address_space test_file;	/* only its address is used */

/* A file page at offset VMA pgoff + 3: linear at slot 3, nonlinear at 9. */
START_TEST(test_rmap_ptechain_unmap_file_page)
{
	struct test_mm *t = test_mm_create(0);
	struct page *page = alloc_page(GFP_KERNEL);
	int ret;

	page->as.mapping = &test_file;
	page->index = t->vma->vm_pgoff + 3;
	ck_assert(map_page(t, page, 3, false, _PAGE_RW | _PAGE_DIRTY));
	ck_assert(map_page(t, page, 9, false, _PAGE_RW));
	ck_assert(map_page(t, page, 11, false, _PAGE_ACCESSED));
	ck_assert(!PageAnon(page));
	ck_assert_int_eq(page_count(page), 4);

	lock_page(page);
	rmap_lock(page);
	/* Slot 11 is young: another chance, the walk stops there. */
	ret = rmap->try_to_unmap(page);
	ck_assert_int_eq(ret, SWAP_FAIL);
	ck_assert(rmap->page_mapped(page));
	ck_assert(pte_present(ptep_get(slot_ptep(t, 11))));
	ck_assert(!pte_young(ptep_get(slot_ptep(t, 11))));

	ret = rmap->try_to_unmap(page);
	ck_assert_int_eq(ret, SWAP_SUCCESS);
	ck_assert(!rmap->page_mapped(page));
	ck_assert(!PageDirect(page));
	rmap_unlock(page);

	ck_assert(pte_none(ptep_get(slot_ptep(t, 3))));
	ck_assert(pte_file(ptep_get(slot_ptep(t, 9))));
	ck_assert_uint_eq(pte_to_pgoff(ptep_get(slot_ptep(t, 9))), page->index);
	ck_assert(pte_file(ptep_get(slot_ptep(t, 11))));
	ck_assert(PageDirty(page));
	ck_assert_uint_eq(t->mm->rss, 0);
	ck_assert_int_eq(page_count(page), 1);
	ck_assert_int_eq(rmap->rmap_count(page), 0);
	unlock_page(page);

	page->as.mapping = NULL;
	put_page(page);
	test_mm_destroy(t);
}
END_TEST

/* A VM_NONLINEAR vma gets a file pte even at the linear position. */
START_TEST(test_rmap_ptechain_unmap_nonlinear_vma)
{
	struct test_mm *t = test_mm_create(VM_SHARED | VM_NONLINEAR);
	struct page *page = alloc_page(GFP_KERNEL);

	page->as.mapping = &test_file;
	page->index = t->vma->vm_pgoff + 4;
	ck_assert(map_page(t, page, 4, false, 0));
	lock_page(page);
	rmap_lock(page);
	ck_assert_int_eq(rmap->try_to_unmap(page), SWAP_SUCCESS);
	rmap_unlock(page);
	unlock_page(page);
	ck_assert(pte_file(ptep_get(slot_ptep(t, 4))));
	ck_assert_uint_eq(pte_to_pgoff(ptep_get(slot_ptep(t, 4))), page->index);
	ck_assert(!PageDirty(page));
	ck_assert_int_eq(page_count(page), 1);
	page->as.mapping = NULL;
	put_page(page);
	test_mm_destroy(t);
}
END_TEST

START_TEST(test_rmap_ptechain_unmap_mlocked_fails)
{
	struct test_mm *t = test_mm_create(VM_LOCKED);
	struct page *page = alloc_page(GFP_KERNEL);

	page->as.mapping = &test_file;
	page->index = t->vma->vm_pgoff;
	ck_assert(map_page(t, page, 0, false, 0));
	ck_assert(map_page(t, page, 1, false, 0));
	lock_page(page);
	rmap_lock(page);
	ck_assert_int_eq(rmap->try_to_unmap(page), SWAP_FAIL);
	ck_assert_int_eq(__pte_chain_count(page), 2);
	rmap_unlock(page);
	unlock_page(page);
	ck_assert(pte_present(ptep_get(slot_ptep(t, 0))));
	ck_assert(pte_present(ptep_get(slot_ptep(t, 1))));
	ck_assert_int_eq(page_count(page), 3);
	ck_assert_uint_eq(t->mm->rss, 2);

	unmap_page(t, page, 0);
	unmap_page(t, page, 1);
	page->as.mapping = NULL;
	put_page(page);
	test_mm_destroy(t);
}
END_TEST

/* Ten ptes of a swap-cache page become swap ptes: slot count 1 + 10. */
START_TEST(test_rmap_ptechain_unmap_swapcache_page)
{
	struct test_mm *t = test_mm_create(0);
	struct page *page = alloc_page(GFP_KERNEL);
	swp_entry_t entry;
	const unsigned long n = 10;

	ck_assert_int_eq(swap_init(64), 0);
	page->index = t->vma->vm_pgoff;
	for (unsigned long s = 0; s < n; s++)
		ck_assert(map_page(t, page, s, true, _PAGE_RW | (s == 2 ? _PAGE_DIRTY : 0)));
	lock_page(page);
	ck_assert(add_to_swap(page));
	ck_assert(PageSwapCache(page));
	entry.val = page->private;
	ck_assert_int_eq(swap_count(entry), 1);
	ck_assert_int_eq(page_count(page), (int)n + 2);

	rmap_lock(page);
	ck_assert_int_eq(rmap->try_to_unmap(page), SWAP_SUCCESS);
	ck_assert(!rmap->page_mapped(page));
	rmap_unlock(page);
	ck_assert_uint_eq(chain_bytes_now(), 0);
	ck_assert_int_eq(swap_count(entry), (int)n + 1);
	ck_assert_int_eq(page_count(page), 2);	/* ours and the swap cache's */
	ck_assert_uint_eq(t->mm->rss, 0);
	for (unsigned long s = 0; s < n; s++) {
		pte_t pte = ptep_get(slot_ptep(t, s));

		ck_assert(is_swap_pte(pte));
		ck_assert(pte_same(pte, swp_entry_to_pte(entry)));
	}

	/* As zap would: each swap pte gives its slot reference back. */
	for (unsigned long s = 0; s < n; s++) {
		swap_free(pte_to_swp_entry(ptep_get_and_clear(slot_ptep(t, s))));
	}
	ck_assert_int_eq(swap_count(entry), 1);
	delete_from_swap_cache(page);
	unlock_page(page);
	ck_assert_uint_eq(nr_swap_used(), 0);
	ck_assert_int_eq(page_count(page), 1);
	put_page(page);
	swap_exit();
	test_mm_destroy(t);
}
END_TEST

/* One thread holds mm B's page_table_lock while the other reclaims. */
struct ptl_race {
	struct test_mm *a, *b;
	struct page *page;
	int held;		/* release by the holder, acquire by the reclaimer */
	int done;		/* release by the reclaimer, acquire by the holder */
	int ret;		/* written by the reclaimer before done */
};

static void ptl_race_worker(int idx, void *arg)
{
	struct ptl_race *r = arg;

	if (idx == 0) {
		spin_lock(&r->b->mm->page_table_lock);
		/* Pairs with the acquire load of held by the reclaimer. */
		__atomic_store_n(&r->held, 1, __ATOMIC_RELEASE);
		/* Pairs with the release store of done. */
		while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE))
			sched_yield();
		spin_unlock(&r->b->mm->page_table_lock);
		return;
	}

	/* Pairs with the release store of held. */
	while (!__atomic_load_n(&r->held, __ATOMIC_ACQUIRE))
		sched_yield();
	lock_page(r->page);
	rmap_lock(r->page);
	r->ret = rmap->try_to_unmap(r->page);
	rt_check(rmap->page_mapped(r->page));
	rmap_unlock(r->page);
	unlock_page(r->page);
	/* Pairs with the acquire load of done by the holder. */
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

START_TEST(test_rmap_ptechain_unmap_again_when_ptl_busy)
{
	struct ptl_race r = { 0 };

	r.a = test_mm_create(0);
	r.b = test_mm_create(0);
	r.page = alloc_page(GFP_KERNEL);
	r.page->as.mapping = &test_file;
	r.page->index = r.a->vma->vm_pgoff;
	ck_assert(map_page(r.a, r.page, 0, false, 0));
	ck_assert(map_page(r.b, r.page, 0, false, 0));
	ck_assert(map_page(r.a, r.page, 1, false, 0));

	rt_run_threads(2, ptl_race_worker, &r);
	ck_assert_no_worker_failure();
	ck_assert_int_eq(r.ret, SWAP_AGAIN);
	ck_assert_uint_eq(rmap_fallback_count(FB_TRY_TO_UNMAP_ONE_PTL), 1);
	/* A's two ptes went; B's stayed, and is what the rmap knows. */
	ck_assert_uint_eq(r.a->mm->rss, 0);
	ck_assert_uint_eq(r.b->mm->rss, 1);
	ck_assert(pte_present(ptep_get(slot_ptep(r.b, 0))));
	ck_assert_int_eq(rmap->rmap_count(r.page), 1);
	ck_assert(PageDirect(r.page));
	ck_assert_int_eq(page_count(r.page), 2);

	/* Nobody holds it now: the second pass finishes. */
	lock_page(r.page);
	rmap_lock(r.page);
	ck_assert_int_eq(rmap->try_to_unmap(r.page), SWAP_SUCCESS);
	rmap_unlock(r.page);
	unlock_page(r.page);
	ck_assert_uint_eq(rmap_fallback_count(FB_TRY_TO_UNMAP_ONE_PTL), 1);
	ck_assert_int_eq(page_count(r.page), 1);

	r.page->as.mapping = NULL;
	put_page(r.page);
	test_mm_destroy(r.a);
	test_mm_destroy(r.b);
}
END_TEST

/* ---- concurrency ---- */

#define NR_THREADS	32
#define NR_SHARED	4
#define NR_ITER		1500
#define THREAD_SLOTS	32UL

struct storm {
	struct test_mm *mms[NR_THREADS];
	struct page *pages[NR_SHARED];
	/* Per thread: which page each slot maps (-1 none); owner only. */
	signed char map[NR_THREADS][THREAD_SLOTS];
	uint64_t seed;
};

static void storm_worker(int idx, void *arg)
{
	struct storm *s = arg;
	struct test_mm *t = s->mms[idx];
	uint64_t rng = rt_seed_child(s->seed, (uint64_t)(idx + 1));

	for (int i = 0; i < NR_ITER; i++) {
		uint64_t r = rt_rand(&rng);
		unsigned long slot = r % THREAD_SLOTS;
		int p = (int)((r >> 8) % NR_SHARED);

		if ((r >> 16) % 16 == 0) {
			/* A reclaim-like look: page lock, rmap lock, referenced. */
			struct page *page = s->pages[p];

			lock_page(page);
			rmap_lock(page);
			(void)rmap->page_referenced(page);
			rmap_unlock(page);
			unlock_page(page);
			continue;
		}
		if (s->map[idx][slot] >= 0) {
			unmap_page(t, s->pages[s->map[idx][slot]], slot);
			s->map[idx][slot] = -1;
		} else {
			if (!map_page(t, s->pages[p], slot, true,
				      (r >> 24) & 1 ? _PAGE_ACCESSED : 0)) {
				rt_fail("thread %d: map_page slot %lu failed", idx, slot);
				return;
			}
			s->map[idx][slot] = (signed char)p;
		}
	}
}

START_TEST(test_rmap_ptechain_concurrent_map_unmap)
{
	static struct storm s;
	int expect[NR_SHARED] = { 0 };

	memset(&s, 0, sizeof(s));
	memset(s.map, -1, sizeof(s.map));
	s.seed = rt_test_seed();
	for (int i = 0; i < NR_THREADS; i++)
		s.mms[i] = test_mm_create(0);
	for (int p = 0; p < NR_SHARED; p++) {
		s.pages[p] = alloc_page(GFP_KERNEL);
		ck_assert_ptr_nonnull(s.pages[p]);
		s.pages[p]->index = (unsigned long)p;
	}

	rt_run_threads(NR_THREADS, storm_worker, &s);
	ck_assert_no_worker_failure();

	for (int i = 0; i < NR_THREADS; i++)
		for (unsigned long k = 0; k < THREAD_SLOTS; k++)
			if (s.map[i][k] >= 0)
				expect[(int)s.map[i][k]]++;
	for (int p = 0; p < NR_SHARED; p++) {
		ck_assert_int_eq(rmap->rmap_count(s.pages[p]), expect[p]);
		ck_assert_int_eq(rmap->rmap_walk(s.pages[p], NULL, NULL), expect[p]);
		ck_assert_int_eq(page_count(s.pages[p]), expect[p] + 1);
		ck_assert(mapped_locked(s.pages[p]) == (expect[p] > 0));
	}

	for (int i = 0; i < NR_THREADS; i++) {
		for (unsigned long k = 0; k < THREAD_SLOTS; k++)
			if (s.map[i][k] >= 0)
				unmap_page(s.mms[i], s.pages[(int)s.map[i][k]], k);
		test_mm_destroy(s.mms[i]);
	}
	ck_assert_uint_eq(chain_bytes_now(), 0);
	for (int p = 0; p < NR_SHARED; p++) {
		ck_assert_int_eq(rmap->rmap_count(s.pages[p]), 0);
		ck_assert_int_eq(page_count(s.pages[p]), 1);
		put_page(s.pages[p]);
	}
}
END_TEST

/* ---- the lock-order comment ---- */

/*
 * The tree at the top of rmap_ptechain.c is what engineers read; lockdep's
 * order table is what is enforced. Every parent the comment gives must be
 * lockdep's parent of that class, and the rmap's own locks must be there.
 */
START_TEST(test_rmap_ptechain_lock_tree_matches_lockdep)
{
	bool seen[LOCK_CLASS_MAX] = { false };

	rt_assert_lock_tree(RT_SOURCE_ROOT "/core/rmap_ptechain.c", "Lock ordering in this rmap", 5, seen);
	ck_assert(seen[LOCK_CLASS_PAGE_TABLE_LOCK]);
	ck_assert(seen[LOCK_CLASS_PG_CHAINLOCK]);
	ck_assert(seen[LOCK_CLASS_PG_LOCKED]);
	ck_assert(seen[LOCK_CLASS_SWAP_LOCK]);
}
END_TEST

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "modes", 30, setup, teardown, .tests = {
			test_rmap_mode_table,
			test_rmap_fallback_names_and_counts,
			test_rmap_bytes_peak,
			test_rmap_ptechain_lock_tree_matches_lockdep,
		} },
		{ "chain", 30, setup, teardown, .tests = {
			test_rmap_ptechain_direct_chain_direct,
			test_rmap_ptechain_page_referenced,
		}, .bug_tests = {
			test_rmap_ptechain_remove_unknown_pte_bugs,
		} },
		{ "unmap", 30, setup, teardown, .tests = {
			test_rmap_ptechain_unmap_file_page,
			test_rmap_ptechain_unmap_nonlinear_vma,
			test_rmap_ptechain_unmap_mlocked_fails,
			test_rmap_ptechain_unmap_swapcache_page,
			test_rmap_ptechain_unmap_again_when_ptl_busy,
		} },
		{ "concurrent", 50, setup, teardown, .tests = {
			test_rmap_ptechain_concurrent_map_unmap,
		} },
	};

	return rt_check_main(rt_suite("rmap", tcs, (int)ARRAY_SIZE(tcs)));
}
