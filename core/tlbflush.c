// SPDX-License-Identifier: MIT
/*
 * The emulated TLB shootdown: a per-mm handshake standing for the flush
 * IPI of 2.6 (arch/i386/kernel/smp.c: flush_tlb_others() sends the IPI
 * to every CPU in mm->cpu_vm_mask and spins until each has acknowledged).
 *
 * Protocol
 * --------
 * Every thread that plays a CPU owns one slot of tlb_cpus[]: the mm it is
 * accessing (mm) and a generation (gen) that is odd while an access is in
 * flight. An access (mm_access()) is:
 *
 *   A1  slot->mm = M                         relaxed
 *   A2  slot->gen = gen + 1  (odd)           seq_cst store
 *   A3  seq_cst fence
 *   A4  read-modify-write of the pte         acq_rel (the MMU's young/dirty update)
 *   A5  the load or store of the page data   (and its shadow: memory.c)
 *   A6  slot->gen = gen + 2  (even)          release store
 *
 * No lock anywhere: the accessor never waits for a flusher (if the pte it
 * finds is not usable, it leaves at A6 and faults, like the hardware).
 *
 * A pte change that removes or write-protects a translation, made under
 * page_table_lock as always, is followed by flush_tlb_*():
 *
 *   F1  the pte store (ptep_get_and_clear, set_pte, ptep_set_wrprotect)
 *   F2  seq_cst fence
 *   F3  for each slot: g = slot->gen (acquire); if g is odd and
 *       slot->mm == M: wait until slot->gen != g (acquire)
 *
 * and only after F3 returns does the caller drop the page's reference
 * (zap's mmu_gather, unmap_one_pte(), do_wp_page()) or touch the data
 * shadow of the address (zap, remap_file_pages).
 *
 * Why a flusher cannot miss an accessor that used the old pte. The
 * accessor used the old pte iff its RMW A4 read a value older than F1 in
 * the pte's modification order (A4 is an RMW: it reads the latest value
 * before it, so "read the old pte" means A4 is ordered before F1). A2/A3
 * and F1/F2 are the store-buffering pattern with seq_cst fences on both
 * sides: either F3's load of gen sees A2 (or later), or A4 sees F1 (or
 * later). So if A4 saw the old pte, F3 sees gen odd, or sees a later even
 * value, which means that access already ended at A6. And F3 reads mm
 * after gen with acquire: A1 is sequenced before the release A2, so the mm
 * it reads is that access's or a later one's; a later one means the access
 * F3 worried about has ended.
 *
 * Why an accessor that saw the old pte finishes before the flush returns.
 * F3 waits for gen to change from the odd value g, and the only change
 * the owner makes after A2 is A6, after its load or store (A5) landed.
 * The release at A6 pairs with F3's acquire, so everything the access did
 * (its store into the page, its shadow update) happens-before whatever
 * the flusher does next: write the page out, free it, reuse it. A later
 * access by the same thread starts at a higher odd gen: the flusher does
 * not wait for it (it began after F2, so by the argument above its A4
 * sees F1 or later: the new pte).
 *
 * Cost shape: the flusher waits (spinning, then yielding and sleeping,
 * through lock_wait_relax(), which also lets the deterministic schedules
 * run the accessor); the accessor pays two stores and a fence. A flusher
 * may wait with page_table_lock and the rmap lock held, as 2.6's IPI-wait
 * did: an accessor inside its window takes no lock and waits for nothing
 * but another accessor's data-word update (memory.c), so no cycle.
 *
 * The handshake's release/acquire pair is visible to ThreadSanitizer, and
 * rightly: the IPI and its acknowledgement order the CPUs in the same way.
 * It creates fewer edges than the IPI (only with CPUs inside an access of
 * the mm at the time), never more.
 *
 * Seeded bug tlb-flush-skip: F3 is skipped, as a missed or lazily
 * deferred flush IPI would be: an access that walked the old pte may store
 * into the page after reclaim wrote it out and freed it.
 */
#include "tlbflush.h"

#include "die.h"
#include "inject.h"
#include "mm.h"
#include "perturb.h"
#include "spinlock.h"
#include "task.h"

struct tlb_cpu {
	int claimed;		/* atomic: CAS to claim, release store to give back */
	unsigned long gen;	/* owner writes (seq_cst/release); flushers read (acquire) */
	struct mm_struct *mm;	/* owner writes before the odd gen; flushers read after it */
} ____cacheline_aligned;

static struct tlb_cpu tlb_cpus[NR_TLB_CPUS];
/* atomic: slots [0, tlb_nr_cpus) have been claimed at least once */
static int tlb_nr_cpus;
/* relaxed statistics */
static unsigned long tlb_flushes, tlb_flush_waits;

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
		return &tlb_cpus[i];
	}
	rt_die("more than %d threads access emulated memory", NR_TLB_CPUS);
}

void tlb_access_begin(struct mm_struct *mm)
{
	struct tlb_cpu *c = this_tlb_cpu();
	unsigned long gen = __atomic_load_n(&c->gen, __ATOMIC_RELAXED);

	BUG_ON(gen & 1);
	__atomic_store_n(&c->mm, mm, __ATOMIC_RELAXED);			/* A1 */
	/* A2/A3: pair with F2/F3 in flush_tlb_mm() (store buffering). */
	__atomic_store_n(&c->gen, gen + 1, __ATOMIC_SEQ_CST);
	memory_fence(__ATOMIC_SEQ_CST);
}

void tlb_access_end(void)
{
	struct tlb_cpu *c = &tlb_cpus[current->tlb_cpu];
	unsigned long gen = __atomic_load_n(&c->gen, __ATOMIC_RELAXED);

	BUG_ON(!(gen & 1));
	/* A6: release pairs with the acquire loads of gen in flush_tlb_mm(). */
	__atomic_store_n(&c->gen, gen + 1, __ATOMIC_RELEASE);
	/* A flusher that waits for this access may run again (--sched). */
	sched_point(SP_UNLOCK, NULL, -1);
}

void flush_tlb_mm(struct mm_struct *mm)
{
	int nr;

	__atomic_fetch_add(&tlb_flushes, 1, __ATOMIC_RELAXED);
	/* F2: pairs with A2/A3 in tlb_access_begin(). */
	memory_fence(__ATOMIC_SEQ_CST);
	if (injected(INJECT_TLB_FLUSH_SKIP)) {
		/*
		 * Seeded bug: no IPI, no wait: a CPU that walked the old pte
		 * goes on using it after the flush "returned".
		 */
		return;
	}
	nr = __atomic_load_n(&tlb_nr_cpus, __ATOMIC_SEQ_CST);
	for (int i = 0; i < nr; i++) {
		struct tlb_cpu *c = &tlb_cpus[i];
		/* F3: acquire pairs with the release at A2/A6. */
		unsigned long g = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
		struct lock_wait w = LOCK_WAIT_NONE;

		if (!(g & 1) || __atomic_load_n(&c->mm, __ATOMIC_RELAXED) != mm)
			continue;
		/* Our own thread is never inside an access here. */
		BUG_ON(current->tlb_cpu == i);
		__atomic_fetch_add(&tlb_flush_waits, 1, __ATOMIC_RELAXED);
		while (__atomic_load_n(&c->gen, __ATOMIC_ACQUIRE) == g)
			lock_wait_relax(&w);
	}
}

void flush_tlb_page(struct vm_area_struct *vma, unsigned long addr)
{
	(void)addr;
	flush_tlb_mm(vma->vm_mm);
}

void flush_tlb_range(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	(void)start;
	(void)end;
	flush_tlb_mm(vma->vm_mm);
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
	return __atomic_load_n(&tlb_flushes, __ATOMIC_RELAXED);
}

unsigned long tlb_flush_wait_count(void)
{
	return __atomic_load_n(&tlb_flush_waits, __ATOMIC_RELAXED);
}
