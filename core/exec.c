// SPDX-License-Identifier: MIT
/*
 * exec: a new mm with the mappings a dynamically linked program starts
 * with (fs/exec.c and the ELF loader of 2.6, reduced to what the rmap
 * sees): library text and data, a heap, a stack.
 */
#include "mm-internal.h"

#include <errno.h>

struct mm_struct *exec_mm(struct address_space *const *libs, int nr_libs,
			  unsigned long heap_pages, unsigned long stack_pages)
{
	struct mm_struct *mm = mm_alloc();
	long r = 0;

	if (!mm)
		return NULL;
	down_write(&mm->mmap_sem);
	for (int i = 0; i < nr_libs && r >= 0; i++) {
		struct address_space *lib = libs[i];
		unsigned long text = lib->max_pages / 2, data = lib->max_pages - text;

		if (text)
			r = do_mmap(mm, lib, 0, text << PAGE_SHIFT, VM_READ | VM_EXEC, 0);
		if (r >= 0 && data)
			r = do_mmap(mm, lib, 0, data << PAGE_SHIFT, VM_READ | VM_WRITE, text);
	}
	if (r >= 0 && heap_pages)
		r = do_mmap(mm, NULL, 0, heap_pages << PAGE_SHIFT, VM_READ | VM_WRITE, 0);
	if (r >= 0 && stack_pages)
		r = do_mmap(mm, NULL, STACK_TOP - (stack_pages << PAGE_SHIFT),
			    stack_pages << PAGE_SHIFT, VM_READ | VM_WRITE | VM_GROWSDOWN, 0);
	up_write(&mm->mmap_sem);
	if (r < 0) {
		mmput(mm);
		return NULL;
	}
	return mm;
}
