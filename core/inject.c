// SPDX-License-Identifier: MIT
#include "inject.h"

#include <string.h>

uint64_t inject_mask;

static const char *const names[INJECT_NR_BUGS] = {
	[INJECT_RECLAIM_LOCK_PTL] = "reclaim-lock-ptl",
	[INJECT_RECLAIM_DOWN_ISHARED] = "reclaim-down-ishared",
	[INJECT_ANON_INDEX_ABSOLUTE] = "anon-index-absolute",
	[INJECT_ANON_VMA_FREE_NOW] = "anon-vma-free-now",
	[INJECT_ANON_VMA_WALK_UNLOCKED] = "anon-vma-walk-unlocked",
	[INJECT_MAPCOUNT_UNLOCKED] = "mapcount-unlocked",
	[INJECT_FORK_LINK_LATE] = "fork-link-late",
	[INJECT_VMA_START_UNLOCKED] = "vma-start-unlocked",
	[INJECT_TRUNCATE_NO_RECHECK] = "truncate-no-recheck",
	[INJECT_CONVERT_ANON_UNLOCKED] = "convert-anon-unlocked",
	[INJECT_VMA_LINK_UNLOCKED] = "vma-link-unlocked",
	[INJECT_EXPAND_STACK_NO_PTL] = "expand-stack-no-ptl",
	[INJECT_INSTALL_PAGE_NO_TRUNCATE_CHECK] = "install-page-no-truncate-check",
	[INJECT_FILE_FREE_NOW] = "file-free-now",
	[INJECT_TLB_FLUSH_SKIP] = "tlb-flush-skip",
	[INJECT_COW_ESTABLISH] = "cow-establish",
	[INJECT_ANON_VMA_ADOPT_UNLOCKED] = "anon-vma-adopt-unlocked",
	[INJECT_RECLAIM_LOCK_IMMAP] = "reclaim-lock-immap",
	[INJECT_REMOVE_RMAP_CLEARS_MAPPING] = "remove-rmap-clears-mapping",
	[INJECT_ANON_VMA_NEW_UNLOCKED] = "anon-vma-new-unlocked",
	[INJECT_VMA_ADJUST_NO_IMPORTER] = "vma-adjust-no-importer",
	[INJECT_GUP_UNMAP] = "gup-unmap",
	[INJECT_COW_REUSE] = "cow-reuse",
	[INJECT_MMPUT_DEC_UNLOCKED] = "mmput-dec-unlocked",
	[INJECT_MREMAP_NO_IMMAP_LOCK] = "mremap-no-immap-lock",
	[INJECT_TRUNCATE_NONLINEAR_LINEAR] = "truncate-nonlinear-linear",
	[INJECT_AGING_FILE_UNLOCKED] = "aging-file-unlocked",
};

const char *inject_name(enum inject_bug bug)
{
	return (unsigned)bug < INJECT_NR_BUGS ? names[bug] : "?";
}

int inject_by_name(const char *name)
{
	for (int i = 0; i < INJECT_NR_BUGS; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}
