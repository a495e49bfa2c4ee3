// SPDX-License-Identifier: MIT
/*
 * remap_file_pages(): nonlinear file mappings. Mirrors mm/fremap.c of
 * 2.6.3 with seed 001's change to install_page(): a page mapped at an
 * offset other than its linear one is converted with page_convert_anon()
 * in objfile mode, since find_pte() can no longer compute its address.
 */
#include "mm-internal.h"

#include <errno.h>

/* install_file_pte(): remember @pgoff in the pte; the fault reads it. */
static void install_file_pte(struct mm_struct *mm, unsigned long addr,
			     unsigned long pgoff)
{
	pte_t *ptep;

	spin_lock(&mm->page_table_lock);
	ptep = pte_alloc(mm->pgd, addr);
	zap_one_pte(mm, ptep, addr);
	set_pte(ptep, pgoff_to_pte(pgoff));
	__atomic_store_n(shadow_slot(mm, addr), SHADOW_NONLINEAR | pgoff, __ATOMIC_RELAXED);
	spin_unlock(&mm->page_table_lock);
}

/* Make @vma nonlinear: move it to i_mmap_nonlinear. mmap_sem held for write. */
static void vma_make_nonlinear(struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct address_space *mapping = vma->vm_file;

	down(&mapping->i_shared_sem);
	spin_lock(&mm->page_table_lock);
	WRITE_ONCE(vma->vm_flags, vma->vm_flags | VM_NONLINEAR);
	spin_unlock(&mm->page_table_lock);
	list_del(&vma->shared);
	list_add_tail(&vma->shared, &mapping->i_mmap_nonlinear);
	up(&mapping->i_shared_sem);
}

int remap_file_pages(struct mm_struct *mm, unsigned long start, unsigned long size,
		     unsigned long pgoff)
{
	struct vm_area_struct *vma;
	bool write_locked = false;
	int err = 0;

	if ((start & ~PAGE_MASK) || !size || (size & ~PAGE_MASK) ||
	    start >= TASK_SIZE || size > TASK_SIZE - start)
		return -EINVAL;
	down_read(&mm->mmap_sem);
again:
	vma = find_vma(mm, start);
	if (!vma || !(vma->vm_flags & VM_SHARED) || !vma->vm_file ||
	    start < vma->vm_start || start + size > vma->vm_end ||
	    pgoff + (size >> PAGE_SHIFT) > vma->vm_file->max_pages) {
		err = -EINVAL;
		goto out;
	}
	if (!(vma->vm_flags & VM_NONLINEAR)) {
		if (!write_locked) {
			/* Changing vm_flags and the vma's list needs mmap_sem for write. */
			up_read(&mm->mmap_sem);
			down_write(&mm->mmap_sem);
			write_locked = true;
			goto again;
		}
		vma_make_nonlinear(mm, vma);
	}
	/* populate, nonblocking: every pte remembers its new offset. */
	for (unsigned long off = 0; off < size; off += PAGE_SIZE)
		install_file_pte(mm, start + off, pgoff + (off >> PAGE_SHIFT));
out:
	if (write_locked)
		up_write(&mm->mmap_sem);
	else
		up_read(&mm->mmap_sem);
	return err;
}
