// SPDX-License-Identifier: MIT
/*
 * The rmap of mainline 2.6.9: Hugh Dickins' rmaplock series
 * (mm/rmap.c, mm/vmscan.c of HassebJ/linux-2.6.9). Written anew for the
 * model; names are the kernel's. What it kept of 2.6.8 (the anon_vma's
 * life, the nonlinear cluster scan, the audit) is in core/rmap_mainline.c,
 * with the departures (1) to (4) both share.
 *
 * No PG_maplock: page->_mapcount is atomic, starting at -1 (the model
 * keeps _mapcount + 1 in page->pte.mapcount, so a free page reads 0 as the
 * allocator checks; atomic_inc_and_test(&_mapcount) is a fetch_add that
 * saw 0). The first pte of an anonymous page sets page->mapping to the
 * anon_vma with PAGE_MAPPING_ANON and the last one leaves it (no
 * clear_page_anon()): an unmapped page may point to an anon_vma freed
 * since, so the anon_vma cache is SLAB_DESTROY_BY_RCU and a walker finds
 * it through page_lock_anon_vma() under rcu_read_lock(). Reclaim takes
 * i_mmap_lock and page_table_lock blocking (anon_vma->lock and
 * i_mmap_lock outside page_table_lock: the order below), and
 * page_referenced(page, is_locked) tries the page lock for a file page
 * when the caller (the aging) does not hold it.
 *
 * Lock ordering in 2.6.9's rmap (mainline9; lockdep_set_order()):
 *
 * i_sem (truncate)
 *   mmap_sem
 *     PG_locked (lock_page: reclaim; page_referenced tries it)
 *       i_shared_sem (not used by this design)
 *         page_table_lock
 *       i_mmap_lock (reclaim takes it, blocking)
 *         anon_vma->lock (anon_vma_prepare, reclaim; split_vma, expand_stack)
 *           page_table_lock (reclaim takes it, blocking)
 *             PG_chainlock (not used by this design)
 *             PG_maplock (not used by this design)
 *             lru_lock
 *             swap_lock
 *               tree_lock
 *
 * Where the model departs from 2.6.9, beyond (1)-(4) (core/rmap_mainline.c):
 * (5) anon_vma_prepare() locks a newly allocated anon_vma as well, as
 *     2.6.27 does: with the type-stable cache a stale page_lock_anon_vma()
 *     may hold the lock of the memory it reuses (anon-vma-new-unlocked
 *     restores 2.6.9).
 * (6) The RCU read side of page_lock_anon_vma() lasts until
 *     page_unlock_anon_vma9(), where 2.6.9 relied on the spinlock's
 *     disabled preemption (liburcu's grace period does not wait for a
 *     spinlock holder).
 * (7) _mapcount is kept one higher (0 for an unmapped page).
 */
#include "cover.h"
#include "rmap_mainline-internal.h"

#include "i_mmap.h"
#include "inject.h"
#include "lockdep.h"
#include "perturb.h"
#include "rcu.h"
#include "spinlock.h"
#include "tlbflush.h"

/* atomic_inc_and_test(&page->_mapcount): true for the first pte. */
static inline bool mapcount_inc_first(struct page *page)
{
	line_write(&page->pte.mapcount, LINE_RMAP);
	return __atomic_fetch_add(&page->pte.mapcount, 1, __ATOMIC_ACQ_REL) == 0;
}

/* atomic_add_negative(-1, &page->_mapcount): true for the last pte. */
static inline bool mapcount_dec_last(struct page *page)
{
	int old;

	line_write(&page->pte.mapcount, LINE_RMAP);
	old = __atomic_fetch_sub(&page->pte.mapcount, 1, __ATOMIC_ACQ_REL);

	BUG_ON(old <= 0);	/* _mapcount below -1 */
	return old == 1;
}

/*
 * Mirrors 2.6.9's page_add_anon_rmap() and page_add_file_rmap(): no lock
 * of the page; the first pte of an anonymous page publishes its anon_vma.
 * Context: page_table_lock of @vma's mm held.
 */
static struct pte_chain *page_add_rmap(struct page *page, struct vm_area_struct *vma,
				      unsigned long address, pte_t *ptep, bool anon,
				      struct pte_chain *chain)
{
	(void)address;
	(void)ptep;
	if (PageReserved(page))
		return chain;
	assert_spin_locked(&vma->vm_mm->page_table_lock);
	BUG_ON(chain);
	if (anon || PageAnon(page)) {
		struct anon_vma *anon_vma = READ_ONCE(vma->anon_vma);

		BUG_ON(!anon_vma);
		if (!PageAnon(page))
			SetPageAnon(page);	/* the model's flag; 2.6.9: the bit below */
		if (mapcount_inc_first(page))
			rcu_assign_pointer(page->as.anon_vma,
					   (struct anon_vma *)((uintptr_t)anon_vma | PAGE_MAPPING_ANON));
	} else {
		BUG_ON(!READ_ONCE(page->as.mapping));
		mapcount_inc_first(page);
	}
	return chain;
}

/*
 * Mirrors 2.6.9's page_remove_rmap(): the count only; page->mapping stays.
 * Context: page_table_lock held.
 */
static void page_remove_rmap(struct page *page, pte_t *ptep)
{
	if (PageReserved(page))
		return;
	assert_spin_locked(&((struct mm_struct *)ptep_to_owner(ptep))->page_table_lock);
	if (mapcount_dec_last(page) && PageAnon(page) &&
	    injected(INJECT_REMOVE_RMAP_CLEARS_MAPPING)) {
		/*
		 * Seeded bug: 2.6.8's clear_page_anon() kept in 2.6.9, with
		 * no PG_maplock to order it against a page_add_rmap() that
		 * maps the page again meanwhile (another mm's swap-in): that
		 * mapping is wiped after it was set, and the page is mapped
		 * with no anon_vma.
		 */
		yield_point_on("page_remove_rmap:last", page, COVER_PAGE);
		rcu_assign_pointer(page->as.anon_vma, NULL);
	}
}

static bool page_mapped(struct page *page)
{
	return __atomic_load_n(&page->pte.mapcount, __ATOMIC_ACQUIRE) > 0;
}

/*
 * Mirrors 2.6.9's page_lock_anon_vma(): page->mapping read once under
 * rcu_read_lock(); an anonymous, still mapped page's anon_vma is locked.
 * The anon_vma may have been freed and reused since the page pointed to
 * it: type-stable memory keeps its lock a lock, and every pte found is
 * checked for this page's pfn (find_pte()).
 * The "9" stays: anonvma's page_lock_anon_vma() (anon_vma.h) has the
 * kernel's name in this library.
 * Context: any; on success rcu_read_lock() and anon_vma->lock are held
 * until page_unlock_anon_vma9().
 */
static struct anon_vma *page_lock_anon_vma9(struct page *page)
{
	uintptr_t anon_mapping;
	struct anon_vma *anon_vma;

	rcu_read_lock();
	/* Acquire pairs with the rcu_assign_pointer() in page_add_rmap(). */
	anon_mapping = (uintptr_t)rcu_dereference(page->as.anon_vma);
	if (!(anon_mapping & PAGE_MAPPING_ANON))
		goto out;
	if (!page_mapped(page))
		goto out;
	anon_vma = (struct anon_vma *)(anon_mapping - PAGE_MAPPING_ANON);
	/*
	 * Only RCU keeps the memory an anon_vma from here to the lock: the
	 * page's last vma may exit and free it, and a new vma's first fault
	 * take the memory from the cache, before the lock is taken.
	 */
	yield_point_on("page_lock_anon_vma:unlocked", anon_vma, COVER_ANON_VMA);
	spin_lock(&anon_vma->lock);
	return anon_vma;
out:
	rcu_read_unlock();
	return NULL;
}

static void page_unlock_anon_vma9(struct anon_vma *anon_vma)
{
	spin_unlock(&anon_vma->lock);
	rcu_read_unlock();
}

/*
 * Mirrors 2.6.9's page_referenced_one(): page_table_lock taken, blocking.
 * Context: anon_vma->lock or i_mmap_lock held.
 */
static int page_referenced_one(struct page *page, struct vm_area_struct *vma, int *mapcount)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long address;
	int referenced = 0;
	pte_t *ptep;

	if (!vma_address(vma, page, &address))
		return 0;
	spin_lock(&mm->page_table_lock);
	ptep = find_pte(vma, page, &address);
	if (ptep) {
		if (ptep_test_and_clear_young(ptep))
			referenced++;
		(*mapcount)--;
	}
	spin_unlock(&mm->page_table_lock);
	return referenced;
}

static int page_referenced_anon(struct page *page)
{
	struct anon_vma *anon_vma = page_lock_anon_vma9(page);
	struct vm_area_struct *vma;
	int referenced = 0, mapcount;

	if (!anon_vma)
		return 0;
	mapcount = page_mapcount(page);
	list_for_each_entry(vma, &anon_vma->head, anon_vma_node) {
		referenced += page_referenced_one(page, vma, &mapcount);
		if (mapcount <= 0)
			break;
	}
	page_unlock_anon_vma9(anon_vma);
	return referenced;
}

static int page_referenced_file_one(struct vm_area_struct *vma, void *arg)
{
	struct file_walk *w = arg;

	if ((READ_ONCE(vma->vm_flags) & (VM_LOCKED | VM_SHARED)) == (VM_LOCKED | VM_SHARED)) {
		w->result++;
		return 1;
	}
	w->result += page_referenced_one(w->page, vma, &w->mapcount);
	return w->mapcount <= 0;
}

/*
 * Context: page locked (the page lock keeps page->as.mapping set and the
 * file alive: truncate_inode_pages() and the last iput() wait for it);
 * takes i_mmap_lock (blocking, 2.6.9). Seeded bug aging-file-unlocked:
 * the aging comes here without the page lock.
 */
static int page_referenced_file(struct page *page)
{
	struct address_space *mapping;
	struct file_walk w = { page, 0, 0 };

	BUG_ON(PageAnon(page));
	BUG_ON(!PageLocked(page) && !injected(INJECT_AGING_FILE_UNLOCKED));
	/*
	 * Unlocked, truncate may take the page out of the file after the
	 * caller's look at page->mapping, and the file may die once its last
	 * vma is gone: a NULL mapping (2.6.9 would oops on it) or freed memory.
	 */
	yield_point_on("page_referenced_file:mapping", page, COVER_PAGE);
	mapping = READ_ONCE(page->as.mapping);
	BUG_ON(!mapping);
	spin_lock(&mapping->i_mmap_lock);
	w.mapcount = page_mapcount(page);
	vma_prio_tree_foreach(mapping, page->index, page->index, page_referenced_file_one, &w);
	spin_unlock(&mapping->i_mmap_lock);
	return w.result;
}

/*
 * Mirrors 2.6.9's page_referenced(page, is_locked): a file page needs its
 * page lock (truncate clears page->mapping under it); the aging, which
 * does not hold it, tries it and counts a busy one as a reference.
 */
static int page_referenced(struct page *page, bool is_locked)
{
	int referenced = 0;

	if (TestClearPageReferenced(page))
		referenced++;
	if (page_mapped(page) && READ_ONCE(page->as.mapping)) {
		if (PageAnon(page)) {
			referenced += page_referenced_anon(page);
		} else if (is_locked) {
			referenced += page_referenced_file(page);
		} else if (injected(INJECT_AGING_FILE_UNLOCKED)) {
			/* The bug: 2.6.8's walk, without 2.6.8's PG_maplock to pin the file. */
			referenced += page_referenced_file(page);
		} else if (TestSetPageLocked(page)) {
			referenced++;
		} else {
			if (READ_ONCE(page->as.mapping))
				referenced += page_referenced_file(page);
			unlock_page(page);
		}
	}
	return referenced;
}

/* shrink_list's page_referenced(page, 1). Context: page locked. */
static int page_referenced_locked(struct page *page)
{
	BUG_ON(!PageLocked(page));
	return page_referenced(page, true);
}

/* refill_inactive_zone's page_referenced(page, 0). Context: no lock of the page. */
static int page_referenced_unlocked(struct page *page)
{
	if (!page_mapped(page))
		return 0;
	return page_referenced(page, false);
}

/*
 * Mirrors 2.6.9's try_to_unmap_one(): page_table_lock taken, blocking.
 * Context: page locked; anon_vma->lock or i_mmap_lock held.
 */
static int try_to_unmap_one(struct page *page, struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long address;
	int ret = SWAP_AGAIN;
	pte_t *ptep;

	if (!vma_address(vma, page, &address))
		return SWAP_AGAIN;
	spin_lock(&mm->page_table_lock);
	ptep = find_pte(vma, page, &address);
	if (ptep && gup_pinned(page, page_mapcount(page)))
		ret = SWAP_FAIL;
	else if (ptep) {
		if (unmap_one_pte(page, mm, vma, address, ptep) == SWAP_SUCCESS)
			page_remove_rmap(page, ptep);
		else
			ret = SWAP_FAIL;
	}
	spin_unlock(&mm->page_table_lock);
	return ret;
}

static int try_to_unmap_anon(struct page *page)
{
	struct anon_vma *anon_vma = page_lock_anon_vma9(page);
	struct vm_area_struct *vma;
	int ret = SWAP_AGAIN;

	if (!anon_vma)
		return ret;
	list_for_each_entry(vma, &anon_vma->head, anon_vma_node) {
		ret = try_to_unmap_one(page, vma);
		if (ret == SWAP_FAIL || !page_mapped(page))
			break;
	}
	page_unlock_anon_vma9(anon_vma);
	return ret;
}

/*
 * Mirrors 2.6.9's try_to_unmap_cluster(): as 2.6.8's, with page_table_lock
 * taken blocking and no map lock anywhere. 2.6.9's returns nothing; the
 * model's says SWAP_AGAIN, try_to_unmap_nonlinear()'s "go on".
 * Context: i_mmap_lock held.
 */
static int try_to_unmap_cluster(unsigned long cursor, int *mapcount,
				struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;

	spin_lock(&mm->page_table_lock);
	try_to_unmap_cluster_ptes(vma, cursor, mapcount, page_remove_rmap);
	spin_unlock(&mm->page_table_lock);
	return SWAP_AGAIN;
}

static int try_to_unmap_file_one(struct vm_area_struct *vma, void *arg)
{
	struct unmap_walk *w = arg;

	w->ret = try_to_unmap_one(w->page, vma);
	return w->ret == SWAP_FAIL || !page_mapped(w->page);
}

/*
 * Mirrors 2.6.9's try_to_unmap_file(): the tree's vmas covering the page,
 * then, if ptes are left, the nonlinear vmas (try_to_unmap_nonlinear()).
 * Context: page locked; takes i_mmap_lock.
 */
static int try_to_unmap_file(struct page *page)
{
	struct address_space *mapping = READ_ONCE(page->as.mapping);
	struct unmap_walk w = { page, SWAP_AGAIN };

	spin_lock(&mapping->i_mmap_lock);
	if (!vma_prio_tree_foreach(mapping, page->index, page->index, try_to_unmap_file_one, &w))
		try_to_unmap_nonlinear(page, mapping, try_to_unmap_cluster, false);
	spin_unlock(&mapping->i_mmap_lock);
	return w.ret;
}

/* Mirrors 2.6.9's try_to_unmap(). Context: page locked; no rmap lock. */
static int try_to_unmap(struct page *page)
{
	int ret;

	BUG_ON(!PageLocked(page));
	BUG_ON(PageReserved(page));
	if (!page_mapped(page))
		return SWAP_SUCCESS;
	if (PageAnon(page))
		ret = try_to_unmap_anon(page);
	else
		ret = try_to_unmap_file(page);
	if (!page_mapped(page))
		return SWAP_SUCCESS;
	return ret == SWAP_FAIL ? SWAP_FAIL : SWAP_AGAIN;
}

const struct rmap_ops rmap_mainline9_ops = {
	.name = "mainline9",
	.gup_pin_test = true,
	.pte_chain_alloc = NULL,
	.pte_chain_free = NULL,
	.page_add_rmap = page_add_rmap,
	.page_remove_rmap = page_remove_rmap,
	.page_referenced = page_referenced_locked,
	.try_to_unmap = try_to_unmap,
	.page_referenced_unlocked = page_referenced_unlocked,
	.page_mapped = page_mapped,
	.anon_vma_prepare = mainline_anon_vma_prepare,
	.anon_vma_fork = mainline_anon_vma_fork,
	.anon_vma_unlink = mainline_anon_vma_unlink,
	.anon_vma_link = mainline_anon_vma_link,
	.anon_vma_prepare_split = NULL,
	.install_nonlinear = NULL,
	.rmap_count = mainline_rmap_count,
	.rmap_walk = mainline_rmap_walk,
	.audit_vma = mainline_audit_vma,
	.audit_pte = mainline_audit_pte,
	.vma_locks = VMA_LOCK_STACK_PTL,
	.vma_locks_source = VMA_LOCK_STACK_ANON_VMA,
	.i_mmap_tree = true,
	.anon_vma_at_fault = true,
	.no_rmap_lock = true,
	.anon_vma_outside_ptl = true,
	.lock_order = LOCKDEP_ORDER_2_6_9,
	.unuse_anon_vmas_only = true,
};
