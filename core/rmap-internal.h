/* SPDX-License-Identifier: MIT */
/*
 * Private to the rmap files of core/ (rmap.c, rmap_ptechain.c and, when
 * they land, rmap_objfile.c and rmap_anonvma.c) and to tests/check_rmap.c:
 * the ops tables of the designs, and 2.6.3's pte_chain machinery, which
 * objfile reuses for its anonymous pages.
 */
#ifndef RT_CORE_RMAP_INTERNAL_H
#define RT_CORE_RMAP_INTERNAL_H

#include "rmap.h"

/*
 * The designs. rmap.c's table rmap_designs[] lists those built; a new
 * design adds its extern here and one line there.
 */
extern const struct rmap_ops rmap_ptechain_ops;	/* rmap_ptechain.c */
extern const struct rmap_ops rmap_objfile_ops;	/* rmap_objfile.c */
extern const struct rmap_ops rmap_anonvma_ops;	/* rmap_anonvma.c */

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

#endif /* RT_CORE_RMAP_INTERNAL_H */
