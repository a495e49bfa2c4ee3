/* SPDX-License-Identifier: MIT */
/*
 * Object caches: the kernel's kmem_cache API over libc, with 2.6's
 * per-CPU array caches (per task here: the model's CPU is a task) and
 * the one slab property rmap depends on, SLAB_DESTROY_BY_RCU
 * (type-stable memory).
 *
 * kmem_cache_free() puts the object in the freeing task's array of the
 * cache, and kmem_cache_alloc() takes the most recently freed object from
 * it (LIFO), with no lock and no write to a shared line. A full array
 * moves batchcount objects, its oldest, to the cache's free list, an empty
 * one takes batchcount from there, under the cache's lock; past the list's
 * limit (kmem_cache_set_free_limit()), on kmem_cache_shrink() and on
 * kmem_cache_destroy() memory goes back to libc. A task's arrays go to the
 * lists when it detaches (rt_task_detach(), 2.6's CPU_DEAD).
 *
 * In a SLAB_DESTROY_BY_RCU cache an object is constructed once, when its
 * memory first comes from libc, and stays constructed while free: only
 * this cache hands it out again, and its memory goes back to libc only
 * after an RCU grace period. So a reader that found the object under
 * rcu_read_lock() may always touch it (take its lock, read its fields)
 * until rcu_read_unlock() - but it may be a different object of the same
 * type by then, which the reader must re-check (page_lock_anon_vma()
 * re-checks page->mapping).
 *
 * Without the flag a free object is dead: poisoned until it is handed out
 * again (the ASan build reports a stale reader's access as
 * use-after-poison, or heap-use-after-free once libc has the memory;
 * other builds fill it with 0x6b, as 2.6's SLAB_POISON), then constructed
 * again by @ctor.
 *
 * Mirrors mm/slab.c of 2.6.9 (kmem_cache_create, kmem_cache_alloc,
 * kmem_cache_free, kmem_cache_shrink, kmem_cache_destroy, the array
 * caches), not its slabs.
 */
#ifndef RT_CORE_SLAB_H
#define RT_CORE_SLAB_H

#include <stddef.h>

#include "page_alloc.h"	/* gfp_t */

struct task_struct;

/* Cache flags, with the kernel's values. */
#define SLAB_HWCACHE_ALIGN	0x00002000UL	/* objects start on a cache line */
#define SLAB_DESTROY_BY_RCU	0x00080000UL	/* type-stable: see above */

/*
 * The box whose free_limit a cache gets by 2.6.9's formula (the objects
 * kept on a cache's list, not in any task's array): (1 + CPUs) *
 * batchcount + the objects of one slab, for the 32-way box the scenarios
 * play, whatever the tasks attached now.
 */
#define KMEM_BOX_CPUS		32U

struct kmem_cache;

/*
 * Statistics of one cache, folded from every task's own counters and the
 * cache's: a snapshot is exact only when the cache is quiescent.
 */
struct kmem_cache_stats {
	unsigned long active;		/* handed out and not yet freed */
	unsigned long total;		/* held from libc: active, free, rcu_pending */
	unsigned long free;		/* in tasks' arrays or on the free list */
	unsigned long rcu_pending;	/* waiting for a grace period, then libc */
	unsigned long peak_active;	/* peak of active + in arrays (2.6's STATS_SET_HIGH) */
	unsigned long peak_total;
	size_t bytes;			/* total * bytes per object (with header) */
	size_t obj_bytes;		/* bytes per object (with header) */
	unsigned long nr_alloc;		/* successful kmem_cache_alloc() */
	unsigned long nr_alloc_fail;	/* injected or libc failures */
	unsigned long nr_free;		/* kmem_cache_free() */
	unsigned long nr_reused;	/* allocations served from an array or the free list */
	unsigned long nr_ctor;		/* constructor calls (again at each reuse without
					 * SLAB_DESTROY_BY_RCU) */
	unsigned long nr_libc_alloc;	/* objects taken from libc */
	unsigned long nr_libc_free;	/* objects given back to libc */
};

/**
 * kmem_cache_create() - create an object cache
 * @name: for statistics and reports; copied
 * @size: object size in bytes (> 0)
 * @flags: SLAB_DESTROY_BY_RCU, SLAB_HWCACHE_ALIGN, or 0
 * @ctor: called on each object when its memory comes from libc, and, without
 *	SLAB_DESTROY_BY_RCU, each time a freed object is handed out again; or NULL
 *
 * The cache gets a slot in every task's table of arrays (enable_cpucache()'s
 * sizes: 120 objects up to 256 bytes, 54 to 1 KiB, 24 to a page, 8 beyond)
 * while one of TASK_SLAB_ARRAYS is free; without one it works on its free
 * list alone.
 *
 * Context: may sleep. Harness allocation: dies rather than fail.
 * Return: the cache.
 */
struct kmem_cache *kmem_cache_create(const char *name, size_t size,
				     unsigned long flags, void (*ctor)(void *));

/**
 * kmem_cache_create_aligned() - kmem_cache_create() with 2.6's @align argument
 * @name, @size, @flags, @ctor: as kmem_cache_create()
 * @align: objects start at a multiple of it (a power of two), or 0
 *
 * Context: may sleep. Harness allocation: dies rather than fail.
 * Return: the cache.
 */
struct kmem_cache *kmem_cache_create_aligned(const char *name, size_t size, size_t align,
					     unsigned long flags, void (*ctor)(void *));

/**
 * kmem_cache_alloc() - take an object from @cachep
 * @cachep: the cache
 * @gfp: GFP_KERNEL (may sleep: reported in atomic context) or GFP_ATOMIC
 *
 * The most recently freed object of the calling task's array first; an
 * empty array is refilled from the free list (cache_alloc_refill()), and
 * an empty list gives way to libc. In a SLAB_DESTROY_BY_RCU cache a reused
 * object is as its last user left it; otherwise @ctor runs on it again.
 *
 * Context: takes the cache's lock (LOCK_CLASS_SLAB_LOCK) only to refill
 * the task's array.
 * Return: the object, or NULL when libc fails or failure is injected
 * (kmem_cache_set_fail_every()).
 */
void *kmem_cache_alloc(struct kmem_cache *cachep, gfp_t gfp);

/**
 * kmem_cache_free() - give an object back to @cachep
 * @cachep: the cache it came from (BUGs otherwise)
 * @objp: the object (BUGs on a double free)
 *
 * The object goes into the calling task's array (poisoned, without
 * SLAB_DESTROY_BY_RCU); a full array first moves its batchcount oldest
 * objects to the free list (cache_flusharray()), and past the list's
 * limit the list's oldest go back to libc: after a grace period
 * (call_rcu()) in a SLAB_DESTROY_BY_RCU cache, at once otherwise.
 *
 * Context: any, including inside rcu_read_lock() and under spinlocks;
 * takes the cache's lock only to flush the task's array.
 */
void kmem_cache_free(struct kmem_cache *cachep, void *objp);

/**
 * kmem_cache_shrink() - give every free object back to libc
 * @cachep: the cache
 *
 * Drains every task's array to the free list first (drain_cpu_caches()).
 * In a SLAB_DESTROY_BY_RCU cache the memory goes back after a grace
 * period: rcu_barrier() waits for it.
 *
 * Context: no other task uses @cachep meanwhile (its arrays are drained
 * without their owners); takes the cache's lock; does not sleep.
 */
void kmem_cache_shrink(struct kmem_cache *cachep);

/**
 * kmem_cache_destroy() - free @cachep and all its memory
 * @cachep: the cache; every object must have been freed (BUGs otherwise)
 *
 * Waits for pending callbacks (rcu_barrier()) before checking, so objects
 * freed from call_rcu() callbacks count as freed; frees the objects and
 * the arrays of every task, attached or not.
 *
 * Context: may sleep; no thread may use @cachep any more, nor detach
 * meanwhile with objects of it in its array.
 */
void kmem_cache_destroy(struct kmem_cache *cachep);

/**
 * kmem_cache_set_fail_every() - inject allocation failures
 * @cachep: the cache
 * @n: every @n-th kmem_cache_alloc() from now on returns NULL; 0: never
 *
 * Context: any.
 */
void kmem_cache_set_fail_every(struct kmem_cache *cachep, unsigned int n);

/**
 * kmem_cache_set_free_limit() - bound a cache's free list
 * @cachep: the cache
 * @limit: free objects kept on the list, outside the tasks' arrays; beyond
 *	it, the oldest go back to libc (after a grace period in a
 *	SLAB_DESTROY_BY_RCU cache) down to half of it (default: 2.6.9's
 *	free_limit on a KMEM_BOX_CPUS box)
 *
 * Context: any.
 */
void kmem_cache_set_free_limit(struct kmem_cache *cachep, unsigned int limit);

/*
 * Snapshot of @cachep's counters, every task's folded in. Context: any;
 * takes the harness's task list lock.
 */
void kmem_cache_stats(struct kmem_cache *cachep, struct kmem_cache_stats *out);

/**
 * slab_task_exit() - move @t's arrays to their caches' free lists
 * @t: the current task, detaching
 *
 * Mirrors cpuup_callback()'s CPU_DEAD in mm/slab.c: the objects of a CPU
 * that goes away go back to the lists; its counters fold into the caches'.
 *
 * Context: rt_task_detach(), before the task leaves RCU; holds no lock;
 * takes each cache's lock.
 */
void slab_task_exit(struct task_struct *t);

/* The name given to kmem_cache_create(). */
const char *kmem_cache_name(const struct kmem_cache *cachep);

/* Object size given to kmem_cache_create(). */
size_t kmem_cache_size(const struct kmem_cache *cachep);

#endif /* RT_CORE_SLAB_H */
