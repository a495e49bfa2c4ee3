// SPDX-License-Identifier: MIT
/*
 * mremap: shrink, grow in place, or move a mapping with move_vma() and
 * move_page_tables(). Mirrors mm/mremap.c of 2.6.3. A moved pte keeps its
 * page's rmap valid: ptechain re-records the pte's new address; objrmap
 * finds it through the new vma, whose vm_pgoff keeps every page's index
 * (for anonymous memory too: the index is relative to vm_pgoff, seed 002).
 * The mainline designs move each pte under the file's i_mmap_lock too, as
 * 2.6.8 and 2.6.9 did (move_page_tables()).
 */
#include "cover.h"
#include "inject.h"
#include "mm-internal.h"
#include "perturb.h"
#include "tlbflush.h"

#include <errno.h>

/*
 * move_one_page(): move the pte (and its shadow stamp) at @old_addr to
 * @new_addr. Context: page_table_lock held (mainline, a file vma: under
 * its i_mmap_lock).
 */
static void move_one_page(struct vm_area_struct *new_vma, unsigned long old_addr,
			  unsigned long new_addr, struct pte_chain **chain)
{
	struct mm_struct *mm = new_vma->vm_mm;
	pte_t *src = pte_offset(mm->pgd, old_addr);
	uint64_t *src_shadow;
	pte_t *dst = NULL;
	pte_t pte = 0;

	if (src && !pte_none(ptep_get(src))) {
		dst = pte_alloc(mm->pgd, new_addr);
		BUG_ON(!pte_none(ptep_get(dst)));
		/* move_one_page(): the kernel's ptep_clear_flush()... */
		pte = ptep_get_and_clear(src);
		flush_tlb_page(new_vma, old_addr);
	}
	/*
	 * ...the stamp follows once no access uses the old pte. Looked up
	 * only now: a store the flush waited for may have made the slot
	 * (the shadow's storage is allocated at a page's first store).
	 */
	src_shadow = shadow_slot_lookup(mm, old_addr);
	if (src_shadow && __atomic_load_n(src_shadow, __ATOMIC_RELAXED)) {
		uint64_t *dst_shadow = shadow_slot(mm, new_addr);

		shadow_reset_begin(dst_shadow);
		__atomic_store_n(dst_shadow, __atomic_load_n(src_shadow, __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
		shadow_reset_end(dst_shadow);
		shadow_reset_begin(src_shadow);
		__atomic_store_n(src_shadow, 0, __ATOMIC_RELAXED);
		shadow_reset_end(src_shadow);
	}
	if (pte_none(pte))
		return;
	/* ...then copy_one_pte()'s set_pte(). */
	set_pte(dst, pte);
	if (pte_present(pte) && pte_pfn(pte) != ZERO_PAGE_PFN) {
		struct page *page = pfn_to_page(pte_pfn(pte));

		rmap->page_remove_rmap(page, src);
		*chain = rmap->page_add_rmap(page, new_vma, new_addr, dst,
					     PageAnon(page), *chain);
	}
}

/*
 * The file whose i_mmap_lock a pte move holds: 2.6.8's and 2.6.9's
 * move_one_page() lock out vmtruncate ("it might clean the dst vma before
 * the src vma"): the prio tree visits intervals that end later first, so
 * truncate may zap a grown destination before the source and miss a pte
 * moved in between. 2.6.3 held page_table_lock alone: its i_mmap lists
 * put the new vma after the old one, which truncate visits first.
 * Seeded bug mremap-no-immap-lock: the mainline designs without it.
 */
static struct address_space *move_lock_mapping(struct vm_area_struct *vma)
{
	if (!vma->vm_file || !rmap->i_mmap_tree || injected(INJECT_MREMAP_NO_IMMAP_LOCK))
		return NULL;
	return vma->vm_file;
}

/**
 * move_page_tables() - move every pte of [@old_addr, +@len) to @new_addr
 * @vma: the new vma (already linked), which maps the destination
 * @new_addr: the destination
 * @old_addr: the source
 * @len: bytes to move
 *
 * Mirrors mm/mremap.c:move_page_tables() and move_one_page(): 2.6.3
 * (page_table_lock), or in the mainline designs 2.6.8/2.6.9 (a file
 * vma's i_mmap_lock, then page_table_lock, per page). 2.6.9 drops
 * i_mmap_lock to allocate a missing pte table and retakes both in order;
 * the model's pte_alloc() allocates under the locks without dropping
 * either, so both stay held.
 *
 * Context: mmap_sem held for write; takes, per page, the file's
 * i_mmap_lock (mainline designs, file vmas) and page_table_lock.
 * Return: 0, or -ENOMEM (what was moved stays moved).
 */
int move_page_tables(struct vm_area_struct *vma, unsigned long new_addr,
		     unsigned long old_addr, unsigned long len)
{
	struct mm_struct *mm = vma->vm_mm;
	struct address_space *mapping = move_lock_mapping(vma);
	bool need_chain = rmap->pte_chain_alloc != NULL;
	struct pte_chain *chain = NULL;

	for (unsigned long off = 0; off < len; off += PAGE_SIZE) {
		if (need_chain && !chain) {
			chain = rmap->pte_chain_alloc(GFP_KERNEL);
			if (!chain)
				return -ENOMEM;
		}
		/* No lock held: a truncate may walk the file's vmas meanwhile. */
		yield_point_on("move_page_tables:unlocked", mm, COVER_MM);
		if (mapping)
			spin_lock(&mapping->i_mmap_lock);
		spin_lock(&mm->page_table_lock);
		move_one_page(vma, old_addr + off, new_addr + off, &chain);
		yield_point_on("move_page_tables:page", mm, COVER_MM);
		spin_unlock(&mm->page_table_lock);
		if (mapping)
			spin_unlock(&mapping->i_mmap_lock);
	}
	if (chain)
		rmap->pte_chain_free(chain);
	return 0;
}

/* move_vma(): a new vma at @new_addr, the ptes moved into it, the old range unmapped. */
static long move_vma(struct mm_struct *mm, struct vm_area_struct *vma,
		     unsigned long addr, unsigned long old_len,
		     unsigned long new_len, unsigned long new_addr)
{
	struct vm_area_struct *new_vma, *prev;
	int err;

	/*
	 * anonvma (seed 002, completed): the ptes that move keep their pages,
	 * and what stays behind must not name a vma that the munmap below
	 * shrinks or frees: give @vma an anon_vma for both.
	 */
	if (rmap->anon_vma_prepare_split) {
		err = rmap->anon_vma_prepare_split(vma);
		if (err)
			return err;
	}
	new_vma = vm_area_alloc(mm);
	if (!new_vma)
		return -ENOMEM;
	new_vma->vm_start = new_addr;
	new_vma->vm_end = new_addr + new_len;
	new_vma->vm_pgoff = vma->vm_pgoff + ((addr - vma->vm_start) >> PAGE_SHIFT);
	new_vma->vm_flags = vma->vm_flags;
	new_vma->vm_file = vma->vm_file;
	if (new_vma->vm_file)
		__iget(new_vma->vm_file);	/* get_file() */
	new_vma->anon_vma = vma->anon_vma;
	find_vma_prev(mm, new_addr, &prev);
	vma_link(mm, new_vma, prev);
	if (new_vma->anon_vma && rmap->anon_vma_link)
		rmap->anon_vma_link(new_vma);

	err = move_page_tables(new_vma, new_addr, addr, old_len);
	if (err) {
		/* Put back what moved, as 2.6 does, then drop the new vma. */
		move_page_tables(vma, addr, new_addr, old_len);
		do_munmap(mm, new_addr, new_len);
		return err;
	}
	err = do_munmap(mm, addr, old_len);
	return err ? err : (long)new_addr;
}

long do_mremap(struct mm_struct *mm, unsigned long addr, unsigned long old_len,
	       unsigned long new_len, unsigned long new_addr)
{
	struct vm_area_struct *vma, *next;
	long err;

	if ((addr & ~PAGE_MASK) || (new_addr & ~PAGE_MASK))
		return -EINVAL;
	old_len = (old_len + PAGE_SIZE - 1) & PAGE_MASK;
	new_len = (new_len + PAGE_SIZE - 1) & PAGE_MASK;
	if (!old_len || !new_len || addr >= TASK_SIZE || old_len > TASK_SIZE - addr ||
	    new_len > TASK_SIZE)
		return -EINVAL;
	vma = find_vma(mm, addr);
	if (!vma || vma->vm_start > addr || addr + old_len > vma->vm_end)
		return -EFAULT;
	if (vma->vm_flags & VM_NONLINEAR)
		return -EINVAL;		/* its ptes are not linear: 2.6 refused too */

	if (new_addr) {
		/* MREMAP_FIXED: the target must not overlap the source. */
		if (new_addr >= TASK_SIZE || new_len > TASK_SIZE - new_addr ||
		    (new_addr < addr + old_len && addr < new_addr + new_len))
			return -EINVAL;
		err = do_munmap(mm, new_addr, new_len);
		if (err)
			return err;
		if (old_len > new_len) {
			err = do_munmap(mm, addr + new_len, old_len - new_len);
			if (err)
				return err;
			old_len = new_len;
		}
		vma = find_vma(mm, addr);
		return move_vma(mm, vma, addr, old_len, new_len, new_addr);
	}
	if (new_len <= old_len) {
		if (new_len < old_len) {
			err = do_munmap(mm, addr + new_len, old_len - new_len);
			if (err)
				return err;
		}
		return (long)addr;
	}
	/* Grow in place when the vma ends here and the space after is free. */
	next = vma->vm_next;
	if (addr + old_len == vma->vm_end &&
	    (!next || next->vm_start >= addr + new_len + PAGE_SIZE) &&
	    addr + new_len <= TASK_SIZE && !(vma->vm_flags & VM_GROWSDOWN)) {
		vma_adjust(vma, vma->vm_start, addr + new_len, vma->vm_pgoff);
		return (long)addr;
	}
	new_addr = get_unmapped_area(mm, new_len);
	if (!new_addr)
		return -ENOMEM;
	return move_vma(mm, vma, addr, old_len, new_len, new_addr);
}
