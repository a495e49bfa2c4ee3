// SPDX-License-Identifier: MIT
/*
 * The object-based rmap designs (seed 001's objfile, and seed 002's
 * anonvma): nonlinear pages converted by page_convert_anon() under
 * reclaim, the conversion racing truncate, each of reclaim's trylock
 * fallbacks forced and counted, and the rmap memory a shared file
 * mapping costs against ptechain's. Every test runs in each objrmap
 * mode; what only objfile does (the conversion to a pte_chain) is
 * asserted in objfile mode only.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "die.h"
#include "fs.h"
#include "lockdep.h"
#include "mm-internal.h"
#include "mm.h"
#include "page_alloc.h"
#include "rmap-internal.h"
#include "rmap.h"
#include "rt_check.h"
#include "rt_vm.h"
#include "swap.h"
#include "task.h"
#include "vmscan.h"

/* The objrmap designs: file pages found through i_mmap, not pte_chains. */
static bool objrmap_mode(enum rmap_mode m)
{
	return m == RMAP_OBJFILE || m == RMAP_ANONVMA;
}

#define FOR_EACH_OBJ_MODE(pages, ...)					\
	RT_VM_EACH_DESIGN_IF(&(const struct rt_vm_suite)RT_VM_AUDITED(RMAP_OBJFILE, (pages), 256), \
			     objrmap_mode, __VA_ARGS__)

/* The count and state the rmap records for the cached page at @index. */
static int cached_rmap_count(struct address_space *f, unsigned long index, bool *anon)
{
	struct page *page = find_get_page(f, index);
	int n;

	ck_assert_ptr_nonnull(page);
	n = rmap->rmap_count(page);
	if (anon)
		*anon = PageAnon(page);
	put_page(page);
	return n;
}

/* Reclaim until both mms map nothing, @max rounds at most. */
static void reclaim_until_unmapped(struct mm_struct *a, struct mm_struct *b, int max)
{
	for (int i = 0; i < max && (READ_ONCE(a->rss) || (b && READ_ONCE(b->rss))); i++)
		shrink_zone(&contig_zone, max_mapnr);
}

/* ---- nonlinear ---- */

/*
 * A shared vma made nonlinear shows file pages 8..15 in its window 0..7
 * (out of place: objfile converts each), and file page 7 at its own
 * place in window slot 7 (found through i_mmap_nonlinear by find_pte);
 * a second mm maps the whole file linearly. Every page is written
 * through the window, reclaimed to the disk, and read back through both.
 */
START_TEST(test_objrmap_nonlinear_pages_under_reclaim)
{
	FOR_EACH_OBJ_MODE(512, {
		struct address_space *f = file_create("nl", 16, 16);
		struct mm_struct *m1 = mm_alloc(), *m2 = mm_alloc(), *mms[2] = { m1, m2 };
		long nl = rt_mmap(m1, f, 0, 8, VM_READ | VM_WRITE | VM_SHARED, 0);
		long lin = rt_mmap(m2, f, 0, 16, VM_READ | VM_WRITE | VM_SHARED, 0);
		uint64_t st[8], v;
		struct reclaim_stats rs;

		ck_assert_int_gt(nl, 0);
		ck_assert_int_gt(lin, 0);
		/* The linear view maps every page first: mapcount 1 each. */
		rt_access_pages(m2, lin, 16, false, NULL);
		ck_assert_int_eq(remap_file_pages(m1, nl, 7 * PAGE_SIZE, 8), 0);
		ck_assert_int_eq(remap_file_pages(m1, nl + 7 * PAGE_SIZE, PAGE_SIZE, 7), 0);
		ck_assert(m1->mmap->vm_flags & VM_NONLINEAR);
		rt_access_pages(m1, nl, 8, true, st);
		ck_assert_uint_eq(m1->rss, 8);
		ck_assert_uint_eq(m2->rss, 16);

		for (int i = 0; i < 8; i++) {
			unsigned long index = i < 7 ? 8 + (unsigned long)i : 7;
			bool anon;

			ck_assert_int_eq(cached_rmap_count(f, index, &anon), 2);
			if (rmap_mode == RMAP_OBJFILE)	/* converted out of place only */
				ck_assert_msg(anon == (i < 7), "offset %lu: PG_anon %d", index, anon);
		}
		rt_audit_ok(mms, 2, &f, 1);

		/* Twice at least: the first pass finds the young bits. */
		shrink_zone(&contig_zone, max_mapnr);
		shrink_zone(&contig_zone, max_mapnr);
		reclaim_until_unmapped(m1, m2, 8);
		ck_assert_uint_eq(m1->rss, 0);
		ck_assert_uint_eq(m2->rss, 0);
		ck_assert_uint_eq(READ_ONCE(f->nrpages), 0);
		reclaim_stats_read(&rs);
		ck_assert_uint_ge(rs.file_written, 8);	/* the dirty ones */
		ck_assert_uint_eq(rs.swapped_out, 0);	/* file pages, converted or not */
		rt_audit_ok(mms, 2, &f, 1);

		for (int i = 0; i < 8; i++) {
			unsigned long index = i < 7 ? 8 + (unsigned long)i : 7;

			ck_assert_int_eq(rt_access(m1, nl + i * PAGE_SIZE, false, &v), ACCESS_OK);
			ck_assert_uint_eq(v, st[i]);
			ck_assert_int_eq(rt_access(m2, lin + index * PAGE_SIZE, false, &v), ACCESS_OK);
			ck_assert_uint_eq(v, st[i]);
		}
		rt_audit_and_exit(mms, 2, &f, 1);
	});
}
END_TEST

#define RACE_MMS	4
#define RACE_THREADS	10
#define RACE_ITERS	1500

struct convert_race {
	struct address_space *file;
	struct mm_struct *mm[RACE_MMS];
	long nl[RACE_MMS], lin[RACE_MMS];
	int workers_left;		/* release by each worker, acquire by kswapd */
	unsigned long ok;		/* atomic: accesses that completed */
};

static void convert_race_worker(int idx, void *arg)
{
	struct convert_race *r = arg;
	uint64_t rng = rt_test_seed() * 131 + (uint64_t)idx;

	if (idx == 0) {
		/* kswapd: reclaim converted and linear pages meanwhile. */
		while (__atomic_load_n(&r->workers_left, __ATOMIC_ACQUIRE) > 0)
			shrink_zone(&contig_zone, 64);
		return;
	}
	for (int it = 0; it < RACE_ITERS; it++) {
		uint64_t x = rt_rand(&rng);
		int m = (int)(x % RACE_MMS);
		struct mm_struct *mm = r->mm[m];
		unsigned long slot = (x >> 8) % 8, pgoff = (x >> 12) % 16;
		enum mm_access_result res = ACCESS_OK;

		if (idx <= 2) {
			/* truncate, then grow back: page_convert_anon() races it */
			vmtruncate(r->file, (x >> 16) % 16);
			file_extend(r->file, 16);
			continue;
		}
		int err;

		switch ((x >> 20) % 4) {
		case 0:
			/* -EINVAL: a truncate is under way (populate, 2.6.8). */
			err = remap_file_pages(mm, (unsigned long)r->nl[m] + slot * PAGE_SIZE, PAGE_SIZE, pgoff);
			if (err && err != -EINVAL)
				rt_fail("remap_file_pages(%lu, %lu) failed: %d", slot, pgoff, err);
			break;
		case 1:
			res = rt_access(mm, (unsigned long)r->nl[m] + slot * PAGE_SIZE, (x >> 24) & 1, NULL);
			break;
		case 2:
			res = rt_access(mm, (unsigned long)r->lin[m] + pgoff * PAGE_SIZE, (x >> 24) & 1, NULL);
			break;
		default:
			/* Back in place: linear again, mapcount in objfile. */
			err = remap_file_pages(mm, (unsigned long)r->nl[m] + slot * PAGE_SIZE, PAGE_SIZE, slot);
			if (err && err != -EINVAL)
				rt_fail("remap_file_pages(%lu) failed: %d", slot, err);
			res = rt_access(mm, (unsigned long)r->nl[m] + slot * PAGE_SIZE, false, NULL);
			break;
		}
		if (res == ACCESS_CORRUPT || res == ACCESS_SEGV)
			rt_fail("access result %d", res);
		if (res == ACCESS_OK)
			__atomic_fetch_add(&r->ok, 1, __ATOMIC_RELAXED);
	}
	__atomic_fetch_sub(&r->workers_left, 1, __ATOMIC_RELEASE);
}

/*
 * Threads remap window pages out of place and touch them (objfile:
 * page_convert_anon() under lock_page), others truncate and re-extend
 * the file (truncate takes the page lock to drop pages, and unmaps
 * nonlinear vmas), and kswapd reclaims: the audit and the teardown
 * must find everything consistent.
 */
START_TEST(test_objrmap_convert_races_truncate)
{
	FOR_EACH_OBJ_MODE(1024, {
		struct convert_race r;

		memset(&r, 0, sizeof(r));
		r.file = file_create("race", 16, 16);
		for (int i = 0; i < RACE_MMS; i++) {
			r.mm[i] = mm_alloc();
			r.nl[i] = rt_mmap(r.mm[i], r.file, 0, 8,
					      VM_READ | VM_WRITE | VM_SHARED, 0);
			r.lin[i] = rt_mmap(r.mm[i], r.file, 0, 16,
					       VM_READ | VM_WRITE | VM_SHARED, 0);
			ck_assert_int_gt(r.nl[i], 0);
			ck_assert_int_gt(r.lin[i], 0);
			ck_assert_int_eq(remap_file_pages(r.mm[i], r.nl[i], PAGE_SIZE, 12), 0);
		}
		r.workers_left = RACE_THREADS - 1;
		rt_run_threads(RACE_THREADS, convert_race_worker, &r);
		ck_assert_no_worker_failure();
		ck_assert_uint_gt(r.ok, 0);
		rt_audit_ok(r.mm, RACE_MMS, &r.file, 1);

		/*
		 * And once more, deterministically: a truncate to 0 leaves no
		 * page mapped (windows keep file ptes), then a conversion of
		 * offset 13 mapped in two mms, then truncate below it.
		 */
		vmtruncate(r.file, 0);
		file_extend(r.file, 16);
		for (int i = 0; i < RACE_MMS; i++)
			ck_assert_uint_eq(r.mm[i]->rss, 0);
		ck_assert_int_eq(remap_file_pages(r.mm[0], r.nl[0], PAGE_SIZE, 13), 0);
		ck_assert_int_eq(rt_access(r.mm[0], r.nl[0], true, NULL), ACCESS_OK);
		ck_assert_int_eq(rt_access(r.mm[1], r.lin[1] + 13 * PAGE_SIZE, false, NULL), ACCESS_OK);
		if (rmap_mode == RMAP_OBJFILE) {
			bool anon;

			ck_assert_int_eq(cached_rmap_count(r.file, 13, &anon), 2);
			ck_assert(anon);
		}
		rt_audit_ok(r.mm, RACE_MMS, &r.file, 1);
		vmtruncate(r.file, 13);
		ck_assert_ptr_null(find_get_page(r.file, 13));
		ck_assert_int_eq(rt_access(r.mm[0], r.nl[0], false, NULL), ACCESS_SIGBUS);
		rt_audit_and_exit(r.mm, RACE_MMS, &r.file, 1);
	});
}
END_TEST

/* ---- trylock fallbacks ---- */

enum fb_hold { HOLD_I_SHARED_SEM, HOLD_PAGE_TABLE_LOCK };

/* One thread holds a lock; the other runs the rmap ops as reclaim does. */
struct fallback_race {
	enum fb_hold what;
	struct address_space *file;
	struct mm_struct *mm;
	struct page *page;
	int held;		/* release by the holder, acquire by the reclaimer */
	int done;		/* release by the reclaimer, acquire by the holder */
	/* Written by the reclaimer before done: */
	int referenced, unmap;
	bool mapped;
};

static void fallback_worker(int idx, void *arg)
{
	struct fallback_race *r = arg;

	if (idx == 0) {
		if (r->what == HOLD_I_SHARED_SEM)
			down(&r->file->i_shared_sem);
		else
			spin_lock(&r->mm->page_table_lock);
		/* Pairs with the acquire load of held by the reclaimer. */
		__atomic_store_n(&r->held, 1, __ATOMIC_RELEASE);
		/* Pairs with the release store of done. */
		while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE))
			sched_yield();
		if (r->what == HOLD_I_SHARED_SEM)
			up(&r->file->i_shared_sem);
		else
			spin_unlock(&r->mm->page_table_lock);
		return;
	}

	/* Pairs with the release store of held. */
	while (!__atomic_load_n(&r->held, __ATOMIC_ACQUIRE))
		sched_yield();
	/* As reclaim: the page locked, then its rmap lock. */
	lock_page(r->page);
	rmap_lock(r->page);
	r->referenced = rmap->page_referenced(r->page);
	r->unmap = rmap->try_to_unmap(r->page);
	r->mapped = rmap->page_mapped(r->page);
	rmap_unlock(r->page);
	unlock_page(r->page);
	/* Pairs with the acquire load of done by the holder. */
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

static void check_fallback(enum fb_hold what, enum rmap_fallback_site ref_site,
			   enum rmap_fallback_site unmap_site)
{
	struct fallback_race r = { .what = what };
	struct mm_struct *mm = mm_alloc();
	unsigned long ref0, unmap0, others0 = 0;
	uint64_t w, v;
	long a;

	r.file = file_create("fb", 4, 4);
	r.mm = mm;
	a = rt_mmap(mm, r.file, 0, 4, VM_READ | VM_WRITE | VM_SHARED, 0);
	ck_assert_int_gt(a, 0);
	ck_assert_int_eq(rt_access(mm, a, true, &w), ACCESS_OK);
	lru_add_drain();	/* the fault queued the page in a pagevec */
	r.page = find_get_page(r.file, 0);
	ck_assert_ptr_nonnull(r.page);
	ck_assert_uint_eq(mm->rss, 1);

	ref0 = rmap_fallback_count(ref_site);
	unmap0 = rmap_fallback_count(unmap_site);
	for (int s = 0; s < FB_NR_SITES; s++)
		if (s != (int)ref_site && s != (int)unmap_site)
			others0 += rmap_fallback_count(s);

	rt_run_threads(2, fallback_worker, &r);
	ck_assert_no_worker_failure();

	/* Taken: assume referenced, try again later. */
	ck_assert_int_gt(r.referenced, 0);
	ck_assert_int_eq(r.unmap, SWAP_AGAIN);
	/* Counted, once each, at its own site only. */
	ck_assert_uint_eq(rmap_fallback_count(ref_site), ref0 + 1);
	ck_assert_uint_eq(rmap_fallback_count(unmap_site), unmap0 + 1);
	{
		unsigned long others = 0;

		for (int s = 0; s < FB_NR_SITES; s++)
			if (s != (int)ref_site && s != (int)unmap_site)
				others += rmap_fallback_count(s);
		ck_assert_uint_eq(others, others0);
	}
	/* Nothing lost: still mapped, still on the LRU. */
	ck_assert(r.mapped);
	ck_assert_uint_eq(mm->rss, 1);
	ck_assert_int_eq(rmap->rmap_count(r.page), 1);
	ck_assert(PageLRU(r.page));
	put_page(r.page);	/* the audit counts the pte's and the cache's only */
	rt_audit_ok(&mm, 1, &r.file, 1);

	/* Reclaimable once nobody holds the lock. */
	reclaim_until_unmapped(mm, NULL, 8);
	ck_assert_uint_eq(mm->rss, 0);
	ck_assert_ptr_null(find_get_page(r.file, 0));
	ck_assert_int_eq(rt_access(mm, a, false, &v), ACCESS_OK);
	ck_assert_uint_eq(v, w);
	rt_audit_and_exit(&mm, 1, &r.file, 1);
}

START_TEST(test_objrmap_fallback_i_shared_sem)
{
	FOR_EACH_OBJ_MODE(256, {
		check_fallback(HOLD_I_SHARED_SEM, FB_PAGE_REFERENCED_OBJ_ISHARED,
			       FB_TRY_TO_UNMAP_OBJ_ISHARED);
	});
}
END_TEST

START_TEST(test_objrmap_fallback_page_table_lock)
{
	FOR_EACH_OBJ_MODE(256, {
		check_fallback(HOLD_PAGE_TABLE_LOCK, FB_PAGE_REFERENCED_OBJ_ONE_PTL,
			       FB_TRY_TO_UNMAP_OBJ_ONE_PTL);
	});
}
END_TEST

/* ---- memory ---- */

#define SHARERS		8
#define SHARED_PAGES	16

static unsigned long blocks_for(unsigned long nptes)
{
	/* 2.6.3: one pte is PG_direct; more fill NRPTE slots a block. */
	return nptes <= 1 ? 0 : (nptes + NRPTE - 1) / NRPTE;
}

static const struct rt_vm_suite memory_suite = RT_VM_AUDITED(RMAP_PTECHAIN, 512, 16);

/* pte_chain bytes once SHARERS mms each map every page of one file. */
static unsigned long shared_file_chain_bytes(enum rmap_mode mode)
{
	struct mm_struct *mms[SHARERS];
	struct address_space *f;
	struct rmap_bytes rb;
	unsigned long bytes;

	rt_vm_setup(&memory_suite, mode);
	f = file_create("shm", SHARED_PAGES, SHARED_PAGES);
	for (int i = 0; i < SHARERS; i++) {
		long a;

		mms[i] = mm_alloc();
		a = rt_mmap(mms[i], f, 0, SHARED_PAGES, VM_READ | VM_WRITE | VM_SHARED, 0);
		ck_assert_int_gt(a, 0);
		for (unsigned long p = 0; p < SHARED_PAGES; p++)
			ck_assert_int_eq(rt_access(mms[i], (unsigned long)a + p * PAGE_SIZE, p & 1, NULL),
					 ACCESS_OK);
		ck_assert_uint_eq(mms[i]->rss, SHARED_PAGES);
	}
	for (unsigned long p = 0; p < SHARED_PAGES; p++)
		ck_assert_int_eq(cached_rmap_count(f, p, NULL), SHARERS);
	rt_audit_ok(mms, SHARERS, &f, 1);
	rmap_bytes_read(&rb);
	bytes = rb.pte_chain_now;
	ck_assert_uint_eq(rb.anon_vma_now, 0);

	for (int i = 0; i < SHARERS; i++)
		mmput(mms[i]);
	rmap_bytes_read(&rb);
	ck_assert_uint_eq(rb.pte_chain_now, 0);
	rt_file_free(f);
	rt_vm_teardown();
	return bytes;
}

START_TEST(test_objrmap_shared_file_costs_no_chains)
{
	unsigned long ptechain = shared_file_chain_bytes(RMAP_PTECHAIN);
	unsigned long objfile = shared_file_chain_bytes(RMAP_OBJFILE);

	/* seed 001: a file page's cost is its mapcount field, nothing more. */
	ck_assert_uint_eq(objfile, 0);
	ck_assert_uint_eq(ptechain, SHARED_PAGES * blocks_for(SHARERS) * sizeof(struct pte_chain));
	ck_assert_uint_gt(ptechain, 0);
}
END_TEST

/* ---- lock order ---- */

START_TEST(test_objrmap_lock_tree_matches_lockdep)
{
	bool seen[LOCK_CLASS_MAX] = { false };

	rt_assert_lock_tree(RT_SOURCE_ROOT "/core/rmap_objfile.c", "Lock ordering in this rmap", 5, seen);
	ck_assert(seen[LOCK_CLASS_I_SHARED_SEM]);
	ck_assert(seen[LOCK_CLASS_PAGE_TABLE_LOCK]);
	ck_assert(seen[LOCK_CLASS_PG_CHAINLOCK]);
	ck_assert(seen[LOCK_CLASS_PG_LOCKED]);
}
END_TEST

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "nonlinear", 60, NULL, NULL, .tests = {
			test_objrmap_nonlinear_pages_under_reclaim,
			test_objrmap_convert_races_truncate,
		} },
		{ "fallback", 30, NULL, NULL, .tests = {
			test_objrmap_fallback_i_shared_sem,
			test_objrmap_fallback_page_table_lock,
		} },
		{ "memory", 30, NULL, NULL, .tests = {
			test_objrmap_shared_file_costs_no_chains,
			test_objrmap_lock_tree_matches_lockdep,
		} },
	};

	return rt_check_main(rt_suite("objrmap", tcs, (int)ARRAY_SIZE(tcs)));
}
