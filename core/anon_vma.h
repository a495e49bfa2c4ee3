/* SPDX-License-Identifier: MIT */
/*
 * Private to core/ (rmap_anonvma.c, and the vma code that must hold an
 * anon_vma's lock while it moves a vma's bounds: mmap.c) and to
 * tests/check_anonvma.c: seed 002's anon_vma object.
 *
 * An anon_vma is the list of the vmas that may map the anonymous pages
 * pointing to it (page->as.anon_vma): a vma and everything forked, split
 * or mremapped from it. Objects come from a SLAB_DESTROY_BY_RCU cache
 * whose constructor initialises the lock and the list once: the memory
 * stays an anon_vma (type-stable) until an RCU grace period after it goes
 * back to libc, so reclaim may lock an anon_vma it read from a page under
 * rcu_read_lock() even if it was freed and reused meanwhile, and then
 * re-checks that the page still points to it (anon_vma_lock_recheck()).
 */
#ifndef RT_CORE_ANON_VMA_H
#define RT_CORE_ANON_VMA_H

#include <stdbool.h>

#include "list.h"
#include "mm.h"
#include "page.h"
#include "rmap.h"
#include "spinlock.h"

struct anon_vma {
	/* Serialises the vma list; initialised once, by the cache's ctor. */
	spinlock_t lock;
	/* vmas, through vma->anon_vma_node: lock. Empty only while free. */
	struct list_head head;
};

/*
 * What each vma carries for this design (mm.h): the anon_vma pointer and
 * the list node, 24 bytes on LP64. Accounted in rmap_bytes.vma_extra while
 * the vma is on an anon_vma's list.
 */
#define ANON_VMA_VMA_EXTRA_BYTES \
	(sizeof(struct anon_vma *) + sizeof(struct list_head))

/**
 * vma_lock_anon_vma() - take @vma's anon_vma lock, if it has one
 * @vma: a vma whose vm_start/vm_end/vm_pgoff the caller is about to change
 *
 * Completes seed 002 (deviation (b) in rmap_anonvma.c): walkers under the
 * anon_vma lock read the bounds of every vma on the list, so a bounds
 * change of a listed vma holds the lock. No-op in the other designs,
 * whose vmas never have an anon_vma.
 *
 * Context: mmap_sem held (vma->anon_vma is stable); may hold
 * page_table_lock (an ancestor of anon_vma->lock in core/lockdep.c).
 * Return: the locked anon_vma, or NULL; pass it to vma_unlock_anon_vma().
 */
static inline struct anon_vma *vma_lock_anon_vma(struct vm_area_struct *vma)
{
	/*
	 * mainline9 calls this before page_table_lock, which the writer
	 * (anon_vma_prepare) published vma->anon_vma under: only the
	 * pointer orders the new anon_vma's initialisation before its lock.
	 */
	struct anon_vma *anon_vma = smp_load_acquire(vma->anon_vma);

	if (anon_vma)
		spin_lock(&anon_vma->lock);
	return anon_vma;
}

/* Undo vma_lock_anon_vma(); NULL is allowed. */
static inline void vma_unlock_anon_vma(struct anon_vma *anon_vma)
{
	if (anon_vma)
		spin_unlock(&anon_vma->lock);
}

/**
 * anon_vma_lock_recheck() - lock an anon_vma read from @page and re-check
 * @anon_vma: the value the caller read from page->as.anon_vma under
 *	rcu_read_lock(); it may have been freed and reused since
 * @page: the page
 *
 * The second half of page_lock_anon_vma(), exposed so that a test can
 * let the object be freed and reused between the read and the lock.
 * Type-stable memory makes taking the lock safe; the re-check makes the
 * result right: @page must still be mapped, anonymous, not PG_direct, and
 * point to @anon_vma.
 *
 * Context: inside rcu_read_lock(); PG_maplock of @page may be held.
 * Return: true with @anon_vma->lock held, or false with it not held.
 */
bool anon_vma_lock_recheck(struct anon_vma *anon_vma, struct page *page);

/**
 * page_lock_anon_vma() - lock the anon_vma @page points to
 * @page: an anonymous page
 *
 * Context: any; takes rcu_read_lock() and anon_vma->lock, both dropped by
 * page_unlock_anon_vma() (or here, when NULL is returned).
 * Return: the locked anon_vma, or NULL when @page is unmapped, PG_direct
 * or no longer points to the anon_vma first read.
 */
struct anon_vma *page_lock_anon_vma(struct page *page);
void page_unlock_anon_vma(struct anon_vma *anon_vma);

/* The number of vmas on @anon_vma's list (tests). Context: takes its lock. */
int anon_vma_nr_vmas(struct anon_vma *anon_vma);

#endif /* RT_CORE_ANON_VMA_H */
