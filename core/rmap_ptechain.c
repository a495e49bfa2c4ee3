// SPDX-License-Identifier: MIT
/*
 * The pte_chain reverse map of 2.6.3 (Rik van Riel's rmap as reworked by
 * Dave McCracken and Hugh Dickins): every pte that maps a page is
 * recorded with the page, in page->pte.direct while there is one
 * (PG_direct), else in a chain of cache-line blocks at page->pte.chain.
 * Mirrors mm/rmap.c of 2.6.3.
 *
 * Lock ordering in this rmap (the tree at the top of core/lockdep.c):
 *
 * i_sem (truncate)
 *   mmap_sem
 *     PG_locked (lock_page)
 *       i_shared_sem
 *         page_table_lock (page_add_rmap, page_remove_rmap callers)
 *           PG_chainlock (pte_chain_lock: page->pte, PG_direct)
 *             anon_vma->lock
 *               swap_lock (in swap_duplicate, from try_to_unmap_one)
 *                 tree_lock
 *             lru_lock
 *           PG_maplock
 *             anon_vma->lock
 *             lru_lock
 *       i_mmap_lock (mainline designs only)
 *         page_table_lock
 *
 * The fault path takes page_table_lock, then PG_chainlock inside
 * page_add_rmap. Reclaim comes the other way: it holds PG_locked and
 * PG_chainlock and only *tries* page_table_lock (try_to_unmap_one);
 * page_referenced takes no page_table_lock at all, since clearing the
 * young bit is atomic. rmap_walk (the audit) keeps the order by dropping
 * PG_chainlock before it takes each page_table_lock.
 *
 * Accounting: rmap_account_pte_chain() counts every block from
 * pte_chain_alloc() to pte_chain_free(): those in pages' chains and those
 * preallocated and not yet consumed or given back (2.6.3's per-CPU
 * reserve is memory the design costs too).
 */
#include "rmap-internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "slab.h"

_Static_assert(sizeof(struct pte_chain) == SMP_CACHE_BYTES,
	       "a pte_chain is one cache line");
_Static_assert(NRPTE <= PTE_CHAIN_IDX_MASK,
	       "the first used slot's index fits below the block alignment");

static struct kmem_cache *pte_chain_cache;	/* set once (pte_chain_once) */
static pthread_once_t pte_chain_once = PTHREAD_ONCE_INIT;

static void pte_chain_cache_init(void)
{
	pte_chain_cache = kmem_cache_create("pte_chain", sizeof(struct pte_chain),
					    SLAB_HWCACHE_ALIGN, NULL);
}

/* ---- next_and_idx: mirrors 2.6.3's pte_chain_next/idx/encode ---- */

static inline struct pte_chain *pte_chain_next(const struct pte_chain *pc)
{
	return (struct pte_chain *)(pc->next_and_idx & ~PTE_CHAIN_IDX_MASK);
}

static inline unsigned int pte_chain_idx(const struct pte_chain *pc)
{
	return (unsigned int)(pc->next_and_idx & PTE_CHAIN_IDX_MASK);
}

static inline unsigned long pte_chain_encode(struct pte_chain *next, unsigned int idx)
{
	return (unsigned long)next | idx;
}

struct pte_chain *pte_chain_alloc(gfp_t gfp)
{
	struct pte_chain *pc;

	RT_PTHREAD(pthread_once(&pte_chain_once, pte_chain_cache_init));
	pc = kmem_cache_alloc(pte_chain_cache, gfp);
	if (!pc)
		return NULL;
	BUG_ON((unsigned long)pc & PTE_CHAIN_IDX_MASK);
	memset(pc, 0, sizeof(*pc));
	rmap_account_pte_chain((long)sizeof(*pc));
	return pc;
}

void pte_chain_free(struct pte_chain *pte_chain)
{
	if (!pte_chain)
		return;
	rmap_account_pte_chain(-(long)sizeof(*pte_chain));
	kmem_cache_free(pte_chain_cache, pte_chain);
}

static inline void assert_chain_locked(struct page *page)
{
	BUG_ON(__lockdep_on ? !lock_is_held(page_lock_key(page, PG_chainlock))
			    : !test_page_flag(page, PG_chainlock));
}

/*
 * A chain left with a single pte goes back to PG_direct: 2.6.3 did this
 * in page_referenced(); here every path that shrinks a chain does it, so
 * a page mapped once again costs no block.
 */
static void pte_chain_collapse(struct page *page)
{
	struct pte_chain *pc = page->pte.chain;

	if (PageDirect(page) || !pc || pte_chain_next(pc) ||
	    pte_chain_idx(pc) != NRPTE - 1)
		return;
	page->pte.direct = pc->ptes[NRPTE - 1];
	SetPageDirect(page);
	pte_chain_free(pc);
}

/*
 * Release the slot at @pc->ptes[@i]: the first used slot of the first
 * block fills the hole, and the first block goes when it empties. Every
 * slot before (@pc, @i) in chain order stays before it, which is what
 * try_to_unmap's walk relies on. Mirrors the compaction in 2.6.3's
 * page_remove_rmap()/try_to_unmap().
 */
static void pte_chain_release_slot(struct page *page, struct pte_chain *pc, unsigned int i)
{
	struct pte_chain *start = page->pte.chain;
	unsigned int victim_i = pte_chain_idx(start);

	line_write(&pc->ptes[i], LINE_RMAP);
	line_write(&start->ptes[victim_i], LINE_RMAP);
	line_write(start, LINE_RMAP);
	pc->ptes[i] = start->ptes[victim_i];
	start->ptes[victim_i] = NULL;
	if (victim_i == NRPTE - 1) {
		/* Emptied the first block. */
		page->pte.chain = pte_chain_next(start);
		pte_chain_free(start);
	} else {
		start->next_and_idx++;
	}
}

/**
 * __pte_chain_add() - record @ptep as a mapping of @page
 * @page: the page
 * @ptep: the slot that now maps it
 * @pte_chain: a preallocated block, consumed when a block is needed
 *
 * Mirrors the body of mm/rmap.c:page_add_rmap() of 2.6.3: the first pte
 * goes to page->pte.direct; the second turns it into a chain; a full
 * first block gets @pte_chain in front of it.
 *
 * Context: page_table_lock of @ptep's mm and PG_chainlock held.
 * Return: @pte_chain, or NULL when it was consumed.
 */
struct pte_chain *__pte_chain_add(struct page *page, pte_t *ptep,
				  struct pte_chain *pte_chain)
{
	struct pte_chain *cur;

	assert_chain_locked(page);
	BUG_ON(!ptep);
	line_write(&page->pte, LINE_RMAP);

	if (!PageDirect(page) && !page->pte.chain) {
		page->pte.direct = ptep;
		SetPageDirect(page);
		return pte_chain;
	}

	/* The caller preallocates, as 2.6.3's callers did. */
	BUG_ON(!pte_chain);

	if (PageDirect(page)) {
		/* Convert the direct pointer into a chain of two. */
		ClearPageDirect(page);
		pte_chain->ptes[NRPTE - 1] = page->pte.direct;
		pte_chain->ptes[NRPTE - 2] = ptep;
		pte_chain->next_and_idx = pte_chain_encode(NULL, NRPTE - 2);
		page->pte.chain = pte_chain;
		return NULL;
	}

	cur = page->pte.chain;
	if (cur->ptes[0]) {
		/* The first block is full: a new one goes in front. */
		pte_chain->next_and_idx = pte_chain_encode(cur, NRPTE - 1);
		pte_chain->ptes[NRPTE - 1] = ptep;
		page->pte.chain = pte_chain;
		return NULL;
	}
	line_write(&cur->ptes[pte_chain_idx(cur) - 1], LINE_RMAP);
	line_write(cur, LINE_RMAP);
	cur->ptes[pte_chain_idx(cur) - 1] = ptep;
	cur->next_and_idx--;
	return pte_chain;
}

/**
 * __pte_chain_remove() - forget @ptep as a mapping of @page
 * @page: the page
 * @ptep: a recorded slot
 *
 * Mirrors the body of mm/rmap.c:page_remove_rmap() of 2.6.3, whose bad
 * page report for a pte not found is a BUG here. A chain left with one
 * pte goes back to PG_direct.
 *
 * Context: PG_chainlock held.
 */
void __pte_chain_remove(struct page *page, pte_t *ptep)
{
	struct pte_chain *pc;

	assert_chain_locked(page);
	line_write(&page->pte, LINE_RMAP);

	if (PageDirect(page)) {
		/* page_remove_rmap: pte not found */
		BUG_ON(page->pte.direct != ptep);
		page->pte.direct = NULL;
		ClearPageDirect(page);
		return;
	}

	for (pc = page->pte.chain; pc; pc = pte_chain_next(pc)) {
		for (unsigned int i = pte_chain_idx(pc); i < NRPTE; i++) {
			if (pc->ptes[i] == ptep) {
				pte_chain_release_slot(page, pc, i);
				pte_chain_collapse(page);
				return;
			}
		}
	}
	/* page_remove_rmap: pte not found (the whole chain was searched) */
	BUG_ON(pc == NULL);
}

int __pte_chain_count(struct page *page)
{
	int n = 0;

	assert_chain_locked(page);
	if (PageDirect(page))
		return 1;
	for (struct pte_chain *pc = page->pte.chain; pc; pc = pte_chain_next(pc))
		n += NRPTE - pte_chain_idx(pc);
	return n;
}

bool __pte_chain_mapped(struct page *page)
{
	assert_chain_locked(page);
	return PageDirect(page) || page->pte.chain != NULL;
}

/*
 * Mirrors the chain walk of mm/rmap.c:page_referenced() of 2.6.3: no
 * page_table_lock, the young bit is cleared atomically; a slot whose pte
 * is being zapped reads as old (the zapper waits for PG_chainlock before
 * it can drop the record, and holds page_table_lock so nobody refills it).
 */
int __pte_chain_referenced(struct page *page)
{
	int referenced = 0;

	assert_chain_locked(page);
	if (PageDirect(page))
		return ptep_test_and_clear_young(page->pte.direct);

	for (struct pte_chain *pc = page->pte.chain; pc; pc = pte_chain_next(pc))
		for (unsigned int i = pte_chain_idx(pc); i < NRPTE; i++)
			if (ptep_test_and_clear_young(pc->ptes[i]))
				referenced++;
	pte_chain_collapse(page);
	return referenced;
}

/*
 * Mirrors mm/rmap.c:try_to_unmap_one() of 2.6.3: the mm and address come
 * from the slot, the vma from find_vma() under page_table_lock (which
 * vma changes hold, as 2.6's vma_link/do_munmap do), and only a trylock
 * of page_table_lock is allowed against the order.
 */
static int try_to_unmap_one(struct page *page, pte_t *ptep)
{
	struct mm_struct *mm = ptep_to_owner(ptep);
	unsigned long address = ptep_to_address(ptep);
	struct vm_area_struct *vma;
	pte_t pte;
	int ret;

	if (!spin_trylock(&mm->page_table_lock)) {
		rmap_fallback(FB_TRY_TO_UNMAP_ONE_PTL);
		return SWAP_AGAIN;
	}

	/* During mremap, a page may be mapped outside every vma for a while. */
	vma = find_vma(mm, address);
	if (!vma || address < READ_ONCE(vma->vm_start)) {
		ret = SWAP_FAIL;
		goto out_unlock;
	}

	/* The record is exact under page_table_lock: it maps this page. */
	pte = ptep_get(ptep);
	BUG_ON(!pte_present(pte) || pte_pfn(pte) != page_to_pfn(page));

	ret = unmap_one_pte(page, mm, vma, address, ptep);
out_unlock:
	spin_unlock(&mm->page_table_lock);
	return ret;
}

/*
 * Mirrors mm/rmap.c:try_to_unmap() of 2.6.3. The walk goes in chain
 * order; a released slot is filled from the first used slot, which was
 * visited already (and failed), so nothing is visited twice or skipped.
 */
int __pte_chain_try_to_unmap(struct page *page)
{
	struct pte_chain *pc, *next;
	int ret = SWAP_SUCCESS;

	assert_chain_locked(page);
	BUG_ON(!PageLocked(page));
	BUG_ON(PageReserved(page));

	if (PageDirect(page)) {
		ret = try_to_unmap_one(page, page->pte.direct);
		if (ret == SWAP_SUCCESS) {
			page->pte.direct = NULL;
			ClearPageDirect(page);
		}
		return ret;
	}

	for (pc = page->pte.chain; pc; pc = next) {
		next = pte_chain_next(pc);
		for (unsigned int i = pte_chain_idx(pc); i < NRPTE; i++) {
			bool freed_pc;

			switch (try_to_unmap_one(page, pc->ptes[i])) {
			case SWAP_SUCCESS:
				/*
				 * The first block goes when its last slot is
				 * released; if that is @pc, (pc, i) was that
				 * last slot and the inner loop ends here.
				 */
				freed_pc = pc == page->pte.chain &&
					   pte_chain_idx(pc) == NRPTE - 1;
				pte_chain_release_slot(page, pc, i);
				if (freed_pc)
					goto next_block;
				break;
			case SWAP_AGAIN:
				/* Skip this pte, remembering the status. */
				ret = SWAP_AGAIN;
				break;
			case SWAP_FAIL:
				ret = SWAP_FAIL;
				goto out;
			}
		}
next_block:
		;
	}
out:
	pte_chain_collapse(page);
	if (!__pte_chain_mapped(page))
		ret = SWAP_SUCCESS;
	return ret;
}

/* ---- the ops ---- */

/* Mirrors mm/rmap.c:page_add_rmap() of 2.6.3. */
static struct pte_chain *ptechain_page_add_rmap(struct page *page,
						struct vm_area_struct *vma,
						unsigned long address, pte_t *ptep,
						bool anon, struct pte_chain *pte_chain)
{
	/* The zero page is never recorded. */
	if (PageReserved(page))
		return pte_chain;

	assert_spin_locked(&vma->vm_mm->page_table_lock);
	BUG_ON(ptep_to_owner(ptep) != vma->vm_mm);
	BUG_ON(ptep_to_address(ptep) != (address & PAGE_MASK));

	pte_chain_lock(page);
	if (anon)
		SetPageAnon(page);
	pte_chain = __pte_chain_add(page, ptep, pte_chain);
	pte_chain_unlock(page);
	return pte_chain;
}

/* Mirrors mm/rmap.c:page_remove_rmap() of 2.6.3. */
static void ptechain_page_remove_rmap(struct page *page, pte_t *ptep)
{
	if (PageReserved(page))
		return;

	assert_spin_locked(&((struct mm_struct *)ptep_to_owner(ptep))->page_table_lock);
	pte_chain_lock(page);
	__pte_chain_remove(page, ptep);
	pte_chain_unlock(page);
}

/*
 * Mirrors mm/rmap.c:page_referenced() of 2.6.3.
 * Context: PG_chainlock held (shrink_list holds the page lock too; 2.6.3's
 * refill_inactive_zone() did not).
 */
static int ptechain_page_referenced(struct page *page)
{
	int referenced = 0;

	if (TestClearPageReferenced(page))
		referenced++;
	return referenced + __pte_chain_referenced(page);
}

static bool ptechain_page_mapped(struct page *page)
{
	return __pte_chain_mapped(page);
}

/* The audit's count. Context: takes PG_chainlock; the caller holds no rmap lock. */
static int ptechain_rmap_count(struct page *page)
{
	int n;

	pte_chain_lock(page);
	n = __pte_chain_count(page);
	pte_chain_unlock(page);
	return n;
}

/* Copy the recorded slots into @slots (room for @max); the count recorded. */
static int pte_chain_snapshot(struct page *page, pte_t **slots, int max)
{
	int n = 0;

	if (PageDirect(page)) {
		if (max > 0)
			slots[0] = page->pte.direct;
		return 1;
	}
	for (struct pte_chain *pc = page->pte.chain; pc; pc = pte_chain_next(pc))
		for (unsigned int i = pte_chain_idx(pc); i < NRPTE; i++, n++)
			if (n < max)
				slots[n] = pc->ptes[i];
	return n;
}

/* Is @ptep still recorded for @page? Context: PG_chainlock held. */
static bool pte_chain_has(struct page *page, pte_t *ptep)
{
	if (PageDirect(page))
		return page->pte.direct == ptep;
	for (struct pte_chain *pc = page->pte.chain; pc; pc = pte_chain_next(pc))
		for (unsigned int i = pte_chain_idx(pc); i < NRPTE; i++)
			if (pc->ptes[i] == ptep)
				return true;
	return false;
}

/*
 * The audit's walk: every lock taken, none tried. page_table_lock is
 * outside PG_chainlock, so the slots are snapshot under PG_chainlock,
 * which is dropped; then each slot is re-checked under its mm's
 * page_table_lock (and PG_chainlock, inside it): still recorded, and
 * mapping this page. Only those are counted and passed to @fn.
 * Context: a quiescent point; takes page_table_lock and PG_chainlock;
 * the caller holds neither. @fn runs under page_table_lock.
 */
static int ptechain_rmap_walk(struct page *page,
			      int (*fn)(struct page *page, struct mm_struct *mm,
					unsigned long address, pte_t *ptep, void *arg),
			      void *arg)
{
	pte_t **slots = NULL;
	int n, max = 0, found = 0, ret = 0;

	for (;;) {
		pte_chain_lock(page);
		n = pte_chain_snapshot(page, slots, max);
		pte_chain_unlock(page);
		if (n <= max)
			break;
		max = n;
		free(slots);
		slots = malloc((size_t)max * sizeof(*slots));
		if (!slots)
			rt_die("rmap_walk: no memory for %d slots", max);
	}

	for (int k = 0; k < n; k++) {
		pte_t *ptep = slots[k];
		struct mm_struct *mm = ptep_to_owner(ptep);
		unsigned long address = ptep_to_address(ptep);
		bool maps;

		spin_lock(&mm->page_table_lock);
		pte_chain_lock(page);
		maps = pte_chain_has(page, ptep);
		pte_chain_unlock(page);
		if (maps) {
			pte_t pte = ptep_get(ptep);

			maps = pte_present(pte) && pte_pfn(pte) == page_to_pfn(page);
		}
		if (maps) {
			found++;
			if (fn && fn(page, mm, address, ptep, arg))
				ret = -1;
		}
		spin_unlock(&mm->page_table_lock);
		if (ret)
			break;
	}
	free(slots);
	return ret ? ret : found;
}

static int ptechain_try_to_unmap(struct page *page)
{
	return __pte_chain_try_to_unmap(page);
}

const struct rmap_ops rmap_ptechain_ops = {
	.name = "ptechain",
	.pte_chain_alloc = pte_chain_alloc,
	.pte_chain_free = pte_chain_free,
	.page_add_rmap = ptechain_page_add_rmap,
	.page_remove_rmap = ptechain_page_remove_rmap,
	.page_referenced = ptechain_page_referenced,
	.try_to_unmap = ptechain_try_to_unmap,
	.page_mapped = ptechain_page_mapped,
	.rmap_count = ptechain_rmap_count,
	.rmap_walk = ptechain_rmap_walk,
	/*
	 * 2.6.3's vma_link(), vma_merge() and expand_stack() hold
	 * page_table_lock: try_to_unmap_one() looks the vma up with
	 * find_vma() under it.
	 */
	.vma_locks = VMA_LOCK_LINK_PTL | VMA_LOCK_ADJUST_PTL | VMA_LOCK_STACK_PTL,
	.vma_locks_source = VMA_LOCK_LINK_PTL | VMA_LOCK_ADJUST_PTL | VMA_LOCK_STACK_PTL,
};
