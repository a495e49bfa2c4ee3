// SPDX-License-Identifier: MIT
/*
 * Perturbation points: the list of names `run --yield-points` accepts is
 * exactly the set of yield_point("...") calls in core/, every one of them
 * is reached by the VM's operations, and the long-hold hook fires for the
 * chosen lock classes only.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "inject.h"
#include "lockdep.h"
#include "mm.h"
#include "page_alloc.h"
#include "perturb.h"
#include "rmap.h"
#include "rt_check.h"
#include "rt_vm.h"
#include "spinlock.h"
#include "swap.h"
#include "task.h"
#include "vmscan.h"

static int name_index(const char *name)
{
	for (int i = 0; yield_point_names[i]; i++)
		if (!strcmp(yield_point_names[i], name))
			return i;
	return -1;
}

START_TEST(test_perturb_names_match_the_source)
{
	const char *dir = RT_SOURCE_ROOT "/core";
	bool found[64] = { false };
	struct dirent *de;
	DIR *d = opendir(dir);
	int calls = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		char path[1024], line[512];
		size_t len = strlen(de->d_name);
		FILE *f;

		if (len < 3 || strcmp(de->d_name + len - 2, ".c"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		ck_assert_ptr_nonnull(f);
		while (fgets(line, sizeof(line), f)) {
			/* yield_point("x") and yield_point_on("x", obj, kind) (cover.h). */
			char *p = strstr(line, "yield_point(\""), *q;
			int i;

			if (p) {
				p += strlen("yield_point(\"");
			} else if ((p = strstr(line, "yield_point_on(\""))) {
				p += strlen("yield_point_on(\"");
			} else {
				continue;
			}
			q = strchr(p, '"');
			ck_assert_ptr_nonnull(q);
			*q = '\0';
			i = name_index(p);
			ck_assert_msg(i >= 0, "%s: yield_point(\"%s\") is not in yield_point_names[]",
				      de->d_name, p);
			found[i] = true;
			calls++;
		}
		fclose(f);
	}
	closedir(d);
	ck_assert_int_gt(calls, 0);
	for (int i = 0; yield_point_names[i]; i++)
		ck_assert_msg(found[i], "yield point %s is listed but never called",
			      yield_point_names[i]);
}
END_TEST

static int hits[64];
static int hold_hits[LOCK_CLASS_MAX];

static void count_yield(const char *where)
{
	int i = name_index(where);

	if (i >= 0)
		__atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
}

static void count_hold(int cls)
{
	__atomic_fetch_add(&hold_hits[cls], 1, __ATOMIC_RELAXED);
}

static const struct perturb_ops counting = { .yield = count_yield, .long_hold = count_hold };

/*
 * Faults, stack growth, COW, reclaim (both lists), swap-in, split, mremap
 * and truncate in @mode, with the counting hooks installed.
 */
static void exercise(enum rmap_mode mode)
{
	struct address_space *f;
	struct mm_struct *mm, *child;
	long a, s, st;

	rt_task_attach("perturb");
	ck_assert_int_eq(rmap_select(mode), 0);
	ck_assert_int_eq(mem_init(256), 0);
	ck_assert_int_eq(swap_init(512), 0);
	perturb_install(&counting, 1ULL << LOCK_CLASS_I_SHARED_SEM);

	f = file_create("p", 16, 16);
	mm = mm_alloc();
	down_write(&mm->mmap_sem);
	/* First, so that no vma lies below the stack to stop its growth. */
	st = do_mmap(mm, NULL, 0, 4 * PAGE_SIZE, VM_READ | VM_WRITE | VM_GROWSDOWN, 0);
	a = do_mmap(mm, NULL, 0, 64 * PAGE_SIZE, VM_READ | VM_WRITE, 0);
	s = do_mmap(mm, f, 0, 16 * PAGE_SIZE, VM_READ | VM_WRITE | VM_SHARED, 0);
	up_write(&mm->mmap_sem);
	ck_assert_int_gt(a, 0);
	ck_assert_int_gt(s, 0);
	ck_assert_int_gt(st, 0);
	/* User accesses: no mmap_sem held (mm_access() takes it to fault). */
	ck_assert_int_eq(mm_access(mm, st - PAGE_SIZE, true, NULL), ACCESS_OK);	/* expand_stack */
	for (int i = 0; i < 64; i++)
		mm_access(mm, a + i * PAGE_SIZE, true, NULL);
	for (int i = 0; i < 16; i++)
		mm_access(mm, s + i * PAGE_SIZE, i & 1, NULL);
	child = dup_mm(mm);
	ck_assert_ptr_nonnull(child);
	mm_access(child, a, true, NULL);		/* COW */
	for (int i = 0; i < 4; i++)
		shrink_zone(&contig_zone, 256);		/* swap out */
	/* do_swap_page:slot_freed: a second swap-in freed the slot meanwhile. */
	for (int i = 0, steps = 0; i < 64 && !steps; i++) {
		pte_t pte = rt_pte_at(mm, a + i * PAGE_SIZE);

		if (is_swap_pte(pte) && !lookup_swap_cache_peek(pte_to_swp_entry(pte)))
			ck_assert_int_eq(rt_swap_in_race(mm, a + i * PAGE_SIZE, false, &steps),
					 ACCESS_OK);
	}
	for (int i = 0; i < 64; i++)
		mm_access(mm, a + i * PAGE_SIZE, false, NULL);	/* swap in */
	{
		struct page *page;

		down_read(&mm->mmap_sem);
		ck_assert_int_eq(get_user_pages(mm, a, 1, true, &page, NULL), 1);
		up_read(&mm->mmap_sem);
		gup_dma_write(mm, a, page);			/* gup_dma:pinned */
		put_page(page);
	}
	for (int i = 0; i < 4; i++)
		shrink_zone(&contig_zone, 256);		/* out again, for swapoff */
	ck_assert_int_eq(swapoff(), 0);			/* try_to_unuse:slot, :mm */
	ck_assert_int_eq(swapon(), 0);
	{
		struct mm_struct *gone = dup_mm(mm);

		ck_assert_ptr_nonnull(gone);
		mmput(gone);		/* an exit: mmput:last_user_unlocked when seeded */
	}
	down_write(&mm->mmap_sem);
	do_munmap(mm, a + 4 * PAGE_SIZE, PAGE_SIZE);	/* split */
	do_mremap(mm, a, 4 * PAGE_SIZE, 40 * PAGE_SIZE, 0);	/* move */
	up_write(&mm->mmap_sem);
	vmtruncate(f, 8);
	{
		struct address_space *slot, *g;

		rcu_assign_pointer(slot, f);
		g = file_lookup(&slot);		/* igrab:rcu */
		ck_assert_ptr_eq(g, f);
		iput(g);
	}
	perturb_install(NULL, 0);

	mmput(child);
	mmput(mm);
	vmtruncate(f, 0);
	file_destroy(f);
	for (int i = 0; i < 8 && nr_free_pages() != max_mapnr - 1; i++)
		shrink_zone(&contig_zone, max_mapnr);
	swap_exit();
	mem_exit();
	rt_task_detach();
}

/* Each point in the design that has it: page_lock_anon_vma:unlocked is anonvma's. */
START_TEST(test_perturb_points_are_reached)
{
	memset(hits, 0, sizeof(hits));
	memset(hold_hits, 0, sizeof(hold_hits));
	exercise(RMAP_PTECHAIN);
	exercise(RMAP_ANONVMA);
	/*
	 * page_remove_rmap:last is on mainline9's seeded bug's path only,
	 * mmput:last_user_unlocked on mmput-dec-unlocked's.
	 */
	__atomic_store_n(&inject_mask, 1ULL << INJECT_REMOVE_RMAP_CLEARS_MAPPING |
			 1ULL << INJECT_MMPUT_DEC_UNLOCKED, __ATOMIC_RELAXED);
	exercise(RMAP_MAINLINE9);
	__atomic_store_n(&inject_mask, 0, __ATOMIC_RELAXED);

	for (int i = 0; yield_point_names[i]; i++)
		ck_assert_msg(hits[i] > 0, "yield point %s never reached", yield_point_names[i]);
	ck_assert_int_gt(hold_hits[LOCK_CLASS_I_SHARED_SEM], 0);
	ck_assert_int_eq(hold_hits[LOCK_CLASS_PAGE_TABLE_LOCK], 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("perturb");
	TCase *tc = tcase_create("points");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_perturb_names_match_the_source);
	tcase_add_test(tc, test_perturb_points_are_reached);
	suite_add_tcase(s, tc);
	return rt_check_main(s);
}
