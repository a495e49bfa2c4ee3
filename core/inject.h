/* SPDX-License-Identifier: MIT */
/*
 * Seeded bugs: known-wrong variants of real code paths, switched on one by
 * one (--inject NAME) so that the harness can prove its detectors catch
 * them. The correct code is the default; a seeded bug changes only its own
 * path. What each recalls and which detector must catch it is the
 * harness's catalogue (stress/rt_inject.c).
 */
#ifndef RT_CORE_INJECT_H
#define RT_CORE_INJECT_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"

enum inject_bug {
	/* Reclaim takes page_table_lock with spin_lock, not spin_trylock. */
	INJECT_RECLAIM_LOCK_PTL,
	/* Reclaim takes i_shared_sem with down(), not down_trylock(). */
	INJECT_RECLAIM_DOWN_ISHARED,
	/* An anonymous page's index is its absolute address >> PAGE_SHIFT. */
	INJECT_ANON_INDEX_ABSOLUTE,
	/* anon_vmas go back to libc at once: no type-stable RCU cache. */
	INJECT_ANON_VMA_FREE_NOW,
	/* Reclaim walks an anon_vma's vma list without anon_vma->lock. */
	INJECT_ANON_VMA_WALK_UNLOCKED,
	/* anonvma's mapcount is changed outside PG_maplock. */
	INJECT_MAPCOUNT_UNLOCKED,
	/* fork copies the ptes before it links the child vma to the anon_vma. */
	INJECT_FORK_LINK_LATE,
	/* split_vma moves vm_start/vm_pgoff without i_shared_sem. */
	INJECT_VMA_START_UNLOCKED,
	/* do_no_page does not re-check truncate_count. */
	INJECT_TRUNCATE_NO_RECHECK,
	/* page_convert_anon() is called without lock_page(). */
	INJECT_CONVERT_ANON_UNLOCKED,
	/* objfile's vma_link() links the vma without page_table_lock (seed 001). */
	INJECT_VMA_LINK_UNLOCKED,
	/* expand_stack() without page_table_lock: seed 001 (objfile), 2.6.8 (anonvma). */
	INJECT_EXPAND_STACK_NO_PTL,
	/* install_page() maps a page truncate took: seed 001 had no re-check. */
	INJECT_INSTALL_PAGE_NO_TRUNCATE_CHECK,
	/* A file's address_space is freed at its last iput(), not after RCU. */
	INJECT_FILE_FREE_NOW,
	/* flush_tlb_*() returns without waiting for the CPUs using the old pte. */
	INJECT_TLB_FLUSH_SKIP,
	/* COW installs the copy's pte first and flushes the old one after. */
	INJECT_COW_ESTABLISH,
	/* mainline8: anon_vma_prepare() adopts a neighbour's anon_vma without its lock. */
	INJECT_ANON_VMA_ADOPT_UNLOCKED,
	/* mainline8: reclaim takes i_mmap_lock with spin_lock, not spin_trylock. */
	INJECT_RECLAIM_LOCK_IMMAP,
	/* mainline9: the last page_remove_rmap() clears page->mapping, as 2.6.8 did. */
	INJECT_REMOVE_RMAP_CLEARS_MAPPING,
	/* mainline9: anon_vma_prepare() links a new anon_vma without its lock (2.6.9-2.6.26). */
	INJECT_ANON_VMA_NEW_UNLOCKED,
	/* mainline: mprotect's merge moves a boundary without vma_adjust()'s importer. */
	INJECT_VMA_ADJUST_NO_IMPORTER,
	/* mainline: try_to_unmap_one() unmaps a swap-cache page get_user_pages() pinned (2.6.3's way). */
	INJECT_GUP_UNMAP,
	/* do_wp_page() reuses a swap-cache page whose slot other swap ptes still share. */
	INJECT_COW_REUSE,
	/* every design: mmput() drops the last user before mmlist_lock: swapoff revives a dying mm. */
	INJECT_MMPUT_DEC_UNLOCKED,
	/* mainline: mremap moves a file vma's ptes without i_mmap_lock (2.6.3's locking). */
	INJECT_MREMAP_NO_IMMAP_LOCK,
	/* truncate zaps only the linear window of a nonlinear vma, as 2.6.3 did. */
	INJECT_TRUNCATE_NONLINEAR_LINEAR,
	/* mainline9: the aging walks a file page's i_mmap without trying its page lock. */
	INJECT_AGING_FILE_UNLOCKED,
	INJECT_NR_BUGS,
};

extern uint64_t inject_mask;	/* relaxed; set while no thread of a run exists */

static inline bool injected(enum inject_bug bug)
{
	return unlikely(__atomic_load_n(&inject_mask, __ATOMIC_RELAXED) & (1ULL << bug));
}

/* "reclaim-lock-ptl", ... ("?" out of range); inject_by_name(): -1 if unknown. */
const char *inject_name(enum inject_bug bug);
int inject_by_name(const char *name);

#endif /* RT_CORE_INJECT_H */
