// SPDX-License-Identifier: MIT
/*
 * swapoff: bring every swapped-out page of the area back into memory,
 * put it back in every pte that names its slot, and free the slots.
 * Mirrors sys_swapoff(), try_to_unuse(), unuse_process(), unuse_vma()
 * and unuse_pte() of 2.6.9's mm/swapfile.c, in every design (the page
 * goes back through the design's page_add_rmap(), as do_swap_page() puts
 * it).
 *
 * The race it lives with: a slot's ptes are in many mms (fork copies
 * them), and forks, exits, faults and reclaim go on meanwhile. It holds
 * the slot's page locked (no try_to_unmap() of it: no new swap pte for
 * the slot; no do_swap_page() of it) and walks the mmlist
 * (core/mm-internal.h) in order: fork puts a child right after its
 * parent before copying a pte, so the walk meets the parent first and
 * then the child, and misses no copy. Each mm is pinned with a user
 * reference taken under mmlist_lock; that is safe only because mmput()
 * drops the last user under the same lock and takes the mm off the list
 * in that hold (atomic_dec_and_lock()): an mm on the list always has a
 * user. An exiting mm is off the list before exit_mmap() zaps its ptes:
 * those slots are freed by the zap, and the scan comes back to them.
 *
 * Where the model departs from 2.6.9:
 * (1) One area, no shmem: shmem_unuse() and the init_mm "reminder" go,
 *     and every mm's walk starts at the head of the mmlist, not at the
 *     mm where the previous slot was found (start_mm: a speed-up).
 * (2) unuse_vma() looks at every pte of the vma; 2.6.9 looked only at
 *     page_address_in_vma() when the page already had an anon_vma (a
 *     speed-up).
 * (3) No signal_pending(), no SWAP_MAP_MAX overflow reset, no
 *     writeback waits (the model's I/O is synchronous).
 * (4) The read is synchronous: try_to_unuse() unlocks a page that
 *     read_swap_cache_async() (core/swap.c) read in at once (2.6.9's I/O
 *     completion) and locks it again, with no wait_on_page_locked()/
 *     writeback() around it.
 * (5) The first pte given back to a page no pte maps sets its index
 *     (2.6.9's page_add_anon_rmap() did so; the model's do_swap_page()
 *     sets it for the pages it reads, and the first mapping of others).
 * (6) The user reference swapoff takes under mmlist_lock BUGs if the mm
 *     had no user left (2.6.9's plain atomic_inc(); refcount_t's check
 *     of later kernels): mmput()'s drop under the lock rules it out.
 * (7) A pin that is an exiting mm's last user is dropped after the page
 *     is unlocked, not inside the walk as 2.6.9 did: that mmput() runs
 *     exit_mmap(), which can drop the last reference to an unlinked file
 *     and truncate it, lock_page() on its pages within the swap page's
 *     lock. lockdep reports that as PG_locked recursion (seen in mixed32
 *     with files dying); in 2.6.9 no holder of such a file page waits on
 *     the swap page, so it could not deadlock there, and the model's
 *     lockdep has no page-lock nesting annotation to say so.
 */
#include "swap.h"

#include <errno.h>
#include <stdlib.h>

#include "bug.h"
#include "cover.h"
#include "die.h"
#include "mm-internal.h"
#include "page_alloc.h"
#include "perturb.h"
#include "rmap.h"

/*
 * A user reference to @mm, found on the mmlist: atomic_inc(&mm->mm_users)
 * under mmlist_lock in try_to_unuse(). Relaxed: the lock orders it
 * against mmput()'s drop to 0.
 */
static void mmget_mmlist(struct mm_struct *mm)
{
	assert_spin_locked(&mmlist_lock);
	line_write(&mm->mm_users, LINE_COUNT);
	BUG_ON(__atomic_fetch_add(&mm->mm_users, 1, __ATOMIC_RELAXED) == 0);
}

/*
 * unuse_pte() of 2.6.9: @ptep holds @entry's swap pte; map @page there
 * instead, read-only and old (do_wp_page() sorts out a later write, as
 * after a fork), and drop the pte's slot count.
 * Context: page locked; page_table_lock held; takes the rmap lock.
 */
static struct pte_chain *unuse_pte(struct vm_area_struct *vma, unsigned long address,
				   pte_t *ptep, swp_entry_t entry, struct page *page,
				   struct pte_chain *chain)
{
	struct mm_struct *mm = vma->vm_mm;

	assert_spin_locked(&mm->page_table_lock);
	if (!swapin_page_mapped(page))
		WRITE_ONCE(page->index, anon_page_index(vma, address));	/* as do_swap_page() */
	mm->rss++;
	get_page(page);			/* the pte's reference */
	set_pte(ptep, pte_mkold(mk_pte(page_to_pfn(page), PAGE_READONLY)));
	chain = rmap->page_add_rmap(page, vma, address, ptep, true, chain);
	swap_free(entry);		/* the swap pte's count */
	/* Not reclaimed again at once after swapon. */
	activate_page(page);
	return chain;
}

/*
 * unuse_vma() of 2.6.9: the pte of @vma naming @entry, if any, gets
 * @page back. An entry is in at most one pte of an mm.
 * Context: as unuse_pte(). Return: true when one was found.
 */
static bool unuse_vma(struct vm_area_struct *vma, swp_entry_t entry, struct page *page,
		      struct pte_chain **chain)
{
	struct mm_struct *mm = vma->vm_mm;
	pte_t swp_pte = swp_entry_to_pte(entry);

	for (unsigned long addr = vma->vm_start; addr < vma->vm_end; addr += PAGE_SIZE) {
		pte_t *ptep = pte_offset(mm->pgd, addr);

		/* "swapoff spends a _lot_ of time in this loop!" */
		if (ptep && pte_same(ptep_get(ptep), swp_pte)) {
			*chain = unuse_pte(vma, addr, ptep, entry, page, *chain);
			return true;
		}
	}
	return false;
}

/*
 * unuse_process() of 2.6.9: give @page back to @mm's pte naming @entry.
 * mmap_sem is tried with the page locked; when it is busy the page lock
 * is let go while waiting for it (the page reference keeps the page in
 * the swap cache: reclaim and the zap of a swap pte free a swap cache
 * page only when nobody else holds it).
 * Context: page locked (let go and retaken); takes mmap_sem (read) and
 * page_table_lock.
 */
static void unuse_process(struct mm_struct *mm, swp_entry_t entry, struct page *page)
{
	struct pte_chain *chain = rmap->pte_chain_alloc ?
				  rmap->pte_chain_alloc(GFP_KERNEL) : NULL;
	struct vm_area_struct *vma;

	if (!down_read_trylock(&mm->mmap_sem)) {
		unlock_page(page);
		down_read(&mm->mmap_sem);
		lock_page(page);
	}
	BUG_ON(!PageSwapCache(page) || page->private != entry.val);
	spin_lock(&mm->page_table_lock);
	for (vma = mm->mmap; vma; vma = vma->vm_next) {
		/*
		 * 2.6.9 looks only where anonymous pages can be: vmas with
		 * an anon_vma. 2.6.8 and the older designs look everywhere.
		 */
		if (rmap->unuse_anon_vmas_only && !vma->anon_vma)
			continue;
		if (unuse_vma(vma, entry, page, &chain))
			break;
	}
	spin_unlock(&mm->page_table_lock);
	up_read(&mm->mmap_sem);
	if (chain)
		rmap->pte_chain_free(chain);
}

/* The pins on exiting mms, dropped once the page is unlocked ((7) above). */
struct mm_pins {
	struct mm_struct **mms;
	int nr, max;
};

/* mmput() of a pin, or kept for unpin_exiting() when it is the last user. */
static void unpin_mm(struct mm_pins *pins, struct mm_struct *mm)
{
	struct mm_struct **grown;

	if (mmput_unless_last(mm))
		return;
	if (pins->nr == pins->max) {
		pins->max = pins->max ? 2 * pins->max : 8;
		grown = rt_calloc((size_t)pins->max, sizeof(*grown));
		for (int i = 0; i < pins->nr; i++)
			grown[i] = pins->mms[i];
		free(pins->mms);
		pins->mms = grown;
	}
	pins->mms[pins->nr++] = mm;
}

/* The last mmput() of each kept pin. Context: no page locked; may sleep. */
static void unpin_exiting(struct mm_pins *pins)
{
	for (int i = 0; i < pins->nr; i++)
		mmput(pins->mms[i]);
	pins->nr = 0;
}

/*
 * The mmlist walk of try_to_unuse() for one locked swap cache page: each
 * mm pinned under mmlist_lock, the lock dropped for unuse_process(), the
 * previous mm's pin dropped only once the next one is pinned (so the
 * cursor stays on the list). Stops when only the cache's count is left.
 * Context: page locked; takes mmlist_lock; an exiting mm's last pin goes
 * to @pins.
 */
static void unuse_mmlist(swp_entry_t entry, struct page *page, struct mm_pins *pins)
{
	struct list_head *p = &mmlist_head;
	struct mm_struct *prev_mm = NULL;

	/* The count is read outside mmlist_lock: nothing nests under it. */
	while (swap_count(entry) > 1) {
		struct mm_struct *mm;

		spin_lock(&mmlist_lock);
		p = p->next;	/* prev_mm's pin keeps p on the list */
		if (p == &mmlist_head) {
			spin_unlock(&mmlist_lock);
			break;
		}
		mm = list_entry(p, struct mm_struct, mmlist);
		mmget_mmlist(mm);
		spin_unlock(&mmlist_lock);
		if (prev_mm)
			unpin_mm(pins, prev_mm);
		prev_mm = mm;
		yield_point_on("try_to_unuse:mm", mm, COVER_MM);
		unuse_process(mm, entry, page);
	}
	if (prev_mm)
		unpin_mm(pins, prev_mm);
}

/*
 * try_to_unuse() of 2.6.9: every slot in use, until none is: read it
 * into the swap cache, give its page back to every pte naming it, and
 * take it out of the swap cache (written first if a reference remains,
 * which a later swap-in reads; the scan comes back to that slot).
 * Context: holds no lock; may sleep. Return: 0 or -ENOMEM.
 */
static int try_to_unuse(void)
{
	struct mm_pins pins = { 0 };
	unsigned long i = 0;
	int err = 0;

	while ((i = swap_find_next_used(i)) != 0) {
		swp_entry_t entry = swp_entry(0, i);
		struct page *page;
		int r = read_swap_cache_async(entry, false, &page);

		if (r < 0) {
			/* Freed meanwhile: allocation is off, it stays free. */
			if (!swap_count(entry))
				continue;
			err = -ENOMEM;
			break;
		}
		if (r == SWAP_CACHE_READ)
			unlock_page(page);	/* the read's end (departure (4)) */
		lock_page(page);
		/* Cached for this slot while referenced and locked: see above. */
		if (!PageSwapCache(page) || page->private != entry.val) {
			unlock_page(page);
			put_page(page);
			continue;
		}
		if (swap_count(entry) > 1)
			unuse_mmlist(entry, page, &pins);
		if (swap_count(entry) > 1 && PageDirty(page))
			swap_writepage(page);
		delete_from_swap_cache(page);
		/*
		 * No pte given back was made dirty: mark the page so that
		 * reclaim keeps its contents.
		 */
		SetPageDirty(page);
		unlock_page(page);
		put_page(page);
		unpin_exiting(&pins);
		yield_point("try_to_unuse:slot");
	}
	free(pins.mms);
	return err;
}

int swapoff(void)
{
	int err;

	might_sleep("swapoff");
	err = swap_set_writeok(false);
	if (err)
		return err;
	err = try_to_unuse();
	if (err) {
		/* sys_swapoff() of 2.6.9 puts the area back on failure. */
		BUG_ON(swap_set_writeok(true));
		return err;
	}
	return 0;
}
