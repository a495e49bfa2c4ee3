// SPDX-License-Identifier: MIT
/*
 * The emulated TLBs and their shootdown: a small TLB per CPU slot, and a
 * per-mm handshake standing for the flush IPI of 2.6 (arch/i386/kernel/
 * smp.c: flush_tlb_others() sends the IPI to every CPU in
 * mm->cpu_vm_mask and spins until each has acknowledged; the handler,
 * smp_invalidate_interrupt(), drops one page (invlpg) or everything).
 *
 * The TLB
 * -------
 * Every thread that plays a CPU owns one slot of tlb_cpus[]. Its TLB holds
 * TLB_ENTRIES translations of one mm (mm_id: i386 2.6 has no address-space
 * tags, so switching mm drops them all, as the CR3 load of switch_mm()
 * does; the id, unique for the run, is compared, never a pointer that may
 * outlive its mm). Eight direct-mapped entries: far smaller than a real
 * TLB (64 data entries, 4-way, on a PII/PIII), so that misses, walks and
 * evictions stay frequent enough to be exercised next to hits; direct
 * mapping makes which entry a page uses a pure function of its address,
 * so the tests can reason about it. An entry is {page, pfn, writable,
 * dirty}: a load uses any entry; a store uses a writable entry already
 * dirty without touching the pte; a store through a writable entry not yet
 * dirty re-walks with the atomic RMW that sets the dirty bit (the i386
 * MMU's locked update), faulting if the pte no longer allows it. A load
 * hit sets no accessed bit: only a walk does, as on the hardware.
 *
 * The slot's entries, mm_id and flush_seq are guarded by the slot's lock,
 * a harness spinlock (no emulated lock: lockdep, the lock statistics and
 * the deterministic scheduler do not see it; nothing inside it yields).
 * The owner takes it to look up and to fill; a flusher takes it to drop
 * entries on the owner's behalf, which is what the IPI handler running on
 * the owner between two instructions amounts to. ThreadSanitizer sees the
 * lock, and rightly: the IPI and its acknowledgement order the same CPUs.
 *
 * Protocol
 * --------
 * An access (mm_access()) is:
 *
 *   A0  if mm_id != M's id: lock, drop all, mm_id = M's id, set the
 *       slot's bit in M's cpu_vm_mask (seq_cst RMW), unlock
 *   A1  slot->mm = M                         relaxed
 *   A2  slot->gen = gen + 1  (odd)           seq_cst store
 *   A3  seq_cst fence
 *   L   lock; q = flush_seq; look up; unlock
 *   A4  on a miss: read-modify-write of the pte (acq_rel: the MMU's
 *       young/dirty update); then lock; fill only if flush_seq == q;
 *       unlock (else a flush raced the walk: the walked translation
 *       serves this access only)
 *   A5  the load or store of the page data   (and its shadow: memory.c)
 *   A6  slot->gen = gen + 2  (even)          release store
 *
 * The accessor never waits for a flusher but for the few instructions a
 * flusher holds its slot's lock (if the translation is not usable, it
 * leaves at A6 and faults, like the hardware).
 *
 * A pte change that removes or write-protects a translation, made under
 * page_table_lock as always, is followed by flush_tlb_*():
 *
 *   F1  the pte store (ptep_get_and_clear, set_pte, ptep_set_wrprotect)
 *   F2  seq_cst fence
 *   D   for each slot whose bit is set in M's cpu_vm_mask (relaxed
 *       loads): lock; if its mm_id is M's, drop the entries the flush
 *       covers and flush_seq++, else clear its bit (the slot moved on:
 *       i386's lazy leave_mm()); unlock
 *   F3  for each slot D visited: g = slot->gen (acquire); if g is odd
 *       and slot->mm == M: wait until slot->gen != g (acquire)
 *
 * The bit invariant: while a slot's mm_id is M's, its bit in M's mask is
 * set (both change only under the slot's lock, A0 setting the two
 * together, D clearing the bit only when mm_id is another's). So every
 * slot that caches M's entries, or is inside an access of M (whose A0
 * came first), is in the mask from its A0 on. As 2.6's flush_tlb_others()
 * interrupts the CPUs of mm->cpu_vm_mask alone, a flush visits those alone:
 * CPUs working in other mms share no line with it.
 *
 * and only after F3 returns does the caller drop the page's reference
 * (zap's mmu_gather, unmap_one_pte(), do_wp_page()) or touch the data
 * shadow of the address (zap, remap_file_pages).
 *
 * Why no entry filled from the old pte outlives the flush. An entry is
 * filled at A4 by a walk that began after L's unlock. Three cases for
 * the flusher's critical section D on that slot:
 *  - D skipped the slot: it read a mask without the bit A0 set (or
 *    found, under the lock, an mm_id older than A0's store). A0 is before
 *    A3 and those reads after F2, so by the seq_cst fences (the
 *    store-buffering pattern) F2 follows A3 in the fences' total order,
 *    and A4, after A3, reads F1 or a later pte: the fill is of the new pte.
 *  - D's unlock precedes L's lock: the lock orders F1 before the walk
 *    (F1 happens-before D, D before L, L before A4), and an RMW reads the
 *    latest value: the walk sees F1 or later.
 *  - D's lock follows L's unlock: if it also precedes the fill's lock,
 *    flush_seq moved and nothing is filled; if it follows the fill, D
 *    drops the entry.
 * Why an access that used the old translation ends before the flush
 * returns. It used it either from a walk that read the old pte (A4 before
 * F1 in the pte's modification order) or from a hit at L before D.
 * Walk: A0-A3 and F1/F2 are the store-buffering pattern with seq_cst
 * fences on both sides: either D's load of the mask sees A0's bit and
 * F3's load of gen sees A2 (or later), or A4 sees F1 (or later); so F3 sees gen odd, or a later even value, which
 * means that access already ended at A6. Hit: L's unlock happens-before
 * D's lock, so F3 (after D) reads A2's gen or a later one. Either way F3
 * reads mm after gen with acquire: A1 is sequenced before the release A2,
 * so the mm it reads is that access's or a later one's; a later one means
 * the access F3 worried about has ended.
 *
 * Why what such an access did is complete when the flush returns.
 * F3 waits for gen to change from the odd value g, and the only change
 * the owner makes after A2 is A6, after its load or store (A5) landed.
 * The release at A6 pairs with F3's acquire, so everything the access did
 * (its store into the page, its shadow update) happens-before whatever
 * the flusher does next: write the page out, free it, reuse it. A later
 * access by the same thread starts at a higher odd gen: the flusher does
 * not wait for it (it began after F2, so its walk sees F1 or later, and
 * its lookup comes after D dropped the stale entry, or D found none).
 *
 * Cost shape: the flusher waits (spinning, then yielding and sleeping,
 * through lock_wait_relax(), which also lets the deterministic schedules
 * run the accessor); the accessor pays two stores, a fence and one or two
 * uncontended lock round trips on its own cache line; a flusher reads
 * and locks the slots of its mm's cpu_vm_mask alone. A flusher
 * may wait with page_table_lock and the rmap lock held, as 2.6's IPI-wait
 * did: an accessor inside its window takes no lock and waits for nothing
 * but another accessor's data-word update (memory.c), so no cycle.
 *
 * The handshake's release/acquire pair is visible to ThreadSanitizer, and
 * rightly: the IPI and its acknowledgement order the CPUs in the same way.
 * It creates fewer edges than the IPI (only with CPUs inside an access of
 * the mm at the time), never more.
 *
 * Seeded bug tlb-flush-skip: D and F3 are skipped, as a missed or lazily
 * deferred flush IPI would be: an access that walked the old pte may store
 * into the page after reclaim wrote it out and freed it, and the stale
 * entry stays in the TLB for later accesses to use, until something else
 * evicts or drops it.
 */
#include "tlbflush.h"

#include "cacheline.h"
#include "cover.h"
#include "die.h"
#include "inject.h"
#include "mm.h"
#include "perturb.h"
#include "pgtable.h"
#include "spinlock.h"
#include "percpu.h"
#include "task.h"

#include <sched.h>
#include <string.h>

_Static_assert(MM_CPUMASK_WORDS * BITS_PER_LONG >= NR_TLB_CPUS, "mm.h: MM_CPUMASK_WORDS");

struct tlb_entry {
	unsigned long tag;	/* the page's address | TLB_VALID; 0: empty */
	unsigned long pfn;
	bool writable, dirty;
};
#define TLB_VALID	1UL

struct tlb_cpu {
	int claimed;		/* atomic: CAS to claim, release store to give back */
	unsigned long gen;	/* owner writes (seq_cst/release); flushers read (acquire) */
	struct mm_struct *mm;	/* owner writes before the odd gen; flushers read after it */
	int lock;		/* harness spinlock: guards the fields below */
	int mm_id;		/* lock (writers); flushers peek relaxed: whose entries */
	unsigned long flush_seq;			/* lock: flushes that visited */
	struct tlb_entry tlb[TLB_ENTRIES];		/* lock */
	/* Relaxed statistics: the owner counts hits and misses. */
	unsigned long hits, misses;
} ____cacheline_aligned;

static struct tlb_cpu tlb_cpus[NR_TLB_CPUS];
/* atomic: slots [0, tlb_nr_cpus) have been claimed at least once */
static int tlb_nr_cpus;
/*
 * Flushes, drops (counted by the flusher) and waits: the flushing task's
 * own counters (percpu.h), PCPU_TLB_*.
 */
_Static_assert(TLB_FLUSH_NR_KINDS <= RT_PCPU_TLB_KINDS, "percpu.h: RT_PCPU_TLB_KINDS");

/* The slot's lock: a few instructions of its owner or one flusher. */
static void tlb_cpu_lock(struct tlb_cpu *c)
{
	int spins = 0;

	/*
	 * The slot's line: its owner's own, until a flusher (the IPI of
	 * 2.6) takes it; then it moves both ways.
	 */
	line_write(&c->lock, LINE_TLB);
	/* Acquire pairs with the release in tlb_cpu_unlock(). */
	while (__atomic_exchange_n(&c->lock, 1, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&c->lock, __ATOMIC_RELAXED)) {
			/* The holder may have been preempted: let it run. */
			if (++spins % 64 == 0)
				sched_yield();
			else
				cpu_relax();
		}
	}
}

static void tlb_cpu_unlock(struct tlb_cpu *c)
{
	/* Release pairs with the acquire in tlb_cpu_lock(). */
	__atomic_store_n(&c->lock, 0, __ATOMIC_RELEASE);
}

static struct tlb_entry *tlb_slot_of(struct tlb_cpu *c, unsigned long address)
{
	return &c->tlb[(address >> PAGE_SHIFT) % TLB_ENTRIES];
}

/* Drop the entries a flush of @kind at @address covers; how many. Slot lock held. */
static unsigned int tlb_drop(struct tlb_cpu *c, enum tlb_flush_kind kind, unsigned long address)
{
	unsigned int n = 0;

	if (kind == TLB_FLUSH_PAGE) {
		struct tlb_entry *e = tlb_slot_of(c, address);

		if (e->tag == (address | TLB_VALID)) {
			e->tag = 0;
			n++;
		}
		return n;
	}
	for (int i = 0; i < TLB_ENTRIES; i++) {
		n += c->tlb[i].tag != 0;
		c->tlb[i].tag = 0;
	}
	return n;
}

/* The calling task's slot, claimed at its first access. */
static struct tlb_cpu *this_tlb_cpu(void)
{
	struct task_struct *t = current;
	int nr;

	if (likely(t->tlb_cpu >= 0))
		return &tlb_cpus[t->tlb_cpu];
	for (int i = 0; i < NR_TLB_CPUS; i++) {
		int free = 0;

		/* Acquire pairs with the release in tlb_task_exit(). */
		if (!__atomic_compare_exchange_n(&tlb_cpus[i].claimed, &free, 1, false,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		t->tlb_cpu = i;
		nr = __atomic_load_n(&tlb_nr_cpus, __ATOMIC_RELAXED);
		while (nr <= i &&
		       !__atomic_compare_exchange_n(&tlb_nr_cpus, &nr, i + 1, false,
						    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			;
		/* A new thread on this CPU: nothing cached is its own. */
		tlb_cpu_lock(&tlb_cpus[i]);
		tlb_drop(&tlb_cpus[i], TLB_FLUSH_MM, 0);
		__atomic_store_n(&tlb_cpus[i].mm_id, 0, __ATOMIC_RELAXED);
		tlb_cpu_unlock(&tlb_cpus[i]);
		return &tlb_cpus[i];
	}
	rt_die("more than %d threads access emulated memory", NR_TLB_CPUS);
}

void tlb_access_begin(struct mm_struct *mm)
{
	struct tlb_cpu *c = this_tlb_cpu();
	unsigned long gen = __atomic_load_n(&c->gen, __ATOMIC_RELAXED);

	BUG_ON(gen & 1);
	if (__atomic_load_n(&c->mm_id, __ATOMIC_RELAXED) != mm->id) {
		/* A0: switch_mm()'s CR3 load; before A2/A3 (see the proof). */
		int i = current->tlb_cpu;

		tlb_cpu_lock(c);
		tlb_drop(c, TLB_FLUSH_MM, 0);
		__atomic_store_n(&c->mm_id, mm->id, __ATOMIC_RELAXED);
		line_write(&mm->cpu_vm_mask[i / BITS_PER_LONG], LINE_COUNT);
		__atomic_fetch_or(&mm->cpu_vm_mask[i / BITS_PER_LONG],
				  1UL << (i % BITS_PER_LONG), __ATOMIC_SEQ_CST);
		tlb_cpu_unlock(c);
	}
	__atomic_store_n(&c->mm, mm, __ATOMIC_RELAXED);			/* A1 */
	/* A2/A3: pair with F2/F3 in tlb_flush() (store buffering). */
	__atomic_store_n(&c->gen, gen + 1, __ATOMIC_SEQ_CST);
	memory_fence(__ATOMIC_SEQ_CST);
}

bool tlb_translate(struct mm_struct *mm, unsigned long address, bool write,
		   unsigned long *pfn)
{
	struct tlb_cpu *c = &tlb_cpus[current->tlb_cpu];
	struct tlb_entry *e = tlb_slot_of(c, address);
	unsigned long seq;
	pte_t *ptep, orig = 0;
	bool ok;

	BUG_ON(!(__atomic_load_n(&c->gen, __ATOMIC_RELAXED) & 1) ||
	       c->mm != mm || (address & ~PAGE_MASK));
	tlb_cpu_lock(c);						/* L */
	seq = c->flush_seq;
	if (e->tag == (address | TLB_VALID) && (!write || (e->writable && e->dirty))) {
		*pfn = e->pfn;
		tlb_cpu_unlock(c);
		__atomic_store_n(&c->hits, __atomic_load_n(&c->hits, __ATOMIC_RELAXED) + 1,
				 __ATOMIC_RELAXED);
		return true;
	}
	tlb_cpu_unlock(c);
	__atomic_store_n(&c->misses, __atomic_load_n(&c->misses, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
	/* A4: the walk, and the young/dirty update, lock-free. */
	ptep = pte_offset(mm->pgd, address);
	ok = ptep && (write ? ptep_mkdirty(ptep, &orig) : ptep_mkyoung(ptep, &orig));
	/* A CPU stalled between its walk and the fill: a flush may pass. */
	if (ok)
		yield_point_on("tlb_translate:walked", mm, COVER_MM);
	tlb_cpu_lock(c);
	if (!ok) {
		/* The fault: i386 drops the faulting translation. */
		if (e->tag == (address | TLB_VALID))
			e->tag = 0;
	} else if (c->flush_seq == seq) {
		e->tag = address | TLB_VALID;
		e->pfn = pte_pfn(orig);
		e->writable = pte_write(orig);
		e->dirty = write || pte_dirty(orig);
	}
	tlb_cpu_unlock(c);
	if (ok)
		*pfn = pte_pfn(orig);
	return ok;
}

void tlb_access_end(void)
{
	struct tlb_cpu *c = &tlb_cpus[current->tlb_cpu];
	unsigned long gen = __atomic_load_n(&c->gen, __ATOMIC_RELAXED);

	BUG_ON(!(gen & 1));
	/* A6: release pairs with the acquire loads of gen in tlb_flush(). */
	__atomic_store_n(&c->gen, gen + 1, __ATOMIC_RELEASE);
	/* A flusher that waits for this access may run again (--sched). */
	sched_point(SP_UNLOCK, NULL, -1);
}

/* D and F3 for one flush of @mm (see the top of this file). */
static void tlb_flush(struct mm_struct *mm, enum tlb_flush_kind kind, unsigned long address)
{
	int nr;

	rt_pcpu_inc(PCPU_TLB_FLUSHES + kind);
	/* F2: pairs with A2/A3 in tlb_access_begin(). */
	memory_fence(__ATOMIC_SEQ_CST);
	if (injected(INJECT_TLB_FLUSH_SKIP)) {
		/*
		 * Seeded bug: no IPI, no drop, no wait: a CPU that walked
		 * the old pte, or cached it, goes on using it after the
		 * flush "returned".
		 */
		return;
	}
	nr = __atomic_load_n(&tlb_nr_cpus, __ATOMIC_SEQ_CST);
	for (int i = 0; i < nr; i++) {
		struct tlb_cpu *c = &tlb_cpus[i];
		struct lock_wait w = LOCK_WAIT_NONE;
		unsigned long g, bit = 1UL << (i % BITS_PER_LONG);
		unsigned long *word = &mm->cpu_vm_mask[i / BITS_PER_LONG];
		bool stale;

		/* D: relaxed loads of the mask; the fences order them (the proof). */
		if (!(i % BITS_PER_LONG) && !__atomic_load_n(word, __ATOMIC_RELAXED)) {
			i += BITS_PER_LONG - 1;
			continue;
		}
		if (!(__atomic_load_n(word, __ATOMIC_RELAXED) & bit))
			continue;
		tlb_cpu_lock(c);
		stale = c->mm_id != mm->id;
		if (!stale) {
			if (tlb_drop(c, kind, address))
				rt_pcpu_inc(PCPU_TLB_DROPS + kind);
			c->flush_seq++;
		} else {
			line_write(word, LINE_COUNT);
			__atomic_fetch_and(word, ~bit, __ATOMIC_RELAXED);
		}
		tlb_cpu_unlock(c);
		if (stale)
			continue;
		/* F3: acquire pairs with the release at A2/A6. */
		g = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
		if (!(g & 1) || __atomic_load_n(&c->mm, __ATOMIC_RELAXED) != mm)
			continue;
		/* Our own thread is never inside an access here. */
		BUG_ON(current->tlb_cpu == i);
		rt_pcpu_inc(PCPU_TLB_FLUSH_WAITS);
		while (__atomic_load_n(&c->gen, __ATOMIC_ACQUIRE) == g)
			lock_wait_relax(&w);
	}
}

void flush_tlb_mm(struct mm_struct *mm)
{
	tlb_flush(mm, TLB_FLUSH_MM, 0);
}

void flush_tlb_page(struct vm_area_struct *vma, unsigned long addr)
{
	tlb_flush(vma->vm_mm, TLB_FLUSH_PAGE, addr & PAGE_MASK);
}

void flush_tlb_range(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	(void)start;
	(void)end;
	/* include/asm-i386/tlbflush.h (SMP): the whole mm. */
	tlb_flush(vma->vm_mm, TLB_FLUSH_RANGE, 0);
}

void tlb_task_exit(struct task_struct *t)
{
	if (t->tlb_cpu < 0)
		return;
	BUG_ON(__atomic_load_n(&tlb_cpus[t->tlb_cpu].gen, __ATOMIC_RELAXED) & 1);
	/* Release pairs with the acquire CAS in this_tlb_cpu(). */
	__atomic_store_n(&tlb_cpus[t->tlb_cpu].claimed, 0, __ATOMIC_RELEASE);
	t->tlb_cpu = -1;
}

unsigned long tlb_flush_count(void)
{
	unsigned long n = 0;

	for (int k = 0; k < TLB_FLUSH_NR_KINDS; k++)
		n += (unsigned long)rt_pcpu_sum(PCPU_TLB_FLUSHES + k);
	return n;
}

unsigned long tlb_flush_wait_count(void)
{
	return (unsigned long)rt_pcpu_sum(PCPU_TLB_FLUSH_WAITS);
}

void tlb_stats_read(struct tlb_stats *st)
{
	int nr = __atomic_load_n(&tlb_nr_cpus, __ATOMIC_ACQUIRE);

	memset(st, 0, sizeof(*st));
	for (int k = 0; k < TLB_FLUSH_NR_KINDS; k++) {
		st->flushes[k] = (unsigned long)rt_pcpu_sum(PCPU_TLB_FLUSHES + k);
		st->drops[k] = (unsigned long)rt_pcpu_sum(PCPU_TLB_DROPS + k);
	}
	for (int i = 0; i < nr; i++) {
		const struct tlb_cpu *c = &tlb_cpus[i];

		st->hits += __atomic_load_n(&c->hits, __ATOMIC_RELAXED);
		st->misses += __atomic_load_n(&c->misses, __ATOMIC_RELAXED);
	}
}

void tlb_stats_reset(void)
{
	rt_pcpu_reset(PCPU_TLB_FLUSHES, PCPU_TLB_FLUSH_WAITS + 1 - PCPU_TLB_FLUSHES);
	for (int i = 0; i < NR_TLB_CPUS; i++) {
		struct tlb_cpu *c = &tlb_cpus[i];

		__atomic_store_n(&c->hits, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&c->misses, 0, __ATOMIC_RELAXED);
	}
}

void tlb_for_each_entry(void (*fn)(int cpu, int mm_id, unsigned long addr, unsigned long pfn,
				   bool writable, void *arg),
			void *arg)
{
	int nr = __atomic_load_n(&tlb_nr_cpus, __ATOMIC_ACQUIRE);

	for (int i = 0; i < nr; i++) {
		struct tlb_cpu *c = &tlb_cpus[i];
		struct tlb_entry copy[TLB_ENTRIES];
		int mm_id;

		tlb_cpu_lock(c);
		mm_id = c->mm_id;
		memcpy(copy, c->tlb, sizeof(copy));
		tlb_cpu_unlock(c);
		for (int k = 0; k < TLB_ENTRIES; k++)
			if (copy[k].tag & TLB_VALID)
				fn(i, mm_id, copy[k].tag & PAGE_MASK, copy[k].pfn, copy[k].writable,
				   arg);
	}
}
