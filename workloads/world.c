// SPDX-License-Identifier: MIT
/*
 * The world a scenario runs in: a table of live processes (each an mm,
 * published with RCU: a worker takes one with mmget_not_zero() under
 * rcu_read_lock(), so an exit racing the lookup is safe), shared library
 * files that exec maps, data files, and how an operation finds its
 * target in them (a process, a vma, a page, a range). The operations of
 * enum wl_op are in world_ops.c.
 *
 * Data files live in RCU-published slots too: a worker finds one with
 * igrab() under rcu_read_lock() (the dcache's lock-free lookup), and
 * unlink replaces a slot's file with a new one and drops the old file's
 * name; the old file dies at once if nothing maps it, else with its last
 * vma (munmap, exit), while faults, truncates and reclaim run.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "die.h"
#include "fs.h"
#include "mm.h"
#include "page_alloc.h"
#include "rcu.h"
#include "vmscan.h"
#include "workload.h"
#include "world-internal.h"

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

/* exec: a fresh image, plus the scenario's shared mappings. */
struct mm_struct *world_new_image(struct wl_world *w)
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

/*
 * The slot each worker calls its own. Consecutive (worker % n) unless
 * the scenario is cpu_affine; then the bit-reversal order scaled to the
 * table (0, n/2, n/4, 3n/4, ..., a slot met twice taken once), so any
 * first k workers sit about n/k apart and a worker whose processes all
 * exited, taking the next one along, meets another worker's only when
 * few are left; a permutation, so no two of the first n workers share a
 * home. Consecutive homes made workers 0 and 1 share one process
 * whenever slot 0 was empty.
 */
static void homes_init(struct wl_world *w)
{
	unsigned int n = (unsigned int)w->p.procs_max, bits = 0, k = 0;
	bool *taken;

	if (!w->p.cpu_affine) {
		for (k = 0; k < n; k++)
			w->home[k] = (int)k;
		return;
	}
	while ((1u << bits) < n)
		bits++;
	taken = rt_calloc(n, sizeof(*taken));
	for (unsigned int i = 0; i < 1u << bits; i++) {
		unsigned int r = 0, slot;

		for (unsigned int b = 0; b < bits; b++)
			r |= ((i >> b) & 1u) << (bits - 1 - b);
		slot = (unsigned int)(((unsigned long)r * n) >> bits);
		if (!taken[slot]) {
			taken[slot] = true;
			w->home[k++] = (int)slot;
		}
	}
	BUG_ON(k != n);		/* r * n / 2^bits reaches every slot */
	free(taken);
}

static int own_slot(const struct wl_world *w, int worker)
{
	return w->home[worker % w->p.procs_max];
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
	w->home = rt_calloc((size_t)w->p.procs_max, sizeof(*w->home));
	homes_init(w);
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
		struct mm_struct *mm = world_new_image(w);
		int k = own_slot(w, i);

		if (!mm) {
			wl_world_destroy(w);
			return NULL;
		}
		while (w->procs[k])
			k = (k + 1) % w->p.procs_max;
		rcu_assign_pointer(w->procs[k], mm);
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

/* Three times in four @worker's own slot, else any. */
static int pick_slot(const struct wl_world *w, uint64_t *rng, int worker)
{
	return (rt_rand(rng) & 3) ? own_slot(w, worker)
				  : (int)rnd_below(rng, (unsigned long)w->p.procs_max);
}

/*
 * A live process, with a user reference: mostly the worker's own (the
 * threads of one process share its mm), sometimes any.
 */
struct mm_struct *world_get_proc(struct wl_world *w, uint64_t *rng, int worker)
{
	int n = w->p.procs_max;
	int start;
	struct mm_struct *mm = NULL;

	if (w->shared_targets)
		start = shared_proc_slot(w, rng, worker);
	else
		start = pick_slot(w, rng, worker);

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
struct vm_area_struct *world_pick_vma(const struct wl_world *w, struct mm_struct *mm,
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
unsigned long world_pick_page(struct vm_area_struct *v, uint64_t *rng)
{
	unsigned long start = READ_ONCE(v->vm_start), end = READ_ONCE(v->vm_end);

	return start + rnd_below(rng, (end - start) >> PAGE_SHIFT) * PAGE_SIZE;
}

/* A random sub-range of a random vma: [*start, *start + *len). */
struct vm_area_struct *world_pick_range(const struct wl_world *w, struct mm_struct *mm,
					uint64_t *rng, unsigned long refuse,
					unsigned long *start, unsigned long *len)
{
	struct vm_area_struct *v = world_pick_vma(w, mm, rng, 0, refuse);
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
 * Put @mm into a free slot, the first at or after a random one (a
 * cpu_affine scenario: at or after @worker's own); false when the table
 * is full. Shared targets: the first child published with its @parent
 * (may be NULL) is the family.
 */
bool world_publish_proc(struct wl_world *w, struct mm_struct *mm, uint64_t *rng,
			struct mm_struct *parent, int worker)
{
	int n = w->p.procs_max;
	int start = w->p.cpu_affine && !w->shared_targets ? own_slot(w, worker)
							  : (int)rnd_below(rng, (unsigned long)n);
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

/*
 * Take a process out of the table (exit or exec), at random (a
 * cpu_affine scenario: as world_get_proc() picks; shared targets:
 * shared_proc_slot()); NULL if none.
 */
struct mm_struct *world_unpublish_proc(struct wl_world *w, uint64_t *rng, int keep,
				       int worker)
{
	int n = w->p.procs_max;
	int start;
	struct mm_struct *mm = NULL;

	if (w->shared_targets)
		start = shared_proc_slot(w, rng, worker);
	else if (w->p.cpu_affine)
		start = pick_slot(w, rng, worker);
	else
		start = (int)rnd_below(rng, (unsigned long)n);

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
	free(w->home);
	free(w->libs);
	free(w->files);
	free(w);
	return vm_teardown_check();
}
