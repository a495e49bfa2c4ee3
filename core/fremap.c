// SPDX-License-Identifier: MIT
/*
 * remap_file_pages(): nonlinear file mappings. Mirrors mm/fremap.c of
 * 2.6.3 with seed 001's change to install_page() (a page mapped at an
 * offset other than its linear one is converted with page_convert_anon()
 * in objfile mode, since find_pte() can no longer compute its address)
 * and 2.6.8's truncate check in install_page(); and mm/filemap.c's
 * filemap_populate(), which both remap_file_pages() and the nonlinear
 * fault (do_file_page() in core/memory.c) go through.
 *
 * Locks, outermost first: mmap_sem (read in a fault, read or write in
 * remap_file_pages), lock_page -> i_shared_sem (page_convert_anon(),
 * objfile only), page_table_lock -> the rmap lock (page_add_rmap()).
 * Nothing else: install_page() holds no lock across the page-cache
 * lookup, and re-checks under page_table_lock that truncate has not
 * taken the page meanwhile.
 */
#include "inject.h"
#include "i_mmap.h"
#include "mm-internal.h"

#include <errno.h>

/*
 * install_file_pte(): remember @pgoff in the pte; the fault reads it.
 * Mirrors mm/fremap.c:install_file_pte(). Context: takes page_table_lock.
 */
static void install_file_pte(struct mm_struct *mm, unsigned long addr,
			     unsigned long pgoff)
{
	pte_t *ptep;

	spin_lock(&mm->page_table_lock);
	ptep = pte_alloc(mm->pgd, addr);
	zap_one_pte(mm, ptep, addr);
	/* The shadow first: see install_page(). */
	__atomic_store_n(shadow_slot(mm, addr), SHADOW_NONLINEAR | pgoff, __ATOMIC_RELAXED);
	set_pte(ptep, pgoff_to_pte(pgoff));
	spin_unlock(&mm->page_table_lock);
}

/**
 * install_page() - map file page @page at @addr of nonlinear vma @vma,
 * replacing whatever the pte held
 * @mm: the vma's mm
 * @vma: a shared file vma
 * @addr: the page-aligned address
 * @page: a page of @vma's file, with a reference that becomes the pte's
 *	on success and stays the caller's on error
 *
 * Seed 001: a file page mapped away from its linear offset is converted
 * first (objfile: rmap_ops.install_nonlinear is page_convert_anon()),
 * under lock_page() -> i_shared_sem. page_convert_anon() does nothing
 * when truncate took the page out of its cache before we got the page
 * lock ("truncate won the lock_page() race"); seed 001's install_page()
 * went on to map the page all the same. 2.6.8's install_page() re-checks
 * under page_table_lock that the page still has a mapping and lies
 * below i_size, and fails with -EINVAL otherwise: truncate sets i_size
 * before it zaps the ptes under page_table_lock, and clears
 * page->as.mapping only afterwards, so one of the two is seen whenever
 * the zap has passed this pte (the seeded bug install-page-no-truncate-
 * check restores seed 001's code, which leaves an orphaned pte). ptechain
 * records the pte in a pte_chain and anonvma finds nonlinear file pages
 * by scanning the vmas on i_mmap_nonlinear: neither converts.
 *
 * Mirrors mm/fremap.c:install_page() of seed 001 (2.6.3 + objrmap) with
 * the truncate check of 2.6.8.
 *
 * Context: mmap_sem held (read or write); no spinlock held; may sleep
 * (pte_chain allocation, lock_page). Takes lock_page and i_shared_sem
 * (objfile, out-of-place pages), then page_table_lock and the rmap lock.
 * Return: 0; -ENOMEM; -EINVAL when truncate took the page.
 */
int install_page(struct mm_struct *mm, struct vm_area_struct *vma,
		 unsigned long addr, struct page *page)
{
	struct address_space *mapping = vma->vm_file;
	struct pte_chain *chain = NULL;
	unsigned long pgidx = linear_page_index(vma, addr);
	pte_t *ptep;
	int err = -ENOMEM;

	if (rmap->pte_chain_alloc && !(chain = rmap->pte_chain_alloc(GFP_KERNEL)))
		goto err;

	/* Convert this page to anon for objrmap if it's nonlinear (seed 001). */
	if (rmap->install_nonlinear && !PageAnon(page) && page->index != pgidx) {
		if (injected(INJECT_CONVERT_ANON_UNLOCKED)) {
			/*
			 * Seeded bug: the conversion without lock_page(), so
			 * truncate and reclaim, which hold the page lock, run
			 * alongside it (seed 001: "try_to_unmap might
			 * erroneously return success, but it will never be
			 * called because the page_convert_anon() caller has
			 * locked the page").
			 */
			err = rmap->install_nonlinear(page);
		} else {
			lock_page(page);
			err = rmap->install_nonlinear(page);
			unlock_page(page);
		}
		if (err < 0)
			goto err_free;
	}

	spin_lock(&mm->page_table_lock);
	ptep = pte_alloc(mm->pgd, addr);
	/*
	 * This page may have been truncated (2.6.8). Seeded bug
	 * install-page-no-truncate-check: seed 001's install_page() had no
	 * such check.
	 */
	err = -EINVAL;
	if (!injected(INJECT_INSTALL_PAGE_NO_TRUNCATE_CHECK) &&
	    (!READ_ONCE(page->as.mapping) || page->index >= READ_ONCE(mapping->i_size)))
		goto err_unlock;

	zap_one_pte(mm, ptep, addr);
	mm->rss++;
	/*
	 * The harness's record of the offset this address shows goes in
	 * before the pte that shows it: the lock-free MMU (mm_access())
	 * reads the pte with acquire, then this slot, so a CPU that reaches
	 * the new page is checked against its offset. Stored after the pte,
	 * a CPU could meet the new page with the old offset (the zap left
	 * the pte empty, so no CPU still holds the old one): a report with
	 * no bug behind it.
	 * Release: set_pte() orders this store before the pte.
	 */
	__atomic_store_n(shadow_slot(mm, addr), SHADOW_NONLINEAR | page->index,
			 __ATOMIC_RELAXED);
	set_pte(ptep, mk_pte(page_to_pfn(page),
			     (vma->vm_flags & VM_WRITE) ? PAGE_SHARED : PAGE_READONLY));
	chain = rmap->page_add_rmap(page, vma, addr, ptep, false, chain);
	err = 0;
err_unlock:
	spin_unlock(&mm->page_table_lock);
err_free:
	if (chain)
		rmap->pte_chain_free(chain);
err:
	return err;
}

/**
 * filemap_populate() - map @len bytes at @addr of nonlinear vma @vma to
 * the file from @pgoff on
 * @vma: a shared file vma (VM_NONLINEAR)
 * @addr: page-aligned start
 * @len: a multiple of PAGE_SIZE
 * @pgoff: the file offset of the first page
 * @nonblock: map only pages already in the page cache (install_page());
 *	the others get a file pte that their fault reads (remap_file_pages
 *	with MAP_NONBLOCK). Otherwise each page is read in (the nonlinear
 *	fault).
 *
 * Mirrors mm/filemap.c:filemap_populate() of 2.6.8 (filemap_getpage()
 * is find_get_page() when @nonblock, filemap_nopage() otherwise).
 *
 * Context: mmap_sem held (read or write); may sleep.
 * Return: 0; -EINVAL beyond i_size or when truncate took a page;
 * -ENOMEM.
 */
int filemap_populate(struct vm_area_struct *vma, unsigned long addr,
		     unsigned long len, unsigned long pgoff, bool nonblock)
{
	struct address_space *mapping = vma->vm_file;
	struct mm_struct *mm = vma->vm_mm;
	struct page *page;
	int err;

	for (; len; len -= PAGE_SIZE, addr += PAGE_SIZE, pgoff++) {
		if (pgoff + 1 > READ_ONCE(mapping->i_size))
			return -EINVAL;
		if (nonblock) {
			page = find_get_page(mapping, pgoff);
			if (page && !PageUptodate(page)) {
				put_page(page);	/* being read in: a file pte */
				page = NULL;
			}
		} else {
			page = filemap_nopage(mapping, pgoff);
			if (page == FILEMAP_SIGBUS)
				return -EINVAL;
			if (!page)
				return -ENOMEM;
		}
		if (page) {
			err = install_page(mm, vma, addr, page);
			if (err) {
				put_page(page);
				return err;
			}
		} else {
			install_file_pte(mm, addr, pgoff);
		}
	}
	return 0;
}

/* Make @vma nonlinear: move it to i_mmap_nonlinear. mmap_sem held for write. */
static void vma_make_nonlinear(struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct address_space *mapping = vma->vm_file;

	i_mmap_lock_file(mapping);
	__vma_unlink_file(vma);
	spin_lock(&mm->page_table_lock);
	WRITE_ONCE(vma->vm_flags, vma->vm_flags | VM_NONLINEAR);
	spin_unlock(&mm->page_table_lock);
	if (rmap->i_mmap_tree)
		__vma_link_file(vma);	/* on i_mmap_nonlinear */
	else
		list_add_tail(&vma->shared, &mapping->i_mmap_nonlinear);
	i_mmap_unlock_file(mapping);
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
	/*
	 * populate, MAP_NONBLOCK: cached pages are mapped (install_page()),
	 * the others remember their new offset in a file pte.
	 */
	err = filemap_populate(vma, start, size, pgoff, true);
out:
	if (write_locked)
		up_write(&mm->mmap_sem);
	else
		up_read(&mm->mmap_sem);
	return err;
}
