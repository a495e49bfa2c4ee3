// SPDX-License-Identifier: MIT
#include "perturb.h"

#include "cacheline.h"

#include <stddef.h>

const struct perturb_ops *perturb_ops;
uint64_t perturb_long_hold_mask;
sched_hook_fn sched_hook;
line_hook_fn line_hook;
const char *const line_kind_names[LINE_NR_KINDS] = {
	[LINE_LOCK] = "lock", [LINE_LIST] = "list", [LINE_TREE] = "tree",
	[LINE_PTE] = "pte", [LINE_PAGE] = "page", [LINE_RMAP] = "rmap",
	[LINE_COUNT] = "count", [LINE_TLB] = "tlb",
};

/* Keep in step with the yield_point() calls in core/. */
const char *const yield_point_names[] = {
	"do_anonymous_page:alloc",
	"do_no_page:after_lookup",
	"do_wp_page:copy",
	"do_swap_page:cache_miss",
	"do_swap_page:slot_freed",
	"do_swap_page:after_lookup",
	"copy_page_range:pte",
	"mm_access:after_mmu",
	"gup_dma:pinned",
	"shrink_page:locked",
	"shrink_page:referenced",
	"shrink_page:unmapped",
	"page_lock_anon_vma:unlocked",
	"vmtruncate:after_unmap",
	"move_page_tables:page",
	"split_vma:linked",
	"expand_stack:pgoff_moved",
	"dup_mm:vma",
	"igrab:rcu",
	"page_remove_rmap:last",
	"try_to_unuse:mm",
	"try_to_unuse:slot",
	"mmput:last_user_unlocked",
	"page_referenced_file:mapping",
	"unmap_mapping_range:vma",
	"move_page_tables:unlocked",
	"tlb_translate:walked",
	NULL,
};

void perturb_install(const struct perturb_ops *ops, uint64_t long_hold_mask)
{
	__atomic_store_n(&perturb_ops, ops, __ATOMIC_RELAXED);
	__atomic_store_n(&perturb_long_hold_mask, ops && ops->long_hold ? long_hold_mask : 0,
			 __ATOMIC_RELAXED);
}
