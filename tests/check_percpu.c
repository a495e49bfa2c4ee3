// SPDX-License-Identifier: MIT
/*
 * Per-CPU (per-task) counters, core/percpu.h: what tasks add is summed
 * whether they are still attached or have detached (their counts folded
 * into the exited totals), a gauge is a sum of signed deltas made on
 * different tasks, a reset counts from its moment without writing any
 * task's counter, and ids taken in per-task batches stay unique across
 * tasks that come and go.
 */
#include <sched.h>
#include <stdlib.h>

#include "die.h"
#include "mm-internal.h"
#include "percpu.h"
#include "rt_check.h"
#include "task.h"

#define NR_THREADS	4
#define NR_ADDS		2000

/* Odd threads detach halfway and attach again: a CPU going and coming. */
static void add_detach_midway(int idx, void *arg)
{
	enum rt_pcpu_item item = *(enum rt_pcpu_item *)arg;

	for (int i = 0; i < NR_ADDS; i++) {
		if (idx % 2 && i == NR_ADDS / 2) {
			/* Hold the old task's memory: the new one lands elsewhere. */
			void *hold;

			rt_task_detach();
			hold = rt_aligned_alloc(SMP_CACHE_BYTES, sizeof(struct task_struct));
			rt_task_attach("again");
			free(hold);
			if (rt_pcpu_counters() != &current->pcpu)
				rt_fail("task %d counts in a task it left", idx);
		}
		rt_pcpu_inc(item);
	}
}

START_TEST(test_percpu_fold_across_detach)
{
	enum rt_pcpu_item item = PCPU_TLB_FLUSH_WAITS;
	long before = rt_pcpu_sum(item);

	rt_run_threads(NR_THREADS, add_detach_midway, &item);
	ck_assert_ptr_null(rt_first_failure());
	ck_assert_int_eq(rt_pcpu_sum(item) - before, (long)NR_THREADS * NR_ADDS);
}
END_TEST

/* Even threads raise the gauge, odd ones lower it: each ends at +-NR_ADDS. */
static void gauge_up_down(int idx, void *arg)
{
	enum rt_pcpu_item item = *(enum rt_pcpu_item *)arg;
	long mine = rt_pcpu_counters()->count[item];

	for (int i = 0; i < NR_ADDS; i++)
		rt_pcpu_mod(item, idx % 2 ? -1 : 1);
	mine = rt_pcpu_counters()->count[item] - mine;
	if (mine != (idx % 2 ? -NR_ADDS : NR_ADDS))
		rt_fail("task %d: own count moved by %ld", idx, mine);
}

START_TEST(test_percpu_gauge_signed_deltas)
{
	enum rt_pcpu_item item = PCPU_PGTABLE_BYTES;
	long before = rt_pcpu_sum(item);

	rt_run_threads(NR_THREADS, gauge_up_down, &item);
	ck_assert_ptr_null(rt_first_failure());
	ck_assert_int_eq(rt_pcpu_sum(item), before);
}
END_TEST

/* One task allocates vmas, another frees them: the live count is back. */
static struct vm_area_struct *handed[NR_ADDS];

static void vma_alloc_free(int idx, void *arg)
{
	int *gate = arg;

	if (idx == 0) {
		for (int i = 0; i < NR_ADDS; i++)
			handed[i] = vm_area_alloc(NULL);
		/* Release pairs with the acquire below: the vmas are handed over. */
		__atomic_store_n(gate, 1, __ATOMIC_RELEASE);
		return;
	}
	while (!__atomic_load_n(gate, __ATOMIC_ACQUIRE))
		sched_yield();
	for (int i = 0; i < NR_ADDS; i++)
		vm_area_free(handed[i]);
}

START_TEST(test_percpu_gauge_vmas_across_tasks)
{
	unsigned long before = vm_area_count();
	int gate = 0;

	rt_run_threads(2, vma_alloc_free, &gate);
	ck_assert_ptr_null(rt_first_failure());
	ck_assert_uint_eq(vm_area_count(), before);
}
END_TEST

START_TEST(test_percpu_reset_counts_from_then)
{
	enum rt_pcpu_item item = PCPU_RMAP_FALLBACKS;
	long own = rt_pcpu_counters()->count[item];

	rt_pcpu_mod(item, 5);
	rt_pcpu_reset(item, 1);
	ck_assert_int_eq(rt_pcpu_sum(item), 0);
	rt_pcpu_mod(item, 3);
	ck_assert_int_eq(rt_pcpu_sum(item), 3);
	/* No task's counter was written by the reset. */
	ck_assert_int_eq(rt_pcpu_counters()->count[item] - own, 8);
}
END_TEST

#define NR_IDS		1000
#define ID_BATCH	16
static unsigned long id_counter;	/* atomic */
static unsigned long ids[NR_THREADS][NR_IDS];

static void take_ids(int idx, void *arg)
{
	(void)arg;
	for (int i = 0; i < NR_IDS; i++) {
		/* Detach and attach again: the rest of the batch is dropped. */
		if (idx % 2 && i % 100 == 37) {
			rt_task_detach();
			rt_task_attach("again");
		}
		ids[idx][i] = rt_pcpu_id(PCPU_ID_FILE, &id_counter, ID_BATCH);
	}
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

START_TEST(test_percpu_ids_unique_in_batches)
{
	unsigned long *all = (unsigned long *)ids;
	size_t n = NR_THREADS * NR_IDS;

	rt_run_threads(NR_THREADS, take_ids, NULL);
	ck_assert_ptr_null(rt_first_failure());
	/* A task's ids run on within its batch. */
	for (int i = 1; i < NR_IDS; i++)
		if (i % ID_BATCH)
			ck_assert_uint_eq(ids[0][i], ids[0][i - 1] + 1);
	qsort(all, n, sizeof(*all), cmp_ulong);
	for (size_t i = 1; i < n; i++)
		ck_assert_uint_ne(all[i], all[i - 1]);
	ck_assert_uint_lt(all[n - 1], __atomic_load_n(&id_counter, __ATOMIC_RELAXED));
}
END_TEST

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "fold", 60, NULL, NULL, .tests = {
			test_percpu_fold_across_detach,
			test_percpu_reset_counts_from_then,
		} },
		{ "gauge", 60, NULL, NULL, .tests = {
			test_percpu_gauge_signed_deltas,
			test_percpu_gauge_vmas_across_tasks,
		} },
		{ "ids", 60, NULL, NULL, .tests = {
			test_percpu_ids_unique_in_batches,
		} },
	};

	return rt_check_main(rt_suite("percpu", tcs, (int)ARRAY_SIZE(tcs)));
}
