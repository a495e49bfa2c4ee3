// SPDX-License-Identifier: MIT
/*
 * A file's vmas as each design keeps them (core/i_mmap.h): the lists of
 * 2.6.3 and the seeds under i_shared_sem, or 2.6.8's priority search tree
 * and nonlinear list under i_mmap_lock. In the tree, vmas mapping the same
 * range of pages (a forked child and its parent, typically) share one
 * node: the first holds it (prio_in_tree) and the others hang on its ring
 * through vma->shared, as 2.6.7's vm_set list did; when the holder leaves,
 * the next on the ring takes its node's place.
 *
 * Locking: the caller holds the file's list lock (i_mmap_lock_file());
 * nothing here takes a lock.
 */
#include "i_mmap.h"

#include <stddef.h>

#include "bug.h"
#include "mm-internal.h"

/*
 * What a vma of 2.6.8 carries beyond 2.6.3's for this: its "shared" union
 * (vm_set: list head, parent, head; or the prio_tree_node) is 32 bytes
 * where 2.6.3's list head was 16. Accounted in the rmap's vma_extra while
 * a file vma is linked, in the mainline designs.
 */
#define I_MMAP_VMA_EXTRA_BYTES	16L

/* Mirrors 2.6.8's vma_prio_tree_insert(): the vma's node, or a place on an equal one's ring. */
static void vma_prio_tree_insert(struct vm_area_struct *vma, struct prio_tree_root *root)
{
	struct prio_tree_node *node = &vma->prio_tree_node, *r;

	node->start = vma->vm_pgoff;
	node->last = vma->vm_pgoff + vma_pages(vma) - 1;
	INIT_LIST_HEAD(&vma->shared);
	r = prio_tree_insert(root, node);
	if (r == node) {
		vma->prio_in_tree = true;
	} else {
		struct vm_area_struct *holder =
			(struct vm_area_struct *)((char *)r -
				offsetof(struct vm_area_struct, prio_tree_node));

		vma->prio_in_tree = false;
		list_add_tail(&vma->shared, &holder->shared);
	}
}

/* Mirrors 2.6.8's vma_prio_tree_remove(). */
static void vma_prio_tree_remove(struct vm_area_struct *vma, struct prio_tree_root *root)
{
	if (!vma->prio_in_tree) {
		list_del_init(&vma->shared);
		return;
	}
	vma->prio_in_tree = false;
	if (list_empty(&vma->shared)) {
		prio_tree_remove(root, &vma->prio_tree_node);
		return;
	}
	{
		struct vm_area_struct *next =
			list_first_entry(&vma->shared, struct vm_area_struct, shared);

		list_del_init(&vma->shared);
		next->prio_tree_node.start = vma->prio_tree_node.start;
		next->prio_tree_node.last = vma->prio_tree_node.last;
		prio_tree_replace(root, &vma->prio_tree_node, &next->prio_tree_node);
		next->prio_in_tree = true;
	}
}

void __vma_link_file(struct vm_area_struct *vma)
{
	struct address_space *mapping = vma->vm_file;

	if (!rmap->i_mmap_tree) {
		list_add_tail(&vma->shared, vma_file_list(vma));
		return;
	}
	rmap_account_vma_extra(I_MMAP_VMA_EXTRA_BYTES);
	if (vma->vm_flags & VM_NONLINEAR) {
		vma->prio_in_tree = false;
		list_add_tail(&vma->shared, &mapping->i_mmap_nonlinear);
		return;
	}
	vma_prio_tree_insert(vma, &mapping->i_mmap_tree);
}

void __vma_link_file_after(struct vm_area_struct *vma, struct vm_area_struct *old)
{
	BUG_ON(vma->vm_file != old->vm_file);
	/*
	 * On the list, or on @old's ring when the range is @old's
	 * (2.6.8's vma_prio_tree_add(): fork's child after its parent).
	 */
	if (!rmap->i_mmap_tree ||
	    ((vma->vm_flags & VM_NONLINEAR) && (old->vm_flags & VM_NONLINEAR)) ||
	    (!(vma->vm_flags & VM_NONLINEAR) && !(old->vm_flags & VM_NONLINEAR) &&
	     vma->vm_pgoff == old->vm_pgoff && vma_pages(vma) == vma_pages(old))) {
		vma->prio_in_tree = false;
		list_add(&vma->shared, &old->shared);
		if (rmap->i_mmap_tree)
			rmap_account_vma_extra(I_MMAP_VMA_EXTRA_BYTES);
		return;
	}
	__vma_link_file(vma);
}

void __vma_unlink_file(struct vm_area_struct *vma)
{
	if (rmap->i_mmap_tree)
		rmap_account_vma_extra(-I_MMAP_VMA_EXTRA_BYTES);
	if (!rmap->i_mmap_tree || (vma->vm_flags & VM_NONLINEAR)) {
		list_del_init(&vma->shared);
		return;
	}
	vma_prio_tree_remove(vma, &vma->vm_file->i_mmap_tree);
}

void vma_file_bounds_begin(struct vm_area_struct *vma)
{
	if (vma->vm_file && rmap->i_mmap_tree)
		__vma_unlink_file(vma);
}

void vma_file_bounds_end(struct vm_area_struct *vma)
{
	if (vma->vm_file && rmap->i_mmap_tree)
		__vma_link_file(vma);
}

struct tree_walk {
	i_mmap_visit_t visit;
	void *arg;
};

/* A node of the tree: its holder, then the ring. */
static int visit_node(struct prio_tree_node *node, void *arg)
{
	struct tree_walk *w = arg;
	struct vm_area_struct *holder =
		(struct vm_area_struct *)((char *)node -
			offsetof(struct vm_area_struct, prio_tree_node));
	struct vm_area_struct *vma;
	int ret;

	ret = w->visit(holder, w->arg);
	if (ret)
		return ret;
	list_for_each_entry(vma, &holder->shared, shared) {
		ret = w->visit(vma, w->arg);
		if (ret)
			return ret;
	}
	return 0;
}

int vma_prio_tree_foreach(struct address_space *mapping, unsigned long first,
			  unsigned long last, i_mmap_visit_t visit, void *arg)
{
	struct tree_walk w = { visit, arg };
	struct vm_area_struct *vma;

	if (rmap->i_mmap_tree)
		return prio_tree_query(&mapping->i_mmap_tree, first, last, visit_node, &w);
	for (int l = 0; l < 2; l++) {
		struct list_head *head = l ? &mapping->i_mmap_shared : &mapping->i_mmap;

		list_for_each_entry(vma, head, shared) {
			unsigned long vstart = vma->vm_pgoff;
			unsigned long vend = vstart + vma_pages(vma) - 1;
			int ret;

			if (vend < first || vstart > last)
				continue;
			ret = visit(vma, arg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

bool mapping_unmapped(struct address_space *mapping)
{
	return list_empty(&mapping->i_mmap) && list_empty(&mapping->i_mmap_shared) &&
	       list_empty(&mapping->i_mmap_nonlinear) && prio_tree_empty(&mapping->i_mmap_tree);
}
