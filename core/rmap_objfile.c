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
 * The file-page half (find_pte(), page_referenced_obj(),
 * try_to_unmap_obj() and the audit's walk) is objrmap.c, shared with
 * anonvma; objfile asks it to search i_mmap_nonlinear with find_pte()
 * (OBJ_NONLINEAR_FIND_PTE), and holds or takes PG_chainlock around it.
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
 *       i_mmap_lock (mainline designs only)
 *         page_table_lock
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
		line_write(&page->pte, LINE_RMAP);
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
		line_write(&page->pte, LINE_RMAP);
		page->pte.mapcount--;
	} else if (!page_converted(page) || objfile_chain_has(page, ptep)) {
		__pte_chain_remove(page, ptep);
	}
	pte_chain_unlock(page);
}

/*
 * Mirrors page_referenced() of 2.6.3 with seed 001.
 * Context: PG_chainlock held (shrink_list holds the page lock too; the
 * aging of the active list does not, as in 2.6.3).
 */
static int objfile_page_referenced(struct page *page)
{
	int referenced = 0;

	assert_chain_locked(page);
	if (TestClearPageReferenced(page))
		referenced++;
	if (!PageAnon(page))
		return referenced + page_referenced_obj(page, OBJ_NONLINEAR_FIND_PTE);
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
		return try_to_unmap_obj(page, OBJ_NONLINEAR_FIND_PTE);
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
static int objfile_rmap_walk(struct page *page, rmap_walk_fn fn, void *arg)
{
	bool anon;

	pte_chain_lock(page);
	anon = PageAnon(page);
	pte_chain_unlock(page);
	if (anon)
		return rmap_ptechain_ops.rmap_walk(page, fn, arg);
	return rmap_walk_obj(page, fn, arg, OBJ_NONLINEAR_FIND_PTE);
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
	/*
	 * Seed 001 took page_table_lock out of vma_link(), vma_merge() and
	 * expand_stack(). vma_merge() only moves vm_end of a vma whose pages
	 * all lie below the old end, one word that find_vma() reads whole
	 * either way: safe, and gone here too. The other two are races the
	 * seed opened, kept closed here (seeded bugs restore them):
	 * try_to_unmap_one() of an anonymous page still walks the vma list
	 * with find_vma() under page_table_lock (vma-link-unlocked), and
	 * two faults below a stack grow it at once under mmap_sem for read
	 * (expand-stack-unlocked).
	 */
	.vma_locks = VMA_LOCK_LINK_PTL | VMA_LOCK_STACK_PTL,
	.vma_locks_source = 0,
	.anon_keeps_mapping = true,
};
