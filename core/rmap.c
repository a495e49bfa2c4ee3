// SPDX-License-Identifier: MIT
/*
 * What the rmap designs share: the table of designs and the run-time
 * choice of one (its ops table), the page's rmap lock, unmapping one
 * found pte for reclaim (the body of 2.6.3's try_to_unmap_one() once the
 * pte is in hand), the per-site counters of reclaim's trylock fallbacks,
 * and the rmap memory accounting the design comparison reports.
 *
 * Lock order: the tree at the top of core/lockdep.c (and of
 * rmap_ptechain.c). Nothing here takes a lock but rmap_lock() itself and
 * swap_lock inside swap_duplicate(), which nests under page_table_lock
 * and the rmap lock.
 */
#include "rmap-internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lockdep.h"
#include "percpu.h"
#include "swap.h"
#include "tlbflush.h"

/*
 * The designs, by mode: the one list of them. Everything that names or
 * counts the designs (rmap_mode_name(), the CLI's --rmap, the tests'
 * loops, the catalogue's design sets) derives from it. A design adds
 * its enum value (rmap.h), its extern (rmap-internal.h) and one line
 * here; its name is its ops table's.
 */
static const struct rmap_ops *const rmap_designs[RMAP_NR_MODES] = {
	[RMAP_PTECHAIN] = &rmap_ptechain_ops,
	[RMAP_OBJFILE] = &rmap_objfile_ops,
	[RMAP_ANONVMA] = &rmap_anonvma_ops,
	[RMAP_MAINLINE8] = &rmap_mainline8_ops,
	[RMAP_MAINLINE9] = &rmap_mainline9_ops,
};
_Static_assert(RMAP_NR_MODES <= 32, "a set of designs is an unsigned int of RMAP_MODE_BIT()s");

/* Written by rmap_select() before any thread runs; read-only after. */
const struct rmap_ops *rmap = &rmap_ptechain_ops;	/* RMAP_DEFAULT's */
enum rmap_mode rmap_mode = RMAP_DEFAULT;

/**
 * rmap_design() - the ops table of @mode, selected or not
 * @mode: the mode
 *
 * Context: any.
 * Return: the table, or NULL for a mode out of range.
 */
const struct rmap_ops *rmap_design(enum rmap_mode mode)
{
	if ((unsigned int)mode >= RMAP_NR_MODES)
		return NULL;
	return rmap_designs[mode];
}

/**
 * rmap_select() - make @mode the rmap design of this run
 * @mode: one of enum rmap_mode
 *
 * Context: before any thread uses the model (the choice is read without
 * synchronisation afterwards); no page may be mapped, since the designs
 * keep different state in struct page.
 * Return: 0, or -EINVAL for a mode out of range.
 */
int rmap_select(enum rmap_mode mode)
{
	const struct rmap_ops *ops = rmap_design(mode);

	if (!ops)
		return -EINVAL;
	rmap = ops;
	rmap_mode = mode;
	lockdep_set_order((enum lockdep_order)rmap->lock_order);
	return 0;
}

/**
 * rmap_mode_name() - the name of @mode ("ptechain", "objfile", ...): its
 * ops table's
 * @mode: the mode
 *
 * Context: any.
 * Return: the name, or "?" for a mode out of range.
 */
const char *rmap_mode_name(enum rmap_mode mode)
{
	const struct rmap_ops *ops = rmap_design(mode);

	return ops ? ops->name : "?";
}

/**
 * rmap_mode_by_name() - the mode called @name
 * @name: as rmap_mode_name() spells it
 *
 * Context: any.
 * Return: the mode, or -1 when no mode has that name.
 */
int rmap_mode_by_name(const char *name)
{
	if (!name)
		return -1;
	for (int m = 0; m < RMAP_NR_MODES; m++)
		if (!strcmp(name, rmap_designs[m]->name))
			return m;
	return -1;
}

/**
 * rmap_mode_list() - the names of a set of designs, in table order
 * @modes: RMAP_MODE_BIT()s (RMAP_ALL_MODES: every design)
 * @sep: what goes between two names (", ", ",")
 * @buf: receives the list, NUL-terminated (truncated to fit)
 * @len: its size
 *
 * Context: any.
 * Return: the length of the whole list, as snprintf() counts.
 */
int rmap_mode_list(unsigned int modes, const char *sep, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (int m = 0; m < RMAP_NR_MODES; m++) {
		if (!(modes & RMAP_MODE_BIT(m)))
			continue;
		n += (size_t)snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, "%s%s",
				      n ? sep : "", rmap_designs[m]->name);
	}
	return (int)n;
}

/**
 * rmap_lock() - take @page's rmap lock: PG_chainlock (ptechain, objfile)
 * or PG_maplock (anonvma, mainline8)
 * @page: the page
 *
 * Context: spins; nests inside page_table_lock (core/lockdep.c).
 */
void rmap_lock(struct page *page)
{
	if (rmap->no_rmap_lock)
		return;		/* mainline9: 2.6.9 has none */
	if (rmap->pg_maplock)
		page_map_lock(page);
	else
		pte_chain_lock(page);
}

/**
 * rmap_trylock() - try @page's rmap lock once
 * @page: the page
 *
 * Context: any; adds no lock-order edge.
 * Return: true when the lock is now held.
 */
bool rmap_trylock(struct page *page)
{
	if (rmap->no_rmap_lock)
		return true;
	if (rmap->pg_maplock)
		return page_map_trylock(page);
	return pte_chain_trylock(page);
}

/**
 * rmap_unlock() - drop @page's rmap lock
 * @page: the page
 *
 * Context: the lock is held by the caller.
 */
void rmap_unlock(struct page *page)
{
	if (rmap->no_rmap_lock)
		return;
	if (rmap->pg_maplock)
		page_map_unlock(page);
	else
		pte_chain_unlock(page);
}

/**
 * unmap_one_pte() - unmap one pte of @page for reclaim
 * @page: the page, locked, with the caller's own reference
 * @mm: the mm of @ptep
 * @vma: the vma of @mm that maps @address
 * @address: the user address @ptep maps
 * @ptep: the slot, which maps @page
 *
 * Mirrors the body of mm/rmap.c:try_to_unmap_one() of 2.6.3 once the pte
 * is found (and its later "if we find young bit, fail"): a VM_LOCKED vma
 * or a young pte fails; otherwise the pte is cleared (ptep_clear_flush),
 * replaced by a swap pte for a page in the swap cache (one more slot
 * reference) or by a file pte where the vma no longer maps the page's
 * offset linearly (VM_NONLINEAR), the dirty bit moves to the page, and
 * rss and the pte's page reference drop. The rmap's own record of the
 * pte is the caller's to remove.
 *
 * Context: @mm->page_table_lock and @page's rmap lock held; page locked.
 * Takes swap_lock (swap_duplicate).
 * Return: SWAP_SUCCESS, or SWAP_FAIL (mlocked, or young: another chance).
 */
int unmap_one_pte(struct page *page, struct mm_struct *mm, struct vm_area_struct *vma,
		  unsigned long address, pte_t *ptep)
{
	unsigned long vm_flags = READ_ONCE(vma->vm_flags);
	pte_t pte;

	assert_spin_locked(&mm->page_table_lock);
	BUG_ON(!PageLocked(page));
	BUG_ON(vma->vm_mm != mm);

	/* If the page is mlock()d, we cannot swap it out. */
	if (vm_flags & VM_LOCKED)
		return SWAP_FAIL;
	/*
	 * Referenced since page_referenced() looked (or it could not look,
	 * having failed a trylock): give the page another round.
	 */
	if (ptep_test_and_clear_young(ptep))
		return SWAP_FAIL;

	/*
	 * The kernel's ptep_clear_flush(): the MMU sees the slot empty from
	 * here, and once the flush returns no CPU still uses the old pte (a
	 * store through it has landed, its dirty bit is in @pte).
	 */
	pte = ptep_get_and_clear(ptep);
	flush_tlb_page(vma, address);
	BUG_ON(!pte_present(pte));
	BUG_ON(pte_pfn(pte) != page_to_pfn(page));

	if (PageSwapCache(page)) {
		/* Store the swap location in the pte, for do_swap_page(). */
		swp_entry_t entry = { .val = page->private };

		BUG_ON(!swap_duplicate(entry));
		set_pte(ptep, swp_entry_to_pte(entry));
	} else {
		unsigned long pgidx;

		/*
		 * An anonymous page has no backing store but swap; a page
		 * objfile's page_convert_anon() made PG_anon is still a file
		 * page (page_in_file_cache()).
		 */
		BUG_ON(!page_in_file_cache(page));
		/*
		 * Where the vma does not map the page's offset at @address
		 * (remap_file_pages), the pte remembers the offset.
		 */
		pgidx = READ_ONCE(vma->vm_pgoff) +
			((address - READ_ONCE(vma->vm_start)) >> PAGE_SHIFT);
		if ((vm_flags & VM_NONLINEAR) || page->index != pgidx)
			set_pte(ptep, pgoff_to_pte(page->index));
	}

	/* Move the dirty bit to the page now that the pte is gone. */
	if (pte_dirty(pte))
		SetPageDirty(page);

	mm->rss--;
	/* The caller's reference stays: this is never the last one. */
	BUG_ON(page_count(page) < 2);
	put_page(page);
	return SWAP_SUCCESS;
}

/* ---- fallback counters ---- */

static const char *const rmap_fallback_names[FB_NR_SITES] = {
	[FB_TRY_TO_UNMAP_ONE_PTL] = "try_to_unmap_one:page_table_lock",
	[FB_PAGE_REFERENCED_OBJ_ISHARED] = "page_referenced_obj:i_shared_sem",
	[FB_PAGE_REFERENCED_OBJ_ONE_PTL] = "page_referenced_obj_one:page_table_lock",
	[FB_TRY_TO_UNMAP_OBJ_ISHARED] = "try_to_unmap_obj:i_shared_sem",
	[FB_TRY_TO_UNMAP_OBJ_ONE_PTL] = "try_to_unmap_obj_one:page_table_lock",
	[FB_PAGE_REFERENCED_ANON_PTL] = "page_referenced_anon_one:page_table_lock",
	[FB_TRY_TO_UNMAP_ANON_PTL] = "try_to_unmap_anon_one:page_table_lock",
	[FB_SHRINK_LIST_PAGE_LOCKED] = "shrink_list:PG_locked",
	[FB_PAGE_REFERENCED_FILE_IMMAP] = "page_referenced_file:i_mmap_lock",
	[FB_PAGE_REFERENCED_ONE_PTL] = "page_referenced_one:page_table_lock",
	[FB_TRY_TO_UNMAP_FILE_IMMAP] = "try_to_unmap_file:i_mmap_lock",
	[FB_TRY_TO_UNMAP_CLUSTER_PTL] = "try_to_unmap_cluster:page_table_lock",
};

/* Per-task counters (percpu.h), from PCPU_RMAP_FALLBACKS on. */
_Static_assert(FB_NR_SITES <= RT_PCPU_FALLBACK_SITES, "percpu.h: RT_PCPU_FALLBACK_SITES");

/**
 * rmap_fallback() - count one failed trylock at @site
 * @site: the fallback site
 *
 * Context: any; lock-free.
 */
void rmap_fallback(enum rmap_fallback_site site)
{
	BUG_ON((unsigned int)site >= FB_NR_SITES);
	rt_pcpu_inc(PCPU_RMAP_FALLBACKS + site);
}

/**
 * rmap_fallback_count() - failed trylocks at @site since the last reset
 * @site: the fallback site
 *
 * Context: takes the task list lock; exact only when no reclaim runs.
 * Return: the count.
 */
unsigned long rmap_fallback_count(enum rmap_fallback_site site)
{
	BUG_ON((unsigned int)site >= FB_NR_SITES);
	return (unsigned long)rt_pcpu_sum(PCPU_RMAP_FALLBACKS + site);
}

/**
 * rmap_fallback_name() - "function:lock" of @site
 * @site: the fallback site
 *
 * Context: any.
 * Return: the name, or "?" for a site out of range.
 */
const char *rmap_fallback_name(enum rmap_fallback_site site)
{
	if ((unsigned int)site >= FB_NR_SITES)
		return "?";
	return rmap_fallback_names[site];
}

/**
 * rmap_fallback_reset() - zero every fallback counter
 *
 * Context: takes the task list lock; a count racing the reset lands
 * either side of it.
 */
void rmap_fallback_reset(void)
{
	rt_pcpu_reset(PCPU_RMAP_FALLBACKS, FB_NR_SITES);
}

/* ---- rmap memory ---- */

/*
 * Bytes now: per-task gauges (rt_pcpu_mod(), as 2.6's mod_page_state()),
 * so that allocating a pte_chain writes no line another CPU writes; they
 * were one atomic each, with a CAS loop for the peak, the first growth of
 * a fork+exit on two CPUs of disjoint mms (perf, ptechain: 16 -> 128 us
 * per fork+exit). The peak is the largest sum seen by a sample: each
 * rmap_bytes_sample() (every audit) and rmap_bytes_read().
 */
static const enum rt_pcpu_item rmap_bytes_items[3] = {
	PCPU_RMAP_PTE_CHAIN_BYTES, PCPU_RMAP_ANON_VMA_BYTES, PCPU_RMAP_VMA_EXTRA_BYTES,
};
static unsigned long rmap_bytes_peak[3];	/* relaxed atomics, statistics only */

/**
 * rmap_account_pte_chain() - @delta_bytes of pte_chain blocks came or went
 * @delta_bytes: positive when allocated, negative when freed
 *
 * Context: any; lock-free, the calling task's counter only.
 */
void rmap_account_pte_chain(long delta_bytes)
{
	rt_pcpu_mod(PCPU_RMAP_PTE_CHAIN_BYTES, delta_bytes);
}

/**
 * rmap_account_anon_vma() - @delta_bytes of anon_vma objects came or went
 * @delta_bytes: positive when allocated, negative when freed
 *
 * Context: any; lock-free, the calling task's counter only.
 */
void rmap_account_anon_vma(long delta_bytes)
{
	rt_pcpu_mod(PCPU_RMAP_ANON_VMA_BYTES, delta_bytes);
}

/**
 * rmap_account_vma_extra() - @delta_bytes of per-vma rmap fields came or went
 * @delta_bytes: positive when a vma starts using them, negative when it stops
 *
 * Context: any; lock-free, the calling task's counter only.
 */
void rmap_account_vma_extra(long delta_bytes)
{
	rt_pcpu_mod(PCPU_RMAP_VMA_EXTRA_BYTES, delta_bytes);
}

/* Sum each gauge into @now and raise the peaks to it; @quiescent: check it. */
static void rmap_bytes_take(unsigned long now[3], bool quiescent)
{
	for (int i = 0; i < 3; i++) {
		long sum = rt_pcpu_sum(rmap_bytes_items[i]);
		unsigned long peak = __atomic_load_n(&rmap_bytes_peak[i], __ATOMIC_RELAXED);

		/*
		 * More freed than allocated: an accounting bug. Only where no
		 * task is changing a gauge: a sum read meanwhile may count a
		 * free on one task and not the allocation on another.
		 */
		BUG_ON(quiescent && sum < 0);
		now[i] = sum < 0 ? 0 : (unsigned long)sum;
		while (now[i] > peak &&
		       !__atomic_compare_exchange_n(&rmap_bytes_peak[i], &peak, now[i], true,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
	}
}

/**
 * rmap_bytes_sample() - take the rmap memory counters into their peaks
 *
 * Context: quiescent, no task in an operation (an audit: every task
 * parked); takes the task list lock. A negative sum is a BUG.
 */
void rmap_bytes_sample(void)
{
	unsigned long now[3];

	rmap_bytes_take(now, true);
}

/**
 * rmap_bytes_read() - a snapshot of the rmap memory counters
 * @out: filled in; each peak is at least its value now
 *
 * Context: any, takes the task list lock; exact when quiescent.
 */
void rmap_bytes_read(struct rmap_bytes *out)
{
	unsigned long now[3];

	rmap_bytes_take(now, false);
	out->pte_chain_now = now[0];
	out->pte_chain_peak = __atomic_load_n(&rmap_bytes_peak[0], __ATOMIC_RELAXED);
	out->anon_vma_now = now[1];
	out->anon_vma_peak = __atomic_load_n(&rmap_bytes_peak[1], __ATOMIC_RELAXED);
	out->vma_extra_now = now[2];
	out->vma_extra_peak = __atomic_load_n(&rmap_bytes_peak[2], __ATOMIC_RELAXED);
}

/**
 * rmap_bytes_reset_peak() - start measuring peaks afresh from now
 *
 * Context: any; takes the task list lock.
 */
void rmap_bytes_reset_peak(void)
{
	for (int i = 0; i < 3; i++) {
		long sum = rt_pcpu_sum(rmap_bytes_items[i]);

		__atomic_store_n(&rmap_bytes_peak[i], sum < 0 ? 0UL : (unsigned long)sum,
				 __ATOMIC_RELAXED);
	}
}
