// SPDX-License-Identifier: MIT
/*
 * What 2.6.8's and 2.6.9's rmap share (mm/rmap.c, mm/mmap.c,
 * mm/prio_tree.c of shizhouwang/linux-2.6.8 and HassebJ/linux-2.6.9):
 * Andrea Arcangeli's anon_vma, Rajesh Venkatasubramanian's prio_tree and
 * the nonlinear cluster scan, which Hugh Dickins' anonmm/rmap series
 * merged for 2.6.8 and his rmaplock series kept in 2.6.9. Each version's
 * own functions, with the kernel's names, its lock-order tree and its
 * departures, are in core/rmap_mainline8.c and core/rmap_mainline9.c;
 * this file holds what both run (rmap_mainline-internal.h), told apart by
 * a flag where the kernels differ in one step (ml9()).
 *
 *   anon pages   PG_anon and page->as.anon_vma. Every vma that may hold
 *                anonymous pages gets an anon_vma at its first anonymous
 *                fault (anon_vma_prepare(), under mmap_sem for read),
 *                adopting a mergeable neighbour's
 *                (find_mergeable_anon_vma()); fork, split and mremap link
 *                the new vma on the same anon_vma, and the last vma to
 *                leave frees it. No PG_direct: a page is always found
 *                through its anon_vma's list, at vm_start + (index - vm_pgoff).
 *   file pages   page->pte.mapcount; found through the file's priority
 *                search tree (mapping->i_mmap_tree, core/i_mmap.h), which
 *                yields only the vmas whose range covers the page's offset,
 *                under the i_mmap_lock spinlock. Nonlinear vmas are on
 *                i_mmap_nonlinear, and try_to_unmap_file() reclaims them a
 *                cluster at a time (try_to_unmap_nonlinear()), unmapping
 *                whatever pages it meets there.
 *
 * Where the model departs from both (docs/model.md "The five designs"):
 * (1) PG_anon stays set on an unmapped anonymous page (2.6.8 cleared it
 *     with page->mapping): the model's swap cache and reclaim tell
 *     anonymous pages by PG_anon; 2.6.8's page->as.anon_vma is cleared.
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
 * 2.6.9's own, (5) to (7), are in core/rmap_mainline9.c.
 *
 * Accounting: anon_vma objects; the anon_vma pointer and list node of a
 * vma on an anon_vma (24 bytes) and the 16 bytes by which 2.6.8's vma
 * "shared" union outgrew 2.6.3's list head, per file vma (i_mmap.c).
 */
#include "cover.h"
#include "rmap_mainline-internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "die.h"
#include "i_mmap.h"
#include "inject.h"
#include "lockdep.h"
#include "mm-internal.h"
#include "slab.h"
#include "spinlock.h"
#include "tlbflush.h"

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
int mainline_anon_vma_prepare(struct vm_area_struct *vma)
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
void mainline_anon_vma_link(struct vm_area_struct *vma)
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
int mainline_anon_vma_fork(struct vm_area_struct *child, struct vm_area_struct *parent)
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
void mainline_anon_vma_unlink(struct vm_area_struct *vma)
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

/* ---- the page's anon_vma, as the audit reads it ---- */

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

/* ---- try_to_unmap ---- */

/*
 * A swap-cache page whose count exceeds its ptes plus the swap cache's
 * and reclaim's references is held by someone else, a GUP pin among them:
 * unmapped, a user write would bring it back read-only, do_wp_page() would
 * see the pin as a sharer and copy, and the user would never see what the
 * I/O put in the pinned page.
 */
bool gup_pinned(struct page *page, int mapcount)
{
	if (injected(INJECT_GUP_UNMAP))
		return false;	/* seeded bug gup-unmap: 2.6.3's try_to_unmap_one() */
	return PageSwapCache(page) && page_count(page) != mapcount + 2;
}

/*
 * Mirrors the pte loop of 2.6.8's and 2.6.9's try_to_unmap_cluster():
 * file pages of this file only (the vma is a shared nonlinear one).
 */
void try_to_unmap_cluster_ptes(struct vm_area_struct *vma, unsigned long cursor,
			       int *mapcount,
			       void (*page_remove_rmap)(struct page *page, pte_t *ptep))
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long address, end;

	assert_spin_locked(&mm->page_table_lock);
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
		page_remove_rmap(page, ptep);
		put_page(page);
		mm->rss--;
		(*mapcount)--;
	}
}

/*
 * The cursor walk of 2.6.8's and 2.6.9's try_to_unmap_file(). 2.6.9's
 * cluster step never fails, so 2.6.8's handling of a busy page_table_lock
 * (the vma's cursor stays where it stopped) changes nothing there.
 */
void try_to_unmap_nonlinear(struct page *page, struct address_space *mapping,
			    nl_cluster_fn try_to_unmap_cluster, bool drop_map_lock)
{
	unsigned long max_nl_cursor = 0, max_nl_size = 0, cursor;
	struct vm_area_struct *vma;
	int ret = SWAP_AGAIN, mapcount;

	assert_spin_locked(&mapping->i_mmap_lock);
	if (list_empty(&mapping->i_mmap_nonlinear))
		return;
	list_for_each_entry(vma, &mapping->i_mmap_nonlinear, shared) {
		if (READ_ONCE(vma->vm_flags) & VM_LOCKED)
			continue;
		if (vma->vm_private_data > max_nl_cursor)
			max_nl_cursor = vma->vm_private_data;
		if (vma->vm_end - vma->vm_start > max_nl_size)
			max_nl_size = vma->vm_end - vma->vm_start;
	}
	if (max_nl_size == 0)
		return;		/* every nonlinear vma is locked */
	mapcount = page_mapcount(page);
	if (drop_map_lock)
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
					goto out;
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
out:
	if (drop_map_lock)
		page_map_lock(page);
}

/* ---- the audit ---- */

int mainline_rmap_count(struct page *page)
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
int mainline_rmap_walk(struct page *page, rmap_walk_fn fn, void *arg)
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
int mainline_audit_vma(struct vm_area_struct *vma)
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
int mainline_audit_pte(struct page *page, struct vm_area_struct *vma)
{
	struct anon_vma *anon_vma;

	if (!PageAnon(page))
		return READ_ONCE(page->as.mapping) ? 0 : 1;
	anon_vma = page_anon_vma(page);
	if (!anon_vma)
		return 1;
	return anon_vma_has_vma(anon_vma, vma) ? 0 : 1;
}
