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

#include <stdbool.h>

struct mm_struct;
struct task_struct;
struct vm_area_struct;

/* How many threads may be inside tlb_access_begin() .. _end() at once. */
#define NR_TLB_CPUS	1024

/**
 * tlb_access_begin() - this CPU starts one user access of @mm
 * @mm: the mm whose page tables the access walks
 *
 * Announces the access before the TLB lookup and the page-table walk, so
 * that a flush of @mm that the access could still see stale waits for it.
 * If this CPU's TLB holds another mm's translations, they are dropped
 * first (switch_mm()'s CR3 load: i386 2.6 has no address-space tags).
 * Must be paired with tlb_access_end() before the thread faults, sleeps
 * or takes any emulated lock.
 *
 * Context: holds no emulated spinlock; takes only this CPU's harness TLB
 * lock (held for a few instructions by it or a flusher).
 */
void tlb_access_begin(struct mm_struct *mm);

/* Entries of each CPU's TLB (direct-mapped by virtual page number). */
#define TLB_ENTRIES	8

/**
 * tlb_translate() - the MMU's translation of @address for this CPU's access
 * @mm: the mm of the access begun by tlb_access_begin()
 * @address: a page-aligned user address
 * @write: a store (needs a writable translation whose dirty bit is set)
 * @pfn: out, the page frame the load or store goes to
 *
 * A hit in this CPU's TLB is used as the hardware uses it, without
 * touching the pte: a load through any entry, a store through a writable
 * entry already dirty, however stale the entry may be (only a flush drops
 * it). Otherwise the page table is walked lock-free, setting the accessed
 * (and dirty) bit with one atomic RMW, and the translation cached unless a
 * flush of this CPU raced the walk. A store through a writable entry not
 * yet dirty re-walks, as the i386 MMU's locked dirty-bit update does.
 *
 * Context: inside tlb_access_begin() .. tlb_access_end(); takes only this
 * CPU's harness TLB lock (no emulated lock, no yield point inside).
 * Return: true, or false if the access must fault (its entry is dropped).
 */
bool tlb_translate(struct mm_struct *mm, unsigned long address, bool write,
		   unsigned long *pfn);

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
 * Drops every entry of @mm from every CPU's TLB (the IPI handler's
 * local_flush_tlb()), and returns only when every access of @mm that was
 * in flight when the pte change was made has ended (the flush IPI and its
 * acknowledgement). The caller drops the last reference of a page it
 * unmapped only after this.
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
 * Drops only @addr's entry (the IPI handler's __flush_tlb_one(), invlpg).
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
 * As include/asm-i386/tlbflush.h of 2.6 (SMP), a flush of the whole mm:
 * i386 has no ranged invalidation, and a model that dropped only the range
 * would keep entries the source's callers never had to think about.
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

/* The kinds of flush, for struct tlb_stats. */
enum tlb_flush_kind {
	TLB_FLUSH_PAGE,		/* flush_tlb_page(): one page (invlpg) */
	TLB_FLUSH_RANGE,	/* flush_tlb_range(): the whole mm on i386 */
	TLB_FLUSH_MM,		/* flush_tlb_mm() */
	TLB_FLUSH_NR_KINDS
};

/*
 * What the per-CPU TLBs did since tlb_stats_reset(): accesses that used a
 * cached translation (hits) or walked the page table (misses), and, per
 * kind, flushes made and (flush, CPU) pairs where the flush found that
 * CPU's TLB holding an entry it dropped. Summed over the per-CPU relaxed
 * counters at the time of the call.
 */
struct tlb_stats {
	unsigned long hits, misses;
	unsigned long flushes[TLB_FLUSH_NR_KINDS];
	unsigned long drops[TLB_FLUSH_NR_KINDS];
};

/**
 * tlb_stats_read() - sum the TLB statistics
 * @st: out, the sums
 *
 * Context: any; the sums are of relaxed counters, not one snapshot.
 */
void tlb_stats_read(struct tlb_stats *st);

/**
 * tlb_stats_reset() - zero the TLB statistics (and the flush counts)
 *
 * Context: no access or flush in progress (a run's set-up).
 */
void tlb_stats_reset(void);

/*
 * tlb_for_each_entry() - call @fn for every valid entry of every CPU slot:
 * the slot's mm id, the page's address, its pfn and whether it allows a
 * store. For the audit (a translation a flush should have dropped).
 * Context: quiescent (no access or flush in flight); takes each slot's
 * harness lock around its own read.
 */
void tlb_for_each_entry(void (*fn)(int cpu, int mm_id, unsigned long addr, unsigned long pfn,
				   bool writable, void *arg),
			void *arg);

#endif /* RT_CORE_TLBFLUSH_H */
