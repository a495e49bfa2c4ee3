// SPDX-License-Identifier: MIT
/*
 * Full object-based rmap: seed 002 (Andrea Arcangeli's "RFC anon_vma
 * previous (i.e. full objrmap)", March 2004), completed where the RFC
 * stops. No pte_chain anywhere:
 *
 *   file pages   exactly seed 001: page->pte.mapcount counts the ptes,
 *                which are found through the file's i_mmap and
 *                i_mmap_shared lists (find_pte()); pages mapped out of
 *                place by remap_file_pages() are not converted: reclaim
 *                finds them by scanning the page tables of every vma on
 *                i_mmap_nonlinear, as 2.6.7's try_to_unmap_nonlinear()
 *                (objrmap.c, shared with objfile: OBJ_NONLINEAR_SCAN)
 *   anon pages   PG_anon; mapped once in a vma without an anon_vma:
 *                PG_direct and page->as.vma; otherwise page->as.anon_vma,
 *                whose list holds every vma that may map the page, and
 *                the address in each is vm_start + (index - vm_pgoff)
 *
 * page->pte.mapcount and page->as of anonymous pages are serialised by
 * PG_maplock (page_map_lock(), the rmap lock of this design).
 *
 * anon_vma life cycle. The RFC allocates anon_vmas only at fork: a vma
 * that may hold anonymous pages gets one then (if it has none), and the
 * child's copy is linked on it; the parent's PG_direct pages become
 * anon_vma pages as copy_page_range() gives them their second pte (in
 * page_add_rmap()). The anon_vma is freed when its last vma is unlinked
 * (remove_vm_struct(), after the vma's ptes are gone): the RFC's
 * invariant is that a *mapped* page points only to an anon_vma that still
 * has a vma. An unmapped page in the swap cache may keep a stale pointer;
 * nothing dereferences it (page_mapped() is false), and page_add_rmap()
 * re-initialises page->as when the page is mapped again.
 *
 * Reclaim finds an anon_vma through the page under rcu_read_lock(), locks
 * it, and re-checks that the page is still mapped through it
 * (page_lock_anon_vma()). shrink_list holds PG_maplock meanwhile, which
 * keeps a mapped page's anon_vma alive (seed 002: "The anon_vma can't go
 * away under us if we hold the PG_maplock"); the aging of the active
 * list does not: it drops PG_maplock before it locks the anon_vma, as
 * 2.6.9's refill_inactive_zone() called page_referenced() with no lock
 * of the page (anonvma_page_referenced_unlocked()). That walker depends
 * on the grace period: the cache is SLAB_DESTROY_BY_RCU, so a freed
 * anon_vma stays an anon_vma, with a valid lock, until a grace period
 * after it goes back to libc, and it may be a new anon_vma by then.
 * Every pte found is re-checked for this page's pfn as well.
 *
 * Deviations from the RFC (docs/model.md lists them too):
 *
 * (1) The RFC walks the anon_vma list in try_to_unmap_anon() without
 *     anon_vma->lock (it takes only PG_maplock, which does not stop
 *     fork, split or exit from changing the list). Here every walk holds
 *     anon_vma->lock. The seeded bug anon-vma-walk-unlocked re-creates
 *     the RFC's version.
 * (2) Split and move (completing the RFC, which leaves PG_direct pages
 *     naming a vma that may no longer cover them, or that a later
 *     munmap frees): before split_vma() or move_vma() touches a vma that
 *     may hold anonymous pages, anon_vma_prepare_split() gives it an
 *     anon_vma and re-points its PG_direct pages there; both halves, or
 *     the new vma, are linked through anon_vma_link(). A private file
 *     vma that loses VM_WRITE with mprotect is given an anon_vma too
 *     (anon_vma_prepare()), so that fork, which links only vmas that may
 *     hold anonymous pages, still sees its earlier copy-on-write pages.
 * (3) Bounds (completing the RFC): a walker under anon_vma->lock reads
 *     vm_start/vm_end/vm_pgoff of every vma on the list, so each change
 *     of the bounds of a vma with an anon_vma holds that lock
 *     (expand_stack, vma_adjust, split_vma: vma_lock_anon_vma()).
 *     split_vma links the new vma before it shrinks the old one, so a
 *     walker never finds the moved range covered by neither.
 * (7) Locks of the vma code (rmap_ops.vma_locks; docs/model.md "Locks by
 *     design"). As seed 001, under which the RFC sits, vma_link() and
 *     vma_adjust() take no page_table_lock (no reader of this design
 *     walks the vma list under it). expand_stack() does take it,
 *     besides the anon_vma lock 2.6.8 took (and no anon_vma_prepare()):
 *     a fault computes an anonymous page's index from vm_start and
 *     vm_pgoff under page_table_lock, and with the anon_vma lock alone
 *     it may read one moved and the other not (a page no walk finds).
 *     The seeded bug expand-stack-no-ptl restores 2.6.8's version.
 * (4) A page first mapped in a vma that already has an anon_vma points
 *     to that anon_vma, not PG_direct to the vma (the RFC keeps new pages
 *     direct and could only make them shared at the next fork).
 * (5) The RFC does not compile as posted: page_add_rmap() is "void *" and
 *     returns nothing; anon_vma_page_unlink() is called with a vma it
 *     does not take; struct vm_struct is named for vm_area_struct;
 *     try_to_unmap_inode_one() and try_to_unmap_inode() are called but
 *     never shown; struct page gains a second mapcount outside the pte
 *     union; try_to_unmap_anon() takes page_map_lock() although its
 *     caller holds it; anon_vma_t is never allocated, linked or freed
 *     (no anon_vma_prepare/fork/link/unlink, no cache). All of that is
 *     written here from the RFC's description; the mapcount is the pte
 *     union's (seed 001's) field.
 * (6) try_to_unmap() remembers a missed trylock: the seed's loop lets a
 *     later vma's answer overwrite an earlier SWAP_AGAIN. The result is
 *     SWAP_SUCCESS exactly when no pte is left, SWAP_FAIL when a vma
 *     refused, else SWAP_AGAIN.
 *
 * Lock ordering in this rmap (the tree at the top of core/lockdep.c):
 *
 * i_sem (truncate)
 *   mmap_sem (fork, split, mremap, exit: anon_vma->lock under it)
 *     PG_locked (lock_page: reclaim)
 *       i_shared_sem (file pages: rmap_walk; reclaim only tries it)
 *         page_table_lock (page_add_rmap callers; expand_stack, split_vma)
 *           PG_chainlock (not used by this design)
 *             anon_vma->lock
 *               swap_lock (in swap_duplicate, from unmap_one_pte)
 *                 tree_lock
 *             lru_lock
 *           PG_maplock (page_map_lock: mapcount, page->as, PG_direct)
 *             anon_vma->lock (the vma list; bounds of listed vmas)
 *             lru_lock
 *       i_mmap_lock (mainline designs only)
 *         page_table_lock
 *
 * Reclaim holds PG_locked and PG_maplock (the aging of the active list
 * holds neither across the walk), takes anon_vma->lock, and only *tries* i_shared_sem
 * and each vma's page_table_lock; a failed try is a
 * fallback counted by site (FB_*_ANON_PTL for anonymous pages,
 * FB_*_OBJ_* for file pages, nonlinear scans included). The audit's
 * rmap_walk keeps the order by dropping PG_maplock and anon_vma->lock
 * before it takes each page_table_lock.
 *
 * Accounting: anon_vma objects (rmap_account_anon_vma(), from allocation
 * to free); the page fields cost nothing (as and mapcount are unions);
 * each vma carries an anon_vma pointer and a list node (24 bytes),
 * accounted in vma_extra while the vma is on an anon_vma's list.
 */
#include "cover.h"
#include "rmap-internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "anon_vma.h"
#include "die.h"
#include "fs.h"
#include "inject.h"
#include "lockdep.h"
#include "perturb.h"
#include "rcu.h"
#include "semaphore.h"
#include "slab.h"
#include "spinlock.h"

/* ---- the anon_vma cache ---- */

static struct kmem_cache *anon_vma_cachep;	/* set once (anon_vma_once) */
static pthread_once_t anon_vma_once = PTHREAD_ONCE_INIT;

/*
 * The constructor runs once per object, when its memory comes from libc:
 * a freed anon_vma keeps its lock and its (empty) list for the next user,
 * and a walker holding a stale pointer may still take the lock.
 */
static void anon_vma_ctor(void *obj)
{
	struct anon_vma *anon_vma = obj;

	spin_lock_init(&anon_vma->lock, LOCK_CLASS_ANON_VMA_LOCK);
	INIT_LIST_HEAD(&anon_vma->head);
}

static void anon_vma_cache_init(void)
{
	anon_vma_cachep = kmem_cache_create("anon_vma", sizeof(struct anon_vma),
					    SLAB_DESTROY_BY_RCU, anon_vma_ctor);
}

/* Context: may sleep (GFP_KERNEL). Return: an anon_vma with an empty list, or NULL. */
static struct anon_vma *anon_vma_alloc(void)
{
	struct anon_vma *anon_vma;

	if (injected(INJECT_ANON_VMA_FREE_NOW)) {
		/*
		 * Seeded bug: anon_vmas from a plain allocator, constructed
		 * at each allocation and freed straight back to libc by
		 * anon_vma_free(): no SLAB_DESTROY_BY_RCU, no grace period
		 * for a walker that found one through page->as.anon_vma.
		 */
		might_sleep("anon_vma_alloc");
		anon_vma = malloc(sizeof(*anon_vma));
		if (!anon_vma)
			return NULL;
		anon_vma_ctor(anon_vma);
	} else {
		RT_PTHREAD(pthread_once(&anon_vma_once, anon_vma_cache_init));
		anon_vma = kmem_cache_alloc(anon_vma_cachep, GFP_KERNEL);
		if (!anon_vma)
			return NULL;
	}
	/* Freed only with an empty list; the ctor or the last user left it so. */
	BUG_ON(!list_empty(&anon_vma->head));
	rmap_account_anon_vma((long)sizeof(*anon_vma));
	return anon_vma;
}

/* Context: the list is empty and no vma points here; any lock may be held. */
static void anon_vma_free(struct anon_vma *anon_vma)
{
	rmap_account_anon_vma(-(long)sizeof(*anon_vma));
	if (injected(INJECT_ANON_VMA_FREE_NOW)) {
		cover_forget(anon_vma);	/* libc may hand the address out again */
		free(anon_vma);		/* seeded bug: see anon_vma_alloc() */
	} else {
		kmem_cache_free(anon_vma_cachep, anon_vma);
	}
}

/*
 * May @vma hold anonymous pages? Anonymous vmas, private writable file
 * vmas (copy-on-write), and any vma that already has an anon_vma (a
 * private file vma that lost VM_WRITE after COW got one from
 * anon_vma_prepare(), deviation (2)). Shared vmas never do: this design
 * converts no page.
 * Context: mmap_sem held.
 */
static bool vma_may_hold_anon(const struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_SHARED)
		return false;
	return !vma->vm_file || (vma->vm_flags & VM_WRITE) || vma->anon_vma;
}

/* Put @vma on @anon_vma's list. Context: mmap_sem held for write; takes anon_vma->lock. */
static void __anon_vma_link(struct anon_vma *anon_vma, struct vm_area_struct *vma)
{
	spin_lock(&anon_vma->lock);
	/*
	 * At the tail: a walker meets the vma a pte is moved or copied from
	 * before the one it goes to.
	 */
	list_add_tail(&vma->anon_vma_node, &anon_vma->head);
	smp_store_release(vma->anon_vma, anon_vma);	/* vma_lock_anon_vma() */
	spin_unlock(&anon_vma->lock);
	rmap_account_vma_extra((long)ANON_VMA_VMA_EXTRA_BYTES);
}

/**
 * anonvma_anon_vma_prepare() - give @vma an anon_vma of its own if it has none
 * @vma: the vma
 *
 * The later kernels' anon_vma_prepare(); here called where seed 002 needs
 * a vma to have an anon_vma before fork would give it one (mprotect
 * removing VM_WRITE from a private file vma, and anon_vma_prepare_split()),
 * and, with the seeded bug expand-stack-no-ptl, from expand_stack() under
 * mmap_sem for read, as 2.6.8 did: two threads may then prepare at once,
 * so the pointer is set under page_table_lock and re-checked there (2.6.8's
 * "page_table_lock to protect against threads"; seed 002: vma->anon_vma is
 * "Serialized by the vma->vm_mm->page_table_lock").
 *
 * Context: mmap_sem held; may sleep; takes page_table_lock, anon_vma->lock.
 * Return: 0, or -ENOMEM.
 */
static int anonvma_anon_vma_prepare(struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;
	struct anon_vma *anon_vma;
	bool lost;

	if (READ_ONCE(vma->anon_vma))
		return 0;
	anon_vma = anon_vma_alloc();
	if (!anon_vma)
		return -ENOMEM;
	spin_lock(&mm->page_table_lock);
	lost = READ_ONCE(vma->anon_vma) != NULL;
	if (!lost)
		__anon_vma_link(anon_vma, vma);
	spin_unlock(&mm->page_table_lock);
	if (lost)
		anon_vma_free(anon_vma);
	return 0;
}

/*
 * Mirrors the fork side of seed 002 ("anon_vma objects are only created
 * via fork()"): a parent vma that may hold anonymous pages gets an
 * anon_vma if it has none, and the child's copy is linked on it, before
 * copy_page_range() maps anything into the child.
 * Context: the parent's mmap_sem held for write; may sleep.
 */
static int anonvma_anon_vma_fork(struct vm_area_struct *child, struct vm_area_struct *parent)
{
	int err;

	BUG_ON(child->anon_vma);
	if (!vma_may_hold_anon(parent))
		return 0;
	err = anonvma_anon_vma_prepare(parent);
	if (err)
		return err;
	__anon_vma_link(parent->anon_vma, child);
	return 0;
}

/*
 * @vma copied its anon_vma pointer from the vma it was split from, or
 * that mremap moves it from: put it on the list.
 * Context: mmap_sem held for write.
 */
static void anonvma_anon_vma_link(struct vm_area_struct *vma)
{
	struct anon_vma *anon_vma = vma->anon_vma;

	BUG_ON(!anon_vma);
	BUG_ON(!list_empty(&vma->anon_vma_node));
	__anon_vma_link(anon_vma, vma);
}

/*
 * Take @vma off its anon_vma's list; the last vma frees the anon_vma
 * (seed 002's garbage collection: no vma, so no mapped page, points to
 * it). Context: mmap_sem held for write or the mm exiting; @vma has no
 * ptes left.
 */
static void anonvma_anon_vma_unlink(struct vm_area_struct *vma)
{
	struct anon_vma *anon_vma = vma->anon_vma;
	bool empty;

	if (!anon_vma)
		return;
	spin_lock(&anon_vma->lock);
	list_del_init(&vma->anon_vma_node);
	empty = list_empty(&anon_vma->head);
	WRITE_ONCE(vma->anon_vma, NULL);
	spin_unlock(&anon_vma->lock);
	rmap_account_vma_extra(-(long)ANON_VMA_VMA_EXTRA_BYTES);
	if (empty)
		anon_vma_free(anon_vma);
}

/* ---- page state ---- */

static inline void assert_map_locked(struct page *page)
{
	BUG_ON(__lockdep_on ? !lock_is_held(page_lock_key(page, PG_maplock))
			    : !test_page_flag(page, PG_maplock));
}

/*
 * One pte of @page is gone. An anonymous page mapped nowhere is no
 * longer PG_direct (the RFC's anon_vma_page_unlink()); its as.* may stay
 * stale until page_add_rmap() maps it again.
 * Context: PG_maplock held.
 */
static void page_dec_mapcount(struct page *page)
{
	int n = page_mapcount(page);

	assert_map_locked(page);
	BUG_ON(n <= 0);		/* mapcount underflow */
	set_page_mapcount(page, n - 1);
	if (n == 1 && PageAnon(page))
		ClearPageDirect(page);
}

/* ---- anon_vma lookup from a page ---- */

bool anon_vma_lock_recheck(struct anon_vma *anon_vma, struct page *page)
{
	BUG_ON(!rcu_read_lock_held());
	if (!anon_vma)
		return false;
	/* Type-stable: even a freed or reused anon_vma has a valid lock. */
	spin_lock(&anon_vma->lock);
	if (page_mapcount(page) > 0 && PageAnon(page) && !PageDirect(page) &&
	    rcu_access_pointer(page->as.anon_vma) == anon_vma)
		return true;
	spin_unlock(&anon_vma->lock);
	return false;
}

struct anon_vma *page_lock_anon_vma(struct page *page)
{
	struct anon_vma *anon_vma;

	rcu_read_lock();
	if (!PageAnon(page) || PageDirect(page) || page_mapcount(page) == 0)
		goto out_unlock;
	/* Acquire pairs with the rcu_assign_pointer() in page_add_rmap(). */
	anon_vma = rcu_dereference(page->as.anon_vma);
	if (anon_vma_lock_recheck(anon_vma, page))
		return anon_vma;
out_unlock:
	rcu_read_unlock();
	return NULL;
}

void page_unlock_anon_vma(struct anon_vma *anon_vma)
{
	spin_unlock(&anon_vma->lock);
	rcu_read_unlock();
}

int anon_vma_nr_vmas(struct anon_vma *anon_vma)
{
	struct vm_area_struct *vma;
	int n = 0;

	spin_lock(&anon_vma->lock);
	list_for_each_entry(vma, &anon_vma->head, anon_vma_node)
		n++;
	spin_unlock(&anon_vma->lock);
	return n;
}

/* ---- page_add_rmap / page_remove_rmap ---- */

/*
 * Mirrors seed 002's page_add_rmap() and anon_vma_page_link(), with the
 * conversion the RFC describes for fork: a PG_direct page that gains a
 * second pte moves to the anon_vma of the vma it is mapped into (the
 * child's, which is its parent's). A file page is only counted (seed 001).
 * Context: page_table_lock of @vma's mm held; takes PG_maplock.
 */
static struct pte_chain *anonvma_page_add_rmap(struct page *page, struct vm_area_struct *vma,
					       unsigned long address, pte_t *ptep, bool anon,
					       struct pte_chain *chain)
{
	int n;

	/* The zero page is never counted. */
	if (PageReserved(page))
		return chain;
	assert_spin_locked(&vma->vm_mm->page_table_lock);
	BUG_ON(chain);		/* pte_chain_alloc is NULL: nobody allocates */

	page_map_lock(page);
	n = page_mapcount(page);
	if (anon && !PageAnon(page)) {
		/* The seed's SetPageAnon() on every anonymous path. */
		BUG_ON(n != 0);
		SetPageAnon(page);
	}
	if (PageAnon(page)) {
		struct anon_vma *anon_vma = READ_ONCE(vma->anon_vma);

		BUG_ON(PageSwapCache(page) && !anon);
		if (n == 0) {
			/* First pte: (re)initialise page->as (deviation (4)). */
			if (anon_vma) {
				ClearPageDirect(page);
				rcu_assign_pointer(page->as.anon_vma, anon_vma);
			} else {
				WRITE_ONCE(page->as.vma, vma);
				SetPageDirect(page);
			}
		} else if (PageDirect(page)) {
			struct vm_area_struct *first = READ_ONCE(page->as.vma);

			/*
			 * A second pte (fork's copy_page_range()): the vma it
			 * goes into was linked on the first vma's anon_vma
			 * before anything was copied.
			 */
			BUG_ON(!anon_vma);
			BUG_ON(READ_ONCE(first->anon_vma) != anon_vma);
			rcu_assign_pointer(page->as.anon_vma, anon_vma);
			ClearPageDirect(page);
		} else {
			/* Every vma that may map the page is on its anon_vma. */
			BUG_ON(rcu_access_pointer(page->as.anon_vma) != anon_vma);
		}
	} else {
		/* Seed 001: a file page has a mapping and is never swap cache. */
		BUG_ON(!READ_ONCE(page->as.mapping));
		BUG_ON(PageSwapCache(page));
	}
	if (injected(INJECT_MAPCOUNT_UNLOCKED)) {
		/*
		 * Seeded bug: the new count is stored after PG_maplock is
		 * dropped (seed 002: "It's serialized by PG_maplock"), a
		 * plain store racing every other update of the page's
		 * mapcount: one of two concurrent updates is lost.
		 */
		page_map_unlock(page);
		page->pte.mapcount = n + 1;
		return chain;
	}
	set_page_mapcount(page, n + 1);
	page_map_unlock(page);
	return chain;
}

/*
 * Mirrors seed 002's page_remove_rmap() (with anon_vma_page_unlink()):
 * uncount the pte; the RFC's silent "!page_mapped()" exit is a BUG here.
 * Context: page_table_lock held; takes PG_maplock.
 */
static void anonvma_page_remove_rmap(struct page *page, pte_t *ptep)
{
	if (PageReserved(page))
		return;
	assert_spin_locked(&((struct mm_struct *)ptep_to_owner(ptep))->page_table_lock);
	page_map_lock(page);
	if (injected(INJECT_MAPCOUNT_UNLOCKED)) {
		/* Seeded bug: the store after the unlock, as in page_add_rmap(). */
		int n = page_mapcount(page);

		BUG_ON(n <= 0);		/* mapcount underflow */
		if (n == 1 && PageAnon(page))
			ClearPageDirect(page);
		page_map_unlock(page);
		page->pte.mapcount = n - 1;
		return;
	}
	page_dec_mapcount(page);
	page_map_unlock(page);
}

static bool anonvma_page_mapped(struct page *page)
{
	return page_mapcount(page) > 0;
}

/* ---- reclaim: anonymous pages ---- */

/*
 * Seeded bug anon-vma-walk-unlocked: seed 002's try_to_unmap_anon() as
 * posted, "anon_vma = page->as.anon_vma;" and the list walked under
 * PG_maplock alone (deviation (1)). PG_maplock keeps the anon_vma, not
 * its list: fork links vmas onto it, split and exit take them off and
 * free them, while the walker follows the links.
 * Context: PG_maplock held; the page is mapped and not PG_direct.
 */
static struct anon_vma *anon_vma_walk_unlocked(struct page *page)
{
	assert_map_locked(page);
	return rcu_access_pointer(page->as.anon_vma);
}

/*
 * page_referenced_anon_one(): test and clear the young bit of @vma's pte
 * for @page; a busy page_table_lock counts as referenced.
 * Context: PG_maplock held (and the anon_vma lock, for anon_vma pages).
 */
static int page_referenced_anon_one(struct vm_area_struct *vma, struct page *page)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long address;
	int referenced = 0;
	pte_t *ptep;

	if (!vma_address(vma, page, &address))
		return 0;
	if (!spin_trylock(&mm->page_table_lock)) {
		rmap_fallback(FB_PAGE_REFERENCED_ANON_PTL);
		return 1;
	}
	ptep = find_pte(vma, page, &address);
	if (ptep && ptep_test_and_clear_young(ptep))
		referenced++;
	spin_unlock(&mm->page_table_lock);
	return referenced;
}

/*
 * The vmas of @anon_vma, until @mapcount ptes were seen young.
 * Context: anon_vma->lock held (but with anon-vma-walk-unlocked).
 */
static int page_referenced_anon_vma(struct anon_vma *anon_vma, struct page *page, int mapcount)
{
	struct vm_area_struct *vma;
	int referenced = 0;

	list_for_each_entry(vma, &anon_vma->head, anon_vma_node) {
		referenced += page_referenced_anon_one(vma, page);
		/* Every pte seen (a miss only adds): no need to go on. */
		if (referenced >= mapcount)
			break;
	}
	return referenced;
}

/*
 * The anonymous half of page_referenced(): the PG_direct vma, or every
 * vma of the anon_vma, under its lock (deviation (1)).
 * Context: page locked, PG_maplock held.
 */
static int page_referenced_anon(struct page *page)
{
	struct anon_vma *anon_vma;
	int referenced, mapcount = page_mapcount(page);

	if (PageDirect(page))
		return page_referenced_anon_one(READ_ONCE(page->as.vma), page);

	if (injected(INJECT_ANON_VMA_WALK_UNLOCKED))
		anon_vma = anon_vma_walk_unlocked(page);
	else
		anon_vma = page_lock_anon_vma(page);
	if (!anon_vma)
		return 0;
	referenced = page_referenced_anon_vma(anon_vma, page, mapcount);
	if (!injected(INJECT_ANON_VMA_WALK_UNLOCKED))
		page_unlock_anon_vma(anon_vma);
	return referenced;
}

/*
 * try_to_unmap_anon_one() (the RFC's try_to_unmap_inode_one() for
 * anonymous pages): unmap @vma's pte for @page, if it has one, and
 * uncount it. Not mapped here: SWAP_SUCCESS (nothing to do).
 * Context: page locked, PG_maplock held (and the anon_vma lock).
 */
static int try_to_unmap_anon_one(struct vm_area_struct *vma, struct page *page)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long address;
	int ret = SWAP_SUCCESS;
	pte_t *ptep;

	if (!vma_address(vma, page, &address))
		return SWAP_SUCCESS;
	if (!spin_trylock(&mm->page_table_lock)) {
		rmap_fallback(FB_TRY_TO_UNMAP_ANON_PTL);
		return SWAP_AGAIN;
	}
	ptep = find_pte(vma, page, &address);
	if (ptep) {
		ret = unmap_one_pte(page, mm, vma, address, ptep);
		if (ret == SWAP_SUCCESS)
			page_dec_mapcount(page);
	}
	spin_unlock(&mm->page_table_lock);
	return ret;
}

/*
 * Mirrors seed 002's try_to_unmap_anon(), with the anon_vma lock taken
 * (deviation (1)) and a missed trylock remembered (deviation (6)). The
 * caller holds PG_maplock already (the RFC takes it again here).
 * Context: page locked, PG_maplock held.
 */
static int try_to_unmap_anon(struct page *page)
{
	struct anon_vma *anon_vma;
	struct vm_area_struct *vma;
	int ret = SWAP_SUCCESS;

	if (PageDirect(page))
		return try_to_unmap_anon_one(READ_ONCE(page->as.vma), page);

	if (injected(INJECT_ANON_VMA_WALK_UNLOCKED))
		anon_vma = anon_vma_walk_unlocked(page);
	else
		anon_vma = page_lock_anon_vma(page);
	if (!anon_vma)
		return SWAP_AGAIN;
	list_for_each_entry(vma, &anon_vma->head, anon_vma_node) {
		switch (try_to_unmap_anon_one(vma, page)) {
		case SWAP_FAIL:
			ret = SWAP_FAIL;
			goto out_unlock;
		case SWAP_AGAIN:
			ret = SWAP_AGAIN;
			break;
		}
		if (!page_mapcount(page))
			break;
	}
out_unlock:
	if (!injected(INJECT_ANON_VMA_WALK_UNLOCKED))
		page_unlock_anon_vma(anon_vma);
	return ret;
}

/* ---- the reclaim ops ---- */

/*
 * page_referenced() of 2.6.3 with seeds 001/002: PG_referenced, then the
 * young bits the design can find.
 * Context: PG_maplock held (shrink_list holds the page lock too).
 */
static int anonvma_page_referenced(struct page *page)
{
	int referenced = 0;

	assert_map_locked(page);
	if (TestClearPageReferenced(page))
		referenced++;
	if (!page_mapcount(page))
		return referenced;
	if (PageAnon(page))
		return referenced + page_referenced_anon(page);
	return referenced + page_referenced_obj(page, OBJ_NONLINEAR_SCAN);
}

/**
 * anonvma_page_referenced_unlocked() - page_referenced() for the aging of
 * the active list, with PG_maplock dropped before the anon_vma walk
 * @page: a page isolated from the active list
 *
 * Mirrors 2.6.9's page_referenced(page, 0) from refill_inactive_zone()
 * and its page_lock_anon_vma(): the anon_vma is locked with no lock of
 * the page held, under rcu_read_lock() alone. Here PG_maplock is taken
 * only to read page->as, which is PG_direct's vma or the anon_vma (2.6.9
 * had no PG_direct); once it is dropped, the last vma may leave the
 * anon_vma and free it before its lock is taken. The SLAB_DESTROY_BY_RCU
 * cache keeps the memory an anon_vma with a valid lock until the grace
 * period, and anon_vma_lock_recheck() then finds whether the page still
 * points to it (the seeded bug anon-vma-free-now frees it to libc at
 * once: this is the walker that then touches freed memory). A PG_direct
 * or file page is answered under PG_maplock, as page_referenced().
 *
 * Context: no lock of the page held (2.6.9 took no page lock for an
 * anonymous page here, nor 2.6.8 and the RFC, which aged under the rmap
 * lock alone). Takes PG_maplock, then rcu_read_lock() and anon_vma->lock,
 * which it trylocks page_table_lock under, as page_referenced_anon_one()
 * does.
 * Return: 0 when @page is not mapped, else the young ptes seen (a busy
 * page_table_lock counts as one) plus PG_referenced.
 */
static int anonvma_page_referenced_unlocked(struct page *page)
{
	struct anon_vma *anon_vma;
	int referenced, mapcount;

	page_map_lock(page);
	mapcount = page_mapcount(page);
	if (!mapcount) {
		page_map_unlock(page);
		return 0;
	}
	/* anon-vma-walk-unlocked takes no anon_vma->lock: PG_maplock stays. */
	if (!PageAnon(page) || PageDirect(page) || injected(INJECT_ANON_VMA_WALK_UNLOCKED)) {
		referenced = anonvma_page_referenced(page);
		page_map_unlock(page);
		return referenced;
	}
	referenced = TestClearPageReferenced(page) ? 1 : 0;
	rcu_read_lock();
	/* Mapped and not PG_direct: an anon_vma that still has a vma. */
	anon_vma = rcu_dereference(page->as.anon_vma);
	page_map_unlock(page);
	/* Only RCU keeps the memory an anon_vma from here to the lock. */
	yield_point_on("page_lock_anon_vma:unlocked", anon_vma, COVER_ANON_VMA);
	if (anon_vma_lock_recheck(anon_vma, page)) {
		referenced += page_referenced_anon_vma(anon_vma, page, mapcount);
		spin_unlock(&anon_vma->lock);
	}
	rcu_read_unlock();
	return referenced;
}

/*
 * Mirrors seed 002's try_to_unmap(): SWAP_SUCCESS exactly when no pte is
 * left; a walk that finished without a miss but left a pte (none should)
 * answers SWAP_AGAIN, and the audit's must-find-all check reports it.
 * Context: page locked, PG_maplock held.
 */
static int anonvma_try_to_unmap(struct page *page)
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
		ret = try_to_unmap_obj(page, OBJ_NONLINEAR_SCAN);
	if (!page_mapcount(page))
		return SWAP_SUCCESS;
	return ret == SWAP_FAIL ? SWAP_FAIL : SWAP_AGAIN;
}

/* ---- split and move (deviation (2)) ---- */

/*
 * Re-point every PG_direct page of @vma to its anon_vma: a walk of its
 * ptes under page_table_lock, and each page's PG_maplock.
 * Context: mmap_sem held for write (no fault adds a direct page meanwhile).
 */
static void anon_vma_convert_direct(struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;
	struct anon_vma *anon_vma = vma->anon_vma;

	BUG_ON(!anon_vma);
	spin_lock(&mm->page_table_lock);
	for (unsigned long a = vma->vm_start; a < vma->vm_end; a += PAGE_SIZE) {
		pte_t *ptep = pte_offset(mm->pgd, a);
		struct page *page;
		pte_t pte;

		if (!ptep) {
			a = pgd_addr_end(a, vma->vm_end) - PAGE_SIZE;
			continue;
		}
		pte = ptep_get(ptep);
		if (!pte_present(pte) || pte_pfn(pte) == ZERO_PAGE_PFN)
			continue;
		page = pfn_to_page(pte_pfn(pte));
		page_map_lock(page);
		if (PageAnon(page) && PageDirect(page)) {
			/* Direct means mapped once: here. */
			BUG_ON(READ_ONCE(page->as.vma) != vma);
			rcu_assign_pointer(page->as.anon_vma, anon_vma);
			ClearPageDirect(page);
		}
		page_map_unlock(page);
	}
	spin_unlock(&mm->page_table_lock);
}

/*
 * Before split_vma() or move_vma(): an anon_vma for @vma, and none of its
 * pages PG_direct (deviation (2)).
 * Context: mmap_sem held for write; may sleep.
 */
static int anonvma_anon_vma_prepare_split(struct vm_area_struct *vma)
{
	int err;

	if (!vma_may_hold_anon(vma))
		return 0;
	err = anonvma_anon_vma_prepare(vma);
	if (err)
		return err;
	/*
	 * Even a vma that had an anon_vma may hold PG_direct pages: those
	 * first mapped before it got one.
	 */
	anon_vma_convert_direct(vma);
	return 0;
}

/* ---- the audit ---- */

static int anonvma_rmap_count(struct page *page)
{
	int n;

	page_map_lock(page);
	n = page_mapcount(page);
	page_map_unlock(page);
	return n;
}

/*
 * The anonymous walk: the vmas are read under PG_maplock and the anon_vma
 * lock, which are then dropped (page_table_lock is above both); the audit
 * runs at a quiescent point, so the vmas stay.
 */
static int rmap_walk_anon(struct page *page, rmap_walk_fn fn, void *arg)
{
	struct vm_area_struct **vmas = NULL;
	struct anon_vma *anon_vma;
	struct vm_area_struct *vma;
	int n = 0, max = 0, found = 0;

	for (;;) {
		page_map_lock(page);
		if (PageDirect(page)) {
			struct vm_area_struct *one = READ_ONCE(page->as.vma);

			page_map_unlock(page);
			free(vmas);
			return rmap_walk_linear(one, page, fn, arg);
		}
		anon_vma = rcu_access_pointer(page->as.anon_vma);
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

/*
 * The audit's walk: every lock taken, none tried.
 * Context: a quiescent point; the caller holds no rmap lock.
 */
static int anonvma_rmap_walk(struct page *page, rmap_walk_fn fn, void *arg)
{
	if (PageReserved(page) || !page_mapcount(page))
		return 0;
	if (PageAnon(page))
		return rmap_walk_anon(page, fn, arg);
	return rmap_walk_obj(page, fn, arg, OBJ_NONLINEAR_SCAN);
}

/*
 * The per-vma check: a vma with an anon_vma is on its list, and that
 * list is not empty. Context: a quiescent point.
 */
static int anonvma_audit_vma(struct vm_area_struct *vma)
{
	struct anon_vma *anon_vma = vma->anon_vma;
	struct vm_area_struct *v;
	bool on_list = false;

	if (!anon_vma)
		return list_empty(&vma->anon_vma_node) ? 0 : 1;
	spin_lock(&anon_vma->lock);
	list_for_each_entry(v, &anon_vma->head, anon_vma_node)
		if (v == vma)
			on_list = true;
	spin_unlock(&anon_vma->lock);
	return on_list ? 0 : 1;
}

const struct rmap_ops rmap_anonvma_ops = {
	.name = "anonvma",
	.pte_chain_alloc = NULL,
	.pte_chain_free = NULL,
	.page_add_rmap = anonvma_page_add_rmap,
	.page_remove_rmap = anonvma_page_remove_rmap,
	.page_referenced = anonvma_page_referenced,
	.try_to_unmap = anonvma_try_to_unmap,
	.page_referenced_unlocked = anonvma_page_referenced_unlocked,
	.page_mapped = anonvma_page_mapped,
	.anon_vma_prepare = anonvma_anon_vma_prepare,
	.anon_vma_fork = anonvma_anon_vma_fork,
	.anon_vma_unlink = anonvma_anon_vma_unlink,
	.anon_vma_link = anonvma_anon_vma_link,
	.anon_vma_prepare_split = anonvma_anon_vma_prepare_split,
	.install_nonlinear = NULL,	/* nonlinear pages are found by page-table scans */
	.rmap_count = anonvma_rmap_count,
	.rmap_walk = anonvma_rmap_walk,
	.audit_vma = anonvma_audit_vma,
	/*
	 * The RFC sits on seed 001's mmap.c (no page_table_lock in
	 * vma_link, vma_merge or expand_stack) and did not post its own
	 * mmap.c hunks; the source is taken to be what 2.6.8 did:
	 * anon_vma_prepare() and the anon_vma lock in expand_stack(). No
	 * rmap reader of this design walks the vma list (no pte_chain,
	 * hence no find_vma() in reclaim). expand_stack() takes
	 * page_table_lock instead of preparing an anon_vma (deviation (7)).
	 */
	.vma_locks = VMA_LOCK_STACK_PTL,
	.vma_locks_source = VMA_LOCK_STACK_ANON_VMA,
	.pg_maplock = true,
	.anon_names_owner = true,
};
