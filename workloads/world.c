// SPDX-License-Identifier: MIT
/*
 * The world a scenario runs in: a table of live processes (each an mm,
 * published with RCU: a worker takes one with mmget_not_zero() under
 * rcu_read_lock(), so an exit racing the lookup is safe), shared library
 * files that exec maps, data files, and the operations of enum wl_op,
 * each a short sequence of the model's system calls on a random target.
 *
 * Data files live in RCU-published slots too: a worker finds one with
 * igrab() under rcu_read_lock() (the dcache's lock-free lookup), and
 * unlink replaces a slot's file with a new one and drops the old file's
 * name; the old file dies at once if nothing maps it, else with its last
 * vma (munmap, exit), while faults, truncates and reclaim run.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "die.h"
#include "fs.h"
#include "mm.h"
#include "page_alloc.h"
#include "pgtable.h"
#include "rcu.h"
#include "swap.h"
#include "vmscan.h"
#include "workload.h"

#define WL_DIO_HASH	64

struct wl_world {
	const struct rt_scenario *s;
	struct wl_params p;
	unsigned int weight_total;
	/* RCU-published; writers under slot_lock (a harness mutex). */
	struct mm_struct **procs;
	struct address_space **libs;		/* read-only after create */
	/* RCU-published; writers (unlink) under slot_lock. */
	struct address_space **files;
	bool shared_targets;			/* set before any worker runs */
	/* Written by fork, exit, exec and unlink: off the lines every op reads. */
	pthread_mutex_t slot_lock ____cacheline_aligned;
	int nr_procs;				/* slot_lock */
	unsigned long file_generation;		/* slot_lock */
	unsigned long swapoff_calls;		/* atomic: WL_SWAPOFF draws */
	/* Shared targets: the first fork's parent and child slots, or -1. */
	int family[2];				/* slot_lock; read RCU */
	/*
	 * The user's side of direct I/O (WL_GUP), per mm hashed by id: the
	 * transfers in flight and the layout changes (munmap, mprotect,
	 * mlock, mremap, fork) in flight, each backing off from the other
	 * (user_busy_enter()). Atomics, seq_cst. A line per hash: two CPUs
	 * working on two mms do not bump the same line.
	 */
	struct wl_user_busy {
		int dio, layout;
	} ____cacheline_aligned busy[WL_DIO_HASH];
};

static const char *const op_names[WL_NR_OPS] = {
	[WL_READ] = "read", [WL_WRITE] = "write", [WL_MMAP_ANON] = "mmap_anon",
	[WL_MMAP_FILE] = "mmap_file", [WL_MMAP_SHARED] = "mmap_shared",
	[WL_MUNMAP] = "munmap", [WL_MPROTECT] = "mprotect", [WL_MLOCK] = "mlock",
	[WL_MREMAP] = "mremap", [WL_FORK] = "fork", [WL_EXEC] = "exec",
	[WL_EXIT] = "exit", [WL_TRUNCATE] = "truncate", [WL_REMAP] = "remap_file_pages",
	[WL_STACK] = "expand_stack", [WL_UNLINK] = "unlink", [WL_GUP] = "gup",
	[WL_SWAPOFF] = "swapoff",
};

const char *wl_op_name(enum wl_op op)
{
	return (unsigned)op < WL_NR_OPS ? op_names[op] : "?";
}

int wl_op_by_name(const char *name)
{
	for (int k = 0; k < WL_NR_OPS; k++)
		if (op_names[k] && !strcmp(name, op_names[k]))
			return k;
	return -1;
}

unsigned long wl_min_pages(const struct wl_params *p)
{
	/* The zero page, the libraries' text, and a little per process. */
	return 32 + (unsigned long)p->nr_libs * p->lib_pages / 2 +
	       (unsigned long)p->procs_initial * 4;
}

static unsigned long rnd_below(uint64_t *rng, unsigned long n)
{
	return n ? (unsigned long)(rt_rand(rng) % n) : 0;
}

/*
 * The data file in @slot, with a reference (iput() it), or NULL when
 * the lookup met a file on its way out (its last reference gone after
 * an unlink replaced it: the caller skips).
 */
static struct address_space *world_file(struct wl_world *w, int slot)
{
	return file_lookup(&w->files[slot]);
}

/* exec: a fresh image, plus the scenario's shared mappings. */
static struct mm_struct *new_image(struct wl_world *w)
{
	struct mm_struct *mm = exec_mm(w->libs, w->p.nr_libs, w->p.heap_pages,
				       w->p.stack_pages);
	struct address_space *f;

	if (!mm || !w->p.nr_files)
		return mm;
	f = world_file(w, 0);
	if (!f)
		return mm;
	down_write(&mm->mmap_sem);
	if (w->p.shm_pages)
		do_mmap(mm, f, 0, w->p.shm_pages * PAGE_SIZE,
			VM_READ | VM_WRITE | VM_SHARED, 0);
	for (int i = 0; i < w->p.vmas_per_proc; i++) {
		/* One-page windows on the file, never adjacent: no merging. */
		unsigned long pgoff = (unsigned long)i % w->p.file_pages;

		do_mmap(mm, f, 0, PAGE_SIZE,
			VM_READ | ((i & 1) ? VM_SHARED | VM_WRITE : 0), pgoff);
	}
	up_write(&mm->mmap_sem);
	iput(f);
	return mm;
}

struct wl_world *wl_world_create(const struct rt_scenario *s,
				 const struct wl_params *params, uint64_t seed)
{
	struct wl_world *w = rt_aligned_alloc(SMP_CACHE_BYTES, sizeof(*w));
	char name[32];

	(void)seed;
	memset(w, 0, sizeof(*w));
	w->s = s;
	w->p = *params;
	for (int i = 0; i < WL_NR_OPS; i++)
		w->weight_total += s->weights[i];
	BUG_ON(!w->weight_total);
	RT_PTHREAD(pthread_mutex_init(&w->slot_lock, NULL));
	w->procs = rt_calloc((size_t)w->p.procs_max, sizeof(*w->procs));
	w->libs = rt_calloc((size_t)w->p.nr_libs + 1, sizeof(*w->libs));
	w->files = rt_calloc((size_t)w->p.nr_files + 1, sizeof(*w->files));
	for (int i = 0; i < w->p.nr_libs; i++) {
		snprintf(name, sizeof(name), "lib%d.so", i);
		w->libs[i] = file_create(name, w->p.lib_pages, w->p.lib_pages);
	}
	for (int i = 0; i < w->p.nr_files; i++) {
		snprintf(name, sizeof(name), "data%d", i);
		rcu_assign_pointer(w->files[i], file_create(name, w->p.file_pages, w->p.file_pages));
	}
	for (int i = 0; i < w->p.procs_initial; i++) {
		struct mm_struct *mm = new_image(w);

		if (!mm) {
			wl_world_destroy(w);
			return NULL;
		}
		rcu_assign_pointer(w->procs[i], mm);
		w->nr_procs++;
	}
	return w;
}

enum wl_op wl_pick_op(const struct wl_world *w, uint64_t *rng)
{
	unsigned long r = rnd_below(rng, w->weight_total);

	for (int i = 0; i < WL_NR_OPS; i++) {
		if (r < w->s->weights[i])
			return (enum wl_op)i;
		r -= w->s->weights[i];
	}
	return WL_READ;
}

/*
 * Shared targets: the slot to start from, by one draw that every worker
 * given the stream makes alike: half the time the first fork's parent
 * for every worker (threads of one process), a quarter of the time the
 * parent for worker 0 and its child for the others (two processes that
 * share pages by fork, whose layouts match, so one address names one
 * page in both), else any slot, the same for every worker.
 */
static int shared_proc_slot(struct wl_world *w, uint64_t *rng, int worker)
{
	unsigned int r = (unsigned int)(rt_rand(rng) & 3);
	int parent = __atomic_load_n(&w->family[0], __ATOMIC_RELAXED);
	int child = __atomic_load_n(&w->family[1], __ATOMIC_RELAXED);

	if (r == 3)
		return (int)rnd_below(rng, (unsigned long)w->p.procs_max);
	if (r == 2 && worker > 0 && child >= 0)
		return child;
	return parent >= 0 ? parent : 0;
}

/*
 * A live process, with a user reference: mostly the worker's own (the
 * threads of one process share its mm), sometimes any.
 */
static struct mm_struct *get_proc(struct wl_world *w, uint64_t *rng, int worker)
{
	int n = w->p.procs_max;
	int start;
	struct mm_struct *mm = NULL;

	if (w->shared_targets)
		start = shared_proc_slot(w, rng, worker);
	else
		start = (rt_rand(rng) & 3) ? worker % n : (int)rnd_below(rng, (unsigned long)n);

	rcu_read_lock();
	for (int i = 0; i < n && !mm; i++) {
		struct mm_struct *m = rcu_dereference(w->procs[(start + i) % n]);

		if (m && mmget_not_zero(m))
			mm = m;
	}
	rcu_read_unlock();
	return mm;
}

static bool vma_fits(const struct vm_area_struct *v, unsigned long need, unsigned long refuse)
{
	return (v->vm_flags & need) == need && !(v->vm_flags & refuse);
}

/*
 * Shared targets: one draw over all of @mm's vmas, then the first that
 * fits at or after it (wrapping), so that two operations with the same
 * stream but different needs mostly pick one vma, and their next draws
 * (the page) line up too.
 */
static struct vm_area_struct *pick_vma_shared(struct mm_struct *mm, uint64_t *rng,
					      unsigned long need, unsigned long refuse)
{
	struct vm_area_struct *v, *found = NULL;
	unsigned long n = 0, at;

	for (v = mm->mmap; v; v = v->vm_next)
		n++;
	at = rnd_below(rng, n);
	n = 0;
	for (v = mm->mmap; v; v = v->vm_next, n++) {
		if (!vma_fits(v, need, refuse))
			continue;
		if (n >= at)
			return v;
		if (!found)
			found = v;	/* the first that fits: the wrap */
	}
	return found;
}

/* A random vma (mmap_sem held), optionally one with all of @need flags. */
static struct vm_area_struct *pick_vma(const struct wl_world *w, struct mm_struct *mm,
				       uint64_t *rng, unsigned long need, unsigned long refuse)
{
	struct vm_area_struct *v, *found = NULL;
	unsigned long n = 0;

	if (w->shared_targets)
		return pick_vma_shared(mm, rng, need, refuse);
	/* Reservoir sampling over the matching vmas. */
	for (v = mm->mmap; v; v = v->vm_next) {
		if (!vma_fits(v, need, refuse))
			continue;
		if (!rnd_below(rng, ++n))
			found = v;
	}
	return found;
}

/*
 * A random page of @v. Under mmap_sem for read a stack vma's start can
 * move (expand_stack, as in 2.6), hence READ_ONCE.
 */
static unsigned long pick_page(struct vm_area_struct *v, uint64_t *rng)
{
	unsigned long start = READ_ONCE(v->vm_start), end = READ_ONCE(v->vm_end);

	return start + rnd_below(rng, (end - start) >> PAGE_SHIFT) * PAGE_SIZE;
}

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
	v = pick_vma(w, mm, rng, write ? VM_WRITE : 0, 0);
	if (!v) {
		up_read(&mm->mmap_sem);
		return WL_SKIPPED;
	}
	addr = pick_page(v, rng);
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

/* A random sub-range of a random vma: [*start, *start + *len). */
static struct vm_area_struct *pick_range(const struct wl_world *w, struct mm_struct *mm,
					 uint64_t *rng, unsigned long refuse,
					 unsigned long *start, unsigned long *len)
{
	struct vm_area_struct *v = pick_vma(w, mm, rng, 0, refuse);
	unsigned long pages, first, n;

	if (!v)
		return NULL;
	pages = (v->vm_end - v->vm_start) >> PAGE_SHIFT;
	first = rnd_below(rng, pages);
	n = 1 + rnd_below(rng, pages - first);
	*start = v->vm_start + first * PAGE_SIZE;
	*len = n * PAGE_SIZE;
	return v;
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
	v = pick_range(w, mm, rng, op == WL_MUNMAP ? VM_GROWSDOWN : 0, &start, &len);
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
	v = pick_range(w, mm, rng, VM_NONLINEAR | VM_GROWSDOWN, &start, &len);
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

/* Shared targets: @parent's slot and @child's are the family. Context: slot_lock. */
static void note_family(struct wl_world *w, struct mm_struct *parent, int child)
{
	for (int k = 0; k < w->p.procs_max; k++) {
		if (w->procs[k] == parent) {
			__atomic_store_n(&w->family[0], k, __ATOMIC_RELAXED);
			__atomic_store_n(&w->family[1], child, __ATOMIC_RELAXED);
		}
	}
}

/*
 * Put @mm into a free slot; false when the table is full. Shared targets:
 * the first child published with its @parent (may be NULL) is the family.
 */
static bool publish_proc(struct wl_world *w, struct mm_struct *mm, uint64_t *rng,
			 struct mm_struct *parent)
{
	int n = w->p.procs_max, start = (int)rnd_below(rng, (unsigned long)n);
	bool done = false;

	RT_PTHREAD(pthread_mutex_lock(&w->slot_lock));
	for (int i = 0; i < n && !done; i++) {
		int k = (start + i) % n;

		if (!w->procs[k]) {
			rcu_assign_pointer(w->procs[k], mm);
			__atomic_store_n(&w->nr_procs, w->nr_procs + 1, __ATOMIC_RELAXED);
			done = true;
			if (parent && w->shared_targets && w->family[1] < 0)
				note_family(w, parent, k);
		}
	}
	RT_PTHREAD(pthread_mutex_unlock(&w->slot_lock));
	return done;
}

static enum wl_result op_fork(struct wl_world *w, struct mm_struct *mm, uint64_t *rng)
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
	if (!publish_proc(w, child, rng, mm)) {
		mmput(child);		/* the table filled meanwhile: it exits */
		return WL_SKIPPED;
	}
	return WL_DONE;
}

/*
 * Take a process out of the table (exit or exec), at random (shared
 * targets: as get_proc() picks); NULL if none.
 */
static struct mm_struct *unpublish_proc(struct wl_world *w, uint64_t *rng, int keep,
					int worker)
{
	int n = w->p.procs_max;
	int start = w->shared_targets ? shared_proc_slot(w, rng, worker)
				      : (int)rnd_below(rng, (unsigned long)n);
	struct mm_struct *mm = NULL;

	RT_PTHREAD(pthread_mutex_lock(&w->slot_lock));
	if (w->nr_procs > keep) {
		for (int i = 0; i < n && !mm; i++) {
			int k = (start + i) % n;

			mm = w->procs[k];
			if (mm) {
				rcu_assign_pointer(w->procs[k], NULL);
				__atomic_store_n(&w->nr_procs, w->nr_procs - 1, __ATOMIC_RELAXED);
			}
		}
	}
	RT_PTHREAD(pthread_mutex_unlock(&w->slot_lock));
	return mm;
}

static enum wl_result op_exit(struct wl_world *w, uint64_t *rng, int worker)
{
	struct mm_struct *mm = unpublish_proc(w, rng, 1, worker);

	if (!mm)
		return WL_SKIPPED;
	mmput(mm);		/* the table's reference: exit_mmap when the last goes */
	return WL_DONE;
}

static enum wl_result op_exec(struct wl_world *w, uint64_t *rng, int worker)
{
	struct mm_struct *mm = new_image(w), *old;

	if (!mm)
		return WL_OOM;
	old = unpublish_proc(w, rng, 0, worker);
	if (!publish_proc(w, mm, rng, NULL))
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
	struct mm_struct *mm = get_proc(w, rng, worker);
	struct vm_area_struct *v;
	struct address_space *f = NULL;

	if (!mm)
		return NULL;
	down_read(&mm->mmap_sem);
	v = pick_vma(w, mm, rng, VM_SHARED, 0);
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
	v = pick_vma(w, mm, rng, VM_SHARED, 0);
	if (!v || !v->vm_file) {
		up_read(&mm->mmap_sem);
		return WL_SKIPPED;
	}
	start = pick_page(v, rng);
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
	v = pick_vma(w, mm, rng, VM_GROWSDOWN, 0);
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
	v = pick_vma(w, mm, rng, write ? VM_WRITE | (gup_pin_keeps_mapping() ? 0 : VM_LOCKED) : 0,
		     write ? VM_SHARED : 0);
	if (!v || (write && v->vm_file)) {
		up_read(&mm->mmap_sem);
		user_busy_exit(&w->busy[dio_hash(mm)].dio);
		return WL_SKIPPED;
	}
	start = pick_page(v, rng);
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
	mm = get_proc(w, rng, worker);
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
		r = op_fork(w, mm, rng);
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

void wl_world_share_targets(struct wl_world *w)
{
	w->shared_targets = true;
	w->family[0] = w->family[1] = -1;
}

int wl_world_nr_procs(const struct wl_world *w)
{
	return __atomic_load_n(&w->nr_procs, __ATOMIC_RELAXED);
}

unsigned long wl_world_audit(struct wl_world *w, unsigned long *mapped_pages)
{
	struct vm_audit_stats st;
	struct mm_struct **mms = rt_calloc((size_t)w->p.procs_max, sizeof(*mms));
	struct address_space **all;
	int n = 0, nf = 0;
	unsigned long v;

	for (int i = 0; i < w->p.procs_max; i++)
		if (w->procs[i])
			mms[n++] = w->procs[i];
	/* Every live file: the named ones, and unlinked ones still mapped. */
	all = file_list_snapshot(&nf);
	v = vm_audit(mms, n, all, nf, &st);
	if (mapped_pages)
		*mapped_pages = st.pages_mapped;
	free(mms);
	free(all);
	return v;
}

unsigned long wl_world_destroy(struct wl_world *w)
{
	for (int i = 0; i < w->p.procs_max; i++) {
		if (w->procs[i]) {
			mmput(w->procs[i]);
			w->procs[i] = NULL;
		}
	}
	for (int i = 0; i < w->p.nr_libs; i++) {
		vmtruncate(w->libs[i], 0);
		file_destroy(w->libs[i]);
	}
	for (int i = 0; i < w->p.nr_files; i++) {
		struct address_space *f = rcu_dereference_protected(w->files[i], true);

		vmtruncate(f, 0);
		file_destroy(f);
		rcu_assign_pointer(w->files[i], NULL);
	}
	/* Swap cache pages whose last user exited under a page-lock try. */
	for (int i = 0; i < 8 && nr_free_pages() != max_mapnr - 1; i++)
		shrink_zone(&contig_zone, max_mapnr);
	rcu_barrier();
	pthread_mutex_destroy(&w->slot_lock);
	free(w->procs);
	free(w->libs);
	free(w->files);
	free(w);
	return vm_teardown_check();
}
