// SPDX-License-Identifier: MIT
/*
 * The anonvma rmap design (seed 002, completed): anon_vma sharing and
 * garbage collection across fork chains, mremap and split of forked and
 * PG_direct memory followed by full reclaim, reclaim's page_table_lock
 * trylock fallbacks, a walker holding a stale anon_vma pointer while
 * the object is freed and reused (type-stable memory; the re-check), and
 * the aging walk that locks the anon_vma with PG_maplock dropped.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon_vma.h"
#include "audit.h"
#include "fs.h"
#include "lockdep.h"
#include "mm-internal.h"
#include "mm.h"
#include "page_alloc.h"
#include "rcu.h"
#include "rmap.h"
#include "rt_check.h"
#include "rt_vm.h"
#include "swap.h"
#include "task.h"
#include "vmscan.h"

#define AV_BYTES	((unsigned long)sizeof(struct anon_vma))

/* ---- environment ---- */

/* Every test runs in anonvma; any report fails it. */
static const struct rt_vm_suite anonvma = {
	{ RMAP_ANONVMA, 512, 256, true }, RT_VM_TASK | RT_VM_CAPTURE | RT_VM_CLEAN
};

static struct rmap_bytes bytes(void)
{
	struct rmap_bytes rb;

	rmap_bytes_read(&rb);
	return rb;
}

static int mapcount(struct page *page)
{
	return __atomic_load_n(&page->pte.mapcount, __ATOMIC_RELAXED);
}

/* Fork @par: the child, and { @par, the child, @solo } in @mms. */
static struct mm_struct *fork_beside(struct mm_struct *par, struct mm_struct *solo,
				     struct mm_struct *mms[3])
{
	struct mm_struct *chi = dup_mm(par);

	ck_assert_ptr_nonnull(chi);
	mms[0] = par;
	mms[1] = chi;
	mms[2] = solo;
	return chi;
}

/* Reclaim until the mms' rss is 0 or nothing moves for a while. */
static void reclaim_until_unmapped(struct mm_struct **mms, int nr)
{
	int idle = 0;

	for (int round = 0; round < 400 && idle < 16; round++) {
		unsigned long rss = 0;

		for (int i = 0; i < nr; i++)
			rss += mms[i]->rss;
		if (!rss)
			return;
		idle = shrink_zone(&contig_zone, 256) ? 0 : idle + 1;
	}
}

/* ---- fork chains and garbage collection ---- */

static const int exit_orders[6][3] = {
	{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
};

START_TEST(test_anonvma_fork_chain_exit_orders)
{
	for (int o = 0; o < 6; o++) {
		struct mm_struct *mms[3], *alive[3];
		struct anon_vma *av;
		uint64_t st[16], v;
		bool gone[3] = { false, false, false };
		struct page *pg;
		long a;

		mms[0] = mm_alloc();
		a = rt_mmap(mms[0], NULL, 0, 16, VM_READ | VM_WRITE, 0);
		ck_assert_int_gt(a, 0);
		rt_access_pages(mms[0], a, 16, true, st);

		/* Before any fork: PG_direct, no anon_vma allocated (seed 002). */
		pg = rt_page_at(mms[0], a);
		ck_assert(PageAnon(pg) && PageDirect(pg));
		ck_assert_ptr_eq(pg->as.vma, mms[0]->mmap);
		ck_assert_ptr_null(mms[0]->mmap->anon_vma);
		ck_assert_uint_eq(bytes().anon_vma_now, 0);
		ck_assert_int_eq(rmap->rmap_count(pg), 1);

		/* parent -> child: one anon_vma, both vmas on it. */
		mms[1] = dup_mm(mms[0]);
		ck_assert_ptr_nonnull(mms[1]);
		av = mms[0]->mmap->anon_vma;
		ck_assert_ptr_nonnull(av);
		ck_assert_ptr_eq(mms[1]->mmap->anon_vma, av);
		ck_assert_int_eq(anon_vma_nr_vmas(av), 2);
		ck_assert_uint_eq(bytes().anon_vma_now, AV_BYTES);
		for (int i = 0; i < 16; i++) {
			pg = rt_page_at(mms[0], a + i * PAGE_SIZE);
			ck_assert(!PageDirect(pg));
			ck_assert_ptr_eq(pg->as.anon_vma, av);
			ck_assert_int_eq(rmap->rmap_count(pg), 2);
		}

		/* child -> grandchild: the same anon_vma, three mms share every page. */
		mms[2] = dup_mm(mms[1]);
		ck_assert_ptr_nonnull(mms[2]);
		ck_assert_ptr_eq(mms[2]->mmap->anon_vma, av);
		ck_assert_int_eq(anon_vma_nr_vmas(av), 3);
		ck_assert_uint_eq(bytes().anon_vma_now, AV_BYTES);
		ck_assert_uint_eq(bytes().vma_extra_now, 3 * ANON_VMA_VMA_EXTRA_BYTES);
		for (int i = 0; i < 16; i++) {
			pg = rt_page_at(mms[0], a + i * PAGE_SIZE);
			ck_assert_ptr_eq(rt_page_at(mms[2], a + i * PAGE_SIZE), pg);
			ck_assert_int_eq(rmap->rmap_count(pg), 3);
			ck_assert_int_eq(rt_access(mms[2], a + i * PAGE_SIZE, false, &v), ACCESS_OK);
			ck_assert_uint_eq(v, st[i]);
		}
		rt_audit_ok(mms, 3, NULL, 0);

		/* Exits: the anon_vma goes exactly with its last vma. */
		for (int k = 0; k < 3; k++) {
			int victim = exit_orders[o][k], nr = 0;

			mmput(mms[victim]);
			gone[victim] = true;
			for (int i = 0; i < 3; i++)
				if (!gone[i])
					alive[nr++] = mms[i];
			ck_assert_int_eq(nr, 2 - k);
			if (nr) {
				ck_assert_uint_eq(bytes().anon_vma_now, AV_BYTES);
				ck_assert_int_eq(anon_vma_nr_vmas(av), nr);
				ck_assert_uint_eq(bytes().vma_extra_now,
						  nr * ANON_VMA_VMA_EXTRA_BYTES);
				rt_audit_ok(alive, nr, NULL, 0);
				for (int i = 0; i < 16; i++) {
					ck_assert_int_eq(rt_access(alive[0], a + i * PAGE_SIZE, false, &v),
							 ACCESS_OK);
					ck_assert_uint_eq(v, st[i]);
					ck_assert_int_eq(rmap->rmap_count(rt_page_at(alive[0], a + i * PAGE_SIZE)),
							 nr);
				}
			}
		}
		ck_assert_uint_eq(bytes().anon_vma_now, 0);
		ck_assert_uint_eq(bytes().vma_extra_now, 0);
	}
}
END_TEST

/* A private file vma made read-only after COW keeps its anon pages findable across fork. */
START_TEST(test_anonvma_readonly_private_file_cow_fork)
{
	struct address_space *f = file_create("ro", 8, 8);
	struct mm_struct *mm = mm_alloc(), *child, *mms[2];
	long a = rt_mmap(mm, f, 0, 8, VM_READ | VM_WRITE, 0);
	uint64_t w, v;
	struct page *pg;

	ck_assert_int_gt(a, 0);
	ck_assert_int_eq(rt_access(mm, a, true, &w), ACCESS_OK);	/* a COW copy */
	pg = rt_page_at(mm, a);
	ck_assert(PageAnon(pg) && PageDirect(pg));
	down_write(&mm->mmap_sem);
	ck_assert_int_eq(do_mprotect(mm, a, 8 * PAGE_SIZE, 0, VM_WRITE), 0);
	up_write(&mm->mmap_sem);
	ck_assert_ptr_nonnull(mm->mmap->anon_vma);
	child = dup_mm(mm);
	ck_assert_ptr_nonnull(child);
	ck_assert_ptr_eq(child->mmap->anon_vma, mm->mmap->anon_vma);
	ck_assert_int_eq(rmap->rmap_count(pg), 2);
	ck_assert(!PageDirect(pg));
	mms[0] = mm;
	mms[1] = child;
	rt_audit_ok(mms, 2, &f, 1);
	ck_assert_int_eq(rt_access(child, a, false, &v), ACCESS_OK);
	ck_assert_uint_eq(v, w);
	mmput(mm);
	mmput(child);
	ck_assert_uint_eq(bytes().anon_vma_now, 0);
	rt_file_free(f);
}
END_TEST

/* ---- mremap and split, then reclaim ---- */

START_TEST(test_anonvma_mremap_forked_then_reclaim)
{
	struct mm_struct *par = mm_alloc(), *chi, *mms[2];
	long a = rt_mmap(par, NULL, 0, 32, VM_READ | VM_WRITE, 0);
	unsigned long b = (unsigned long)a + 1024 * PAGE_SIZE, c = (unsigned long)a + 2048 * PAGE_SIZE;
	uint64_t st[32], v;
	long r;

	ck_assert_int_gt(a, 0);
	rt_access_pages(par, a, 32, true, st);
	chi = dup_mm(par);
	ck_assert_ptr_nonnull(chi);
	mms[0] = par;
	mms[1] = chi;

	/* The parent moves the whole region; the child moves a piece of it. */
	down_write(&par->mmap_sem);
	r = do_mremap(par, a, 32 * PAGE_SIZE, 32 * PAGE_SIZE, b);
	up_write(&par->mmap_sem);
	ck_assert_int_eq(r, (long)b);
	down_write(&chi->mmap_sem);
	r = do_mremap(chi, a + 8 * PAGE_SIZE, 8 * PAGE_SIZE, 8 * PAGE_SIZE, c);
	up_write(&chi->mmap_sem);
	ck_assert_int_eq(r, (long)c);
	ck_assert_int_eq(rt_nr_vmas(par), 1);
	ck_assert_int_eq(rt_nr_vmas(chi), 3);
	for (struct vm_area_struct *vma = chi->mmap; vma; vma = vma->vm_next)
		ck_assert_ptr_eq(vma->anon_vma, par->mmap->anon_vma);
	for (int i = 0; i < 32; i++) {
		unsigned long ca = i >= 8 && i < 16 ? c + (i - 8) * PAGE_SIZE : a + i * PAGE_SIZE;
		struct page *pg = rt_page_at(par, b + i * PAGE_SIZE);

		ck_assert_ptr_eq(rt_page_at(chi, ca), pg);
		ck_assert_int_eq(rmap->rmap_count(pg), 2);
		ck_assert_uint_eq(pg->index, ((unsigned long)a >> PAGE_SHIFT) + i);
	}
	rt_audit_ok(mms, 2, NULL, 0);

	reclaim_until_unmapped(mms, 2);
	ck_assert_uint_eq(par->rss, 0);
	ck_assert_uint_eq(chi->rss, 0);
	rt_audit_ok(mms, 2, NULL, 0);

	for (int i = 0; i < 32; i++) {
		unsigned long ca = i >= 8 && i < 16 ? c + (i - 8) * PAGE_SIZE : a + i * PAGE_SIZE;

		ck_assert_int_eq(rt_access(par, b + i * PAGE_SIZE, false, &v), ACCESS_OK);
		ck_assert_uint_eq(v, st[i]);
		ck_assert_int_eq(rt_access(chi, ca, false, &v), ACCESS_OK);
		ck_assert_uint_eq(v, st[i]);
	}
	rt_audit_ok(mms, 2, NULL, 0);
	mmput(par);
	mmput(chi);
	ck_assert_uint_eq(bytes().anon_vma_now, 0);
}
END_TEST

/*
 * mprotect splits an unforked vma (PG_direct pages, no anon_vma) and
 * munmap frees the half that is the original vma struct: the pages of
 * the other half must not name it (deviation (2)).
 */
START_TEST(test_anonvma_split_then_unmap_original_then_reclaim)
{
	struct mm_struct *mm = mm_alloc();
	long a = rt_mmap(mm, NULL, 0, 16, VM_READ | VM_WRITE, 0);
	struct vm_area_struct *orig, *half;
	uint64_t st[16], v;
	int orig_id;

	ck_assert_int_gt(a, 0);
	rt_access_pages(mm, a, 16, true, st);
	orig = mm->mmap;
	orig_id = orig->id;
	ck_assert_ptr_null(orig->anon_vma);
	ck_assert(PageDirect(rt_page_at(mm, a + 12 * PAGE_SIZE)));
	ck_assert_ptr_eq(rt_page_at(mm, a + 12 * PAGE_SIZE)->as.vma, orig);

	down_write(&mm->mmap_sem);
	ck_assert_int_eq(do_mprotect(mm, a + 8 * PAGE_SIZE, 8 * PAGE_SIZE, 0, VM_WRITE), 0);
	up_write(&mm->mmap_sem);
	ck_assert_int_eq(rt_nr_vmas(mm), 2);
	ck_assert_ptr_eq(mm->mmap, orig);
	ck_assert_uint_eq(orig->vm_end, a + 8 * PAGE_SIZE);
	half = orig->vm_next;
	ck_assert_ptr_nonnull(orig->anon_vma);
	ck_assert_ptr_eq(half->anon_vma, orig->anon_vma);
	for (int i = 0; i < 16; i++) {
		struct page *pg = rt_page_at(mm, a + i * PAGE_SIZE);

		ck_assert(!PageDirect(pg));
		ck_assert_ptr_eq(pg->as.anon_vma, half->anon_vma);
	}
	rt_audit_ok(&mm, 1, NULL, 0);

	down_write(&mm->mmap_sem);
	ck_assert_int_eq(do_munmap(mm, a, 8 * PAGE_SIZE), 0);
	up_write(&mm->mmap_sem);
	ck_assert_int_eq(rt_nr_vmas(mm), 1);
	ck_assert_int_ne(mm->mmap->id, orig_id);
	ck_assert_uint_eq(bytes().anon_vma_now, AV_BYTES);
	ck_assert_int_eq(anon_vma_nr_vmas(mm->mmap->anon_vma), 1);
	rt_audit_ok(&mm, 1, NULL, 0);

	reclaim_until_unmapped(&mm, 1);
	ck_assert_uint_eq(mm->rss, 0);
	rt_audit_ok(&mm, 1, NULL, 0);
	for (int i = 8; i < 16; i++) {
		ck_assert_int_eq(rt_access(mm, a + i * PAGE_SIZE, false, &v), ACCESS_OK);
		ck_assert_uint_eq(v, st[i]);
	}
	rt_audit_and_exit(&mm, 1, NULL, 0);
	ck_assert_uint_eq(bytes().anon_vma_now, 0);
}
END_TEST

/* ---- trylock fallbacks ---- */

struct fallback_ctl {
	struct mm_struct *held_mm;	/* whose page_table_lock thread 1 holds */
	struct page *page;		/* with a test reference */
	int held, done;			/* acquire/release flags */
	int referenced, unmap, mapcount;
	bool mapped;
	unsigned long fb_ref, fb_unmap;
};

static void wait_flag(int *flag)
{
	/* Acquire pairs with the release store in set_flag(). */
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void set_flag(int *flag)
{
	__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
}

static void fallback_worker(int idx, void *arg)
{
	struct fallback_ctl *c = arg;
	struct page *page = c->page;

	if (idx == 1) {
		spin_lock(&c->held_mm->page_table_lock);
		set_flag(&c->held);
		wait_flag(&c->done);
		spin_unlock(&c->held_mm->page_table_lock);
		return;
	}
	wait_flag(&c->held);
	lock_page(page);
	ClearPageReferenced(page);
	if (!PageSwapCache(page))
		rt_check(add_to_swap(page));	/* as shrink_page() does first */
	rmap_lock(page);
	c->referenced = rmap->page_referenced(page);
	c->fb_ref = rmap_fallback_count(FB_PAGE_REFERENCED_ANON_PTL);
	c->unmap = rmap->try_to_unmap(page);
	c->fb_unmap = rmap_fallback_count(FB_TRY_TO_UNMAP_ANON_PTL);
	c->mapped = rmap->page_mapped(page);
	c->mapcount = mapcount(page);
	rmap_unlock(page);
	unlock_page(page);
	set_flag(&c->done);
}

/*
 * Each walk met the held page_table_lock once and fell back:
 * page_referenced() counted the page referenced, try_to_unmap() said
 * SWAP_AGAIN and left one pte mapping it.
 */
static void assert_one_fallback_each(const struct fallback_ctl *c)
{
	ck_assert_int_eq(c->referenced, 1);
	ck_assert_uint_eq(c->fb_ref, 1);
	ck_assert_int_eq(c->unmap, SWAP_AGAIN);
	ck_assert_uint_eq(c->fb_unmap, 1);
	ck_assert(c->mapped);
	ck_assert_int_eq(c->mapcount, 1);
}

static void run_fallback(struct mm_struct *held_mm, struct page *page, struct fallback_ctl *c)
{
	memset(c, 0, sizeof(*c));
	c->held_mm = held_mm;
	c->page = page;
	rmap_fallback_reset();
	rt_run_threads(2, fallback_worker, c);
	ck_assert_no_worker_failure();
}

START_TEST(test_anonvma_trylock_fallback)
{
	struct mm_struct *par = mm_alloc(), *chi, *solo = mm_alloc(), *mms[3];
	long a = rt_mmap(par, NULL, 0, 4, VM_READ | VM_WRITE, 0);
	long s = rt_mmap(solo, NULL, 0, 2, VM_READ | VM_WRITE, 0);
	struct fallback_ctl c;
	uint64_t st[4], sst[2], v;
	struct page *pg;

	rt_access_pages(par, a, 4, true, st);
	rt_access_pages(solo, s, 2, true, sst);
	chi = fork_beside(par, solo, mms);

	/*
	 * An anon_vma page in two mms, the parent's page_table_lock busy:
	 * the child's (old) pte is unmapped, the parent's is a fallback.
	 */
	pg = rt_page_at(par, a);
	get_page(pg);
	run_fallback(par, pg, &c);
	assert_one_fallback_each(&c);
	ck_assert_uint_eq(par->rss, 4);
	ck_assert_uint_eq(chi->rss, 3);
	ck_assert_ptr_eq(rt_page_at(par, a), pg);
	ck_assert_ptr_null(rt_page_at(chi, a));
	put_page(pg);
	rt_audit_ok(mms, 3, NULL, 0);

	/* A PG_direct page, its mm's page_table_lock busy. */
	pg = rt_page_at(solo, s);
	ck_assert(PageDirect(pg));
	get_page(pg);
	run_fallback(solo, pg, &c);
	assert_one_fallback_each(&c);
	ck_assert_uint_eq(solo->rss, 2);
	put_page(pg);
	rt_audit_ok(mms, 3, NULL, 0);

	/* Later, with nothing held, every page goes and comes back intact. */
	reclaim_until_unmapped(mms, 3);
	ck_assert_uint_eq(par->rss + chi->rss + solo->rss, 0);
	rt_audit_ok(mms, 3, NULL, 0);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(rt_access(par, a + i * PAGE_SIZE, false, &v), ACCESS_OK);
		ck_assert_uint_eq(v, st[i]);
		ck_assert_int_eq(rt_access(chi, a + i * PAGE_SIZE, false, &v), ACCESS_OK);
		ck_assert_uint_eq(v, st[i]);
	}
	rt_assert_pages(solo, s, 2, sst);
	rt_audit_ok(mms, 3, NULL, 0);
	mmput(par);
	mmput(chi);
	mmput(solo);
}
END_TEST

/* ---- a stale anon_vma pointer, freed and reused ---- */

struct stale_ctl {
	struct page *page;
	struct mm_struct *par, *chi;	/* exited by the mutator */
	struct mm_struct *q, *q2;	/* created by the mutator */
	struct anon_vma *seen, *reused;
	unsigned long bytes_after_exit;
	int step1, step2;		/* acquire/release flags */
	bool recheck_ok;
};

static void stale_worker(int idx, void *arg)
{
	struct stale_ctl *c = arg;

	if (idx == 0) {
		/* The reclaim-like walker: read the pointer, then lock late. */
		rcu_read_lock();
		c->seen = rcu_dereference(c->page->as.anon_vma);
		set_flag(&c->step1);
		wait_flag(&c->step2);
		c->recheck_ok = anon_vma_lock_recheck(c->seen, c->page);
		if (c->recheck_ok)
			spin_unlock(&c->seen->lock);
		rcu_read_unlock();
		return;
	}
	wait_flag(&c->step1);
	/* The last vmas go: the anon_vma is freed (to the type-stable cache). */
	mmput(c->par);
	mmput(c->chi);
	c->bytes_after_exit = bytes().anon_vma_now;
	/* A new process and fork: a new anon_vma, from the same memory. */
	c->q = mm_alloc();
	{
		long a = rt_mmap(c->q, NULL, 0, 1, VM_READ | VM_WRITE, 0);

		rt_check(a > 0);
		rt_check(rt_access(c->q, a, true, NULL) == ACCESS_OK);
	}
	c->q2 = dup_mm(c->q);
	rt_check(c->q2 != NULL);
	c->reused = c->q->mmap->anon_vma;
	set_flag(&c->step2);
}

START_TEST(test_anonvma_stale_pointer_reused_object)
{
	struct stale_ctl c;
	struct anon_vma *av;
	struct mm_struct *qs[2];
	long a;

	memset(&c, 0, sizeof(c));
	c.par = mm_alloc();
	a = rt_mmap(c.par, NULL, 0, 1, VM_READ | VM_WRITE, 0);
	ck_assert_int_eq(rt_access(c.par, a, true, NULL), ACCESS_OK);
	lru_add_drain();	/* reclaim sees LRU pages only: no pagevec reference */
	c.chi = dup_mm(c.par);
	ck_assert_ptr_nonnull(c.chi);
	c.page = rt_page_at(c.par, a);
	get_page(c.page);		/* reclaim's isolation reference */

	/* The lookup works while the page is mapped through it. */
	av = page_lock_anon_vma(c.page);
	ck_assert_ptr_nonnull(av);
	ck_assert_ptr_eq(av, c.par->mmap->anon_vma);
	page_unlock_anon_vma(av);

	rt_run_threads(2, stale_worker, &c);
	ck_assert_no_worker_failure();
	ck_assert_ptr_eq(c.seen, av);
	ck_assert_uint_eq(c.bytes_after_exit, 0);
	/* The object was reused as a new anon_vma (LIFO free list)... */
	ck_assert_ptr_eq(c.reused, av);
	ck_assert_int_eq(anon_vma_nr_vmas(c.reused), 2);
	/* ...and the walker's re-check noticed that the page is not its. */
	ck_assert(!c.recheck_ok);
	ck_assert_int_eq(mapcount(c.page), 0);
	ck_assert_ptr_null(page_lock_anon_vma(c.page));
	ck_assert_int_eq(page_count(c.page), 1);
	put_page(c.page);

	qs[0] = c.q;
	qs[1] = c.q2;
	rt_audit_ok(qs, 2, NULL, 0);
	mmput(c.q);
	mmput(c.q2);
	ck_assert_uint_eq(bytes().anon_vma_now, 0);
}
END_TEST

/* ---- the aging walk: PG_maplock dropped before the anon_vma lock ---- */

/* refill_inactive_zone()'s question for @page, asked as vmscan asks it. */
static int aging_referenced(struct page *page)
{
	int r;

	ck_assert(!TestSetPageLocked(page));
	r = rmap->page_referenced_unlocked(page);
	/* Nothing of the walk is left held. */
	ck_assert(!test_page_flag(page, PG_maplock));
	ck_assert(!rcu_read_lock_held());
	unlock_page(page);
	return r;
}

START_TEST(test_anonvma_aging_walk_unlocked)
{
	struct mm_struct *par = mm_alloc(), *chi, *solo = mm_alloc(), *mms[3];
	long a = rt_mmap(par, NULL, 0, 2, VM_READ | VM_WRITE, 0);
	long s = rt_mmap(solo, NULL, 0, 1, VM_READ | VM_WRITE, 0);
	struct page *pg, *direct;

	ck_assert_ptr_nonnull(rmap->page_referenced_unlocked);
	rt_access_pages(par, a, 2, true, NULL);
	ck_assert_int_eq(rt_access(solo, s, true, NULL), ACCESS_OK);
	chi = fork_beside(par, solo, mms);

	/* An anon_vma page, young in both mms: the walk sees both ptes. */
	pg = rt_page_at(par, a);
	ck_assert_ptr_eq(rt_page_at(chi, a), pg);
	ck_assert(!PageDirect(pg));
	get_page(pg);
	ClearPageReferenced(pg);
	ck_assert_int_eq(rt_access(chi, a, false, NULL), ACCESS_OK);
	ck_assert_int_eq(rt_access(par, a, false, NULL), ACCESS_OK);
	ClearPageReferenced(pg);
	ck_assert_int_eq(aging_referenced(pg), 2);
	/* The young bits were cleared: nothing since. */
	ck_assert_int_eq(aging_referenced(pg), 0);
	/* One mm touches it again. */
	ck_assert_int_eq(rt_access(chi, a, false, NULL), ACCESS_OK);
	ClearPageReferenced(pg);
	ck_assert_int_eq(aging_referenced(pg), 1);
	/* PG_referenced counts too, as in page_referenced(). */
	SetPageReferenced(pg);
	ck_assert_int_eq(aging_referenced(pg), 1);
	ck_assert(!PageReferenced(pg));

	/* A PG_direct page is answered under PG_maplock. */
	direct = rt_page_at(solo, s);
	ck_assert(PageDirect(direct));
	get_page(direct);
	ClearPageReferenced(direct);
	ck_assert_int_eq(aging_referenced(direct), 1);
	ck_assert_int_eq(aging_referenced(direct), 0);

	/* Unmapped (both mms gone): 0, and the anon_vma is gone too. */
	mmput(chi);
	mmput(par);
	ck_assert_int_eq(mapcount(pg), 0);
	ck_assert_int_eq(aging_referenced(pg), 0);
	put_page(pg);
	put_page(direct);
	rt_audit_ok(&mms[2], 1, NULL, 0);
	mmput(solo);
	ck_assert_uint_eq(bytes().anon_vma_now, 0);
}
END_TEST

/* ---- the lock-order comment ---- */

START_TEST(test_anonvma_lock_tree_matches_lockdep)
{
	bool seen[LOCK_CLASS_MAX] = { false };

	rt_assert_lock_tree(RT_SOURCE_ROOT "/core/rmap_anonvma.c", "Lock ordering in this rmap", 8, seen);
	ck_assert(seen[LOCK_CLASS_PG_MAPLOCK]);
	ck_assert(seen[LOCK_CLASS_ANON_VMA_LOCK]);
	ck_assert(seen[LOCK_CLASS_PAGE_TABLE_LOCK]);
	ck_assert(seen[LOCK_CLASS_I_SHARED_SEM]);
}
END_TEST

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "fork", 60, rt_vm_checked_setup, rt_vm_teardown, .tests = {
			test_anonvma_fork_chain_exit_orders,
			test_anonvma_readonly_private_file_cow_fork,
		} },
		{ "vma_change", 60, rt_vm_checked_setup, rt_vm_teardown, .tests = {
			test_anonvma_mremap_forked_then_reclaim,
			test_anonvma_split_then_unmap_original_then_reclaim,
		} },
		{ "reclaim", 60, rt_vm_checked_setup, rt_vm_teardown, .tests = {
			test_anonvma_trylock_fallback,
			test_anonvma_stale_pointer_reused_object,
			test_anonvma_aging_walk_unlocked,
		} },
		{ "order", 30, NULL, NULL, .tests = {
			test_anonvma_lock_tree_matches_lockdep,
		} },
	};

	rt_vm_use(&anonvma);
	return rt_check_main(rt_suite("anonvma", tcs, (int)ARRAY_SIZE(tcs)));
}
