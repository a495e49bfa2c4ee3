// SPDX-License-Identifier: MIT
/*
 * The emulated CPUs' TLBs (core/tlbflush.c): translations cached between
 * accesses, dropped only by the flushes the source does, and used stale
 * as the hardware uses them; user accesses outside mmap_sem racing
 * munmap and fork.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "fs.h"
#include "i_mmap.h"
#include "audit.h"
#include "inject.h"
#include "mm-internal.h"
#include "mm.h"
#include "perturb.h"
#include "rt_check.h"
#include "rt_vm.h"
#include "task.h"
#include "tlbflush.h"

static const struct rt_vm_suite vm_small = RT_VM_AUDITED(RMAP_PTECHAIN, 256, 256);

/* ---- stale translations ---- */

/* What takes the translation away after the store (the flush may be skipped). */
enum tlb_change { UNMAP_ALL, UNMAP_FIRST, PROTECT_FIRST };

/*
 * One CPU (this thread) caches a writable translation of the first page of
 * a new 4-page anonymous mapping (a store), then @change removes or
 * write-protects it, with its flush skipped if @skip_flush (the seeded bug
 * tlb-flush-skip). Return: the mm; *@addr the mapping's address.
 */
static struct mm_struct *cached_store_then(enum tlb_change change, bool skip_flush,
					   unsigned long *addr)
{
	uint64_t saved = inject_mask;
	struct mm_struct *mm = mm_alloc();
	long a = rt_mmap(mm, NULL, 0, 4, VM_READ | VM_WRITE, 0);

	ck_assert_int_gt(a, 0);
	*addr = (unsigned long)a;
	ck_assert_int_eq(rt_access(mm, *addr, true, NULL), ACCESS_OK);
	if (skip_flush)
		inject_mask = saved | (1ULL << INJECT_TLB_FLUSH_SKIP);
	if (change == PROTECT_FIRST) {
		down_write(&mm->mmap_sem);
		ck_assert_int_eq(do_mprotect(mm, *addr, PAGE_SIZE, 0, VM_WRITE), 0);
		up_write(&mm->mmap_sem);
	} else {
		ck_assert_int_eq(rt_munmap(mm, *addr, change == UNMAP_ALL ? 4 : 1), 0);
	}
	inject_mask = saved;
	return mm;
}

/* A store again after munmap of the whole mapping. Return: its result. */
static enum mm_access_result store_after_munmap(bool skip_flush)
{
	unsigned long a;
	struct mm_struct *mm = cached_store_then(UNMAP_ALL, skip_flush, &a);
	enum mm_access_result r = rt_access(mm, a, true, NULL);

	mmput(mm);
	return r;
}

/*
 * A store through a translation that munmap's flush should have dropped:
 * with the flush skipped (the seeded bug tlb-flush-skip), the CPU's entry
 * survives and the store lands in the freed page, which the data oracle
 * reports; with the flush, the store faults (no vma: SEGV), never reported.
 */
START_TEST(test_tlb_stale_store_after_skipped_flush_is_caught)
{
	RT_VM_EACH_DESIGN(&vm_small, {
		ck_assert_int_eq(store_after_munmap(false), ACCESS_SEGV);
		ck_assert_int_eq(rt_reports_count(VM_REPORT_AUDIT), 0);
		ck_assert_int_eq(store_after_munmap(true), ACCESS_CORRUPT);
		ck_assert_msg(rt_reports_count(VM_REPORT_AUDIT) > 0,
			      "[%s] a store into a freed page went unreported",
			      rmap_mode_name(rmap_mode));
		/* Expected now; the tear-down must still find no leak. */
		rt_reports_release();
		rt_reports_capture();
	});
}
END_TEST

/* ---- fork and a truncate between copy_page_range() and the flush ---- */

struct fork_trunc {
	struct mm_struct *mm;
	struct vm_area_struct *file_vma;
	unsigned long addr;
	int calls;
	enum mm_access_result stale;	/* the parent's store through its stale entry */
};

static struct fork_trunc fork_trunc;

/*
 * At fork's second vma (the file vma's ptes are copied, its flush not yet
 * done): the parent's CPU (this thread, whose TLB still holds the writable
 * entry) stores, then a truncate zaps the parent's vma, and not yet the
 * child's, as unmap_mapping_range() does between two vmas of its walk.
 */
static void fork_trunc_yield(const char *where)
{
	struct fork_trunc *t = &fork_trunc;

	if (strcmp(where, "dup_mm:vma") || ++t->calls != 2)
		return;
	t->stale = rt_access(t->mm, t->addr, true, NULL);
	i_mmap_lock_file(t->file_vma->vm_file);
	zap_page_range(t->file_vma, t->addr, PAGE_SIZE);
	i_mmap_unlock_file(t->file_vma->vm_file);
}

static const struct perturb_ops fork_trunc_ops = { .yield = fork_trunc_yield };

/*
 * The child reads what the parent stored through a stale writable entry
 * before fork's flush, even when a truncate zapped the parent's pte (and
 * its record of that store) before the child's: no report, the parent's
 * stamp seen.
 */
START_TEST(test_tlb_fork_truncate_parent_first)
{
	RT_VM_EACH_DESIGN(&vm_small, {
		struct fork_trunc *t = &fork_trunc;
		struct address_space *f = file_create("forktrunc", 2, 2);
		struct mm_struct *mm = mm_alloc(), *child;
		long a = rt_mmap(mm, f, 0, 1, VM_READ | VM_WRITE, 0);
		long b = rt_mmap(mm, NULL, 0, 1, VM_READ | VM_WRITE, 0);
		uint64_t first, seen;

		ck_assert_int_gt(a, 0);
		ck_assert_int_gt(b, a);		/* fork copies the file vma first */
		/* A private copy of the file page, its entry writable and dirty. */
		ck_assert_int_eq(rt_access(mm, (unsigned long)a, true, &first), ACCESS_OK);
		memset(t, 0, sizeof(*t));
		t->mm = mm;
		t->addr = (unsigned long)a;
		t->file_vma = find_vma(mm, t->addr);
		perturb_install(&fork_trunc_ops, 0);
		child = dup_mm(mm);
		perturb_install(NULL, 0);
		ck_assert_ptr_nonnull(child);
		ck_assert_int_eq(t->calls, 2);
		ck_assert_int_eq(t->stale, ACCESS_OK);
		ck_assert_msg(!pte_present(rt_pte_at(mm, t->addr)), "the parent's pte survived");
		ck_assert_msg(pte_present(rt_pte_at(child, t->addr)), "the child's pte is gone");
		ck_assert_int_eq(rt_access(child, t->addr, false, &seen), ACCESS_OK);
		ck_assert_uint_ne(seen, first);
		ck_assert_int_eq(rt_reports_count(VM_REPORT_AUDIT), 0);
		mmput(child);
		mmput(mm);
		file_destroy(f);
	});
}
END_TEST

/*
 * The audit's TLB check: after munmap of a page, or mprotect to read-only,
 * no CPU may still cache a translation the pte no longer allows. With the
 * flush skipped the entry stays and the audit names it (stale-tlb), with
 * no access needed to use it; with the flush, the audit is clean.
 * Return: the audit's violations.
 */
static unsigned long stale_tlb_audit(bool mprotect, bool skip_flush)
{
	unsigned long a, v;
	struct mm_struct *mm = cached_store_then(mprotect ? PROTECT_FIRST : UNMAP_FIRST,
						 skip_flush, &a);

	v = vm_audit(&mm, 1, NULL, 0, NULL);
	mmput(mm);
	return v;
}

START_TEST(test_tlb_audit_names_a_stale_entry)
{
	RT_VM_EACH_DESIGN(&vm_small, {
		struct vm_report r;

		for (int m = 0; m < 2; m++) {
			ck_assert_uint_eq(stale_tlb_audit(m, false), 0);
			ck_assert_int_eq(rt_reports_count(VM_REPORT_AUDIT), 0);
			ck_assert_uint_eq(stale_tlb_audit(m, true), 1);
			ck_assert(rt_reports_first(VM_REPORT_AUDIT, &r));
			ck_assert_str_eq(r.signature, "audit:stale-tlb");
			ck_assert_msg(strstr(r.message, m ? "is read-only" : "is not present"),
				      "%s", r.message);
			rt_reports_release();
			rt_reports_capture();
		}
	});
}
END_TEST

/* ---- counters: one CPU, deterministic ---- */

static struct tlb_stats tlb_delta(const struct tlb_stats *before)
{
	struct tlb_stats now, d;

	tlb_stats_read(&now);
	d.hits = now.hits - before->hits;
	d.misses = now.misses - before->misses;
	for (int k = 0; k < TLB_FLUSH_NR_KINDS; k++) {
		d.flushes[k] = now.flushes[k] - before->flushes[k];
		d.drops[k] = now.drops[k] - before->drops[k];
	}
	return d;
}

static void flush_page_of(struct mm_struct *mm, unsigned long addr)
{
	down_read(&mm->mmap_sem);
	flush_tlb_page(find_vma(mm, addr), addr);
	up_read(&mm->mmap_sem);
}

/*
 * Hits, misses and the drops of each flush kind move exactly as the
 * hardware's would for one CPU: a fault then a walk fill the entry, later
 * accesses hit, a store through a clean writable entry re-walks once to
 * set the dirty bit, flush_tlb_page() drops its page only, flush_tlb_mm()
 * everything, and running another mm (switch_mm) drops all without a flush.
 */
START_TEST(test_tlb_counters_one_cpu)
{
	RT_VM_EACH_DESIGN(&vm_small, {
		struct address_space *f;
		long s;
		struct mm_struct *mm = rt_mm_with_file("tlb", 4, 4, &f, &s);
		struct mm_struct *other = mm_alloc();
		long a = rt_mmap(mm, NULL, 0, 4, VM_READ | VM_WRITE, 0);
		long b = rt_mmap(other, NULL, 0, 1, VM_READ | VM_WRITE, 0);
		unsigned long pa = (unsigned long)a;
		struct tlb_stats before, d;

		ck_assert_int_gt(a, 0);
		ck_assert_int_gt(b, 0);
		tlb_stats_read(&before);
		rt_touch(mm, pa, true);		/* miss: fault; miss: walk, fill */
		rt_touch(mm, pa, true);		/* hit: writable, dirty */
		rt_touch(mm, pa, false);	/* hit */
		d = tlb_delta(&before);
		ck_assert_uint_eq(d.misses, 2);
		ck_assert_uint_eq(d.hits, 2);

		/* A page not cached: nothing to drop; then the cached one. */
		flush_page_of(mm, pa + PAGE_SIZE);
		ck_assert_uint_eq(tlb_delta(&before).drops[TLB_FLUSH_PAGE], 0);
		flush_page_of(mm, pa);
		d = tlb_delta(&before);
		ck_assert_uint_eq(d.drops[TLB_FLUSH_PAGE], 1);
		ck_assert_uint_eq(d.flushes[TLB_FLUSH_PAGE], 2);
		rt_touch(mm, pa, false);	/* miss: dropped, walk, fill */
		rt_touch(mm, pa, false);	/* hit */
		d = tlb_delta(&before);
		ck_assert_uint_eq(d.misses, 3);
		ck_assert_uint_eq(d.hits, 3);

		flush_tlb_mm(mm);
		ck_assert_uint_eq(tlb_delta(&before).drops[TLB_FLUSH_MM], 1);
		rt_touch(mm, pa, false);	/* miss */
		rt_touch(other, (unsigned long)b, true);	/* switch_mm: all dropped */
		rt_touch(mm, pa, false);	/* miss again, no flush counted */
		d = tlb_delta(&before);
		ck_assert_uint_eq(d.misses, 3 + 1 + 2 + 1);
		ck_assert_uint_eq(d.hits, 3);
		ck_assert_uint_eq(d.drops[TLB_FLUSH_MM], 1);

		/*
		 * A shared file page read in: its pte is writable and clean.
		 * The first store re-walks to set the dirty bit (the pte shows
		 * it), the next one hits.
		 */
		tlb_stats_read(&before);
		rt_touch(mm, (unsigned long)s, false);	/* miss: fault; miss: fill */
		ck_assert(pte_write(rt_pte_at(mm, (unsigned long)s)));
		ck_assert(!pte_dirty(rt_pte_at(mm, (unsigned long)s)));
		rt_touch(mm, (unsigned long)s, true);	/* miss: the dirty re-walk */
		ck_assert(pte_dirty(rt_pte_at(mm, (unsigned long)s)));
		rt_touch(mm, (unsigned long)s, true);	/* hit */
		d = tlb_delta(&before);
		ck_assert_uint_eq(d.misses, 3);
		ck_assert_uint_eq(d.hits, 1);

		mmput(other);
		rt_audit_and_exit(&mm, 1, &f, 1);
	});
}
END_TEST

/* ---- munmap and fork racing stores on other CPUs of the mm ---- */

#define RACE_PAGES	8	/* one TLB's worth: entries stay cached */
#define RACE_ROUNDS	200
#define RACE_CPUS	3
#define RACE_ACCESSES	5000	/* at least, landed, before the kernel side stops */

struct race {
	struct mm_struct *mm;
	unsigned long base;
	bool fork;			/* thread 0 forks instead of munmapping */
	int kernel_done;		/* atomic */
	unsigned long ok, segv;		/* atomic: the CPUs' results */
};

/*
 * A stall where a CPU holds a translation, between its walk and its fill,
 * and where fork copies ptes.
 */
static void race_stall(const char *where)
{
	if (!strcmp(where, "mm_access:after_mmu") || !strcmp(where, "tlb_translate:walked") ||
	    !strcmp(where, "copy_page_range:pte"))
		sched_yield();
}

static const struct perturb_ops race_stall_ops = { .yield = race_stall };

/*
 * Thread 0, munmap: unmaps the range and maps it again, fresh, at the same
 * address, or maps fresh memory over it (which unmaps it first). Fork: forks the mm while the CPUs store, and reads every page
 * of the child, which must show what the parent held when fork's flush
 * returned (checked by the data oracle in the child's access), then exits
 * the child.
 */
static void race_kernel(struct race *r)
{
	for (int round = 0; (round < RACE_ROUNDS ||
			     __atomic_load_n(&r->ok, __ATOMIC_RELAXED) < RACE_ACCESSES) &&
			    !rt_first_failure(); round++) {
		if (r->fork) {
			struct mm_struct *child = dup_mm(r->mm);

			if (!child)
				continue;
			for (int i = 0; i < RACE_PAGES; i++)
				if (rt_access(child, r->base + i * PAGE_SIZE, false, NULL) ==
				    ACCESS_CORRUPT)
					rt_fail("child of round %d: page %d corrupt", round, i);
			mmput(child);
			continue;
		}
		/* Odd rounds: mmap over the range (do_mmap()'s own munmap). */
		if (!(round & 1) && rt_munmap(r->mm, r->base, RACE_PAGES))
			rt_fail("munmap failed");
		if (rt_mmap(r->mm, NULL, r->base, RACE_PAGES, VM_READ | VM_WRITE, 0) !=
		    (long)r->base)
			rt_fail("mmap at %#lx failed", r->base);
	}
}

/*
 * Threads 1..RACE_CPUS are CPUs of the mm loading and storing with no lock
 * held, each access checked by the data oracle: it lands (OK) or, when the
 * range is unmapped, faults (SEGV); it never reaches a freed page.
 */
static void race_worker(int idx, void *arg)
{
	struct race *r = arg;
	uint64_t rng = rt_thread_rng(idx);

	if (idx == 0) {
		race_kernel(r);
		__atomic_store_n(&r->kernel_done, 1, __ATOMIC_RELEASE);
		return;
	}
	while (!__atomic_load_n(&r->kernel_done, __ATOMIC_ACQUIRE)) {
		uint64_t x = rt_rand(&rng);
		unsigned long addr = r->base + (x % RACE_PAGES) * PAGE_SIZE;

		switch (rt_access(r->mm, addr, (x >> 8) % 4 != 0, NULL)) {
		case ACCESS_OK:
			__atomic_fetch_add(&r->ok, 1, __ATOMIC_RELAXED);
			break;
		case ACCESS_SEGV:
			__atomic_fetch_add(&r->segv, 1, __ATOMIC_RELAXED);
			sched_yield();	/* until thread 0 maps the range again */
			break;
		case ACCESS_OOM:
			break;
		default:
			rt_fail("%#lx: a store or load through a stale translation", addr);
			return;
		}
	}
}

/* Return: the audit reports the run made (then the audit is skipped). */
static int race_run(bool fork, bool skip_flush)
{
	uint64_t saved = inject_mask;
	struct race r = { .fork = fork };
	long a;
	int reports;

	r.mm = mm_alloc();
	a = rt_mmap(r.mm, NULL, 0, RACE_PAGES, VM_READ | VM_WRITE, 0);
	ck_assert_int_gt(a, 0);
	r.base = (unsigned long)a;
	if (skip_flush) {
		/*
		 * A page two pages above (or below) the range, in its page
		 * table: munmap must not free that table (free_pgtables), for
		 * with flushes skipped a CPU may still be walking it, a use
		 * after free the TSan and ASan builds would report before the
		 * oracle: this control is about what the oracle sees.
		 */
		unsigned long keep = r.base + (RACE_PAGES + 1) * PAGE_SIZE;

		if (pgd_index(keep) != pgd_index(r.base))
			keep = r.base - 2 * PAGE_SIZE;
		ck_assert_int_eq(rt_mmap(r.mm, NULL, keep, 1, VM_READ, 0), (long)keep);
	}
	rt_failure_reset();
	if (skip_flush)
		inject_mask = saved | (1ULL << INJECT_TLB_FLUSH_SKIP);
	perturb_install(&race_stall_ops, 0);
	rt_run_threads(1 + RACE_CPUS, race_worker, &r);
	perturb_install(NULL, 0);
	inject_mask = saved;
	reports = rt_reports_count(VM_REPORT_AUDIT);
	fprintf(stderr, "# %s: %lu accesses landed, %lu faulted, %d reports\n",
		fork ? "fork" : "munmap", r.ok, r.segv, reports);
	if (!reports && !skip_flush) {
		ck_assert_no_worker_failure();
		rt_audit_ok(&r.mm, 1, NULL, 0);
	}
	mmput(r.mm);
	return reports;
}

/*
 * munmap racing loads and stores on other CPUs of the same mm, which hold
 * mmap_sem nowhere: every access lands before the unmap's flush returns
 * or faults; none reaches a freed page (the oracle), and the audit is clean.
 */
START_TEST(test_tlb_munmap_racing_stores)
{
	RT_VM_EACH_DESIGN(&vm_small, {
		ck_assert_int_eq(race_run(false, false), 0);
	});
}
END_TEST

/*
 * fork racing stores: the parent's CPUs keep storing through writable
 * entries of ptes copy_page_range() write-protected until dup_mmap()'s
 * flush; the child must see those stores (its oracle expectation is
 * copied after the flush), and never a report.
 */
START_TEST(test_tlb_fork_racing_stores)
{
	RT_VM_EACH_DESIGN(&vm_small, {
		ck_assert_int_eq(race_run(true, false), 0);
	});
}
END_TEST

/*
 * The control of the two above: with every flush skipped, the same race
 * makes the oracle report (a CPU keeps using a translation of a freed
 * page). A few runs: the race is real, not scripted.
 */
START_TEST(test_tlb_munmap_racing_stores_without_flush_is_caught)
{
	int reports = 0;

	rt_vm_setup(&vm_small, RMAP_PTECHAIN);
	for (int i = 0; i < 10 && !reports; i++)
		reports = race_run(false, true);
	ck_assert_msg(reports > 0, "no data-integrity report with the flushes skipped");
	rt_reports_release();
	rt_reports_capture();
	rt_vm_teardown();
}
END_TEST

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "stale", 60, NULL, NULL, .tests = {
			test_tlb_stale_store_after_skipped_flush_is_caught,
			test_tlb_audit_names_a_stale_entry,
		} },
		{ "fork", 60, NULL, NULL, .tests = {
			test_tlb_fork_truncate_parent_first,
		} },
		{ "counters", 60, NULL, NULL, .tests = {
			test_tlb_counters_one_cpu,
		} },
		{ "race", 180, NULL, NULL, .tests = {
			test_tlb_munmap_racing_stores,
			test_tlb_fork_racing_stores,
			test_tlb_munmap_racing_stores_without_flush_is_caught,
		} },
	};

	return rt_check_main(rt_suite("tlb", tcs, (int)ARRAY_SIZE(tcs)));
}
