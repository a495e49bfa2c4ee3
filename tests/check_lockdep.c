// SPDX-License-Identifier: MIT
/*
 * lockdep: ABBA and longer cycles reported with both sites, trylocks against
 * the order silent, the documented order enforced and equal to the tree in
 * the comment at the top of core/lockdep.c, unheld releases, nesting; a
 * lock's class from its address alone (lockdep_class_of(), for TSan's
 * reports).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lockdep.h"
#include "mm-internal.h"
#include "page.h"
#include "page_alloc.h"
#include "rt_check.h"
#include "rt_lockval.h"
#include "rwsem.h"
#include "semaphore.h"
#include "spinlock.h"
#include "task.h"

static int new_class(const char *name)
{
	int c = lockdep_register_class(name, -1);

	ck_assert_int_ge(c, LOCK_CLASS_NR_STATIC);
	return c;
}

static bool has_site(const struct vm_report *r, const char *file_suffix, int line)
{
	for (int i = 0; i < r->nr_sites; i++) {
		const char *f = r->sites[i].file;

		if (f && r->sites[i].line == line && strlen(f) >= strlen(file_suffix) &&
		    !strcmp(f + strlen(f) - strlen(file_suffix), file_suffix))
			return true;
	}
	return false;
}

/* ---- ABBA across two threads ---- */

static spinlock_t abba_a, abba_b;
static int abba_line_ab_a, abba_line_ab_b, abba_line_ba_b, abba_line_ba_a;

static void abba_worker(int idx, void *arg)
{
	(void)arg;
	if (idx == 0) {
		abba_line_ab_a = __LINE__ + 1;
		spin_lock(&abba_a);
		abba_line_ab_b = __LINE__ + 1;
		spin_lock(&abba_b);
		spin_unlock(&abba_b);
		spin_unlock(&abba_a);
	}
}

static void abba_worker2(int idx, void *arg)
{
	(void)arg;
	if (idx == 0) {
		abba_line_ba_b = __LINE__ + 1;
		spin_lock(&abba_b);
		abba_line_ba_a = __LINE__ + 1;
		spin_lock(&abba_a);
		spin_unlock(&abba_a);
		spin_unlock(&abba_b);
	}
}

START_TEST(test_lockdep_abba_reported_with_both_sites)
{
	int ca = new_class("abba_A"), cb = new_class("abba_B");
	struct vm_report r;

	spin_lock_init(&abba_a, ca);
	spin_lock_init(&abba_b, cb);
	/* Two threads, one after the other: lockdep sees the potential. */
	rt_run_threads(1, abba_worker, NULL);
	ck_assert(lockdep_has_edge(ca, cb));
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_CYCLE), 0);
	rt_run_threads(1, abba_worker2, NULL);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_CYCLE), 1);
	ck_assert(rt_reports_first(VM_REPORT_LOCKDEP_CYCLE, &r));
	ck_assert_str_eq(r.signature, "lockdep-cycle:abba_A<->abba_B");
	/* This acquisition's two sites and the earlier, reverse one's. */
	ck_assert_int_eq(r.nr_sites, 4);
	ck_assert(has_site(&r, "check_lockdep.c", abba_line_ba_b));
	ck_assert(has_site(&r, "check_lockdep.c", abba_line_ba_a));
	ck_assert(has_site(&r, "check_lockdep.c", abba_line_ab_a));
	ck_assert(has_site(&r, "check_lockdep.c", abba_line_ab_b));
	ck_assert_ptr_nonnull(strstr(r.message, "circular"));
	/* The cycle is not added to the graph, and is reported once. */
	ck_assert(!lockdep_has_edge(cb, ca));
	rt_run_threads(1, abba_worker2, NULL);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_CYCLE), 1);
}
END_TEST

/*
 * An inversion is reported before its acquisition waits, as the kernel's
 * lock_acquire() validates before it spins: worker 0 holds A; worker 1,
 * holding B after an earlier A -> B, blocks on A. Worker 0 lets A go only
 * once the cycle is reported (or after RT_WAIT_LIMIT_S): a check made
 * after the acquisition would come too late, as it does for an ABBA that
 * really deadlocks.
 */
struct wait_inversion {
	int a_held, reported_while_waiting;
};

static void wait_inversion_worker(int idx, void *arg)
{
	struct wait_inversion *w = arg;

	if (idx == 0) {
		double deadline;

		spin_lock(&abba_a);
		rt_set_flag(&w->a_held);
		deadline = rt_now() + RT_WAIT_LIMIT_S;
		while (!rt_reports_count(VM_REPORT_LOCKDEP_CYCLE) && rt_now() < deadline)
			sched_yield();
		w->reported_while_waiting = rt_reports_count(VM_REPORT_LOCKDEP_CYCLE);
		spin_unlock(&abba_a);
	} else {
		if (!rt_wait_flag(&w->a_held)) {
			rt_fail("worker 0 never took A");
			return;
		}
		spin_lock(&abba_b);
		spin_lock(&abba_a);
		spin_unlock(&abba_a);
		spin_unlock(&abba_b);
	}
}

START_TEST(test_lockdep_inversion_reported_before_the_wait)
{
	struct wait_inversion w = { 0 };

	spin_lock_init(&abba_a, new_class("wait_A"));
	spin_lock_init(&abba_b, new_class("wait_B"));
	rt_run_threads(1, abba_worker, NULL);		/* A -> B */
	rt_run_threads(2, wait_inversion_worker, &w);
	ck_assert_no_worker_failure();
	ck_assert_msg(w.reported_while_waiting == 1,
		      "the B -> A inversion was not reported while its acquisition waited");
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_CYCLE), 1);
}
END_TEST

START_TEST(test_lockdep_three_class_cycle)
{
	int c1 = new_class("cyc_1"), c2 = new_class("cyc_2"), c3 = new_class("cyc_3");
	struct semaphore s1, s2, s3;
	struct vm_report r;

	sema_init(&s1, 1, c1);
	sema_init(&s2, 1, c2);
	sema_init(&s3, 1, c3);
	down(&s1); down(&s2); up(&s2); up(&s1);
	down(&s2); down(&s3); up(&s3); up(&s2);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_CYCLE), 0);
	down(&s3); down(&s1); up(&s1); up(&s3);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_CYCLE), 1);
	ck_assert(rt_reports_first(VM_REPORT_LOCKDEP_CYCLE, &r));
	ck_assert_str_eq(r.signature, "lockdep-cycle:cyc_1<->cyc_3");
}
END_TEST

START_TEST(test_lockdep_trylock_against_order_is_silent)
{
	int ca = new_class("try_A"), cb = new_class("try_B");
	spinlock_t a, b;

	spin_lock_init(&a, ca);
	spin_lock_init(&b, cb);
	spin_lock(&a);
	spin_lock(&b);
	spin_unlock(&b);
	spin_unlock(&a);
	/* Against the order, but only trying: how reclaim does it. */
	spin_lock(&b);
	ck_assert(spin_trylock(&a));
	spin_unlock(&a);
	spin_unlock(&b);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_CYCLE), 0);
	ck_assert(!lockdep_has_edge(cb, ca));
}
END_TEST

START_TEST(test_lockdep_trylocked_lock_is_source_of_edges)
{
	int ca = new_class("trysrc_A"), cb = new_class("trysrc_B");
	spinlock_t a, b;

	spin_lock_init(&a, ca);
	spin_lock_init(&b, cb);
	ck_assert(spin_trylock(&a));
	spin_lock(&b);		/* blocking while holding a: a -> b */
	spin_unlock(&b);
	spin_unlock(&a);
	ck_assert(lockdep_has_edge(ca, cb));
	ck_assert(!lockdep_has_edge(cb, ca));
}
END_TEST

/* ---- the documented order ---- */

START_TEST(test_lockdep_documented_order_silent)
{
	struct rw_semaphore mmap_sem;
	struct semaphore i_shared_sem;
	spinlock_t ptl, lru;

	init_rwsem(&mmap_sem, LOCK_CLASS_MMAP_SEM);
	sema_init(&i_shared_sem, 1, LOCK_CLASS_I_SHARED_SEM);
	spin_lock_init(&ptl, LOCK_CLASS_PAGE_TABLE_LOCK);
	spin_lock_init(&lru, LOCK_CLASS_LRU_LOCK);
	down_read(&mmap_sem);
	down(&i_shared_sem);
	spin_lock(&ptl);
	spin_lock(&lru);	/* skipping levels is fine */
	spin_unlock(&lru);
	spin_unlock(&ptl);
	up(&i_shared_sem);
	up_read(&mmap_sem);
	for (int k = 0; k < VM_REPORT_NR; k++)
		ck_assert_int_eq(rt_reports_count(k), 0);
	ck_assert(lockdep_has_edge(LOCK_CLASS_MMAP_SEM, LOCK_CLASS_PAGE_TABLE_LOCK));
}
END_TEST

START_TEST(test_lockdep_documented_order_violation)
{
	struct rw_semaphore mmap_sem;
	struct semaphore i_shared_sem;
	struct vm_report r;
	int held_line, acq_line;

	init_rwsem(&mmap_sem, LOCK_CLASS_MMAP_SEM);
	sema_init(&i_shared_sem, 1, LOCK_CLASS_I_SHARED_SEM);
	held_line = __LINE__ + 1;
	down(&i_shared_sem);
	acq_line = __LINE__ + 1;
	down_read(&mmap_sem);	/* mmap_sem is outside i_shared_sem */
	up_read(&mmap_sem);
	up(&i_shared_sem);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_ORDER), 1);
	ck_assert(rt_reports_first(VM_REPORT_LOCKDEP_ORDER, &r));
	ck_assert_str_eq(r.signature, "lockdep-order:i_shared_sem->mmap_sem");
	ck_assert(has_site(&r, "check_lockdep.c", held_line));
	ck_assert(has_site(&r, "check_lockdep.c", acq_line));
	ck_assert(lockdep_has_edge(LOCK_CLASS_I_SHARED_SEM, LOCK_CLASS_MMAP_SEM));
}
END_TEST

START_TEST(test_lockdep_order_table)
{
	/* Spot checks of the closure; the comment test checks the rest. */
	ck_assert(lockdep_order_allows(LOCK_CLASS_MMAP_SEM, LOCK_CLASS_TREE_LOCK));
	ck_assert(lockdep_order_allows(LOCK_CLASS_PG_LOCKED, LOCK_CLASS_I_SHARED_SEM));
	ck_assert(!lockdep_order_allows(LOCK_CLASS_I_SHARED_SEM, LOCK_CLASS_PG_LOCKED));
	ck_assert(!lockdep_order_allows(LOCK_CLASS_PAGE_TABLE_LOCK, LOCK_CLASS_I_SHARED_SEM));
	ck_assert(lockdep_order_allows(LOCK_CLASS_PG_MAPLOCK, LOCK_CLASS_ANON_VMA_LOCK));
	ck_assert(!lockdep_order_allows(LOCK_CLASS_ANON_VMA_LOCK, LOCK_CLASS_PAGE_TABLE_LOCK));
	ck_assert(!lockdep_order_allows(LOCK_CLASS_LRU_LOCK, LOCK_CLASS_ANON_VMA_LOCK));
	ck_assert(!lockdep_order_allows(LOCK_CLASS_PG_CHAINLOCK, LOCK_CLASS_PG_MAPLOCK));
	ck_assert(lockdep_order_allows(LOCK_CLASS_PAGE_TABLE_LOCK, LOCK_CLASS_ZONE_LOCK));
	ck_assert(!lockdep_order_allows(LOCK_CLASS_ZONE_LOCK, LOCK_CLASS_LRU_LOCK));
	ck_assert(!lockdep_order_allows(LOCK_CLASS_MMAP_SEM, LOCK_CLASS_MMAP_SEM));
}
END_TEST

/*
 * The tree in the comment at the top of core/lockdep.c is the documentation
 * engineers read; order_table[] is what lockdep enforces. Parse the former
 * and require it to equal the latter.
 */
START_TEST(test_lockdep_comment_tree_matches_table)
{
	uint64_t parsed[LOCK_CLASS_MAX] = { 0 };
	bool seen[LOCK_CLASS_MAX] = { false };
	int n = rt_parse_lock_tree(RT_SOURCE_ROOT "/core/lockdep.c",
				   "which add no edge):", parsed, seen);

	ck_assert_int_ge(n, 10);
	for (int c = 0; c < LOCK_CLASS_NR_STATIC; c++) {
		if (c == LOCK_CLASS_ZONE_LOCK || c == LOCK_CLASS_SLAB_LOCK) {
			ck_assert_msg(!seen[c], "%s is innermost, not in the tree",
				      lock_class_name(c));
			continue;
		}
		ck_assert_msg(seen[c], "class %s missing from the comment tree",
			      lock_class_name(c));
		ck_assert_msg(parsed[c] == lockdep_order_parents_mask(c),
			      "class %s: comment parents %#llx, lockdep %#llx",
			      lock_class_name(c), (unsigned long long)parsed[c],
			      (unsigned long long)lockdep_order_parents_mask(c));
	}
}
END_TEST

/* ---- nesting, unheld release, off switch, held stack ---- */

START_TEST(test_lockdep_nested_subclass)
{
	int c = new_class("nest");
	spinlock_t a, b;

	spin_lock_init(&a, c);
	spin_lock_init(&b, c);
	spin_lock(&a);
	spin_lock_nested(&b, SINGLE_DEPTH_NESTING);	/* fork's two mms */
	spin_unlock(&b);
	spin_unlock(&a);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_RECURSION), 0);
	spin_lock(&a);
	spin_lock(&b);		/* same class, no annotation */
	spin_unlock(&b);
	spin_unlock(&a);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_RECURSION), 1);
}
END_TEST

START_TEST(test_lockdep_unheld_release)
{
	int c = new_class("unheld");
	struct semaphore s;
	struct vm_report r;
	int line;

	sema_init(&s, 1, c);
	/*
	 * What up() of a semaphore this task never took tells lockdep. Not a
	 * real up(): TSan would rightly report that too (an unlock of an
	 * unlocked mutex), and this test is about lockdep's own report.
	 */
	line = __LINE__ + 1;
	lock_release(&s, c, __FILE__, __LINE__);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_UNHELD), 1);
	ck_assert(rt_reports_first(VM_REPORT_LOCKDEP_UNHELD, &r));
	ck_assert(has_site(&r, "check_lockdep.c", line));
	ck_assert_str_eq(r.signature, "lockdep-unheld-release:unheld");
}
END_TEST

START_TEST(test_lockdep_switched_off)
{
	int ca = new_class("off_A"), cb = new_class("off_B");
	struct lock_class_stats s;
	spinlock_t a, b;

	spin_lock_init(&a, ca);
	spin_lock_init(&b, cb);
	lockdep_set_enabled(false);
	spin_lock(&a); spin_lock(&b); spin_unlock(&b); spin_unlock(&a);
	spin_lock(&b); spin_lock(&a); spin_unlock(&a); spin_unlock(&b);
	lockdep_set_enabled(true);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_LOCKDEP_CYCLE), 0);
	ck_assert(!lockdep_has_edge(ca, cb));
	ck_assert_int_eq(lockdep_depth(), 0);
	/* Statistics stay on. */
	lock_stats_read(ca, &s);
	ck_assert_uint_eq(s.acquired, 2);
}
END_TEST

START_TEST(test_lockdep_held_stack_records_sites)
{
	int c1 = new_class("stk_1"), c2 = new_class("stk_2");
	struct task_struct *t = current;
	spinlock_t a, b;
	int l1, l2;

	spin_lock_init(&a, c1);
	spin_lock_init(&b, c2);
	l1 = __LINE__ + 1;
	spin_lock(&a);
	l2 = __LINE__ + 1;
	ck_assert(spin_trylock(&b));
	ck_assert_int_eq(lockdep_depth(), 2);
	ck_assert_int_eq(t->held_locks[0].class_id, c1);
	ck_assert_int_eq(t->held_locks[0].line, l1);
	ck_assert_int_eq(t->held_locks[1].line, l2);
	ck_assert(t->held_locks[1].flags & HELD_TRYLOCK);
	ck_assert(lock_is_held(&a) && lock_is_held(&b));
	/* Out-of-order release keeps the rest. */
	spin_unlock(&a);
	ck_assert_int_eq(lockdep_depth(), 1);
	ck_assert_int_eq(t->held_locks[0].class_id, c2);
	spin_unlock(&b);
	ck_assert(!lock_is_held(&a));
}
END_TEST

/* ---- many threads, correct order: no reports, and edges from all ---- */

static struct rw_semaphore ord_mmap;
static struct semaphore ord_ishared;
static spinlock_t ord_ptl[4];
static long ord_counter[4];

static void ordered_worker(int idx, void *arg)
{
	uint64_t rng = rt_test_seed() + (uint64_t)idx;

	(void)arg;
	for (int i = 0; i < 300; i++) {
		int k = (int)(rt_rand(&rng) % 4);

		down_read(&ord_mmap);
		if (rt_rand(&rng) & 1)
			down(&ord_ishared);
		else if (down_trylock(&ord_ishared))
			goto no_sem;
		spin_lock(&ord_ptl[k]);
		ord_counter[k]++;
		spin_unlock(&ord_ptl[k]);
		up(&ord_ishared);
no_sem:
		up_read(&ord_mmap);
	}
}

START_TEST(test_lockdep_many_threads_in_order)
{
	long total = 0;

	init_rwsem(&ord_mmap, LOCK_CLASS_MMAP_SEM);
	sema_init(&ord_ishared, 1, LOCK_CLASS_I_SHARED_SEM);
	for (int k = 0; k < 4; k++) {
		spin_lock_init(&ord_ptl[k], LOCK_CLASS_PAGE_TABLE_LOCK);
		ord_counter[k] = 0;
	}
	rt_run_threads(32, ordered_worker, NULL);
	ck_assert_no_worker_failure();
	for (int k = 0; k < VM_REPORT_NR; k++)
		ck_assert_int_eq(rt_reports_count(k), 0);
	for (int k = 0; k < 4; k++)
		total += ord_counter[k];
	ck_assert_int_gt(total, 0);
	ck_assert(lockdep_has_edge(LOCK_CLASS_I_SHARED_SEM, LOCK_CLASS_PAGE_TABLE_LOCK));
}
END_TEST

/* ---- a lock's class from its address (TSan's reports) ---- */

static int not_a_lock;	/* never a lock: lockdep_class_of() must not know it */
static struct {
	spinlock_t lock;
	long after;		/* right after the lock: not the lock's */
} lock_then_field;

START_TEST(test_lockdep_class_of_lock_objects)
{
	/*
	 * Static: a stack slot may hold an earlier test's lock at
	 * &rw.dep_map, which lockdep_class_within() would rightly name.
	 */
	static spinlock_t spin;
	static struct rw_semaphore rw;
	static struct semaphore sem;
	uint64_t rng = rt_test_seed();

	spin_lock_init(&spin, LOCK_CLASS_ANON_VMA_LOCK);
	init_rwsem(&rw, LOCK_CLASS_MMAP_SEM);
	sema_init(&sem, 1, LOCK_CLASS_I_SHARED_SEM);
	ck_assert_int_eq(lockdep_class_of(&spin), LOCK_CLASS_ANON_VMA_LOCK);
	ck_assert_int_eq(lockdep_class_of(&rw), LOCK_CLASS_MMAP_SEM);
	ck_assert_int_eq(lockdep_class_of(&sem), LOCK_CLASS_I_SHARED_SEM);
	/* Statically initialised locks are named too. */
	ck_assert_int_eq(lockdep_class_of(&mmlist_lock), LOCK_CLASS_MMLIST_LOCK);
	/* The memory reused for a lock of another class: the newest names it. */
	spin_lock_init(&spin, LOCK_CLASS_LRU_LOCK);
	ck_assert_int_eq(lockdep_class_of(&spin), LOCK_CLASS_LRU_LOCK);
	/* An address inside a lock object names it; the field after it does not. */
	ck_assert_int_eq(lockdep_class_within(&spin.dep_map), LOCK_CLASS_LRU_LOCK);
	ck_assert_int_eq(lockdep_class_within(&rw.dep_map), LOCK_CLASS_MMAP_SEM);
	ck_assert_int_eq(lockdep_class_within(&sem), LOCK_CLASS_I_SHARED_SEM);
	spin_lock_init(&lock_then_field.lock, LOCK_CLASS_SWAP_LOCK);
	ck_assert_int_eq(lockdep_class_within(&lock_then_field.lock.dep_map),
			 LOCK_CLASS_SWAP_LOCK);
	ck_assert_int_eq(lockdep_class_within(&lock_then_field.after), -1);
	ck_assert_int_eq(lockdep_class_of(&lock_then_field.lock.dep_map), -1);
	ck_assert_int_eq(lockdep_class_within(&not_a_lock), -1);
	/* Addresses of no lock: unknown. */
	ck_assert_int_eq(lockdep_class_of(&not_a_lock), -1);
	ck_assert_int_eq(lockdep_class_of(NULL), -1);
	ck_assert_int_eq(lockdep_class_of((char *)&spin + 1), -1);
	for (int i = 0; i < 1000; i++) {
		uintptr_t a = (uintptr_t)(rt_rand(&rng) & ((1ULL << 47) - 1));

		ck_assert_msg(lockdep_class_of((void *)a) == -1, "%#lx", (unsigned long)a);
	}
}
END_TEST

START_TEST(test_lockdep_class_of_many_locks)
{
	enum { NR = 4096 };
	spinlock_t *locks = calloc(NR, sizeof(*locks));

	ck_assert_ptr_nonnull(locks);
	for (int i = 0; i < NR; i++)
		spin_lock_init(&locks[i], i % LOCK_CLASS_NR_STATIC);
	for (int i = 0; i < NR; i++)
		ck_assert_int_eq(lockdep_class_of(&locks[i]), i % LOCK_CLASS_NR_STATIC);
	free(locks);
}
END_TEST

START_TEST(test_lockdep_class_of_page_bit_locks)
{
	struct page *page;

	ck_assert_int_eq(mem_init(64), 0);
	page = &mem_map[17];
	ck_assert_int_eq(lockdep_class_of(page_lock_key(page, PG_maplock)), LOCK_CLASS_PG_MAPLOCK);
	ck_assert_int_eq(lockdep_class_of(page_lock_key(page, PG_chainlock)),
			 LOCK_CLASS_PG_CHAINLOCK);
	ck_assert_int_eq(lockdep_class_of(page_lock_key(&mem_map[63], PG_locked)),
			 LOCK_CLASS_PG_LOCKED);
	ck_assert_int_eq(lockdep_class_of(page_lock_key(&mem_map[0], PG_maplock)),
			 LOCK_CLASS_PG_MAPLOCK);
	/* The flags word itself, another bit, another field, past the end: no lock. */
	ck_assert_int_eq(lockdep_class_of(&page->flags), -1);
	ck_assert_int_eq(lockdep_class_of(page_lock_key(page, PG_dirty)), -1);
	ck_assert_int_eq(lockdep_class_of(&page->count), -1);
	ck_assert_int_eq(lockdep_class_of(page_lock_key(&mem_map[64], PG_maplock)), -1);
	/* A bit lock taken and released is still named by its key. */
	page_map_lock(page);
	page_map_unlock(page);
	ck_assert_int_eq(lockdep_class_of(page_lock_key(page, PG_maplock)), LOCK_CLASS_PG_MAPLOCK);
	mem_exit();
	ck_assert_int_eq(lockdep_class_of(page_lock_key(page, PG_maplock)), -1);
}
END_TEST

/*
 * The table is kept by default in the TSan build alone: without it, an
 * initialised lock is named by nobody, and lock initialisation writes no
 * shared table.
 */
START_TEST(test_lockdep_names_only_when_kept)
{
	static spinlock_t never_named, named;	/* static: no earlier test's address */

	lockdep_names_enable(false);
	spin_lock_init(&never_named, LOCK_CLASS_ANON_VMA_LOCK);
	ck_assert_int_eq(lockdep_class_of(&never_named), -1);
	lockdep_names_enable(true);
	spin_lock_init(&named, LOCK_CLASS_ANON_VMA_LOCK);
	ck_assert_int_eq(lockdep_class_of(&named), LOCK_CLASS_ANON_VMA_LOCK);
	/* The statically initialised ones are named whatever the default. */
	ck_assert_int_eq(lockdep_class_of(&mmlist_lock), LOCK_CLASS_MMLIST_LOCK);
}
END_TEST

static void lookup_setup(void)
{
	rt_lockval_graph_setup();
	lockdep_names_enable(true);
}

static void lookup_teardown(void)
{
	lockdep_names_enable(RT_TSAN);	/* the default */
	rt_lockval_graph_teardown();
}

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "cycles", 30, rt_lockval_graph_setup, rt_lockval_graph_teardown, .tests = {
			test_lockdep_abba_reported_with_both_sites,
			test_lockdep_inversion_reported_before_the_wait,
			test_lockdep_three_class_cycle,
			test_lockdep_trylock_against_order_is_silent,
			test_lockdep_trylocked_lock_is_source_of_edges,
		} },
		{ "order", 30, rt_lockval_graph_setup, rt_lockval_graph_teardown, .tests = {
			test_lockdep_documented_order_silent,
			test_lockdep_documented_order_violation,
			test_lockdep_order_table,
			test_lockdep_comment_tree_matches_table,
		} },
		{ "bookkeeping", 30, rt_lockval_graph_setup, rt_lockval_graph_teardown, .tests = {
			test_lockdep_nested_subclass,
			test_lockdep_unheld_release,
			test_lockdep_switched_off,
			test_lockdep_held_stack_records_sites,
		} },
		{ "concurrency", 60, rt_lockval_graph_setup, rt_lockval_graph_teardown, .tests = {
			test_lockdep_many_threads_in_order,
		} },
		{ "lookup", 30, lookup_setup, lookup_teardown, .tests = {
			test_lockdep_names_only_when_kept,
			test_lockdep_class_of_lock_objects,
			test_lockdep_class_of_many_locks,
			test_lockdep_class_of_page_bit_locks,
		} },
	};

	return rt_check_main(rt_suite("lockdep", tcs, (int)ARRAY_SIZE(tcs)));
}
