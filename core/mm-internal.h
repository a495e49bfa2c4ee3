/* SPDX-License-Identifier: MIT */
/*
 * Private to the VM files of core/ (mmap.c, memory.c, mremap.c, fork.c,
 * fremap.c, exec.c, audit.c) and their tests: vma allocation and
 * linking, the data-integrity shadow, and small helpers.
 */
#ifndef RT_CORE_MM_INTERNAL_H
#define RT_CORE_MM_INTERNAL_H

#include "fs.h"
#include "mm.h"
#include "rmap.h"

/*
 * Shadow slots: 0 when the virtual page has no private contents (expect
 * the file's shadow, or 0 for anonymous memory), else SHADOW_PRIVATE | the
 * stamp it must hold. Stamps are below 2^61: bit 61 is page.h's
 * SHADOW_BUSY, which an access holds while it updates a page and its
 * stamp together.
 */
#define SHADOW_PRIVATE	(1ULL << 63)
/*
 * In a nonlinear vma (always shared, so never SHADOW_PRIVATE): the file
 * offset remap_file_pages() put at this address, kept so that the MMU and
 * the audit can tell the right page from a wrong one.
 */
#define SHADOW_NONLINEAR	(1ULL << 62)

/*
 * The list of every mm, in fork order (2.6.9's init_mm.mmlist and
 * mmlist_lock of kernel/fork.c): mm_alloc() (exec_mmap()'s list_add)
 * puts a new mm at its head, dup_mm() a child right after its parent,
 * and mmput() takes an mm off it when its last user goes. swapoff walks
 * it (core/swapfile.c).
 */
extern spinlock_t mmlist_lock;
extern struct list_head mmlist_head;	/* mmlist_lock */

/**
 * mmput_unless_last() - drop a user of @mm unless it is the last
 * @mm: an mm the caller holds a user of
 *
 * For a caller that must not run exit_mmap() where it stands (swapoff
 * with a page locked): the last user is left to a later mmput(). The
 * release pairs with the last mmput()'s acquire.
 *
 * Context: any; takes no lock.
 * Return: true when dropped, false when it was the last (nothing changed).
 */
bool mmput_unless_last(struct mm_struct *mm);

/**
 * __mm_alloc() - mm_alloc() without the mmlist: for dup_mm(), which links
 * the child itself
 *
 * Context: may sleep. Return: the mm, or NULL when out of memory.
 */
struct mm_struct *__mm_alloc(void);

/**
 * anon_page_index() - the index a new anonymous page of @vma at @address
 * gets: relative to vm_pgoff (seed 002)
 * @vma: the vma the page is mapped in
 * @address: where
 *
 * The first pte of a swapped-in page sets it (do_swap_page(), unuse_pte()).
 *
 * Context: page_table_lock held. Return: the index.
 */
unsigned long anon_page_index(const struct vm_area_struct *vma, unsigned long address);

/**
 * swapin_page_mapped() - whether a locked swap cache page has a pte already
 * @page: the page
 *
 * Context: page locked, page_table_lock held; takes the rmap lock.
 * Return: true when its rmap knows of a pte.
 */
bool swapin_page_mapped(struct page *page);

static inline unsigned long vma_pages(const struct vm_area_struct *vma)
{
	return (READ_ONCE(vma->vm_end) - READ_ONCE(vma->vm_start)) >> PAGE_SHIFT;
}

/* The page offset (file) or anonymous index of @address in @vma. */
static inline unsigned long linear_page_index(const struct vm_area_struct *vma,
					      unsigned long address)
{
	return READ_ONCE(vma->vm_pgoff) +
	       ((address - READ_ONCE(vma->vm_start)) >> PAGE_SHIFT);
}

struct vm_area_struct *vm_area_alloc(struct mm_struct *mm);
void vm_area_free(struct vm_area_struct *vma);
/* Live vmas (teardown check). */
unsigned long vm_area_count(void);
unsigned long mm_count_live(void);

/*
 * Link @vma after @prev (NULL: first) in its mm's list and into its file's
 * list; unlink it. Context: mmap_sem held for write; take i_shared_sem
 * and page_table_lock.
 */
void vma_link(struct mm_struct *mm, struct vm_area_struct *vma,
	      struct vm_area_struct *prev);
void vma_unlink(struct mm_struct *mm, struct vm_area_struct *vma,
		struct vm_area_struct *prev);
/* The file list @vma belongs on. Context: i_shared_sem held. */
struct list_head *vma_file_list(struct vm_area_struct *vma);
/* Remove a detached vma from its file list, anon_vma, and free it. */
void remove_vm_struct(struct vm_area_struct *vma);

/* The vma before @vma in its mm (NULL if first). Context: mmap_sem. */
struct vm_area_struct *find_vma_prev(struct mm_struct *mm, unsigned long addr,
				     struct vm_area_struct **pprev);

/*
 * vma_adjust(): set the bounds and pgoff of @vma under the file's
 * i_shared_sem (file vmas), page_table_lock where the design's source
 * took it (VMA_LOCK_ADJUST_PTL), and the anon_vma lock (anonvma), so
 * rmap walks see consistent values. Context: mmap_sem held for write.
 * move_vma_start(): seed 001's; the caller holds those locks already
 * (split_vma). See core/mmap.c.
 */
void vma_adjust(struct vm_area_struct *vma, unsigned long start,
		unsigned long end, unsigned long pgoff);
void move_vma_start(struct vm_area_struct *vma, unsigned long addr);

/* A free range of @len bytes (with a guard page), or 0. Context: mmap_sem. */
unsigned long get_unmapped_area(struct mm_struct *mm, unsigned long len);

/* Split @vma at @addr; @new_below: the new vma is the lower part. */
int split_vma(struct mm_struct *mm, struct vm_area_struct *vma,
	      unsigned long addr, int new_below);

/* The shadow slot of @address (allocated). Context: page_table_lock held. */
static inline uint64_t *shadow_slot(struct mm_struct *mm, unsigned long address)
{
	return (uint64_t *)pte_alloc(mm->shadow, address);
}

static inline uint64_t *shadow_slot_lookup(struct mm_struct *mm, unsigned long address)
{
	return (uint64_t *)pte_offset(mm->shadow, address);
}

/*
 * The file offset @address of file vma @vma shows: the offset
 * remap_file_pages() installed there, or the linear one.
 * Context: page_table_lock held (or quiescent).
 */
static inline unsigned long file_offset_at(struct mm_struct *mm,
					   struct vm_area_struct *vma,
					   unsigned long address)
{
	uint64_t *s = shadow_slot_lookup(mm, address);
	uint64_t sv = s ? __atomic_load_n(s, __ATOMIC_RELAXED) : 0;

	if ((vma->vm_flags & VM_NONLINEAR) && (sv & SHADOW_NONLINEAR))
		return sv & ~SHADOW_NONLINEAR;
	return linear_page_index(vma, address);
}

/* Copy the ptes of @vma from @src to @dst for fork. Context: see fork.c. */
int copy_page_range(struct mm_struct *dst, struct mm_struct *src,
		    struct vm_area_struct *dst_vma, struct vm_area_struct *vma);

/*
 * Clear one pte and flush the TLB: rmap, rss, then (after the flush) the
 * page reference and the shadow; a swap pte's slot. ptl held.
 */
void zap_one_pte(struct mm_struct *mm, pte_t *ptep, unsigned long address);

/**
 * clear_page_tables() - free the pte tables of pgd entries [@first, @first + @nr)
 * @mm: the mm
 * @first: the first pgd index
 * @nr: how many
 *
 * Mirrors clear_page_tables() of 2.6 (free_one_pgd()/free_one_pmd(),
 * pte_free_tlb()) with its own mmu_gather: each table is unhooked now and
 * freed after the gather's TLB flush. BUG()s on a table that still holds
 * a pte: its range must have been zapped.
 *
 * Context: mmap_sem held for write; page_table_lock held; flushes (waits
 * for CPUs inside an access of @mm).
 */
void clear_page_tables(struct mm_struct *mm, unsigned long first, unsigned long nr);

/* Zap the ptes of a nonlinear vma that map file offsets [first, last]. */
void zap_nonlinear_range(struct vm_area_struct *vma, unsigned long first,
			 unsigned long last);

/*
 * Map a file page at @addr of a nonlinear vma (core/fremap.c: seed 001's
 * page_convert_anon() call, 2.6.8's truncate check). Context: mmap_sem
 * held; may sleep. Return: 0, -ENOMEM, or -EINVAL (truncated).
 */
int install_page(struct mm_struct *mm, struct vm_area_struct *vma,
		 unsigned long addr, struct page *page);

/*
 * Map [@addr, @addr + @len) of a nonlinear vma from file offset @pgoff:
 * install_page() for pages in the cache (all of them, read in, unless
 * @nonblock), file ptes for the rest. Context: mmap_sem held; may sleep.
 * Return: 0, -ENOMEM, or -EINVAL (beyond i_size, or truncated).
 */
int filemap_populate(struct vm_area_struct *vma, unsigned long addr,
		     unsigned long len, unsigned long pgoff, bool nonblock);

/* Move the ptes (and shadow) of [old, old + len) to [new, new + len). */
int move_page_tables(struct vm_area_struct *vma, unsigned long new_addr,
		     unsigned long old_addr, unsigned long len);

#endif /* RT_CORE_MM_INTERNAL_H */
