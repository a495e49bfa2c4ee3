/* SPDX-License-Identifier: MIT */
/*
 * The model's writes to lines that other CPUs write too, for the
 * virtual-time schedule's transfer pricing (--sched vtime
 * --vtime-transfer NS): a real CPU that writes a line another CPU wrote
 * last waits for the line to come over, a cost that the one-CPU segment
 * costs of vtime's table cannot hold. Called at the writes that move
 * between CPUs in the kernel too, by class rather than by site (the
 * kinds below). A lock's own line is priced where it is taken (the
 * scheduler's SP_LOCK point, LINE_LOCK), by the same owner table, so a
 * lock word and the data beside it move once. Reads are not priced, nor
 * the emulated page contents (the data word and the oracle's shadow: the
 * model keeps one word per page where a real page has 64 lines).
 *
 * Harness instrumentation, no kernel counterpart. Costs one relaxed load
 * when no hook is installed.
 */
#ifndef RT_CORE_CACHELINE_H
#define RT_CORE_CACHELINE_H

#include "compiler.h"

enum line_kind {
	LINE_LOCK,	/* a lock's word, where it is taken */
	LINE_LIST,	/* a list link (list.h: the entry and both neighbours) */
	LINE_TREE,	/* a prio tree link (the file's i_mmap) */
	LINE_PTE,	/* a pte: set, cleared, its young, dirty or write bit */
	LINE_PAGE,	/* a struct page's flags or count */
	LINE_RMAP,	/* a page's rmap state: mapcount, pte_chain slots */
	LINE_COUNT,	/* an inode's or an mm's count, an mm's cpu_vm_mask */
	LINE_TLB,	/* an emulated CPU's TLB slot, taken by a flush (the IPI) */
	LINE_NR_KINDS
};

/* "lock", "list", ...: indexed by enum line_kind. */
extern const char *const line_kind_names[LINE_NR_KINDS];

/**
 * typedef line_hook_fn - the hook behind line_write()
 * @addr: the byte written (only its line matters; never dereferenced)
 * @kind: what the line holds
 *
 * Context: the writing task, possibly holding spinlocks; the hook takes
 * no emulated lock and switches to no other thread.
 */
typedef void (*line_hook_fn)(const void *addr, enum line_kind kind);
extern line_hook_fn line_hook;	/* relaxed; set while no thread runs */

/* The calling CPU writes the line of @addr, which holds @kind. */
static force_inline void line_write(const void *addr, enum line_kind kind)
{
	line_hook_fn hook = __atomic_load_n(&line_hook, __ATOMIC_RELAXED);

	if (unlikely(hook != NULL))
		hook(addr, kind);
}

#endif /* RT_CORE_CACHELINE_H */
