/* SPDX-License-Identifier: MIT */
/*
 * The emulated TLB and its shootdown. Mirrors include/asm-i386/tlbflush.h
 * and arch/i386/kernel/smp.c of 2.6 (flush_tlb_mm/page/range and the
 * flush IPI they send to every CPU running the mm): a user access
 * (mm_access()) takes no lock of the emulated kernel; a pte change that
 * removes or write-protects a translation is complete only once its flush
 * has returned, and the flush returns only when no CPU is still inside an
 * access that may have used the old translation. The protocol and why it
 * is sound: the comment at the top of core/tlbflush.c.
 */
#ifndef RT_CORE_TLBFLUSH_H
#define RT_CORE_TLBFLUSH_H

struct mm_struct;
struct task_struct;
struct vm_area_struct;

/* How many threads may be inside tlb_access_begin() .. _end() at once. */
#define NR_TLB_CPUS	1024

/**
 * tlb_access_begin() - this CPU starts one user access of @mm
 * @mm: the mm whose page tables the access walks
 *
 * Announces the access before the page-table walk, so that a flush of @mm
 * that the walk could still see stale waits for it. Must be paired with
 * tlb_access_end() before the thread faults, sleeps or takes any lock.
 *
 * Context: holds no emulated spinlock; takes no lock (never waits).
 */
void tlb_access_begin(struct mm_struct *mm);

/**
 * tlb_access_end() - the access begun by tlb_access_begin() is over
 *
 * From here on, nothing this CPU read from the page tables in that access
 * is used: the load or store has landed.
 *
 * Context: as tlb_access_begin(); never waits.
 */
void tlb_access_end(void);

/**
 * flush_tlb_mm() - shoot down every translation of @mm that any CPU holds
 * @mm: the mm whose ptes were just cleared or write-protected
 *
 * Returns only when every access of @mm that was in flight when the pte
 * change was made has ended (the flush IPI and its acknowledgement). The
 * caller drops the last reference of a page it unmapped only after this.
 *
 * Context: after the pte change; may be called with spinlocks held (the
 * page_table_lock, the rmap lock), as 2.6 did: it waits only for user
 * accesses, which never wait for a lock. Spins politely (lock_wait_relax()).
 */
void flush_tlb_mm(struct mm_struct *mm);

/**
 * flush_tlb_page() - shoot down @vma's translation of @addr
 * @vma: the vma mapping @addr
 * @addr: the user address whose pte changed
 *
 * As on i386, the handshake is per mm: every CPU in the mm's access is
 * waited for, whatever page it touches.
 *
 * Context: as flush_tlb_mm().
 */
void flush_tlb_page(struct vm_area_struct *vma, unsigned long addr);

/**
 * flush_tlb_range() - shoot down @vma's translations of [@start, @end)
 * @vma: the vma mapping the range
 * @start: first address
 * @end: end address
 *
 * Context: as flush_tlb_mm().
 */
void flush_tlb_range(struct vm_area_struct *vma, unsigned long start, unsigned long end);

/**
 * tlb_task_exit() - give @t's access slot back
 * @t: an exiting task, outside any access
 *
 * Context: the task's own thread, at detach.
 */
void tlb_task_exit(struct task_struct *t);

/*
 * Statistics, relaxed counters ordered by nothing: flushes made, and
 * flushes that found a CPU inside an access of the mm and waited for it.
 */
unsigned long tlb_flush_count(void);
unsigned long tlb_flush_wait_count(void);

#endif /* RT_CORE_TLBFLUSH_H */
