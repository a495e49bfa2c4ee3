// SPDX-License-Identifier: MIT
/*
 * What the seeds became: the rmap of mainline 2.6.8 (mm/rmap.c, mm/mmap.c,
 * mm/prio_tree.c, mm/memory.c, mm/vmscan.c of shizhouwang/linux-2.6.8),
 * Hugh Dickins' anonmm/rmap series merged with Andrea Arcangeli's
 * anon_vma and Rajesh Venkatasubramanian's prio_tree. Written anew for the
 * model; names are the kernel's.
 *
 *   anon pages   PG_anon and page->as.anon_vma (2.6.8: page->mapping with
 *                PG_anon). Every vma that may hold anonymous pages gets an
 *                anon_vma at its first anonymous fault (anon_vma_prepare(),
 *                under mmap_sem for read), adopting a mergeable neighbour's
 *                (find_mergeable_anon_vma()); fork, split and mremap link
 *                the new vma on the same anon_vma, and the last vma to
 *                leave frees it. No PG_direct: a page is always found
 *                through its anon_vma's list, at vm_start + (index - vm_pgoff).
 *   file pages   page->pte.mapcount; found through the file's priority
 *                search tree (mapping->i_mmap_tree, core/i_mmap.h), which
 *                yields only the vmas whose range covers the page's offset,
 *                under the i_mmap_lock spinlock. Nonlinear vmas are on
 *                i_mmap_nonlinear, and try_to_unmap_file() reclaims them a
 *                cluster at a time (try_to_unmap_cluster()), unmapping
 *                whatever pages it meets there, with this page's map lock
 *                dropped.
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
 * Where the model departs from 2.6.8 (README "The five designs"):
 * (1) PG_anon stays set on an unmapped anonymous page (2.6.8 cleared it
 *     with page->mapping): the model's swap cache and reclaim tell
 *     anonymous pages by PG_anon; page->as.anon_vma is cleared.
 * (2) expand_stack() takes page_table_lock besides the anon_vma lock, as
 *     in anonvma (deviation (7) there): 2.6.8's version lets a fault read
 *     vm_pgoff moved and vm_start not (seeded bug expand-stack-no-ptl).
 * (3) try_to_unmap_one() has 2.6.7's get_user_pages test ("page_count
 *     != mapcount + 2": a pinned swap-cache page stays mapped, see
 *     gup_pinned()); no mm->rss short-cuts (a racy read).
 * (4) Of 2.6.8's vma merges the model has two: vma_merge() growing a
 *     vma without an anon_vma over a fresh range, and mprotect moving the
 *     boundary into the vma below, which imports the anon_vma of the pages
 *     it takes (mprotect_merge_prev() in core/mmap.c: vma_adjust()'s
 *     "importer"; the seeded bug vma-adjust-no-importer leaves it out).
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
 *
 * Accounting: anon_vma objects; the anon_vma pointer and list node of a
 * vma on an anon_vma (24 bytes) and the 16 bytes by which 2.6.8's vma
 * "shared" union outgrew 2.6.3's list head, per file vma (i_mmap.c).
 */
#include "cover.h"
#include "rmap-internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "anon_vma.h"
#include "die.h"
#include "i_mmap.h"
#include "inject.h"
#include "lockdep.h"
#include "mm-internal.h"
#include "perturb.h"
#include "slab.h"
#include "spinlock.h"
#include "tlbflush.h"

/*
 * ---- the anon_vma caches: a plain one in 2.6.8; 2.6.9's is
 * SLAB_DESTROY_BY_RCU (type-stable), for page_lock_anon_vma() ----
 */

static struct kmem_cache *anon_vma_cachep;	/* 2.6.8's; set once */
static struct kmem_cache *anon_vma_cachep_rcu;	/* 2.6.9's; set once */
static pthread_once_t anon_vma_once = PTHREAD_ONCE_INIT;

/* The design running is mainline9 (2.6.9). Read-only while threads run. */
static inline bool ml9(void)
{
	return rmap->no_rmap_lock;
}

static void anon_vma_ctor(void *obj)
{
	struct anon_vma *anon_vma = obj;

	spin_lock_init(&anon_vma->lock, LOCK_CLASS_ANON_VMA_LOCK);
	INIT_LIST_HEAD(&anon_vma->head);
}

static void anon_vma_cache_init(void)
{
	anon_vma_cachep = kmem_cache_create("anon_vma_mainline", sizeof(struct anon_vma),
					    0, anon_vma_ctor);
	anon_vma_cachep_rcu = kmem_cache_create("anon_vma_mainline9", sizeof(struct anon_vma),
						SLAB_DESTROY_BY_RCU, anon_vma_ctor);
}

/* Context: may sleep. Return: an anon_vma with an empty list, or NULL. */
static struct anon_vma *anon_vma_alloc(void)
{
	struct anon_vma *anon_vma;

	RT_PTHREAD(pthread_once(&anon_vma_once, anon_vma_cache_init));
	anon_vma = kmem_cache_alloc(ml9() ? anon_vma_cachep_rcu : anon_vma_cachep, GFP_KERNEL);
	if (!anon_vma)
		return NULL;
	BUG_ON(!list_empty(&anon_vma->head));
	rmap_account_anon_vma((long)sizeof(*anon_vma));
	return anon_vma;
}

/* Context: the list is empty and no vma points here. */
static void anon_vma_free(struct anon_vma *anon_vma)
{
	rmap_account_anon_vma(-(long)sizeof(*anon_vma));
	kmem_cache_free(ml9() ? anon_vma_cachep_rcu : anon_vma_cachep, anon_vma);
}

/*
 * Mirrors 2.6.8's find_mergeable_anon_vma(): the anon_vma of a neighbour
 * that vma_merge() could merge with @vma (adjacent, same file, offsets
 * continuing, flags equal but for read/write/exec), so that a later merge
 * finds one anon_vma on both sides.
 * Context: mmap_sem held (for read at a fault).
 */
static bool anon_vma_mergeable(struct vm_area_struct *a, struct vm_area_struct *b)
{
	const unsigned long ignore = VM_READ | VM_WRITE | VM_EXEC;
	unsigned long a_start = READ_ONCE(a->vm_start), a_end = READ_ONCE(a->vm_end);

	/*
	 * expand_stack() moves a stack's vm_start and vm_pgoff under mmap_sem
	 * for read too (and its own locks, which this does not take, as
	 * 2.6.8 did not): each field is read once; a stale view only
	 * misses or finds a merge candidate.
	 */
	return a_end == READ_ONCE(b->vm_start) && a->vm_file == b->vm_file &&
	       !((a->vm_flags ^ b->vm_flags) & ~ignore) &&
	       READ_ONCE(a->vm_pgoff) + ((a_end - a_start) >> PAGE_SHIFT) == READ_ONCE(b->vm_pgoff);
}

static struct anon_vma *find_mergeable_anon_vma(struct vm_area_struct *vma)
{
	struct vm_area_struct *prev, *near;
	struct anon_vma *anon_vma;

	near = vma->vm_next;
	if (near && anon_vma_mergeable(vma, near) && (anon_vma = READ_ONCE(near->anon_vma)))
		return anon_vma;
	find_vma_prev(vma->vm_mm, READ_ONCE(vma->vm_start), &prev);
	if (prev && anon_vma_mergeable(prev, vma) && (anon_vma = READ_ONCE(prev->anon_vma)))
		return anon_vma;
	return NULL;
}

/**
 * mainline_anon_vma_prepare() - an anon_vma for @vma before its first
 * anonymous page
 * @vma: the vma
 *
 * Mirrors 2.6.8's anon_vma_prepare(): a neighbour's anon_vma or a new one,
 * linked under page_table_lock ("to protect against threads": two faults
 * of one mm may prepare at once under mmap_sem for read) and, when it is a
 * neighbour's and so already in use, under its lock (2.6.8's nesting:
 * page_table_lock outside anon_vma->lock). A new one nobody else can see
 * yet is linked without its lock. The loser of a race frees what it
 * allocated.
 *
 * Context: mmap_sem held; may sleep; takes page_table_lock, anon_vma->lock.
 * Return: 0, or -ENOMEM.
 */
static int mainline_anon_vma_prepare(struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;
	struct anon_vma *anon_vma, *allocated = NULL, *locked = NULL;
	bool lock_inside;

	might_sleep("anon_vma_prepare");
	if (likely(READ_ONCE(vma->anon_vma)))
		return 0;
	anon_vma = find_mergeable_anon_vma(vma);
	if (!anon_vma) {
		anon_vma = anon_vma_alloc();
		if (!anon_vma)
			return -ENOMEM;
		allocated = anon_vma;
	}
	/*
	 * 2.6.9 reversed the nesting: the anon_vma's lock first. It locked
	 * only an adopted one; a new one may be memory a stale
	 * page_lock_anon_vma() reader still holds the lock of (type-stable
	 * cache), so the model locks it too, as 2.6.27 does (deviation (5);
	 * the seeded bug anon-vma-new-unlocked restores 2.6.9).
	 */
	if (ml9() && (!allocated || !injected(INJECT_ANON_VMA_NEW_UNLOCKED))) {
		locked = anon_vma;
		spin_lock(&locked->lock);
	}
	/*
	 * 2.6.8: a neighbour's anon_vma is in use, so it is locked under
	 * page_table_lock; the seeded bug anon-vma-adopt-unlocked takes it
	 * as if it were new (what 2.6.8 fixed).
	 */
	lock_inside = !ml9() && !allocated && !injected(INJECT_ANON_VMA_ADOPT_UNLOCKED);
	spin_lock(&mm->page_table_lock);
	if (likely(!vma->anon_vma)) {
		if (lock_inside)
			spin_lock(&anon_vma->lock);
		smp_store_release(vma->anon_vma, anon_vma);	/* vma_lock_anon_vma() */
		list_add(&vma->anon_vma_node, &anon_vma->head);
		if (lock_inside)
			spin_unlock(&anon_vma->lock);
		rmap_account_vma_extra((long)ANON_VMA_VMA_EXTRA_BYTES);
		allocated = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	if (locked)
		spin_unlock(&locked->lock);
	if (unlikely(allocated))
		anon_vma_free(allocated);
	return 0;
}

/*
 * Mirrors 2.6.8's anon_vma_link(): @vma copied its anon_vma pointer (split,
 * mremap's copy, fork's child): put it on the list.
 * Context: mmap_sem held for write; takes anon_vma->lock.
 */
static void mainline_anon_vma_link(struct vm_area_struct *vma)
{
	struct anon_vma *anon_vma = vma->anon_vma;

	if (!anon_vma)
		return;
	BUG_ON(!list_empty(&vma->anon_vma_node));
	spin_lock(&anon_vma->lock);
	list_add(&vma->anon_vma_node, &anon_vma->head);
	spin_unlock(&anon_vma->lock);
	rmap_account_vma_extra((long)ANON_VMA_VMA_EXTRA_BYTES);
}

/*
 * dup_mmap() of 2.6.8: the child's vma is a copy of the parent's, anon_vma
 * pointer included, and anon_vma_link() puts it on the list before
 * copy_page_range() maps anything into it. A parent without an anon_vma
 * has no anonymous page to share.
 * Context: the parent's mmap_sem held for write.
 */
static int mainline_anon_vma_fork(struct vm_area_struct *child, struct vm_area_struct *parent)
{
	BUG_ON(child->anon_vma);
	child->anon_vma = parent->anon_vma;
	mainline_anon_vma_link(child);
	return 0;
}

/*
 * Mirrors 2.6.8's anon_vma_unlink(): off the list; the last vma frees it
 * ("We must garbage collect the anon_vma if it's empty").
 * Context: mmap_sem held for write or the mm exiting; @vma has no ptes left.
 */
static void mainline_anon_vma_unlink(struct vm_area_struct *vma)
{
	struct anon_vma *anon_vma = vma->anon_vma;
	bool empty;

	if (!anon_vma)
		return;
	spin_lock(&anon_vma->lock);
	list_del_init(&vma->anon_vma_node);
	empty = list_empty(&anon_vma->head);
	spin_unlock(&anon_vma->lock);
	WRITE_ONCE(vma->anon_vma, NULL);
	rmap_account_vma_extra(-(long)ANON_VMA_VMA_EXTRA_BYTES);
	if (empty)
		anon_vma_free(anon_vma);
}

/* ---- page_add_rmap / page_remove_rmap ---- */

/* 2.6.9's PAGE_MAPPING_ANON: the low bit of page->mapping marks an anon_vma. */
#define PAGE_MAPPING_ANON	1UL

/*
 * The anon_vma an anonymous page points to, or NULL: 2.6.8 keeps the
 * pointer, 2.6.9 the pointer with PAGE_MAPPING_ANON set.
 * Context: PG_maplock (mainline8), or a stable page (the audit); 2.6.9's
 * lock-free readers go through page_lock_anon_vma().
 */
static inline struct anon_vma *page_anon_vma(struct page *page)
{
	uintptr_t m = (uintptr_t)rcu_access_pointer(page->as.anon_vma);

	if (ml9()) {
		if (!(m & PAGE_MAPPING_ANON))
			return NULL;
		m -= PAGE_MAPPING_ANON;
	}
	return (struct anon_vma *)m;
}

static inline void assert_map_locked(struct page *page)
{
	BUG_ON(__lockdep_on ? !lock_is_held(page_lock_key(page, PG_maplock))
			    : !test_page_flag(page, PG_maplock));
}

/*
 * Mirrors 2.6.8's page_add_anon_rmap() and page_add_file_rmap(): the first
 * pte of an anonymous page points it to its vma's anon_vma; any later one
 * must find the same (every vma that may map it shares the anon_vma).
 * Context: page_table_lock of @vma's mm held; takes PG_maplock.
 */
static struct pte_chain *mainline_page_add_rmap(struct page *page, struct vm_area_struct *vma,
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
static void mainline_page_remove_rmap(struct page *page, pte_t *ptep)
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

static bool mainline_page_mapped(struct page *page)
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

struct file_walk {
	struct page *page;
	int mapcount;
	int result;
};

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
static int mainline_page_referenced(struct page *page)
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
 * 2.6.7's test in try_to_unmap_one() (2.6.8 and 2.6.9 alike): "don't
 * pull an anonymous page out from under get_user_pages". A swap-cache
 * page whose count exceeds its ptes plus the swap cache's and reclaim's
 * references is held by someone else, a GUP pin among them: unmapped, a
 * user write would bring it back read-only, do_wp_page() would see the
 * pin as a sharer and copy, and the user would never see what the I/O
 * put in the pinned page. Context: page_table_lock held (GUP pins under
 * it), page locked.
 */
static bool gup_pinned(struct page *page, int mapcount)
{
	if (injected(INJECT_GUP_UNMAP))
		return false;	/* seeded bug gup-unmap: 2.6.3's try_to_unmap_one() */
	return PageSwapCache(page) && page_count(page) != mapcount + 2;
}

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

/* 2.6.8's CLUSTER_SIZE: 32 pages (a pmd is larger in the model). */
#define CLUSTER_SIZE	(32 * PAGE_SIZE)
#define CLUSTER_MASK	(~(CLUSTER_SIZE - 1))

/*
 * Mirrors 2.6.8's try_to_unmap_cluster(): in the cluster of @vma at
 * @cursor, unmap every present pte that was not young, whatever page it
 * maps (file pages of this file: the vma is a shared nonlinear one), with
 * a file pte where the page is out of its linear place. Each page's
 * PG_maplock is taken by page_remove_rmap(): the caller dropped its own.
 * Context: i_mmap_lock held; no PG_maplock held; tries page_table_lock.
 * Return: SWAP_FAIL when page_table_lock is busy, else SWAP_AGAIN.
 */
static int try_to_unmap_cluster(unsigned long cursor, int *mapcount,
				struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long address, end;

	if (!spin_trylock(&mm->page_table_lock)) {
		rmap_fallback(FB_TRY_TO_UNMAP_CLUSTER_PTL);
		return SWAP_FAIL;
	}
	address = (vma->vm_start + cursor) & CLUSTER_MASK;
	end = address + CLUSTER_SIZE;
	if (address < vma->vm_start)
		address = vma->vm_start;
	if (end > vma->vm_end)
		end = vma->vm_end;
	for (; address < end; address += PAGE_SIZE) {
		pte_t *ptep = pte_offset(mm->pgd, address);
		struct page *page;
		pte_t pte;

		if (!ptep) {
			address = pgd_addr_end(address, end) - PAGE_SIZE;
			continue;
		}
		pte = ptep_get(ptep);
		if (!pte_present(pte) || pte_pfn(pte) == ZERO_PAGE_PFN)
			continue;
		page = pfn_to_page(pte_pfn(pte));
		BUG_ON(PageAnon(page));
		if (PageReserved(page))
			continue;
		if (ptep_test_and_clear_young(ptep))
			continue;
		/* ptep_clear_flush(): no CPU uses the old pte after the flush. */
		pte = ptep_get_and_clear(ptep);
		flush_tlb_page(vma, address);
		if (page->index != linear_page_index(vma, address))
			set_pte(ptep, pgoff_to_pte(page->index));
		if (pte_dirty(pte))
			SetPageDirty(page);
		mainline_page_remove_rmap(page, ptep);
		put_page(page);
		mm->rss--;
		(*mapcount)--;
	}
	spin_unlock(&mm->page_table_lock);
	return SWAP_AGAIN;
}

struct unmap_walk {
	struct page *page;
	int ret;
};

static int try_to_unmap_file_one(struct vm_area_struct *vma, void *arg)
{
	struct unmap_walk *w = arg;

	w->ret = try_to_unmap_one(w->page, vma);
	return w->ret == SWAP_FAIL || !page_mapcount(w->page);
}

/*
 * Mirrors 2.6.8's try_to_unmap_file(): the tree's vmas covering the page,
 * then, if ptes are left, the nonlinear vmas a cluster at a time from each
 * one's cursor (vm_private_data), with the page's PG_maplock dropped, until
 * as many ptes as the page had are gone or every cursor went round.
 * Context: page locked, PG_maplock held (dropped and retaken around the
 * cluster scan); tries i_mmap_lock.
 */
static int try_to_unmap_file(struct page *page)
{
	struct address_space *mapping = READ_ONCE(page->as.mapping);
	struct unmap_walk w = { page, SWAP_AGAIN };
	unsigned long max_nl_cursor = 0, max_nl_size = 0, cursor;
	struct vm_area_struct *vma;
	int ret, mapcount;

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
	if (vma_prio_tree_foreach(mapping, page->index, page->index, try_to_unmap_file_one, &w)) {
		ret = w.ret;
		goto out;
	}
	ret = w.ret;
	if (list_empty(&mapping->i_mmap_nonlinear))
		goto out;
	list_for_each_entry(vma, &mapping->i_mmap_nonlinear, shared) {
		if (READ_ONCE(vma->vm_flags) & VM_LOCKED)
			continue;
		if (vma->vm_private_data > max_nl_cursor)
			max_nl_cursor = vma->vm_private_data;
		if (vma->vm_end - vma->vm_start > max_nl_size)
			max_nl_size = vma->vm_end - vma->vm_start;
	}
	if (max_nl_size == 0)
		goto out;	/* every nonlinear vma is locked */
	mapcount = page_mapcount(page);
	page_map_unlock(page);
	max_nl_size = (max_nl_size + CLUSTER_SIZE - 1) & CLUSTER_MASK;
	if (max_nl_cursor == 0)
		max_nl_cursor = CLUSTER_SIZE;
	do {
		list_for_each_entry(vma, &mapping->i_mmap_nonlinear, shared) {
			if (READ_ONCE(vma->vm_flags) & VM_LOCKED)
				continue;
			cursor = vma->vm_private_data;
			while (cursor < max_nl_cursor && cursor < vma->vm_end - vma->vm_start) {
				ret = try_to_unmap_cluster(cursor, &mapcount, vma);
				if (ret == SWAP_FAIL)
					break;
				cursor += CLUSTER_SIZE;
				vma->vm_private_data = cursor;
				if (mapcount <= 0)
					goto relock;
			}
			if (ret != SWAP_FAIL)
				vma->vm_private_data = max_nl_cursor;
			ret = SWAP_AGAIN;
		}
		max_nl_cursor += CLUSTER_SIZE;
	} while (max_nl_cursor <= max_nl_size);
	/* Every cursor went round: start them over next time. */
	list_for_each_entry(vma, &mapping->i_mmap_nonlinear, shared)
		vma->vm_private_data = 0;
relock:
	page_map_lock(page);
out:
	spin_unlock(&mapping->i_mmap_lock);
	return ret;
}

/*
 * Mirrors 2.6.8's try_to_unmap(): SWAP_SUCCESS exactly when no pte is left.
 * Context: page locked, PG_maplock held.
 */
static int mainline_try_to_unmap(struct page *page)
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

/* ---- the audit ---- */

static int mainline_rmap_count(struct page *page)
{
	int n;

	if (ml9())
		return page_mapcount(page);	/* atomic */
	page_map_lock(page);
	n = page_mapcount(page);
	page_map_unlock(page);
	return n;
}

/*
 * The anonymous walk: the vmas are read under PG_maplock and the anon_vma
 * lock, dropped before each page_table_lock (which is above both).
 */
static int rmap_walk_anon(struct page *page, rmap_walk_fn fn, void *arg)
{
	struct vm_area_struct **vmas = NULL, *vma;
	struct anon_vma *anon_vma;
	int n, max = 0, found = 0;

	for (;;) {
		if (!ml9())
			page_map_lock(page);
		anon_vma = page_anon_vma(page);
		n = 0;
		if (page_mapcount(page) && anon_vma) {
			spin_lock(&anon_vma->lock);
			list_for_each_entry(vma, &anon_vma->head, anon_vma_node) {
				if (n < max)
					vmas[n] = vma;
				n++;
			}
			spin_unlock(&anon_vma->lock);
		}
		if (!ml9())
			page_map_unlock(page);
		if (n <= max)
			break;
		max = n;
		free(vmas);
		vmas = malloc((size_t)max * sizeof(*vmas));
		if (!vmas)
			rt_die("rmap_walk: no memory for %d vmas", max);
	}
	for (int i = 0; i < n; i++) {
		int r = rmap_walk_linear(vmas[i], page, fn, arg);

		if (r < 0) {
			found = -1;
			break;
		}
		found += r;
	}
	free(vmas);
	return found;
}

struct audit_walk {
	struct page *page;
	rmap_walk_fn fn;
	void *arg;
	int found;
};

static int rmap_walk_file_one(struct vm_area_struct *vma, void *arg)
{
	struct audit_walk *w = arg;
	int r = rmap_walk_linear(vma, w->page, w->fn, w->arg);

	if (r < 0) {
		w->found = -1;
		return 1;
	}
	w->found += r;
	return 0;
}

/* Every pte of a nonlinear vma, for the page's pfn. Context: i_mmap_lock held. */
static int rmap_walk_nonlinear(struct vm_area_struct *vma, struct page *page,
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
		if (fn && fn(page, mm, a, ptep, arg)) {
			found = -1;
			break;
		}
		found++;
	}
	spin_unlock(&mm->page_table_lock);
	return found;
}

/*
 * The file walk: i_mmap_lock held across it (page_table_lock nests under
 * it), the tree's vmas covering the offset, then every nonlinear vma.
 */
static int rmap_walk_file(struct page *page, rmap_walk_fn fn, void *arg)
{
	struct address_space *mapping = READ_ONCE(page->as.mapping);
	struct audit_walk w = { page, fn, arg, 0 };
	struct vm_area_struct *vma;

	spin_lock(&mapping->i_mmap_lock);
	vma_prio_tree_foreach(mapping, page->index, page->index, rmap_walk_file_one, &w);
	if (w.found >= 0) {
		list_for_each_entry(vma, &mapping->i_mmap_nonlinear, shared) {
			int r = rmap_walk_nonlinear(vma, page, fn, arg);

			if (r < 0) {
				w.found = -1;
				break;
			}
			w.found += r;
		}
	}
	spin_unlock(&mapping->i_mmap_lock);
	return w.found;
}

/* The audit's walk: every lock taken, none tried. Context: a quiescent point. */
static int mainline_rmap_walk(struct page *page, rmap_walk_fn fn, void *arg)
{
	if (PageReserved(page) || !page_mapcount(page))
		return 0;
	if (PageAnon(page))
		return rmap_walk_anon(page, fn, arg);
	return rmap_walk_file(page, fn, arg);
}

/* Is @vma on @anon_vma's list? Context: takes anon_vma->lock. */
static bool anon_vma_has_vma(struct anon_vma *anon_vma, struct vm_area_struct *vma)
{
	struct vm_area_struct *v;
	bool on_list = false;

	spin_lock(&anon_vma->lock);
	list_for_each_entry(v, &anon_vma->head, anon_vma_node)
		if (v == vma)
			on_list = true;
	spin_unlock(&anon_vma->lock);
	return on_list;
}

/*
 * The per-vma check: a vma with an anon_vma is on its list; one without is
 * on none. Context: a quiescent point.
 */
static int mainline_audit_vma(struct vm_area_struct *vma)
{
	struct anon_vma *anon_vma = vma->anon_vma;

	if (!anon_vma)
		return list_empty(&vma->anon_vma_node) ? 0 : 1;
	return anon_vma_has_vma(anon_vma, vma) ? 0 : 1;
}

/*
 * The per-pte check, this design's invariants: a mapped page has a mapping
 * (an anonymous one, its anon_vma), and every pte of an anonymous page
 * lies in a vma on that page's anon_vma.
 * Context: a quiescent point; page_table_lock of @vma's mm held.
 */
static int mainline_audit_pte(struct page *page, struct vm_area_struct *vma)
{
	struct anon_vma *anon_vma;

	if (!PageAnon(page))
		return READ_ONCE(page->as.mapping) ? 0 : 1;
	anon_vma = page_anon_vma(page);
	if (!anon_vma)
		return 1;
	return anon_vma_has_vma(anon_vma, vma) ? 0 : 1;
}

/*
 * ==== mainline9: 2.6.9's rmaplock series (HassebJ/linux-2.6.9) ====
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
 * Where the model departs from 2.6.9, beyond (1)-(4) above:
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

static void mainline9_page_remove_rmap(struct page *page, pte_t *ptep);

/* atomic_inc_and_test(&page->_mapcount): true for the first pte. */
static inline bool mapcount_inc_first(struct page *page)
{
	return __atomic_fetch_add(&page->pte.mapcount, 1, __ATOMIC_ACQ_REL) == 0;
}

/* atomic_add_negative(-1, &page->_mapcount): true for the last pte. */
static inline bool mapcount_dec_last(struct page *page)
{
	int old = __atomic_fetch_sub(&page->pte.mapcount, 1, __ATOMIC_ACQ_REL);

	BUG_ON(old <= 0);	/* _mapcount below -1 */
	return old == 1;
}

/*
 * Mirrors 2.6.9's page_add_anon_rmap() and page_add_file_rmap(): no lock
 * of the page; the first pte of an anonymous page publishes its anon_vma.
 * Context: page_table_lock of @vma's mm held.
 */
static struct pte_chain *mainline9_page_add_rmap(struct page *page, struct vm_area_struct *vma,
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
static void mainline9_page_remove_rmap(struct page *page, pte_t *ptep)
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

static bool mainline9_page_mapped(struct page *page)
{
	return __atomic_load_n(&page->pte.mapcount, __ATOMIC_ACQUIRE) > 0;
}

/*
 * Mirrors 2.6.9's page_lock_anon_vma(): page->mapping read once under
 * rcu_read_lock(); an anonymous, still mapped page's anon_vma is locked.
 * The anon_vma may have been freed and reused since the page pointed to
 * it: type-stable memory keeps its lock a lock, and every pte found is
 * checked for this page's pfn (find_pte()).
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
	if (!mainline9_page_mapped(page))
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
static int page_referenced_one9(struct page *page, struct vm_area_struct *vma, int *mapcount)
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

static int page_referenced_anon9(struct page *page)
{
	struct anon_vma *anon_vma = page_lock_anon_vma9(page);
	struct vm_area_struct *vma;
	int referenced = 0, mapcount;

	if (!anon_vma)
		return 0;
	mapcount = page_mapcount(page);
	list_for_each_entry(vma, &anon_vma->head, anon_vma_node) {
		referenced += page_referenced_one9(page, vma, &mapcount);
		if (mapcount <= 0)
			break;
	}
	page_unlock_anon_vma9(anon_vma);
	return referenced;
}

static int page_referenced_file_one9(struct vm_area_struct *vma, void *arg)
{
	struct file_walk *w = arg;

	if ((READ_ONCE(vma->vm_flags) & (VM_LOCKED | VM_SHARED)) == (VM_LOCKED | VM_SHARED)) {
		w->result++;
		return 1;
	}
	w->result += page_referenced_one9(w->page, vma, &w->mapcount);
	return w->mapcount <= 0;
}

/*
 * Context: page locked (the page lock keeps page->as.mapping set and the
 * file alive: truncate_inode_pages() and the last iput() wait for it);
 * takes i_mmap_lock (blocking, 2.6.9). Seeded bug aging-file-unlocked:
 * the aging comes here without the page lock.
 */
static int page_referenced_file9(struct page *page)
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
	vma_prio_tree_foreach(mapping, page->index, page->index, page_referenced_file_one9, &w);
	spin_unlock(&mapping->i_mmap_lock);
	return w.result;
}

/*
 * Mirrors 2.6.9's page_referenced(page, is_locked): a file page needs its
 * page lock (truncate clears page->mapping under it); the aging, which
 * does not hold it, tries it and counts a busy one as a reference.
 */
static int page_referenced9(struct page *page, bool is_locked)
{
	int referenced = 0;

	if (TestClearPageReferenced(page))
		referenced++;
	if (mainline9_page_mapped(page) && READ_ONCE(page->as.mapping)) {
		if (PageAnon(page)) {
			referenced += page_referenced_anon9(page);
		} else if (is_locked) {
			referenced += page_referenced_file9(page);
		} else if (injected(INJECT_AGING_FILE_UNLOCKED)) {
			/* The bug: 2.6.8's walk, without 2.6.8's PG_maplock to pin the file. */
			referenced += page_referenced_file9(page);
		} else if (TestSetPageLocked(page)) {
			referenced++;
		} else {
			if (READ_ONCE(page->as.mapping))
				referenced += page_referenced_file9(page);
			unlock_page(page);
		}
	}
	return referenced;
}

/* shrink_list's page_referenced(page, 1). Context: page locked. */
static int mainline9_page_referenced(struct page *page)
{
	BUG_ON(!PageLocked(page));
	return page_referenced9(page, true);
}

/* refill_inactive_zone's page_referenced(page, 0). Context: no lock of the page. */
static int mainline9_page_referenced_unlocked(struct page *page)
{
	if (!mainline9_page_mapped(page))
		return 0;
	return page_referenced9(page, false);
}

/*
 * Mirrors 2.6.9's try_to_unmap_one(): page_table_lock taken, blocking.
 * Context: page locked; anon_vma->lock or i_mmap_lock held.
 */
static int try_to_unmap_one9(struct page *page, struct vm_area_struct *vma)
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
			mainline9_page_remove_rmap(page, ptep);
		else
			ret = SWAP_FAIL;
	}
	spin_unlock(&mm->page_table_lock);
	return ret;
}

static int try_to_unmap_anon9(struct page *page)
{
	struct anon_vma *anon_vma = page_lock_anon_vma9(page);
	struct vm_area_struct *vma;
	int ret = SWAP_AGAIN;

	if (!anon_vma)
		return ret;
	list_for_each_entry(vma, &anon_vma->head, anon_vma_node) {
		ret = try_to_unmap_one9(page, vma);
		if (ret == SWAP_FAIL || !mainline9_page_mapped(page))
			break;
	}
	page_unlock_anon_vma9(anon_vma);
	return ret;
}

/*
 * Mirrors 2.6.9's try_to_unmap_cluster(): as 2.6.8's, with page_table_lock
 * taken blocking and no map lock anywhere.
 * Context: i_mmap_lock held.
 */
static int try_to_unmap_cluster9(unsigned long cursor, int *mapcount,
				 struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long address, end;

	spin_lock(&mm->page_table_lock);
	address = (vma->vm_start + cursor) & CLUSTER_MASK;
	end = address + CLUSTER_SIZE;
	if (address < vma->vm_start)
		address = vma->vm_start;
	if (end > vma->vm_end)
		end = vma->vm_end;
	for (; address < end; address += PAGE_SIZE) {
		pte_t *ptep = pte_offset(mm->pgd, address);
		struct page *page;
		pte_t pte;

		if (!ptep) {
			address = pgd_addr_end(address, end) - PAGE_SIZE;
			continue;
		}
		pte = ptep_get(ptep);
		if (!pte_present(pte) || pte_pfn(pte) == ZERO_PAGE_PFN)
			continue;
		page = pfn_to_page(pte_pfn(pte));
		BUG_ON(PageAnon(page));
		if (PageReserved(page))
			continue;
		if (ptep_test_and_clear_young(ptep))
			continue;
		pte = ptep_get_and_clear(ptep);
		flush_tlb_page(vma, address);
		if (page->index != linear_page_index(vma, address))
			set_pte(ptep, pgoff_to_pte(page->index));
		if (pte_dirty(pte))
			SetPageDirty(page);
		mainline9_page_remove_rmap(page, ptep);
		put_page(page);
		mm->rss--;
		(*mapcount)--;
	}
	spin_unlock(&mm->page_table_lock);
	return SWAP_AGAIN;
}

static int try_to_unmap_file_one9(struct vm_area_struct *vma, void *arg)
{
	struct unmap_walk *w = arg;

	w->ret = try_to_unmap_one9(w->page, vma);
	return w->ret == SWAP_FAIL || !mainline9_page_mapped(w->page);
}

/* Mirrors 2.6.9's try_to_unmap_file(). Context: page locked; takes i_mmap_lock. */
static int try_to_unmap_file9(struct page *page)
{
	struct address_space *mapping = READ_ONCE(page->as.mapping);
	struct unmap_walk w = { page, SWAP_AGAIN };
	unsigned long max_nl_cursor = 0, max_nl_size = 0, cursor;
	struct vm_area_struct *vma;
	int ret, mapcount;

	spin_lock(&mapping->i_mmap_lock);
	if (vma_prio_tree_foreach(mapping, page->index, page->index, try_to_unmap_file_one9, &w)) {
		ret = w.ret;
		goto out;
	}
	ret = w.ret;
	if (list_empty(&mapping->i_mmap_nonlinear))
		goto out;
	list_for_each_entry(vma, &mapping->i_mmap_nonlinear, shared) {
		if (READ_ONCE(vma->vm_flags) & VM_LOCKED)
			continue;
		if (vma->vm_private_data > max_nl_cursor)
			max_nl_cursor = vma->vm_private_data;
		if (vma->vm_end - vma->vm_start > max_nl_size)
			max_nl_size = vma->vm_end - vma->vm_start;
	}
	if (max_nl_size == 0)
		goto out;
	mapcount = page_mapcount(page);
	max_nl_size = (max_nl_size + CLUSTER_SIZE - 1) & CLUSTER_MASK;
	if (max_nl_cursor == 0)
		max_nl_cursor = CLUSTER_SIZE;
	do {
		list_for_each_entry(vma, &mapping->i_mmap_nonlinear, shared) {
			if (READ_ONCE(vma->vm_flags) & VM_LOCKED)
				continue;
			cursor = vma->vm_private_data;
			while (cursor < max_nl_cursor && cursor < vma->vm_end - vma->vm_start) {
				try_to_unmap_cluster9(cursor, &mapcount, vma);
				cursor += CLUSTER_SIZE;
				vma->vm_private_data = cursor;
				if (mapcount <= 0)
					goto out;
			}
			vma->vm_private_data = max_nl_cursor;
		}
		max_nl_cursor += CLUSTER_SIZE;
	} while (max_nl_cursor <= max_nl_size);
	list_for_each_entry(vma, &mapping->i_mmap_nonlinear, shared)
		vma->vm_private_data = 0;
out:
	spin_unlock(&mapping->i_mmap_lock);
	return ret;
}

/* Mirrors 2.6.9's try_to_unmap(). Context: page locked; no rmap lock. */
static int mainline9_try_to_unmap(struct page *page)
{
	int ret;

	BUG_ON(!PageLocked(page));
	BUG_ON(PageReserved(page));
	if (!mainline9_page_mapped(page))
		return SWAP_SUCCESS;
	if (PageAnon(page))
		ret = try_to_unmap_anon9(page);
	else
		ret = try_to_unmap_file9(page);
	if (!mainline9_page_mapped(page))
		return SWAP_SUCCESS;
	return ret == SWAP_FAIL ? SWAP_FAIL : SWAP_AGAIN;
}

const struct rmap_ops rmap_mainline8_ops = {
	.name = "mainline8",
	.gup_pin_test = true,
	.pte_chain_alloc = NULL,
	.pte_chain_free = NULL,
	.page_add_rmap = mainline_page_add_rmap,
	.page_remove_rmap = mainline_page_remove_rmap,
	.page_referenced = mainline_page_referenced,
	.try_to_unmap = mainline_try_to_unmap,
	/* 2.6.8's refill_inactive_zone() holds page_map_lock across page_referenced(). */
	.page_referenced_unlocked = NULL,
	.page_mapped = mainline_page_mapped,
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

const struct rmap_ops rmap_mainline9_ops = {
	.name = "mainline9",
	.gup_pin_test = true,
	.pte_chain_alloc = NULL,
	.pte_chain_free = NULL,
	.page_add_rmap = mainline9_page_add_rmap,
	.page_remove_rmap = mainline9_page_remove_rmap,
	.page_referenced = mainline9_page_referenced,
	.try_to_unmap = mainline9_try_to_unmap,
	.page_referenced_unlocked = mainline9_page_referenced_unlocked,
	.page_mapped = mainline9_page_mapped,
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
