// SPDX-License-Identifier: MIT
/*
 * Seed 001's object-based reverse map for file pages (objrmap-core, Dave
 * McCracken's design as posted by Andrea Arcangeli, March 2004), shared by
 * the two designs that keep it: objfile (rmap_objfile.c) and anonvma
 * (rmap_anonvma.c, where seed 002 treats file pages exactly as seed 001).
 * A file page (PG_anon clear) keeps no pte_chain, only a count of the
 * ptes that map it in page->pte.mapcount; its ptes are found, when
 * reclaim or the audit needs them, by walking the vmas on its file's
 * i_mmap, i_mmap_shared and i_mmap_nonlinear lists under i_shared_sem
 * and computing the one address where each vma can map it (find_pte()).
 *
 * What the designs do differently stays theirs:
 *
 *   rmap lock   mapcount is serialised by PG_chainlock in objfile and by
 *               PG_maplock in anonvma; the designs assert it (or take it,
 *               in their rmap_count and rmap_walk) before calling here
 *   nonlinear   objfile converts a page mapped out of place with
 *               page_convert_anon(), so find_pte() searches the vmas on
 *               i_mmap_nonlinear like the others; anonvma converts
 *               nothing and scans those vmas' page tables for the page's
 *               pfn, as 2.6.7's try_to_unmap_nonlinear() did (enum
 *               obj_nonlinear, in rmap-internal.h)
 *
 * Mirrors mm/rmap.c of 2.6.3 with seed 001 applied (and 2.6.7's scan).
 *
 * Locks: the designs' tree (the top of core/lockdep.c, repeated at the
 * top of rmap_objfile.c and rmap_anonvma.c). Reclaim holds PG_locked and
 * the rmap lock and only *tries* i_shared_sem (down_trylock, which never
 * sleeps, so it is legal under the bit spinlock) and each vma's
 * page_table_lock. A failed try is one of seed 001's fallbacks:
 * page_referenced() then assumes the page was referenced, try_to_unmap()
 * answers SWAP_AGAIN, and each is counted by site (rmap_fallback(), the
 * FB_*_OBJ_* sites, nonlinear scans included). The audit's walk takes
 * i_shared_sem, then each page_table_lock, and no rmap lock.
 */
#include "inject.h"
#include "rmap-internal.h"

#include "fs.h"
#include "semaphore.h"
#include "spinlock.h"

bool vma_address(struct vm_area_struct *vma, struct page *page, unsigned long *address)
{
	unsigned long start = READ_ONCE(vma->vm_start);
	unsigned long end = READ_ONCE(vma->vm_end);
	unsigned long pgoff = READ_ONCE(vma->vm_pgoff);
	unsigned long index = READ_ONCE(page->index);

	/* The seed's "address < vm_start || address >= vm_end", without overflow. */
	if (index < pgoff || index - pgoff >= (end - start) >> PAGE_SHIFT)
		return false;
	*address = start + ((index - pgoff) << PAGE_SHIFT);
	return true;
}

pte_t *find_pte(struct vm_area_struct *vma, struct page *page, unsigned long *addr)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long address;
	pte_t *ptep;
	pte_t pte;

	assert_spin_locked(&mm->page_table_lock);
	if (!vma_address(vma, page, &address))
		return NULL;
	ptep = pte_offset(mm->pgd, address);
	if (!ptep)
		return NULL;
	pte = ptep_get(ptep);
	if (!pte_present(pte) || pte_pfn(pte) != page_to_pfn(page))
		return NULL;
	if (addr)
		*addr = address;
	return ptep;
}

/*
 * One pte of file page @page is gone (anonvma's page_dec_mapcount() for
 * a page that is not PG_anon). Context: the design's rmap lock held.
 */
static void obj_dec_mapcount(struct page *page)
{
	int n = page_mapcount(page);

	BUG_ON(n <= 0);		/* mapcount underflow */
	set_page_mapcount(page, n - 1);
}

/* ---- 2.6.7's nonlinear scan (anonvma) ---- */

/*
 * Scan every pte of nonlinear @vma for @page's pfn (2.6.7 looked at
 * nonlinear vmas this way, not by offset); @fn acts on each found.
 * A busy page_table_lock: @fallback counted, SWAP_AGAIN.
 * Context: the rmap lock and i_shared_sem held; tries page_table_lock.
 * Return: SWAP_SUCCESS, SWAP_AGAIN, or @fn's SWAP_FAIL.
 */
static int scan_nonlinear_vma(struct vm_area_struct *vma, struct page *page,
			      enum rmap_fallback_site fallback,
			      int (*fn)(struct page *page, struct vm_area_struct *vma,
					unsigned long address, pte_t *ptep, int *acc),
			      int *acc)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long pfn = page_to_pfn(page);
	int ret = SWAP_SUCCESS;

	if (!spin_trylock(&mm->page_table_lock)) {
		rmap_fallback(fallback);
		return SWAP_AGAIN;
	}
	for (unsigned long a = vma->vm_start; a < vma->vm_end && page_mapcount(page);
	     a += PAGE_SIZE) {
		pte_t *ptep = pte_offset(mm->pgd, a);
		pte_t pte;

		if (!ptep) {
			a = pgd_addr_end(a, vma->vm_end) - PAGE_SIZE;
			continue;
		}
		pte = ptep_get(ptep);
		if (!pte_present(pte) || pte_pfn(pte) != pfn)
			continue;
		ret = fn(page, vma, a, ptep, acc);
		if (ret == SWAP_FAIL)
			break;
	}
	spin_unlock(&mm->page_table_lock);
	return ret;
}

static int nonlinear_referenced_one(struct page *page, struct vm_area_struct *vma,
				    unsigned long address, pte_t *ptep, int *acc)
{
	if (ptep_test_and_clear_young(ptep))
		(*acc)++;
	return SWAP_SUCCESS;
}

static int nonlinear_unmap_one(struct page *page, struct vm_area_struct *vma,
			       unsigned long address, pte_t *ptep, int *acc)
{
	int ret = unmap_one_pte(page, vma->vm_mm, vma, address, ptep);

	if (ret == SWAP_SUCCESS)
		obj_dec_mapcount(page);
	return ret;
}

/* ---- reclaim ---- */

/*
 * Mirrors seed 001's page_referenced_obj_one(): test and clear the young
 * bit of the pte @vma has for @page. A busy page_table_lock counts as a
 * reference (the seed's "return 1"), and as a fallback.
 * Context: the rmap lock and i_shared_sem held; tries page_table_lock.
 */
static int page_referenced_obj_one(struct vm_area_struct *vma, struct page *page)
{
	struct mm_struct *mm = vma->vm_mm;
	int referenced = 0;
	pte_t *ptep;

	if (injected(INJECT_RECLAIM_LOCK_PTL)) {
		/* Seeded bug: blocking on page_table_lock against the order. */
		spin_lock(&mm->page_table_lock);
	} else if (!spin_trylock(&mm->page_table_lock)) {
		rmap_fallback(FB_PAGE_REFERENCED_OBJ_ONE_PTL);
		return 1;
	}
	ptep = find_pte(vma, page, NULL);
	if (ptep && ptep_test_and_clear_young(ptep))
		referenced++;
	spin_unlock(&mm->page_table_lock);
	return referenced;
}

/* The same for a nonlinear vma, by scanning it (OBJ_NONLINEAR_SCAN). */
static int page_referenced_nonlinear_one(struct vm_area_struct *vma, struct page *page)
{
	int referenced = 0;

	if (scan_nonlinear_vma(vma, page, FB_PAGE_REFERENCED_OBJ_ONE_PTL,
			       nonlinear_referenced_one, &referenced) == SWAP_AGAIN)
		referenced++;
	return referenced;
}

int page_referenced_obj(struct page *page, enum obj_nonlinear nonlinear)
{
	struct address_space *mapping = READ_ONCE(page->as.mapping);
	struct vm_area_struct *vma;
	int referenced = 0;

	if (!page_mapcount(page))
		return 0;
	BUG_ON(PageSwapCache(page));
	/*
	 * The seed BUGs here: 2.6.3's reclaim never asked about a mapped
	 * page without a mapping. Only a fault that raced truncate and lost
	 * the re-check (an injected bug, reported by the audit) can leave
	 * one: there is nothing to walk.
	 */
	if (!mapping)
		return 0;

	if (injected(INJECT_RECLAIM_DOWN_ISHARED)) {
		/*
		 * Seeded bug: down() where seed 001 has down_trylock(): a
		 * sleeping lock taken under the page's rmap bit spinlock.
		 */
		down(&mapping->i_shared_sem);
	} else if (down_trylock(&mapping->i_shared_sem)) {
		rmap_fallback(FB_PAGE_REFERENCED_OBJ_ISHARED);
		return 1;
	}
	for (int l = 0; l < NR_MAPPING_LISTS; l++) {
		bool scan = l == MAPPING_LIST_NONLINEAR && nonlinear == OBJ_NONLINEAR_SCAN;

		list_for_each_entry(vma, mapping_list(mapping, l), shared)
			referenced += scan ? page_referenced_nonlinear_one(vma, page)
					   : page_referenced_obj_one(vma, page);
	}
	up(&mapping->i_shared_sem);
	return referenced;
}

/*
 * Mirrors seed 001's try_to_unmap_obj_one(): unmap the pte @vma has for
 * @page, if any, and uncount it. The seed answered SWAP_AGAIN for success
 * and "not here" alike and let its caller look at mapcount; here both
 * answer SWAP_SUCCESS and SWAP_AGAIN means a missed trylock, which
 * try_to_unmap_obj() remembers (anonvma's deviation (6)).
 * Context: page locked, the rmap lock and i_shared_sem held; tries
 * page_table_lock.
 * Return: SWAP_SUCCESS, SWAP_AGAIN, or SWAP_FAIL (the vma refused).
 */
static int try_to_unmap_obj_one(struct vm_area_struct *vma, struct page *page)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long address;
	int ret = SWAP_SUCCESS;
	pte_t *ptep;

	if (injected(INJECT_RECLAIM_LOCK_PTL)) {
		/* Seeded bug: blocking on page_table_lock against the order. */
		spin_lock(&mm->page_table_lock);
	} else if (!spin_trylock(&mm->page_table_lock)) {
		rmap_fallback(FB_TRY_TO_UNMAP_OBJ_ONE_PTL);
		return SWAP_AGAIN;
	}
	ptep = find_pte(vma, page, &address);
	if (ptep) {
		ret = unmap_one_pte(page, mm, vma, address, ptep);
		if (ret == SWAP_SUCCESS)
			obj_dec_mapcount(page);
	}
	spin_unlock(&mm->page_table_lock);
	return ret;
}

/*
 * The loop is the seed's, except that a missed trylock is remembered
 * (anonvma's deviation (6): the seed let a later vma's answer overwrite
 * an earlier SWAP_AGAIN, which its own try_to_unmap_obj_one() made
 * harmless by answering SWAP_AGAIN to everything but SWAP_FAIL). Either
 * way the result is SWAP_SUCCESS exactly when no pte is left.
 */
int try_to_unmap_obj(struct page *page, enum obj_nonlinear nonlinear)
{
	struct address_space *mapping = READ_ONCE(page->as.mapping);
	struct vm_area_struct *vma;
	int ret = SWAP_SUCCESS;

	BUG_ON(PageSwapCache(page));
	if (!page_mapcount(page))
		return SWAP_SUCCESS;
	/*
	 * The seed BUGs (see page_referenced_obj()); 2.6.3's shrink_list()
	 * kept such a page on the inactive list: SWAP_AGAIN does that.
	 */
	if (!mapping)
		return SWAP_AGAIN;

	if (injected(INJECT_RECLAIM_DOWN_ISHARED)) {
		/* Seeded bug: down(), as in page_referenced_obj(). */
		down(&mapping->i_shared_sem);
	} else if (down_trylock(&mapping->i_shared_sem)) {
		rmap_fallback(FB_TRY_TO_UNMAP_OBJ_ISHARED);
		return SWAP_AGAIN;
	}
	for (int l = 0; l < NR_MAPPING_LISTS; l++) {
		bool scan = l == MAPPING_LIST_NONLINEAR && nonlinear == OBJ_NONLINEAR_SCAN;

		list_for_each_entry(vma, mapping_list(mapping, l), shared) {
			int r = scan ? scan_nonlinear_vma(vma, page, FB_TRY_TO_UNMAP_OBJ_ONE_PTL,
							  nonlinear_unmap_one, NULL)
				     : try_to_unmap_obj_one(vma, page);

			if (r == SWAP_FAIL) {
				ret = SWAP_FAIL;
				goto out_up;
			}
			if (r == SWAP_AGAIN)
				ret = SWAP_AGAIN;
			if (!page_mapcount(page))
				goto out_up;
		}
	}
out_up:
	up(&mapping->i_shared_sem);
	if (!page_mapcount(page))
		return SWAP_SUCCESS;
	return ret == SWAP_FAIL ? SWAP_FAIL : SWAP_AGAIN;
}

/* ---- the audit ---- */

int rmap_walk_linear(struct vm_area_struct *vma, struct page *page, rmap_walk_fn fn, void *arg)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long address;
	int ret = 0;
	pte_t *ptep;

	spin_lock(&mm->page_table_lock);
	ptep = find_pte(vma, page, &address);
	if (ptep)
		ret = fn && fn(page, mm, address, ptep, arg) ? -1 : 1;
	spin_unlock(&mm->page_table_lock);
	return ret;
}

/* Every pte of nonlinear @vma mapping @page (OBJ_NONLINEAR_SCAN; mainline). */
int rmap_walk_nonlinear(struct vm_area_struct *vma, struct page *page,
			       rmap_walk_fn fn, void *arg)
{
	struct mm_struct *mm = vma->vm_mm;
	int found = 0;

	spin_lock(&mm->page_table_lock);
	for (unsigned long a = vma->vm_start; a < vma->vm_end; a += PAGE_SIZE) {
		pte_t *ptep = pte_offset(mm->pgd, a);
		pte_t pte;

		if (!ptep) {
			a = pgd_addr_end(a, vma->vm_end) - PAGE_SIZE;
			continue;
		}
		pte = ptep_get(ptep);
		if (!pte_present(pte) || pte_pfn(pte) != page_to_pfn(page))
			continue;
		found++;
		if (fn && fn(page, mm, a, ptep, arg)) {
			found = -1;
			break;
		}
	}
	spin_unlock(&mm->page_table_lock);
	return found;
}

int rmap_walk_obj(struct page *page, rmap_walk_fn fn, void *arg, enum obj_nonlinear nonlinear)
{
	struct address_space *mapping = READ_ONCE(page->as.mapping);
	struct vm_area_struct *vma;
	int found = 0;

	if (!mapping)
		return 0;
	down(&mapping->i_shared_sem);
	for (int l = 0; l < NR_MAPPING_LISTS; l++) {
		bool scan = l == MAPPING_LIST_NONLINEAR && nonlinear == OBJ_NONLINEAR_SCAN;

		list_for_each_entry(vma, mapping_list(mapping, l), shared) {
			int r = scan ? rmap_walk_nonlinear(vma, page, fn, arg)
				     : rmap_walk_linear(vma, page, fn, arg);

			if (r < 0) {
				found = -1;
				goto out_up;
			}
			found += r;
		}
	}
out_up:
	up(&mapping->i_shared_sem);
	return found;
}
