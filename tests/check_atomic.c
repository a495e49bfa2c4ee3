// SPDX-License-Identifier: MIT
/*
 * Atomic context: spinlocks raise preempt_count; a sleeping lock or a
 * sleeping allocation inside one is reported, naming the held locks and
 * their sites. Outside atomic context the same calls are silent.
 */
#include <string.h>

#include "lockdep.h"
#include "page.h"
#include "page_alloc.h"
#include "rt_check.h"
#include "rt_lockval.h"
#include "rwsem.h"
#include "semaphore.h"
#include "spinlock.h"
#include "task.h"

START_TEST(test_atomic_preempt_count_nests)
{
	spinlock_t a, b;
	struct page pg;

	memset(&pg, 0, sizeof(pg));
	spin_lock_init(&a, LOCK_CLASS_PAGE_TABLE_LOCK);
	spin_lock_init(&b, LOCK_CLASS_LRU_LOCK);
	ck_assert(!in_atomic());
	spin_lock(&a);
	ck_assert_int_eq(current->preempt_count, 1);
	pte_chain_lock(&pg);
	ck_assert_int_eq(current->preempt_count, 2);
	spin_lock(&b);
	ck_assert_int_eq(current->preempt_count, 3);
	spin_unlock(&b);
	pte_chain_unlock(&pg);
	spin_unlock(&a);
	ck_assert(!in_atomic());
	/* A failed trylock leaves the count as it was. */
	spin_lock(&a);
	ck_assert(!spin_trylock(&a));
	ck_assert_int_eq(current->preempt_count, 1);
	spin_unlock(&a);
}
END_TEST

START_TEST(test_atomic_down_under_spinlock)
{
	spinlock_t ptl;
	struct semaphore sem;
	struct vm_report r;
	int ptl_line, down_line;

	spin_lock_init(&ptl, LOCK_CLASS_PAGE_TABLE_LOCK);
	sema_init(&sem, 1, LOCK_CLASS_I_SHARED_SEM);
	ptl_line = __LINE__ + 1;
	spin_lock(&ptl);
	down_line = __LINE__ + 1;
	down(&sem);
	up(&sem);
	spin_unlock(&ptl);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 1);
	ck_assert(rt_reports_first(VM_REPORT_ATOMIC_SLEEP, &r));
	ck_assert_ptr_nonnull(strstr(r.message, "sleeping in atomic context"));
	ck_assert_ptr_nonnull(strstr(r.message, "i_shared_sem"));
	ck_assert_ptr_nonnull(strstr(r.message, "page_table_lock"));
	ck_assert_int_ge(r.nr_sites, 2);
	ck_assert_int_eq(r.sites[0].line, down_line);
	ck_assert_str_eq(r.sites[1].what, "page_table_lock");
	ck_assert_int_eq(r.sites[1].line, ptl_line);
	ck_assert_int_eq(r.nr_held, 1);
	ck_assert_str_eq(r.held[0].what, "page_table_lock");
}
END_TEST

START_TEST(test_atomic_down_trylock_under_spinlock_is_fine)
{
	spinlock_t ptl;
	struct semaphore sem;

	spin_lock_init(&ptl, LOCK_CLASS_PAGE_TABLE_LOCK);
	sema_init(&sem, 1, LOCK_CLASS_I_SHARED_SEM);
	spin_lock(&ptl);
	ck_assert_int_eq(down_trylock(&sem), 0);
	up(&sem);
	spin_unlock(&ptl);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 0);
}
END_TEST

START_TEST(test_atomic_rwsem_under_bit_spinlock)
{
	struct rw_semaphore mmap_sem;
	struct page pg;
	struct vm_report r;

	memset(&pg, 0, sizeof(pg));
	init_rwsem(&mmap_sem, LOCK_CLASS_MMAP_SEM);
	page_map_lock(&pg);
	down_read(&mmap_sem);
	up_read(&mmap_sem);
	page_map_unlock(&pg);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 1);
	ck_assert(rt_reports_first(VM_REPORT_ATOMIC_SLEEP, &r));
	ck_assert_ptr_nonnull(strstr(r.message, "PG_maplock"));
	ck_assert_ptr_nonnull(strstr(r.message, "mmap_sem"));
}
END_TEST

START_TEST(test_atomic_lock_page_under_spinlock)
{
	spinlock_t lru;
	struct page pg;

	memset(&pg, 0, sizeof(pg));
	spin_lock_init(&lru, LOCK_CLASS_LRU_LOCK);
	spin_lock(&lru);
	lock_page(&pg);
	unlock_page(&pg);
	spin_unlock(&lru);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 1);
	/* Outside atomic context: silent. */
	lock_page(&pg);
	unlock_page(&pg);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 1);
}
END_TEST

START_TEST(test_atomic_sleeping_allocation)
{
	spinlock_t ptl;
	struct page *p1, *p2;
	struct vm_report r;

	ck_assert_int_eq(mem_init(64), 0);
	spin_lock_init(&ptl, LOCK_CLASS_PAGE_TABLE_LOCK);
	spin_lock(&ptl);
	p1 = alloc_page(GFP_ATOMIC);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 0);
	p2 = alloc_page(GFP_KERNEL);
	spin_unlock(&ptl);
	ck_assert_ptr_nonnull(p1);
	ck_assert_ptr_nonnull(p2);
	ck_assert_int_eq(rt_reports_count(VM_REPORT_ATOMIC_SLEEP), 1);
	ck_assert(rt_reports_first(VM_REPORT_ATOMIC_SLEEP, &r));
	ck_assert_ptr_nonnull(strstr(r.message, "alloc_page"));
	ck_assert_ptr_nonnull(strstr(r.message, "page_table_lock"));
	put_page(p1);
	put_page(p2);
	mem_exit();
}
END_TEST

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "might_sleep", 30, rt_lockval_graph_setup, rt_lockval_graph_teardown, .tests = {
			test_atomic_preempt_count_nests,
			test_atomic_down_under_spinlock,
			test_atomic_down_trylock_under_spinlock_is_fine,
			test_atomic_rwsem_under_bit_spinlock,
			test_atomic_lock_page_under_spinlock,
			test_atomic_sleeping_allocation,
		} },
	};

	return rt_check_main(rt_suite("atomic", tcs, (int)ARRAY_SIZE(tcs)));
}
