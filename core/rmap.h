/* SPDX-License-Identifier: MIT */
/*
 * The reverse mapping: from a page to the ptes that map it. Three designs
 * of the 2004 debate sit behind one ops table, chosen at run time:
 *
 *   ptechain  2.6.3: a pte_chain entry per mapping pte (PG_direct for one),
 *             under PG_chainlock, for every page
 *   objfile   seed 001: file pages counted by mapcount and found through
 *             i_mmap/i_mmap_shared; anonymous pages keep pte_chains
 *   anonvma   seed 002: objfile, plus anonymous pages found through
 *             page->as.vma (PG_direct) or page->as.anon_vma's vma list
 *
 * The lock order these follow is the tree at the top of core/lockdep.c.
 * Reclaim holds the page lock and the page's rmap lock (rmap_lock()) and
 * only *tries* i_shared_sem and page_table_lock: each failed try is a
 * fallback (SWAP_AGAIN, or "assume referenced"), counted by site.
 */
#ifndef RT_CORE_RMAP_H
#define RT_CORE_RMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "mm.h"
#include "page.h"
#include "page_alloc.h"
#include "pgtable.h"

enum rmap_mode {
	RMAP_PTECHAIN,
	RMAP_OBJFILE,
	RMAP_ANONVMA,
	RMAP_MAINLINE8,		/* 2.6.8: core/rmap_mainline8.c */
	RMAP_MAINLINE9,		/* 2.6.9: core/rmap_mainline9.c */
	RMAP_NR_MODES,
};

/* The design of a run, test or benchmark that names none. */
#define RMAP_DEFAULT	RMAP_PTECHAIN

/* The bit of @mode in a set of designs (unsigned int; bit 0: mode 0). */
#define RMAP_MODE_BIT(mode)	(1u << (mode))
/* The set of every design. */
#define RMAP_ALL_MODES		(RMAP_MODE_BIT(RMAP_NR_MODES) - 1)
/* Room for rmap_mode_list() of every design (names under 15 bytes, separators of 2). */
#define RMAP_MODE_LIST_LEN	(RMAP_NR_MODES * 17 + 1)

/* try_to_unmap() results, as in 2.6 */
#define SWAP_SUCCESS	0
#define SWAP_AGAIN	1
#define SWAP_FAIL	2

/*
 * 2.6.3's pte_chain: a cache line of pte addresses. The first block of a
 * page's chain may be partly used: next_and_idx holds the next pointer
 * and, in its low bits, the index of the first used slot.
 */
#define NRPTE ((SMP_CACHE_BYTES - sizeof(unsigned long)) / sizeof(pte_t *))
struct pte_chain {
	unsigned long next_and_idx;	/* PG_chainlock of the page */
	pte_t *ptes[NRPTE];		/* PG_chainlock of the page */
} ____cacheline_aligned;

/*
 * Reclaim's trylock fallbacks, by site (seed 001's names). 2.6.3's
 * page_referenced() takes no page_table_lock (it clears young bits
 * through the pte_chain with atomics), so it has no site.
 */
enum rmap_fallback_site {
	FB_TRY_TO_UNMAP_ONE_PTL,		/* try_to_unmap_one:page_table_lock */
	FB_PAGE_REFERENCED_OBJ_ISHARED,		/* page_referenced_obj:i_shared_sem */
	FB_PAGE_REFERENCED_OBJ_ONE_PTL,		/* page_referenced_obj_one:page_table_lock */
	FB_TRY_TO_UNMAP_OBJ_ISHARED,		/* try_to_unmap_obj:i_shared_sem */
	FB_TRY_TO_UNMAP_OBJ_ONE_PTL,		/* try_to_unmap_obj_one:page_table_lock */
	FB_PAGE_REFERENCED_ANON_PTL,		/* page_referenced_anon_one:page_table_lock */
	FB_TRY_TO_UNMAP_ANON_PTL,		/* try_to_unmap_anon_one:page_table_lock */
	FB_SHRINK_LIST_PAGE_LOCKED,		/* shrink_list:PG_locked */
	/* mainline (2.6.8's names; try_to_unmap_one's is the first site) */
	FB_PAGE_REFERENCED_FILE_IMMAP,		/* page_referenced_file:i_mmap_lock */
	FB_PAGE_REFERENCED_ONE_PTL,		/* page_referenced_one:page_table_lock */
	FB_TRY_TO_UNMAP_FILE_IMMAP,		/* try_to_unmap_file:i_mmap_lock */
	FB_TRY_TO_UNMAP_CLUSTER_PTL,		/* try_to_unmap_cluster:page_table_lock */
	FB_NR_SITES,
};

struct rmap_ops {
	const char *name;

	/*
	 * What page_add_rmap() may need, allocated before page_table_lock
	 * (2.6.3's pte_chain_alloc(GFP_KERNEL)); NULL for designs that need
	 * nothing. Leftovers go back through pte_chain_free().
	 */
	struct pte_chain *(*pte_chain_alloc)(gfp_t gfp);
	void (*pte_chain_free)(struct pte_chain *chain);

	/*
	 * A new pte maps @page at @address in @vma. @anon: the page is
	 * anonymous (sets PG_anon and the anonymous rmap state the first
	 * time). Context: page_table_lock held; takes the page's rmap lock.
	 * Return: what is left of @chain.
	 */
	struct pte_chain *(*page_add_rmap)(struct page *page, struct vm_area_struct *vma,
					   unsigned long address, pte_t *ptep, bool anon,
					   struct pte_chain *chain);
	/* The pte at @ptep no longer maps @page. Context: page_table_lock held. */
	void (*page_remove_rmap)(struct page *page, pte_t *ptep);

	/*
	 * Reclaim, with the page's rmap lock held: page_referenced() counts
	 * (and clears) young ptes, treating a failed trylock as referenced
	 * (shrink_list holds the page lock too; the aging of the active
	 * list does not, as in 2.6.3 and the seeds); try_to_unmap() unmaps
	 * every pte it can, with the page locked as well.
	 */
	int (*page_referenced)(struct page *page);
	int (*try_to_unmap)(struct page *page);
	/*
	 * The aging of the active list (refill_inactive_zone()) asking
	 * whether a mapped page was referenced, as 2.6.9 asks it
	 * (page_referenced(page, 0)): the rmap lock is *not* held across
	 * the walk. Return: 0 when the page is not mapped, else as
	 * page_referenced(). NULL: vmscan takes the rmap lock and calls
	 * page_mapped() and page_referenced().
	 * Context: no lock of the page held (neither the page lock nor the
	 * rmap lock: 2.6.9 took neither for an anonymous page).
	 */
	int (*page_referenced_unlocked)(struct page *page);

	/* True when the rmap knows of at least one pte. Context: rmap lock held. */
	bool (*page_mapped)(struct page *page);

	/* vma life cycle hooks for the anon_vma design (may be NULL). */
	int (*anon_vma_prepare)(struct vm_area_struct *vma);
	int (*anon_vma_fork)(struct vm_area_struct *child, struct vm_area_struct *parent);
	void (*anon_vma_unlink)(struct vm_area_struct *vma);
	/* @vma copied its anon_vma pointer from a vma it was split from: link it. */
	void (*anon_vma_link)(struct vm_area_struct *vma);
	/*
	 * @vma is about to be split or to have ptes moved out of it
	 * (split_vma, move_vma): give it an anon_vma if it may hold
	 * anonymous pages and re-point its PG_direct pages there, so none
	 * names a vma that will not cover it (anonvma; may be NULL).
	 * Context: mmap_sem held for write. Return: 0 or -ENOMEM.
	 */
	int (*anon_vma_prepare_split)(struct vm_area_struct *vma);
	/* A nonlinear pte is installed for @page (objfile: page_convert_anon). */
	int (*install_nonlinear)(struct page *page);

	/*
	 * The audit, at a quiescent point: the number of ptes this rmap
	 * records for @page, and a full walk (every lock taken, no trylock)
	 * calling @fn on each pte it finds. Return: the walk's count, or -1
	 * if @fn returned nonzero.
	 */
	int (*rmap_count)(struct page *page);
	/* The audit's per-vma check of the design's own state (may be NULL): nonzero if bad. */
	int (*audit_vma)(struct vm_area_struct *vma);
	int (*rmap_walk)(struct page *page,
			 int (*fn)(struct page *page, struct mm_struct *mm,
				   unsigned long address, pte_t *ptep, void *arg),
			 void *arg);

	/*
	 * The locks core/mmap.c takes for this design's rmap readers when it
	 * links a vma or moves its bounds (VMA_LOCK_*), beyond mmap_sem and
	 * i_shared_sem, which every design takes the same way: @vma_locks as
	 * the model takes them, @vma_locks_source as the design's source
	 * did. A bit set only in @vma_locks is a lock the source lacked and
	 * a reader of this design needs: restoring the source is a seeded
	 * bug (vma_lock_taken() in core/mmap.c; docs/model.md "Locks by design").
	 */
	unsigned int vma_locks;
	unsigned int vma_locks_source;

	/*
	 * mainline designs (2.6.8 on): a file's vmas are in a priority
	 * search tree (core/i_mmap.h) under the i_mmap_lock spinlock, not
	 * on lists under i_shared_sem; anon_vma_prepare() runs at the first
	 * anonymous fault of a vma (anon_vma_prepare_fault()).
	 */
	bool i_mmap_tree;
	bool anon_vma_at_fault;
	/*
	 * mainline9 (2.6.9's rmaplock series): no rmap lock of the page
	 * (rmap_lock() takes nothing), anon_vma->lock outside
	 * page_table_lock wherever both are held (core/mmap.c), and
	 * lockdep enforces 2.6.9's order (enum lockdep_order).
	 */
	bool no_rmap_lock;
	bool anon_vma_outside_ptl;
	int lock_order;
	/*
	 * The audit's check of one present pte of @page in @vma against the
	 * design's own state (may be NULL): nonzero if bad. Context: a
	 * quiescent point; page_table_lock of @vma's mm held.
	 */
	int (*audit_pte)(struct page *page, struct vm_area_struct *vma);
	/*
	 * try_to_unmap_one() leaves a swap-cache page mapped while its count
	 * says get_user_pages() holds it (page_count != mapcount + 2), as
	 * 2.6.7 on did; 2.6.3 and the seeds had no such test.
	 */
	bool gup_pin_test;
	/*
	 * The page's rmap lock is PG_maplock (page_map_lock(), seed 002's
	 * and 2.6.8's), not 2.6.3's PG_chainlock (pte_chain_lock()).
	 * Designs with @no_rmap_lock take neither.
	 */
	bool pg_maplock;
	/*
	 * A mapped anonymous page always names its owner in page->as: its
	 * vma (PG_direct) or its anon_vma, as seed 002 keeps it; the audit
	 * reports one that names neither.
	 */
	bool anon_names_owner;
	/*
	 * Seed 001's page_convert_anon() leaves a nonlinearly mapped file
	 * page PG_anon with as.mapping set: it stays in its file's page
	 * cache and is written back, dropped and truncated as a file page
	 * (page_in_file_cache()).
	 */
	bool anon_keeps_mapping;
	/*
	 * try_to_unuse() looks for a swap entry only in vmas with an
	 * anon_vma, where anonymous pages can be (2.6.9's unuse_process());
	 * without it, in every vma of the mm.
	 */
	bool unuse_anon_vmas_only;
};


/* vma_link() takes page_table_lock around the mm's vma list. */
#define VMA_LOCK_LINK_PTL	0x1u
/* vma_adjust() (vma_merge, mremap growing in place) takes page_table_lock. */
#define VMA_LOCK_ADJUST_PTL	0x2u
/* expand_stack() takes page_table_lock. */
#define VMA_LOCK_STACK_PTL	0x4u
/* expand_stack() gives the vma an anon_vma (anon_vma_prepare) and takes its lock. */
#define VMA_LOCK_STACK_ANON_VMA	0x8u

/* The selected design; set by rmap_select() before any thread runs. */
extern const struct rmap_ops *rmap;
extern enum rmap_mode rmap_mode;

/**
 * anon_vma_prepare_fault() - the anon_vma a fault needs before it maps an
 * anonymous page in @vma (mainline designs; 0 at once in the others)
 * @vma: the faulting vma
 *
 * Context: mmap_sem held for read; no spinlock held; may sleep.
 * Return: 0, or -ENOMEM (the fault answers VM_FAULT_OOM).
 */
static inline int anon_vma_prepare_fault(struct vm_area_struct *vma)
{
	return rmap->anon_vma_at_fault ? rmap->anon_vma_prepare(vma) : 0;
}

/* Select @mode. Return: 0, or -EINVAL for a mode out of range. */
int rmap_select(enum rmap_mode mode);
/* The ops table of @mode, selected or not; NULL for a mode out of range. */
const struct rmap_ops *rmap_design(enum rmap_mode mode);
const char *rmap_mode_name(enum rmap_mode mode);
/* The mode called @name, or -1. */
int rmap_mode_by_name(const char *name);
/* The names of the designs in @modes (RMAP_MODE_BIT()s), in table order, @sep between. */
int rmap_mode_list(unsigned int modes, const char *sep, char *buf, size_t len);

/*
 * @page is a file page, not anonymous memory: PG_anon clear, or (objfile)
 * PG_anon set by seed 001's page_convert_anon() on a nonlinearly mapped
 * page that stays in its file's page cache with as.mapping set. Such a
 * page is written back, dropped from the cache and truncated as a file
 * page, never given swap. In the other designs as.mapping of a PG_anon
 * page is its anon_vma/vma, so only a design with @anon_keeps_mapping
 * (objfile) looks at it.
 * Context: page locked, or its rmap lock held (as.mapping is cleared only
 * under the page lock; PG_anon is set under the rmap lock).
 */
static inline bool page_in_file_cache(const struct page *page)
{
	return !PageAnon(page) ||
	       (rmap->anon_keeps_mapping && READ_ONCE(page->as.mapping) != NULL);
}

/* Take/drop the page's rmap lock of the selected design (PG_chainlock/PG_maplock). */
void rmap_lock(struct page *page);
bool rmap_trylock(struct page *page);
void rmap_unlock(struct page *page);

/*
 * Unmap one pte of a page for reclaim: mirrors 2.6.3 try_to_unmap_one()
 * after the pte was found. Anonymous pages (in the swap cache) get a swap
 * pte; file pages in nonlinear vmas get a file pte; the dirty bit goes to
 * the page; rss and the pte's page reference drop. Does not touch the
 * rmap's own records (the caller does).
 * Context: mm->page_table_lock and the page's rmap lock held, page locked.
 * Return: SWAP_SUCCESS, or SWAP_FAIL for a VM_LOCKED vma or a young pte
 * that must be given another chance.
 */
int unmap_one_pte(struct page *page, struct mm_struct *mm, struct vm_area_struct *vma,
		  unsigned long address, pte_t *ptep);

/* Fallback counters. */
void rmap_fallback(enum rmap_fallback_site site);
unsigned long rmap_fallback_count(enum rmap_fallback_site site);
const char *rmap_fallback_name(enum rmap_fallback_site site);
void rmap_fallback_reset(void);

/*
 * rmap memory: bytes of pte_chains, anon_vmas and extra fields, now and at
 * peak (the largest of the samples: rmap_bytes_sample() at every audit,
 * and each rmap_bytes_read()).
 */
struct rmap_bytes {
	unsigned long pte_chain_now, pte_chain_peak;
	unsigned long anon_vma_now, anon_vma_peak;
	/* anonvma: the anon_vma pointer and list node of vmas on an anon_vma */
	unsigned long vma_extra_now, vma_extra_peak;
};
void rmap_bytes_read(struct rmap_bytes *out);
void rmap_account_pte_chain(long delta_bytes);
void rmap_account_anon_vma(long delta_bytes);
void rmap_account_vma_extra(long delta_bytes);
void rmap_bytes_reset_peak(void);
void rmap_bytes_sample(void);

#endif /* RT_CORE_RMAP_H */
