// SPDX-License-Identifier: MIT
/*
 * The rmap of mainline 2.6.8 (mm/rmap.c, mm/vmscan.c of
 * shizhouwang/linux-2.6.8): Hugh Dickins' anonmm/rmap series merged with
 * Andrea Arcangeli's anon_vma and Rajesh Venkatasubramanian's prio_tree.
 * Written anew for the model; names are the kernel's. What 2.6.9 kept of
 * it (the anon_vma's life, the nonlinear cluster scan, the audit) is in
 * core/rmap_mainline.c, with the departures (1) to (4) both share.
 *
 *   anon pages   page->as.anon_vma (2.6.8: page->mapping with PG_anon),
 *                set by the first pte and cleared by the last
 *                (clear_page_anon()).
 *   file pages   page->pte.mapcount; the tree's vmas covering the page,
 *                then the nonlinear vmas a cluster at a time
 *                (try_to_unmap_cluster()), unmapping whatever pages it
 *                meets there, with this page's map lock dropped.
 *
 * PG_maplock (page_map_lock()) guards mapcount and the anonymous state
 * (PG_anon set, page->as.anon_vma); the last page_remove_rmap() clears
 * page->as.anon_vma, as 2.6.8's clear_page_anon() cleared page->mapping.
 * Reclaim holds PG_locked and PG_maplock, takes anon_vma->lock (a mapped
 * page's anon_vma has a vma, which PG_maplock keeps: the cache is a plain
 * one, freed at once) and only *tries* i_mmap_lock and each page_table_lock.
 * A failed try is a fallback counted by site; in page_referenced() 2.6.8
 * counts it as *not* referenced (page_referenced_file: "assume a reference
 * count of 0, so try_to_unmap will then have a go").
 *
 * Lock ordering in this rmap (the tree at the top of core/lockdep.c):
 *
 * i_sem (truncate)
 *   mmap_sem (faults: anon_vma_prepare; fork, split, mremap, exit)
 *     PG_locked (lock_page: reclaim)
 *       i_shared_sem (not used by this design)
 *         page_table_lock
 *       i_mmap_lock (vma_link, vma_adjust, split_vma, fork, mremap, truncate; reclaim tries it)
 *         page_table_lock (anon_vma_prepare, page_add_rmap callers; reclaim tries it)
 *           PG_chainlock (not used by this design)
 *             anon_vma->lock
 *               swap_lock (in swap_duplicate, from unmap_one_pte)
 *                 tree_lock
 *             lru_lock
 *           PG_maplock (page_map_lock: mapcount, PG_anon, page->as.anon_vma)
 *             anon_vma->lock (the vma list; bounds of listed vmas)
 *             lru_lock
 *
 * 2.6.8's anon_vma_prepare() takes anon_vma->lock under page_table_lock
 * directly (filemap.c's "->anon_vma.lock (anon_vma_prepare)"), and
 * try_to_unmap_file() takes PG_maplock again under i_mmap_lock after the
 * cluster scan; both are allowed by the tree (ancestors). The audit's walk
 * of an anonymous page drops anon_vma->lock before each page_table_lock.
 */
#include "rmap_mainline-internal.h"

#include "i_mmap.h"
#include "inject.h"
#include "lockdep.h"
#include "spinlock.h"
#include "tlbflush.h"

static inline void assert_map_locked(struct page *page)
{
	BUG_ON(__lockdep_on ? !lock_is_held(page_lock_key(page, PG_maplock))
			    : !test_page_flag(page, PG_maplock));
}

/* ---- page_add_rmap / page_remove_rmap ---- */

/*
 * Mirrors 2.6.8's page_add_anon_rmap() and page_add_file_rmap(): the first
 * pte of an anonymous page points it to its vma's anon_vma; any later one
 * must find the same (every vma that may map it shares the anon_vma).
 * Context: page_table_lock of @vma's mm held; takes PG_maplock.
 */
static struct pte_chain *page_add_rmap(struct page *page, struct vm_area_struct *vma,
				      unsigned long address, pte_t *ptep, bool anon,
				      struct pte_chain *chain)
{
	int n;

	(void)address;
	(void)ptep;
	if (PageReserved(page))
		return chain;
	assert_spin_locked(&vma->vm_mm->page_table_lock);
	BUG_ON(chain);
	page_map_lock(page);
	n = page_mapcount(page);
	if (anon && !PageAnon(page)) {
		BUG_ON(n != 0);
		SetPageAnon(page);
	}
	if (PageAnon(page)) {
		struct anon_vma *anon_vma = READ_ONCE(vma->anon_vma);

		BUG_ON(!anon_vma);	/* anon_vma_prepare() ran first */
		BUG_ON(PageSwapCache(page) && !anon);
		if (n == 0)
			rcu_assign_pointer(page->as.anon_vma, anon_vma);
		else
			BUG_ON(rcu_access_pointer(page->as.anon_vma) != anon_vma);
	} else {
		BUG_ON(!READ_ONCE(page->as.mapping));
		BUG_ON(PageSwapCache(page));
	}
	set_page_mapcount(page, n + 1);
	page_map_unlock(page);
	return chain;
}

/*
 * Mirrors 2.6.8's page_remove_rmap(): the last pte gone, the anonymous
 * page forgets its anon_vma (clear_page_anon(); deviation (1)).
 * Context: page_table_lock held; takes PG_maplock.
 */
static void page_remove_rmap(struct page *page, pte_t *ptep)
{
	int n;

	if (PageReserved(page))
		return;
	assert_spin_locked(&((struct mm_struct *)ptep_to_owner(ptep))->page_table_lock);
	page_map_lock(page);
	n = page_mapcount(page);
	BUG_ON(n <= 0);		/* mapcount underflow */
	set_page_mapcount(page, n - 1);
	if (n == 1 && PageAnon(page))
		rcu_assign_pointer(page->as.anon_vma, NULL);
	page_map_unlock(page);
}

static bool page_mapped(struct page *page)
{
	return page_mapcount(page) > 0;
}

/* ---- page_referenced ---- */

/*
 * Mirrors 2.6.8's page_referenced_one(): test and clear the young bit of
 * @vma's pte for @page; a busy page_table_lock counts as *not* referenced.
 * @mapcount counts down the ptes seen.
 * Context: PG_maplock held, and anon_vma->lock or i_mmap_lock.
 */
static int page_referenced_one(struct page *page, struct vm_area_struct *vma, int *mapcount)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long address;
	int referenced = 0;
	pte_t *ptep;

	if (!vma_address(vma, page, &address))
		return 0;
	if (!spin_trylock(&mm->page_table_lock)) {
		rmap_fallback(FB_PAGE_REFERENCED_ONE_PTL);
		return 0;
	}
	ptep = find_pte(vma, page, &address);
	if (ptep) {
		if (ptep_test_and_clear_young(ptep))
			referenced++;
		(*mapcount)--;
	}
	spin_unlock(&mm->page_table_lock);
	return referenced;
}

/* Context: PG_maplock held; takes anon_vma->lock (2.6.8: blocking). */
static int page_referenced_anon(struct page *page)
{
	struct anon_vma *anon_vma = rcu_access_pointer(page->as.anon_vma);
	int mapcount = page_mapcount(page);
	struct vm_area_struct *vma;
	int referenced = 0;

	spin_lock(&anon_vma->lock);
	BUG_ON(list_empty(&anon_vma->head));
	list_for_each_entry(vma, &anon_vma->head, anon_vma_node) {
		referenced += page_referenced_one(page, vma, &mapcount);
		if (!mapcount)
			break;
	}
	spin_unlock(&anon_vma->lock);
	return referenced;
}

static int page_referenced_file_one(struct vm_area_struct *vma, void *arg)
{
	struct file_walk *w = arg;

	/* 2.6.8: a locked shared vma counts, and ends the look. */
	if ((READ_ONCE(vma->vm_flags) & (VM_LOCKED | VM_SHARED)) == (VM_LOCKED | VM_SHARED)) {
		w->result++;
		return 1;
	}
	w->result += page_referenced_one(w->page, vma, &w->mapcount);
	return w->mapcount <= 0;
}

/*
 * Mirrors 2.6.8's page_referenced_file(): the vmas of the tree that cover
 * the page's offset; nonlinear vmas are not looked at (2.6.8 neither).
 * Context: PG_maplock held; tries i_mmap_lock.
 */
static int page_referenced_file(struct page *page)
{
	struct address_space *mapping = READ_ONCE(page->as.mapping);
	struct file_walk w = { page, page_mapcount(page), 0 };

	if (injected(INJECT_RECLAIM_LOCK_IMMAP)) {
		/* Seeded bug: i_mmap_lock blocking, under PG_maplock (see try_to_unmap_file). */
		spin_lock(&mapping->i_mmap_lock);
	} else if (!spin_trylock(&mapping->i_mmap_lock)) {
		rmap_fallback(FB_PAGE_REFERENCED_FILE_IMMAP);
		return 0;
	}
	vma_prio_tree_foreach(mapping, page->index, page->index, page_referenced_file_one, &w);
	spin_unlock(&mapping->i_mmap_lock);
	return w.result;
}

/*
 * Mirrors 2.6.8's page_referenced(): PG_referenced, then the young ptes.
 * Context: PG_maplock held (shrink_list and refill_inactive_zone both).
 */
static int page_referenced(struct page *page)
{
	int referenced = 0;

	assert_map_locked(page);
	if (TestClearPageReferenced(page))
		referenced++;
	if (!page_mapcount(page))
		return referenced;
	if (PageAnon(page))
		return referenced + page_referenced_anon(page);
	return referenced + page_referenced_file(page);
}

/* ---- try_to_unmap ---- */

/*
 * Mirrors 2.6.8's try_to_unmap_one(): unmap @vma's pte for @page, if it has
 * one (unmap_one_pte() does the pte's part), and uncount it.
 * Context: page locked, PG_maplock held, anon_vma->lock or i_mmap_lock held.
 * Return: SWAP_FAIL (mlocked, young), else SWAP_AGAIN (2.6.8's answer
 * for done and for a busy page_table_lock alike; try_to_unmap() decides
 * by the mapcount).
 */
static int try_to_unmap_one(struct page *page, struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long address;
	int ret = SWAP_AGAIN;
	pte_t *ptep;

	if (!vma_address(vma, page, &address))
		return SWAP_AGAIN;
	if (!spin_trylock(&mm->page_table_lock)) {
		rmap_fallback(FB_TRY_TO_UNMAP_ONE_PTL);
		return SWAP_AGAIN;
	}
	ptep = find_pte(vma, page, &address);
	if (ptep && gup_pinned(page, page_mapcount(page)))
		ret = SWAP_FAIL;
	else if (ptep) {
		if (unmap_one_pte(page, mm, vma, address, ptep) == SWAP_SUCCESS)
			set_page_mapcount(page, page_mapcount(page) - 1);
		else
			ret = SWAP_FAIL;
	}
	spin_unlock(&mm->page_table_lock);
	return ret;
}

/* Context: page locked, PG_maplock held; takes anon_vma->lock. */
static int try_to_unmap_anon(struct page *page)
{
	struct anon_vma *anon_vma = rcu_access_pointer(page->as.anon_vma);
	struct vm_area_struct *vma;
	int ret = SWAP_AGAIN;

	spin_lock(&anon_vma->lock);
	BUG_ON(list_empty(&anon_vma->head));
	list_for_each_entry(vma, &anon_vma->head, anon_vma_node) {
		ret = try_to_unmap_one(page, vma);
		if (ret == SWAP_FAIL || !page_mapcount(page))
			break;
	}
	spin_unlock(&anon_vma->lock);
	return ret;
}

/*
 * Mirrors 2.6.8's try_to_unmap_cluster(): in the cluster of @vma at
 * @cursor, unmap every present pte that was not young, whatever page it
 * maps (try_to_unmap_cluster_ptes()). Each page's PG_maplock is taken by
 * page_remove_rmap(): the caller dropped its own.
 * Context: i_mmap_lock held; no PG_maplock held; tries page_table_lock.
 * Return: SWAP_FAIL when page_table_lock is busy, else SWAP_AGAIN.
 */
static int try_to_unmap_cluster(unsigned long cursor, int *mapcount,
				struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;

	if (!spin_trylock(&mm->page_table_lock)) {
		rmap_fallback(FB_TRY_TO_UNMAP_CLUSTER_PTL);
		return SWAP_FAIL;
	}
	try_to_unmap_cluster_ptes(vma, cursor, mapcount, page_remove_rmap);
	spin_unlock(&mm->page_table_lock);
	return SWAP_AGAIN;
}

static int try_to_unmap_file_one(struct vm_area_struct *vma, void *arg)
{
	struct unmap_walk *w = arg;

	w->ret = try_to_unmap_one(w->page, vma);
	return w->ret == SWAP_FAIL || !page_mapcount(w->page);
}

/*
 * Mirrors 2.6.8's try_to_unmap_file(): the tree's vmas covering the page,
 * then, if ptes are left, the nonlinear vmas (try_to_unmap_nonlinear())
 * with the page's PG_maplock dropped.
 * Context: page locked, PG_maplock held (dropped and retaken around the
 * cluster scan); tries i_mmap_lock.
 */
static int try_to_unmap_file(struct page *page)
{
	struct address_space *mapping = READ_ONCE(page->as.mapping);
	struct unmap_walk w = { page, SWAP_AGAIN };

	if (injected(INJECT_RECLAIM_LOCK_IMMAP)) {
		/*
		 * Seeded bug: reclaim holds PG_maplock and takes i_mmap_lock,
		 * which truncate holds while its zap takes PG_maplock in
		 * page_remove_rmap(): the ABBA that made 2.6.8's trylock
		 * load-bearing.
		 */
		spin_lock(&mapping->i_mmap_lock);
	} else if (!spin_trylock(&mapping->i_mmap_lock)) {
		rmap_fallback(FB_TRY_TO_UNMAP_FILE_IMMAP);
		return SWAP_AGAIN;
	}
	if (!vma_prio_tree_foreach(mapping, page->index, page->index, try_to_unmap_file_one, &w))
		try_to_unmap_nonlinear(page, mapping, try_to_unmap_cluster, true);
	spin_unlock(&mapping->i_mmap_lock);
	return w.ret;
}

/*
 * Mirrors 2.6.8's try_to_unmap(): SWAP_SUCCESS exactly when no pte is left.
 * Context: page locked, PG_maplock held.
 */
static int try_to_unmap(struct page *page)
{
	int ret;

	assert_map_locked(page);
	BUG_ON(!PageLocked(page));
	BUG_ON(PageReserved(page));
	if (!page_mapcount(page))
		return SWAP_SUCCESS;
	if (PageAnon(page))
		ret = try_to_unmap_anon(page);
	else
		ret = try_to_unmap_file(page);
	if (!page_mapcount(page)) {
		if (PageAnon(page))
			rcu_assign_pointer(page->as.anon_vma, NULL);	/* clear_page_anon() */
		return SWAP_SUCCESS;
	}
	return ret == SWAP_FAIL ? SWAP_FAIL : SWAP_AGAIN;
}

const struct rmap_ops rmap_mainline8_ops = {
	.name = "mainline8",
	.gup_pin_test = true,
	.pte_chain_alloc = NULL,
	.pte_chain_free = NULL,
	.page_add_rmap = page_add_rmap,
	.page_remove_rmap = page_remove_rmap,
	.page_referenced = page_referenced,
	.try_to_unmap = try_to_unmap,
	/* 2.6.8's refill_inactive_zone() holds page_map_lock across page_referenced(). */
	.page_referenced_unlocked = NULL,
	.page_mapped = page_mapped,
	.anon_vma_prepare = mainline_anon_vma_prepare,
	.anon_vma_fork = mainline_anon_vma_fork,
	.anon_vma_unlink = mainline_anon_vma_unlink,
	.anon_vma_link = mainline_anon_vma_link,
	.anon_vma_prepare_split = NULL,	/* no PG_direct: split and move just link */
	.install_nonlinear = NULL,	/* nonlinear pages: try_to_unmap_cluster() */
	.rmap_count = mainline_rmap_count,
	.rmap_walk = mainline_rmap_walk,
	.audit_vma = mainline_audit_vma,
	.audit_pte = mainline_audit_pte,
	/*
	 * 2.6.8's vma_link() and vma_adjust() take i_mmap_lock and the
	 * anon_vma lock, no page_table_lock; its expand_stack() prepares an
	 * anon_vma and takes its lock. The model's takes page_table_lock
	 * too (deviation (2)).
	 */
	.vma_locks = VMA_LOCK_STACK_PTL,
	.vma_locks_source = VMA_LOCK_STACK_ANON_VMA,
	.i_mmap_tree = true,
	.anon_vma_at_fault = true,
	.pg_maplock = true,
};
