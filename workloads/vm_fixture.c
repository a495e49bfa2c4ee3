// SPDX-License-Identifier: MIT
#include "vm_fixture.h"

#include "audit.h"
#include "die.h"
#include "page_alloc.h"
#include "rcu.h"
#include "swap.h"
#include "vmscan.h"

int rt_vm_up(const struct rt_vm_fixture *fx)
{
	int r = rmap_select(fx->design);

	if (r)
		return r;
	r = mem_init(fx->pages);
	if (r)
		goto out_design;
	if (fx->slots) {
		r = swap_init(fx->slots);
		if (r)
			goto out_mem;
	}
	reclaim_stats_reset();
	rmap_fallback_reset();
	rmap_bytes_reset_peak();
	return 0;

out_mem:
	mem_exit();
out_design:
	rmap_select(RMAP_DEFAULT);
	return r;
}

unsigned long rt_vm_down(const struct rt_vm_fixture *fx)
{
	unsigned long leaks = 0;

	if (fx->drain)
		for (int i = 0; i < 8 && nr_free_pages() != max_mapnr - 1; i++)
			shrink_zone(&contig_zone, max_mapnr);
	/* What goes after a grace period (mms, anon_vmas) goes before the count. */
	rcu_barrier();
	if (fx->drain)
		leaks = vm_teardown_check();
	zone_set_low_hook(&contig_zone, NULL, NULL);
	swap_exit();
	mem_exit();
	rmap_select(RMAP_DEFAULT);
	return leaks;
}

long rt_mmap(struct mm_struct *mm, struct address_space *f, unsigned long addr,
	     unsigned long pages, unsigned long flags, unsigned long pgoff)
{
	long r;

	down_write(&mm->mmap_sem);
	r = do_mmap(mm, f, addr, pages * PAGE_SIZE, flags, pgoff);
	up_write(&mm->mmap_sem);
	return r;
}

int rt_munmap(struct mm_struct *mm, unsigned long addr, unsigned long pages)
{
	int r;

	down_write(&mm->mmap_sem);
	r = do_munmap(mm, addr, pages * PAGE_SIZE);
	up_write(&mm->mmap_sem);
	return r;
}

enum mm_access_result rt_access(struct mm_struct *mm, unsigned long addr, bool write,
				uint64_t *stamp)
{
	return mm_access(mm, addr, write, stamp);
}

void rt_touch(struct mm_struct *mm, unsigned long addr, bool write)
{
	enum mm_access_result r = rt_access(mm, addr, write, NULL);

	if (r != ACCESS_OK)
		rt_die("mm_access(%#lx, %s) = %d", addr, write ? "write" : "read", (int)r);
}

struct page *rt_page_at(struct mm_struct *mm, unsigned long addr)
{
	struct page *page = NULL;
	pte_t *ptep;

	spin_lock(&mm->page_table_lock);
	ptep = pte_offset(mm->pgd, addr);
	if (ptep && pte_present(ptep_get(ptep)) && pte_pfn(ptep_get(ptep)) != ZERO_PAGE_PFN)
		page = pfn_to_page(pte_pfn(ptep_get(ptep)));
	spin_unlock(&mm->page_table_lock);
	return page;
}

int rt_nr_vmas(struct mm_struct *mm)
{
	int n = 0;

	for (struct vm_area_struct *v = mm->mmap; v; v = v->vm_next)
		n++;
	return n;
}

void rt_file_free(struct address_space *f)
{
	vmtruncate(f, 0);
	file_destroy(f);
}
