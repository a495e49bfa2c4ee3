// SPDX-License-Identifier: MIT
/*
 * The emulated page tables: pgds and pte tables, allocated on demand and
 * freed by munmap (free_pgtables(), through the mmu_gather) or at
 * teardown, with global counters for memory accounting.
 * Mirrors the pgd_alloc()/pgd_free(), pte_alloc_map(), free_one_pmd() and
 * pte_free() side of mm/memory.c, arch/i386/mm/pgtable.c and
 * include/asm-i386/pgalloc.h.
 */
#include "pgtable.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "percpu.h"
#include "slab.h"

/*
 * Accounting: bytes live, tables allocated and freed, as per-task
 * counters (percpu.h) summed when read: no shared line per table.
 */
static void pgtable_account(long bytes)
{
	rt_pcpu_mod(PCPU_PGTABLE_BYTES, bytes);
}

/*
 * A pte table and where it sits: the kernel keeps the owning mm and the
 * base address in the page-table page's struct page (ptep_to_mm() of
 * 2.6.3's rmap); here they follow the ptes, and the table is aligned to
 * its own size so a slot's address finds its table.
 */
struct pte_table {
	pte_t pte[PTRS_PER_PTE];
	pgd_t *pgd;		/* set before publication, then read-only */
	unsigned long base;	/* set before publication, then read-only */
};

static struct pte_table *ptep_table(const pte_t *ptep)
{
	return (struct pte_table *)((uintptr_t)ptep & ~(uintptr_t)(PTE_TABLE_BYTES - 1));
}

void *ptep_to_owner(const pte_t *ptep)
{
	return ptep_table(ptep)->pgd->owner;
}

unsigned long ptep_to_address(const pte_t *ptep)
{
	const struct pte_table *t = ptep_table(ptep);

	return t->base + (unsigned long)(ptep - t->pte) * PAGE_SIZE;
}

/*
 * Page tables come from object caches, as 2.6 i386's pgd_cache (and
 * pmd_cache) slabs did; its pte pages came from the page allocator, but
 * here they stay off the model's zone (core/page_alloc.c) as they always
 * were, so that the memory-pressure figures (free pages, reclaim, OOM)
 * do not change. Both are zeroed at allocation, as rt_calloc() did.
 */
static struct kmem_cache *pgd_cachep, *pte_cachep;
static pthread_once_t pgtable_caches_once = PTHREAD_ONCE_INIT;

static void pgtable_caches_init(void)
{
	pgd_cachep = kmem_cache_create("pgd", sizeof(pgd_t), 0, NULL);
	/* Aligned to its size: ptep_table() finds a slot's table. */
	pte_cachep = kmem_cache_create_aligned("pte", sizeof(struct pte_table),
					       PTE_TABLE_BYTES, 0, NULL);
}

pgd_t *pgd_alloc(void *owner)
{
	pgd_t *pgd;

	RT_PTHREAD(pthread_once(&pgtable_caches_once, pgtable_caches_init));
	pgd = kmem_cache_alloc(pgd_cachep, GFP_ATOMIC);
	if (!pgd)
		rt_die("pgd_alloc: out of memory");
	memset(pgd, 0, sizeof(*pgd));
	pgd->owner = owner;
	pgtable_account((long)sizeof(*pgd));
	return pgd;
}

void pgd_free(pgd_t *pgd)
{
	if (!pgd)
		return;
	for (int i = 0; i < PTRS_PER_PGD; i++) {
		/*
		 * Acquire pairs with the publishing CAS in pte_alloc(). The
		 * caller already owns the pgd exclusively; this only keeps the
		 * order explicit for whoever handed it over.
		 */
		pte_t *table = __atomic_load_n(&pgd->table[i], __ATOMIC_ACQUIRE);

		if (!table)
			continue;
		__atomic_store_n(&pgd->table[i], NULL, __ATOMIC_RELAXED);
		pte_free(table);
	}
	kmem_cache_free(pgd_cachep, pgd);
	pgtable_account(-(long)sizeof(*pgd));
}

pte_t *pgd_clear(pgd_t *pgd, unsigned long index)
{
	pte_t *table;

	BUG_ON(index >= PTRS_PER_PGD);
	/* Acquire pairs with the publishing CAS in pte_alloc(). */
	table = __atomic_load_n(&pgd->table[index], __ATOMIC_ACQUIRE);
	if (!table)
		return NULL;
	/*
	 * Relaxed: what orders this store before the table's free is the
	 * seq_cst fence F2 of the flush that must come in between
	 * (core/tlbflush.c): a CPU whose walk read the old pointer is
	 * waited for. Readers under page_table_lock are ordered by the lock.
	 */
	__atomic_store_n(&pgd->table[index], NULL, __ATOMIC_RELAXED);
	return table;
}

void pte_free(pte_t *table)
{
	BUG_ON(!table || table != ptep_table(table)->pte);
	kmem_cache_free(pte_cachep, ptep_table(table));
	rt_pcpu_inc(PCPU_PGTABLE_FREE);
	pgtable_account(-(long)PTE_TABLE_BYTES);
}

bool pte_table_empty(const pte_t *table)
{
	for (int i = 0; i < PTRS_PER_PTE; i++)
		if (!pte_none(ptep_get((pte_t *)&table[i])))
			return false;
	return true;
}

/* The pte table for @addr, or NULL. */
static pte_t *pgd_table(pgd_t *pgd, unsigned long addr)
{
	BUG_ON(addr >= TASK_SIZE);
	/*
	 * Acquire pairs with the release of the publishing CAS in
	 * pte_alloc(): the table's zeroed slots are visible before its address.
	 */
	return __atomic_load_n(&pgd->table[pgd_index(addr)], __ATOMIC_ACQUIRE);
}

pte_t *pte_offset(pgd_t *pgd, unsigned long addr)
{
	pte_t *table = pgd_table(pgd, addr);

	return table ? &table[pte_index(addr)] : NULL;
}

pte_t *pte_alloc(pgd_t *pgd, unsigned long addr)
{
	pte_t *table = pgd_table(pgd, addr);
	struct pte_table *t;
	pte_t *new;

	if (likely(table))
		return &table[pte_index(addr)];

	RT_PTHREAD(pthread_once(&pgtable_caches_once, pgtable_caches_init));
	t = kmem_cache_alloc(pte_cachep, GFP_ATOMIC);
	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->pgd = pgd;
	t->base = addr & PGDIR_MASK;
	new = t->pte;
	/*
	 * Publish: success release pairs with the acquire in pgd_table()
	 * (pte_offset(), pte_alloc()) and pgd_free(); failure acquire pairs
	 * with the winner's release, since we go on to use its table.
	 */
	if (__atomic_compare_exchange_n(&pgd->table[pgd_index(addr)], &table, new,
					false, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
		rt_pcpu_inc(PCPU_PGTABLE_ALLOC);
		pgtable_account((long)PTE_TABLE_BYTES);
		table = new;
	} else {
		/* Lost the race: @table is the winner's. */
		kmem_cache_free(pte_cachep, t);
	}
	return &table[pte_index(addr)];
}

int pgd_for_each_pte(pgd_t *pgd, unsigned long start, unsigned long end,
		     int (*fn)(pte_t *ptep, unsigned long addr, void *arg),
		     void *arg)
{
	unsigned long addr = start, next;

	BUG_ON(start & ~PAGE_MASK);
	BUG_ON(end & ~PAGE_MASK);
	BUG_ON(end > TASK_SIZE);
	for (; addr < end; addr = next) {
		pte_t *table;

		next = pgd_addr_end(addr, end);
		table = pgd_table(pgd, addr);
		if (!table)
			continue;
		for (unsigned long a = addr; a < next; a += PAGE_SIZE) {
			pte_t *ptep = &table[pte_index(a)];
			int ret;

			if (pte_none(ptep_get(ptep)))
				continue;
			ret = fn(ptep, a, arg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

unsigned long pgtable_nr_tables(pgd_t *pgd)
{
	unsigned long nr = 0;

	for (int i = 0; i < PTRS_PER_PGD; i++) {
		/* Acquire pairs with the publishing CAS in pte_alloc(). */
		if (__atomic_load_n(&pgd->table[i], __ATOMIC_ACQUIRE))
			nr++;
	}
	return nr;
}

unsigned long pgtable_bytes_in_use(void)
{
	return (unsigned long)rt_pcpu_sum(PCPU_PGTABLE_BYTES);
}

unsigned long pgtable_tables_allocated(void)
{
	return (unsigned long)rt_pcpu_sum(PCPU_PGTABLE_ALLOC);
}

unsigned long pgtable_tables_freed(void)
{
	return (unsigned long)rt_pcpu_sum(PCPU_PGTABLE_FREE);
}
