// SPDX-License-Identifier: MIT
/*
 * Object caches: type stability of SLAB_DESTROY_BY_RCU (constructed once,
 * reused by the same cache, memory back to libc only after a grace
 * period), a 32-thread alloc/free storm with stale readers, shrink and
 * destroy accounting, the free-list limit, failure injection, and
 * GFP_KERNEL in atomic context.
 */
#include <check.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "compiler.h"
#include "lockdep.h"
#include "page_alloc.h"
#include "rcu.h"
#include "rt_check.h"
#include "slab.h"
#include "spinlock.h"

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
	ck_assert_uint_eq(__atomic_load_n(&nr_ctor_calls, __ATOMIC_RELAXED), 1);

	kmem_cache_stats(c, &st);
	ck_assert_uint_eq(st.active, 1);
	ck_assert_uint_eq(st.total, 1);
	ck_assert_uint_eq(st.nr_reused, 1);
	ck_assert_uint_eq(st.nr_ctor, 1);
	ck_assert_uint_eq(st.nr_libc_alloc, 1);
	ck_assert_uint_eq(st.nr_libc_free, 0);
	ck_assert_str_eq(kmem_cache_name(c), "test_sobj");
	ck_assert_uint_eq(kmem_cache_size(c), sizeof(struct sobj));

	kmem_cache_free(c, b);
	kmem_cache_destroy(c);
}
END_TEST

START_TEST(test_slab_plain_cache_frees_at_once)
{
	struct kmem_cache *c = sobj_cache(0);
	struct kmem_cache_stats st;
	struct sobj *a, *b;

	a = kmem_cache_alloc(c, GFP_KERNEL);
	ck_assert_ptr_nonnull(a);
	kmem_cache_free(c, a);
	kmem_cache_stats(c, &st);
	ck_assert_uint_eq(st.total, 0);
	ck_assert_uint_eq(st.nr_libc_free, 1);

	b = kmem_cache_alloc(c, GFP_ATOMIC);
	ck_assert_ptr_nonnull(b);
	/* Fresh from libc each time: constructed again. */
	ck_assert_uint_eq(b->magic, OBJ_MAGIC);
	ck_assert_uint_eq(__atomic_load_n(&nr_ctor_calls, __ATOMIC_RELAXED), 2);
	kmem_cache_stats(c, &st);
	ck_assert_uint_eq(st.nr_reused, 0);
	kmem_cache_free(c, b);
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
	rt_check(st.free == NR_SHRINK);
	rt_check(st.total == NR_SHRINK);

	rcu_read_lock();
	kmem_cache_shrink(c);
	kmem_cache_stats(c, &st);
	rt_check(st.free == 0);
	/* Our section started before the call_rcu()s: nothing may go back yet. */
	for (int spin = 0; spin < 20; spin++) {
		sched_yield();
		kmem_cache_stats(c, &st);
		rt_check(st.rcu_pending == NR_SHRINK);
		rt_check(st.total == NR_SHRINK);
	}
	rcu_read_unlock();

	rcu_barrier();
	kmem_cache_stats(c, &st);
	rt_check(st.rcu_pending == 0);
	rt_check(st.total == 0);
	rt_check(st.bytes == 0);
	rt_check(st.nr_libc_free == NR_SHRINK);
	rt_check(st.peak_total == NR_SHRINK);
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

START_TEST(test_slab_free_limit)
{
	struct kmem_cache *c = sobj_cache(SLAB_DESTROY_BY_RCU);
	struct kmem_cache_stats st;
	void *p[20];

	kmem_cache_set_free_limit(c, 8);
	for (int i = 0; i < 20; i++)
		p[i] = kmem_cache_alloc(c, GFP_KERNEL);
	for (int i = 0; i < 20; i++)
		kmem_cache_free(c, p[i]);
	kmem_cache_stats(c, &st);
	ck_assert_uint_le(st.free, 8);
	ck_assert_uint_eq(st.free + st.rcu_pending + st.nr_libc_free, 20);
	rcu_barrier();
	kmem_cache_stats(c, &st);
	ck_assert_uint_eq(st.rcu_pending, 0);
	ck_assert_uint_eq(st.total, st.free);
	ck_assert_uint_eq(st.nr_libc_free, 20 - st.free);
	kmem_cache_destroy(c);
}
END_TEST

START_TEST(test_slab_destroy_accounting)
{
	struct kmem_cache *c = sobj_cache(SLAB_DESTROY_BY_RCU);
	struct kmem_cache_stats st;
	void *p[50];

	for (int i = 0; i < 50; i++)
		p[i] = kmem_cache_alloc(c, GFP_KERNEL);
	kmem_cache_stats(c, &st);
	ck_assert_uint_eq(st.active, 50);
	ck_assert_uint_eq(st.peak_active, 50);
	ck_assert_uint_eq(st.total, 50);
	ck_assert_uint_ge(st.obj_bytes, sizeof(struct sobj));
	ck_assert_uint_eq(st.bytes, 50 * st.obj_bytes);
	for (int i = 0; i < 50; i++)
		kmem_cache_free(c, p[i]);
	kmem_cache_stats(c, &st);
	ck_assert_uint_eq(st.active, 0);
	ck_assert_uint_eq(st.free, 50);
	ck_assert_uint_eq(st.nr_alloc, 50);
	ck_assert_uint_eq(st.nr_free, 50);
	/* Returns all 50 after a grace period; BUGs if any were still allocated. */
	kmem_cache_destroy(c);
	ck_assert_uint_eq(__atomic_load_n(&nr_ctor_calls, __ATOMIC_RELAXED), 50);
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
		if (idx == 1 && i % 200 == 0)
			kmem_cache_shrink(c->cache);
	}
}

START_TEST(test_slab_storm_stale_readers)
{
	static struct storm_ctx c;
	struct kmem_cache_stats st;

	memset(&c, 0, sizeof(c));
	c.cache = sobj_cache(SLAB_DESTROY_BY_RCU);
	c.iters = 1500;
	/* A short free list: objects keep going back to libc during the storm. */
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

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "type_stable", 20, NULL, NULL, .tests = {
			test_slab_type_stable_reuse,
			test_slab_plain_cache_frees_at_once,
			test_slab_hwcache_align,
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
