/* SPDX-License-Identifier: MIT */
/*
 * The emulated page tables: two levels, i386 non-PAE style (a pgd of
 * PTRS_PER_PGD pointers to pte tables of PTRS_PER_PTE ptes, 4 GiB of
 * address space per mm), but with 64-bit ptes so that pfns, file offsets
 * and swap offsets have room. Mirrors include/asm-i386/pgtable*.h,
 * include/asm-generic/pgtable.h and include/linux/swapops.h of 2.6.
 *
 * A pte is one of four kinds, mutually exclusive:
 *
 *   none     0
 *   present  pfn << PAGE_SHIFT | _PAGE_PRESENT | RW, USER, ACCESSED, DIRTY
 *   file     pgoff << PTE_FILE_SHIFT | _PAGE_FILE   (nonlinear, remap_file_pages)
 *   swap     offset << __SWP_OFFSET_SHIFT | type << __SWP_TYPE_SHIFT
 *
 *   bit      0        1   2     5         6      7     8-12       12/16-63
 *   present  PRESENT  RW  USER  ACCESSED  DIRTY  -     -          pfn (from 12)
 *   file     0        -   -     -         -      FILE  -          pgoff (from 16)
 *   swap     0        -   -     -         -      0     swap type  offset (from 16)
 *
 * RW, USER, ACCESSED and DIRTY mean something only in a present pte and
 * are always clear in the others. So ptep_test_and_clear_young(),
 * ptep_test_and_clear_dirty() and ptep_set_wrprotect(), plain atomic ANDs,
 * are harmless on a pte that went non-present under them. (2.6 i386
 * aliases _PAGE_FILE to _PAGE_DIRTY and puts the swap type on bits 1-5;
 * 64 bits give room to keep them apart.)
 *
 * Page-table slots are plain pte_t, touched only through the __atomic
 * builtins below (so ThreadSanitizer sees every access as an atomic):
 * the emulated MMU reads and updates them with no lock at all, as
 * hardware does; everyone else changes them under mm->page_table_lock.
 * pgd slots are pointers published by pte_alloc() and cleared by
 * pgd_clear() (munmap's free_pgtables(), under mmap_sem for write and
 * page_table_lock; the table itself is freed only after the TLB flush
 * that follows, as 2.6's pte_free_tlb()) or by pgd_free() at teardown.
 */
#ifndef RT_CORE_PGTABLE_H
#define RT_CORE_PGTABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "bug.h"
#include "cacheline.h"
#include "compiler.h"

_Static_assert(sizeof(unsigned long) == 8,
	       "pfns, file offsets and swap offsets need a 64-bit unsigned long");

typedef uint64_t pte_t;
typedef struct { uint64_t pgprot; } pgprot_t;

#define pte_val(x)	((uint64_t)(x))
#define __pte(x)	((pte_t)(x))
#define pgprot_val(x)	((x).pgprot)
#define __pgprot(x)	((pgprot_t){ (x) })

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))

#define PGDIR_SHIFT	22
#define PGDIR_SIZE	(1UL << PGDIR_SHIFT)
#define PGDIR_MASK	(~(PGDIR_SIZE - 1))
#define PTRS_PER_PTE	1024
#define PTRS_PER_PGD	1024
/* The whole emulated address space: PTRS_PER_PGD * PGDIR_SIZE = 4 GiB. */
#define TASK_SIZE	((unsigned long)PTRS_PER_PGD << PGDIR_SHIFT)

#define pgd_index(addr)	(((addr) >> PGDIR_SHIFT) & (PTRS_PER_PGD - 1))
#define pte_index(addr)	(((addr) >> PAGE_SHIFT) & (PTRS_PER_PTE - 1))
/* The end of @addr's pgd entry, or @end if that comes first. */
#define pgd_addr_end(addr, end) ({					\
	unsigned long __b = ((addr) + PGDIR_SIZE) & PGDIR_MASK;		\
	(__b - 1 < (end) - 1) ? __b : (end);				\
})

/* Bytes of one pte table (a pgd is sizeof(pgd_t)). */
#define PTE_TABLE_BYTES	(PTRS_PER_PTE * sizeof(pte_t))

#define _PAGE_BIT_PRESENT	0
#define _PAGE_BIT_RW		1
#define _PAGE_BIT_USER		2
#define _PAGE_BIT_ACCESSED	5
#define _PAGE_BIT_DIRTY		6
#define _PAGE_BIT_FILE		7	/* !present only */

#define _PAGE_PRESENT	(1ULL << _PAGE_BIT_PRESENT)
#define _PAGE_RW	(1ULL << _PAGE_BIT_RW)
#define _PAGE_USER	(1ULL << _PAGE_BIT_USER)
#define _PAGE_ACCESSED	(1ULL << _PAGE_BIT_ACCESSED)
#define _PAGE_YOUNG	_PAGE_ACCESSED
#define _PAGE_DIRTY	(1ULL << _PAGE_BIT_DIRTY)
#define _PAGE_FILE	(1ULL << _PAGE_BIT_FILE)

/* Every flag a present pte may carry. */
#define _PAGE_PROT_BITS	(_PAGE_PRESENT | _PAGE_RW | _PAGE_USER | \
			 _PAGE_ACCESSED | _PAGE_DIRTY)

/* The protections a vma hands to mk_pte(): 2.6 i386's, less _PAGE_NX. */
#define PAGE_SHARED	__pgprot(_PAGE_PRESENT | _PAGE_RW | _PAGE_USER | _PAGE_ACCESSED)
#define PAGE_COPY	__pgprot(_PAGE_PRESENT | _PAGE_USER | _PAGE_ACCESSED)
#define PAGE_READONLY	__pgprot(_PAGE_PRESENT | _PAGE_USER | _PAGE_ACCESSED)

/* Present ptes: the pfn from PAGE_SHIFT up. */
#define PTE_PFN_MASK	(~(uint64_t)(PAGE_SIZE - 1))
#define PTE_PFN_MAX	((1UL << (64 - PAGE_SHIFT)) - 1)

/* File ptes: the page offset from PTE_FILE_SHIFT up. */
#define PTE_FILE_SHIFT		16
#define PTE_FILE_MAX_BITS	(64 - PTE_FILE_SHIFT)
#define PTE_FILE_MAX_PGOFF	((1UL << PTE_FILE_MAX_BITS) - 1)

/* Swap ptes: the arch encoding, as asm-i386's __swp_type()/__swp_offset(). */
#define MAX_SWAPFILES_SHIFT	5
#define MAX_SWAPFILES		(1 << MAX_SWAPFILES_SHIFT)
#define __SWP_TYPE_SHIFT	8
#define __SWP_OFFSET_SHIFT	16
#define SWP_OFFSET_MAX		((1UL << (64 - __SWP_OFFSET_SHIFT)) - 1)

/*
 * A swap entry, arch-independent (linux/swapops.h): the type in the top
 * MAX_SWAPFILES_SHIFT bits of val, the offset below. Offset 0 of every
 * swap area is its header and never an entry, so no entry encodes as the
 * none pte.
 */
typedef struct {
	unsigned long val;
} swp_entry_t;

#define SWP_TYPE_SHIFT(e)	(sizeof((e).val) * 8 - MAX_SWAPFILES_SHIFT)
#define SWP_OFFSET_MASK(e)	((1UL << SWP_TYPE_SHIFT(e)) - 1)

/* --- values: present ptes ------------------------------------------ */

static inline bool pte_none(pte_t pte)
{
	return pte == 0;
}

static inline bool pte_present(pte_t pte)
{
	return pte & _PAGE_PRESENT;
}

static inline bool pte_same(pte_t a, pte_t b)
{
	return a == b;
}

/* A present pte mapping @pfn with @prot (which must include _PAGE_PRESENT). */
static inline pte_t pfn_pte(unsigned long pfn, pgprot_t prot)
{
	BUG_ON(pfn > PTE_PFN_MAX);
	BUG_ON(!(pgprot_val(prot) & _PAGE_PRESENT));
	BUG_ON(pgprot_val(prot) & ~_PAGE_PROT_BITS);
	return ((pte_t)pfn << PAGE_SHIFT) | pgprot_val(prot);
}

/* The model has no struct page here: mk_pte() takes the pfn. */
static inline pte_t mk_pte(unsigned long pfn, pgprot_t prot)
{
	return pfn_pte(pfn, prot);
}

static inline unsigned long pte_pfn(pte_t pte)
{
	return (unsigned long)((pte & PTE_PFN_MASK) >> PAGE_SHIFT);
}

/* The flag tests below are meaningful on present ptes only. */
static inline bool pte_young(pte_t pte)
{
	return pte & _PAGE_ACCESSED;
}

static inline bool pte_dirty(pte_t pte)
{
	return pte & _PAGE_DIRTY;
}

static inline bool pte_write(pte_t pte)
{
	return pte & _PAGE_RW;
}

static inline pte_t pte_mkyoung(pte_t pte)
{
	return pte | _PAGE_ACCESSED;
}

static inline pte_t pte_mkold(pte_t pte)
{
	return pte & ~_PAGE_ACCESSED;
}

static inline pte_t pte_mkdirty(pte_t pte)
{
	return pte | _PAGE_DIRTY;
}

static inline pte_t pte_mkclean(pte_t pte)
{
	return pte & ~_PAGE_DIRTY;
}

static inline pte_t pte_wrprotect(pte_t pte)
{
	return pte & ~_PAGE_RW;
}

static inline pte_t pte_mkwrite(pte_t pte)
{
	return pte | _PAGE_RW;
}

/* --- values: file (nonlinear) ptes ---------------------------------- */

static inline bool pte_file(pte_t pte)
{
	return (pte & (_PAGE_PRESENT | _PAGE_FILE)) == _PAGE_FILE;
}

static inline pte_t pgoff_to_pte(unsigned long pgoff)
{
	BUG_ON(pgoff > PTE_FILE_MAX_PGOFF);
	return ((pte_t)pgoff << PTE_FILE_SHIFT) | _PAGE_FILE;
}

static inline unsigned long pte_to_pgoff(pte_t pte)
{
	return (unsigned long)(pte >> PTE_FILE_SHIFT);
}

/* --- values: swap entries and swap ptes ----------------------------- */

static inline swp_entry_t swp_entry(unsigned long type, unsigned long offset)
{
	swp_entry_t e;

	BUG_ON(type >= MAX_SWAPFILES);
	BUG_ON(offset > SWP_OFFSET_MAX);
	e.val = (type << SWP_TYPE_SHIFT(e)) | offset;
	return e;
}

static inline unsigned long swp_type(swp_entry_t e)
{
	return e.val >> SWP_TYPE_SHIFT(e);
}

static inline unsigned long swp_offset(swp_entry_t e)
{
	return e.val & SWP_OFFSET_MASK(e);
}

/* Neither none, present nor file: what is left is a swap entry. */
static inline bool is_swap_pte(pte_t pte)
{
	return !pte_none(pte) && !pte_present(pte) && !pte_file(pte);
}

static inline pte_t swp_entry_to_pte(swp_entry_t e)
{
	pte_t pte = ((pte_t)swp_offset(e) << __SWP_OFFSET_SHIFT) |
		    ((pte_t)swp_type(e) << __SWP_TYPE_SHIFT);

	/* swp_entry(0, 0): the header of swap area 0 is never an entry. */
	BUG_ON(pte_none(pte));
	return pte;
}

static inline swp_entry_t pte_to_swp_entry(pte_t pte)
{
	return swp_entry((pte >> __SWP_TYPE_SHIFT) & (MAX_SWAPFILES - 1),
			 (unsigned long)(pte >> __SWP_OFFSET_SHIFT));
}

/* --- slots ----------------------------------------------------------- */

/*
 * Memory order, for every slot accessor: set_pte() is a release store and
 * every read-modify-write is acq_rel, so that whoever reads a pte with
 * acquire (ptep_get_acquire(), the RMWs) also sees what its writer did
 * before publishing it (the page's fields and data). ptep_get() is relaxed:
 * for readers ordered by page_table_lock, or that only look at the value.
 */

/* Read a slot; the caller is ordered by page_table_lock or needs only the value. */
static inline pte_t ptep_get(pte_t *ptep)
{
	return __atomic_load_n(ptep, __ATOMIC_RELAXED);
}

/* Read a slot, lock-free, before touching the page it maps. */
static inline pte_t ptep_get_acquire(pte_t *ptep)
{
	/* Acquire pairs with the release in set_pte() and the RMWs below. */
	return __atomic_load_n(ptep, __ATOMIC_ACQUIRE);
}

/* Install @pte; the caller holds page_table_lock. */
static inline void set_pte(pte_t *ptep, pte_t pte)
{
	line_write(ptep, LINE_PTE);
	/*
	 * Release pairs with the acquire in ptep_get_acquire(), in the MMU's
	 * ptep_mkyoung()/ptep_mkdirty() and in every acq_rel RMW here.
	 */
	__atomic_store_n(ptep, pte, __ATOMIC_RELEASE);
}

/* Clear the slot and return what it held; the caller holds page_table_lock. */
static inline pte_t ptep_get_and_clear(pte_t *ptep)
{
	line_write(ptep, LINE_PTE);
	/*
	 * Acq_rel: acquire pairs with set_pte()'s release and with the MMU's
	 * release in ptep_mkyoung()/ptep_mkdirty(), so the young and dirty
	 * bits returned come with what their setters did before; release
	 * pairs with the acquire of a later reader that finds the slot empty.
	 */
	return __atomic_exchange_n(ptep, 0, __ATOMIC_ACQ_REL);
}

/* Clear the accessed bit; true if it was set. Harmless on a non-present pte. */
static inline bool ptep_test_and_clear_young(pte_t *ptep)
{
	line_write(ptep, LINE_PTE);
	/* Acq_rel: pairs with set_pte() and the MMU's ptep_mkyoung(). */
	return __atomic_fetch_and(ptep, ~_PAGE_ACCESSED, __ATOMIC_ACQ_REL) &
	       _PAGE_ACCESSED;
}

/* Clear the dirty bit; true if it was set. Harmless on a non-present pte. */
static inline bool ptep_test_and_clear_dirty(pte_t *ptep)
{
	line_write(ptep, LINE_PTE);
	/* Acq_rel: pairs with set_pte() and the MMU's ptep_mkdirty(). */
	return __atomic_fetch_and(ptep, ~_PAGE_DIRTY, __ATOMIC_ACQ_REL) &
	       _PAGE_DIRTY;
}

/* Clear the write bit (fork's COW); harmless on a non-present pte. */
static inline void ptep_set_wrprotect(pte_t *ptep)
{
	line_write(ptep, LINE_PTE);
	/*
	 * Acq_rel: pairs with the MMU's ptep_mkdirty(): once this returns, no
	 * write access goes through the pte until it is made writable again.
	 */
	__atomic_fetch_and(ptep, ~_PAGE_RW, __ATOMIC_ACQ_REL);
}

/*
 * The emulated MMU's update: OR @set into the pte if it is present and has
 * every bit of @need, as one compare-and-swap, lock-free. @orig (if not
 * NULL) receives the pte as found: the one the access went through, or the
 * one that faulted it.
 */
static inline bool ptep_mmu_update(pte_t *ptep, pte_t need, pte_t set, pte_t *orig)
{
	/* Acquire pairs with set_pte()'s release: the page behind it is ready. */
	pte_t old = __atomic_load_n(ptep, __ATOMIC_ACQUIRE);
	bool ok;

	for (;;) {
		ok = pte_present(old) && (old & need) == need;
		if (!ok || (old & set) == set)
			break;
		/*
		 * Success acq_rel: acquire as above; release pairs with the
		 * acquire of ptep_get_and_clear() and ptep_test_and_clear_*(),
		 * which consume the bit. Failure acquire: retry on a new value.
		 */
		line_write(ptep, LINE_PTE);
		if (__atomic_compare_exchange_n(ptep, &old, old | set, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			break;
	}
	if (orig)
		*orig = old;
	return ok;
}

/*
 * ptep_mkyoung() - the MMU's read access: set the accessed bit, no lock
 * @ptep: the slot
 * @orig: receives the pte the access found (may be NULL)
 *
 * Sets _PAGE_ACCESSED only while the pte is present: a cleared, file or
 * swap pte is never touched (the access would fault).
 *
 * Context: any; lock-free, as hardware.
 * Return: true if the access went through a present pte.
 */
static inline bool ptep_mkyoung(pte_t *ptep, pte_t *orig)
{
	return ptep_mmu_update(ptep, _PAGE_PRESENT, _PAGE_ACCESSED, orig);
}

/*
 * ptep_mkdirty() - the MMU's write access: set dirty and accessed, no lock
 * @ptep: the slot
 * @orig: receives the pte the access found (may be NULL)
 *
 * Sets _PAGE_DIRTY | _PAGE_ACCESSED only while the pte is present and
 * writable: a write through a read-only pte faults (do_wp_page), and a
 * cleared, file or swap pte is never touched.
 *
 * Context: any; lock-free, as hardware.
 * Return: true if the write went through a present, writable pte.
 */
static inline bool ptep_mkdirty(pte_t *ptep, pte_t *orig)
{
	return ptep_mmu_update(ptep, _PAGE_PRESENT | _PAGE_RW,
				 _PAGE_DIRTY | _PAGE_ACCESSED, orig);
}

/* --- tables ---------------------------------------------------------- */

/*
 * The top level: pointers to pte tables, published by pte_alloc() with a
 * compare-and-swap (under page_table_lock in an mm's pgd; the data
 * shadow's pgd is filled lock-free), unhooked by pgd_clear() (under
 * mmap_sem for write and page_table_lock). Readers are lock-free.
 */
typedef struct pgd {
	pte_t *table[PTRS_PER_PGD];	/* atomic: release/acquire, see pte_alloc() */
	void *owner;			/* the mm: set at pgd_alloc(), read-only */
} pgd_t;

/**
 * ptep_to_owner() - the owner given to pgd_alloc() for the table of @ptep
 * @ptep: a slot returned by pte_offset()/pte_alloc()
 *
 * What 2.6.3's rmap calls ptep_to_mm(): pte_chains record slots only.
 *
 * Context: lock-free; the caller keeps the table alive: a table goes
 * (free_pgtables()) only once no pte in it is left, so holding the rmap
 * lock of a page the pte maps is enough, as is page_table_lock.
 */
void *ptep_to_owner(const pte_t *ptep);
/* The user address that @ptep maps. Context: as ptep_to_owner(). */
unsigned long ptep_to_address(const pte_t *ptep);

/**
 * pgd_alloc() - a new, empty top-level table
 * @owner: what ptep_to_owner() returns for its slots (the mm), or NULL
 *
 * Context: any; may allocate (never fails).
 * Return: the pgd, with no pte tables.
 */
pgd_t *pgd_alloc(void *owner);

/**
 * pgd_free() - free every pte table of @pgd, then @pgd
 * @pgd: the table; NULL is allowed
 *
 * Context: teardown: no other thread may use @pgd or any slot in it.
 */
void pgd_free(pgd_t *pgd);

/**
 * pte_offset() - the slot mapping @addr, if its pte table exists
 * @pgd: the top-level table
 * @addr: a user address below TASK_SIZE
 *
 * Context: lock-free. Callers hold mm->page_table_lock, or are the
 * emulated MMU (which may only use the slot through the lock-free
 * accessors above).
 * Return: the slot, or NULL when @addr's pte table was never allocated.
 */
pte_t *pte_offset(pgd_t *pgd, unsigned long addr);

/**
 * pte_alloc() - the slot mapping @addr, allocating its pte table if absent
 * @pgd: the top-level table
 * @addr: a user address below TASK_SIZE
 *
 * The table is published with a compare-and-swap, so two racing callers
 * agree on one table even without the lock; the loser frees its own.
 *
 * Context: mm->page_table_lock held (the kernel drops it to allocate;
 * the model allocates with it held, from libc: nothing sleeps).
 * Return: the slot; NULL only if allocation failed, which callers handle
 * as VM_FAULT_OOM (it cannot happen at present: the model's allocation
 * never fails).
 */
pte_t *pte_alloc(pgd_t *pgd, unsigned long addr);

/**
 * pgd_for_each_pte() - call @fn on every non-none pte in [@start, @end)
 * @pgd: the top-level table
 * @start: first address, page aligned
 * @end: end address, page aligned, at most TASK_SIZE
 * @fn: called with the slot, its address and @arg; nonzero stops the walk
 * @arg: passed to @fn
 *
 * Skips absent pte tables. The ptes are read with ptep_get(); @fn may
 * change its slot through the slot accessors.
 *
 * Context: mm->page_table_lock held, or the mm is quiescent (audit,
 * teardown).
 * Return: the first nonzero value @fn returned, or 0.
 */
int pgd_for_each_pte(pgd_t *pgd, unsigned long start, unsigned long end,
		     int (*fn)(pte_t *ptep, unsigned long addr, void *arg),
		     void *arg);

/**
 * pgd_clear() - unhook the pte table of pgd entry @index, to be freed later
 * @pgd: the top-level table
 * @index: the entry, below PTRS_PER_PGD
 *
 * What free_one_pmd() of 2.6.9 (free_one_pgd() in 2.6.3; the pmd is folded
 * on i386 without PAE, whose pgd entry maps a pte table of 4 MiB like this
 * model's) does before pte_free_tlb(): the entry reads empty from here on,
 * but a CPU that walked it before may still be reading the table, so the
 * caller frees it (pte_free()) only after the TLB flush that follows.
 *
 * Context: mmap_sem held for write (no fault allocates a table meanwhile)
 * and mm->page_table_lock held (rmap walkers look tables up under it).
 * Return: the table (its first slot), or NULL when none was there.
 */
pte_t *pgd_clear(pgd_t *pgd, unsigned long index);

/**
 * pte_free() - free a pte table unhooked by pgd_clear()
 * @table: what pgd_clear() returned
 *
 * Mirrors include/asm-i386/pgalloc.h's pte_free(), as the mmu_gather calls
 * it after the flush (tlb_finish_mmu()). The memory goes back to libc, so
 * that a sanitizer sees any later use.
 *
 * Context: after the TLB flush of the table's mm; nothing may use @table.
 */
void pte_free(pte_t *table);

/**
 * pte_table_empty() - whether every slot of a pte table is none
 * @table: a table (its first slot)
 *
 * Context: page_table_lock held, or the table is unreachable.
 * Return: true if no slot maps a page, holds a file offset or a swap entry.
 */
bool pte_table_empty(const pte_t *table);

/**
 * pgtable_nr_tables() - how many pte tables @pgd has
 * @pgd: the top-level table
 *
 * Context: lock-free; exact only if no pte_alloc() on @pgd runs.
 * Return: the number of allocated pte tables.
 */
unsigned long pgtable_nr_tables(pgd_t *pgd);

/**
 * pgtable_bytes_in_use() - bytes of page tables (pgds and pte tables) live
 *
 * Context: any; lock-free, a snapshot of global counters.
 * Return: bytes allocated and not yet freed, over every mm.
 */
unsigned long pgtable_bytes_in_use(void);

/**
 * pgtable_tables_allocated() - pte tables allocated since start
 *
 * Context: any; lock-free.
 * Return: the count; pte_alloc() losers that freed their table are not in it.
 */
unsigned long pgtable_tables_allocated(void);

/**
 * pgtable_tables_freed() - pte tables freed since start
 *
 * Context: any; lock-free.
 * Return: the count: pte_free()'s, munmap's and teardown's.
 */
unsigned long pgtable_tables_freed(void);

#endif /* RT_CORE_PGTABLE_H */
