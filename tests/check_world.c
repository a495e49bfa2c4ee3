// SPDX-License-Identifier: MIT
/*
 * The world's process table (workloads/world.c): where a worker's
 * processes live. In a cpu_affine scenario (sdet32) the workers' home
 * slots are a permutation of the table spread by bit reversal, the first
 * processes start in the first workers' homes, a process a worker
 * publishes (its fork's child, its exec's image) goes to the first free
 * slot at or after its home, and its lookups and exits mostly start
 * there. Elsewhere homes are consecutive and a new process lands
 * anywhere: workers share processes, as threads of one process.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_check.h"
#include "rt_vm.h"
#include "workload.h"
#include "world-internal.h"

static const struct rt_vm_suite world_fx = RT_VM_AUDITED(RMAP_OBJFILE, 8192, 1024);

static void setup(void)
{
	rt_vm_setup(&world_fx, RMAP_OBJFILE);
}

/* sdet32's world with @procs_max slots, @initial processes, affinity as asked. */
static struct wl_world *world(int procs_max, int initial, bool affine)
{
	const struct rt_scenario *s = wl_find("sdet32");
	struct wl_params p;
	struct wl_world *w;

	ck_assert_ptr_nonnull(s);
	ck_assert(s->params.cpu_affine);
	p = s->params;
	p.procs_max = procs_max;
	p.procs_initial = initial;
	p.cpu_affine = affine;
	w = wl_world_create(s, &p, 1);
	ck_assert_ptr_nonnull(w);
	return w;
}

static int slot_of(const struct wl_world *w, const struct mm_struct *mm)
{
	for (int k = 0; k < w->p.procs_max; k++)
		if (w->procs[k] == mm)
			return k;
	return -1;
}

/* The homes: a permutation, the first k about n/k apart; consecutive without affinity. */
START_TEST(test_world_homes_spread)
{
	static const int sizes[] = { 32, 24, 7 };

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		int n = sizes[i];
		struct wl_world *w = world(n, 1, true), *plain;
		bool *seen = calloc((size_t)n, sizeof(*seen));

		for (int k = 0; k < n; k++) {
			ck_assert_int_ge(w->home[k], 0);
			ck_assert_int_lt(w->home[k], n);
			ck_assert_msg(!seen[w->home[k]], "n %d: home %d twice", n, w->home[k]);
			seen[w->home[k]] = true;
		}
		free(seen);
		ck_assert_int_eq(w->home[0], 0);
		/* Two workers sit half the table apart, four a quarter. */
		ck_assert_int_eq(abs(w->home[1] - n / 2) <= 1, 1);
		if (n >= 8)
			for (int a = 0; a < 4; a++)
				for (int b = a + 1; b < 4; b++)
					ck_assert_msg(abs(w->home[a] - w->home[b]) >= n / 4 - 1,
						      "n %d: homes %d and %d", n, w->home[a], w->home[b]);
		ck_assert_uint_eq(wl_world_destroy(w), 0);
		plain = world(n, 1, false);
		for (int k = 0; k < n; k++)
			ck_assert_int_eq(plain->home[k], k);
		ck_assert_uint_eq(wl_world_destroy(plain), 0);
	}
}
END_TEST

/*
 * The first processes start in the first workers' homes; what a worker
 * publishes goes to the first free slot at or after its home; lookups
 * and exits of a worker mostly start there.
 */
START_TEST(test_world_processes_stay_with_their_worker)
{
	struct wl_world *w = world(32, 2, true);
	uint64_t rng = 7;
	int own = 0, mine = 0;

	ck_assert_ptr_nonnull(w->procs[0]);
	ck_assert_ptr_nonnull(w->procs[16]);
	ck_assert_int_eq(wl_world_nr_procs(w), 2);
	for (int i = 0; i < 4; i++) {
		struct mm_struct *mm = world_new_image(w);

		ck_assert_ptr_nonnull(mm);
		ck_assert(world_publish_proc(w, mm, &rng, NULL, 1));
		ck_assert_int_eq(slot_of(w, mm), 17 + i);
		mm = world_new_image(w);
		ck_assert(world_publish_proc(w, mm, &rng, NULL, 0));
		ck_assert_int_eq(slot_of(w, mm), 1 + i);
	}
	/* Worker 1's lookups: its home's process, but for one draw in four. */
	for (int i = 0; i < 400; i++) {
		struct mm_struct *mm = world_get_proc(w, &rng, 1);

		own += mm == w->procs[16];
		mmput(mm);
	}
	ck_assert_msg(own >= 260 && own <= 380, "worker 1 found its process %d times in 400", own);
	/* Its exits: the first of its own processes, but for one draw in four. */
	for (int i = 0; i < 4; i++) {
		struct mm_struct *before[32], *mm;

		memcpy(before, w->procs, sizeof(before));
		mm = world_unpublish_proc(w, &rng, 1, 1);
		ck_assert_ptr_nonnull(mm);
		for (int k = 16; k < 21; k++)
			mine += before[k] == mm;
		mmput(mm);
	}
	ck_assert_msg(mine >= 2, "worker 1's exits took %d of its own processes in 4", mine);
	ck_assert_uint_eq(wl_world_destroy(w), 0);
}
END_TEST

/* Without affinity, a new process lands wherever the draw says, not by its worker. */
START_TEST(test_world_plain_lands_anywhere)
{
	struct wl_world *w = world(32, 2, false);
	uint64_t rng = 7;
	int near = 0;

	ck_assert_ptr_nonnull(w->procs[0]);
	ck_assert_ptr_nonnull(w->procs[1]);
	for (int i = 0; i < 8; i++) {
		struct mm_struct *mm = world_new_image(w);
		int k;

		ck_assert(world_publish_proc(w, mm, &rng, NULL, 1));
		k = slot_of(w, mm);
		near += k >= 1 && k <= 9;
	}
	ck_assert_msg(near < 8, "all 8 next to worker 1's home");
	ck_assert_uint_eq(wl_world_destroy(w), 0);
}
END_TEST

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "homes", 30, setup, rt_vm_teardown, .tests = {
			test_world_homes_spread,
			test_world_processes_stay_with_their_worker,
			test_world_plain_lands_anywhere,
		} },
	};

	return rt_check_main(rt_suite("world", tcs, (int)ARRAY_SIZE(tcs)));
}
