/* SPDX-License-Identifier: MIT */
/* Helpers shared by the VM-model suites (vm, objrmap, anonvma). */
#ifndef RT_TESTS_RT_VM_H
#define RT_TESTS_RT_VM_H

#include <stdbool.h>
#include <stdint.h>

#include "fs.h"
#include "mm.h"

/* Run the audit; ck_abort with the first violation, naming the design. */
void rt_audit_ok(struct mm_struct **mms, int nr_mms,
		 struct address_space **files, int nr_files);

/* do_mmap() of @pages pages under mmap_sem for write. */
long rt_mmap(struct mm_struct *mm, struct address_space *f, unsigned long addr,
	     unsigned long pages, unsigned long flags, unsigned long pgoff);

/* mm_access() under mmap_sem for read. */
enum mm_access_result rt_access(struct mm_struct *mm, unsigned long addr, bool write,
				uint64_t *stamp);

/* The page mapped at @addr (not the zero page), or NULL. Takes page_table_lock. */
struct page *rt_page_at(struct mm_struct *mm, unsigned long addr);

#endif /* RT_TESTS_RT_VM_H */
