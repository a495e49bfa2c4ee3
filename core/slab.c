// SPDX-License-Identifier: MIT
/*
 * Object caches over libc, with per-task array caches and
 * SLAB_DESTROY_BY_RCU. Mirrors mm/slab.c of 2.6.9: kmem_cache_create()
 * .. kmem_cache_destroy(), the per-CPU array caches (struct array_cache,
 * ____cache_alloc(), cache_alloc_refill(), __cache_free(),
 * cache_flusharray(), enable_cpucache()) and their draining
 * (cpuup_callback()'s CPU_DEAD, drain_cpu_caches()). The model's CPU is
 * a task: each task keeps its own array of each cache in task_struct.
 * Not the slabs: every object is its own libc block with a header the
 * object's users never see, so a freed object stays intact -
 * constructed, readable by stale RCU readers - while it is free.
 *
 * Life of an object:
 *
 *   libc --refill--> FREE in the task's array (owner, no lock) <--alloc/free--> ACTIVE
 *                                            |  ^ cache_flusharray() / cache_alloc_refill():
 *                                            v  |   batchcount objects under cache->lock
 *                                          FREE on the cache's list (cache->lock)
 *                                            |  past free_limit, shrink, destroy
 *                                            v
 *                SLAB_DESTROY_BY_RCU:  RCU --grace period--> libc
 *                otherwise:            libc, at once
 *
 * A free object of a cache without SLAB_DESTROY_BY_RCU is dead: poisoned
 * (ASan-poisoned in the ASan build, filled with 0x6b otherwise, as 2.6's
 * SLAB_POISON), and constructed when it is handed out. One of a
 * SLAB_DESTROY_BY_RCU cache is constructed when it comes from libc and
 * stays constructed and readable.
 *
 * Departures from 2.6.9:
 * (1) No slabs: the cache's lists are one LIFO list of free objects
 *     (2.6's slabs_partial/slabs_free and the shared array in one); a
 *     refill takes from libc what the list lacks of a batch (2.6 grows
 *     the cache by a slab and refills from it).
 * (2) Arrays exist for at most TASK_SLAB_ARRAYS caches at once; a cache
 *     created beyond that has none and works on its list alone.
 * (3) No cache_reap(): arrays are drained when their task detaches and
 *     by kmem_cache_shrink()/kmem_cache_destroy(); free_limit is 2.6.9's
 *     (1 + CPUs) * batchcount + objects per slab for a KMEM_BOX_CPUS box,
 *     fixed (unless set), not following the CPUs online. With 128 objects
 *     (a smaller box's) a fork+exit of a 1,000-page process in ptechain
 *     sent some 870 pte_chain blocks back to libc and took them again,
 *     a quarter of its time in malloc, where 2.6 freed and grew a slab
 *     per 30 objects at most.
 * (4) peak_active counts objects out of the cache's list (handed out or
 *     in an array), as 2.6's STATS_SET_HIGH after a refill does.
 */
#include "slab.h"
#include "slab-internal.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if RT_ASAN
#include <sanitizer/asan_interface.h>
#endif

#include "bug.h"
#include "compiler.h"
#include "cover.h"
#include "die.h"
#include "lockdep.h"
#include "pgtable.h"	/* PAGE_SIZE */
#include "rcu.h"
#include "spinlock.h"
#include "task.h"

#define SLAB_POISON_BYTE	0x6b	/* the kernel's POISON_FREE */
/* A refill of an array not used since it was filled takes at most this many. */
#define BATCHREFILL_LIMIT	16

enum slab_obj_state {
	OBJ_ACTIVE = 0x5ab1,	/* handed out */
	OBJ_FREE,		/* in an array or on the cache's list */
	OBJ_NEW,		/* the same, never handed out yet */
	OBJ_RCU,		/* queued for libc after a grace period */
	OBJ_LIBC,		/* going back to libc now */
};

/* Beside every object (before it, or after it in caches aligned past a cache line). */
struct slab_obj {
	struct kmem_cache *cache;	/* set when taken from libc, then read-only */
	struct slab_obj *next;		/* cache->lock: list link; also a drain's private chain */
	unsigned int state;		/* atomic: enum slab_obj_state */
	struct rcu_head rcu;		/* the deferred return to libc */
};

/*
 * Statistics written on every allocation and free: per task, by the
 * owner (relaxed stores, a single writer); kmem_cache_stats() folds them.
 * Sums are modulo 2^64, so @active may go "negative" in a task that frees
 * what another allocated.
 */
struct slab_task_stats {
	unsigned long active;
	unsigned long nr_alloc, nr_alloc_fail, nr_free, nr_reused, nr_ctor;
};

/*
 * One task's array of one cache: 2.6's struct array_cache, the entries
 * following it (ac_entry()). Owner only, without a lock; other tasks
 * touch it only under slab_arrays_lock and while the owner does not use
 * the cache (drains) or read @avail and @st (statistics).
 */
struct array_cache {
	unsigned int avail;		/* owner writes relaxed: objects in entry[] */
	unsigned int limit;		/* read-only: enable_cpucache() */
	unsigned int batchcount;	/* read-only: moved per refill or flush */
	unsigned int touched;		/* owner: allocated from since the last refill */
	struct kmem_cache *cache;	/* read-only */
	struct slab_task_stats st;	/* owner writes relaxed, kmem_cache_stats() reads */
	struct slab_obj *entry[];	/* owner: LIFO, entry[avail - 1] the most recently freed */
};

struct kmem_cache {
	/* Read-only after create: read on every allocation and free. */
	char name[32];
	size_t size;
	size_t align;
	size_t obj_off, hdr_off;	/* offsets of the object and its header in the block */
	size_t block;			/* bytes of the libc block */
	unsigned long flags;
	void (*ctor)(void *);
	int id;				/* slot in task_struct.slab_array, -1 none */
	unsigned int limit, batchcount;	/* for new arrays: enable_cpucache() */
	unsigned int fail_every;	/* relaxed atomic; written by tests only */

	/* The lists (2.6's kmem_list3), on their own line. */
	spinlock_t lock ____cacheline_aligned;
	struct slab_obj *free_head;	/* lock: LIFO, the most recently freed first */
	unsigned int nr_free;		/* lock; READ_ONCE for statistics */
	unsigned int free_limit;	/* relaxed atomic */
	/*
	 * Objects freed by threads that are no task (liburcu's call_rcu
	 * thread: mm_free_rcu()): pushed without the lock, taken whole
	 * (exchange) under it onto the list. So those threads never contend
	 * for the lock with tasks, whose lock acquisitions, which schedules
	 * see, stay a function of what each task did.
	 */
	struct slab_obj *remote;	/* atomic: push release, exchange acquire */
	unsigned long nr_remote;	/* relaxed atomic: objects on @remote */

	/* Slow-path statistics: relaxed atomics, written off the array fast path. */
	unsigned long fail_counter;
	unsigned long total, rcu_pending, held;
	unsigned long peak_active, peak_total;
	unsigned long nr_libc_alloc, nr_libc_free;
	struct slab_task_stats exited;	/* detached tasks and array-less allocations */
};

_Static_assert(TASK_SLAB_ARRAYS <= 64, "slab_ids is a 64-bit mask");

/*
 * The harness's own lock, never an emulated one: who owns which cache id,
 * and the life of every task's arrays (created by the owner, freed at its
 * detach or by kmem_cache_destroy()). Taken before the task list lock;
 * no emulated lock is taken under it.
 */
static pthread_mutex_t slab_arrays_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t slab_ids;		/* slab_arrays_lock: ids in use */

static inline void stat_add(unsigned long *c, long delta)
{
	__atomic_fetch_add(c, (unsigned long)delta, __ATOMIC_RELAXED);
}

static inline unsigned long stat_read(const unsigned long *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/* Add @delta to *@c and raise *@peak to the new value if it is higher. */
static void stat_add_peak(unsigned long *c, unsigned long *peak, long delta)
{
	unsigned long v = __atomic_add_fetch(c, (unsigned long)delta, __ATOMIC_RELAXED);
	unsigned long p = __atomic_load_n(peak, __ATOMIC_RELAXED);

	while (v > p && !__atomic_compare_exchange_n(peak, &p, v, true,
						      __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* The owner's counter: a relaxed store, no locked instruction (one writer). */
static inline void task_stat_add(unsigned long *c, long delta)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + (unsigned long)delta,
			 __ATOMIC_RELAXED);
}

/* Count in the task's array, or in the cache's totals for a cache without arrays. */
#define SLAB_STAT(c, ac, field, delta) do {					\
	if (likely(ac))								\
		task_stat_add(&(ac)->st.field, (delta));			\
	else									\
		stat_add(&(c)->exited.field, (delta));				\
} while (0)

static inline void *hdr_to_obj(const struct kmem_cache *c, struct slab_obj *hdr)
{
	return (char *)hdr - c->hdr_off + c->obj_off;
}

static inline struct slab_obj *obj_to_hdr(const struct kmem_cache *c, void *objp)
{
	return (struct slab_obj *)(void *)((char *)objp - c->obj_off + c->hdr_off);
}

static inline void *hdr_to_block(const struct kmem_cache *c, struct slab_obj *hdr)
{
	return (char *)hdr - c->hdr_off;
}

/* enable_cpucache()'s limits, by object size; batchcount is half. */
static unsigned int slab_array_limit(size_t size)
{
	if (size > 131072)
		return 1;
	if (size > PAGE_SIZE)
		return 8;
	if (size > 1024)
		return 24;
	if (size > 256)
		return 54;
	return 120;
}

/*
 * 2.6.9's enable_cpucache(): free_limit = (1 + CPUs) * batchcount +
 * objects per slab (a page's worth, at least one), for KMEM_BOX_CPUS.
 */
static unsigned int slab_free_limit(const struct kmem_cache *c)
{
	size_t per_slab = c->block < PAGE_SIZE ? PAGE_SIZE / c->block : 1;

	return (1 + KMEM_BOX_CPUS) * c->batchcount + (unsigned int)per_slab;
}

struct kmem_cache *kmem_cache_create_aligned(const char *name, size_t size, size_t align,
					     unsigned long flags, void (*ctor)(void *))
{
	struct kmem_cache *c = rt_aligned_alloc(SMP_CACHE_BYTES, sizeof(*c));
	size_t hdr = sizeof(struct slab_obj);

	BUG_ON(size == 0);
	BUG_ON(flags & ~(SLAB_HWCACHE_ALIGN | SLAB_DESTROY_BY_RCU));
	BUG_ON(align & (align - 1));
	memset(c, 0, sizeof(*c));
	if (align < alignof(max_align_t))
		align = alignof(max_align_t);
	if ((flags & SLAB_HWCACHE_ALIGN) && align < SMP_CACHE_BYTES)
		align = SMP_CACHE_BYTES;
	snprintf(c->name, sizeof(c->name), "%s", name ? name : "?");
	c->size = size;
	c->align = align;
	if (align <= SMP_CACHE_BYTES) {
		/* Header first, rounded up so that the object stays aligned. */
		c->hdr_off = 0;
		c->obj_off = (hdr + align - 1) & ~(align - 1);
		c->block = c->obj_off + size;
	} else {
		/* Aligned to more than a line: the header follows the object. */
		c->obj_off = 0;
		c->hdr_off = (size + alignof(struct slab_obj) - 1) &
			     ~(alignof(struct slab_obj) - 1);
		c->block = c->hdr_off + hdr;
	}
	c->flags = flags;
	c->ctor = ctor;
	c->limit = slab_array_limit(size);
	c->batchcount = (c->limit + 1) / 2;
	spin_lock_init(&c->lock, LOCK_CLASS_SLAB_LOCK);
	c->free_limit = slab_free_limit(c);

	c->id = -1;
	RT_PTHREAD(pthread_mutex_lock(&slab_arrays_lock));
	for (int id = 0; id < TASK_SLAB_ARRAYS; id++) {
		if (!(slab_ids & (1ULL << id))) {
			slab_ids |= 1ULL << id;
			c->id = id;
			break;
		}
	}
	RT_PTHREAD(pthread_mutex_unlock(&slab_arrays_lock));
	return c;
}

struct kmem_cache *kmem_cache_create(const char *name, size_t size,
				     unsigned long flags, void (*ctor)(void *))
{
	return kmem_cache_create_aligned(name, size, 0, flags, ctor);
}

/* The calling task's array of @c, made at its first use; NULL: @c has none. */
static struct array_cache *slab_array_create(struct task_struct *t, struct kmem_cache *c)
{
	struct array_cache *ac;
	size_t bytes = sizeof(*ac) + c->limit * sizeof(ac->entry[0]);

	if (c->id < 0)
		return NULL;
	/* Lines of its own: another task's array is never beside it. */
	bytes = (bytes + SMP_CACHE_BYTES - 1) & ~(size_t)(SMP_CACHE_BYTES - 1);
	ac = rt_aligned_alloc(SMP_CACHE_BYTES, bytes);
	memset(ac, 0, bytes);
	ac->limit = c->limit;
	ac->batchcount = c->batchcount;
	ac->cache = c;
	RT_PTHREAD(pthread_mutex_lock(&slab_arrays_lock));
	BUG_ON(t->slab_array[c->id]);
	t->slab_array[c->id] = ac;
	RT_PTHREAD(pthread_mutex_unlock(&slab_arrays_lock));
	return ac;
}

/* 2.6's ac_data(): this task's array of @c, or NULL when @c has none. */
static inline struct array_cache *ac_data(struct kmem_cache *c)
{
	struct task_struct *t = current;
	struct array_cache *ac;

	if (unlikely(c->id < 0))
		return NULL;
	ac = t->slab_array[c->id];
	if (unlikely(!ac))
		ac = slab_array_create(t, c);
	return ac;
}

static inline bool slab_poisons(const struct kmem_cache *c)
{
	return !(c->flags & SLAB_DESTROY_BY_RCU);
}

/* Make a dead object's memory unusable until it is handed out again. */
static void slab_obj_poison(struct kmem_cache *c, struct slab_obj *hdr)
{
	void *obj = hdr_to_obj(c, hdr);

#if RT_ASAN
	ASAN_POISON_MEMORY_REGION(obj, c->size);
#else
	memset(obj, SLAB_POISON_BYTE, c->size);
#endif
}

static void *slab_block_alloc(struct kmem_cache *c)
{
	void *block;

	if (c->align > alignof(max_align_t))
		return posix_memalign(&block, c->align, c->block) ? NULL : block;
	return malloc(c->block);
}

/*
 * A freed object of a cache without SLAB_DESTROY_BY_RCU dies: the
 * coverage forgets it (its address is handed out again as a new object)
 * and it is poisoned until it is handed out again.
 *
 * TSan forgets the locks and accesses of memory only when libc frees it:
 * reused in place, a dead object's spinlocks would keep their lock-order
 * history (false inversions between two mms' page_table_locks). So in
 * the TSan build its memory goes back to libc now and a new block takes
 * its place: the arrays and lists, and so every lock the slab takes, are
 * the same as in the other builds.
 *
 * Return: the header to keep (@hdr, or its replacement in the TSan build).
 */
static struct slab_obj *slab_obj_kill(struct kmem_cache *c, struct slab_obj *hdr)
{
	cover_forget(hdr_to_obj(c, hdr));
#if RT_TSAN
	void *block;

	free(hdr_to_block(c, hdr));
	block = slab_block_alloc(c);
	if (!block)
		rt_die("%s: out of memory", c->name);
	hdr = (struct slab_obj *)(void *)((char *)block + c->hdr_off);
	hdr->cache = c;
	hdr->next = NULL;
	__atomic_store_n(&hdr->state, OBJ_FREE, __ATOMIC_RELAXED);
#endif
	slab_obj_poison(c, hdr);
	return hdr;
}

/* Hand a dead object out again: unpoisoned and constructed anew (2.6's SLAB_POISON). */
static void slab_obj_revive(struct kmem_cache *c, struct array_cache *ac, struct slab_obj *hdr)
{
	void *obj = hdr_to_obj(c, hdr);

#if RT_ASAN
	ASAN_UNPOISON_MEMORY_REGION(obj, c->size);
#endif
	if (c->ctor) {
		c->ctor(obj);
		SLAB_STAT(c, ac, nr_ctor, 1);
	}
}

/*
 * A new free object from libc (OBJ_NEW): constructed in a
 * SLAB_DESTROY_BY_RCU cache, poisoned otherwise; NULL when libc fails.
 * The caller counts it (slab_count_libc_alloc()), once per batch.
 */
static struct slab_obj *slab_libc_alloc(struct kmem_cache *c, struct array_cache *ac)
{
	struct slab_obj *hdr;
	void *block = slab_block_alloc(c);

	if (!block)
		return NULL;
	hdr = (struct slab_obj *)(void *)((char *)block + c->hdr_off);
	hdr->cache = c;
	hdr->next = NULL;
	__atomic_store_n(&hdr->state, OBJ_NEW, __ATOMIC_RELAXED);
	if (slab_poisons(c)) {
		slab_obj_poison(c, hdr);
	} else if (c->ctor) {
		c->ctor(hdr_to_obj(c, hdr));
		SLAB_STAT(c, ac, nr_ctor, 1);
	}
	return hdr;
}

/*
 * @n objects came from libc, now held by a task: one update of each shared
 * statistic per batch, not per object (they are lines every CPU writes).
 */
static void slab_count_libc_alloc(struct kmem_cache *c, unsigned int n)
{
	if (!n)
		return;
	stat_add(&c->nr_libc_alloc, (long)n);
	stat_add_peak(&c->total, &c->peak_total, (long)n);
	stat_add_peak(&c->held, &c->peak_active, (long)n);
}

/* @n objects went back to libc (slab_libc_free()): counted once per batch. */
static void slab_count_libc_free(struct kmem_cache *c, unsigned int n)
{
	if (!n)
		return;
	stat_add(&c->total, -(long)n);
	stat_add(&c->nr_libc_free, (long)n);
}

/*
 * Poisoned first (as SLAB_POISON does), so a stale reader reads 0x6b... in
 * every build. The caller counts it (slab_count_libc_free()).
 */
static void slab_libc_free(struct kmem_cache *c, struct slab_obj *hdr)
{
	void *block = hdr_to_block(c, hdr);

	cover_forget(hdr_to_obj(c, hdr));
#if RT_ASAN
	ASAN_UNPOISON_MEMORY_REGION(hdr_to_obj(c, hdr), c->size);
#endif
	memset(block, SLAB_POISON_BYTE, c->block);
	free(block);
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
	slab_count_libc_free(c, 1);
}

/*
 * Give a chain of free objects, off every list, back to libc: after a
 * grace period in a SLAB_DESTROY_BY_RCU cache, at once otherwise.
 * Context: no emulated lock needed; call_rcu() for SLAB_DESTROY_BY_RCU.
 */
static void slab_release_list(struct kmem_cache *c, struct slab_obj *list)
{
	bool rcu = c->flags & SLAB_DESTROY_BY_RCU;
	unsigned int freed = 0;

	while (list) {
		struct slab_obj *hdr = list;
		unsigned int old;

		list = hdr->next;
		old = __atomic_exchange_n(&hdr->state, rcu ? OBJ_RCU : OBJ_LIBC,
					  __ATOMIC_RELAXED);
		BUG_ON(old != OBJ_FREE && old != OBJ_NEW);
		if (rcu) {
			stat_add(&c->rcu_pending, 1);
			call_rcu(&hdr->rcu, slab_rcu_free);
		} else {
			slab_libc_free(c, hdr);
			freed++;
		}
	}
	slab_count_libc_free(c, freed);
}

/*
 * Past free_limit, cut the oldest objects off the list, keeping the most
 * recently freed half of the limit (2.6's free_block() giving slabs back
 * past free_limit). Return: the chain to release after unlocking.
 * Context: c->lock held.
 */
static struct slab_obj *__slab_list_trim(struct kmem_cache *c)
{
	unsigned int limit = __atomic_load_n(&c->free_limit, __ATOMIC_RELAXED);
	unsigned int keep = limit / 2;
	struct slab_obj **link = &c->free_head, *release;

	assert_spin_locked(&c->lock);
	if (c->nr_free <= limit)
		return NULL;
	for (unsigned int i = 0; i < keep; i++)
		link = &(*link)->next;
	release = *link;
	*link = NULL;
	WRITE_ONCE(c->nr_free, keep);
	return release;
}

/*
 * Move the objects freed by threads that are no task onto the list.
 * Context: c->lock held.
 */
static void __slab_take_remote(struct kmem_cache *c)
{
	struct slab_obj *chain, *tail;
	unsigned int n = 1;

	assert_spin_locked(&c->lock);
	if (!__atomic_load_n(&c->remote, __ATOMIC_RELAXED))
		return;
	/* Acquire pairs with the release of each push in cache_free_remote(). */
	chain = __atomic_exchange_n(&c->remote, NULL, __ATOMIC_ACQUIRE);
	if (!chain)
		return;
	for (tail = chain; tail->next; tail = tail->next)
		n++;
	stat_add(&c->nr_remote, -(long)n);
	tail->next = c->free_head;
	c->free_head = chain;
	WRITE_ONCE(c->nr_free, c->nr_free + n);
}

/* A free by a thread that is no task: onto c->remote, no lock. Context: any. */
static void cache_free_remote(struct kmem_cache *c, struct slab_obj *hdr)
{
	struct slab_obj *head = __atomic_load_n(&c->remote, __ATOMIC_RELAXED);

	stat_add(&c->held, -1);
	stat_add(&c->nr_remote, 1);
	do {
		hdr->next = head;
		/* Release publishes the object (and its poison) to the taker. */
	} while (!__atomic_compare_exchange_n(&c->remote, &head, hdr, true,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/*
 * Put @n objects on the list, @objs[0] (the oldest) first, so that the
 * most recently freed ends on top. Context: c->lock held.
 */
static void __slab_list_push(struct kmem_cache *c, struct slab_obj **objs, unsigned int n)
{
	assert_spin_locked(&c->lock);
	for (unsigned int i = 0; i < n; i++) {
		objs[i]->next = c->free_head;
		c->free_head = objs[i];
	}
	WRITE_ONCE(c->nr_free, c->nr_free + n);
	stat_add(&c->held, -(long)n);
}

/*
 * Mirrors mm/slab.c:cache_alloc_refill(): the array is empty; move up to
 * batchcount objects, the most recently freed, from the cache's list
 * into it under the cache lock, then (2.6's cache_grow()) fill it up to
 * batchcount from libc, and take one. A cache without arrays takes one
 * object. Always a full batch: so when a task takes the lock next is a
 * function of its own allocations and frees, never of what other tasks
 * left on the list (deterministic schedules depend on it).
 * Return: a free object (OBJ_FREE or OBJ_NEW), or NULL when libc failed.
 * Context: takes c->lock.
 */
static struct slab_obj *cache_alloc_refill(struct kmem_cache *c, struct array_cache *ac)
{
	unsigned int batchcount = 1, n = 0;
	struct slab_obj *one, **got = &one;

	if (ac) {
		BUG_ON(ac->avail > 0);
		batchcount = ac->batchcount;
		if (!ac->touched && batchcount > BATCHREFILL_LIMIT)
			batchcount = BATCHREFILL_LIMIT;
		got = ac->entry;
	}
	spin_lock(&c->lock);
	if (c->nr_free < batchcount)
		__slab_take_remote(c);
	while (n < batchcount && c->free_head) {
		got[n++] = c->free_head;
		c->free_head = c->free_head->next;
	}
	if (n) {
		WRITE_ONCE(c->nr_free, c->nr_free - n);
		stat_add_peak(&c->held, &c->peak_active, (long)n);
	}
	spin_unlock(&c->lock);

	for (unsigned int fresh = 0;; fresh++) {
		struct slab_obj *hdr = n < batchcount ? slab_libc_alloc(c, ac) : NULL;

		if (!hdr) {
			slab_count_libc_alloc(c, fresh);
			break;
		}
		got[n++] = hdr;
	}
	if (!n)
		return NULL;
	if (!ac)
		return one;
	/* got[0] was on top of the list: it goes on top of the array, and out first. */
	for (unsigned int i = 0; i < n / 2; i++) {
		struct slab_obj *tmp = got[i];

		got[i] = got[n - 1 - i];
		got[n - 1 - i] = tmp;
	}
	ac->touched = 1;
	__atomic_store_n(&ac->avail, n - 1, __ATOMIC_RELAXED);
	return ac->entry[n - 1];
}

void *kmem_cache_alloc(struct kmem_cache *c, gfp_t gfp)
{
	struct array_cache *ac;
	struct slab_obj *hdr;
	unsigned int every, old;

	if (gfp & __GFP_WAIT)
		might_sleep("kmem_cache_alloc(GFP_KERNEL)");
	ac = ac_data(c);

	every = __atomic_load_n(&c->fail_every, __ATOMIC_RELAXED);
	if (unlikely(every) &&
	    __atomic_add_fetch(&c->fail_counter, 1, __ATOMIC_RELAXED) % every == 0)
		goto fail;

	/* ____cache_alloc() */
	if (likely(ac && ac->avail)) {
		unsigned int avail = ac->avail - 1;

		ac->touched = 1;
		hdr = ac->entry[avail];
		__atomic_store_n(&ac->avail, avail, __ATOMIC_RELAXED);
	} else {
		hdr = cache_alloc_refill(c, ac);
		if (!hdr)
			goto fail;
	}
	old = __atomic_exchange_n(&hdr->state, OBJ_ACTIVE, __ATOMIC_RELAXED);
	BUG_ON(old != OBJ_FREE && old != OBJ_NEW);
	if (old == OBJ_FREE)
		SLAB_STAT(c, ac, nr_reused, 1);
	if (slab_poisons(c))
		slab_obj_revive(c, ac, hdr);
	SLAB_STAT(c, ac, active, 1);
	SLAB_STAT(c, ac, nr_alloc, 1);
	return hdr_to_obj(c, hdr);

fail:
	SLAB_STAT(c, ac, nr_alloc_fail, 1);
	return NULL;
}

/*
 * Mirrors mm/slab.c:cache_flusharray(): the array is full; move its
 * batchcount oldest objects to the cache's list under the cache lock,
 * giving the list's oldest back to libc past free_limit.
 * Context: takes c->lock; call_rcu() after unlocking.
 */
static void cache_flusharray(struct kmem_cache *c, struct array_cache *ac)
{
	unsigned int batchcount = ac->batchcount;
	struct slab_obj *release;

	BUG_ON(!batchcount || batchcount > ac->avail);
	spin_lock(&c->lock);
	__slab_list_push(c, ac->entry, batchcount);
	__slab_take_remote(c);
	release = __slab_list_trim(c);
	spin_unlock(&c->lock);

	memmove(&ac->entry[0], &ac->entry[batchcount],
		(ac->avail - batchcount) * sizeof(ac->entry[0]));
	__atomic_store_n(&ac->avail, ac->avail - batchcount, __ATOMIC_RELAXED);
	slab_release_list(c, release);
}

/* A cache without arrays: one object straight onto the list. */
static void cache_free_list(struct kmem_cache *c, struct slab_obj *hdr)
{
	struct slab_obj *release;

	spin_lock(&c->lock);
	__slab_list_push(c, &hdr, 1);
	__slab_take_remote(c);
	release = __slab_list_trim(c);
	spin_unlock(&c->lock);
	slab_release_list(c, release);
}

void kmem_cache_free(struct kmem_cache *c, void *objp)
{
	struct array_cache *ac;
	struct slab_obj *hdr;
	unsigned int old;

	if (!objp)
		return;
	hdr = obj_to_hdr(c, objp);
	BUG_ON(hdr->cache != c);
	old = __atomic_exchange_n(&hdr->state, OBJ_FREE, __ATOMIC_RELAXED);
	BUG_ON(old != OBJ_ACTIVE);	/* double free */
	if (slab_poisons(c))
		hdr = slab_obj_kill(c, hdr);

	if (unlikely(!current_task)) {
		/* Not a task (an RCU callback): no array, and not made one. */
		stat_add(&c->exited.nr_free, 1);
		stat_add(&c->exited.active, -1);
		cache_free_remote(c, hdr);
		return;
	}

	/* __cache_free() */
	ac = ac_data(c);
	SLAB_STAT(c, ac, nr_free, 1);
	SLAB_STAT(c, ac, active, -1);
	if (unlikely(!ac)) {
		cache_free_list(c, hdr);
		return;
	}
	if (unlikely(ac->avail >= ac->limit))
		cache_flusharray(c, ac);
	ac->entry[ac->avail] = hdr;
	__atomic_store_n(&ac->avail, ac->avail + 1, __ATOMIC_RELAXED);
}

/*
 * Move every object of @ac onto its cache's list (2.6's free_block() of
 * a dead CPU's array) and give back what exceeds free_limit.
 * Context: the array's owner, or no one uses the cache; takes c->lock.
 */
static void slab_array_drain(struct kmem_cache *c, struct array_cache *ac)
{
	struct slab_obj *release;
	unsigned int n = ac->avail;

	if (!n)
		return;
	spin_lock(&c->lock);
	__slab_list_push(c, ac->entry, n);
	release = __slab_list_trim(c);
	spin_unlock(&c->lock);
	__atomic_store_n(&ac->avail, 0, __ATOMIC_RELAXED);
	ac->touched = 0;
	slab_release_list(c, release);
}

static void slab_stats_fold(struct slab_task_stats *to, const struct slab_task_stats *from)
{
	stat_add(&to->active, (long)stat_read(&from->active));
	stat_add(&to->nr_alloc, (long)stat_read(&from->nr_alloc));
	stat_add(&to->nr_alloc_fail, (long)stat_read(&from->nr_alloc_fail));
	stat_add(&to->nr_free, (long)stat_read(&from->nr_free));
	stat_add(&to->nr_reused, (long)stat_read(&from->nr_reused));
	stat_add(&to->nr_ctor, (long)stat_read(&from->nr_ctor));
}

void slab_task_exit(struct task_struct *t)
{
	for (int id = 0; id < TASK_SLAB_ARRAYS; id++) {
		struct array_cache *ac;

		RT_PTHREAD(pthread_mutex_lock(&slab_arrays_lock));
		ac = t->slab_array[id];
		t->slab_array[id] = NULL;
		if (ac)
			slab_stats_fold(&ac->cache->exited, &ac->st);
		RT_PTHREAD(pthread_mutex_unlock(&slab_arrays_lock));
		if (!ac)
			continue;
		slab_array_drain(ac->cache, ac);
		free(ac);
	}
}

struct slab_drain_ctx {
	struct kmem_cache *cache;
	struct slab_obj *chain;		/* the drained objects, linked by ->next */
	unsigned int n;
	bool free_arrays;		/* kmem_cache_destroy(): the arrays go too */
};

/* drain_cpu_caches()'s per-CPU part, for task @t. Context: slab_arrays_lock, task list lock. */
static void slab_drain_task(struct task_struct *t, void *arg)
{
	struct slab_drain_ctx *d = arg;
	struct array_cache *ac = t->slab_array[d->cache->id];

	if (!ac)
		return;
	BUG_ON(ac->cache != d->cache);
	/* Oldest first, so that the chain keeps each array's order. */
	for (unsigned int i = 0; i < ac->avail; i++) {
		ac->entry[i]->next = d->chain;
		d->chain = ac->entry[i];
		d->n++;
	}
	__atomic_store_n(&ac->avail, 0, __ATOMIC_RELAXED);
	ac->touched = 0;
	if (d->free_arrays) {
		t->slab_array[d->cache->id] = NULL;
		free(ac);
	}
}

/*
 * Mirrors mm/slab.c:drain_cpu_caches(): every task's array of @c onto
 * the cache's list. Context: no task uses @c; takes c->lock.
 */
static void drain_cpu_caches(struct kmem_cache *c, bool free_arrays)
{
	struct slab_drain_ctx d = { .cache = c, .free_arrays = free_arrays };
	struct slab_obj *tail;

	if (c->id < 0)
		return;
	RT_PTHREAD(pthread_mutex_lock(&slab_arrays_lock));
	rt_task_for_each(slab_drain_task, &d);
	RT_PTHREAD(pthread_mutex_unlock(&slab_arrays_lock));
	if (!d.chain)
		return;
	for (tail = d.chain; tail->next; tail = tail->next)
		;
	spin_lock(&c->lock);
	tail->next = c->free_head;
	c->free_head = d.chain;
	WRITE_ONCE(c->nr_free, c->nr_free + d.n);
	stat_add(&c->held, -(long)d.n);
	spin_unlock(&c->lock);
}

void kmem_cache_shrink(struct kmem_cache *c)
{
	struct slab_obj *release;

	drain_cpu_caches(c, false);
	spin_lock(&c->lock);
	__slab_take_remote(c);
	release = c->free_head;
	c->free_head = NULL;
	WRITE_ONCE(c->nr_free, 0);
	spin_unlock(&c->lock);

	slab_release_list(c, release);
}

void kmem_cache_destroy(struct kmem_cache *c)
{
	struct kmem_cache_stats st;

	if (!c)
		return;
	/* Objects freed from callbacks queued so far count as freed. */
	rcu_barrier();
	kmem_cache_stats(c, &st);
	if (st.active) {
		fprintf(stderr, "kmem_cache_destroy(%s): %lu objects still allocated\n",
			c->name, st.active);
		BUG();
	}
	drain_cpu_caches(c, true);
	kmem_cache_shrink(c);
	/* slab_rcu_free() uses the cache: wait for every one of them. */
	rcu_barrier();
	BUG_ON(stat_read(&c->total) != 0);
	BUG_ON(stat_read(&c->rcu_pending) != 0);
	if (c->id >= 0) {
		RT_PTHREAD(pthread_mutex_lock(&slab_arrays_lock));
		slab_ids &= ~(1ULL << c->id);
		RT_PTHREAD(pthread_mutex_unlock(&slab_arrays_lock));
	}
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

struct slab_fold_ctx {
	const struct kmem_cache *cache;
	struct slab_task_stats sum;
	unsigned long in_arrays;
};

/* Context: slab_arrays_lock, task list lock. */
static void slab_fold_task(struct task_struct *t, void *arg)
{
	struct slab_fold_ctx *f = arg;
	const struct array_cache *ac = t->slab_array[f->cache->id];

	if (!ac)
		return;
	BUG_ON(ac->cache != f->cache);
	slab_stats_fold(&f->sum, &ac->st);
	f->in_arrays += __atomic_load_n(&ac->avail, __ATOMIC_RELAXED);
}

void kmem_cache_stats(struct kmem_cache *c, struct kmem_cache_stats *out)
{
	struct slab_fold_ctx f = { .cache = c };

	slab_stats_fold(&f.sum, &c->exited);
	if (c->id >= 0) {
		RT_PTHREAD(pthread_mutex_lock(&slab_arrays_lock));
		rt_task_for_each(slab_fold_task, &f);
		RT_PTHREAD(pthread_mutex_unlock(&slab_arrays_lock));
	}
	memset(out, 0, sizeof(*out));
	out->active = f.sum.active;
	out->total = stat_read(&c->total);
	out->free = READ_ONCE(c->nr_free) + f.in_arrays + stat_read(&c->nr_remote);
	out->rcu_pending = stat_read(&c->rcu_pending);
	out->peak_active = stat_read(&c->peak_active);
	out->peak_total = stat_read(&c->peak_total);
	out->obj_bytes = c->block;
	out->bytes = out->total * out->obj_bytes;
	out->nr_alloc = f.sum.nr_alloc;
	out->nr_alloc_fail = f.sum.nr_alloc_fail;
	out->nr_free = f.sum.nr_free;
	out->nr_reused = f.sum.nr_reused;
	out->nr_ctor = f.sum.nr_ctor;
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

unsigned int kmem_cache_list_count(struct kmem_cache *c)
{
	unsigned int n;

	spin_lock(&c->lock);
	n = c->nr_free;
	spin_unlock(&c->lock);
	return n;
}

unsigned int kmem_cache_array_avail(struct kmem_cache *c)
{
	struct task_struct *t = current;
	const struct array_cache *ac = c->id >= 0 ? t->slab_array[c->id] : NULL;

	return ac ? ac->avail : 0;
}

unsigned int kmem_cache_array_limit(const struct kmem_cache *c)
{
	return c->id >= 0 ? c->limit : 0;
}

unsigned int kmem_cache_batchcount(const struct kmem_cache *c)
{
	return c->batchcount;
}
