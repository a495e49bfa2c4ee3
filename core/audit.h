/* SPDX-License-Identifier: MIT */
/*
 * The invariant audit of the model (DESIGN.md, "Invariants"), run at a
 * quiescent point, when every worker and reclaim thread is parked; and
 * the teardown check that every object came back.
 *
 * Each violation is a vm_report of kind VM_REPORT_AUDIT whose signature
 * is "audit:<invariant>" and whose message names the object, the values
 * and the operation in flight (the reporting task's op).
 */
#ifndef RT_CORE_AUDIT_H
#define RT_CORE_AUDIT_H

#include "fs.h"
#include "mm.h"

/* The invariants, by name (the signature's suffix). */
#define AUDIT_MAPCOUNT		"mapcount"	/* rmap count == ptes mapping the page */
#define AUDIT_FIND_ALL		"must-find-all"	/* the rmap walk finds exactly those */
#define AUDIT_ORPHAN		"orphaned-pte"	/* file page beyond i_size or not cached */
#define AUDIT_NO_MAPPING	"mapped-without-owner"
#define AUDIT_RSS		"rss"
#define AUDIT_FREE_PAGE		"free-page"	/* free pages unmapped, count 0 */
#define AUDIT_FREE_LIST		"free-list"	/* each free page on one free list, counts agree */
#define AUDIT_PAGE_COUNT	"page-count"	/* references == ptes + caches */
#define AUDIT_STRAY_PTE		"stray-pte"	/* a pte outside every vma */
#define AUDIT_SWAP_COUNT	"swap-count"	/* slot count == swap ptes + cache */
#define AUDIT_DATA		"data-integrity"
#define AUDIT_INDEX		"page-index"	/* page->index matches where it is mapped */
#define AUDIT_ANON_VMA		"anon-vma"	/* anonvma: vma on its list, none empty */
#define AUDIT_LRU		"lru"
#define AUDIT_LEAK		"teardown-leak"
#define AUDIT_MMLIST		"mmlist"	/* every live mm on the mmlist, once (swapoff) */
#define AUDIT_STALE_TLB		"stale-tlb"	/* a cached translation its pte no longer allows */

struct vm_audit_stats {
	unsigned long mms, vmas, ptes_present, ptes_swap, ptes_file;
	unsigned long pages_mapped, pages_walked, violations;
};

/**
 * vm_audit() - check every invariant over @mms and @files
 * Context: quiescent: no other thread touches the model. Takes locks as
 * the rmap walk needs them.
 * Return: the number of violations (each reported).
 */
unsigned long vm_audit(struct mm_struct *const *mms, int nr_mms,
		       struct address_space *const *files, int nr_files,
		       struct vm_audit_stats *stats);

/**
 * vm_teardown_check() - after every mm exited and every file was
 * destroyed: all pages free (and each on one free list), no pte_chain,
 * anon_vma, vma, mm or swap slot left. Return: the number of violations
 * (each reported).
 */
unsigned long vm_teardown_check(void);

#endif /* RT_CORE_AUDIT_H */
