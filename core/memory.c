// SPDX-License-Identifier: MIT
/*
 * The fault paths, zapping, fork's page-table copy, unmap_mapping_range
 * and the emulated MMU's accesses. Mirrors mm/memory.c of 2.6.3 (with the
 * truncate_count re-check of 2.6.8's do_no_page) and its interplay with
 * the rmap of the selected design.
 *
 * Lock order used here (see core/lockdep.c):
 *   mmap_sem (read)
 *     lock_page                      do_swap_page, install_page
 *       i_shared_sem                 unmap_mapping_range
 *         page_table_lock            every pte change
 *           PG_chainlock/PG_maplock  inside page_add_rmap/page_remove_rmap
 *             lru_lock, swap_lock
 * A fault drops page_table_lock to allocate or to read a page, then
 * re-checks the pte it sampled before installing anything.
 */
#include "cover.h"
#include "inject.h"
#include "i_mmap.h"
#include "mm-internal.h"
#include "perturb.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "swap.h"
#include "tlbflush.h"

/* ---- zapping ---- */

/*
 * free_swap_cache() of 2.6: when a pte's reference to a swap cache page
 * is about to go, drop the swap cache copy too if that was its last
 * user, so an exiting process does not leave its swapped-in pages cached
 * forever. Context: page_table_lock may be held (the page lock is only
 * tried).
 */
static void free_swap_cache(struct page *page)
{
	if (PageSwapCache(page) && !TestSetPageLocked(page)) {
		remove_exclusive_swap_page(page);
		unlock_page(page);
	}
}

/*
 * Drop the ptes' references to @pages: the task's queued LRU additions
 * go on the LRU first (one of them may hold one of these pages), then
 * sixteen pages at a time lose their swap cache and their reference,
 * under one hold of lru_lock for those freed. Mirrors
 * mm/swap_state.c:free_pages_and_swap_cache() of 2.6.9.
 * Context: page_table_lock may be held.
 */
static void free_pages_and_swap_cache(struct page **pages, int nr)
{
	lru_add_drain();
	while (nr) {
		int todo = nr < PAGEVEC_SIZE ? nr : PAGEVEC_SIZE;

		for (int i = 0; i < todo; i++)
			free_swap_cache(pages[i]);
		release_pages(pages, todo, 0);
		pages += todo;
		nr -= todo;
	}
}

/*
 * The mmu_gather of 2.6 (include/asm-generic/tlb.h): the pages whose
 * ptes a zap cleared wait here for the TLB flush, and only then lose the
 * pte's reference, as tlb_finish_mmu() frees them after flush_tlb_mm();
 * the data shadow of their addresses changes after the flush too (an
 * access still using the old pte checks against it). A full batch is
 * flushed early, as tlb_remove_page() does. The pte tables that
 * free_pgtables() unhooked wait here too (pte_free_tlb(), which i386
 * makes a tlb_remove_page() of the table's page): a CPU may still be
 * walking one, so it is freed only after the flush.
 */
#define FREE_PTE_NR	64

struct mmu_gather {
	struct mm_struct *mm;
	unsigned int nr;
	unsigned int nr_tables;
	struct {
		struct page *page;	/* the pte's reference; NULL: the zero page */
		bool dirty;		/* the pte was dirty */
		unsigned long address;
		uint64_t shadow;	/* the address's shadow slot after the flush */
	} batch[FREE_PTE_NR];
	pte_t *tables[FREE_PTE_NR];	/* unhooked by pgd_clear(), freed after the flush */
};

static void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm)
{
	tlb->mm = mm;
	tlb->nr = 0;
	tlb->nr_tables = 0;
}

static void set_shadow_slot(struct mm_struct *mm, unsigned long address, uint64_t v)
{
	uint64_t *s = v ? shadow_slot(mm, address) : shadow_slot_lookup(mm, address);

	/*
	 * An address nothing was ever written at, staying so (a none pte's
	 * in a zap): no reset to tell a reader of, and no shared count to
	 * bump for every empty pte of an exiting mm.
	 */
	if (!s || (!v && !__atomic_load_n(s, __ATOMIC_RELAXED)))
		return;
	shadow_reset_begin(s);
	__atomic_store_n(s, v, __ATOMIC_RELAXED);
	shadow_reset_end(s);
}

/*
 * tlb_flush_mmu(): flush, then drop what the batch held. The shadow slots
 * change with page_table_lock still held, so no fault maps the address
 * again before its new stamp is in place.
 */
static void tlb_flush_mmu(struct mmu_gather *tlb)
{
	struct page *pages[FREE_PTE_NR];
	int nr = 0;

	if (!tlb->nr && !tlb->nr_tables)
		return;
	flush_tlb_mm(tlb->mm);
	/*
	 * No CPU is still walking a table unhooked before the flush (the
	 * handshake covers the pgd entry's load as it does the pte's:
	 * core/tlbflush.c), so the tables go, as free_pages_and_swap_cache()
	 * frees 2.6's pte pages with the rest of the batch.
	 */
	for (unsigned int i = 0; i < tlb->nr_tables; i++)
		pte_free(tlb->tables[i]);
	tlb->nr_tables = 0;
	for (unsigned int i = 0; i < tlb->nr; i++) {
		struct page *page = tlb->batch[i].page;

		set_shadow_slot(tlb->mm, tlb->batch[i].address, tlb->batch[i].shadow);
		if (!page)
			continue;
		/*
		 * The dirty bit reaches the page only now: a store through
		 * the old pte that lands before the flush returns must not
		 * find the page cleaned by a writeback that ran since the
		 * pte was cleared. (2.6 moved it at the clear; the store
		 * then could be lost, which only a racing munmap or
		 * truncate, whose data goes anyway, could see. The audit
		 * counts every store that returned, so the model waits.)
		 */
		if (tlb->batch[i].dirty)
			set_page_dirty(page);
		pages[nr++] = page;
	}
	free_pages_and_swap_cache(pages, nr);
	tlb->nr = 0;
}

static void tlb_remove_page(struct mmu_gather *tlb, struct page *page, bool dirty,
			    unsigned long address, uint64_t shadow)
{
	tlb->batch[tlb->nr].page = page;
	tlb->batch[tlb->nr].dirty = dirty;
	tlb->batch[tlb->nr].address = address;
	tlb->batch[tlb->nr].shadow = shadow;
	if (++tlb->nr == FREE_PTE_NR)
		tlb_flush_mmu(tlb);
}

/* pte_free_tlb(): free @table after the next flush. page_table_lock held. */
static void pte_free_tlb(struct mmu_gather *tlb, pte_t *table)
{
	tlb->tables[tlb->nr_tables] = table;
	if (++tlb->nr_tables == FREE_PTE_NR)
		tlb_flush_mmu(tlb);
}

static void tlb_finish_mmu(struct mmu_gather *tlb)
{
	tlb_flush_mmu(tlb);
}

void clear_page_tables(struct mm_struct *mm, unsigned long first, unsigned long nr)
{
	struct mmu_gather tlb;

	assert_spin_locked(&mm->page_table_lock);
	BUG_ON(first + nr > PTRS_PER_PGD);
	tlb_gather_mmu(&tlb, mm);
	for (unsigned long i = first; i < first + nr; i++) {
		pte_t *table = pgd_clear(mm->pgd, i);

		if (!table)
			continue;
		/*
		 * The range was zapped and no vma covers it: every pte is
		 * none, so no pte_chain (ptechain) and no rmap walker can
		 * still point into the table. 2.6 would free a table that
		 * still mapped pages (a leak, and a chain into freed memory);
		 * the model stops there.
		 */
		BUG_ON(!pte_table_empty(table));
		pte_free_tlb(&tlb, table);
	}
	tlb_finish_mmu(&tlb);
}

/*
 * Clear one pte (zap_pte_range()'s body): rmap, rss and dirty/young bits
 * now; a present pte's page reference and the address's shadow, which
 * becomes @shadow, once the TLB is flushed. page_table_lock held.
 */
static void zap_pte(struct mmu_gather *tlb, pte_t *ptep, unsigned long address,
		    uint64_t shadow)
{
	pte_t pte = ptep_get_and_clear(ptep);

	if (pte_present(pte)) {
		struct page *page = pfn_to_page(pte_pfn(pte));

		if (PageReserved(page)) {
			/* The zero page: no rmap, no rss; the flush still counts. */
			tlb_remove_page(tlb, NULL, false, address, shadow);
			return;
		}
		if (pte_young(pte))
			SetPageReferenced(page);
		rmap->page_remove_rmap(page, ptep);
		tlb->mm->rss--;
		tlb_remove_page(tlb, page, pte_dirty(pte), address, shadow);
		return;
	}
	/* No translation to flush: the shadow may change at once. */
	set_shadow_slot(tlb->mm, address, shadow);
	if (!pte_none(pte) && !pte_file(pte))
		free_swap_and_cache(pte_to_swp_entry(pte));
}

/* Unmap one pte and flush (remap_file_pages). page_table_lock held. */
void zap_one_pte(struct mm_struct *mm, pte_t *ptep, unsigned long address)
{
	struct mmu_gather tlb;

	tlb_gather_mmu(&tlb, mm);
	zap_pte(&tlb, ptep, address, 0);
	tlb_finish_mmu(&tlb);
}

void zap_page_range(struct vm_area_struct *vma, unsigned long address,
		    unsigned long size)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long end = address + size;
	struct mmu_gather tlb;

	lru_add_drain();
	spin_lock(&mm->page_table_lock);
	tlb_gather_mmu(&tlb, mm);
	for (unsigned long a = address; a < end; a += PAGE_SIZE) {
		pte_t *ptep = pte_offset(mm->pgd, a);

		if (!ptep) {
			/* No table: skip to the next pgd entry. */
			a = pgd_addr_end(a, end) - PAGE_SIZE;
			continue;
		}
		zap_pte(&tlb, ptep, a, 0);
	}
	/* Flush and free with page_table_lock held, as 2.6.3 did. */
	tlb_finish_mmu(&tlb);
	spin_unlock(&mm->page_table_lock);
}

void zap_nonlinear_range(struct vm_area_struct *vma, unsigned long first,
			 unsigned long last)
{
	struct mm_struct *mm = vma->vm_mm;
	struct mmu_gather tlb;

	spin_lock(&mm->page_table_lock);
	tlb_gather_mmu(&tlb, mm);
	for (unsigned long a = vma->vm_start; a < vma->vm_end; a += PAGE_SIZE) {
		pte_t *ptep = pte_offset(mm->pgd, a);
		struct page *page;
		unsigned long pgoff;
		pte_t pte;

		if (!ptep)
			continue;
		pte = ptep_get(ptep);
		if (!pte_present(pte) || pte_pfn(pte) == ZERO_PAGE_PFN)
			continue;	/* file ptes stay: their fault sees i_size */
		/*
		 * Nonlinear vmas are shared: every page is a file page
		 * (objfile's page_convert_anon() sets PG_anon on some, which
		 * keep their index).
		 */
		page = pfn_to_page(pte_pfn(pte));
		if (page->index < first || page->index > last)
			continue;
		/*
		 * As 2.6.9's zap_pte_range() with details->nonlinear_vma: the
		 * page goes, the offset stays in a file pte.
		 */
		pgoff = page->index;
		zap_pte(&tlb, ptep, a, SHADOW_NONLINEAR | pgoff);
		set_pte(ptep, pgoff_to_pte(pgoff));
	}
	tlb_finish_mmu(&tlb);
	spin_unlock(&mm->page_table_lock);
}

struct unmap_range {
	unsigned long first, last;
};

/* unmap_mapping_range_list()'s body for one vma: zap its part of the range. */
static int unmap_mapping_range_vma(struct vm_area_struct *vma, void *arg)
{
	const struct unmap_range *r = arg;
	unsigned long vstart = vma->vm_pgoff;
	unsigned long vend = vstart + vma_pages(vma) - 1;
	unsigned long zs, ze;

	zs = r->first > vstart ? r->first : vstart;
	ze = r->last < vend ? r->last : vend;
	/* Private vmas lose their COWed copies too, as in 2.6. */
	zap_page_range(vma, vma->vm_start + ((zs - vstart) << PAGE_SHIFT),
		       (ze - zs + 1) << PAGE_SHIFT);
	/* Between two vmas: only the file's lock keeps mremap from moving a pte across. */
	yield_point_on("unmap_mapping_range:vma", vma->vm_file, COVER_MAPPING);
	return 0;
}

void unmap_mapping_range(struct address_space *mapping, unsigned long pgoff,
			 unsigned long nr)
{
	struct unmap_range r = { pgoff, pgoff + nr - 1 };
	struct vm_area_struct *vma;

	if (!nr)
		return;
	i_mmap_lock_file(mapping);
	/*
	 * Release pairs with the acquire in do_no_page(): a fault that
	 * sampled the old count before this truncate retries.
	 */
	__atomic_fetch_add(&mapping->truncate_count, 1, __ATOMIC_RELEASE);
	/* The overlapping vmas: i_mmap and i_mmap_shared, or the prio tree (2.6.8). */
	vma_prio_tree_foreach(mapping, r.first, r.last, unmap_mapping_range_vma, &r);
	/*
	 * Nonlinear vmas whole, as 2.6.7 on did. 2.6.3 zapped only the
	 * window a nonlinear vma would map linearly, missing the pages
	 * remap_file_pages put elsewhere (orphans) and zapping the wrong
	 * ones: seeded bug truncate-nonlinear-linear.
	 */
	list_for_each_entry(vma, &mapping->i_mmap_nonlinear, shared) {
		if (!injected(INJECT_TRUNCATE_NONLINEAR_LINEAR))
			zap_nonlinear_range(vma, r.first, r.last);
		else if (r.first < vma->vm_pgoff + vma_pages(vma) && r.last >= vma->vm_pgoff)
			unmap_mapping_range_vma(vma, &r);
	}
	i_mmap_unlock_file(mapping);
}

/* ---- faults ---- */

/*
 * The index a new anonymous page of @vma at @address gets: relative to
 * vm_pgoff (seed 002), so that mremap, which keeps vm_pgoff, keeps every
 * page findable at vm_start + (index - vm_pgoff).
 */
unsigned long anon_page_index(const struct vm_area_struct *vma, unsigned long address)
{
	if (injected(INJECT_ANON_INDEX_ABSOLUTE) && !vma->vm_file) {
		/*
		 * Seeded bug: the absolute address, as Hugh Dickins'
		 * anobjrmap did ("it was tracking mm and it broke off with
		 * mremap", seed 002). The same number as long as the vma
		 * never moved; after mremap moves it, a new page's index no
		 * longer says where vm_pgoff puts it.
		 */
		return address >> PAGE_SHIFT;
	}
	return linear_page_index(vma, address);
}

/* Shadow bookkeeping when a private copy of a page is made (COW). */
static void shadow_set_private(struct mm_struct *mm, unsigned long address,
			       uint64_t value)
{
	uint64_t *s = shadow_slot(mm, address);

	if (!(__atomic_load_n(s, __ATOMIC_RELAXED) & SHADOW_PRIVATE))
		__atomic_store_n(s, SHADOW_PRIVATE | value, __ATOMIC_RELAXED);
}

static struct pte_chain *chain_alloc(void)
{
	return rmap->pte_chain_alloc ? rmap->pte_chain_alloc(GFP_KERNEL) : NULL;
}

static bool chain_needed(void)
{
	return rmap->pte_chain_alloc != NULL;
}

static void chain_free(struct pte_chain *chain)
{
	if (chain)
		rmap->pte_chain_free(chain);
}

/*
 * establish_pte() of 2.6.3: replace a present pte (a COW copy, or the
 * same page made writable) and flush the old translation.
 * Context: page_table_lock held.
 */
static void establish_pte(struct vm_area_struct *vma, unsigned long address,
			  pte_t *ptep, pte_t entry)
{
	set_pte(ptep, entry);
	flush_tlb_page(vma, address);
}

/*
 * do_anonymous_page() - page_table_lock held on entry, dropped on return.
 * A read maps the zero page; a write a new zeroed anonymous page.
 */
static int do_anonymous_page(struct mm_struct *mm, struct vm_area_struct *vma,
			     pte_t *ptep, unsigned long address, bool write)
{
	struct pte_chain *chain = NULL;
	struct page *page;

	if (!write) {
		if (pte_none(ptep_get(ptep)))
			set_pte(ptep, mk_pte(ZERO_PAGE_PFN, PAGE_READONLY));
		spin_unlock(&mm->page_table_lock);
		return VM_FAULT_MINOR;
	}
	spin_unlock(&mm->page_table_lock);

	/* 2.6.8 on: the vma's anon_vma, at its first anonymous page. */
	if (anon_vma_prepare_fault(vma))
		return VM_FAULT_OOM;
	if (chain_needed() && !(chain = chain_alloc()))
		return VM_FAULT_OOM;
	page = alloc_page(GFP_KERNEL);
	if (!page) {
		chain_free(chain);
		return VM_FAULT_OOM;
	}
	yield_point_on("do_anonymous_page:alloc", mm, COVER_MM);

	spin_lock(&mm->page_table_lock);
	ptep = pte_offset(mm->pgd, address);
	/*
	 * Another thread of this mm faulted it in meanwhile (or reclaim
	 * swapped that out already): only a zero-page pte may be replaced.
	 */
	if (!pte_none(ptep_get(ptep)) &&
	    !(pte_present(ptep_get(ptep)) && pte_pfn(ptep_get(ptep)) == ZERO_PAGE_PFN)) {
		/* Another thread of this mm faulted it in meanwhile. */
		spin_unlock(&mm->page_table_lock);
		put_page(page);
		chain_free(chain);
		return VM_FAULT_MINOR;
	}
	page->index = anon_page_index(vma, address);
	mm->rss++;
	if (pte_present(ptep_get(ptep)) && injected(INJECT_COW_ESTABLISH)) {
		/* Seeded bug: the new page first, the zero page's flush after. */
		establish_pte(vma, address, ptep,
			      pte_mkdirty(pte_mkwrite(mk_pte(page_to_pfn(page), PAGE_SHARED))));
	} else {
		if (pte_present(ptep_get(ptep))) {
			/*
			 * A reader may still see the zero page: its translation
			 * goes before the new page's comes (see do_wp_page()).
			 */
			ptep_get_and_clear(ptep);
			flush_tlb_page(vma, address);
		}
		set_pte(ptep, pte_mkdirty(pte_mkwrite(mk_pte(page_to_pfn(page), PAGE_SHARED))));
	}
	chain = rmap->page_add_rmap(page, vma, address, ptep, true, chain);
	lru_cache_add_active(page);
	spin_unlock(&mm->page_table_lock);
	chain_free(chain);
	return VM_FAULT_MINOR;
}

/*
 * Map file page @pgoff at @address, after the pte was seen as @orig (none,
 * or a file pte of a nonlinear vma). page_table_lock held on entry,
 * dropped on return. Mirrors do_no_page() of 2.6.8, with the
 * truncate_count sample/re-check that closes the race with truncate.
 */
static int do_no_page(struct mm_struct *mm, struct vm_area_struct *vma,
		      unsigned long address, pte_t orig, unsigned long pgoff,
		      bool write)
{
	struct address_space *mapping = vma->vm_file;
	bool shared = vma->vm_flags & VM_SHARED;
	struct pte_chain *chain = NULL;
	struct page *page, *new_page;
	unsigned long sequence;
	bool anon = false;
	uint64_t cow_value = 0;
	pte_t *ptep, entry;

	spin_unlock(&mm->page_table_lock);
retry:
	/* Acquire pairs with the release in unmap_mapping_range(). */
	sequence = __atomic_load_n(&mapping->truncate_count, __ATOMIC_ACQUIRE);
	page = filemap_nopage(mapping, pgoff);
	if (page == FILEMAP_SIGBUS)
		return VM_FAULT_SIGBUS;
	if (!page)
		return VM_FAULT_OOM;
	yield_point_on("do_no_page:after_lookup", page, COVER_PAGE);
	if (chain_needed() && !(chain = chain_alloc())) {
		put_page(page);
		return VM_FAULT_OOM;
	}
	if (write && !shared) {
		/* Private write: copy-on-write right away (break_cow). */
		if (anon_vma_prepare_fault(vma)) {
			chain_free(chain);
			put_page(page);
			return VM_FAULT_OOM;
		}
		new_page = alloc_page(GFP_KERNEL);
		if (!new_page) {
			chain_free(chain);
			put_page(page);
			return VM_FAULT_OOM;
		}
		/*
		 * The copy reads the data word once, as the kernel's
		 * copy_user_highpage() reads the page: a store racing it
		 * lands before or after, and the copy's stamp is what it read.
		 */
		cow_value = page_data_read(page);
		page_data_write(new_page, cow_value);
		put_page(page);
		page = new_page;
		anon = true;
	}

	spin_lock(&mm->page_table_lock);
	/*
	 * Seeded bug truncate-no-recheck: no re-check, the nopage/truncate
	 * race that mapping->truncate_count closed in 2.6.8: a page looked
	 * up before a truncate zapped the range is mapped after it, beyond
	 * i_size and out of the page cache.
	 */
	if (!injected(INJECT_TRUNCATE_NO_RECHECK) &&
	    sequence != __atomic_load_n(&mapping->truncate_count, __ATOMIC_ACQUIRE)) {
		/* A truncate ran meanwhile: the page may be orphaned. */
		spin_unlock(&mm->page_table_lock);
		chain_free(chain);
		chain = NULL;
		put_page(page);
		anon = false;
		goto retry;
	}
	ptep = pte_alloc(mm->pgd, address);
	if (!pte_same(ptep_get(ptep), orig)) {
		spin_unlock(&mm->page_table_lock);
		chain_free(chain);
		put_page(page);
		return VM_FAULT_MINOR;
	}
	entry = mk_pte(page_to_pfn(page), write || (shared && (vma->vm_flags & VM_WRITE)) ?
		       PAGE_SHARED : PAGE_READONLY);
	if (write)
		entry = pte_mkdirty(entry);
	if (anon) {
		page->index = anon_page_index(vma, address);
		shadow_set_private(mm, address, cow_value);
	}
	mm->rss++;
	set_pte(ptep, entry);
	chain = rmap->page_add_rmap(page, vma, address, ptep, anon, chain);
	if (anon)
		lru_cache_add_active(page);
	spin_unlock(&mm->page_table_lock);
	chain_free(chain);
	return VM_FAULT_MAJOR;
}

/*
 * do_file_page() - a fault on a file pte of a nonlinear vma, which
 * remembers the file offset. page_table_lock held on entry, dropped on
 * return. The page is read in and mapped by filemap_populate() through
 * install_page() (core/fremap.c), which re-checks truncate under
 * page_table_lock: no truncate_count retry here. A private write (a
 * nonlinear vma is shared in the model, so never) falls back to
 * do_no_page() at the pte's offset.
 *
 * Mirrors mm/memory.c:do_file_page() of 2.6.3/2.6.8 (populate).
 */
static int do_file_page(struct mm_struct *mm, struct vm_area_struct *vma,
			unsigned long address, pte_t orig, bool write)
{
	unsigned long pgoff = pte_to_pgoff(orig);
	int err;

	if (write && !(vma->vm_flags & VM_SHARED))
		return do_no_page(mm, vma, address, orig, pgoff, write);
	spin_unlock(&mm->page_table_lock);

	err = filemap_populate(vma, address, PAGE_SIZE, pgoff, false);
	if (err == -ENOMEM)
		return VM_FAULT_OOM;
	if (err)
		return VM_FAULT_SIGBUS;
	return VM_FAULT_MAJOR;
}

/*
 * do_wp_page() - a write to a present read-only pte. page_table_lock held
 * on entry, dropped on return. Mirrors mm/memory.c of 2.6.3: reuse an
 * exclusive anonymous page, else copy it. Exclusive is can_share_swap_page()
 * of 2.6.3-2.6.9: the page count, so a get_user_pages() pin makes a copy
 * (the pinned page stays with whoever else maps it), and a swap-cache
 * page only when no other swap pte shares its slot.
 */
static int do_wp_page(struct mm_struct *mm, struct vm_area_struct *vma,
		      unsigned long address, pte_t *ptep, pte_t pte)
{
	struct page *old_page = pfn_to_page(pte_pfn(pte));
	struct pte_chain *chain = NULL;
	struct page *new_page;
	uint64_t value;

	if (vma->vm_flags & VM_SHARED) {
		/* A shared page after mprotect(PROT_WRITE): no copy. */
		establish_pte(vma, address, ptep, pte_mkyoung(pte_mkdirty(pte_mkwrite(pte))));
		spin_unlock(&mm->page_table_lock);
		return VM_FAULT_MINOR;
	}
	if (!PageReserved(old_page) && PageAnon(old_page) && !TestSetPageLocked(old_page)) {
		/*
		 * can_share_swap_page(): only this pte (and possibly the swap
		 * cache, whose slot nobody else uses) holds the page.
		 */
		bool reuse = page_count(old_page) == 1 ||
			(PageSwapCache(old_page) && page_count(old_page) == 2 &&
			 remove_exclusive_swap_page(old_page));

		if (!reuse && injected(INJECT_COW_REUSE))
			/*
			 * Seeded bug: the page count alone decides, as if the
			 * swap cache were the only other user of a cached
			 * page; exclusive_swap_page()'s look at the slot's
			 * count (other processes' swap ptes) is skipped, and
			 * the page stays in the swap cache, written.
			 */
			reuse = PageSwapCache(old_page) && page_count(old_page) == 2;

		unlock_page(old_page);
		if (reuse) {
			establish_pte(vma, address, ptep,
				      pte_mkyoung(pte_mkdirty(pte_mkwrite(pte))));
			spin_unlock(&mm->page_table_lock);
			return VM_FAULT_MINOR;
		}
	}
	if (!PageReserved(old_page))
		get_page(old_page);
	spin_unlock(&mm->page_table_lock);

	if (anon_vma_prepare_fault(vma))
		goto out_oom;
	if (chain_needed() && !(chain = chain_alloc()))
		goto out_oom;
	new_page = alloc_page(GFP_KERNEL);
	if (!new_page)
		goto out_oom_chain;
	yield_point_on("do_wp_page:copy", old_page, COVER_PAGE);

	spin_lock(&mm->page_table_lock);
	ptep = pte_offset(mm->pgd, address);
	if (pte_same(ptep_get(ptep), pte) ||
	    (pte_present(ptep_get(ptep)) && pte_pfn(ptep_get(ptep)) == pte_pfn(pte) &&
	     !pte_write(ptep_get(ptep)))) {
		uint64_t *s = shadow_slot(mm, address);

		/*
		 * The copy: the value this mm sees now, read once (a store
		 * through another mm's shared mapping may race it: it lands
		 * before or after). The new page's stamp is in its shadow
		 * slot before its pte is: an access through the new pte
		 * checks against the slot, one through the old pte (a file
		 * page) against the file's shadow (mm_access()).
		 */
		value = PageReserved(old_page) ? 0 : page_data_read(old_page);
		page_data_write(new_page, value);
		if (!(__atomic_load_n(s, __ATOMIC_RELAXED) & SHADOW_PRIVATE))
			__atomic_store_n(s, SHADOW_PRIVATE | value, __ATOMIC_RELAXED);
		/*
		 * break_cow(): 2.6.3's ptep_establish() installs the copy and
		 * then flushes, so for a moment a CPU may still read the old
		 * page through its stale translation after another has
		 * written the copy: an ordering anomaly the data-integrity
		 * check cannot tell from corruption. The model clears and
		 * flushes first, then installs the copy, as later kernels'
		 * ptep_clear_flush() there does.
		 */
		if (!injected(INJECT_COW_ESTABLISH)) {
			ptep_get_and_clear(ptep);
			flush_tlb_page(vma, address);
		}
		if (PageReserved(old_page))
			mm->rss++;
		else
			rmap->page_remove_rmap(old_page, ptep);
		new_page->index = anon_page_index(vma, address);
		if (injected(INJECT_COW_ESTABLISH)) {
			/* Seeded bug: 2.6.3's ptep_establish(), copy first. */
			establish_pte(vma, address, ptep, pte_mkyoung(pte_mkdirty(pte_mkwrite(
				mk_pte(page_to_pfn(new_page), PAGE_SHARED)))));
		} else {
			set_pte(ptep, pte_mkyoung(pte_mkdirty(pte_mkwrite(
				mk_pte(page_to_pfn(new_page), PAGE_SHARED)))));
		}
		/* The pte's reference, once no CPU can use the old pte. */
		if (!PageReserved(old_page))
			put_page(old_page);
		chain = rmap->page_add_rmap(new_page, vma, address, ptep, true, chain);
		lru_cache_add_active(new_page);
		new_page = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	if (new_page)
		put_page(new_page);
	chain_free(chain);
	if (!PageReserved(old_page))
		put_page(old_page);
	return VM_FAULT_MINOR;

out_oom_chain:
	chain_free(chain);
out_oom:
	if (!PageReserved(old_page))
		put_page(old_page);
	return VM_FAULT_OOM;
}

/*
 * Whether a locked swap cache page has a pte already (the rmap lock's
 * answer). Context: page locked, page_table_lock held.
 */
bool swapin_page_mapped(struct page *page)
{
	bool mapped;

	rmap_lock(page);
	mapped = rmap->page_mapped(page);
	rmap_unlock(page);
	return mapped;
}

/*
 * do_swap_page() - the pte holds a swap entry. page_table_lock held on
 * entry, dropped on return. Mirrors mm/memory.c of 2.6.3.
 */
static int do_swap_page(struct mm_struct *mm, struct vm_area_struct *vma,
			unsigned long address, pte_t orig, bool write)
{
	swp_entry_t entry = pte_to_swp_entry(orig);
	struct pte_chain *chain = NULL;
	int ret = VM_FAULT_MINOR;
	struct page *page;
	pte_t *ptep, pte;

	spin_unlock(&mm->page_table_lock);
again:
	switch (read_swap_cache_async(entry, true, &page)) {
	case 0:
		lock_page(page);
		break;
	case SWAP_CACHE_READ:
		ret = VM_FAULT_MAJOR;
		break;
	case -ENOENT:
		/*
		 * The slot was freed, so the pte we sampled changed
		 * meanwhile. It may hold the same entry again all the same:
		 * swapped in, the slot freed, and the page swapped out to
		 * that slot again (get_swap_page() reuses the lowest free
		 * slot) while this CPU was away. Like 2.6.3, back out with
		 * VM_FAULT_OOM when the pte is the same (2.6's
		 * read_swap_cache_async() cannot tell this from a failed
		 * allocation) and with VM_FAULT_MINOR when it is not.
		 */
		yield_point("do_swap_page:slot_freed");
		spin_lock(&mm->page_table_lock);
		ptep = pte_offset(mm->pgd, address);
		ret = pte_same(ptep_get(ptep), orig) ? VM_FAULT_OOM : VM_FAULT_MINOR;
		spin_unlock(&mm->page_table_lock);
		return ret;
	default:
		return VM_FAULT_OOM;
	}
	yield_point_on("do_swap_page:after_lookup", page, COVER_PAGE);
	if (!PageSwapCache(page) || page->private != entry.val) {
		/* Reclaim freed it from the swap cache meanwhile. */
		unlock_page(page);
		put_page(page);
		goto again;
	}
	if (chain_needed() && !(chain = chain_alloc())) {
		unlock_page(page);
		put_page(page);
		return VM_FAULT_OOM;
	}

	spin_lock(&mm->page_table_lock);
	ptep = pte_offset(mm->pgd, address);
	if (!pte_same(ptep_get(ptep), orig)) {
		spin_unlock(&mm->page_table_lock);
		unlock_page(page);
		put_page(page);
		chain_free(chain);
		return VM_FAULT_MINOR;
	}
	/*
	 * A page read in here gets its index now, under page_table_lock,
	 * where expand_stack() cannot move vm_start/vm_pgoff under us (2.6.7's
	 * page_add_anon_rmap() does it here too). A page found in the swap
	 * cache keeps the index it was created with, unless no pte maps it
	 * yet: swapoff read it in and let go of its lock before mapping it
	 * anywhere (unuse_process()), and the first mapping gives the index,
	 * as 2.6.7's page_add_anon_rmap() did. A word store: the aging of
	 * 2.6.9 reads the index holding no lock of the page (vma_address()).
	 */
	if (ret == VM_FAULT_MAJOR || !swapin_page_mapped(page))
		WRITE_ONCE(page->index, anon_page_index(vma, address));
	/* The page's reference becomes the pte's. */
	swap_free(entry);
	mm->rss++;
	pte = mk_pte(page_to_pfn(page), PAGE_READONLY);
	if (write && remove_exclusive_swap_page(page))
		pte = pte_mkdirty(pte_mkwrite(mk_pte(page_to_pfn(page), PAGE_SHARED)));
	set_pte(ptep, pte);
	chain = rmap->page_add_rmap(page, vma, address, ptep, true, chain);
	spin_unlock(&mm->page_table_lock);
	unlock_page(page);
	chain_free(chain);
	return ret;
}

int handle_mm_fault(struct mm_struct *mm, struct vm_area_struct *vma,
		    unsigned long address, bool write)
{
	pte_t *ptep, pte;

	address &= PAGE_MASK;
	if (write && !(vma->vm_flags & VM_WRITE))
		return VM_FAULT_SIGBUS;
	spin_lock(&mm->page_table_lock);
	ptep = pte_alloc(mm->pgd, address);
	pte = ptep_get(ptep);
	if (!pte_present(pte)) {
		if (pte_none(pte)) {
			if (vma->vm_file)
				return do_no_page(mm, vma, address, pte,
						  linear_page_index(vma, address), write);
			return do_anonymous_page(mm, vma, ptep, address, write);
		}
		if (pte_file(pte))
			return do_file_page(mm, vma, address, pte, write);
		return do_swap_page(mm, vma, address, pte, write);
	}
	if (write && !pte_write(pte))
		return do_wp_page(mm, vma, address, ptep, pte);	/* zero page too */
	/*
	 * Another CPU mapped it meanwhile. 2.6.3 rewrites the pte here
	 * (establish_pte() of the value it read); the model only adds the
	 * bits, atomically, as the MMU does: a CPU's lock-free dirty bit set
	 * since the read would otherwise be lost with no flush to notice.
	 */
	if (write)
		ptep_mkdirty(ptep, NULL);
	else
		ptep_mkyoung(ptep, NULL);
	spin_unlock(&mm->page_table_lock);
	return VM_FAULT_MINOR;
}

/* ---- get_user_pages ---- */

/*
 * follow_page() of 2.6.9: the page the pte at @address maps, if the pte
 * allows the access (present; writable for @write, the page marked dirty
 * now when the pte is clean, as 2.6.9 did), else NULL: fault it.
 * Context: page_table_lock held.
 */
static struct page *follow_page(struct mm_struct *mm, unsigned long address, bool write)
{
	pte_t *ptep = pte_offset(mm->pgd, address);
	struct page *page;
	pte_t pte;

	if (!ptep)
		return NULL;
	pte = ptep_get(ptep);
	if (!pte_present(pte) || (write && !pte_write(pte)))
		return NULL;
	page = pfn_to_page(pte_pfn(pte));
	if (PageReserved(page))
		return page;
	if (write && !pte_dirty(pte))
		set_page_dirty(page);
	SetPageReferenced(page);	/* mark_page_accessed() */
	return page;
}

/*
 * untouched_anonymous_page() of 2.6.9: an anonymous vma with no page
 * table at @address yet; a read pins the zero page rather than fault.
 * Context: page_table_lock held.
 */
static bool untouched_anonymous_page(struct mm_struct *mm, struct vm_area_struct *vma,
				     unsigned long address)
{
	return !vma->vm_file && !pte_offset(mm->pgd, address);
}

int get_user_pages(struct mm_struct *mm, unsigned long start, int len, bool write,
		   struct page **pages, struct vm_area_struct **vmas)
{
	unsigned long need = write ? VM_WRITE : VM_READ;
	int i = 0;

	start &= PAGE_MASK;
	while (len) {
		/* find_extend_vma(): the stack grows for an I/O too. */
		struct vm_area_struct *vma = find_vma(mm, start);

		if (vma && start < READ_ONCE(vma->vm_start) &&
		    (!(vma->vm_flags & VM_GROWSDOWN) || expand_stack(vma, start)))
			vma = NULL;
		if (!vma || !(vma->vm_flags & need))
			return i ? i : -EFAULT;
		spin_lock(&mm->page_table_lock);
		do {
			struct page *page;

			while (!(page = follow_page(mm, start, write))) {
				if (!write && untouched_anonymous_page(mm, vma, start)) {
					page = pfn_to_page(ZERO_PAGE_PFN);
					break;
				}
				spin_unlock(&mm->page_table_lock);
				switch (handle_mm_fault(mm, vma, start, write)) {
				case VM_FAULT_SIGBUS:
					return i ? i : -EFAULT;
				case VM_FAULT_OOM:
					return i ? i : -ENOMEM;
				default:
					break;
				}
				spin_lock(&mm->page_table_lock);
			}
			/*
			 * The pin, under page_table_lock: try_to_unmap_one()
			 * (2.6.7+) compares the count with the mapcount under
			 * this lock, so it sees the pin or the pte is gone.
			 */
			if (!PageReserved(page))
				get_page(page);
			pages[i] = page;
			if (vmas)
				vmas[i] = vma;
			i++;
			start += PAGE_SIZE;
			len--;
		} while (len && start < READ_ONCE(vma->vm_end));
		spin_unlock(&mm->page_table_lock);
	}
	return i;
}

/* ---- fork ---- */

/*
 * copy_page_range() - fork's copy of @vma's ptes into @dst (as @dst_vma).
 * Takes dst's page_table_lock, then src's nested, as 2.6.3 does; a
 * pte_chain that cannot be had atomically is allocated with both dropped.
 * Context: src's mmap_sem held for write.
 * Return: 0, or -ENOMEM (the caller tears the child down).
 */
int copy_page_range(struct mm_struct *dst, struct mm_struct *src,
		    struct vm_area_struct *dst_vma, struct vm_area_struct *vma)
{
	bool cow = !(vma->vm_flags & VM_SHARED) && (vma->vm_flags & VM_WRITE);
	struct pte_chain *chain = NULL;
	unsigned long address = vma->vm_start;

	if (chain_needed() && !(chain = chain_alloc()))
		return -ENOMEM;
	spin_lock(&dst->page_table_lock);
	spin_lock_nested(&src->page_table_lock, SINGLE_DEPTH_NESTING);
	while (address < vma->vm_end) {
		pte_t *src_ptep = pte_offset(src->pgd, address);
		uint64_t *src_shadow = shadow_slot_lookup(src, address);
		pte_t *dst_ptep;
		pte_t pte;

		if (!src_ptep) {
			address = pgd_addr_end(address, vma->vm_end);
			continue;
		}
		/*
		 * The stamps follow now for what no CPU of src can store to
		 * any more; those of ptes it may still store through (a
		 * stale writable TLB entry) once dup_mmap() has flushed them
		 * (fork.c: dup_mmap_shadow()).
		 */
		if (src_shadow && __atomic_load_n(src_shadow, __ATOMIC_RELAXED))
			__atomic_store_n(shadow_slot(dst, address),
					 __atomic_load_n(src_shadow, __ATOMIC_RELAXED),
					 __ATOMIC_RELAXED);
		pte = ptep_get(src_ptep);
		if (pte_none(pte))
			goto next;
		dst_ptep = pte_alloc(dst->pgd, address);
		if (!pte_present(pte)) {
			if (!pte_file(pte))
				BUG_ON(!swap_duplicate(pte_to_swp_entry(pte)));
			set_pte(dst_ptep, pte);
			goto next;
		}
		if (pte_pfn(pte) == ZERO_PAGE_PFN) {
			set_pte(dst_ptep, pte);
			goto next;
		}
		if (chain_needed() && !chain) {
			chain = rmap->pte_chain_alloc(GFP_ATOMIC);
			if (!chain) {
				spin_unlock(&src->page_table_lock);
				spin_unlock(&dst->page_table_lock);
				chain = chain_alloc();
				if (!chain)
					return -ENOMEM;
				spin_lock(&dst->page_table_lock);
				spin_lock_nested(&src->page_table_lock, SINGLE_DEPTH_NESTING);
				continue;	/* the pte may have changed */
			}
		}
		if (cow) {
			ptep_set_wrprotect(src_ptep);
			pte = pte_wrprotect(ptep_get(src_ptep));
			if (!pte_present(pte))
				continue;	/* reclaim or MMU raced: redo */
		}
		if (vma->vm_flags & VM_SHARED)
			pte = pte_mkclean(pte);
		pte = pte_mkold(pte);
		/* A CPU stalled mid-copy, both page_table_locks held. */
		yield_point_on("copy_page_range:pte", src, COVER_MM);
		{
			struct page *page = pfn_to_page(pte_pfn(pte));

			get_page(page);
			dst->rss++;
			set_pte(dst_ptep, pte);
			chain = rmap->page_add_rmap(page, dst_vma, address, dst_ptep,
						    PageAnon(page), chain);
		}
next:
		address += PAGE_SIZE;
	}
	spin_unlock(&src->page_table_lock);
	spin_unlock(&dst->page_table_lock);
	chain_free(chain);
	return 0;
}

/* ---- the MMU ---- */

#define STACK_GUARD_GAP	(32UL * PAGE_SIZE)
#define ACCESS_TRIES	64

static uint64_t new_stamp(struct mm_struct *mm)
{
	uint64_t seq = __atomic_add_fetch(&mm->stamp_seq, 1, __ATOMIC_RELAXED);

	return ((uint64_t)(mm->id & 0xfffff) << 40) | (seq & ((1ULL << 40) - 1));
}

static void report_corruption(struct mm_struct *mm, unsigned long address,
			      unsigned long pfn, uint64_t expected, uint64_t found)
{
	struct vm_report r;

	memset(&r, 0, sizeof(r));
	r.kind = VM_REPORT_AUDIT;
	snprintf(r.message, sizeof(r.message),
		 "data integrity: mm %d address %#lx (pfn %lu) expected stamp %#llx, found %#llx",
		 mm->id, address, pfn, (unsigned long long)expected,
		 (unsigned long long)found);
	snprintf(r.signature, sizeof(r.signature), "audit:data-integrity");
	vm_report_emit(&r);
}

static void report_freed_page(struct mm_struct *mm, unsigned long address,
			      struct page *page, bool write)
{
	struct vm_report r;

	memset(&r, 0, sizeof(r));
	r.kind = VM_REPORT_AUDIT;
	snprintf(r.message, sizeof(r.message),
		 "data integrity: mm %d address %#lx: a %s through a stale translation reached "
		 "pfn %lu after it was freed (a TLB flush returned before the access ended, "
		 "or left the translation cached)",
		 mm->id, address, write ? "store" : "load", page_to_pfn(page));
	snprintf(r.signature, sizeof(r.signature), "audit:data-integrity");
	vm_report_emit(&r);
}

/*
 * The fault, as do_page_fault() of 2.6 takes it: mmap_sem for read,
 * find_vma(), the stack and permission checks, handle_mm_fault(), up_read.
 * Return: ACCESS_OK to restart the access (the instruction), or its end.
 */
static enum mm_access_result mm_fault(struct mm_struct *mm, unsigned long address,
				      bool write)
{
	enum mm_access_result res = ACCESS_SEGV;
	struct vm_area_struct *vma;

	down_read(&mm->mmap_sem);
	vma = find_vma(mm, address);
	if (!vma)
		goto out_up;
	if (address < READ_ONCE(vma->vm_start)) {
		if (!(vma->vm_flags & VM_GROWSDOWN) ||
		    READ_ONCE(vma->vm_start) - address > STACK_GUARD_GAP ||
		    expand_stack(vma, address))
			goto out_up;
	}
	if (write && !(vma->vm_flags & VM_WRITE))
		goto out_up;
	switch (handle_mm_fault(mm, vma, address, write)) {
	case VM_FAULT_OOM:
		res = ACCESS_OOM;
		break;
	case VM_FAULT_SIGBUS:
		res = ACCESS_SIGBUS;
		break;
	default:
		res = ACCESS_OK;
		break;
	}
out_up:
	up_read(&mm->mmap_sem);
	return res;
}

/*
 * The load or store itself, inside the TLB window, through @page: check
 * a load against what the page must hold, or store a new stamp, keeping
 * the data-integrity pair (page.h) consistent.
 *
 * What the page must hold is derived from harness-side state only, never
 * from a vma (no mmap_sem is held here): a page of a file's cache
 * (page->as.mapping, read once) is judged against the file's shadow at its
 * index; any other page (anonymous, a COW copy, the zero page) against the
 * address's slot of the mm's shadow. During a COW this is what lets an
 * access still using the old pte check the file page against the file.
 * Which page of the file the address must show is the audit's to judge
 * (it holds the locks to read the vma), not this path's.
 */
static enum mm_access_result mm_access_page(struct mm_struct *mm, unsigned long address,
					    unsigned long pfn, bool write, uint64_t *stamp)
{
	struct page *page = pfn_to_page(pfn);
	struct address_space *mapping = NULL;
	enum mm_access_result res = ACCESS_OK;
	unsigned long index = 0;
	uint64_t *w;

	/*
	 * A free page's owner fields are stale (a freed anonymous page
	 * keeps its anon_vma in the union with mapping): only a translation
	 * a skipped flush left behind can lead here, and the access is
	 * reported, not made.
	 */
	if (!PageReserved(page) && page_count(page) <= 0)
		goto out_freed;
	if (!PageReserved(page) && page_in_file_cache(page)) {
		mapping = READ_ONCE(page->as.mapping);
		index = READ_ONCE(page->index);
	}
	if (mapping && index >= mapping->max_pages)
		goto out_freed;		/* freed and reused under a stale translation */
	w = mapping ? &mapping->shadow[index] : shadow_slot(mm, address);
	if (write) {
		uint64_t v = new_stamp(mm);

		shadow_update_begin(w);
		page_data_write(page, v);
		shadow_update_end(w, mapping ? v : SHADOW_PRIVATE | v);
		if (stamp)
			*stamp = v;
	} else {
		uint64_t found, expected;

		expected = shadow_read_pair(w, PageReserved(page) ? NULL : page, &found);
		if (!mapping)
			expected = expected & SHADOW_PRIVATE ? expected & ~SHADOW_PRIVATE : 0;
		if (found != expected) {
			report_corruption(mm, address, pfn, expected, found);
			res = ACCESS_CORRUPT;
		}
		if (stamp)
			*stamp = found;
	}
	/*
	 * Still inside the window: the page cannot have been freed (its
	 * pte's reference goes only after the flush that drops this CPU's
	 * entry and waits for this access), unless a flush was skipped.
	 */
	if (!PageReserved(page) && page_count(page) <= 0)
		goto out_freed;
	return res;

out_freed:
	report_freed_page(mm, address, page, write);
	return ACCESS_CORRUPT;
}

enum mm_access_result mm_access(struct mm_struct *mm, unsigned long address,
				bool write, uint64_t *stamp)
{
	address &= PAGE_MASK;
	for (int tries = 0; tries < ACCESS_TRIES; tries++) {
		enum mm_access_result res;
		unsigned long pfn;

		/*
		 * The MMU: this CPU's TLB, else a lock-free walk setting
		 * young/dirty as hardware does, inside the window a TLB flush
		 * of this mm drops entries in and waits for
		 * (core/tlbflush.c). No emulated lock from here to
		 * tlb_access_end().
		 */
		tlb_access_begin(mm);
		if (!tlb_translate(mm, address, write, &pfn)) {
			tlb_access_end();
			res = mm_fault(mm, address, write);
			if (res != ACCESS_OK)
				return res;
			continue;	/* the instruction restarts */
		}
		/*
		 * The translation is in this CPU's TLB: a zap, reclaim or COW
		 * may clear the pte from here on, but its flush drops the
		 * entry and waits until the load or store below has landed,
		 * and only then frees or reuses the page.
		 */
		yield_point_on("mm_access:after_mmu", mm, COVER_MM);
		res = mm_access_page(mm, address, pfn, write, stamp);
		tlb_access_end();
		return res;
	}
	/* Reclaim kept taking the page away: an OOM-like back-off. */
	return ACCESS_OOM;
}


/* ---- direct I/O through get_user_pages() pins (the data oracle's side) ---- */

uint64_t shadow_reset_seq[SHADOW_RESET_HASH] ____cacheline_aligned;

/*
 * The shadow word the data of @page answers to at @address of @vma, as
 * mm_access() chooses it; NULL where none can be judged (the zero page, a
 * file page out of its place).
 */
static uint64_t *dma_word(struct mm_struct *mm, struct vm_area_struct *vma,
			  unsigned long address, struct page *page, bool *file)
{
	struct address_space *mapping = vma->vm_file;

	*file = false;
	if (PageReserved(page))
		return NULL;
	if (mapping && ((vma->vm_flags & VM_SHARED) ||
			READ_ONCE(page->as.mapping) == mapping)) {
		if (READ_ONCE(page->index) != file_offset_at(mm, vma, address))
			return NULL;
		*file = true;
		return &mapping->shadow[READ_ONCE(page->index)];
	}
	return shadow_slot(mm, address);
}

void gup_dma_begin(struct mm_struct *mm, struct vm_area_struct *vma,
		   unsigned long address, struct page *page, struct gup_dma *dma)
{
	uint64_t expected;
	bool file;

	address &= PAGE_MASK;
	dma->word = dma_word(mm, vma, address, page, &file);
	if (!dma->word)
		return;
	dma->resets = shadow_reset_snapshot(dma->word);
	dma->word_then = shadow_read_pair(dma->word, page, &dma->data_then);
	expected = dma->word_then;
	if (!file)
		expected = expected & SHADOW_PRIVATE ? expected & ~SHADOW_PRIVATE : 0;
	/*
	 * The page is no longer what the address shows (a COW since the pin,
	 * legitimately): nothing to judge it against.
	 */
	if (dma->data_then != expected)
		dma->word = NULL;
}

uint64_t gup_dma_write(struct mm_struct *mm, unsigned long address, struct page *page)
{
	uint64_t *w = shadow_slot(mm, address & PAGE_MASK);
	uint64_t v = new_stamp(mm);

	/* The device's transfer may start long after the pin. */
	yield_point_on("gup_dma:pinned", page, COVER_PAGE);
	shadow_update_begin(w);
	page_data_write(page, v);
	shadow_update_end(w, SHADOW_PRIVATE | v);
	set_page_dirty(page);
	return v;
}

enum mm_access_result gup_dma_check(struct mm_struct *mm, unsigned long address,
				    struct page *page, const struct gup_dma *dma)
{
	uint64_t data;

	yield_point_on("gup_dma:pinned", page, COVER_PAGE);
	if (!dma->word)
		return ACCESS_OK;
	data = page_data_read(page);
	/*
	 * Pairs with the release fence in shadow_update_begin(): a store
	 * whose data this read saw has made the word busy, or moved it.
	 */
	memory_fence(__ATOMIC_ACQUIRE);
	/*
	 * The word back at its old value after a reset (a truncate or zap
	 * that zeroed it once the user's store had moved it) says nothing:
	 * the store it undid may be the one that changed the data.
	 */
	if (data != dma->data_then &&
	    __atomic_load_n(dma->word, __ATOMIC_RELAXED) == dma->word_then &&
	    !shadow_reset_since(dma->word, dma->resets)) {
		report_corruption(mm, address & PAGE_MASK, page_to_pfn(page),
				  dma->data_then, data);
		return ACCESS_CORRUPT;
	}
	return ACCESS_OK;
}

bool gup_pin_keeps_mapping(void)
{
	return rmap->gup_pin_test;
}
