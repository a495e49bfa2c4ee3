// SPDX-License-Identifier: MIT
/*
 * Object caches: type stability of SLAB_DESTROY_BY_RCU (constructed once,
 * reused by the same cache, memory back to libc only after a grace
 * period), poisoning and re-construction without it, the per-task
 * arrays (LIFO reuse, batch flush and refill through the cache's list,
 * drains at detach and destroy, statistics folded across tasks), a
 * 32-thread alloc/free storm with stale readers, shrink and destroy
 * accounting, the free-list limit, failure injection, and GFP_KERNEL in
 * atomic context.
 */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "compiler.h"
#include "die.h"
#include "lockdep.h"
#include "page_alloc.h"
#include "rcu.h"
#include "rt_check.h"
#include "slab-internal.h"
#include "slab.h"
#include "spinlock.h"

#if RT_ASAN
#include <sanitizer/asan_interface.h>
#endif

#define NR_THREADS	32
#define NR_SLOTS	16
#define OBJ_MAGIC	0x51ab0b1ec7ed0001ULL

/* Shaped like an anon_vma: a lock that stale readers may take. */
struct sobj {
	uint64_t magic;		/* set by the ctor only */
	spinlock_t lock;	/* initialised by the ctor only */
	unsigned long gen;	/* lock: bumped at every allocation */
	int owner;		/* lock */
};

static unsigned long nr_ctor_calls;	/* relaxed atomic */
static int sobj_lock_class = -1;

static int sobj_class(void)
{
	if (sobj_lock_class < 0) {
		sobj_lock_class = lockdep_register_class("test_sobj_lock", -1);
		ck_assert_int_ge(sobj_lock_class, 0);
	}
	return sobj_lock_class;
}

static void sobj_ctor(void *p)
{
	struct sobj *o = p;

	o->magic = OBJ_MAGIC;
	spin_lock_init(&o->lock, sobj_lock_class);
	o->gen = 0;
	o->owner = -1;
	__atomic_fetch_add(&nr_ctor_calls, 1, __ATOMIC_RELAXED);
}

static struct kmem_cache *sobj_cache(unsigned long flags)
{
	sobj_class();
	__atomic_store_n(&nr_ctor_calls, 0, __ATOMIC_RELAXED);
	return kmem_cache_create("test_sobj", sizeof(struct sobj), flags, sobj_ctor);
}

START_TEST(test_slab_type_stable_reuse)
{
	struct kmem_cache *c = sobj_cache(SLAB_DESTROY_BY_RCU);
	struct kmem_cache_stats st;
	struct sobj *a, *b;

	a = kmem_cache_alloc(c, GFP_KERNEL);
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(a->magic, OBJ_MAGIC);
	a->gen = 41;
	kmem_cache_free(c, a);

	b = kmem_cache_alloc(c, GFP_KERNEL);
	/* The same object, still constructed, with what its last user left. */
	ck_assert_ptr_eq(a, b);
	ck_assert_uint_eq(b->magic, OBJ_MAGIC);
	ck_assert_uint_eq(b->gen, 41);

	kmem_cache_stats(c, &st);
	/* Constructed once each, when the refill took them from libc. */
	ck_assert_uint_eq(__atomic_load_n(&nr_ctor_calls, __ATOMIC_RELAXED), st.nr_libc_alloc);
	ck_assert_uint_eq(st.nr_ctor, st.nr_libc_alloc);
	ck_assert_uint_eq(st.active, 1);
	ck_assert_uint_eq(st.total, st.nr_libc_alloc);
	ck_assert_uint_eq(st.free, st.total - 1);
	ck_assert_uint_eq(st.nr_reused, 1);
	ck_assert_uint_eq(st.nr_libc_free, 0);
	ck_assert_str_eq(kmem_cache_name(c), "test_sobj");
	ck_assert_uint_eq(kmem_cache_size(c), sizeof(struct sobj));

	kmem_cache_free(c, b);
	kmem_cache_destroy(c);
}
END_TEST

/*
 * Is every byte of @p, freed, unusable? ASan-poisoned in the ASan build
 * (reading it would be the report), 0x6b (POISON_FREE) otherwise.
 */
static bool freed_poisoned(const void *p, size_t size)
{
#if RT_ASAN
	return __asan_region_is_poisoned((void *)(uintptr_t)p, size) == p;
#else
	const unsigned char *b = p;

	for (size_t i = 0; i < size; i++)
		if (b[i] != 0x6b)
			return false;
	return true;
#endif
}

START_TEST(test_slab_plain_cache_poisons_and_reconstructs)
{
	struct kmem_cache *c = sobj_cache(0);
	struct kmem_cache_stats st;
	struct sobj *a, *b;

	a = kmem_cache_alloc(c, GFP_KERNEL);
	ck_assert_ptr_nonnull(a);
	a->gen = 41;
	kmem_cache_free(c, a);
#if !RT_TSAN
	/*
	 * Dead while free: a stale reader finds poison, not an object. (The
	 * TSan build gives the memory back to libc instead, where TSan sees
	 * a stale reader; the block in the array is another.)
	 */
	ck_assert(freed_poisoned(a, sizeof(*a)));
#endif
	kmem_cache_stats(c, &st);
	ck_assert_uint_ge(st.total, 1);
	ck_assert_uint_eq(st.free, st.total);

	b = kmem_cache_alloc(c, GFP_ATOMIC);
	/* The same memory (LIFO), constructed anew. */
	if (!RT_TSAN)
		ck_assert_ptr_eq(a, b);
	ck_assert_uint_eq(b->magic, OBJ_MAGIC);
	ck_assert_uint_eq(b->gen, 0);
	ck_assert_uint_eq(__atomic_load_n(&nr_ctor_calls, __ATOMIC_RELAXED), 2);
	kmem_cache_stats(c, &st);
	ck_assert_uint_eq(st.nr_reused, 1);
	/* At each handing out, never for the batch that waits in the array. */
	ck_assert_uint_eq(st.nr_ctor, 2);
	kmem_cache_free(c, b);
	kmem_cache_destroy(c);
}
END_TEST

START_TEST(test_slab_rcu_free_object_stays_constructed)
{
	struct kmem_cache *c = sobj_cache(SLAB_DESTROY_BY_RCU);
	struct kmem_cache_stats st;
	struct sobj *a;

	a = kmem_cache_alloc(c, GFP_KERNEL);
	ck_assert_ptr_nonnull(a);
	a->gen = 7;
	kmem_cache_free(c, a);
	/* A reader that found it before the free may still lock and read it. */
	ck_assert(!freed_poisoned(a, sizeof(*a)));
	ck_assert_uint_eq(a->magic, OBJ_MAGIC);
	spin_lock(&a->lock);
	ck_assert_uint_eq(a->gen, 7);
	spin_unlock(&a->lock);
	kmem_cache_stats(c, &st);
	ck_assert_uint_eq(__atomic_load_n(&nr_ctor_calls, __ATOMIC_RELAXED), st.nr_libc_alloc);
	kmem_cache_destroy(c);
}
END_TEST

START_TEST(test_slab_hwcache_align)
{
	struct kmem_cache *c = kmem_cache_create("test_aligned", 24,
						 SLAB_HWCACHE_ALIGN | SLAB_DESTROY_BY_RCU, NULL);
	void *p[8];

	for (int i = 0; i < 8; i++) {
		p[i] = kmem_cache_alloc(c, GFP_KERNEL);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert_uint_eq((uintptr_t)p[i] % SMP_CACHE_BYTES, 0);
	}
	for (int i = 0; i < 8; i++)
		kmem_cache_free(c, p[i]);
	kmem_cache_destroy(c);
}
END_TEST

/* ---- shrink: memory goes back only after a grace period ---- */

#define NR_SHRINK 100

static void shrink_thread(int idx, void *arg)
{
	struct kmem_cache *c = arg;
	struct kmem_cache_stats st;
	void *p[NR_SHRINK];
	unsigned long total;

	(void)idx;
	for (int i = 0; i < NR_SHRINK; i++) {
		p[i] = kmem_cache_alloc(c, GFP_KERNEL);
		if (!p[i]) {
			rt_fail("alloc %d failed", i);
			return;
		}
	}
	for (int i = 0; i < NR_SHRINK; i++)
		kmem_cache_free(c, p[i]);
	kmem_cache_stats(c, &st);
	total = st.total;
	rt_check(total >= NR_SHRINK);
	rt_check(st.free == total);

	rcu_read_lock();
	kmem_cache_shrink(c);
	kmem_cache_stats(c, &st);
	rt_check(st.free == 0);
	/* Our section started before the call_rcu()s: nothing may go back yet. */
	for (int spin = 0; spin < 20; spin++) {
		sched_yield();
		kmem_cache_stats(c, &st);
		rt_check(st.rcu_pending == total);
		rt_check(st.total == total);
	}
	rcu_read_unlock();

	rcu_barrier();
	kmem_cache_stats(c, &st);
	rt_check(st.rcu_pending == 0);
	rt_check(st.total == 0);
	rt_check(st.bytes == 0);
	rt_check(st.nr_libc_free == total);
	rt_check(st.peak_total == total);
}

START_TEST(test_slab_shrink_after_grace_period)
{
	struct kmem_cache *c = sobj_cache(SLAB_DESTROY_BY_RCU);

	rt_failure_reset();
	rt_run_threads(1, shrink_thread, c);
	ck_assert_no_worker_failure();
	kmem_cache_destroy(c);
}
END_TEST

#define NR_LIMIT	300

START_TEST(test_slab_free_limit)
{
	struct kmem_cache *c = sobj_cache(SLAB_DESTROY_BY_RCU);
	struct kmem_cache_stats st;
	void **p = rt_calloc(NR_LIMIT, sizeof(*p));

	kmem_cache_set_free_limit(c, 8);
	for (int i = 0; i < NR_LIMIT; i++)
		p[i] = kmem_cache_alloc(c, GFP_KERNEL);
	/* More than the task's array holds: flushes reach the list's limit. */
	for (int i = 0; i < NR_LIMIT; i++)
		kmem_cache_free(c, p[i]);
	ck_assert_uint_le(kmem_cache_list_count(c), 8);
	ck_assert_uint_le(kmem_cache_array_avail(c), kmem_cache_array_limit(c));
	kmem_cache_stats(c, &st);
	ck_assert_uint_eq(st.free, kmem_cache_list_count(c) + kmem_cache_array_avail(c));
	ck_assert_uint_gt(st.rcu_pending + st.nr_libc_free, 0);
	ck_assert_uint_eq(st.free + st.rcu_pending + st.nr_libc_free, st.nr_libc_alloc);
	rcu_barrier();
	kmem_cache_stats(c, &st);
	ck_assert_uint_eq(st.rcu_pending, 0);
	ck_assert_uint_eq(st.total, st.free);
	ck_assert_uint_eq(st.nr_libc_free, st.nr_libc_alloc - st.free);
	free(p);
	kmem_cache_destroy(c);
}
END_TEST

START_TEST(test_slab_destroy_accounting)
{
	struct kmem_cache *c = sobj_cache(SLAB_DESTROY_BY_RCU);
	struct kmem_cache_stats st;
	unsigned long total;
	void *p[50];

	for (int i = 0; i < 50; i++)
		p[i] = kmem_cache_alloc(c, GFP_KERNEL);
	kmem_cache_stats(c, &st);
	ck_assert_uint_eq(st.active, 50);
	/* The refills' batches: handed out or waiting in this task's array. */
	ck_assert_uint_ge(st.total, 50);
	ck_assert_uint_eq(st.free, st.total - 50);
	ck_assert_uint_eq(st.peak_active, st.total);
	ck_assert_uint_ge(st.obj_bytes, sizeof(struct sobj));
	ck_assert_uint_eq(st.bytes, st.total * st.obj_bytes);
	total = st.total;
	for (int i = 0; i < 50; i++)
		kmem_cache_free(c, p[i]);
	kmem_cache_stats(c, &st);
	ck_assert_uint_eq(st.active, 0);
	ck_assert_uint_eq(st.free, total);
	ck_assert_uint_eq(st.nr_alloc, 50);
	ck_assert_uint_eq(st.nr_free, 50);
	/* Returns them all after a grace period; BUGs if any were still allocated. */
	kmem_cache_destroy(c);
	ck_assert_uint_eq(__atomic_load_n(&nr_ctor_calls, __ATOMIC_RELAXED), total);
}
END_TEST

START_TEST(test_slab_fail_every)
{
	struct kmem_cache *c = sobj_cache(SLAB_DESTROY_BY_RCU);
	struct kmem_cache_stats st;
	void *p[9];
	int nr_null = 0;

	kmem_cache_set_fail_every(c, 3);
	for (int i = 0; i < 9; i++) {
		p[i] = kmem_cache_alloc(c, GFP_KERNEL);
		if ((i + 1) % 3 == 0)
			ck_assert_ptr_null(p[i]);
		else
			ck_assert_ptr_nonnull(p[i]);
		nr_null += !p[i];
	}
	ck_assert_int_eq(nr_null, 3);
	kmem_cache_stats(c, &st);
	ck_assert_uint_eq(st.nr_alloc_fail, 3);
	ck_assert_uint_eq(st.active, 6);
	kmem_cache_set_fail_every(c, 0);
	for (int i = 0; i < 9; i++) {
		if (!p[i])
			p[i] = kmem_cache_alloc(c, GFP_KERNEL);
		ck_assert_ptr_nonnull(p[i]);
	}
	for (int i = 0; i < 9; i++)
		kmem_cache_free(c, p[i]);
	kmem_cache_destroy(c);
}
END_TEST

/* ---- GFP_KERNEL in atomic context is reported ---- */

START_TEST(test_slab_gfp_kernel_in_atomic_reported)
{
	struct kmem_cache *c = sobj_cache(0);
	spinlock_t outer;
	void *a, *b;

	spin_lock_init(&outer, sobj_class());
	rt_reports_capture();
	spin_lock(&outer);
	a = kmem_cache_alloc(c, GFP_ATOMIC);
	b = kmem_cache_alloc(c, GFP_KERNEL);
	spin_unlock(&outer);
	rt_reports_release();
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 1);
	kmem_cache_free(c, a);
	kmem_cache_free(c, b);
	kmem_cache_destroy(c);
}
END_TEST

/* ---- the storm: reuse under stale readers ---- */

struct storm_ctx {
	struct kmem_cache *cache;
	struct sobj *slots[NR_SLOTS];	/* RCU; replaced with an atomic exchange */
	int iters;
};

/* Replace a slot's object; free the old one at once (no grace period). */
static void storm_write(struct storm_ctx *c, int idx, uint64_t *rnd)
{
	int slot = (int)(rt_rand(rnd) % NR_SLOTS);
	struct sobj *o = kmem_cache_alloc(c->cache, GFP_KERNEL), *old;

	if (!o)
		return;		/* injected failure: the ENOMEM path */
	if (o->magic != OBJ_MAGIC)
		rt_fail("allocated object %p not constructed", (void *)o);
	spin_lock(&o->lock);
	o->gen++;
	o->owner = idx;
	spin_unlock(&o->lock);
	/* Release publishes the object; acquire pairs with the previous publisher. */
	old = __atomic_exchange_n(&c->slots[slot], o, __ATOMIC_ACQ_REL);
	if (old)
		kmem_cache_free(c->cache, old);
}

/*
 * A stale reader: the object may be freed and reused while we look at it,
 * but stays a constructed struct sobj until rcu_read_unlock().
 */
static void storm_read(struct storm_ctx *c, uint64_t *rnd)
{
	int slot = (int)(rt_rand(rnd) % NR_SLOTS);
	struct sobj *o;
	unsigned long g1, g2;

	rcu_read_lock();
	o = rcu_dereference(c->slots[slot]);
	if (!o)
		goto out;
	if (o->magic != OBJ_MAGIC) {
		rt_fail("stale object %p: magic %#llx", (void *)o, (unsigned long long)o->magic);
		goto out;
	}
	spin_lock(&o->lock);
	g1 = o->gen;
	spin_unlock(&o->lock);
	for (int i = 0; i < 4; i++)
		sched_yield();	/* let writers free and reuse it meanwhile */
	if (o->magic != OBJ_MAGIC) {
		rt_fail("stale object %p: magic %#llx after yield", (void *)o,
			(unsigned long long)o->magic);
		goto out;
	}
	spin_lock(&o->lock);
	g2 = o->gen;
	spin_unlock(&o->lock);
	/* Reused, maybe; reconstructed (gen back to 0) never. */
	if (g2 < g1)
		rt_fail("object %p generation went back %lu -> %lu", (void *)o, g1, g2);
out:
	rcu_read_unlock();
}

static void storm_thread(int idx, void *arg)
{
	struct storm_ctx *c = arg;
	uint64_t rnd = rt_seed_child(rt_test_seed(), (uint64_t)idx);

	for (int i = 0; i < c->iters; i++) {
		if (idx % 2 == 0 || rt_rand(&rnd) % 4 == 0)
			storm_write(c, idx, &rnd);
		else
			storm_read(c, &rnd);
	}
}

START_TEST(test_slab_storm_stale_readers)
{
	static struct storm_ctx c;
	struct kmem_cache_stats st;

	memset(&c, 0, sizeof(c));
	c.cache = sobj_cache(SLAB_DESTROY_BY_RCU);
	c.iters = 1500;
	/*
	 * A short free list: flushed batches keep going back to libc during
	 * the storm (kmem_cache_shrink() may not run beside other users).
	 */
	kmem_cache_set_free_limit(c.cache, 8);
	kmem_cache_set_fail_every(c.cache, 97);
	rt_failure_reset();

	rt_run_threads(NR_THREADS, storm_thread, &c);
	ck_assert_no_worker_failure();

	for (int i = 0; i < NR_SLOTS; i++) {
		struct sobj *o = __atomic_exchange_n(&c.slots[i], NULL, __ATOMIC_ACQ_REL);

		if (o)
			kmem_cache_free(c.cache, o);
	}
	kmem_cache_shrink(c.cache);
	rcu_barrier();
	kmem_cache_stats(c.cache, &st);
	ck_assert_uint_eq(st.active, 0);
	ck_assert_uint_eq(st.total, 0);
	ck_assert_uint_eq(st.rcu_pending, 0);
	ck_assert_uint_eq(st.nr_libc_free, st.nr_libc_alloc);
	ck_assert_uint_eq(st.nr_ctor, st.nr_libc_alloc);
	ck_assert_uint_eq(st.nr_alloc, st.nr_free);
	ck_assert_uint_gt(st.nr_reused, 0);
	ck_assert_uint_gt(st.nr_alloc_fail, 0);
	ck_assert_uint_gt(st.nr_libc_free, 0);
	kmem_cache_destroy(c.cache);
}
END_TEST

/* ---- the per-task arrays ---- */

START_TEST(test_slab_array_lifo)
{
	struct kmem_cache *c = sobj_cache(SLAB_DESTROY_BY_RCU);
	void *p[3], *q[3];
	unsigned int avail;

	for (int i = 0; i < 3; i++)
		p[i] = kmem_cache_alloc(c, GFP_KERNEL);
	avail = kmem_cache_array_avail(c);
	for (int i = 0; i < 3; i++)
		kmem_cache_free(c, p[i]);
	ck_assert_uint_eq(kmem_cache_array_avail(c), avail + 3);
	ck_assert_uint_eq(kmem_cache_list_count(c), 0);
	/* The most recently freed comes back first. */
	for (int i = 0; i < 3; i++)
		q[i] = kmem_cache_alloc(c, GFP_KERNEL);
	ck_assert_ptr_eq(q[0], p[2]);
	ck_assert_ptr_eq(q[1], p[1]);
	ck_assert_ptr_eq(q[2], p[0]);
	for (int i = 0; i < 3; i++)
		kmem_cache_free(c, q[i]);
	kmem_cache_destroy(c);
}
END_TEST

struct flush_ctx {
	struct kmem_cache *cache;
	void **objs;
	unsigned int limit, batch;
	void *got;		/* what the second task took first */
	unsigned int list_after, avail_after;
};

/* The second task: its first allocation refills its array from the list. */
static void flush_second_task(int idx, void *arg)
{
	struct flush_ctx *f = arg;

	(void)idx;
	f->got = kmem_cache_alloc(f->cache, GFP_KERNEL);
	f->avail_after = kmem_cache_array_avail(f->cache);
	f->list_after = kmem_cache_list_count(f->cache);
	kmem_cache_free(f->cache, f->got);
}

START_TEST(test_slab_array_overflow_flushes_batch)
{
	static struct flush_ctx f;
	unsigned int n, r, nr_freed = 0;
	void **again;

	memset(&f, 0, sizeof(f));
	f.cache = sobj_cache(SLAB_DESTROY_BY_RCU);
	f.limit = kmem_cache_array_limit(f.cache);
	f.batch = kmem_cache_batchcount(f.cache);
	ck_assert_uint_gt(f.limit, 1);
	ck_assert_uint_eq(f.batch, (f.limit + 1) / 2);
	kmem_cache_set_free_limit(f.cache, 8 * f.limit);
	n = f.limit + 1;
	f.objs = rt_calloc(n, sizeof(void *));
	for (unsigned int i = 0; i < n; i++)
		f.objs[i] = kmem_cache_alloc(f.cache, GFP_KERNEL);
	/* What the last refill's batch left, under the objects freed next. */
	r = kmem_cache_array_avail(f.cache);
	ck_assert_uint_lt(r, f.batch);
	while (kmem_cache_array_avail(f.cache) < f.limit)
		kmem_cache_free(f.cache, f.objs[nr_freed++]);
	ck_assert_uint_eq(kmem_cache_list_count(f.cache), 0);

	/* Full: the next free moves the batch oldest to the list first. */
	kmem_cache_free(f.cache, f.objs[nr_freed++]);
	ck_assert_uint_eq(kmem_cache_array_avail(f.cache), f.limit - f.batch + 1);
	ck_assert_uint_eq(kmem_cache_list_count(f.cache), f.batch);

	/* Another task takes from the list, the most recently flushed first. */
	rt_run_threads(1, flush_second_task, &f);
	ck_assert_ptr_eq(f.got, f.objs[f.batch - r - 1]);
	ck_assert_uint_gt(f.avail_after, 0);
	ck_assert_uint_eq(f.list_after + f.avail_after + 1, f.batch);
	/* Its array went back to the list when it detached. */
	ck_assert_uint_eq(kmem_cache_list_count(f.cache), f.batch);

	/* The flushed objects left the first task's array: they are not here. */
	n = kmem_cache_array_avail(f.cache);
	again = rt_calloc(n, sizeof(void *));
	for (unsigned int i = 0; i < n; i++) {
		again[i] = kmem_cache_alloc(f.cache, GFP_KERNEL);
		for (unsigned int j = 0; j < f.batch - r; j++)
			ck_assert_ptr_ne(again[i], f.objs[j]);
	}
	ck_assert_uint_eq(kmem_cache_array_avail(f.cache), 0);
	for (unsigned int i = 0; i < n; i++)
		kmem_cache_free(f.cache, again[i]);
	for (unsigned int i = nr_freed; i < f.limit + 1; i++)
		kmem_cache_free(f.cache, f.objs[i]);
	free(again);
	free(f.objs);
	kmem_cache_destroy(f.cache);
}
END_TEST

#define NR_DETACH	10

static unsigned int detach_avail;	/* the task's array when it detached */

static void detach_fill(int idx, void *arg)
{
	struct kmem_cache *c = arg;
	void *p[NR_DETACH];
	unsigned int avail;

	(void)idx;
	for (int i = 0; i < NR_DETACH; i++)
		p[i] = kmem_cache_alloc(c, GFP_KERNEL);
	avail = kmem_cache_array_avail(c);
	for (int i = 0; i < NR_DETACH; i++)
		kmem_cache_free(c, p[i]);
	detach_avail = kmem_cache_array_avail(c);	/* read after the join */
	rt_check(detach_avail == avail + NR_DETACH);
}

START_TEST(test_slab_detach_drains)
{
	struct kmem_cache *c = sobj_cache(0);
	struct kmem_cache_stats st;
	void *o;

	rt_failure_reset();
	rt_run_threads(1, detach_fill, c);
	ck_assert_no_worker_failure();
	/* rt_task_detach() moved the task's array to the cache's list. */
	ck_assert_uint_ge(detach_avail, NR_DETACH);
	ck_assert_uint_eq(kmem_cache_list_count(c), detach_avail);
	kmem_cache_stats(c, &st);
	ck_assert_uint_eq(st.free, detach_avail);
	ck_assert_uint_eq(st.total, detach_avail);
	ck_assert_uint_eq(st.active, 0);
	ck_assert_uint_eq(st.nr_alloc, NR_DETACH);
	ck_assert_uint_eq(st.nr_free, NR_DETACH);

	o = kmem_cache_alloc(c, GFP_KERNEL);
	ck_assert_uint_eq(((struct sobj *)o)->magic, OBJ_MAGIC);
	kmem_cache_stats(c, &st);
	ck_assert_uint_eq(st.nr_reused, 1);
	ck_assert_uint_eq(st.nr_libc_alloc, detach_avail);
	kmem_cache_free(c, o);
	kmem_cache_destroy(c);
}
END_TEST

/*
 * Tasks 1 and 2 keep freed objects in their arrays and stay attached
 * while task 0 destroys the cache; all three meet through @filled and
 * @destroyed (release/acquire).
 */
#define NR_LIVE		40

struct live_ctx {
	struct kmem_cache *cache;
	int filled;		/* atomic: tasks that filled their arrays */
	int destroyed;		/* atomic: the cache is gone */
	unsigned long nr_libc_alloc;	/* task 0's, read after the join */
};

static void live_destroyer(struct live_ctx *l)
{
	struct kmem_cache_stats st;

	/* Acquire pairs with the release of each filler. */
	while (__atomic_load_n(&l->filled, __ATOMIC_ACQUIRE) < 2)
		sched_yield();
	kmem_cache_stats(l->cache, &st);
	rt_check(st.total >= 2 * NR_LIVE);
	rt_check(st.free == st.total);
	rt_check(st.active == 0);
	l->nr_libc_alloc = st.nr_libc_alloc;
	/* BUGs if an object is left: total must reach 0. */
	kmem_cache_destroy(l->cache);
	/* Release pairs with the fillers' acquire before they detach. */
	__atomic_store_n(&l->destroyed, 1, __ATOMIC_RELEASE);
}

static void live_thread(int idx, void *arg)
{
	struct live_ctx *l = arg;
	void *p[NR_LIVE];
	unsigned int avail;

	if (idx == 0) {
		live_destroyer(l);
		return;
	}
	for (int i = 0; i < NR_LIVE; i++)
		p[i] = kmem_cache_alloc(l->cache, GFP_KERNEL);
	avail = kmem_cache_array_avail(l->cache);
	for (int i = 0; i < NR_LIVE; i++)
		kmem_cache_free(l->cache, p[i]);
	rt_check(kmem_cache_array_avail(l->cache) == avail + NR_LIVE);
	__atomic_fetch_add(&l->filled, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&l->destroyed, __ATOMIC_ACQUIRE))
		sched_yield();
}

START_TEST(test_slab_destroy_frees_live_arrays)
{
	static const unsigned long flags[] = { 0, SLAB_DESTROY_BY_RCU };
	static struct live_ctx l;

	for (size_t i = 0; i < ARRAY_SIZE(flags); i++) {
		memset(&l, 0, sizeof(l));
		l.cache = sobj_cache(flags[i]);
		rt_failure_reset();
		rt_run_threads(3, live_thread, &l);
		ck_assert_no_worker_failure();
		/* Once per object from libc with the flag, at each handing out without. */
		ck_assert_uint_eq(__atomic_load_n(&nr_ctor_calls, __ATOMIC_RELAXED),
				  (flags[i] ? l.nr_libc_alloc : 2 * NR_LIVE));
	}
}
END_TEST

/*
 * Task 1 allocates, task 2 frees what task 1 allocated: each one's own
 * counters are lopsided; the fold must not be. Task 0 reads the fold
 * while both are attached.
 */
#define NR_FOLD		500

struct fold_ctx {
	struct kmem_cache *cache;
	void *objs[NR_FOLD];	/* task 1 writes, then publishes with @stage */
	int stage;		/* atomic: 1 allocated, 2 freed, 3 checked */
};

static void fold_wait(struct fold_ctx *f, int stage)
{
	/* Acquire pairs with the release that set @stage. */
	while (__atomic_load_n(&f->stage, __ATOMIC_ACQUIRE) < stage)
		sched_yield();
}

static void fold_thread(int idx, void *arg)
{
	struct fold_ctx *f = arg;
	struct kmem_cache_stats st;

	switch (idx) {
	case 1:
		for (int i = 0; i < NR_FOLD; i++)
			f->objs[i] = kmem_cache_alloc(f->cache, GFP_KERNEL);
		__atomic_store_n(&f->stage, 1, __ATOMIC_RELEASE);
		break;
	case 2:
		fold_wait(f, 1);
		for (int i = 0; i < NR_FOLD; i++)
			kmem_cache_free(f->cache, f->objs[i]);
		__atomic_store_n(&f->stage, 2, __ATOMIC_RELEASE);
		break;
	default:
		fold_wait(f, 2);
		kmem_cache_stats(f->cache, &st);
		rt_check(st.active == 0);
		rt_check(st.nr_alloc == NR_FOLD);
		rt_check(st.nr_free == NR_FOLD);
		rt_check(st.total >= NR_FOLD);
		rt_check(st.free == st.total);
		rt_check(st.peak_active == st.total);
		rt_check(st.nr_ctor == st.total);
		__atomic_store_n(&f->stage, 3, __ATOMIC_RELEASE);
		return;
	}
	fold_wait(f, 3);	/* stay attached until task 0 has read */
}

START_TEST(test_slab_stats_fold_two_tasks)
{
	static struct fold_ctx f;
	struct kmem_cache_stats st;

	memset(&f, 0, sizeof(f));
	f.cache = sobj_cache(SLAB_DESTROY_BY_RCU);
	kmem_cache_set_free_limit(f.cache, 2 * NR_FOLD);
	rt_failure_reset();
	rt_run_threads(3, fold_thread, &f);
	ck_assert_no_worker_failure();
	/* And once both detached: their counters folded into the cache's. */
	kmem_cache_stats(f.cache, &st);
	ck_assert_uint_eq(st.active, 0);
	ck_assert_uint_eq(st.nr_alloc, NR_FOLD);
	ck_assert_uint_eq(st.nr_free, NR_FOLD);
	ck_assert_uint_eq(st.nr_reused, 0);
	ck_assert_uint_eq(st.free, st.total);
	ck_assert_uint_eq(kmem_cache_list_count(f.cache), st.total);
	kmem_cache_destroy(f.cache);
}
END_TEST

/* A thread that is no task, as liburcu's call_rcu thread: it frees and exits. */
static void *non_task_free(void *arg)
{
	void **objs = arg;

	for (int i = 0; i < 3; i++)
		kmem_cache_free(objs[3], objs[i]);
	return NULL;
}

START_TEST(test_slab_free_by_non_task)
{
	/* With the flag, so that the TSan build keeps the same blocks too. */
	struct kmem_cache *c = sobj_cache(SLAB_DESTROY_BY_RCU);
	struct kmem_cache_stats st;
	void *objs[4], **rest;
	unsigned int n;
	pthread_t th;

	for (int i = 0; i < 3; i++)
		objs[i] = kmem_cache_alloc(c, GFP_KERNEL);
	objs[3] = c;
	RT_PTHREAD(pthread_create(&th, NULL, non_task_free, objs));
	RT_PTHREAD(pthread_join(th, NULL));
	/* Neither in an array nor on the list yet, but free. */
	ck_assert_uint_eq(kmem_cache_list_count(c), 0);
	n = kmem_cache_array_avail(c);
	kmem_cache_stats(c, &st);
	ck_assert_uint_eq(st.free, n + 3);
	ck_assert_uint_eq(st.active, 0);
	ck_assert_uint_eq(st.nr_free, 3);
	/* Empty the array: the next refill takes them, the last freed first. */
	rest = rt_calloc(n + 1, sizeof(void *));
	for (unsigned int i = 0; i < n; i++)
		rest[i] = kmem_cache_alloc(c, GFP_KERNEL);
	rest[n] = kmem_cache_alloc(c, GFP_KERNEL);
	ck_assert_ptr_eq(rest[n], objs[2]);
	kmem_cache_stats(c, &st);
	ck_assert_uint_eq(st.nr_reused, 1);
	for (unsigned int i = 0; i <= n; i++)
		kmem_cache_free(c, rest[i]);
	free(rest);
	kmem_cache_destroy(c);
}
END_TEST

START_TEST(test_slab_create_aligned)
{
	struct kmem_cache *c = kmem_cache_create_aligned("test_page_aligned", 8208, 8192, 0,
							 NULL);
	void *p[4];

	for (int i = 0; i < 4; i++) {
		p[i] = kmem_cache_alloc(c, GFP_KERNEL);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert_uint_eq((uintptr_t)p[i] % 8192, 0);
		memset(p[i], 0, 8208);	/* all of it is the object's */
	}
	for (int i = 0; i < 4; i++)
		kmem_cache_free(c, p[i]);
	kmem_cache_destroy(c);
}
END_TEST

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "type_stable", 20, NULL, NULL, .tests = {
			test_slab_type_stable_reuse,
			test_slab_plain_cache_poisons_and_reconstructs,
			test_slab_rcu_free_object_stays_constructed,
			test_slab_hwcache_align,
			test_slab_create_aligned,
		} },
		{ "arrays", 30, NULL, NULL, .tests = {
			test_slab_array_lifo,
			test_slab_array_overflow_flushes_batch,
			test_slab_detach_drains,
			test_slab_destroy_frees_live_arrays,
			test_slab_stats_fold_two_tasks,
			test_slab_free_by_non_task,
		} },
		{ "accounting", 20, NULL, NULL, .tests = {
			test_slab_shrink_after_grace_period,
			test_slab_free_limit,
			test_slab_destroy_accounting,
			test_slab_fail_every,
			test_slab_gfp_kernel_in_atomic_reported,
		} },
		{ "storm", 50, NULL, NULL, .tests = {
			test_slab_storm_stale_readers,
		} },
	};

	return rt_check_main(rt_suite("slab", tcs, (int)ARRAY_SIZE(tcs)));
}
