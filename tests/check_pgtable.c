// SPDX-License-Identifier: MIT
/*
 * The emulated page tables: the pte encodings round-trip and never
 * overlap, the value and slot accessors change only their own bit, tables
 * come on demand and all go back at teardown, racing pte_alloc() calls
 * agree on one table, and the lock-free MMU neither loses, invents nor
 * resurrects a bit while reclaim and unmap work on the same slots.
 * munmap frees the tables no vma needs any more (free_pgtables), and only
 * those, in every design, racing reclaim, faults and the MMU's walk.
 */
#include <sched.h>
#include <stdlib.h>

#include "fs.h"
#include "mm.h"
#include "page_alloc.h"
#include "pgtable.h"
#include "rcu.h"
#include "rt_check.h"
#include "rt_vm.h"
#include "tlbflush.h"
#include "vmscan.h"

#define NR_THREADS	32
#define RANDOM_ROUNDS	5000

static const uint64_t flag_bits[] = {
	_PAGE_RW, _PAGE_USER, _PAGE_ACCESSED, _PAGE_DIRTY,
};

/* A random value in [0, max], with the extremes drawn often. */
static unsigned long rand_upto(uint64_t *s, unsigned long max)
{
	uint64_t r = rt_rand(s);

	switch (r & 7) {
	case 0:
		return 0;
	case 1:
		return max;
	case 2:
		/* Random bit width, so small values are drawn too. */
		return (unsigned long)(rt_rand(s) >> (rt_rand(s) % 64)) & max;
	default:
		return (unsigned long)(r >> 3) % max + ((r & 8) ? 1 : 0);
	}
}

static void check_kind(pte_t pte, bool none, bool present, bool file, bool swap)
{
	ck_assert_msg(pte_none(pte) == none, "pte %#llx none", (unsigned long long)pte);
	ck_assert_msg(pte_present(pte) == present, "pte %#llx present",
		      (unsigned long long)pte);
	ck_assert_msg(pte_file(pte) == file, "pte %#llx file", (unsigned long long)pte);
	ck_assert_msg(is_swap_pte(pte) == swap, "pte %#llx swap", (unsigned long long)pte);
}

/* --- encoding -------------------------------------------------------- */

START_TEST(test_pgtable_none)
{
	check_kind(__pte(0), true, false, false, false);
	ck_assert(pte_same(__pte(0), 0));
	/* The smallest encodings of each kind are all distinct from none. */
	check_kind(mk_pte(0, PAGE_READONLY), false, true, false, false);
	check_kind(pgoff_to_pte(0), false, false, true, false);
	check_kind(swp_entry_to_pte(swp_entry(0, 1)), false, false, false, true);
	check_kind(swp_entry_to_pte(swp_entry(1, 0)), false, false, false, true);
}
END_TEST

START_TEST(test_pgtable_present_roundtrip)
{
	uint64_t s = rt_test_seed();

	ck_assert_uint_ge(PTE_PFN_MAX, 1UL << 26);
	/* Each pfn with all 16 flag combinations. */
	for (int i = 0; i < RANDOM_ROUNDS / 8; i++) {
		unsigned long pfn = rand_upto(&s, PTE_PFN_MAX);

		for (unsigned combo = 0; combo < 1u << ARRAY_SIZE(flag_bits); combo++) {
			uint64_t prot = _PAGE_PRESENT;
			pte_t pte;

			for (unsigned b = 0; b < ARRAY_SIZE(flag_bits); b++)
				if (combo & (1u << b))
					prot |= flag_bits[b];
			pte = mk_pte(pfn, __pgprot(prot));
			check_kind(pte, false, true, false, false);
			ck_assert_uint_eq(pte_pfn(pte), pfn);
			ck_assert_int_eq(pte_write(pte), !!(prot & _PAGE_RW));
			ck_assert_int_eq(pte_young(pte), !!(prot & _PAGE_ACCESSED));
			ck_assert_int_eq(pte_dirty(pte), !!(prot & _PAGE_DIRTY));
			ck_assert(pte_same(pfn_pte(pfn, __pgprot(prot)), pte));
		}
	}
	/* The standard protections. */
	ck_assert(pte_write(mk_pte(7, PAGE_SHARED)));
	ck_assert(!pte_write(mk_pte(7, PAGE_COPY)));
	ck_assert(!pte_write(mk_pte(7, PAGE_READONLY)));
	ck_assert(!pte_dirty(mk_pte(7, PAGE_SHARED)));
}
END_TEST

START_TEST(test_pgtable_file_roundtrip)
{
	uint64_t s = rt_test_seed() ^ 0xf11e;

	ck_assert_uint_ge(PTE_FILE_MAX_PGOFF, 1UL << 32);
	for (int i = 0; i < RANDOM_ROUNDS; i++) {
		unsigned long pgoff = rand_upto(&s, PTE_FILE_MAX_PGOFF);
		pte_t pte = pgoff_to_pte(pgoff);

		check_kind(pte, false, false, true, false);
		ck_assert_uint_eq(pte_to_pgoff(pte), pgoff);
		/* No present-only bit in a file pte. */
		ck_assert_uint_eq(pte & (_PAGE_RW | _PAGE_USER | _PAGE_ACCESSED |
					 _PAGE_DIRTY), 0);
	}
	ck_assert_uint_eq(pte_to_pgoff(pgoff_to_pte(1UL << 32)), 1UL << 32);
}
END_TEST

START_TEST(test_pgtable_swap_roundtrip)
{
	uint64_t s = rt_test_seed() ^ 0x5a9;

	ck_assert_uint_ge(SWP_OFFSET_MAX, 1UL << 32);
	for (int i = 0; i < RANDOM_ROUNDS; i++) {
		unsigned long type = rt_rand(&s) % MAX_SWAPFILES;
		unsigned long offset = rand_upto(&s, SWP_OFFSET_MAX);
		swp_entry_t e, back;
		pte_t pte;

		if (!offset && !type)
			offset = 1;	/* swp_entry(0, 0) is a swap header */
		e = swp_entry(type, offset);
		ck_assert_uint_eq(swp_type(e), type);
		ck_assert_uint_eq(swp_offset(e), offset);
		pte = swp_entry_to_pte(e);
		check_kind(pte, false, false, false, true);
		ck_assert_uint_eq(pte & (_PAGE_RW | _PAGE_USER | _PAGE_ACCESSED |
					 _PAGE_DIRTY), 0);
		back = pte_to_swp_entry(pte);
		ck_assert_uint_eq(back.val, e.val);
		ck_assert_uint_eq(swp_type(back), type);
		ck_assert_uint_eq(swp_offset(back), offset);
	}
	/* Every type survives with the largest offset. */
	for (unsigned long type = 0; type < MAX_SWAPFILES; type++) {
		swp_entry_t e = swp_entry(type, SWP_OFFSET_MAX);
		swp_entry_t back = pte_to_swp_entry(swp_entry_to_pte(e));

		ck_assert_uint_eq(swp_type(back), type);
		ck_assert_uint_eq(swp_offset(back), SWP_OFFSET_MAX);
	}
}
END_TEST

/* --- value-level operations ------------------------------------------- */

START_TEST(test_pgtable_value_ops)
{
	uint64_t s = rt_test_seed() ^ 0x7a1;

	for (int i = 0; i < RANDOM_ROUNDS; i++) {
		unsigned long pfn = rand_upto(&s, PTE_PFN_MAX);
		pte_t pte = mk_pte(pfn, (rt_rand(&s) & 1) ? PAGE_SHARED : PAGE_COPY);
		pte_t x;

		if (rt_rand(&s) & 1)
			pte = pte_mkold(pte);
		x = pte_mkyoung(pte);
		ck_assert(pte_young(x));
		ck_assert_uint_eq(x & ~_PAGE_ACCESSED, pte & ~_PAGE_ACCESSED);
		x = pte_mkold(pte);
		ck_assert(!pte_young(x));
		ck_assert_uint_eq(x & ~_PAGE_ACCESSED, pte & ~_PAGE_ACCESSED);
		x = pte_mkdirty(pte);
		ck_assert(pte_dirty(x));
		ck_assert_uint_eq(x & ~_PAGE_DIRTY, pte & ~_PAGE_DIRTY);
		ck_assert(!pte_dirty(pte_mkclean(x)));
		ck_assert_uint_eq(pte_mkclean(x), pte_mkclean(pte));
		x = pte_mkwrite(pte);
		ck_assert(pte_write(x));
		ck_assert_uint_eq(x & ~_PAGE_RW, pte & ~_PAGE_RW);
		x = pte_wrprotect(x);
		ck_assert(!pte_write(x));
		ck_assert_uint_eq(x, pte & ~_PAGE_RW);
		/* Idempotent, and the pfn and kind never change. */
		ck_assert_uint_eq(pte_mkyoung(pte_mkyoung(pte)), pte_mkyoung(pte));
		ck_assert_uint_eq(pte_wrprotect(pte_wrprotect(pte)), pte_wrprotect(pte));
		x = pte_mkdirty(pte_mkyoung(pte_mkwrite(pte)));
		ck_assert_uint_eq(pte_pfn(x), pfn);
		check_kind(x, false, true, false, false);
	}
}
END_TEST

/* --- slot operations -------------------------------------------------- */

START_TEST(test_pgtable_slot_ops)
{
	pte_t slot = 0, orig = 0;
	pte_t rw = mk_pte(1234, PAGE_SHARED);
	pte_t ro = mk_pte(4321, PAGE_COPY);

	set_pte(&slot, pte_mkold(rw));
	ck_assert_uint_eq(ptep_get(&slot), pte_mkold(rw));
	ck_assert_uint_eq(ptep_get_acquire(&slot), pte_mkold(rw));

	/* The MMU's read access sets accessed, and says what it went through. */
	ck_assert(ptep_mkyoung(&slot, &orig));
	ck_assert_uint_eq(orig, pte_mkold(rw));
	ck_assert_uint_eq(ptep_get(&slot), pte_mkyoung(rw));
	ck_assert(ptep_mkyoung(&slot, &orig));
	ck_assert_uint_eq(orig, pte_mkyoung(rw));
	ck_assert(ptep_test_and_clear_young(&slot));
	ck_assert(!ptep_test_and_clear_young(&slot));
	ck_assert_uint_eq(ptep_get(&slot), pte_mkold(rw));

	/* A write sets dirty and accessed. */
	ck_assert(ptep_mkdirty(&slot, NULL));
	ck_assert_uint_eq(ptep_get(&slot), pte_mkdirty(pte_mkyoung(rw)));
	ck_assert(ptep_test_and_clear_dirty(&slot));
	ck_assert(!ptep_test_and_clear_dirty(&slot));
	ck_assert_uint_eq(ptep_get(&slot), pte_mkyoung(rw));

	/* Write-protected: a write faults and changes nothing. */
	ptep_set_wrprotect(&slot);
	ck_assert_uint_eq(ptep_get(&slot), pte_wrprotect(pte_mkyoung(rw)));
	ck_assert(!ptep_mkdirty(&slot, &orig));
	ck_assert_uint_eq(orig, pte_wrprotect(pte_mkyoung(rw)));
	ck_assert_uint_eq(ptep_get(&slot), pte_wrprotect(pte_mkyoung(rw)));

	/* get_and_clear returns the old value and leaves none. */
	ck_assert_uint_eq(ptep_get_and_clear(&slot), pte_wrprotect(pte_mkyoung(rw)));
	ck_assert(pte_none(ptep_get(&slot)));
	ck_assert_uint_eq(ptep_get_and_clear(&slot), 0);

	set_pte(&slot, pte_mkold(ro));
	ck_assert(!ptep_mkdirty(&slot, NULL));
	ck_assert(ptep_mkyoung(&slot, NULL));
	ck_assert_uint_eq(ptep_get(&slot), pte_mkyoung(ro));
}
END_TEST

/* The MMU never touches a non-present pte; reclaim's ANDs leave it alone. */
START_TEST(test_pgtable_nonpresent_untouched)
{
	const pte_t vals[] = {
		0,
		pgoff_to_pte(0),
		pgoff_to_pte(PTE_FILE_MAX_PGOFF),
		pgoff_to_pte(0x123456789UL),
		swp_entry_to_pte(swp_entry(0, 1)),
		swp_entry_to_pte(swp_entry(MAX_SWAPFILES - 1, SWP_OFFSET_MAX)),
		swp_entry_to_pte(swp_entry(17, 0xabcdef012UL)),
	};

	for (unsigned i = 0; i < ARRAY_SIZE(vals); i++) {
		pte_t slot = 0, orig = ~0ULL;

		set_pte(&slot, vals[i]);
		ck_assert(!ptep_mkyoung(&slot, &orig));
		ck_assert_uint_eq(orig, vals[i]);
		ck_assert(!ptep_mkdirty(&slot, &orig));
		ck_assert_uint_eq(orig, vals[i]);
		ck_assert(!ptep_test_and_clear_young(&slot));
		ck_assert(!ptep_test_and_clear_dirty(&slot));
		ptep_set_wrprotect(&slot);
		ck_assert_uint_eq(ptep_get(&slot), vals[i]);
	}
}
END_TEST

/* --- tables ----------------------------------------------------------- */

START_TEST(test_pgtable_alloc_on_demand)
{
	unsigned long bytes0 = pgtable_bytes_in_use();
	unsigned long alloc0 = pgtable_tables_allocated();
	unsigned long addr = 0x08048000UL;	/* pgd index 32 */
	unsigned long far = TASK_SIZE - PAGE_SIZE;	/* the last index */
	pgd_t *pgd = pgd_alloc(NULL);
	pte_t *p, *q, *r;

	ck_assert_uint_eq(pgtable_bytes_in_use(), bytes0 + sizeof(pgd_t));
	ck_assert_uint_eq(pgtable_nr_tables(pgd), 0);
	ck_assert_ptr_null(pte_offset(pgd, addr));
	ck_assert_ptr_null(pte_offset(pgd, far));

	p = pte_alloc(pgd, addr);
	ck_assert_ptr_nonnull(p);
	ck_assert(pte_none(ptep_get(p)));
	ck_assert_ptr_eq(pte_offset(pgd, addr), p);
	ck_assert_ptr_eq(pte_alloc(pgd, addr), p);
	/* The same table serves its whole pgd entry; the slots are adjacent. */
	ck_assert_ptr_eq(pte_offset(pgd, addr + PAGE_SIZE), p + 1);
	ck_assert_ptr_eq(pte_offset(pgd, addr + 123), p);
	ck_assert_ptr_eq(pte_offset(pgd, addr & PGDIR_MASK), p - pte_index(addr));
	ck_assert_uint_eq(pgtable_nr_tables(pgd), 1);
	ck_assert_uint_eq(pgtable_tables_allocated(), alloc0 + 1);
	ck_assert_uint_eq(pgtable_bytes_in_use(), bytes0 + sizeof(pgd_t) + PTE_TABLE_BYTES);
	ck_assert_ptr_null(pte_offset(pgd, addr + PGDIR_SIZE));
	ck_assert_ptr_null(pte_offset(pgd, addr - PGDIR_SIZE));

	/* Another pgd index: a second table. */
	q = pte_alloc(pgd, far);
	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_eq(pte_offset(pgd, far), q);
	ck_assert_uint_eq(pgtable_nr_tables(pgd), 2);
	ck_assert_uint_eq(pgtable_tables_allocated(), alloc0 + 2);
	ck_assert_uint_eq(pgtable_bytes_in_use(),
			  bytes0 + sizeof(pgd_t) + 2 * PTE_TABLE_BYTES);

	/* Slots keep what is stored in them. */
	set_pte(p, mk_pte(42, PAGE_SHARED));
	set_pte(q, pgoff_to_pte(99));
	r = pte_offset(pgd, addr);
	ck_assert_uint_eq(pte_pfn(ptep_get(r)), 42);
	ck_assert_uint_eq(pte_to_pgoff(ptep_get(pte_offset(pgd, far))), 99);

	pgd_free(pgd);
}
END_TEST

START_TEST(test_pgtable_free_releases)
{
	unsigned long bytes0 = pgtable_bytes_in_use();
	unsigned long alloc0 = pgtable_tables_allocated();
	unsigned long freed0 = pgtable_tables_freed();
	uint64_t s = rt_test_seed() ^ 0xf4ee;
	pgd_t *pgd = pgd_alloc(NULL);
	bool want[PTRS_PER_PGD] = { false };
	unsigned long nr = 0;

	for (int i = 0; i < 600; i++) {
		unsigned long addr = (rt_rand(&s) % TASK_SIZE) & PAGE_MASK;

		set_pte(pte_alloc(pgd, addr), mk_pte(addr >> PAGE_SHIFT, PAGE_COPY));
		if (!want[pgd_index(addr)])
			nr++;
		want[pgd_index(addr)] = true;
	}
	ck_assert_uint_eq(pgtable_nr_tables(pgd), nr);
	ck_assert_uint_eq(pgtable_tables_allocated(), alloc0 + nr);
	ck_assert_uint_eq(pgtable_bytes_in_use(),
			  bytes0 + sizeof(pgd_t) + nr * PTE_TABLE_BYTES);
	for (unsigned long i = 0; i < PTRS_PER_PGD; i++)
		ck_assert_int_eq(pte_offset(pgd, i << PGDIR_SHIFT) != NULL, want[i]);

	pgd_free(pgd);
	ck_assert_uint_eq(pgtable_tables_freed(), freed0 + nr);
	ck_assert_uint_eq(pgtable_bytes_in_use(), bytes0);
	pgd_free(NULL);
	ck_assert_uint_eq(pgtable_bytes_in_use(), bytes0);
}
END_TEST

struct walk_state {
	unsigned long seen, last;
	bool ordered;
	unsigned long stop_at;
};

static int walk_fn(pte_t *ptep, unsigned long addr, void *arg)
{
	struct walk_state *w = arg;

	if (w->seen && addr <= w->last)
		w->ordered = false;
	w->last = addr;
	w->seen++;
	if (!pte_present(ptep_get(ptep)) || pte_pfn(ptep_get(ptep)) != addr >> PAGE_SHIFT)
		w->ordered = false;
	return addr == w->stop_at ? 7 : 0;
}

START_TEST(test_pgtable_walk)
{
	pgd_t *pgd = pgd_alloc(NULL);
	/* Spread over three tables, with a cleared slot among them. */
	const unsigned long addrs[] = {
		0x1000, 0x3ff000, 0x400000, 0x7ff000, 0x40000000, 0x40001000,
		TASK_SIZE - PAGE_SIZE,
	};
	struct walk_state w = { .ordered = true, .stop_at = ~0UL };

	for (unsigned i = 0; i < ARRAY_SIZE(addrs); i++)
		set_pte(pte_alloc(pgd, addrs[i]), mk_pte(addrs[i] >> PAGE_SHIFT, PAGE_SHARED));
	set_pte(pte_alloc(pgd, 0x40002000), mk_pte(1, PAGE_SHARED));
	ptep_get_and_clear(pte_offset(pgd, 0x40002000));

	ck_assert_int_eq(pgd_for_each_pte(pgd, 0, TASK_SIZE, walk_fn, &w), 0);
	ck_assert_uint_eq(w.seen, ARRAY_SIZE(addrs));
	ck_assert(w.ordered);

	w = (struct walk_state){ .ordered = true, .stop_at = ~0UL };
	ck_assert_int_eq(pgd_for_each_pte(pgd, 0x3ff000, 0x40001000, walk_fn, &w), 0);
	ck_assert_uint_eq(w.seen, 4);
	ck_assert_uint_eq(w.last, 0x40000000);

	w = (struct walk_state){ .ordered = true, .stop_at = 0x400000 };
	ck_assert_int_eq(pgd_for_each_pte(pgd, 0, TASK_SIZE, walk_fn, &w), 7);
	ck_assert_uint_eq(w.seen, 3);
	ck_assert(w.ordered);
	pgd_free(pgd);
}
END_TEST

/* --- concurrency: racing pte_alloc() ----------------------------------- */

#define RACE_INDEXES	64
#define RACE_ROUNDS	8

struct alloc_race {
	pgd_t *pgd;
	uint64_t seed;
	/* Which table each thread got for each index: written by its owner. */
	pte_t *got[NR_THREADS][RACE_INDEXES];
};

static void alloc_race_worker(int idx, void *arg)
{
	struct alloc_race *r = arg;
	uint64_t s = r->seed + (uint64_t)idx * 0x9e3779b97f4a7c15ULL;
	int order[RACE_INDEXES];

	for (int i = 0; i < RACE_INDEXES; i++)
		order[i] = i;
	for (int i = RACE_INDEXES - 1; i > 0; i--) {
		int j = (int)(rt_rand(&s) % (uint64_t)(i + 1));
		int t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (int k = 0; k < RACE_INDEXES; k++) {
		int i = order[k];
		/* Index i * 3 spreads the tables; slot @idx is this thread's own. */
		unsigned long base = (unsigned long)i * 3 << PGDIR_SHIFT;
		unsigned long addr = base + ((unsigned long)idx << PAGE_SHIFT);
		pte_t *p = pte_alloc(r->pgd, addr);

		if (!p) {
			rt_fail("pte_alloc(%#lx) returned NULL", addr);
			return;
		}
		/* Racing writes into the same table must all land. */
		set_pte(p, mk_pte((unsigned long)idx * RACE_INDEXES + (unsigned long)i,
				  PAGE_SHARED));
		r->got[idx][i] = p - pte_index(addr);
		/* Any other slot of the index is in the same table. */
		for (int j = 0; j < RACE_ROUNDS; j++) {
			unsigned long n = rt_rand(&s) % PTRS_PER_PTE;

			rt_check(pte_offset(r->pgd, base + n * PAGE_SIZE) == r->got[idx][i] + n);
		}
	}
}

START_TEST(test_pgtable_concurrent_alloc)
{
	struct alloc_race *r = calloc(1, sizeof(*r));
	unsigned long alloc0 = pgtable_tables_allocated();
	unsigned long bytes0 = pgtable_bytes_in_use();

	ck_assert_ptr_nonnull(r);
	r->pgd = pgd_alloc(NULL);
	r->seed = rt_test_seed();
	rt_failure_reset();
	rt_run_threads(NR_THREADS, alloc_race_worker, r);
	ck_assert_no_worker_failure();

	/* Exactly one table per index won, and everybody got it. */
	ck_assert_uint_eq(pgtable_nr_tables(r->pgd), RACE_INDEXES);
	ck_assert_uint_eq(pgtable_tables_allocated(), alloc0 + RACE_INDEXES);
	ck_assert_uint_eq(pgtable_bytes_in_use(),
			  bytes0 + sizeof(pgd_t) + RACE_INDEXES * PTE_TABLE_BYTES);
	for (int i = 0; i < RACE_INDEXES; i++) {
		unsigned long base = (unsigned long)i * 3 << PGDIR_SHIFT;
		pte_t *table = pte_offset(r->pgd, base);

		ck_assert_ptr_nonnull(table);
		for (int t = 0; t < NR_THREADS; t++) {
			pte_t pte = ptep_get(&table[t]);

			ck_assert_ptr_eq(r->got[t][i], table);
			ck_assert(pte_present(pte));
			ck_assert_uint_eq(pte_pfn(pte),
					  (unsigned long)t * RACE_INDEXES + (unsigned long)i);
		}
		for (int t = NR_THREADS; t < PTRS_PER_PTE; t++)
			ck_assert(pte_none(ptep_get(&table[t])));
	}
	pgd_free(r->pgd);
	ck_assert_uint_eq(pgtable_bytes_in_use(), bytes0);
	free(r);
}
END_TEST

/* --- concurrency: MMU against reclaim and unmap ------------------------ */

/*
 * Thread 0 unmaps and remaps (ptep_get_and_clear() + set_pte(), the only
 * plain stores), thread 1 ages (ptep_test_and_clear_young()), the rest
 * play the MMU (ptep_mkyoung()/ptep_mkdirty()). Every 0->1 transition of
 * a young or dirty bit is made by an MMU access that saw the bit clear in
 * its @orig, and consumed exactly once: by aging, by the unmap, or in the
 * final state. So the counts must match exactly: a lost bit, an invented
 * bit or a resurrected pte breaks them.
 */
#define MMU_SLOTS	64
#define MMU_CYCLES	4000
#define MMU_MIN_OPS	2000
#define MMU_WINDOW	4

struct mmu_race {
	pte_t *slot[MMU_SLOTS];
	pgd_t *pgd;
	uint64_t seed;
	int stop;				/* atomic: release/acquire */
	/* Counters, atomic adds. */
	unsigned long young_set, dirty_set;	/* MMU 0->1 transitions */
	unsigned long young_aged;		/* cleared by aging */
	unsigned long young_unmapped, dirty_unmapped;
	unsigned long accesses_ok, faults;
	/* The pfn last installed in each slot: thread 0 only. */
	unsigned long gen[MMU_SLOTS];
};

static pgprot_t mmu_prot(unsigned long pfn)
{
	/* One pte in four is read-only: it must never become dirty. */
	return (pfn % 4 == 3) ? PAGE_COPY : PAGE_SHARED;
}

static void mmu_unmapper(struct mmu_race *r, uint64_t *s)
{
	unsigned long young = 0, dirty = 0;

	for (int c = 0; c < MMU_CYCLES; c++) {
		int i = (int)(rt_rand(s) % MMU_SLOTS);
		pte_t want = mk_pte(r->gen[i], mmu_prot(r->gen[i]));
		pte_t old = ptep_get_and_clear(r->slot[i]);
		unsigned long pfn;

		/* Only MMU bits may have been added to what we installed. */
		if ((old & ~(_PAGE_ACCESSED | _PAGE_DIRTY)) != (want & ~(_PAGE_ACCESSED | _PAGE_DIRTY))) {
			rt_fail("slot %d: found %#llx, installed %#llx", i,
				(unsigned long long)old, (unsigned long long)want);
			break;
		}
		if (pte_dirty(old) && !pte_write(old)) {
			rt_fail("slot %d: dirty read-only pte %#llx", i,
				(unsigned long long)old);
			break;
		}
		young += pte_young(old);
		dirty += pte_dirty(old);
		/* Cleared is cleared: no MMU access may bring it back. */
		for (int w = 0; w < MMU_WINDOW; w++) {
			pte_t now = ptep_get(r->slot[i]);

			if (!pte_none(now)) {
				rt_fail("slot %d: cleared pte resurrected as %#llx", i,
					(unsigned long long)now);
				goto out;
			}
			if (w == MMU_WINDOW / 2)
				sched_yield();	/* let the MMU threads at the empty slot */
		}
		pfn = r->gen[i] + MMU_SLOTS;
		r->gen[i] = pfn;
		/* Remapped old and clean, as a fault installs it. */
		set_pte(r->slot[i], pte_mkold(mk_pte(pfn, mmu_prot(pfn))));
	}
out:
	__atomic_fetch_add(&r->young_unmapped, young, __ATOMIC_RELAXED);
	__atomic_fetch_add(&r->dirty_unmapped, dirty, __ATOMIC_RELAXED);
}

static void mmu_ager(struct mmu_race *r, uint64_t *s)
{
	unsigned long aged = 0;

	/* Acquire pairs with the release that sets stop in mmu_race_worker(). */
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
		aged += ptep_test_and_clear_young(r->slot[rt_rand(s) % MMU_SLOTS]);
	__atomic_fetch_add(&r->young_aged, aged, __ATOMIC_RELAXED);
}

static void mmu_cpu(struct mmu_race *r, uint64_t *s)
{
	unsigned long young = 0, dirty = 0, ok = 0, faults = 0;

	/* Acquire pairs with the release that sets stop in mmu_race_worker(). */
	for (long n = 0; n < MMU_MIN_OPS || !__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE); n++) {
		uint64_t x = rt_rand(s);
		int i = (int)(x % MMU_SLOTS);
		bool write = (x >> 32) & 1;
		pte_t orig;
		bool done;

		/* 30 spinning CPUs on a small box: let the unmapper run. */
		if (!(n % 32))
			sched_yield();
		done = write ? ptep_mkdirty(r->slot[i], &orig) : ptep_mkyoung(r->slot[i], &orig);
		if (!done) {
			/* A fault: cleared, or a write to a read-only pte. */
			faults++;
			if (!pte_none(orig) && !(write && pte_present(orig) && !pte_write(orig))) {
				rt_fail("slot %d: access faulted on %#llx", i,
					(unsigned long long)orig);
				break;
			}
			continue;
		}
		ok++;
		if (!pte_present(orig) || pte_pfn(orig) % MMU_SLOTS != (unsigned long)i ||
		    (write && !pte_write(orig))) {
			rt_fail("slot %d: access through bad pte %#llx", i,
				(unsigned long long)orig);
			break;
		}
		young += !pte_young(orig);
		dirty += write && !pte_dirty(orig);
	}
	__atomic_fetch_add(&r->young_set, young, __ATOMIC_RELAXED);
	__atomic_fetch_add(&r->dirty_set, dirty, __ATOMIC_RELAXED);
	__atomic_fetch_add(&r->accesses_ok, ok, __ATOMIC_RELAXED);
	__atomic_fetch_add(&r->faults, faults, __ATOMIC_RELAXED);
}

static void mmu_race_worker(int idx, void *arg)
{
	struct mmu_race *r = arg;
	uint64_t s = r->seed + (uint64_t)(idx + 1) * 0x2545f4914f6cdd1dULL;

	if (idx == 0) {
		mmu_unmapper(r, &s);
		/* Release pairs with the acquire loads of stop in the others. */
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
	} else if (idx == 1) {
		mmu_ager(r, &s);
	} else {
		mmu_cpu(r, &s);
	}
}

START_TEST(test_pgtable_mmu_vs_reclaim)
{
	struct mmu_race *r = calloc(1, sizeof(*r));
	unsigned long young_left = 0, dirty_left = 0;

	ck_assert_ptr_nonnull(r);
	r->pgd = pgd_alloc(NULL);
	r->seed = rt_test_seed();
	for (int i = 0; i < MMU_SLOTS; i++) {
		/* Two tables, so slots of both are raced on. */
		unsigned long addr = 0x10000000UL + (unsigned long)(i % 2) * PGDIR_SIZE +
				     (unsigned long)i * PAGE_SIZE;

		r->slot[i] = pte_alloc(r->pgd, addr);
		r->gen[i] = (unsigned long)i;
		set_pte(r->slot[i], pte_mkold(mk_pte(r->gen[i], mmu_prot(r->gen[i]))));
	}
	rt_failure_reset();
	rt_run_threads(NR_THREADS, mmu_race_worker, r);
	ck_assert_no_worker_failure();

	for (int i = 0; i < MMU_SLOTS; i++) {
		pte_t pte = ptep_get(r->slot[i]);

		ck_assert(pte_present(pte));
		ck_assert_uint_eq(pte_pfn(pte), r->gen[i]);
		ck_assert(!(pte_dirty(pte) && !pte_write(pte)));
		young_left += pte_young(pte);
		dirty_left += pte_dirty(pte);
	}
	ck_assert_uint_gt(r->accesses_ok, 0);
	ck_assert_uint_eq(r->young_set, r->young_aged + r->young_unmapped + young_left);
	ck_assert_uint_eq(r->dirty_set, r->dirty_unmapped + dirty_left);
	pgd_free(r->pgd);
	free(r);
}
END_TEST

/* --- free_pgtables: munmap frees the tables no vma needs ---------------- */

static const struct rt_vm_suite vm = RT_VM_AUDITED(RMAP_PTECHAIN, 512, 256);

/* pgd-aligned, below the unmapped area: each test places its vmas itself. */
#define SPAN_BASE	0x10000000UL
#define SPAN(i)		(SPAN_BASE + (unsigned long)(i) * PGDIR_SIZE)
#define PG(n)		((unsigned long)(n) * PAGE_SIZE)

/*
 * No page-table memory is unaccounted or leaked: what is in use beyond
 * @bytes0 (taken before mm_alloc()) is @mm's pgd and shadow pgd and the
 * tables they hold, and every table allocated since @alloc0 is either
 * freed or still hooked in one of them.
 */
static void assert_tables_accounted(struct mm_struct *mm, unsigned long bytes0,
				    unsigned long alloc0, unsigned long freed0)
{
	unsigned long alive = pgtable_nr_tables(mm->pgd) + pgtable_nr_tables(mm->shadow);

	ck_assert_uint_eq(pgtable_bytes_in_use() - bytes0,
			  2 * sizeof(pgd_t) + alive * PTE_TABLE_BYTES);
	ck_assert_uint_eq((pgtable_tables_allocated() - alloc0) -
			  (pgtable_tables_freed() - freed0), alive);
}

/* Map anonymous [@addr, @addr + @pages) at its fixed address; ck_asserts it. */
static void map_anon_at(struct mm_struct *mm, unsigned long addr, unsigned long pages)
{
	ck_assert_int_eq(rt_mmap(mm, NULL, addr, pages, VM_READ | VM_WRITE, 0), (long)addr);
}

START_TEST(test_pgtable_munmap_frees_table)
{
	RT_VM_EACH_DESIGN(&vm, {
		unsigned long bytes0 = pgtable_bytes_in_use();
		unsigned long alloc0 = pgtable_tables_allocated();
		unsigned long freed0 = pgtable_tables_freed();
		struct mm_struct *mm = mm_alloc();
		/* Four pages across the boundary of two pgd entries. */
		unsigned long addr = SPAN(1) - PG(2);
		uint64_t stamps[4];

		map_anon_at(mm, addr, 4);
		ck_assert_uint_eq(pgtable_nr_tables(mm->pgd), 0);
		rt_access_pages(mm, addr, 4, true, stamps);
		ck_assert_uint_eq(pgtable_nr_tables(mm->pgd), 2);
		assert_tables_accounted(mm, bytes0, alloc0, freed0);

		/* No vma is left in either entry: both tables go. */
		ck_assert_int_eq(rt_munmap(mm, addr, 4), 0);
		ck_assert_uint_eq(pgtable_tables_freed() - freed0, 2);
		ck_assert_uint_eq(pgtable_nr_tables(mm->pgd), 0);
		ck_assert_ptr_null(pte_offset(mm->pgd, addr));
		ck_assert_ptr_null(pte_offset(mm->pgd, addr + PG(3)));
		assert_tables_accounted(mm, bytes0, alloc0, freed0);

		/* A later fault allocates afresh; the new memory reads as zero. */
		map_anon_at(mm, addr, 4);
		ck_assert_int_eq(rt_access(mm, addr + PG(3), false, &stamps[0]), ACCESS_OK);
		ck_assert_uint_eq(stamps[0], 0);
		ck_assert_uint_eq(pgtable_nr_tables(mm->pgd), 1);
		ck_assert_ptr_nonnull(pte_offset(mm->pgd, addr + PG(3)));
		ck_assert_ptr_null(pte_offset(mm->pgd, addr));
		rt_access_pages(mm, addr, 4, true, stamps);
		ck_assert_uint_eq(pgtable_nr_tables(mm->pgd), 2);
		assert_tables_accounted(mm, bytes0, alloc0, freed0);
		rt_audit_and_exit(&mm, 1, NULL, 0);
		ck_assert_uint_eq(pgtable_bytes_in_use(), bytes0);
	});
}
END_TEST

START_TEST(test_pgtable_munmap_keeps_shared_table)
{
	RT_VM_EACH_DESIGN(&vm, {
		unsigned long bytes0 = pgtable_bytes_in_use();
		unsigned long alloc0 = pgtable_tables_allocated();
		unsigned long freed0 = pgtable_tables_freed();
		struct mm_struct *mm = mm_alloc();
		/* prev in entry 0; the victim from entry 0 to 2; next in entry 2. */
		unsigned long prev = SPAN(0), victim = SPAN(1) - PG(2), next = SPAN(2) + PG(8);
		/* Entries 8 to 11, to be cut out of its middle: 9 and 10 go. */
		unsigned long wide = SPAN(9) - PG(1);
		uint64_t sp[2], sn[2], sw[2];

		map_anon_at(mm, prev, 2);
		map_anon_at(mm, victim, PTRS_PER_PTE + 4);
		map_anon_at(mm, next, 2);
		map_anon_at(mm, wide, 2 * PTRS_PER_PTE + 2);
		rt_access_pages(mm, prev, 2, true, sp);
		rt_access_pages(mm, victim, 2, true, NULL);
		rt_access_pages(mm, SPAN(1) + PG(5), 1, true, NULL);
		rt_access_pages(mm, SPAN(2), 2, true, NULL);
		rt_access_pages(mm, next, 2, true, sn);
		rt_access_pages(mm, wide, 1, true, &sw[0]);
		rt_access_pages(mm, SPAN(9) + PG(7), 1, true, NULL);
		rt_access_pages(mm, SPAN(10) + PG(7), 1, true, NULL);
		rt_access_pages(mm, SPAN(11), 1, true, &sw[1]);
		ck_assert_uint_eq(pgtable_nr_tables(mm->pgd), 7);

		/* Entries 0 and 2 are still in use: only entry 1's table goes. */
		ck_assert_int_eq(rt_munmap(mm, victim, PTRS_PER_PTE + 4), 0);
		ck_assert_uint_eq(pgtable_tables_freed() - freed0, 1);
		ck_assert_ptr_null(pte_offset(mm->pgd, SPAN(1)));
		ck_assert_ptr_nonnull(pte_offset(mm->pgd, SPAN(0)));
		ck_assert_ptr_nonnull(pte_offset(mm->pgd, SPAN(2)));
		rt_assert_pages(mm, prev, 2, sp);
		rt_assert_pages(mm, next, 2, sn);

		/* The split halves keep entries 8 and 11; 9 and 10 go. */
		ck_assert_int_eq(rt_munmap(mm, SPAN(9), 2 * PTRS_PER_PTE), 0);
		ck_assert_uint_eq(pgtable_tables_freed() - freed0, 3);
		ck_assert_ptr_null(pte_offset(mm->pgd, SPAN(9)));
		ck_assert_ptr_null(pte_offset(mm->pgd, SPAN(10)));
		rt_assert_pages(mm, wide, 1, &sw[0]);
		rt_assert_pages(mm, SPAN(11), 1, &sw[1]);

		/* prev alone in entry 0 (next starts in entry 2): it goes too. */
		ck_assert_int_eq(rt_munmap(mm, prev, 2), 0);
		ck_assert_uint_eq(pgtable_tables_freed() - freed0, 4);
		ck_assert_uint_eq(pgtable_nr_tables(mm->pgd), 3);
		assert_tables_accounted(mm, bytes0, alloc0, freed0);
		rt_audit_and_exit(&mm, 1, NULL, 0);
		ck_assert_uint_eq(pgtable_bytes_in_use(), bytes0);
	});
}
END_TEST

/*
 * A CPU is in mid-walk of a table (it read the pgd entry) when munmap
 * frees that table: the table must outlive the walk. The munmap here
 * clears no present pte, so the only flush it makes is the mmu_gather's
 * for the table, and a flush waiting for the walker is the sign that the
 * table is unhooked and not yet freed: the walker checks that, uses its
 * slot (the ASan build reports a use after free), and only then ends its
 * access, which lets the flush return and the table go.
 */
struct walk_in_flight {
	struct mm_struct *mm;
	unsigned long addr;
	unsigned long freed0, waits0;
	int in_walk;			/* rt_set_flag()/rt_wait_flag() */
	unsigned long freed_in_walk;	/* tables freed while the walk was in flight */
	bool hooked_in_walk;		/* the pgd entry still read as the table */
};

static void walk_in_flight_worker(int idx, void *arg)
{
	struct walk_in_flight *w = arg;
	double deadline;
	pte_t *ptep;

	if (idx == 1) {
		/* The munmap: its flush waits for the walk below. */
		if (!rt_wait_flag(&w->in_walk)) {
			rt_fail("the walker never started");
			return;
		}
		if (rt_munmap(w->mm, w->addr, 1))
			rt_fail("munmap failed");
		return;
	}
	tlb_access_begin(w->mm);
	ptep = pte_offset(w->mm->pgd, w->addr);
	if (!ptep) {
		tlb_access_end();
		rt_fail("no table at %#lx", w->addr);
		rt_set_flag(&w->in_walk);
		return;
	}
	rt_set_flag(&w->in_walk);
	deadline = rt_now() + RT_WAIT_LIMIT_S;
	while (tlb_flush_wait_count() == w->waits0) {
		if (rt_now() > deadline) {
			tlb_access_end();
			rt_fail("no flush waited for the walk in %d s", RT_WAIT_LIMIT_S);
			return;
		}
		sched_yield();
	}
	w->freed_in_walk = pgtable_tables_freed() - w->freed0;
	w->hooked_in_walk = pte_offset(w->mm->pgd, w->addr) != NULL;
	/* The hardware's accessed-bit update, through the table it walked. */
	ptep_mkyoung(ptep, NULL);
	tlb_access_end();
}

START_TEST(test_pgtable_table_outlives_walk_in_flight)
{
	RT_VM_EACH_DESIGN(&vm, {
		struct walk_in_flight w = { 0 };
		/* Two pages alone in their pgd entry. */
		unsigned long addr = SPAN(3);

		w.mm = mm_alloc();
		w.addr = addr + PG(1);
		map_anon_at(w.mm, addr, 2);
		/* The table comes with the first page, and stays with the second. */
		rt_access_pages(w.mm, addr, 1, true, NULL);
		ck_assert_int_eq(rt_munmap(w.mm, addr, 1), 0);
		ck_assert_ptr_nonnull(pte_offset(w.mm->pgd, w.addr));
		w.freed0 = pgtable_tables_freed();
		w.waits0 = tlb_flush_wait_count();
		rt_failure_reset();
		rt_run_threads(2, walk_in_flight_worker, &w);
		ck_assert_no_worker_failure();
		ck_assert_msg(w.freed_in_walk == 0,
			      "[%s] the table was freed under a walk in flight",
			      rmap_mode_name(rmap_mode));
		ck_assert(!w.hooked_in_walk);
		ck_assert_uint_eq(pgtable_tables_freed() - w.freed0, 1);
		ck_assert_ptr_null(pte_offset(w.mm->pgd, w.addr));
		rt_audit_and_exit(&w.mm, 1, NULL, 0);
	});
}
END_TEST

/*
 * munmap/mmap churn against everything that reaches a pte table without
 * mmap_sem for write: thread 0 unmaps and maps slots again (anonymous and
 * shared file memory, whole or in part, each slot alone in its two pgd
 * entries so a whole unmap frees its tables), thread 1 reclaims
 * (page_referenced, try_to_unmap: the tables through vma -> mm -> pgd
 * under page_table_lock), threads 2 and 3 load and store with checked
 * stamps (faults allocate the tables again), thread 4 is a CPU's
 * hardware walk, lock-free and without mmap_sem, inside the access window
 * a flush waits for (core/tlbflush.c), setting accessed bits wherever a
 * table is hooked. A table freed under any of them is a use after free
 * (the ASan build reports it; the plain build may crash or corrupt the
 * stamps); then the audit, and the accounting of every table.
 */
#define CHURN_SLOTS	4
#define CHURN_PAGES	8
#define CHURN_CYCLES	150

struct pt_churn {
	struct mm_struct *mm;
	struct address_space *file;
	int stop;			/* atomic: release/acquire */
	unsigned long walks;		/* atomic: walks that found a table */
};

/* Slot @k straddles the boundary of pgd entries 2k and 2k + 1 (of SPAN_BASE). */
static unsigned long churn_addr(int k)
{
	return SPAN(2 * k + 1) - PG(CHURN_PAGES / 2);
}

static void churn_map(struct pt_churn *c, int k)
{
	long r = (k & 1) ? rt_mmap(c->mm, c->file, churn_addr(k), CHURN_PAGES,
				   VM_READ | VM_WRITE | VM_SHARED, (unsigned long)k * CHURN_PAGES)
			 : rt_mmap(c->mm, NULL, churn_addr(k), CHURN_PAGES, VM_READ | VM_WRITE, 0);

	if (r != (long)churn_addr(k))
		rt_fail("mmap of slot %d: %ld", k, r);
}

static void churn_kernel(struct pt_churn *c, uint64_t *rng)
{
	for (int cycle = 0; cycle < CHURN_CYCLES; cycle++) {
		int k = (int)(rt_rand(rng) % CHURN_SLOTS);
		unsigned long first = rt_rand(rng) % CHURN_PAGES;
		int err;

		/* One time in four a piece (a split), else the whole slot. */
		if (rt_rand(rng) % 4 == 0)
			err = rt_munmap(c->mm, churn_addr(k) + PG(first),
					1 + rt_rand(rng) % (CHURN_PAGES - first));
		else
			err = rt_munmap(c->mm, churn_addr(k), CHURN_PAGES);
		if (err)
			rt_fail("munmap of slot %d: %d", k, err);
		if (rt_rand(rng) % 2)
			sched_yield();	/* let the CPUs fault on the hole */
		churn_map(c, k);
		/* Fault the first and last page in: both tables are there again. */
		(void)rt_access(c->mm, churn_addr(k), true, NULL);
		(void)rt_access(c->mm, churn_addr(k) + PG(CHURN_PAGES - 1), true, NULL);
	}
}

static void churn_reclaim(struct pt_churn *c)
{
	/* Acquire pairs with the release that sets stop in churn_worker(). */
	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		shrink_zone(&contig_zone, 32);
		sched_yield();
	}
}

static unsigned long churn_pick(uint64_t *rng)
{
	uint64_t r = rt_rand(rng);

	return churn_addr((int)(r % CHURN_SLOTS)) + PG((r >> 8) % CHURN_PAGES);
}

static void churn_cpu(struct pt_churn *c, uint64_t *rng)
{
	/* Acquire pairs with the release that sets stop in churn_worker(). */
	for (int n = 0; !__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE); n++) {
		unsigned long addr = churn_pick(rng);

		/* SEGV: the slot is unmapped just now; OOM: reclaim won every try. */
		if (rt_access(c->mm, addr, rt_rand(rng) & 1, NULL) == ACCESS_CORRUPT) {
			rt_fail("data integrity at %#lx", addr);
			return;
		}
		if (!(n % 16))
			sched_yield();
	}
}

static void churn_walker(struct pt_churn *c, uint64_t *rng)
{
	unsigned long found = 0;

	/* Acquire pairs with the release that sets stop in churn_worker(). */
	for (int n = 0; !__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE); n++) {
		unsigned long addr = churn_pick(rng);
		pte_t *ptep;

		/* The hardware walk: no lock, no mmap_sem, the flush's window only. */
		tlb_access_begin(c->mm);
		ptep = pte_offset(c->mm->pgd, addr);
		/* Now and then a CPU slow in mid-walk, so that flushes meet it. */
		if (!(n % 4))
			sched_yield();
		if (ptep) {
			ptep_mkyoung(ptep, NULL);
			found++;
		}
		tlb_access_end();
		if (!(n % 16))
			sched_yield();
	}
	__atomic_fetch_add(&c->walks, found, __ATOMIC_RELAXED);
}

static void churn_worker(int idx, void *arg)
{
	struct pt_churn *c = arg;
	uint64_t rng = rt_thread_rng(idx);

	switch (idx) {
	case 0:
		churn_kernel(c, &rng);
		/* Release pairs with the acquire loads of stop in the others. */
		__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
		break;
	case 1:
		churn_reclaim(c);
		break;
	case 4:
		churn_walker(c, &rng);
		break;
	default:
		churn_cpu(c, &rng);
		break;
	}
}

/* Every hooked table lies in a pgd entry that some vma reaches into. */
static void assert_no_orphan_table(struct mm_struct *mm)
{
	for (unsigned long i = 0; i < PTRS_PER_PGD; i++) {
		bool used = false;

		if (!pte_offset(mm->pgd, i << PGDIR_SHIFT))
			continue;
		for (struct vm_area_struct *v = mm->mmap; v && !used; v = v->vm_next)
			used = v->vm_start < (i + 1) << PGDIR_SHIFT && v->vm_end > i << PGDIR_SHIFT;
		ck_assert_msg(used, "[%s] pgd entry %lu holds a table no vma needs",
			      rmap_mode_name(rmap_mode), i);
	}
}

START_TEST(test_pgtable_munmap_churn_vs_reclaim_and_mmu)
{
	RT_VM_EACH_DESIGN(&vm, {
		unsigned long bytes0 = pgtable_bytes_in_use();
		unsigned long alloc0 = pgtable_tables_allocated();
		unsigned long freed0 = pgtable_tables_freed();
		struct pt_churn c = { 0 };

		c.mm = mm_alloc();
		c.file = file_create("churn", CHURN_SLOTS * CHURN_PAGES, CHURN_SLOTS * CHURN_PAGES);
		for (int k = 0; k < CHURN_SLOTS; k++)
			churn_map(&c, k);
		rt_failure_reset();
		rt_run_threads(5, churn_worker, &c);
		ck_assert_no_worker_failure();
		/* Every cycle faulted a slot's two tables in; most freed them again. */
		ck_assert_uint_gt(pgtable_tables_freed() - freed0, 0);
		assert_no_orphan_table(c.mm);
		assert_tables_accounted(c.mm, bytes0, alloc0, freed0);
		rt_audit_and_exit(&c.mm, 1, &c.file, 1);
		rcu_barrier();
		ck_assert_uint_eq(pgtable_bytes_in_use(), bytes0);
	});
}
END_TEST

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "encoding", 30, NULL, NULL, .tests = {
			test_pgtable_none,
			test_pgtable_present_roundtrip,
			test_pgtable_file_roundtrip,
			test_pgtable_swap_roundtrip,
		} },
		{ "value_ops", 30, NULL, NULL, .tests = {
			test_pgtable_value_ops,
		} },
		{ "slot_ops", 30, NULL, NULL, .tests = {
			test_pgtable_slot_ops,
			test_pgtable_nonpresent_untouched,
		} },
		{ "tables", 30, NULL, NULL, .tests = {
			test_pgtable_alloc_on_demand,
			test_pgtable_free_releases,
			test_pgtable_walk,
		} },
		/* Within meson's 60 s for the whole suite (scaled in sanitizer builds). */
		{ "concurrency", 50, NULL, NULL, .tests = {
			test_pgtable_concurrent_alloc,
			test_pgtable_mmu_vs_reclaim,
		} },
		{ "free_pgtables", 50, NULL, NULL, .tests = {
			test_pgtable_munmap_frees_table,
			test_pgtable_munmap_keeps_shared_table,
			test_pgtable_table_outlives_walk_in_flight,
			test_pgtable_munmap_churn_vs_reclaim_and_mmu,
		} },
	};

	return rt_check_main(rt_suite("pgtable", tcs, (int)ARRAY_SIZE(tcs)));
}
