/* SPDX-License-Identifier: MIT */
/*
 * Private to the rmap files of core/ (rmap.c, rmap_ptechain.c,
 * rmap_objfile.c, rmap_anonvma.c and objrmap.c) and to
 * tests/check_rmap.c: the ops tables of the designs, 2.6.3's pte_chain
 * machinery, which objfile reuses for its anonymous pages, and seed 001's
 * object-based rmap for file pages, which objfile and anonvma share.
 */
#ifndef RT_CORE_RMAP_INTERNAL_H
#define RT_CORE_RMAP_INTERNAL_H

#include "fs.h"
#include "rmap.h"

/*
 * The designs. rmap.c's table rmap_designs[] lists them all; a new
 * design adds its extern here and one line there.
 */
extern const struct rmap_ops rmap_ptechain_ops;	/* rmap_ptechain.c */
extern const struct rmap_ops rmap_objfile_ops;	/* rmap_objfile.c */
extern const struct rmap_ops rmap_anonvma_ops;	/* rmap_anonvma.c */
extern const struct rmap_ops rmap_mainline8_ops;	/* rmap_mainline8.c */
extern const struct rmap_ops rmap_mainline9_ops;	/* rmap_mainline9.c */

/*
 * pte_chain blocks: SMP_CACHE_BYTES-aligned, so next_and_idx keeps the
 * index of the first used slot in its low bits (2.6.3: "& NRPTE").
 */
#define PTE_CHAIN_IDX_MASK	((unsigned long)SMP_CACHE_BYTES - 1)

/**
 * pte_chain_alloc() - a zeroed pte_chain block for a later page_add_rmap()
 * @gfp: GFP_KERNEL before page_table_lock, GFP_ATOMIC under it
 *
 * Mirrors mm/rmap.c:pte_chain_alloc() of 2.6.3 (without its per-CPU
 * cache). The block counts in the rmap's pte_chain bytes from here until
 * pte_chain_free() (see rmap_ptechain.c, "Accounting").
 *
 * Context: any; GFP_KERNEL may sleep.
 * Return: the block, or NULL when the slab fails (injectable).
 */
struct pte_chain *pte_chain_alloc(gfp_t gfp);

/**
 * pte_chain_free() - give back a block that no page uses; NULL is allowed
 * @pte_chain: the block
 *
 * Context: any.
 */
void pte_chain_free(struct pte_chain *pte_chain);

/*
 * The pte_chain state of one page (page->pte.direct with PG_direct, or
 * page->pte.chain), operated on with the page's PG_chainlock held by the
 * caller: the bodies of the ptechain ops, exported so that objfile can
 * run them on its anonymous pages. Each asserts the lock.
 */

/* Record @ptep; Return: what is left of @pte_chain (NULL if consumed). */
struct pte_chain *__pte_chain_add(struct page *page, pte_t *ptep,
				  struct pte_chain *pte_chain);
/* Forget @ptep; BUGs if it is not recorded. */
void __pte_chain_remove(struct page *page, pte_t *ptep);
/* Young ptes found (bits cleared); the page's PG_referenced is the caller's. */
int __pte_chain_referenced(struct page *page);
/* try_to_unmap() over the recorded ptes; page locked. */
int __pte_chain_try_to_unmap(struct page *page);
/* Number of recorded ptes. */
int __pte_chain_count(struct page *page);
/* At least one pte recorded. */
bool __pte_chain_mapped(struct page *page);

/*
 * Seed 001's object-based rmap for file pages (objrmap.c), shared by
 * objfile and anonvma: a file page (PG_anon clear) keeps only the count
 * of its ptes, page->pte.mapcount, and its ptes are found through its
 * file's vma lists. mapcount is written under the design's rmap lock
 * (PG_chainlock in objfile, PG_maplock in anonvma), which the callers of
 * everything below assert or take; nothing here takes it.
 */

/* Written under the rmap lock; anonvma's page_mapped() reads it lock-free. */
static inline int page_mapcount(const struct page *page)
{
	return __atomic_load_n(&page->pte.mapcount, __ATOMIC_RELAXED);
}

static inline void set_page_mapcount(struct page *page, int v)
{
	line_write(&page->pte, LINE_RMAP);
	__atomic_store_n(&page->pte.mapcount, v, __ATOMIC_RELAXED);
}

/*
 * The file's vma lists that find_pte() searches: the seed's i_mmap and
 * i_mmap_shared, then the model's (2.6.7's) i_mmap_nonlinear, which the
 * designs treat differently (enum obj_nonlinear). Context: i_shared_sem.
 */
#define NR_MAPPING_LISTS	3
#define MAPPING_LIST_NONLINEAR	2
static inline struct list_head *mapping_list(struct address_space *mapping, int l)
{
	return l == 0 ? &mapping->i_mmap :
	       l == 1 ? &mapping->i_mmap_shared : &mapping->i_mmap_nonlinear;
}

/* How a design finds a file page's ptes in the vmas on i_mmap_nonlinear. */
enum obj_nonlinear {
	/*
	 * objfile: by find_pte(), like any other vma: a page at its linear
	 * offset is found there, and those mapped out of place were
	 * converted by page_convert_anon() and use pte_chains.
	 */
	OBJ_NONLINEAR_FIND_PTE,
	/*
	 * anonvma: nothing is converted; every pte of the vma is scanned
	 * for the page's pfn, as 2.6.7's try_to_unmap_nonlinear() did.
	 */
	OBJ_NONLINEAR_SCAN,
};

/* The audit's callback (struct rmap_ops.rmap_walk): nonzero stops the walk. */
typedef int (*rmap_walk_fn)(struct page *page, struct mm_struct *mm,
			    unsigned long address, pte_t *ptep, void *arg);

/**
 * vma_address() - the address where @vma maps @page linearly
 * @vma: a vma of @page's file, or on @page's anon_vma
 * @page: the page
 * @address: out, the address, when inside @vma
 *
 * The seed's find_pte() arithmetic, on page->index as file offset or, for
 * an anonymous page, its index relative to vm_pgoff (seed 002).
 *
 * Context: the vma's bounds are stable: page_table_lock, i_shared_sem
 * (file vmas) or anon_vma->lock (anon_vma vmas) held.
 * Return: true when @vma covers that address.
 */
bool vma_address(struct vm_area_struct *vma, struct page *page, unsigned long *address);

/**
 * find_pte() - the pte of @vma that maps @page at its linear address
 * @vma: a vma of @page's file, or on @page's anon_vma
 * @page: the page (its index is the file offset, or anonvma's offset)
 * @addr: out, the address, when found (may be NULL)
 *
 * Mirrors seed 001's find_pte(): outside the vma, no pte table there, a
 * pte not present, or a pte mapping another pfn (a private COW copy,
 * another offset in a nonlinear vma, or a vma on a reused anon_vma's
 * list) means "not mapped here".
 *
 * Context: @vma->vm_mm->page_table_lock held (the bounds are stable under
 * it too, or under i_shared_sem or anon_vma->lock which callers hold).
 * Return: the slot, or NULL.
 */
pte_t *find_pte(struct vm_area_struct *vma, struct page *page, unsigned long *addr);

/**
 * page_referenced_obj() - count and clear the young ptes of a file page
 * @page: a file page (PG_anon clear)
 * @nonlinear: how the design searches i_mmap_nonlinear
 *
 * Mirrors seed 001's page_referenced_obj() (and, for anonvma, 2.6.7's
 * scan of the nonlinear vmas). A busy i_shared_sem, or a busy
 * page_table_lock of one vma, counts as a reference and as a fallback
 * (FB_PAGE_REFERENCED_OBJ_ISHARED, FB_PAGE_REFERENCED_OBJ_ONE_PTL).
 *
 * Context: page locked, the design's rmap lock held; tries i_shared_sem
 * and page_table_locks.
 * Return: the number of young ptes found, plus one per fallback.
 */
int page_referenced_obj(struct page *page, enum obj_nonlinear nonlinear);

/**
 * try_to_unmap_obj() - unmap every pte of a file page that reclaim can
 * @page: a file page (PG_anon clear)
 * @nonlinear: how the design searches i_mmap_nonlinear
 *
 * Mirrors seed 001's try_to_unmap_obj() and the end of its try_to_unmap()
 * (and, for anonvma, 2.6.7's try_to_unmap_nonlinear() scan): unmap through
 * every vma of the file, uncounting each pte, until mapcount reaches 0 or
 * a vma refuses. A busy i_shared_sem or page_table_lock is a fallback
 * (FB_TRY_TO_UNMAP_OBJ_ISHARED, FB_TRY_TO_UNMAP_OBJ_ONE_PTL).
 *
 * Context: page locked, the design's rmap lock held; tries i_shared_sem
 * and page_table_locks.
 * Return: SWAP_SUCCESS exactly when no pte is left, SWAP_FAIL when a vma
 * refused, else SWAP_AGAIN.
 */
int try_to_unmap_obj(struct page *page, enum obj_nonlinear nonlinear);

/**
 * rmap_walk_linear() - the audit's look at one vma: its linear pte for @page
 * @vma: a vma of @page's file, or on @page's anon_vma
 * @page: the page
 * @fn: called on the pte found, under page_table_lock (may be NULL)
 * @arg: passed to @fn
 *
 * Context: a quiescent point; takes @vma's page_table_lock, and no rmap
 * lock may be held.
 * Return: 1 when found, 0 when not, -1 when @fn stopped the walk.
 */
int rmap_walk_linear(struct vm_area_struct *vma, struct page *page, rmap_walk_fn fn, void *arg);

/**
 * rmap_walk_nonlinear() - the audit's look at one nonlinear vma: every pte
 * of it that maps @page
 * @vma: a vma on the file's i_mmap_nonlinear
 * @page: the page
 * @fn: called on each pte found, under page_table_lock (may be NULL)
 * @arg: passed to @fn
 *
 * Context: a quiescent point; the file's vma lists held still
 * (i_shared_sem, or i_mmap_lock for the mainline designs); takes @vma's
 * page_table_lock.
 * Return: the number of ptes found, or -1 when @fn stopped the walk.
 */
int rmap_walk_nonlinear(struct vm_area_struct *vma, struct page *page, rmap_walk_fn fn,
			void *arg);

/**
 * rmap_walk_obj() - the audit's walk of a file page
 * @page: a file page (PG_anon clear)
 * @fn: called on each pte found (may be NULL)
 * @arg: passed to @fn
 * @nonlinear: how the design searches i_mmap_nonlinear
 *
 * Every lock taken, none tried: i_shared_sem, then each vma of the file
 * under its page_table_lock, as reclaim walks them.
 *
 * Context: a quiescent point; no lock held. @fn runs under i_shared_sem
 * and page_table_lock.
 * Return: the number of ptes found, or -1 when @fn stopped the walk.
 */
int rmap_walk_obj(struct page *page, rmap_walk_fn fn, void *arg, enum obj_nonlinear nonlinear);

#endif /* RT_CORE_RMAP_INTERNAL_H */
