// SPDX-License-Identifier: MIT
/*
 * mm and vma life cycle: mm_alloc/mmput, find_vma, vma_link, do_mmap with
 * vma_merge, do_munmap with split_vma, do_mprotect (and mlock), and
 * expand_stack. Mirrors mm/mmap.c and mm/mprotect.c of 2.6.3, with seed
 * 001's move_vma_start(): a file vma's vm_start and vm_pgoff change only
 * under its mapping's i_shared_sem, so objrmap's walks see them stable.
 *
 * Lock order used here (see core/lockdep.c):
 *   mmap_sem (write; expand_stack: read)
 *     i_shared_sem          vma_link, vma_adjust, split_vma
 *       page_table_lock     the vma list and bounds, for rmap's readers
 *         anon_vma->lock    bounds of a vma on an anon_vma (anonvma)
 *
 * Which page_table_lock and anon_vma sections a design has is the
 * design's (rmap_ops.vma_locks, vma_lock_taken()): 2.6.3 took
 * page_table_lock in vma_link, vma_merge and expand_stack for
 * try_to_unmap_one()'s find_vma(); seed 001 took it out of all three;
 * 2.6.8 (and the anon_vma RFC completed here) serialise expand_stack with
 * the anon_vma lock. split_vma takes page_table_lock in every design, as
 * 2.6.3 and seed 001 do. docs/model.md "Locks by design" has the table.
 */
#include "cover.h"
#include "inject.h"
#include "i_mmap.h"
#include "mm-internal.h"
#include "percpu.h"
#include "perturb.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "anon_vma.h"
#include "die.h"
#include "slab.h"
#include "tlbflush.h"

#define TASK_UNMAPPED_BASE	(1UL << 30)
#define STACK_GROW_MAX		(256UL * PAGE_SIZE)

/*
 * Does this design take @lock (VMA_LOCK_*) here? As its source did when
 * @bug, the seeded bug that restores the source, is injected.
 */
static bool vma_lock_taken(unsigned int lock, enum inject_bug bug)
{
	if (injected(bug))
		return rmap->vma_locks_source & lock;
	return rmap->vma_locks & lock;
}

static struct kmem_cache *vm_area_cachep;
static struct kmem_cache *mm_cachep;
static pthread_once_t caches_once = PTHREAD_ONCE_INIT;
/* Atomic; taken in per-task batches (percpu.h), so each line moves once a batch. */
static unsigned long next_mm_id;
static unsigned long next_vma_id;
#define MM_ID_BATCH	16
#define VMA_ID_BATCH	64
/* Live vmas and mms: per-task gauges, PCPU_NR_VMAS and PCPU_NR_MMS. */

static void caches_init(void)
{
	vm_area_cachep = kmem_cache_create("vm_area_struct",
					   sizeof(struct vm_area_struct), 0, NULL);
	mm_cachep = kmem_cache_create("mm_struct", sizeof(struct mm_struct),
				      SLAB_HWCACHE_ALIGN, NULL);
}

static void ensure_caches(void)
{
	RT_PTHREAD(pthread_once(&caches_once, caches_init));
}

unsigned long vm_area_count(void)
{
	return (unsigned long)rt_pcpu_sum(PCPU_NR_VMAS);
}

unsigned long mm_count_live(void)
{
	return (unsigned long)rt_pcpu_sum(PCPU_NR_MMS);
}

struct vm_area_struct *vm_area_alloc(struct mm_struct *mm)
{
	struct vm_area_struct *vma;

	ensure_caches();
	vma = kmem_cache_alloc(vm_area_cachep, GFP_KERNEL);
	if (!vma)
		return NULL;
	memset(vma, 0, sizeof(*vma));
	vma->vm_mm = mm;
	INIT_LIST_HEAD(&vma->shared);
	INIT_LIST_HEAD(&vma->anon_vma_node);
	vma->id = (int)rt_pcpu_id(PCPU_ID_VMA, &next_vma_id, VMA_ID_BATCH);
	rt_pcpu_inc(PCPU_NR_VMAS);
	return vma;
}

/*
 * Free a vma, and drop its file reference (remove_vm_struct()'s fput()):
 * the last reference to an unlinked file destroys it (iput()).
 * Context: may sleep; no spinlock held.
 */
void vm_area_free(struct vm_area_struct *vma)
{
	iput(vma->vm_file);
	rt_pcpu_dec(PCPU_NR_VMAS);
	kmem_cache_free(vm_area_cachep, vma);
}

spinlock_t mmlist_lock = __SPIN_LOCK_UNLOCKED(LOCK_CLASS_MMLIST_LOCK);

/* Statically initialised, so named here (lockdep_class_of(): TSan's reports). */
__attribute__((constructor)) static void mmlist_lock_note(void)
{
	lockdep_note_static_lock(&mmlist_lock, sizeof(mmlist_lock), LOCK_CLASS_MMLIST_LOCK);
}
LIST_HEAD(mmlist_head);

/**
 * __mm_alloc() - a new mm, not yet on the mmlist: empty page tables, no
 * vmas, one user
 * Context: may sleep.
 * Return: the mm, or NULL when out of memory.
 */
struct mm_struct *__mm_alloc(void)
{
	struct mm_struct *mm;

	ensure_caches();
	mm = kmem_cache_alloc(mm_cachep, GFP_KERNEL);
	if (!mm)
		return NULL;
	memset(mm, 0, sizeof(*mm));
	mm->pgd = pgd_alloc(mm);
	mm->shadow = pgd_alloc(NULL);
	init_rwsem(&mm->mmap_sem, LOCK_CLASS_MMAP_SEM);
	spin_lock_init(&mm->page_table_lock, LOCK_CLASS_PAGE_TABLE_LOCK);
	INIT_LIST_HEAD(&mm->mmlist);
	__atomic_store_n(&mm->mm_users, 1, __ATOMIC_RELAXED);
	mm->id = (int)rt_pcpu_id(PCPU_ID_MM, &next_mm_id, MM_ID_BATCH) + 1;
	rt_pcpu_inc(PCPU_NR_MMS);
	return mm;
}

/**
 * mm_alloc() - a new mm: empty page tables, no vmas, one user; at the
 * head of the mmlist, as 2.6.9's exec_mmap() puts a new program's mm
 * Context: may sleep; takes mmlist_lock.
 * Return: the mm, or NULL when out of memory.
 */
struct mm_struct *mm_alloc(void)
{
	struct mm_struct *mm = __mm_alloc();

	if (!mm)
		return NULL;
	spin_lock(&mmlist_lock);
	list_add(&mm->mmlist, &mmlist_head);
	spin_unlock(&mmlist_lock);
	return mm;
}

bool mmget_not_zero(struct mm_struct *mm)
{
	int users = __atomic_load_n(&mm->mm_users, __ATOMIC_RELAXED);

	line_write(&mm->mm_users, LINE_COUNT);
	do {
		if (users == 0)
			return false;
		/* Acquire pairs with the release of the last mmput(). */
	} while (!__atomic_compare_exchange_n(&mm->mm_users, &users, users + 1, true,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	return true;
}

static void mm_free_rcu(struct rcu_head *head)
{
	struct mm_struct *mm = container_of(head, struct mm_struct, rcu);

	kmem_cache_free(mm_cachep, mm);
}

/*
 * 2.6's atomic_dec_and_lock(&mm->mm_users, &mmlist_lock): drop one user;
 * for the last one, return true with mmlist_lock held and the drop to 0
 * made under it. Release (fast path) and acq_rel (the last drop) pair
 * with the acquire in mmget_not_zero() and with the last drop's acquire.
 */
bool mmput_unless_last(struct mm_struct *mm)
{
	int users = __atomic_load_n(&mm->mm_users, __ATOMIC_RELAXED);

	line_write(&mm->mm_users, LINE_COUNT);
	while (users > 1)
		if (__atomic_compare_exchange_n(&mm->mm_users, &users, users - 1, true,
						__ATOMIC_RELEASE, __ATOMIC_RELAXED))
			return true;
	return false;
}

static bool mm_users_dec_and_lock(struct mm_struct *mm)
{
	int old;

	if (mmput_unless_last(mm))
		return false;
	if (injected(INJECT_MMPUT_DEC_UNLOCKED)) {
		/*
		 * Seeded bug: the last user goes before mmlist_lock is
		 * taken (atomic_dec_and_test(), then spin_lock()). Until
		 * the list_del, swapoff can find the mm on the mmlist with
		 * no user, take a "reference" under mmlist_lock and unuse
		 * its ptes while exit_mmap() tears them down, then run
		 * exit_mmap() a second time with its mmput().
		 */
		line_write(&mm->mm_users, LINE_COUNT);
		old = __atomic_fetch_sub(&mm->mm_users, 1, __ATOMIC_ACQ_REL);
		BUG_ON(old <= 0);
		if (old != 1)
			return false;
		yield_point_on("mmput:last_user_unlocked", mm, COVER_MM);
		spin_lock(&mmlist_lock);
		return true;
	}
	spin_lock(&mmlist_lock);
	line_write(&mm->mm_users, LINE_COUNT);
	old = __atomic_fetch_sub(&mm->mm_users, 1, __ATOMIC_ACQ_REL);
	BUG_ON(old <= 0);
	if (old == 1)
		return true;
	spin_unlock(&mmlist_lock);
	return false;
}

/*
 * Mirrors kernel/fork.c:mmput() of 2.6.9: the last user takes the mm off
 * the mmlist in the same hold of mmlist_lock as its drop to 0, then
 * tears it down (exit_mmap()).
 */
void mmput(struct mm_struct *mm)
{
	might_sleep("mmput");
	if (!mm_users_dec_and_lock(mm))
		return;
	list_del_init(&mm->mmlist);
	spin_unlock(&mmlist_lock);
	exit_mmap(mm);
	pgd_free(mm->pgd);
	pgd_free(mm->shadow);
	mm->pgd = mm->shadow = NULL;
	rt_pcpu_dec(PCPU_NR_MMS);
	/* Lookups under rcu_read_lock() may still look at mm_users. */
	call_rcu(&mm->rcu, mm_free_rcu);
}

struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma;

	for (vma = mm->mmap; vma; vma = vma->vm_next)
		if (READ_ONCE(vma->vm_end) > addr)
			return vma;
	return NULL;
}

struct vm_area_struct *find_vma_prev(struct mm_struct *mm, unsigned long addr,
				     struct vm_area_struct **pprev)
{
	struct vm_area_struct *vma, *prev = NULL;

	for (vma = mm->mmap; vma; prev = vma, vma = vma->vm_next)
		if (READ_ONCE(vma->vm_end) > addr)
			break;
	*pprev = prev;
	return vma;
}

struct list_head *vma_file_list(struct vm_area_struct *vma)
{
	struct address_space *mapping = vma->vm_file;

	if (vma->vm_flags & VM_NONLINEAR)
		return &mapping->i_mmap_nonlinear;
	if (vma->vm_flags & VM_SHARED)
		return &mapping->i_mmap_shared;
	return &mapping->i_mmap;
}

/*
 * Context: mmap_sem held for write; page_table_lock held in the designs
 * whose reclaim walks the list (VMA_LOCK_LINK_PTL), and by split_vma.
 */
static void __vma_link_list(struct mm_struct *mm, struct vm_area_struct *vma,
			    struct vm_area_struct *prev)
{
	if (prev) {
		vma->vm_next = prev->vm_next;
		prev->vm_next = vma;
	} else {
		vma->vm_next = mm->mmap;
		mm->mmap = vma;
	}
	mm->map_count++;
}

/**
 * vma_link() - add @vma after @prev to its mm and to its file's vma list
 *
 * Mirrors mm/mmap.c:vma_link() of 2.6.3 (i_shared_sem, page_table_lock)
 * and of seed 001 (i_shared_sem only). page_table_lock is taken where
 * reclaim looks vmas up with find_vma() under it (ptechain; objfile's
 * anonymous pages, where seed 001's unlocked list insertion races it:
 * the seeded bug vma-link-unlocked).
 *
 * Context: mmap_sem held for write; takes i_shared_sem, and
 * page_table_lock with VMA_LOCK_LINK_PTL.
 */
void vma_link(struct mm_struct *mm, struct vm_area_struct *vma,
	      struct vm_area_struct *prev)
{
	struct address_space *mapping = vma->vm_file;
	bool ptl = vma_lock_taken(VMA_LOCK_LINK_PTL, INJECT_VMA_LINK_UNLOCKED);

	if (mapping) {
		i_mmap_lock_file(mapping);
		__vma_link_file(vma);
	}
	if (ptl)
		spin_lock(&mm->page_table_lock);
	__vma_link_list(mm, vma, prev);
	if (ptl)
		spin_unlock(&mm->page_table_lock);
	if (mapping)
		i_mmap_unlock_file(mapping);
}

/* Take @vma off its mm's list (file list: remove_vm_struct()). */
void vma_unlink(struct mm_struct *mm, struct vm_area_struct *vma,
		struct vm_area_struct *prev)
{
	spin_lock(&mm->page_table_lock);
	if (prev)
		prev->vm_next = vma->vm_next;
	else
		mm->mmap = vma->vm_next;
	vma->vm_next = NULL;
	mm->map_count--;
	spin_unlock(&mm->page_table_lock);
}

/**
 * remove_vm_struct() - free a vma that is off its mm's list and has no
 * ptes left: off its file's list, out of its anon_vma
 * Context: mmap_sem held for write (or exit); takes i_shared_sem.
 */
void remove_vm_struct(struct vm_area_struct *vma)
{
	struct address_space *mapping = vma->vm_file;

	if (mapping) {
		i_mmap_lock_file(mapping);
		__vma_unlink_file(vma);
		i_mmap_unlock_file(mapping);
	}
	if (rmap->anon_vma_unlink)
		rmap->anon_vma_unlink(vma);
	vm_area_free(vma);
}

/**
 * vma_adjust() - set the bounds and pgoff of @vma
 *
 * Mirrors the bounds change of mm/mmap.c:vma_merge() of 2.6.3
 * (i_shared_sem, page_table_lock) and of seed 001 (i_shared_sem only);
 * anonvma also holds the anon_vma lock, whose walkers read the bounds of
 * every vma on the list (its deviation (3), as 2.6.8's vma_adjust()).
 * The model's callers only grow vm_end (vma_merge after @vma, mremap in
 * place), over a range no page is mapped in yet.
 *
 * Context: mmap_sem held for write; takes i_shared_sem (file vmas),
 * page_table_lock with VMA_LOCK_ADJUST_PTL, the anon_vma lock (anonvma).
 */
void vma_adjust(struct vm_area_struct *vma, unsigned long start,
		unsigned long end, unsigned long pgoff)
{
	struct address_space *mapping = vma->vm_file;
	struct mm_struct *mm = vma->vm_mm;
	bool ptl = rmap->vma_locks & VMA_LOCK_ADJUST_PTL;
	struct anon_vma *anon_vma;

	/* What makes it safe without page_table_lock: only vm_end grows. */
	BUG_ON(start != vma->vm_start || pgoff != vma->vm_pgoff || end < vma->vm_end);
	if (mapping)
		i_mmap_lock_file(mapping);
	if (ptl)
		spin_lock(&mm->page_table_lock);
	/* anonvma: walkers under the anon_vma lock read these bounds too. */
	anon_vma = vma_lock_anon_vma(vma);
	vma_file_bounds_begin(vma);
	WRITE_ONCE(vma->vm_start, start);
	WRITE_ONCE(vma->vm_end, end);
	WRITE_ONCE(vma->vm_pgoff, pgoff);
	vma_file_bounds_end(vma);
	vma_unlock_anon_vma(anon_vma);
	if (ptl)
		spin_unlock(&mm->page_table_lock);
	if (mapping)
		i_mmap_unlock_file(mapping);
}

/**
 * move_vma_start() - move the start of @vma to @addr, keeping its pages'
 * offsets, and put it back at the tail of its file's vma list
 *
 * Mirrors seed 001's move_vma_start(), which split_vma() calls for the
 * upper half and vma_merge() for a merge in front (not modelled: the
 * model merges only after a vma). The seed moved vm_start and vm_pgoff
 * under i_shared_sem so that page_referenced_obj()/try_to_unmap_obj()
 * never see them half-changed; 2.6.3's split_vma() wrote the same two
 * fields inline under the same locks.
 *
 * Context: mmap_sem held for write; the caller holds the file's
 * i_shared_sem (file vmas), page_table_lock (split_vma) and the anon_vma
 * lock (anonvma: vma_lock_anon_vma()).
 */
void move_vma_start(struct vm_area_struct *vma, unsigned long addr)
{
	struct address_space *mapping = vma->vm_file;

	if (mapping)
		__vma_unlink_file(vma);
	WRITE_ONCE(vma->vm_pgoff, vma->vm_pgoff + ((long)(addr - vma->vm_start) >> PAGE_SHIFT));
	WRITE_ONCE(vma->vm_start, addr);
	if (mapping)
		__vma_link_file(vma);
}

/**
 * split_vma() - split @vma at @addr into two vmas
 * @new_below: the new vma takes [vm_start, addr) (else [addr, vm_end))
 *
 * The bounds change and the new vma's linking happen in one critical
 * section under i_shared_sem and page_table_lock: rmap walkers never see
 * a page covered by none or by both.
 *
 * Context: mmap_sem held for write. Mirrors mm/mmap.c:split_vma().
 * Return: 0, or -ENOMEM.
 */
int split_vma(struct mm_struct *mm, struct vm_area_struct *vma,
	      unsigned long addr, int new_below)
{
	struct address_space *mapping = vma->vm_file;
	struct vm_area_struct *new, *prev;
	struct anon_vma *anon_vma = NULL;
	unsigned long delta;
	int err;

	BUG_ON(addr <= vma->vm_start || addr >= vma->vm_end || (addr & ~PAGE_MASK));
	/*
	 * anonvma (seed 002, completed): no PG_direct page may keep naming
	 * @vma for a range the new vma takes over; both share an anon_vma.
	 */
	if (rmap->anon_vma_prepare_split) {
		err = rmap->anon_vma_prepare_split(vma);
		if (err)
			return err;
	}
	new = vm_area_alloc(mm);
	if (!new)
		return -ENOMEM;
	new->vm_flags = vma->vm_flags;
	new->vm_file = vma->vm_file;
	if (new->vm_file)
		__iget(new->vm_file);	/* get_file() */
	new->anon_vma = vma->anon_vma;
	delta = (addr - vma->vm_start) >> PAGE_SHIFT;
	if (new_below) {
		new->vm_start = vma->vm_start;
		new->vm_end = addr;
		new->vm_pgoff = vma->vm_pgoff;
		find_vma_prev(mm, vma->vm_start, &prev);
	} else {
		new->vm_start = addr;
		new->vm_end = vma->vm_end;
		new->vm_pgoff = vma->vm_pgoff + delta;
		prev = vma;
	}
	/*
	 * anonvma: on the anon_vma before @vma shrinks, so a walker under
	 * the anon_vma lock never sees the range covered by neither.
	 */
	if (new->anon_vma && rmap->anon_vma_link)
		rmap->anon_vma_link(new);

	if (new_below && injected(INJECT_VMA_START_UNLOCKED)) {
		/*
		 * Seeded bug: 2.6.3's split_vma(), before seed 001's
		 * move_vma_start(): vm_start and vm_pgoff move under
		 * mmap_sem alone, so objrmap's walkers under i_shared_sem
		 * (truncate's unmap_mapping_range(), reclaim) can see the
		 * start moved and the offset not, or the range below
		 * covered by no vma on the file's list yet, and zap or look
		 * for the wrong addresses.
		 */
		vma->vm_start = addr;
		vma->vm_pgoff = vma->vm_pgoff + delta;
	}
	if (mapping)
		i_mmap_lock_file(mapping);
	/* mainline9: 2.6.9 nests anon_vma->lock outside page_table_lock. */
	if (rmap->anon_vma_outside_ptl)
		anon_vma = vma_lock_anon_vma(vma);
	spin_lock(&mm->page_table_lock);
	if (!rmap->anon_vma_outside_ptl)
		anon_vma = vma_lock_anon_vma(vma);	/* anonvma: bounds under its lock */
	if (new_below && injected(INJECT_VMA_START_UNLOCKED)) {
		/* Seeded bug: moved above, unlocked. */
		vma_file_bounds_begin(vma);
		vma_file_bounds_end(vma);
	} else if (new_below) {
		move_vma_start(vma, addr);
	} else {
		vma_file_bounds_begin(vma);
		WRITE_ONCE(vma->vm_end, addr);
		vma_file_bounds_end(vma);
	}
	if (!rmap->anon_vma_outside_ptl)
		vma_unlock_anon_vma(anon_vma);
	__vma_link_list(mm, new, prev);
	spin_unlock(&mm->page_table_lock);
	if (rmap->anon_vma_outside_ptl)
		vma_unlock_anon_vma(anon_vma);
	if (mapping) {
		/* Next to the original, as fork does. */
		__vma_link_file_after(new, vma);
		i_mmap_unlock_file(mapping);
	}
	yield_point_on("split_vma:linked", mm, COVER_MM);
	return 0;
}

unsigned long get_unmapped_area(struct mm_struct *mm, unsigned long len)
{
	unsigned long addr = TASK_UNMAPPED_BASE;
	struct vm_area_struct *vma;

	for (vma = find_vma(mm, addr); ; vma = vma->vm_next) {
		if (TASK_SIZE - len < addr)
			return 0;
		/* Leave a guard page so unrelated mappings never merge. */
		if (!vma || addr + len + PAGE_SIZE <= vma->vm_start)
			return addr;
		if (vma->vm_end + PAGE_SIZE > addr)
			addr = vma->vm_end + PAGE_SIZE;
	}
}

static bool can_merge_after(struct vm_area_struct *prev, struct address_space *file,
			    unsigned long flags, unsigned long addr, unsigned long pgoff)
{
	if (!prev || prev->vm_end != addr || prev->vm_flags != flags ||
	    prev->vm_file != file || (flags & (VM_GROWSDOWN | VM_NONLINEAR)))
		return false;
	/* The pages of both must keep their offsets (anonymous: their index). */
	if (prev->vm_pgoff + vma_pages(prev) != pgoff)
		return false;
	/* anonvma: a vma with an anon_vma merges only with a fresh one. */
	return prev->anon_vma == NULL;
}

long do_mmap(struct mm_struct *mm, struct address_space *file, unsigned long addr,
	     unsigned long len, unsigned long flags, unsigned long pgoff)
{
	struct vm_area_struct *vma, *prev;
	unsigned long vm_pgoff;
	int err;

	if (!len || len > TASK_SIZE)
		return -EINVAL;
	len = (len + PAGE_SIZE - 1) & PAGE_MASK;
	if (flags & ~(VM_READ | VM_WRITE | VM_EXEC | VM_SHARED | VM_GROWSDOWN | VM_LOCKED))
		return -EINVAL;
	if ((flags & VM_SHARED) && !file)
		return -EINVAL;		/* shared anonymous memory is shmem: not modelled */
	if (file && pgoff + (len >> PAGE_SHIFT) > file->max_pages)
		return -EINVAL;
	if (addr) {
		if ((addr & ~PAGE_MASK) || addr >= TASK_SIZE || len > TASK_SIZE - addr)
			return -EINVAL;
		err = do_munmap(mm, addr, len);
		if (err)
			return err;
	} else {
		addr = get_unmapped_area(mm, len);
		if (!addr)
			return -ENOMEM;
	}
	vm_pgoff = file ? pgoff : addr >> PAGE_SHIFT;

	vma = find_vma_prev(mm, addr, &prev);
	if (can_merge_after(prev, file, flags, addr, vm_pgoff)) {
		/* vma_merge(): grow the previous vma over the new range. */
		vma_adjust(prev, prev->vm_start, addr + len, prev->vm_pgoff);
		return (long)addr;
	}
	vma = vm_area_alloc(mm);
	if (!vma)
		return -ENOMEM;
	vma->vm_start = addr;
	vma->vm_end = addr + len;
	vma->vm_flags = flags;
	vma->vm_pgoff = vm_pgoff;
	vma->vm_file = file;
	if (file)
		__iget(file);		/* get_file() */
	vma_link(mm, vma, prev);
	return (long)addr;
}

/*
 * free_pgtables() of 2.6.8 and 2.6.9 (mm/mmap.c; 2.6.3's not checked here,
 * the issue says it has the same): free the pte tables of
 * [@start, @end), just unmapped, that no vma still needs: the tables
 * wholly inside the range, and the ones at its ends that @prev (the vma
 * below the range, or NULL) and the vma above it do not reach into. The
 * source works in pgd entries; on i386 without PAE, as here, one entry is
 * one pte table of PGDIR_SIZE (4 MiB), so its rule applies unchanged. The
 * indices are computed without pgd_index()'s wrap, since @end may be
 * TASK_SIZE.
 * Context: mmap_sem held for write; page_table_lock held.
 */
static void free_pgtables(struct mm_struct *mm, struct vm_area_struct *prev,
			  unsigned long start, unsigned long end)
{
	struct vm_area_struct *next = prev ? prev->vm_next : mm->mmap;
	unsigned long first = start >> PGDIR_SHIFT;
	unsigned long last = (end + PGDIR_SIZE - 1) >> PGDIR_SHIFT;	/* exclusive */

	/* "the range is not in use by any vma": not the table prev ends in ... */
	if (prev && prev->vm_end > first << PGDIR_SHIFT)
		first = (prev->vm_end + PGDIR_SIZE - 1) >> PGDIR_SHIFT;
	/* ... nor the one the next vma starts in. */
	if (next && next->vm_start < last << PGDIR_SHIFT)
		last = next->vm_start >> PGDIR_SHIFT;
	if (last > first)
		clear_page_tables(mm, first, last - first);
}

int do_munmap(struct mm_struct *mm, unsigned long start, unsigned long len)
{
	struct vm_area_struct *vma, *prev, *last, *next, *detached = NULL, **tail = &detached;
	unsigned long end;
	int err;

	if ((start & ~PAGE_MASK) || !len || start >= TASK_SIZE || len > TASK_SIZE - start)
		return -EINVAL;
	end = start + ((len + PAGE_SIZE - 1) & PAGE_MASK);
	vma = find_vma_prev(mm, start, &prev);
	if (!vma || vma->vm_start >= end)
		return 0;
	if (start > vma->vm_start) {
		err = split_vma(mm, vma, start, 0);
		if (err)
			return err;
		prev = vma;
	}
	last = find_vma(mm, end);
	if (last && end > last->vm_start) {
		err = split_vma(mm, last, end, 1);
		if (err)
			return err;
	}

	/* detach_vmas_to_be_unmapped() */
	vma = prev ? prev->vm_next : mm->mmap;
	spin_lock(&mm->page_table_lock);
	while (vma && vma->vm_start < end) {
		next = vma->vm_next;
		*tail = vma;
		tail = &vma->vm_next;
		mm->map_count--;
		vma = next;
	}
	*tail = NULL;
	if (prev)
		prev->vm_next = vma;
	else
		mm->mmap = vma;
	spin_unlock(&mm->page_table_lock);

	/* unmap_region(), then unmap_vma_list() */
	for (vma = detached; vma; vma = vma->vm_next)
		zap_page_range(vma, vma->vm_start, vma->vm_end - vma->vm_start);
	spin_lock(&mm->page_table_lock);
	free_pgtables(mm, prev, start, end);
	spin_unlock(&mm->page_table_lock);
	for (vma = detached; vma; vma = next) {
		next = vma->vm_next;
		remove_vm_struct(vma);
	}
	return 0;
}

/* Write-protect the present ptes of [start, end) (change_protection). */
static void change_protection(struct vm_area_struct *vma, unsigned long start,
			      unsigned long end)
{
	struct mm_struct *mm = vma->vm_mm;

	spin_lock(&mm->page_table_lock);
	for (unsigned long a = start; a < end; a += PAGE_SIZE) {
		pte_t *ptep = pte_offset(mm->pgd, a);

		if (ptep && pte_present(ptep_get(ptep)))
			ptep_set_wrprotect(ptep);
	}
	/* As 2.6.3's change_protection(): flushed under page_table_lock. */
	flush_tlb_range(vma, start, end);
	spin_unlock(&mm->page_table_lock);
}

/* make_pages_present(): fault in every page of a newly mlocked range. */
static int make_pages_present(struct mm_struct *mm, struct vm_area_struct *vma,
			      unsigned long start, unsigned long end)
{
	bool write = vma->vm_flags & VM_WRITE;

	for (unsigned long a = start; a < end; a += PAGE_SIZE) {
		pte_t *ptep = pte_offset(mm->pgd, a);
		pte_t pte = ptep ? ptep_get(ptep) : 0;
		int ret;

		if (pte_present(pte) && (!write || pte_write(pte)))
			continue;
		ret = handle_mm_fault(mm, vma, a, write);
		if (ret == VM_FAULT_OOM)
			return -ENOMEM;
		if (ret == VM_FAULT_SIGBUS)
			return 0;	/* beyond the file's end: nothing to lock */
	}
	return 0;
}

/**
 * mprotect_merge_prev() - 2.6.8's vma_merge() for mprotect of the head of
 * @vma: [vm_start, @end) takes @newflags, which @prev already has, so the
 * boundary moves and @prev grows over it (vma_adjust() with adjust_next)
 * @prev: the vma just below @vma
 * @vma: the vma whose head changes
 * @end: the new boundary, inside @vma
 * @newflags: the flags of [vm_start, @end)
 *
 * Mainline designs only (the others never merged at mprotect in their
 * sources). The pages of the moved range keep their offsets (the pgoffs
 * continue), and @prev becomes the vma that maps them: if they are
 * anonymous, @prev must be on their anon_vma, so @prev imports @vma's
 * anon_vma when it has none (2.6.8's "importer"; the seeded bug
 * vma-adjust-no-importer leaves it out, as before 2.6.7's fix).
 *
 * Context: mmap_sem held for write; takes the file's i_mmap_lock, then the
 * anon_vma lock (2.6.8's vma_adjust()).
 * Return: true when merged.
 */
static bool mprotect_merge_prev(struct vm_area_struct *prev, struct vm_area_struct *vma,
				unsigned long end, unsigned long newflags)
{
	struct address_space *mapping = vma->vm_file;
	struct anon_vma *anon_vma;
	unsigned long moved;

	if (!rmap->anon_vma_at_fault || !prev || prev->vm_end != vma->vm_start ||
	    end >= vma->vm_end || prev->vm_flags != newflags || prev->vm_file != mapping ||
	    ((prev->vm_flags | vma->vm_flags) & (VM_GROWSDOWN | VM_NONLINEAR)) ||
	    prev->vm_pgoff + vma_pages(prev) != vma->vm_pgoff ||
	    (prev->anon_vma && vma->anon_vma && prev->anon_vma != vma->anon_vma))
		return false;
	moved = (end - vma->vm_start) >> PAGE_SHIFT;
	anon_vma = vma->anon_vma ? vma->anon_vma : prev->anon_vma;
	if (mapping)
		i_mmap_lock_file(mapping);
	if (anon_vma)
		spin_lock(&anon_vma->lock);
	if (vma->anon_vma && !prev->anon_vma && !injected(INJECT_VMA_ADJUST_NO_IMPORTER)) {
		/* The importer: @prev takes pages of @vma's anon_vma. */
		WRITE_ONCE(prev->anon_vma, anon_vma);
		list_add(&prev->anon_vma_node, &anon_vma->head);
		rmap_account_vma_extra((long)ANON_VMA_VMA_EXTRA_BYTES);
	}
	vma_file_bounds_begin(prev);
	vma_file_bounds_begin(vma);
	WRITE_ONCE(prev->vm_end, end);
	WRITE_ONCE(vma->vm_pgoff, vma->vm_pgoff + moved);
	WRITE_ONCE(vma->vm_start, end);
	vma_file_bounds_end(vma);
	vma_file_bounds_end(prev);
	if (anon_vma)
		spin_unlock(&anon_vma->lock);
	if (mapping)
		i_mmap_unlock_file(mapping);
	return true;
}

int do_mprotect(struct mm_struct *mm, unsigned long start, unsigned long len,
		unsigned long set, unsigned long clear)
{
	struct vm_area_struct *vma, *prev, *v;
	unsigned long end, covered;
	int err;

	if ((start & ~PAGE_MASK) || !len || start >= TASK_SIZE || len > TASK_SIZE - start)
		return -EINVAL;
	if ((set | clear) & ~(VM_WRITE | VM_LOCKED))
		return -EINVAL;
	end = start + ((len + PAGE_SIZE - 1) & PAGE_MASK);
	vma = find_vma_prev(mm, start, &prev);
	if (!vma || vma->vm_start > start)
		return -ENOMEM;
	/* The whole range must be mapped. */
	for (v = vma, covered = start; v && v->vm_start <= covered && covered < end;
	     v = v->vm_next)
		covered = v->vm_end;
	if (covered < end)
		return -ENOMEM;

	/* Mainline designs: the head of a vma may merge into the vma below it. */
	if (vma->vm_start == start && end < vma->vm_end &&
	    mprotect_merge_prev(prev, vma, end, (vma->vm_flags | set) & ~clear)) {
		if (clear & VM_WRITE)
			change_protection(prev, start, end);
		if (set & VM_LOCKED)
			return make_pages_present(mm, prev, start, end);
		return 0;
	}

	if (vma->vm_start < start) {
		err = split_vma(mm, vma, start, 0);
		if (err)
			return err;
		vma = vma->vm_next;
	}
	for (; vma && vma->vm_start < end; vma = vma->vm_next) {
		unsigned long newflags;

		if (vma->vm_end > end) {
			err = split_vma(mm, vma, end, 0);
			if (err)
				return err;
		}
		newflags = (vma->vm_flags | set) & ~clear;
		/*
		 * anonvma: a private file vma that stops being writable may
		 * hold COW pages still; fork links only vmas that may hold
		 * anonymous pages, which an anon_vma marks from here on.
		 */
		if (vma->vm_file && !(vma->vm_flags & VM_SHARED) &&
		    (vma->vm_flags & VM_WRITE) && !(newflags & VM_WRITE) &&
		    rmap->anon_vma_prepare && !rmap->anon_vma_at_fault) {
			err = rmap->anon_vma_prepare(vma);
			if (err)
				return err;
		}
		spin_lock(&mm->page_table_lock);
		WRITE_ONCE(vma->vm_flags, newflags);
		spin_unlock(&mm->page_table_lock);
		if (clear & VM_WRITE)
			change_protection(vma, vma->vm_start, vma->vm_end);
		if (set & VM_LOCKED) {
			err = make_pages_present(mm, vma, vma->vm_start, vma->vm_end);
			if (err)
				return err;
		}
	}
	return 0;
}

/**
 * expand_stack() - grow a VM_GROWSDOWN vma down to @address
 * @vma: the stack vma
 * @address: an address below vm_start, within the guard gap
 *
 * Mirrors mm/mmap.c:expand_stack() of 2.6.3 (under page_table_lock),
 * seed 001 (no lock) and 2.6.8 (anon_vma_prepare(), then the anon_vma
 * lock), as the design's rmap_ops.vma_locks say. It runs under mmap_sem
 * for *read*, so two faults below the stack may grow it at once, and a
 * fault elsewhere in the vma computes an anonymous page's index from
 * vm_start and vm_pgoff under page_table_lock (anon_page_index()). The
 * model therefore takes page_table_lock in every design: seed 001's
 * unlocked version loses one of two concurrent updates, and 2.6.8's
 * (the RFC completed) lets the fault read vm_start moved and vm_pgoff
 * not; the seeded bug expand-stack-no-ptl restores either. anonvma also
 * holds the anon_vma lock (if the vma has one), under which its walkers
 * read the bounds (deviation (3)). The re-check under the lock ("another
 * thread grew it") is the later kernels': 2.6.3 and 2.6.8 computed the
 * growth from a stale address and failed with -ENOMEM (a spurious
 * SIGSEGV), which the model's workloads could not tell from a real one.
 *
 * Context: mmap_sem held for read; takes page_table_lock, the anon_vma
 * lock, as above (2.6.8's anon_vma_prepare() may allocate and sleep).
 * Return: 0, or -ENOMEM.
 */
int expand_stack(struct vm_area_struct *vma, unsigned long address)
{
	struct mm_struct *mm = vma->vm_mm;
	bool ptl = vma_lock_taken(VMA_LOCK_STACK_PTL, INJECT_EXPAND_STACK_NO_PTL);
	struct vm_area_struct *prev;
	struct anon_vma *anon_vma = NULL;
	unsigned long grow;
	int ret = 0;

	address &= PAGE_MASK;
	/*
	 * 2.6.8: "make sure the anon_vma is allocated so that the anon_vma
	 * locking is not a noop".
	 */
	if (vma_lock_taken(VMA_LOCK_STACK_ANON_VMA, INJECT_EXPAND_STACK_NO_PTL) &&
	    rmap->anon_vma_prepare(vma))
		return -ENOMEM;
	/* Another thread may be growing it under mmap_sem (read) too. */
	find_vma_prev(mm, READ_ONCE(vma->vm_start), &prev);
	/* mainline9: 2.6.9 nests anon_vma->lock outside page_table_lock. */
	if (rmap->anon_vma_outside_ptl)
		anon_vma = vma_lock_anon_vma(vma);
	if (ptl)
		spin_lock(&mm->page_table_lock);
	/* anonvma: its walkers read the bounds under this lock. */
	if (!rmap->anon_vma_outside_ptl)
		anon_vma = vma_lock_anon_vma(vma);
	BUG_ON(!ptl && !anon_vma && !injected(INJECT_EXPAND_STACK_NO_PTL));
	if (address >= READ_ONCE(vma->vm_start))
		goto out_unlock;		/* another thread grew it */
	grow = (READ_ONCE(vma->vm_start) - address) >> PAGE_SHIFT;
	if (!(vma->vm_flags & VM_GROWSDOWN) ||
	    vma->vm_end - address > STACK_GROW_MAX ||
	    (prev && prev->vm_end > address - PAGE_SIZE) || READ_ONCE(vma->vm_pgoff) < grow) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	/* Anonymous: keep every page's index (vm_pgoff + offset). */
	WRITE_ONCE(vma->vm_pgoff, READ_ONCE(vma->vm_pgoff) - grow);
	/* Moved vm_pgoff, not vm_start yet: what a lockless reader may see. */
	yield_point_on("expand_stack:pgoff_moved", vma, COVER_VMA);
	cover_yield("expand_stack:pgoff_moved", mm, COVER_MM);
	WRITE_ONCE(vma->vm_start, address);
out_unlock:
	if (!rmap->anon_vma_outside_ptl)
		vma_unlock_anon_vma(anon_vma);
	if (ptl)
		spin_unlock(&mm->page_table_lock);
	if (rmap->anon_vma_outside_ptl)
		vma_unlock_anon_vma(anon_vma);
	return ret;
}
