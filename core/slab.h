/* SPDX-License-Identifier: MIT */
/*
 * Object caches: the kernel's kmem_cache API over libc, with the one slab
 * property rmap depends on, SLAB_DESTROY_BY_RCU (type-stable memory).
 *
 * In a SLAB_DESTROY_BY_RCU cache an object is constructed once, when its
 * memory first comes from libc; kmem_cache_free() puts it on the cache's
 * free list still constructed, and only this cache hands it out again. Its
 * memory goes back to libc only after an RCU grace period (when the free
 * list overflows, on kmem_cache_shrink() or kmem_cache_destroy()). So a
 * reader that found the object under rcu_read_lock() may always touch it
 * (take its lock, read its fields) until rcu_read_unlock() - but it may
 * be a different object of the same type by then, which the reader must
 * re-check (page_lock_anon_vma() re-checks page->mapping).
 *
 * Without the flag, kmem_cache_free() returns the memory to libc at once:
 * a reader that still holds a pointer reads freed memory, which the ASan
 * build reports as heap-use-after-free.
 *
 * Mirrors mm/slab.c of 2.6 (kmem_cache_create, kmem_cache_alloc,
 * kmem_cache_free, kmem_cache_shrink, kmem_cache_destroy), not its layout.
 */
#ifndef RT_CORE_SLAB_H
#define RT_CORE_SLAB_H

#include <stddef.h>

#include "page_alloc.h"	/* gfp_t */

/* Cache flags, with the kernel's values. */
#define SLAB_HWCACHE_ALIGN	0x00002000UL	/* objects start on a cache line */
#define SLAB_DESTROY_BY_RCU	0x00080000UL	/* type-stable: see above */

/* Default bound on a SLAB_DESTROY_BY_RCU cache's free list. */
#define KMEM_CACHE_FREE_LIMIT	128U

struct kmem_cache;

/*
 * Statistics of one cache; counters are relaxed atomics, so a snapshot is
 * exact only when the cache is quiescent.
 */
struct kmem_cache_stats {
	unsigned long active;		/* handed out and not yet freed */
	unsigned long total;		/* held from libc: active, free, rcu_pending */
	unsigned long free;		/* on the free list, constructed */
	unsigned long rcu_pending;	/* waiting for a grace period, then libc */
	unsigned long peak_active;
	unsigned long peak_total;
	size_t bytes;			/* total * bytes per object (with header) */
	size_t obj_bytes;		/* bytes per object (with header) */
	unsigned long nr_alloc;		/* successful kmem_cache_alloc() */
	unsigned long nr_alloc_fail;	/* injected or libc failures */
	unsigned long nr_free;		/* kmem_cache_free() */
	unsigned long nr_reused;	/* allocations served from the free list */
	unsigned long nr_ctor;		/* constructor calls */
	unsigned long nr_libc_alloc;	/* objects taken from libc */
	unsigned long nr_libc_free;	/* objects given back to libc */
};

/**
 * kmem_cache_create() - create an object cache
 * @name: for statistics and reports; copied
 * @size: object size in bytes (> 0)
 * @flags: SLAB_DESTROY_BY_RCU, SLAB_HWCACHE_ALIGN, or 0
 * @ctor: called on each object when its memory comes from libc, or NULL
 *
 * Context: may sleep. Harness allocation: dies rather than fail.
 * Return: the cache.
 */
struct kmem_cache *kmem_cache_create(const char *name, size_t size,
				     unsigned long flags, void (*ctor)(void *));

/**
 * kmem_cache_alloc() - take an object from @cachep
 * @cachep: the cache
 * @gfp: GFP_KERNEL (may sleep: reported in atomic context) or GFP_ATOMIC
 *
 * A SLAB_DESTROY_BY_RCU cache reuses a freed object first (constructed,
 * with whatever its last user left in it); otherwise the object is new
 * from libc and @ctor has run on it.
 *
 * Context: takes the cache's lock (LOCK_CLASS_SLAB_LOCK) for a
 * SLAB_DESTROY_BY_RCU cache.
 * Return: the object, or NULL when libc fails or failure is injected
 * (kmem_cache_set_fail_every()).
 */
void *kmem_cache_alloc(struct kmem_cache *cachep, gfp_t gfp);

/**
 * kmem_cache_free() - give an object back to @cachep
 * @cachep: the cache it came from (BUGs otherwise)
 * @objp: the object (BUGs on a double free)
 *
 * SLAB_DESTROY_BY_RCU: the object goes on the free list, constructed;
 * past the free-list limit the oldest part of the list goes back to libc
 * after a grace period (call_rcu()). Otherwise: free() at once.
 *
 * Context: any, including inside rcu_read_lock() and under spinlocks;
 * takes the cache's lock for a SLAB_DESTROY_BY_RCU cache.
 */
void kmem_cache_free(struct kmem_cache *cachep, void *objp);

/**
 * kmem_cache_shrink() - give every free object back to libc
 * @cachep: the cache
 *
 * The memory goes back after a grace period: rcu_barrier() waits for it.
 *
 * Context: takes the cache's lock; does not sleep.
 */
void kmem_cache_shrink(struct kmem_cache *cachep);

/**
 * kmem_cache_destroy() - free @cachep and all its memory
 * @cachep: the cache; every object must have been freed (BUGs otherwise)
 *
 * Waits for pending callbacks (rcu_barrier()) before checking, so objects
 * freed from call_rcu() callbacks count as freed.
 *
 * Context: may sleep; no thread may use @cachep any more.
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
 * kmem_cache_set_free_limit() - bound a SLAB_DESTROY_BY_RCU free list
 * @cachep: the cache
 * @limit: free objects kept for reuse; beyond it, objects go back to libc
 *	after a grace period (default KMEM_CACHE_FREE_LIMIT)
 *
 * Context: any.
 */
void kmem_cache_set_free_limit(struct kmem_cache *cachep, unsigned int limit);

/* Snapshot of @cachep's counters. Context: any. */
void kmem_cache_stats(struct kmem_cache *cachep, struct kmem_cache_stats *out);

/* The name given to kmem_cache_create(). */
const char *kmem_cache_name(const struct kmem_cache *cachep);

/* Object size given to kmem_cache_create(). */
size_t kmem_cache_size(const struct kmem_cache *cachep);

#endif /* RT_CORE_SLAB_H */
