/* SPDX-License-Identifier: MIT */
/*
 * A file's vmas, as each design keeps them. Until 2.6.7: the lists
 * i_mmap (private), i_mmap_shared and i_mmap_nonlinear, under the
 * i_shared_sem semaphore. The mainline designs (rmap_ops.i_mmap_tree,
 * 2.6.8 on): one priority search tree of every linear vma by its range
 * of file pages (mapping->i_mmap_tree; vmas with the same range share a
 * node, the others on its vm_set ring through vma->shared), the list
 * i_mmap_nonlinear, and the i_mmap_lock spinlock over all of it.
 *
 * The vma code (mmap.c, fork.c, fremap.c, memory.c) calls these where it
 * used the lists directly, so the design decides. Mirrors 2.6.8's
 * vma_prio_tree_insert/add/remove and __vma_link_file/__remove_shared_vm_struct.
 */
#ifndef RT_CORE_I_MMAP_H
#define RT_CORE_I_MMAP_H

#include <stdbool.h>

#include "fs.h"
#include "mm.h"
#include "rmap.h"
#include "semaphore.h"
#include "spinlock.h"

/*
 * Take/drop the lock of @m's vma lists: i_mmap_lock (a spinlock: nothing
 * under it may sleep) in the mainline designs, else i_shared_sem. Macros,
 * so lockdep names the caller's line. Context: mmap_sem held, or truncate.
 */
#define i_mmap_lock_file(m) do {					\
	if (rmap->i_mmap_tree)						\
		spin_lock(&(m)->i_mmap_lock);				\
	else								\
		down(&(m)->i_shared_sem);				\
} while (0)
#define i_mmap_unlock_file(m) do {					\
	if (rmap->i_mmap_tree)						\
		spin_unlock(&(m)->i_mmap_lock);				\
	else								\
		up(&(m)->i_shared_sem);					\
} while (0)

/**
 * __vma_link_file() - put a file vma on its file's list or tree
 * @vma: a vma with vm_file, its bounds and flags set, on none yet
 * Context: the file's list lock held (i_mmap_lock_file()).
 */
void __vma_link_file(struct vm_area_struct *vma);

/**
 * __vma_link_file_after() - as __vma_link_file(), next to @old when the
 * design keeps an order (fork's child right after its parent, split's
 * new half next to the original: truncate visits the first one first)
 * @vma: the new vma
 * @old: a vma of the same file on its list or tree
 * Context: the file's list lock held.
 */
void __vma_link_file_after(struct vm_area_struct *vma, struct vm_area_struct *old);

/**
 * __vma_unlink_file() - take a file vma off its file's list or tree
 * @vma: a vma on it
 * Context: the file's list lock held.
 */
void __vma_unlink_file(struct vm_area_struct *vma);

/**
 * vma_file_bounds_begin() - about to change @vma's vm_start, vm_end or
 * vm_pgoff: the tree indexes by them, so the vma leaves it (nothing in
 * the list designs)
 * @vma: a file vma, or any vma (a no-op without vm_file)
 * Context: the file's list lock held, until vma_file_bounds_end().
 */
void vma_file_bounds_begin(struct vm_area_struct *vma);
/* ... and back in with the new bounds. */
void vma_file_bounds_end(struct vm_area_struct *vma);

/*
 * Called on each vma found; nonzero stops the walk and is returned. It
 * must not change the file's vmas.
 */
typedef int (*i_mmap_visit_t)(struct vm_area_struct *vma, void *arg);

/**
 * vma_prio_tree_foreach() - every linear vma of @mapping that maps a page
 * of [@first, @last] (the tree's stabbing query; the lists' i_mmap and
 * i_mmap_shared scanned whole in the other designs). Nonlinear vmas are
 * not visited.
 * @mapping: the file
 * @first: first file page
 * @last: last file page
 * @visit: called on each vma
 * @arg: passed to @visit
 * Context: the file's list lock held (or tried, by reclaim).
 * Return: 0, or what @visit returned to stop.
 */
int vma_prio_tree_foreach(struct address_space *mapping, unsigned long first,
			  unsigned long last, i_mmap_visit_t visit, void *arg);

/* The file has no vma, linear or not. Context: the file's list lock held. */
bool mapping_unmapped(struct address_space *mapping);

#endif /* RT_CORE_I_MMAP_H */
