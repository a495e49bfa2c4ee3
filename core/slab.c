// SPDX-License-Identifier: MIT
/*
 * Object caches over libc, with SLAB_DESTROY_BY_RCU. Mirrors the contract
 * of mm/slab.c in 2.6 (kmem_cache_create() .. kmem_cache_destroy()), not
 * its slabs: every object is its own libc block, preceded by a header the
 * object's users never see, so a freed object stays intact - constructed,
 * readable by stale RCU readers - while it waits on the free list.
 *
 * Life of an object in a SLAB_DESTROY_BY_RCU cache:
 *
 *   libc --ctor--> ACTIVE <--alloc/free--> FREE (free list, cache->lock)
 *                                            |  overflow, shrink, destroy
 *                                            v
 *                                          RCU --grace period--> libc
 *
 * Without the flag: libc --ctor--> ACTIVE --free--> libc, at once.
 */
#include "slab.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "compiler.h"
#include "cover.h"
#include "die.h"
#include "lockdep.h"
#include "rcu.h"
#include "spinlock.h"
#include "task.h"

#define SLAB_POISON_BYTE	0x6b	/* the kernel's POISON_FREE */

enum slab_obj_state {
	OBJ_ACTIVE = 0x5ab1,	/* handed out */
	OBJ_FREE,		/* on the free list */
	OBJ_RCU,		/* queued for libc after a grace period */
};

/* Precedes every object; the object starts hdr_size bytes after it. */
struct slab_obj {
	struct kmem_cache *cache;	/* set when taken from libc, then read-only */
	struct slab_obj *next;		/* cache->lock: free-list link */
	unsigned int state;		/* atomic: enum slab_obj_state */
	struct rcu_head rcu;		/* the deferred return to libc */
};

struct kmem_cache {
	char name[32];			/* read-only after create */
	size_t size;			/* read-only */
	size_t align;			/* read-only */
	size_t hdr_size;		/* read-only: header rounded up to align */
	unsigned long flags;		/* read-only */
	void (*ctor)(void *);		/* read-only */

	spinlock_t lock;
	struct slab_obj *free_head;	/* lock: LIFO, the most recently freed first */
	unsigned int nr_free;		/* lock; READ_ONCE for statistics */

	unsigned int free_limit;	/* relaxed atomic */
	unsigned int fail_every;	/* relaxed atomic */
	unsigned long fail_counter;	/* relaxed atomic */

	/* Statistics: relaxed atomics. */
	unsigned long active, total, rcu_pending;
	unsigned long peak_active, peak_total;
	unsigned long nr_alloc, nr_alloc_fail, nr_free_calls, nr_reused;
	unsigned long nr_ctor, nr_libc_alloc, nr_libc_free;
};

static inline void stat_add(unsigned long *c, long delta)
{
	__atomic_fetch_add(c, (unsigned long)delta, __ATOMIC_RELAXED);
}

static inline unsigned long stat_read(const unsigned long *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/* Add one to *@c and raise *@peak to the new value if it is higher. */
static void stat_inc_peak(unsigned long *c, unsigned long *peak)
{
	unsigned long v = __atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
	unsigned long p = __atomic_load_n(peak, __ATOMIC_RELAXED);

	while (v > p && !__atomic_compare_exchange_n(peak, &p, v, true,
						      __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static inline void *hdr_to_obj(const struct kmem_cache *c, struct slab_obj *hdr)
{
	return (char *)hdr + c->hdr_size;
}

static inline struct slab_obj *obj_to_hdr(const struct kmem_cache *c, void *objp)
{
	return (struct slab_obj *)(void *)((char *)objp - c->hdr_size);
}

static inline size_t obj_bytes(const struct kmem_cache *c)
{
	return c->hdr_size + c->size;
}

struct kmem_cache *kmem_cache_create(const char *name, size_t size,
				     unsigned long flags, void (*ctor)(void *))
{
	struct kmem_cache *c = rt_calloc(1, sizeof(*c));
	size_t align = (flags & SLAB_HWCACHE_ALIGN) ? SMP_CACHE_BYTES
						     : alignof(max_align_t);

	BUG_ON(size == 0);
	BUG_ON(flags & ~(SLAB_HWCACHE_ALIGN | SLAB_DESTROY_BY_RCU));
	snprintf(c->name, sizeof(c->name), "%s", name ? name : "?");
	c->size = size;
	c->align = align;
	c->hdr_size = (sizeof(struct slab_obj) + align - 1) & ~(align - 1);
	c->flags = flags;
	c->ctor = ctor;
	spin_lock_init(&c->lock, LOCK_CLASS_SLAB_LOCK);
	c->free_limit = KMEM_CACHE_FREE_LIMIT;
	return c;
}

/* A new object from libc, constructed; NULL when libc fails. */
static struct slab_obj *slab_libc_alloc(struct kmem_cache *c)
{
	struct slab_obj *hdr;

	if (c->align > alignof(max_align_t)) {
		void *p;

		if (posix_memalign(&p, c->align, obj_bytes(c)))
			return NULL;
		hdr = p;
	} else {
		hdr = malloc(obj_bytes(c));
		if (!hdr)
			return NULL;
	}
	hdr->cache = c;
	hdr->next = NULL;
	__atomic_store_n(&hdr->state, OBJ_ACTIVE, __ATOMIC_RELAXED);
	stat_add(&c->nr_libc_alloc, 1);
	stat_inc_peak(&c->total, &c->peak_total);
	if (c->ctor) {
		c->ctor(hdr_to_obj(c, hdr));
		stat_add(&c->nr_ctor, 1);
	}
	return hdr;
}

/*
 * Poisoned first (as SLAB_POISON does), so a reader that should not see
 * the memory any more reads 0x6b..., in builds without ASan too. The
 * coverage forgets the object first: libc may hand the address out again.
 */
static void slab_libc_free(struct kmem_cache *c, struct slab_obj *hdr)
{
	cover_forget(hdr_to_obj(c, hdr));
	memset(hdr, SLAB_POISON_BYTE, obj_bytes(c));
	free(hdr);
	stat_add(&c->total, -1);
	stat_add(&c->nr_libc_free, 1);
}

void *kmem_cache_alloc(struct kmem_cache *c, gfp_t gfp)
{
	struct slab_obj *hdr = NULL;
	unsigned int every;

	if (gfp & __GFP_WAIT)
		might_sleep("kmem_cache_alloc(GFP_KERNEL)");

	every = __atomic_load_n(&c->fail_every, __ATOMIC_RELAXED);
	if (unlikely(every) &&
	    __atomic_add_fetch(&c->fail_counter, 1, __ATOMIC_RELAXED) % every == 0)
		goto fail;

	if (c->flags & SLAB_DESTROY_BY_RCU) {
		spin_lock(&c->lock);
		hdr = c->free_head;
		if (hdr) {
			c->free_head = hdr->next;
			WRITE_ONCE(c->nr_free, c->nr_free - 1);
		}
		spin_unlock(&c->lock);
		if (hdr) {
			unsigned int old = __atomic_exchange_n(&hdr->state, OBJ_ACTIVE,
							       __ATOMIC_RELAXED);

			BUG_ON(old != OBJ_FREE);
			stat_add(&c->nr_reused, 1);
		}
	}
	if (!hdr) {
		hdr = slab_libc_alloc(c);
		if (!hdr)
			goto fail;
	}
	stat_inc_peak(&c->active, &c->peak_active);
	stat_add(&c->nr_alloc, 1);
	return hdr_to_obj(c, hdr);

fail:
	stat_add(&c->nr_alloc_fail, 1);
	return NULL;
}

/* The grace period has passed: no reader can still hold the object. */
static void slab_rcu_free(struct rcu_head *head)
{
	struct slab_obj *hdr = container_of(head, struct slab_obj, rcu);
	struct kmem_cache *c = hdr->cache;
	unsigned int old = __atomic_load_n(&hdr->state, __ATOMIC_RELAXED);

	BUG_ON(old != OBJ_RCU);
	stat_add(&c->rcu_pending, -1);
	slab_libc_free(c, hdr);
}

/* Queue a list of objects, off the free list, for libc after a grace period. */
static void slab_release_list(struct kmem_cache *c, struct slab_obj *list)
{
	while (list) {
		struct slab_obj *hdr = list;
		unsigned int old;

		list = hdr->next;
		old = __atomic_exchange_n(&hdr->state, OBJ_RCU, __ATOMIC_RELAXED);
		BUG_ON(old != OBJ_FREE);
		stat_add(&c->rcu_pending, 1);
		call_rcu(&hdr->rcu, slab_rcu_free);
	}
}

void kmem_cache_free(struct kmem_cache *c, void *objp)
{
	struct slab_obj *hdr, *release = NULL;
	unsigned int old, limit;

	if (!objp)
		return;
	hdr = obj_to_hdr(c, objp);
	BUG_ON(hdr->cache != c);
	stat_add(&c->nr_free_calls, 1);
	stat_add(&c->active, -1);

	if (!(c->flags & SLAB_DESTROY_BY_RCU)) {
		old = __atomic_exchange_n(&hdr->state, OBJ_RCU, __ATOMIC_RELAXED);
		BUG_ON(old != OBJ_ACTIVE);
		slab_libc_free(c, hdr);
		return;
	}

	old = __atomic_exchange_n(&hdr->state, OBJ_FREE, __ATOMIC_RELAXED);
	BUG_ON(old != OBJ_ACTIVE);	/* double free */
	limit = __atomic_load_n(&c->free_limit, __ATOMIC_RELAXED);

	spin_lock(&c->lock);
	hdr->next = c->free_head;
	c->free_head = hdr;
	WRITE_ONCE(c->nr_free, c->nr_free + 1);
	if (c->nr_free > limit) {
		/* Keep the most recently freed half of the limit; release the rest. */
		unsigned int keep = limit / 2;
		struct slab_obj **link = &c->free_head;

		for (unsigned int i = 0; i < keep; i++)
			link = &(*link)->next;
		release = *link;
		*link = NULL;
		WRITE_ONCE(c->nr_free, keep);
	}
	spin_unlock(&c->lock);

	slab_release_list(c, release);
}

void kmem_cache_shrink(struct kmem_cache *c)
{
	struct slab_obj *release;

	spin_lock(&c->lock);
	release = c->free_head;
	c->free_head = NULL;
	WRITE_ONCE(c->nr_free, 0);
	spin_unlock(&c->lock);

	slab_release_list(c, release);
}

void kmem_cache_destroy(struct kmem_cache *c)
{
	unsigned long active;

	if (!c)
		return;
	/* Objects freed from callbacks queued so far count as freed. */
	rcu_barrier();
	active = stat_read(&c->active);
	if (active) {
		fprintf(stderr, "kmem_cache_destroy(%s): %lu objects still allocated\n",
			c->name, active);
		BUG();
	}
	kmem_cache_shrink(c);
	/* slab_rcu_free() uses the cache: wait for every one of them. */
	rcu_barrier();
	BUG_ON(stat_read(&c->total) != 0);
	BUG_ON(stat_read(&c->rcu_pending) != 0);
	free(c);
}

void kmem_cache_set_fail_every(struct kmem_cache *c, unsigned int n)
{
	__atomic_store_n(&c->fail_every, n, __ATOMIC_RELAXED);
	__atomic_store_n(&c->fail_counter, 0, __ATOMIC_RELAXED);
}

void kmem_cache_set_free_limit(struct kmem_cache *c, unsigned int limit)
{
	__atomic_store_n(&c->free_limit, limit, __ATOMIC_RELAXED);
}

void kmem_cache_stats(struct kmem_cache *c, struct kmem_cache_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->active = stat_read(&c->active);
	out->total = stat_read(&c->total);
	out->free = READ_ONCE(c->nr_free);
	out->rcu_pending = stat_read(&c->rcu_pending);
	out->peak_active = stat_read(&c->peak_active);
	out->peak_total = stat_read(&c->peak_total);
	out->obj_bytes = obj_bytes(c);
	out->bytes = out->total * out->obj_bytes;
	out->nr_alloc = stat_read(&c->nr_alloc);
	out->nr_alloc_fail = stat_read(&c->nr_alloc_fail);
	out->nr_free = stat_read(&c->nr_free_calls);
	out->nr_reused = stat_read(&c->nr_reused);
	out->nr_ctor = stat_read(&c->nr_ctor);
	out->nr_libc_alloc = stat_read(&c->nr_libc_alloc);
	out->nr_libc_free = stat_read(&c->nr_libc_free);
}

const char *kmem_cache_name(const struct kmem_cache *c)
{
	return c->name;
}

size_t kmem_cache_size(const struct kmem_cache *c)
{
	return c->size;
}
