// SPDX-License-Identifier: MIT
/*
 * The operations of enum wl_op, each a short sequence of the model's
 * system calls on a random target of the world (world.c): accesses,
 * mmap, munmap/mprotect/mlock, mremap, fork, exec, exit, truncate,
 * unlink, remap_file_pages, stack growth, direct I/O and swapoff, run
 * by wl_do_op().
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "die.h"
#include "fs.h"
#include "mm.h"
#include "pgtable.h"
#include "rcu.h"
#include "swap.h"
#include "workload.h"
#include "world-internal.h"

static enum wl_result access_result(enum mm_access_result r)
{
	switch (r) {
	case ACCESS_OOM:
		return WL_OOM;
	case ACCESS_CORRUPT:
		return WL_CORRUPT;
	default:
		return WL_DONE;
	}
}

/*
 * A user keeps its own layout still under a direct I/O: no munmap,
 * mremap, mprotect or fork of the buffer while a transfer uses it
 * (open(2): O_DIRECT "should never be run concurrently with fork(2)" on
 * private memory; 2.6's GUP pins a page, not an address). So the oracle
 * may hold the address to what the transfer did, and a pinned page the
 * user loses is the kernel's doing. Harness side, no emulated lock and
 * no waiting (the deterministic scheduler sees neither): each side counts
 * itself in, then backs off if the other is in (Dekker's test, seq_cst).
 */
static bool user_busy_enter(int *mine, int *other)
{
	__atomic_add_fetch(mine, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(other, __ATOMIC_SEQ_CST))
		return true;
	__atomic_sub_fetch(mine, 1, __ATOMIC_SEQ_CST);
	return false;
}

static void user_busy_exit(int *mine)
{
	__atomic_sub_fetch(mine, 1, __ATOMIC_SEQ_CST);
}

static int dio_hash(const struct mm_struct *mm)
{
	return (int)((unsigned int)mm->id % WL_DIO_HASH);
}

/* A layout change of @mm may run: false while a direct I/O of it is in flight. */
static bool layout_enter(struct wl_world *w, const struct mm_struct *mm)
{
	return user_busy_enter(&w->busy[dio_hash(mm)].layout, &w->busy[dio_hash(mm)].dio);
}

static void layout_exit(struct wl_world *w, const struct mm_struct *mm)
{
	user_busy_exit(&w->busy[dio_hash(mm)].layout);
}

static enum wl_result op_access(const struct wl_world *w, struct mm_struct *mm, uint64_t *rng,
				 bool write)
{
	struct vm_area_struct *v;
	enum mm_access_result r;
	unsigned long addr;

	/*
	 * The program knows its addresses: pick one under mmap_sem, then
	 * load or store with none held, as a user thread does, so that
	 * munmap, mprotect, mremap, fork and exec race the access.
	 */
	down_read(&mm->mmap_sem);
	v = world_pick_vma(w, mm, rng, write ? VM_WRITE : 0, 0);
	if (!v) {
		up_read(&mm->mmap_sem);
		return WL_SKIPPED;
	}
	addr = world_pick_page(v, rng);
	up_read(&mm->mmap_sem);
	r = mm_access(mm, addr, write, NULL);
	return access_result(r);
}

/* Where far_spans' mappings go: above the packed ones, below the stack. */
#define FAR_BASE	0x80000000UL

/*
 * A big program's layout: a mapping alone in its page table, at the start
 * of a random pgd entry, if that entry is free from a guard page below it
 * to a guard page past @len; else 0 (the usual placement).
 * Context: mmap_sem held for write.
 */
static unsigned long far_addr(const struct wl_world *w, struct mm_struct *mm, uint64_t *rng,
			      unsigned long len)
{
	unsigned long addr = FAR_BASE + rnd_below(rng, (unsigned long)w->p.far_spans) * PGDIR_SIZE;
	struct vm_area_struct *v = find_vma(mm, addr - PAGE_SIZE);

	return v && v->vm_start < addr + len + PAGE_SIZE ? 0 : addr;
}

static enum wl_result op_mmap(struct wl_world *w, struct mm_struct *mm, uint64_t *rng,
			      enum wl_op op)
{
	unsigned long pages = 1 + rnd_below(rng, w->p.map_pages_max);
	struct address_space *f = NULL;
	unsigned long flags = VM_READ | VM_WRITE, pgoff = 0;
	long r;

	if (op != WL_MMAP_ANON) {
		if (!w->p.nr_files)
			return WL_SKIPPED;
		f = world_file(w, (int)rnd_below(rng, (unsigned long)w->p.nr_files));
		if (!f)
			return WL_SKIPPED;
		if (pages > f->max_pages)
			pages = f->max_pages;
		pgoff = rnd_below(rng, f->max_pages - pages + 1);
		if (op == WL_MMAP_SHARED)
			flags |= VM_SHARED;
	}
	down_write(&mm->mmap_sem);
	if (mm->map_count >= w->p.max_vmas) {
		up_write(&mm->mmap_sem);
		iput(f);
		return WL_SKIPPED;
	}
	r = do_mmap(mm, f, w->p.far_spans && !rnd_below(rng, 4) ?
		    far_addr(w, mm, rng, pages * PAGE_SIZE) : 0,
		    pages * PAGE_SIZE, flags, pgoff);
	up_write(&mm->mmap_sem);
	iput(f);		/* the vma holds its own */
	return r == -ENOMEM ? WL_OOM : r < 0 ? WL_SKIPPED : WL_DONE;
}

static enum wl_result op_range(struct wl_world *w, struct mm_struct *mm, uint64_t *rng,
			       enum wl_op op)
{
	struct vm_area_struct *v;
	unsigned long start, len;
	int err = 0;

	if (!layout_enter(w, mm))
		return WL_SKIPPED;
	down_write(&mm->mmap_sem);
	/* Keep the stack: exec images need one for WL_STACK. */
	v = world_pick_range(w, mm, rng, op == WL_MUNMAP ? VM_GROWSDOWN : 0, &start, &len);
	if (!v) {
		up_write(&mm->mmap_sem);
		layout_exit(w, mm);
		return WL_SKIPPED;
	}
	switch (op) {
	case WL_MUNMAP:
		err = do_munmap(mm, start, len);
		break;
	case WL_MPROTECT:
		err = (v->vm_flags & VM_WRITE) ? do_mprotect(mm, start, len, 0, VM_WRITE)
					       : do_mprotect(mm, start, len, VM_WRITE, 0);
		break;
	default:
		err = (v->vm_flags & VM_LOCKED) ? do_mprotect(mm, start, len, 0, VM_LOCKED)
						: do_mprotect(mm, start, len, VM_LOCKED, 0);
		break;
	}
	up_write(&mm->mmap_sem);
	layout_exit(w, mm);
	return err == -ENOMEM ? WL_OOM : WL_DONE;
}

static enum wl_result op_mremap(struct wl_world *w, struct mm_struct *mm, uint64_t *rng)
{
	struct vm_area_struct *v;
	unsigned long start, len, new_len;
	long r;

	if (!layout_enter(w, mm))
		return WL_SKIPPED;
	down_write(&mm->mmap_sem);
	v = world_pick_range(w, mm, rng, VM_NONLINEAR | VM_GROWSDOWN, &start, &len);
	if (!v || (v->vm_file && start + len != v->vm_end)) {
		up_write(&mm->mmap_sem);
		layout_exit(w, mm);
		return WL_SKIPPED;
	}
	new_len = (1 + rnd_below(rng, 2 * (len >> PAGE_SHIFT))) * PAGE_SIZE;
	if (v->vm_file && v->vm_pgoff + ((start - v->vm_start + new_len) >> PAGE_SHIFT) >
			  v->vm_file->max_pages)
		new_len = len;		/* a file mapping cannot outgrow its file */
	r = do_mremap(mm, start, len, new_len, 0);
	up_write(&mm->mmap_sem);
	layout_exit(w, mm);
	return r == -ENOMEM ? WL_OOM : WL_DONE;
}

static enum wl_result op_fork(struct wl_world *w, struct mm_struct *mm, uint64_t *rng,
			      int worker)
{
	struct mm_struct *child;

	if (__atomic_load_n(&w->nr_procs, __ATOMIC_RELAXED) >= w->p.procs_max)
		return WL_SKIPPED;
	if (!layout_enter(w, mm))
		return WL_SKIPPED;
	child = dup_mm(mm);
	layout_exit(w, mm);
	if (!child)
		return WL_OOM;
	if (!world_publish_proc(w, child, rng, mm, worker)) {
		mmput(child);		/* the table filled meanwhile: it exits */
		return WL_SKIPPED;
	}
	return WL_DONE;
}

static enum wl_result op_exit(struct wl_world *w, uint64_t *rng, int worker)
{
	struct mm_struct *mm = world_unpublish_proc(w, rng, 1, worker);

	if (!mm)
		return WL_SKIPPED;
	mmput(mm);		/* the table's reference: exit_mmap when the last goes */
	return WL_DONE;
}

static enum wl_result op_exec(struct wl_world *w, uint64_t *rng, int worker)
{
	struct mm_struct *mm = world_new_image(w), *old;

	if (!mm)
		return WL_OOM;
	old = world_unpublish_proc(w, rng, 0, worker);
	if (!world_publish_proc(w, mm, rng, NULL, worker))
		mmput(mm);
	if (old)
		mmput(old);
	return WL_DONE;
}

/*
 * ftruncate() through a shared mapping of a process: the file it maps,
 * named or already unlinked, with a reference. Libraries are mapped
 * private: only data files are found.
 */
static struct address_space *mapped_file(struct wl_world *w, uint64_t *rng, int worker)
{
	struct mm_struct *mm = world_get_proc(w, rng, worker);
	struct vm_area_struct *v;
	struct address_space *f = NULL;

	if (!mm)
		return NULL;
	down_read(&mm->mmap_sem);
	v = world_pick_vma(w, mm, rng, VM_SHARED, 0);
	if (v && v->vm_file) {
		f = v->vm_file;
		__iget(f);		/* the vma's reference keeps it alive here */
	}
	up_read(&mm->mmap_sem);
	mmput(mm);
	return f;
}

/*
 * Shared targets: the file a process maps, drawn as an access draws its
 * process and vma, and the new size as it draws its page, so that the
 * two meet; by name only when the process maps none.
 */
static struct address_space *truncate_target_shared(struct wl_world *w, uint64_t *rng,
						    unsigned long *size)
{
	struct address_space *f = mapped_file(w, rng, 0);

	if (!f)
		f = world_file(w, (int)rnd_below(rng, (unsigned long)w->p.nr_files));
	if (f)
		*size = rnd_below(rng, f->max_pages);
	return f;
}

/*
 * truncate, then extend back: half the time a file by name, half the
 * time one a process maps (so unlinked files still mapped are truncated
 * too, racing their death).
 */
static enum wl_result op_truncate(struct wl_world *w, uint64_t *rng, int worker)
{
	struct address_space *f;
	unsigned long size = 0;

	if (!w->p.nr_files)
		return WL_SKIPPED;
	if (w->shared_targets)
		f = truncate_target_shared(w, rng, &size);
	else if (rt_rand(rng) & 1)
		f = mapped_file(w, rng, worker);
	else
		f = world_file(w, (int)rnd_below(rng, (unsigned long)w->p.nr_files));
	if (!f)
		return WL_SKIPPED;
	if (!w->shared_targets)
		size = rnd_below(rng, f->max_pages);
	vmtruncate(f, size);
	file_extend(f, f->max_pages);
	iput(f);
	return WL_DONE;
}

/*
 * unlink + close of a data file, and a new file of the same size under
 * its name: the old one dies now if nothing maps it (its page cache
 * truncated under reclaim's feet), else with its last vma.
 */
static enum wl_result op_unlink(struct wl_world *w, uint64_t *rng)
{
	int slot;
	struct address_space *old, *f;
	char name[32];

	if (!w->p.nr_files)
		return WL_SKIPPED;
	slot = (int)rnd_below(rng, (unsigned long)w->p.nr_files);
	RT_PTHREAD(pthread_mutex_lock(&w->slot_lock));
	snprintf(name, sizeof(name), "data%d.%lu", slot, ++w->file_generation);
	RT_PTHREAD(pthread_mutex_unlock(&w->slot_lock));
	f = file_create(name, w->p.file_pages, w->p.file_pages);
	RT_PTHREAD(pthread_mutex_lock(&w->slot_lock));
	old = rcu_dereference_protected(w->files[slot], true);
	rcu_assign_pointer(w->files[slot], f);
	RT_PTHREAD(pthread_mutex_unlock(&w->slot_lock));
	file_destroy(old);	/* the name's reference */
	return WL_DONE;
}

static enum wl_result op_remap(const struct wl_world *w, struct mm_struct *mm, uint64_t *rng)
{
	struct vm_area_struct *v;
	unsigned long start, size, pgoff, max;

	down_read(&mm->mmap_sem);
	v = world_pick_vma(w, mm, rng, VM_SHARED, 0);
	if (!v || !v->vm_file) {
		up_read(&mm->mmap_sem);
		return WL_SKIPPED;
	}
	start = world_pick_page(v, rng);
	size = (1 + rnd_below(rng, (READ_ONCE(v->vm_end) - start) >> PAGE_SHIFT)) *
	       PAGE_SIZE;
	max = v->vm_file->max_pages;
	up_read(&mm->mmap_sem);
	if ((size >> PAGE_SHIFT) > max)
		size = max * PAGE_SIZE;
	pgoff = rnd_below(rng, max - (size >> PAGE_SHIFT) + 1);
	/* It takes mmap_sem itself; the vma may have changed: EINVAL then. */
	return remap_file_pages(mm, start, size, pgoff) == -ENOMEM ? WL_OOM : WL_DONE;
}

static enum wl_result op_stack(const struct wl_world *w, struct mm_struct *mm, uint64_t *rng)
{
	struct vm_area_struct *v;
	enum mm_access_result r;
	unsigned long addr;

	/* As op_access(): the store below its stack runs outside mmap_sem. */
	down_read(&mm->mmap_sem);
	v = world_pick_vma(w, mm, rng, VM_GROWSDOWN, 0);
	if (!v) {
		up_read(&mm->mmap_sem);
		return WL_SKIPPED;
	}
	addr = READ_ONCE(v->vm_start) - (1 + rnd_below(rng, 8)) * PAGE_SIZE;
	up_read(&mm->mmap_sem);
	r = mm_access(mm, addr, true, NULL);
	return access_result(r);
}

#define GUP_PAGES_MAX	4

/*
 * A direct I/O on @mm's memory (an O_DIRECT read(2) into it, or a
 * write(2) from it): get_user_pages() under mmap_sem for read, mmap_sem
 * dropped, the transfer through the pins, put_page(). A read into memory
 * pins for write and goes to anonymous memory; where the design's
 * try_to_unmap_one() has no pin test (2.6.3 and the seeds), only to
 * mlocked memory, as those kernels' users of raw I/O had to: a pinned
 * page reclaim unmapped there is lost to the user at its next COW, the
 * source's bug (docs/model.md "Locks by design").
 */
static enum wl_result op_gup(struct wl_world *w, struct mm_struct *mm, uint64_t *rng)
{
	struct vm_area_struct *vmas[GUP_PAGES_MAX], *v;
	struct page *pages[GUP_PAGES_MAX];
	struct gup_dma dma[GUP_PAGES_MAX];
	unsigned long start, left;
	enum wl_result r = WL_DONE;
	bool write = rt_rand(rng) & 1;
	int n;

	if (!user_busy_enter(&w->busy[dio_hash(mm)].dio, &w->busy[dio_hash(mm)].layout))
		return WL_SKIPPED;
	down_read(&mm->mmap_sem);
	v = world_pick_vma(w, mm, rng, write ? VM_WRITE | (gup_pin_keeps_mapping() ? 0 : VM_LOCKED) : 0,
		     write ? VM_SHARED : 0);
	if (!v || (write && v->vm_file)) {
		up_read(&mm->mmap_sem);
		user_busy_exit(&w->busy[dio_hash(mm)].dio);
		return WL_SKIPPED;
	}
	start = world_pick_page(v, rng);
	left = (READ_ONCE(v->vm_end) - start) >> PAGE_SHIFT;
	n = get_user_pages(mm, start, (int)(1 + rnd_below(rng, left < GUP_PAGES_MAX ?
								left : GUP_PAGES_MAX)),
			   write, pages, vmas);
	for (int i = 0; !write && i < n; i++)
		gup_dma_begin(mm, vmas[i], start + (unsigned long)i * PAGE_SIZE, pages[i], &dma[i]);
	up_read(&mm->mmap_sem);
	/*
	 * The transfer takes a while, and the program runs on: loads and
	 * stores on the pages around the buffer (one page holds more than
	 * the buffer), with no lock (a fault takes mmap_sem itself).
	 */
	for (unsigned long k = rnd_below(rng, GUP_PAGES_MAX * 2); n > 0 && k; k--) {
		if (mm_access(mm, start + rnd_below(rng, (unsigned long)n) * PAGE_SIZE,
			      rt_rand(rng) & 1, NULL) == ACCESS_CORRUPT)
			r = WL_CORRUPT;
	}
	if (n <= 0) {
		user_busy_exit(&w->busy[dio_hash(mm)].dio);
		return n == -ENOMEM ? WL_OOM : WL_SKIPPED;
	}
	for (int i = 0; i < n; i++) {
		unsigned long a = start + (unsigned long)i * PAGE_SIZE;

		if (write)
			gup_dma_write(mm, a, pages[i]);
		else if (gup_dma_check(mm, a, pages[i], &dma[i]) == ACCESS_CORRUPT)
			r = WL_CORRUPT;
		put_page(pages[i]);
	}
	user_busy_exit(&w->busy[dio_hash(mm)].dio);
	return r;
}

/*
 * swapoff(8) then swapon(8) of the area: every swapped-out page back in
 * and into every pte naming it, racing fork, exit, faults and reclaim
 * (core/swapfile.c). An administrator's command, so rare: one draw in
 * SWAPOFF_EVERY runs it (weight 1 is the smallest weight there is, and
 * while the area is off reclaim cannot swap). Another swapoff under way,
 * or no area: skipped; no memory to read a page into: WL_OOM (the area
 * is back on).
 */
#define SWAPOFF_EVERY	64

static enum wl_result op_swapoff(struct wl_world *w)
{
	int err;

	if (__atomic_fetch_add(&w->swapoff_calls, 1, __ATOMIC_RELAXED) % SWAPOFF_EVERY)
		return WL_SKIPPED;
	err = swapoff();
	if (err == -ENOMEM)
		return WL_OOM;
	if (err)
		return WL_SKIPPED;
	/* This swapoff took the area off: nobody else turns it on. */
	if (swapon())
		rt_die("swapon after swapoff");
	return WL_DONE;
}

enum wl_result wl_do_op(struct wl_world *w, enum wl_op op, uint64_t *rng, int worker)
{
	struct mm_struct *mm = NULL;
	enum wl_result r;

	switch (op) {
	case WL_EXIT:
		return op_exit(w, rng, worker);
	case WL_EXEC:
		return op_exec(w, rng, worker);
	case WL_TRUNCATE:
		return op_truncate(w, rng, worker);
	case WL_UNLINK:
		return op_unlink(w, rng);
	case WL_SWAPOFF:
		return op_swapoff(w);
	default:
		break;
	}
	mm = world_get_proc(w, rng, worker);
	if (!mm)
		return WL_SKIPPED;
	switch (op) {
	case WL_READ:
	case WL_WRITE:
		r = op_access(w, mm, rng, op == WL_WRITE);
		break;
	case WL_MMAP_ANON:
	case WL_MMAP_FILE:
	case WL_MMAP_SHARED:
		r = op_mmap(w, mm, rng, op);
		break;
	case WL_MUNMAP:
	case WL_MPROTECT:
	case WL_MLOCK:
		r = op_range(w, mm, rng, op);
		break;
	case WL_MREMAP:
		r = op_mremap(w, mm, rng);
		break;
	case WL_FORK:
		r = op_fork(w, mm, rng, worker);
		break;
	case WL_REMAP:
		r = op_remap(w, mm, rng);
		break;
	case WL_STACK:
		r = op_stack(w, mm, rng);
		break;
	case WL_GUP:
		r = op_gup(w, mm, rng);
		break;
	default:
		r = WL_SKIPPED;
		break;
	}
	mmput(mm);
	return r;
}
