// SPDX-License-Identifier: MIT
/*
 * The object-based reverse map for file pages of seed 001 (objrmap-core,
 * Dave McCracken's design as posted by Andrea Arcangeli, March 2004):
 * a file page (PG_anon clear) keeps no pte_chain at all, only a count of
 * the ptes that map it in page->pte.mapcount (under PG_chainlock); its
 * ptes are found, when reclaim needs them, by walking the vmas on its
 * file's i_mmap, i_mmap_shared (and, in the model, i_mmap_nonlinear)
 * lists under i_shared_sem and computing the one address where each vma
 * can map it (find_pte()). Anonymous pages (PG_anon) keep 2.6.3's
 * pte_chains: rmap_ptechain.c's lock-held helpers run on them unchanged.
 *
 * A file page mapped by remap_file_pages() at an offset other than its
 * linear one cannot be found by find_pte(): install_page() converts it
 * first with page_convert_anon(), which sets PG_anon and moves every pte
 * the page has into a pte_chain. The page stays in its file's page cache
 * (page->as.mapping set) for the rest of its life; page_in_file_cache()
 * in core/rmap.h tells reclaim and truncate that it is a file page.
 *
 * Mirrors mm/rmap.c of 2.6.3 with seed 001 applied.
 *
 * Lock ordering in this rmap (the tree at the top of core/lockdep.c):
 *
 * i_sem (truncate)
 *   mmap_sem
 *     PG_locked (lock_page: page_convert_anon's caller)
 *       i_shared_sem (page_convert_anon, rmap_walk)
 *         page_table_lock (page_add_rmap, page_remove_rmap callers)
 *           PG_chainlock (pte_chain_lock: mapcount, page->pte, PG_direct)
 *             anon_vma->lock
 *               swap_lock (in swap_duplicate, from unmap_one_pte)
 *                 tree_lock
 *             lru_lock
 *           PG_maplock
 *             anon_vma->lock
 *             lru_lock
 *
 * Reclaim comes the other way: it holds PG_locked and PG_chainlock and
 * only *tries* i_shared_sem (down_trylock, which never sleeps, so it is
 * legal under the bit spinlock) and each vma's page_table_lock. A failed
 * try of either is one of seed 001's fallbacks: page_referenced() then
 * assumes the page was referenced, try_to_unmap() answers SWAP_AGAIN,
 * and each is counted by site (rmap_fallback()).
 *
 * Accounting: file pages cost nothing beyond the mapcount field, which
 * shares the pte union with 2.6.3's chain pointer (0 extra bytes);
 * anonymous and converted pages' pte_chain blocks are counted by
 * pte_chain_alloc()/pte_chain_free() as in ptechain.
 */
#include "rmap-internal.h"

#include <errno.h>

#include "fs.h"
#include "lockdep.h"
#include "semaphore.h"
#include "spinlock.h"

static inline void assert_chain_locked(struct page *page)
{
	BUG_ON(__lockdep_on ? !lock_is_held(page_lock_key(page, PG_chainlock))
			    : !test_page_flag(page, PG_chainlock));
}

/*
 * A file page that page_convert_anon() gave a pte_chain: PG_anon, and
 * still in its file's cache. Context: page locked or PG_chainlock held
 * (as.mapping is cleared only under the page lock, and a conversion runs
 * under it).
 */
static inline bool page_converted(const struct page *page)
{
	return PageAnon(page) && READ_ONCE(page->as.mapping) != NULL;
}

/*
 * Is @ptep recorded in @page's pte_chain? 2.6.3's page_remove_rmap()
 * ignored a pte it did not find, which page_convert_anon() relies on
 * ("make sure this isn't a duplicate", and a zap racing the conversion);
 * the model's __pte_chain_remove() BUGs instead, so objfile looks first.
 * Context: PG_chainlock held.
 */
static bool objfile_chain_has(struct page *page, pte_t *ptep)
{
	assert_chain_locked(page);
	if (PageDirect(page))
		return page->pte.direct == ptep;
	for (struct pte_chain *pc = page->pte.chain; pc;
	     pc = (struct pte_chain *)(pc->next_and_idx & ~PTE_CHAIN_IDX_MASK))
		for (unsigned long i = pc->next_and_idx & PTE_CHAIN_IDX_MASK; i < NRPTE; i++)
			if (pc->ptes[i] == ptep)
				return true;
	return false;
}

/**
 * find_pte() - the pte of @vma that maps @page at its linear address
 * @vma: a vma of @page's file
 * @page: a file page (its index is the file offset)
 * @addr: out, the address, when found (may be NULL)
 *
 * Mirrors seed 001's find_pte(): the address is where @vma maps the
 * page's offset linearly; outside the vma, no pte table there, a pte not
 * present, or a pte mapping another page (a private COW copy, or another
 * offset in a nonlinear vma) means "not mapped here".
 *
 * Context: @vma->vm_mm->page_table_lock held (the bounds are stable
 * under it too, or under i_shared_sem which every caller holds).
 * Return: the slot, or NULL.
 */
static pte_t *find_pte(struct vm_area_struct *vma, struct page *page, unsigned long *addr)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long start = READ_ONCE(vma->vm_start);
	unsigned long end = READ_ONCE(vma->vm_end);
	unsigned long pgoff = READ_ONCE(vma->vm_pgoff);
	unsigned long index = READ_ONCE(page->index);
	unsigned long address;
	pte_t *ptep;
	pte_t pte;

	assert_spin_locked(&mm->page_table_lock);
	/* The seed's "address < vm_start || address >= vm_end", without overflow. */
	if (index < pgoff || index - pgoff >= (end - start) >> PAGE_SHIFT)
		return NULL;
	address = start + ((index - pgoff) << PAGE_SHIFT);

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
 * The file's vma lists that find_pte() searches: the seed's i_mmap and
 * i_mmap_shared, then the model's i_mmap_nonlinear, where a page at its
 * linear offset in a nonlinear vma is found like any other (those mapped
 * out of place were converted and use chains). Context: i_shared_sem.
 */
#define NR_MAPPING_LISTS	3
static inline struct list_head *mapping_list(struct address_space *mapping, int l)
{
	return l == 0 ? &mapping->i_mmap :
	       l == 1 ? &mapping->i_mmap_shared : &mapping->i_mmap_nonlinear;
}

/* ---- reclaim ---- */

/*
 * Mirrors seed 001's page_referenced_obj_one(): test and clear the young
 * bit of the pte @vma has for @page. A busy page_table_lock counts as a
 * reference (the seed's "return 1"), and as a fallback.
 * Context: PG_chainlock and i_shared_sem held; tries page_table_lock.
 */
static int page_referenced_obj_one(struct vm_area_struct *vma, struct page *page)
{
	struct mm_struct *mm = vma->vm_mm;
	int referenced = 0;
	pte_t *ptep;

	if (!spin_trylock(&mm->page_table_lock)) {
		rmap_fallback(FB_PAGE_REFERENCED_OBJ_ONE_PTL);
		return 1;
	}
	ptep = find_pte(vma, page, NULL);
	if (ptep && ptep_test_and_clear_young(ptep))
		referenced++;
	spin_unlock(&mm->page_table_lock);
	return referenced;
}

/*
 * Mirrors seed 001's page_referenced_obj(): walk the file's vmas and
 * count young ptes. A busy i_shared_sem means "assume referenced".
 * Context: page locked, PG_chainlock held; tries i_shared_sem.
 */
static int page_referenced_obj(struct page *page)
{
	struct address_space *mapping = READ_ONCE(page->as.mapping);
	struct vm_area_struct *vma;
	int referenced = 0;

	if (!page->pte.mapcount)
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

	if (down_trylock(&mapping->i_shared_sem)) {
		rmap_fallback(FB_PAGE_REFERENCED_OBJ_ISHARED);
		return 1;
	}
	for (int l = 0; l < NR_MAPPING_LISTS; l++)
		list_for_each_entry(vma, mapping_list(mapping, l), shared)
			referenced += page_referenced_obj_one(vma, page);
	up(&mapping->i_shared_sem);
	return referenced;
}

/*
 * Mirrors seed 001's try_to_unmap_obj_one(): unmap the pte @vma has for
 * @page, if any, and uncount it. As in the seed, success and "not
 * here" both answer SWAP_AGAIN; the caller looks at mapcount.
 * Context: page locked, PG_chainlock and i_shared_sem held; tries
 * page_table_lock.
 */
static int try_to_unmap_obj_one(struct vm_area_struct *vma, struct page *page)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long address;
	int ret = SWAP_AGAIN;
	pte_t *ptep;

	if (!spin_trylock(&mm->page_table_lock)) {
		rmap_fallback(FB_TRY_TO_UNMAP_OBJ_ONE_PTL);
		return SWAP_AGAIN;
	}
	ptep = find_pte(vma, page, &address);
	if (!ptep)
		goto out_unlock;
	if (unmap_one_pte(page, mm, vma, address, ptep) == SWAP_FAIL) {
		ret = SWAP_FAIL;
		goto out_unlock;
	}
	BUG_ON(page->pte.mapcount <= 0);
	page->pte.mapcount--;
out_unlock:
	spin_unlock(&mm->page_table_lock);
	return ret;
}

/*
 * Mirrors seed 001's try_to_unmap_obj() and the end of its
 * try_to_unmap(): unmap through every vma of the file until mapcount
 * reaches 0 or a vma refuses (SWAP_FAIL). A busy i_shared_sem answers
 * SWAP_AGAIN. SWAP_SUCCESS exactly when no pte is left.
 * Context: page locked, PG_chainlock held; tries i_shared_sem.
 */
static int try_to_unmap_obj(struct page *page)
{
	struct address_space *mapping = READ_ONCE(page->as.mapping);
	struct vm_area_struct *vma;
	int ret = SWAP_AGAIN;

	BUG_ON(PageSwapCache(page));
	if (!page->pte.mapcount)
		return SWAP_SUCCESS;
	/*
	 * The seed BUGs (see page_referenced_obj()); 2.6.3's shrink_list()
	 * kept such a page on the inactive list: SWAP_AGAIN does that.
	 */
	if (!mapping)
		return SWAP_AGAIN;

	if (down_trylock(&mapping->i_shared_sem)) {
		rmap_fallback(FB_TRY_TO_UNMAP_OBJ_ISHARED);
		return SWAP_AGAIN;
	}
	for (int l = 0; l < NR_MAPPING_LISTS; l++) {
		list_for_each_entry(vma, mapping_list(mapping, l), shared) {
			ret = try_to_unmap_obj_one(vma, page);
			if (ret == SWAP_FAIL || !page->pte.mapcount)
				goto out;
		}
	}
out:
	up(&mapping->i_shared_sem);
	if (!page->pte.mapcount)
		ret = SWAP_SUCCESS;
	return ret;
}

/* ---- the ops ---- */

/*
 * Mirrors page_add_rmap() of 2.6.3 with seed 001: a file page is only
 * counted; an anonymous one (@anon, which sets PG_anon: the seed's
 * SetPageAnon() before page_add_rmap() on every anonymous path) or a
 * converted one gets its pte recorded in a pte_chain.
 * Context: page_table_lock held; takes PG_chainlock.
 */
static struct pte_chain *objfile_page_add_rmap(struct page *page, struct vm_area_struct *vma,
					       unsigned long address, pte_t *ptep, bool anon,
					       struct pte_chain *pte_chain)
{
	/* The zero page is never recorded. */
	if (PageReserved(page))
		return pte_chain;

	assert_spin_locked(&vma->vm_mm->page_table_lock);
	BUG_ON(ptep_to_owner(ptep) != vma->vm_mm);
	BUG_ON(ptep_to_address(ptep) != (address & PAGE_MASK));

	pte_chain_lock(page);
	if (anon && !PageAnon(page)) {
		/* A page becomes anonymous before its first pte, never after. */
		BUG_ON(page->pte.mapcount);
		SetPageAnon(page);
	}
	if (!PageAnon(page)) {
		/*
		 * The seed also BUGs on a page without a mapping here. In the
		 * model, filemap_nopage()'s i_size re-check may take a page it
		 * just read out of the cache while other faults already map
		 * it, before the truncate that shrank the file zaps their
		 * ptes; fork (copy_page_range) or mremap may copy or move
		 * such a pte meanwhile, and that truncate zaps the copy too.
		 * Counting it is right: the zap uncounts it.
		 */
		BUG_ON(PageSwapCache(page));
		page->pte.mapcount++;
	} else {
		pte_chain = __pte_chain_add(page, ptep, pte_chain);
	}
	pte_chain_unlock(page);
	return pte_chain;
}

/*
 * Mirrors page_remove_rmap() of 2.6.3 with seed 001: a file page is
 * uncounted (BUG on underflow); an anonymous page's pte leaves its chain.
 * A converted page may meet a pte that page_convert_anon() has not
 * recorded yet (it walks the vmas after setting PG_anon): the seed lets
 * page_remove_rmap() "simply not find it", and so does objfile, for
 * converted pages only.
 * Context: page_table_lock held; takes PG_chainlock.
 */
static void objfile_page_remove_rmap(struct page *page, pte_t *ptep)
{
	if (PageReserved(page))
		return;

	assert_spin_locked(&((struct mm_struct *)ptep_to_owner(ptep))->page_table_lock);
	pte_chain_lock(page);
	if (!PageAnon(page)) {
		BUG_ON(page->pte.mapcount <= 0);
		page->pte.mapcount--;
	} else if (!page_converted(page) || objfile_chain_has(page, ptep)) {
		__pte_chain_remove(page, ptep);
	}
	pte_chain_unlock(page);
}

/*
 * Mirrors page_referenced() of 2.6.3 with seed 001.
 * Context: page locked, PG_chainlock held.
 */
static int objfile_page_referenced(struct page *page)
{
	int referenced = 0;

	assert_chain_locked(page);
	if (TestClearPageReferenced(page))
		referenced++;
	if (!PageAnon(page))
		return referenced + page_referenced_obj(page);
	return referenced + __pte_chain_referenced(page);
}

/*
 * Mirrors try_to_unmap() of 2.6.3 with seed 001.
 * Context: page locked, PG_chainlock held.
 */
static int objfile_try_to_unmap(struct page *page)
{
	assert_chain_locked(page);
	BUG_ON(!PageLocked(page));
	BUG_ON(PageReserved(page));
	if (!PageAnon(page))
		return try_to_unmap_obj(page);
	return __pte_chain_try_to_unmap(page);
}

/* Seed 001's page_mapped(). Context: PG_chainlock held. */
static bool objfile_page_mapped(struct page *page)
{
	assert_chain_locked(page);
	if (!PageAnon(page))
		return page->pte.mapcount > 0;
	return __pte_chain_mapped(page);
}

/* Pop a block off page_convert_anon()'s reserve (linked through next_and_idx). */
static struct pte_chain *reserve_pop(struct pte_chain **reserve)
{
	struct pte_chain *pc = *reserve;

	if (pc) {
		*reserve = (struct pte_chain *)pc->next_and_idx;
		pc->next_and_idx = 0;
	}
	return pc;
}

static void reserve_free(struct pte_chain **reserve)
{
	struct pte_chain *pc;

	while ((pc = reserve_pop(reserve)))
		pte_chain_free(pc);
}

/**
 * page_convert_anon() - move a file page from mapcount to a pte_chain
 * @page: a locked page, about to be mapped out of place in a nonlinear vma
 *
 * Mirrors seed 001's page_convert_anon(): if truncate took the page out
 * of its cache first, nothing is done (do_no_page()'s truncate_count
 * re-check then retries). Otherwise, under i_shared_sem, PG_anon is set
 * and mapcount cleared under PG_chainlock; then each vma of the file is
 * searched with find_pte() under its page_table_lock and the pte found
 * is recorded in the chain, unless a concurrent page_add_rmap() (which
 * sees PG_anon) recorded it already. A zap racing the walk may remove a
 * pte not recorded yet: page_remove_rmap() tolerates that for converted
 * pages, as the seed's did.
 *
 * One deviation: the seed allocated a pte_chain per vma during the walk
 * and returned -ENOMEM halfway, leaving PG_anon set with ptes recorded
 * nowhere. Here the blocks the walk may need (one per pte counted when
 * the page is converted) are allocated first, with GFP_KERNEL, before
 * anything changes: -ENOMEM leaves the page as it was.
 *
 * Context: page locked by the caller (lock_page -> i_shared_sem, the
 * order seed 001 adds to mm/filemap.c); no spinlock held; may sleep.
 * Takes i_shared_sem, page_table_locks and PG_chainlock.
 * Return: 0, or -ENOMEM (the page is unchanged).
 */
static int page_convert_anon(struct page *page)
{
	struct address_space *mapping;
	struct pte_chain *reserve = NULL, *pte_chain = NULL;
	struct vm_area_struct *vma;
	int reserved = 0, err = 0;

	BUG_ON(!PageLocked(page));
	mapping = READ_ONCE(page->as.mapping);
	if (!mapping)
		return 0;	/* truncate won the lock_page() race */

	down(&mapping->i_shared_sem);
again:
	pte_chain_lock(page);
	/* Has someone else done it for us before we got the lock? */
	if (PageAnon(page)) {
		pte_chain_unlock(page);
		goto out_up;
	}
	if (page->pte.mapcount > reserved) {
		/* New ptes may come meanwhile: count again afterwards. */
		int want = page->pte.mapcount;

		pte_chain_unlock(page);
		for (; reserved < want; reserved++) {
			struct pte_chain *pc = pte_chain_alloc(GFP_KERNEL);

			if (!pc) {
				err = -ENOMEM;
				goto out_up;
			}
			pc->next_and_idx = (unsigned long)reserve;
			reserve = pc;
		}
		goto again;
	}
	SetPageAnon(page);
	if (page->pte.mapcount == 0) {
		pte_chain_unlock(page);
		goto out_up;
	}
	/* The whole union: mapcount 0 and an empty chain. */
	page->pte.chain = NULL;
	pte_chain_unlock(page);

	for (int l = 0; l < NR_MAPPING_LISTS; l++) {
		list_for_each_entry(vma, mapping_list(mapping, l), shared) {
			struct mm_struct *mm = vma->vm_mm;
			pte_t *ptep;

			if (!pte_chain)
				pte_chain = reserve_pop(&reserve);
			spin_lock(&mm->page_table_lock);
			ptep = find_pte(vma, page, NULL);
			if (ptep) {
				pte_chain_lock(page);
				/* Make sure this isn't a duplicate. */
				if (!objfile_chain_has(page, ptep))
					pte_chain = __pte_chain_add(page, ptep, pte_chain);
				pte_chain_unlock(page);
			}
			spin_unlock(&mm->page_table_lock);
		}
	}
out_up:
	pte_chain_free(pte_chain);
	reserve_free(&reserve);
	up(&mapping->i_shared_sem);
	return err;
}

/* The audit's count. Context: takes PG_chainlock; the caller holds no rmap lock. */
static int objfile_rmap_count(struct page *page)
{
	int n;

	pte_chain_lock(page);
	n = PageAnon(page) ? __pte_chain_count(page) : page->pte.mapcount;
	pte_chain_unlock(page);
	return n;
}

/*
 * The audit's walk: every lock taken, none tried. Anonymous and
 * converted pages: ptechain's walk of the chain (same lock, same
 * state). File pages: under i_shared_sem, each vma of the file under its
 * page_table_lock, as reclaim walks them.
 * Context: a quiescent point; no lock held. @fn runs under
 * page_table_lock (and i_shared_sem for file pages).
 */
static int objfile_rmap_walk(struct page *page,
			     int (*fn)(struct page *page, struct mm_struct *mm,
				       unsigned long address, pte_t *ptep, void *arg),
			     void *arg)
{
	struct address_space *mapping;
	struct vm_area_struct *vma;
	int found = 0, ret = 0;
	bool anon;

	pte_chain_lock(page);
	anon = PageAnon(page);
	pte_chain_unlock(page);
	if (anon)
		return rmap_ptechain_ops.rmap_walk(page, fn, arg);

	mapping = READ_ONCE(page->as.mapping);
	if (!mapping)
		return 0;
	down(&mapping->i_shared_sem);
	for (int l = 0; l < NR_MAPPING_LISTS; l++) {
		list_for_each_entry(vma, mapping_list(mapping, l), shared) {
			struct mm_struct *mm = vma->vm_mm;
			unsigned long address;
			pte_t *ptep;

			spin_lock(&mm->page_table_lock);
			ptep = find_pte(vma, page, &address);
			if (ptep) {
				found++;
				if (fn && fn(page, mm, address, ptep, arg))
					ret = -1;
			}
			spin_unlock(&mm->page_table_lock);
			if (ret)
				goto out_up;
		}
	}
out_up:
	up(&mapping->i_shared_sem);
	return ret ? ret : found;
}

const struct rmap_ops rmap_objfile_ops = {
	.name = "objfile",
	.pte_chain_alloc = pte_chain_alloc,
	.pte_chain_free = pte_chain_free,
	.page_add_rmap = objfile_page_add_rmap,
	.page_remove_rmap = objfile_page_remove_rmap,
	.page_referenced = objfile_page_referenced,
	.try_to_unmap = objfile_try_to_unmap,
	.page_mapped = objfile_page_mapped,
	.install_nonlinear = page_convert_anon,
	.rmap_count = objfile_rmap_count,
	.rmap_walk = objfile_rmap_walk,
};
