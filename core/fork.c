// SPDX-License-Identifier: MIT
/*
 * fork and exit: dup_mm() copies an mm's vmas and page tables for a child
 * (copy-on-write for private writable memory), exit_mmap() tears an mm
 * down. Mirrors kernel/fork.c:dup_mmap() and mm/mmap.c:exit_mmap() of
 * 2.6.3: the child's file vma goes into i_mmap right after its parent's,
 * so a truncate walking the list visits the parent first and cannot miss
 * a pte the child copied from it meanwhile.
 */
#include "cover.h"
#include "inject.h"
#include "i_mmap.h"
#include "mm-internal.h"
#include "perturb.h"
#include "swap.h"
#include "tlbflush.h"

#include <errno.h>

/*
 * The child's stamps, again, for the pages of @oldmm's copy-on-write vmas:
 * copy_page_range() copied them while @oldmm's threads could still store
 * through stale writable TLB entries of the ptes it write-protected, which
 * the hardware allows until dup_mmap()'s flush_tlb_mm(). Such a store
 * lands in the page both now map, as it would in 2.6 (the child sees it),
 * so what the child must read is the parent's stamp as of that flush. No
 * store can change it from here: the parent faults (mmap_sem, held for
 * write) to store again. A child pte that is gone (truncate) keeps its
 * slot as the zap left it.
 *
 * A truncate takes no mmap_sem: it may zap the parent's pte of a private
 * file vma after copy_page_range() copied it and before the child's, and
 * its zap resets the parent's slot once its flush has waited for such a
 * store. The child still maps the page (or its swap slot) until the same
 * truncate reaches the child's vma, and reads what the parent stored;
 * with the parent's record gone, the child's comes from the data itself
 * (child_data_now()).
 * Context: oldmm's mmap_sem held for write, after its flush; takes both
 * page_table_locks as copy_page_range() does.
 */
/*
 * What the child's private @pte at @address gives a load now: the data of
 * its page, or of its swap slot; 0 where the address's data is not the
 * mm shadow's to judge (the zero page, a page of a file's cache).
 * Nothing stores to it meanwhile (see dup_mmap_shadow()).
 * Context: both page_table_locks held (the pte holds its page or slot).
 */
static uint64_t child_data_now(pte_t pte)
{
	struct page *page;

	if (!pte_present(pte))
		return SHADOW_PRIVATE | swap_entry_data(pte_to_swp_entry(pte));
	if (pte_pfn(pte) == ZERO_PAGE_PFN)
		return 0;
	page = pfn_to_page(pte_pfn(pte));
	if (page_in_file_cache(page))
		return 0;
	return SHADOW_PRIVATE | page_data_read(page);
}

static void dup_mmap_shadow(struct mm_struct *mm, struct mm_struct *oldmm)
{
	for (struct vm_area_struct *vma = mm->mmap; vma; vma = vma->vm_next) {
		if ((vma->vm_flags & VM_SHARED) || !(vma->vm_flags & VM_WRITE))
			continue;
		spin_lock(&mm->page_table_lock);
		spin_lock_nested(&oldmm->page_table_lock, SINGLE_DEPTH_NESTING);
		for (unsigned long a = vma->vm_start; a < vma->vm_end; a += PAGE_SIZE) {
			pte_t *ptep = pte_offset(mm->pgd, a), *old_ptep, pte;
			uint64_t *src = shadow_slot_lookup(oldmm, a), sv;

			if (!ptep) {
				a = pgd_addr_end(a, vma->vm_end) - PAGE_SIZE;
				continue;
			}
			pte = ptep_get(ptep);
			if (pte_none(pte) || (!pte_present(pte) && pte_file(pte)))
				continue;
			sv = src ? __atomic_load_n(src, __ATOMIC_RELAXED) : 0;
			if (!(sv & SHADOW_PRIVATE)) {
				/* A zap of the parent's pte alone took its record. */
				old_ptep = pte_offset(oldmm->pgd, a);
				if (old_ptep && !pte_none(ptep_get(old_ptep)))
					continue;
				sv = child_data_now(pte);
				if (!sv)
					continue;
			}
			__atomic_store_n(shadow_slot(mm, a), sv, __ATOMIC_RELAXED);
		}
		spin_unlock(&oldmm->page_table_lock);
		spin_unlock(&mm->page_table_lock);
	}
}

struct mm_struct *dup_mm(struct mm_struct *oldmm)
{
	struct vm_area_struct *vma, *tmp, *prev = NULL;
	struct mm_struct *mm;
	int err = 0;

	might_sleep("dup_mm");
	mm = __mm_alloc();
	if (!mm)
		return NULL;
	down_write(&oldmm->mmap_sem);
	/*
	 * dup_mmap() of 2.6.9: the child goes on the mmlist right after its
	 * parent, before any pte is copied, so that swapoff, walking the
	 * list in order, meets the parent first and then the child and
	 * cannot miss a swap pte copied meanwhile. A parent off the list
	 * (exiting: it cannot fork) puts the child at the head.
	 */
	spin_lock(&mmlist_lock);
	list_add(&mm->mmlist, list_empty(&oldmm->mmlist) ? &mmlist_head : &oldmm->mmlist);
	spin_unlock(&mmlist_lock);
	for (vma = oldmm->mmap; vma; vma = vma->vm_next) {
		struct address_space *mapping = vma->vm_file;

		tmp = vm_area_alloc(mm);
		if (!tmp) {
			err = -ENOMEM;
			break;
		}
		tmp->vm_start = vma->vm_start;
		tmp->vm_end = vma->vm_end;
		tmp->vm_pgoff = vma->vm_pgoff;
		tmp->vm_flags = vma->vm_flags & ~VM_LOCKED;	/* mlock is not inherited */
		tmp->vm_file = mapping;
		if (mapping)
			__iget(mapping);	/* get_file() */
		if (rmap->anon_vma_fork && !injected(INJECT_FORK_LINK_LATE)) {
			err = rmap->anon_vma_fork(tmp, vma);
			if (err) {
				vm_area_free(tmp);
				break;
			}
		}
		if (mapping) {
			i_mmap_lock_file(mapping);
			/* Right after the parent's vma: truncate visits it first. */
			__vma_link_file_after(tmp, vma);
			i_mmap_unlock_file(mapping);
		}
		spin_lock(&mm->page_table_lock);
		if (prev)
			prev->vm_next = tmp;
		else
			mm->mmap = tmp;
		mm->map_count++;
		spin_unlock(&mm->page_table_lock);
		prev = tmp;
		yield_point_on("dup_mm:vma", oldmm, COVER_MM);
		err = copy_page_range(mm, oldmm, tmp, vma);
		if (err)
			break;
		if (rmap->anon_vma_fork && injected(INJECT_FORK_LINK_LATE)) {
			/*
			 * Seeded bug: the child's ptes are published (and
			 * given to page_add_rmap()) before its vma has an
			 * anon_vma and is on its list: a page gains a pte no
			 * anon_vma walk can reach, and page_add_rmap() meets
			 * a vma without an anon_vma (where the RFC would
			 * dereference NULL, the model BUGs).
			 */
			err = rmap->anon_vma_fork(tmp, vma);
			if (err)
				break;
		}
	}
	/*
	 * dup_mmap() of 2.6.3: one flush of the parent for every pte
	 * copy_page_range() write-protected, before mmap_sem is released.
	 */
	flush_tlb_mm(oldmm);
	if (!err)
		dup_mmap_shadow(mm, oldmm);
	up_write(&oldmm->mmap_sem);
	if (err) {
		mmput(mm);	/* exit_mmap() undoes the partial copy */
		return NULL;
	}
	return mm;
}

void exit_mmap(struct mm_struct *mm)
{
	struct vm_area_struct *vma, *next;

	for (vma = mm->mmap; vma; vma = vma->vm_next)
		zap_page_range(vma, vma->vm_start, vma->vm_end - vma->vm_start);
	spin_lock(&mm->page_table_lock);
	vma = mm->mmap;
	mm->mmap = NULL;
	mm->map_count = 0;
	BUG_ON(mm->rss != 0);
	spin_unlock(&mm->page_table_lock);
	for (; vma; vma = next) {
		next = vma->vm_next;
		remove_vm_struct(vma);
	}
}
