// SPDX-License-Identifier: MIT
#include "rt_vm.h"

#include "audit.h"
#include "rmap.h"
#include "rt_check.h"

void rt_audit_ok(struct mm_struct **mms, int nr_mms,
		 struct address_space **files, int nr_files)
{
	struct vm_report r;
	unsigned long v = vm_audit(mms, nr_mms, files, nr_files, NULL);

	if (v && rt_reports_first(VM_REPORT_AUDIT, &r))
		ck_abort_msg("[%s] audit: %lu violations, first: %s", rmap_mode_name(rmap_mode),
			     v, r.message);
	ck_assert_int_eq(v, 0);
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

enum mm_access_result rt_access(struct mm_struct *mm, unsigned long addr, bool write,
				uint64_t *stamp)
{
	enum mm_access_result r;

	down_read(&mm->mmap_sem);
	r = mm_access(mm, addr, write, stamp);
	up_read(&mm->mmap_sem);
	return r;
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
