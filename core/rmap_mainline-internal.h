/* SPDX-License-Identifier: MIT */
/*
 * What the two mainline designs share (core/rmap_mainline.c), for 2.6.8's
 * (core/rmap_mainline8.c) and 2.6.9's (core/rmap_mainline9.c) rmap: the
 * anon_vma's life, gup_pinned(), the nonlinear cluster scan and the audit.
 * Each version's file keeps the kernel's own names for its functions.
 */
#ifndef RT_CORE_RMAP_MAINLINE_INTERNAL_H
#define RT_CORE_RMAP_MAINLINE_INTERNAL_H

#include "rmap-internal.h"

#include <stdbool.h>

#include "anon_vma.h"
#include "mm.h"
#include "page.h"
#include "pgtable.h"

/* 2.6.9's PAGE_MAPPING_ANON: the low bit of page->mapping marks an anon_vma. */
#define PAGE_MAPPING_ANON	1UL

/* 2.6.8's and 2.6.9's CLUSTER_SIZE: 32 pages (a pmd is larger in the model). */
#define CLUSTER_SIZE	(32 * PAGE_SIZE)
#define CLUSTER_MASK	(~(CLUSTER_SIZE - 1))

/* page_referenced_file()'s walk of the tree (vma_prio_tree_foreach()). */
struct file_walk {
	struct page *page;
	int mapcount;
	int result;
};

/* try_to_unmap_file()'s walk of the tree. */
struct unmap_walk {
	struct page *page;
	int ret;
};

/*
 * A version's try_to_unmap_cluster(): unmap the cluster of nonlinear @vma
 * at @cursor, counting *@mapcount down. Return: SWAP_FAIL to leave @vma
 * for now (2.6.8: its page_table_lock was busy), else SWAP_AGAIN.
 */
typedef int (*nl_cluster_fn)(unsigned long cursor, int *mapcount, struct vm_area_struct *vma);

/**
 * mainline_anon_vma_prepare() - an anon_vma for @vma before its first
 * anonymous page
 * @vma: the vma
 *
 * Mirrors anon_vma_prepare() of 2.6.8 and of 2.6.9, which nest the
 * anon_vma's lock and page_table_lock the other way round.
 *
 * Context: mmap_sem held; may sleep; takes page_table_lock, anon_vma->lock.
 * Return: 0, or -ENOMEM.
 */
int mainline_anon_vma_prepare(struct vm_area_struct *vma);

/**
 * mainline_anon_vma_link() - put @vma, which copied its anon_vma pointer,
 * on that anon_vma's list
 * @vma: the vma (split, mremap's copy, fork's child)
 *
 * Mirrors anon_vma_link() of 2.6.8 and 2.6.9.
 *
 * Context: mmap_sem held for write; takes anon_vma->lock.
 */
void mainline_anon_vma_link(struct vm_area_struct *vma);

/**
 * mainline_anon_vma_fork() - the child's vma shares the parent's anon_vma
 * @child: the child's copy of @parent
 * @parent: the parent's vma
 *
 * Context: the parent's mmap_sem held for write; takes anon_vma->lock.
 * Return: 0.
 */
int mainline_anon_vma_fork(struct vm_area_struct *child, struct vm_area_struct *parent);

/**
 * mainline_anon_vma_unlink() - take @vma off its anon_vma's list; the
 * last vma frees the anon_vma
 * @vma: the vma, with no ptes left
 *
 * Mirrors anon_vma_unlink() of 2.6.8 and 2.6.9.
 *
 * Context: mmap_sem held for write or the mm exiting; takes anon_vma->lock.
 */
void mainline_anon_vma_unlink(struct vm_area_struct *vma);

/**
 * gup_pinned() - is @page a swap-cache page pinned by get_user_pages()?
 * @page: the page try_to_unmap_one() found a pte of
 * @mapcount: its ptes
 *
 * 2.6.7's test in try_to_unmap_one() (2.6.8 and 2.6.9 alike): "don't
 * pull an anonymous page out from under get_user_pages".
 *
 * Context: page_table_lock held (GUP pins under it), page locked.
 * Return: true when the pte must stay (try_to_unmap_one()'s SWAP_FAIL).
 */
bool gup_pinned(struct page *page, int mapcount);

/**
 * try_to_unmap_cluster_ptes() - the pte scan of try_to_unmap_cluster()
 * @vma: a shared nonlinear vma of the page's file
 * @cursor: the cluster's offset in @vma
 * @mapcount: counted down per pte unmapped
 * @page_remove_rmap: the version's page_remove_rmap()
 *
 * In the cluster of @vma at @cursor, unmap every present pte that was not
 * young, whatever page it maps, with a file pte where the page is out of
 * its linear place.
 *
 * Context: i_mmap_lock and @vma's page_table_lock held; each page's rmap
 * lock is taken by @page_remove_rmap (2.6.8's caller dropped its own).
 */
void try_to_unmap_cluster_ptes(struct vm_area_struct *vma, unsigned long cursor,
			       int *mapcount,
			       void (*page_remove_rmap)(struct page *page, pte_t *ptep));

/**
 * try_to_unmap_nonlinear() - the nonlinear half of try_to_unmap_file()
 * @page: the page, locked
 * @mapping: its file
 * @try_to_unmap_cluster: the version's cluster step
 * @drop_map_lock: 2.6.8: PG_maplock is held, and dropped around the scan
 *	(the cluster step takes each page's)
 *
 * Mirrors the end of 2.6.8's and 2.6.9's try_to_unmap_file(): the vmas on
 * i_mmap_nonlinear a cluster at a time from each one's cursor
 * (vm_private_data), until as many ptes as the page had are gone or every
 * cursor went round (then they start over). VM_LOCKED vmas are left.
 *
 * Context: page locked; i_mmap_lock held.
 */
void try_to_unmap_nonlinear(struct page *page, struct address_space *mapping,
			    nl_cluster_fn try_to_unmap_cluster, bool drop_map_lock);

/**
 * mainline_rmap_count() - @page's ptes, for the audit
 * @page: a page
 *
 * Context: a quiescent point; takes PG_maplock (2.6.8).
 * Return: the mapcount.
 */
int mainline_rmap_count(struct page *page);

/**
 * mainline_rmap_walk() - the audit's walk of every pte of @page
 * @page: a page
 * @fn: called on each pte found (may be NULL)
 * @arg: passed to @fn
 *
 * Every lock taken, none tried: PG_maplock (2.6.8) and anon_vma->lock,
 * dropped before each page_table_lock; or i_mmap_lock across the file's
 * vmas, linear and nonlinear.
 *
 * Context: a quiescent point; no lock held.
 * Return: the number of ptes found, or -1 when @fn stopped the walk.
 */
int mainline_rmap_walk(struct page *page, rmap_walk_fn fn, void *arg);

/**
 * mainline_audit_vma() - a vma with an anon_vma is on its list; one
 * without is on none
 * @vma: the vma
 *
 * Context: a quiescent point; takes anon_vma->lock.
 * Return: 0, or 1 when broken.
 */
int mainline_audit_vma(struct vm_area_struct *vma);

/**
 * mainline_audit_pte() - a mapped page has a mapping (an anonymous one,
 * its anon_vma), and an anonymous page's pte lies in a vma on it
 * @page: the page mapped
 * @vma: the vma of the pte
 *
 * Context: a quiescent point; page_table_lock of @vma's mm held; takes
 * anon_vma->lock.
 * Return: 0, or 1 when broken.
 */
int mainline_audit_pte(struct page *page, struct vm_area_struct *vma);

#endif /* RT_CORE_RMAP_MAINLINE_INTERNAL_H */
