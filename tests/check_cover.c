// SPDX-License-Identifier: MIT
/*
 * Interleaving coverage (core/cover.h, stress/cover_map.h, --sched cover).
 *
 * pairs: two CPUs, scripted step by step with a barrier, register a known
 * pair on one object and none on two objects; the window closes at the
 * first CPU's next site on the object and at the end of its operation;
 * emulated locks stand for their object. exact: under a deterministic
 * schedule, where objects lie does not show: a freed object's memory
 * closes the windows on it (the next object there is new), and more
 * CPUs' windows on one object than a bucket has ways are all kept.
 * merge: records merged (as the
 * ci gate and `coverage` do) keep every pair and sum the counts.
 * window: a planted window of two instructions between two test sites is
 * reached by --sched cover within a budget of operations in which real
 * threads (free) do not reach it, over several seeds, and the cover
 * schedule repeats itself for a seed (also through the binary:
 * --check-determinism and equal coverage of two runs).
 */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cover.h"
#include "cover_map.h"
#include "die.h"
#include "mm.h"
#include "perturb.h"
#include "rt_check.h"
#include "rt_sched.h"
#include "slab.h"
#include "spinlock.h"
#include "task.h"

/* ---- helpers ---- */

static int site_id(const char *label)
{
	struct cover_site_info s;

	for (int i = 0; i < cover_nr_sites(); i++)
		if (cover_site(i, &s) && s.cls < 0 && !strcmp(s.label, label))
			return i;
	return -1;
}

static bool covered(const char *a, const char *b)
{
	return cover_pair_covered(site_id(a), site_id(b));
}

/* Two threads taking turns: step k runs on thread k % 2, in order. */
struct script {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int turn;
	void (*step[8])(void *obj_a, void *obj_b);
	int nr;
	void *obj_a, *obj_b;
	bool exact;		/* the table of a deterministic schedule */
	bool sites_only;	/* cover_reset_sites_only(): explore's schedules */
};

static int obj1, obj2;

struct script_arg {
	struct script *s;
	int who;
};

static void *script_thread(void *arg)
{
	struct script_arg *a = arg;
	struct script *s = a->s;

	rt_task_attach(a->who ? "y" : "x");
	for (;;) {
		pthread_mutex_lock(&s->mu);
		while (s->turn < s->nr && s->turn % 2 != a->who)
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->turn >= s->nr) {
			pthread_mutex_unlock(&s->mu);
			break;
		}
		pthread_mutex_unlock(&s->mu);
		s->step[s->turn](s->obj_a, s->obj_b);
		pthread_mutex_lock(&s->mu);
		s->turn++;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
	rt_task_detach();
	return NULL;
}

static void run_script(struct script *s)
{
	pthread_t t[2];
	struct script_arg a[2] = { { s, 0 }, { s, 1 } };

	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->turn = 0;		/* a script may run again */
	if (s->sites_only)
		cover_reset_sites_only(true);
	else
		cover_reset_exact(true, s->exact);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, script_thread, &a[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	/* Off, the tables kept for the test to read. */
	__atomic_store_n(&cover_enabled, 0, __ATOMIC_RELAXED);
}

/* Steps: x on even turns, y on odd ones. */
static void x_open_a(void *o, void *p)
{
	(void)p;
	rt_task_set_op("op_x");
	cover_yield("test:A", o, COVER_TEST);
}

static void x_close_a(void *o, void *p)
{
	(void)p;
	cover_yield("test:A2", o, COVER_TEST);
}

static void x_end(void *o, void *p)
{
	(void)o;
	(void)p;
	rt_task_set_op(NULL);
}

static void y_b_same(void *o, void *p)
{
	(void)p;
	rt_task_set_op("op_y");
	cover_yield("test:B", o, COVER_TEST);
	rt_task_set_op(NULL);
}

static void y_b_other(void *o, void *p)
{
	(void)o;
	rt_task_set_op("op_y");
	cover_yield("test:B", p, COVER_TEST);
	rt_task_set_op(NULL);
}

static void nop(void *o, void *p)
{
	(void)o;
	(void)p;
}

/* ---- pairs ---- */

START_TEST(test_pair_on_one_object_registers)
{
	struct script s = { .step = { x_open_a, y_b_same, x_end }, .nr = 3,
			    .obj_a = &obj1, .obj_b = &obj2 };
	struct cover_stats st;

	run_script(&s);
	ck_assert_int_ge(site_id("test:A"), 0);
	ck_assert_int_ge(site_id("test:B"), 0);
	ck_assert(covered("test:A", "test:B"));
	cover_get_stats(&st);
	ck_assert_uint_eq(st.distinct, 1);
	ck_assert_uint_eq(st.hits, 1);
	ck_assert_uint_eq(st.events, 2);
}
END_TEST

START_TEST(test_pair_on_two_objects_does_not)
{
	struct script s = { .step = { x_open_a, y_b_other, x_end }, .nr = 3,
			    .obj_a = &obj1, .obj_b = &obj2 };
	struct cover_stats st;

	run_script(&s);
	ck_assert_int_ge(site_id("test:B"), 0);
	ck_assert(!covered("test:A", "test:B"));
	cover_get_stats(&st);
	ck_assert_uint_eq(st.distinct, 0);
	ck_assert_uint_eq(st.events, 2);
}
END_TEST

/* x's next site on the object closes the window A opened: y pairs with A2. */
START_TEST(test_next_site_closes_the_window)
{
	struct script s = { .step = { x_open_a, nop, x_close_a, y_b_same, x_end }, .nr = 5,
			    .obj_a = &obj1, .obj_b = &obj2 };

	run_script(&s);
	ck_assert(!covered("test:A", "test:B"));
	ck_assert(covered("test:A2", "test:B"));
	ck_assert_uint_eq(cover_distinct(), 1);
}
END_TEST

/* The end of x's operation closes it too. */
START_TEST(test_op_end_closes_the_window)
{
	struct script s = { .step = { x_open_a, nop, x_end, y_b_same }, .nr = 4,
			    .obj_a = &obj1, .obj_b = &obj2 };

	run_script(&s);
	ck_assert_int_ge(site_id("test:A"), 0);
	ck_assert_int_ge(site_id("test:B"), 0);
	ck_assert(!covered("test:A", "test:B"));
	ck_assert_uint_eq(cover_distinct(), 0);
}
END_TEST

/* A lock stands for its object: mm->page_table_lock and mm->mmap_sem are the mm. */
static struct mm_struct lock_mm;

static void x_ptl(void *o, void *p)
{
	(void)o;
	(void)p;
	rt_task_set_op("op_x");
	cover_lock(&lock_mm.page_table_lock, LOCK_CLASS_PAGE_TABLE_LOCK, COVER_OP_LOCK,
		   "test.c", 1);
}

static void y_mmap_sem(void *o, void *p)
{
	(void)o;
	(void)p;
	rt_task_set_op("op_y");
	cover_lock(&lock_mm.mmap_sem, LOCK_CLASS_MMAP_SEM, COVER_OP_LOCK, "test.c", 2);
	cover_yield("test:mm", &lock_mm, COVER_MM);
	rt_task_set_op(NULL);
}

START_TEST(test_lock_stands_for_its_object)
{
	struct script s = { .step = { x_ptl, y_mmap_sem, x_end }, .nr = 3 };
	struct cover_site_info a, b;
	int n = 0;

	run_script(&s);
	for (int i = 0; i < cover_nr_sites(); i++)
		if (cover_site(i, &a) && a.cls >= 0 && a.line == 1)
			for (int j = 0; j < cover_nr_sites(); j++)
				if (cover_site(j, &b) && (b.cls >= 0 ? b.line == 2 : !strcmp(b.label, "test:mm"))) {
					ck_assert_int_eq(b.kind, COVER_MM);
					ck_assert(cover_pair_covered(i, j));
					n++;
				}
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(cover_distinct(), 2);
}
END_TEST

/* ---- exact ---- */

/*
 * An object of a slab cache, x's window open on it; y frees it (as
 * liburcu's thread frees an mm, whenever the load lets it run): y's site
 * at that address, where the allocator may put the next object, is on a
 * new object. Without the free it is the same object, and the pair counts.
 */
static struct kmem_cache *exact_cache;
static void *exact_obj;

static void x_open_slab_obj(void *o, void *p)
{
	(void)o;
	(void)p;
	rt_task_set_op("op_x");
	exact_obj = kmem_cache_alloc(exact_cache, GFP_KERNEL);
	cover_yield("test:A", exact_obj, COVER_TEST);
}

static void y_free_slab_obj(void *o, void *p)
{
	(void)o;
	(void)p;
	kmem_cache_free(exact_cache, exact_obj);
}

static void y_b_on_slab_addr(void *o, void *p)
{
	(void)o;
	(void)p;
	rt_task_set_op("op_y");
	/* The address only: the site does not read the object. */
	cover_yield("test:B", exact_obj, COVER_TEST);
	rt_task_set_op(NULL);
}

START_TEST(test_exact_freed_object_is_forgotten)
{
	struct script freed = { .step = { x_open_slab_obj, y_free_slab_obj, nop, y_b_on_slab_addr,
					  x_end }, .nr = 5, .exact = true };
	struct script live = { .step = { x_open_slab_obj, y_b_on_slab_addr, x_end }, .nr = 3,
			       .exact = true };

	exact_cache = kmem_cache_create("test_cover_exact", 64, 0, NULL);
	run_script(&freed);
	ck_assert_int_ge(site_id("test:B"), 0);
	ck_assert(!covered("test:A", "test:B"));
	run_script(&live);
	ck_assert(covered("test:A", "test:B"));
	kmem_cache_free(exact_cache, exact_obj);
	kmem_cache_destroy(exact_cache);
	cover_reset(false);
}
END_TEST

/*
 * CPUs 0..N-1 (scheduler slots, played by this thread in turn) open a
 * window on one object, each pairing with those before it; CPU N pairs
 * with all N. N is more than a bucket's ways: the table of real threads
 * overwrites open windows (the control), a deterministic schedule's
 * keeps every one.
 */
#define EXACT_CPUS	11

static void open_windows_on_one_object(bool exact, struct cover_stats *st)
{
	struct task_struct *t = current;

	cover_reset_exact(true, exact);
	for (int cpu = 0; cpu <= EXACT_CPUS; cpu++) {
		t->sched_slot = cpu;
		rt_task_set_op(cpu < EXACT_CPUS ? "op_x" : "op_y");
		cover_yield(cpu < EXACT_CPUS ? "test:A" : "test:B", &obj1, COVER_TEST);
	}
	for (int cpu = 0; cpu <= EXACT_CPUS; cpu++) {
		t->sched_slot = cpu;
		rt_task_set_op(NULL);
	}
	t->sched_slot = -1;
	cover_get_stats(st);
	cover_reset(false);
}

START_TEST(test_exact_keeps_every_open_window)
{
	struct cover_stats st;

	open_windows_on_one_object(false, &st);
	ck_assert_uint_gt(st.evicted_open, 0);
	ck_assert_uint_lt(st.hits, EXACT_CPUS * (EXACT_CPUS - 1) / 2 + EXACT_CPUS);
	open_windows_on_one_object(true, &st);
	ck_assert_uint_eq(st.evicted_open, 0);
	/* A|A: 0 + 1 + ... + (N-1); A|B: N. */
	ck_assert_uint_eq(st.hits, EXACT_CPUS * (EXACT_CPUS - 1) / 2 + EXACT_CPUS);
	ck_assert_uint_eq(st.distinct, 2);
}
END_TEST

/* ---- merge ---- */

static json_t *record(const char *pairs_json)
{
	json_error_t err;
	json_t *r = json_loads(pairs_json, 0, &err);

	ck_assert_msg(r != NULL, "%s", err.text);
	return r;
}

START_TEST(test_merge_keeps_every_pair)
{
	json_t *a = record("{\"sites\": {\"s1\": \"page\", \"s2\": \"page\", \"s3\": \"mm\"},"
			   " \"pairs\": {\"s1 | s2\": {\"count\": 3, \"ops\": {\"fault x reclaim\": 3}}}}");
	json_t *b = record("{\"sites\": {\"s1\": \"page\", \"s3\": \"mm\", \"s4\": \"mm\"},"
			   " \"pairs\": {\"s1 | s2\": {\"count\": 2, \"ops\": {\"fault x truncate\": 2}},"
			   " \"s3 | s4\": {\"count\": 1, \"ops\": {\"fork x munmap\": 1}}}}");
	json_t *m = rt_cover_merge(rt_cover_merge(NULL, a), b), *p;

	ck_assert_int_eq(json_object_size(json_object_get(m, "pairs")), 2);
	ck_assert_int_eq(json_object_size(json_object_get(m, "sites")), 4);
	p = json_object_get(json_object_get(m, "pairs"), "s1 | s2");
	ck_assert_int_eq(json_integer_value(json_object_get(p, "count")), 5);
	ck_assert_int_eq(json_integer_value(json_object_get(p, "configs")), 2);
	ck_assert_int_eq(json_object_size(json_object_get(p, "ops")), 2);
	/* Never covered, of one kind: s1|s1, s2|s2 (page); s3|s3, s4|s4, s3|s4 is covered (mm). */
	ck_assert_uint_eq(rt_cover_uncovered(m, NULL, NULL), 4);
	ck_assert_int_eq(json_integer_value(json_object_get(m, "records")), 2);
	json_decref(a);
	json_decref(b);
	json_decref(m);
}
END_TEST

/* ---- the planted window ---- */

#define PLANT_OPS	40		/* the budget: operations per thread */
#define PLANT_WORK_NS	1000000L	/* mean work outside the window, per operation */
#define PLANT_SEEDS	5

static int plant_obj;
static volatile unsigned long gap_a, gap_b;

static void work(long ns)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		cpu_relax();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ns);
}

struct plant {
	enum rt_sched_kind kind;
	int who;
};

static void *plant_thread(void *arg)
{
	struct plant *p = arg;

	rt_task_attach(p->who ? "plant-b" : "plant-a");
	if (p->kind != RT_SCHED_FREE)
		rt_sched_enter(p->who);
	uint64_t rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(p->who + 1);

	for (int i = 0; i < PLANT_OPS; i++) {
		rt_task_set_op(p->who ? "plant_b" : "plant_a");
		/*
		 * Work of 0.5 to 1.5 times the mean: with equal work the two
		 * free threads stay in phase, and a run that meets the window
		 * once meets it again and again.
		 */
		work(PLANT_WORK_NS / 2 + (long)(rt_rand(&rng) % (uint64_t)PLANT_WORK_NS));
		if (p->who) {
			yield_point_on("test:plant_b", &plant_obj, COVER_TEST);
		} else {
			yield_point_on("test:plant_open", &plant_obj, COVER_TEST);
			/* The window: two instructions. */
			gap_a = 1;
			gap_b = 2;
			yield_point_on("test:plant_close", &plant_obj, COVER_TEST);
		}
		rt_task_set_op(NULL);
	}
	if (p->kind != RT_SCHED_FREE)
		rt_sched_exit();
	rt_task_detach();
	return NULL;
}

/* One run; Return: the planted window was reached; *@hash the sequence of decisions. */
static bool plant_run(enum rt_sched_kind kind, uint64_t seed, unsigned long *steps)
{
	struct rt_sched_config sc = { .kind = kind, .seed = seed, .pct_depth = 3,
				      .pct_steps = 2 * PLANT_OPS * 4 };
	struct plant p[2] = { { kind, 0 }, { kind, 1 } };
	pthread_t t[2];
	bool hit;

	cover_reset_exact(true, kind != RT_SCHED_FREE);
	if (kind != RT_SCHED_FREE)
		rt_sched_init(&sc, 2, NULL, NULL);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, plant_thread, &p[i]), 0);
	if (kind != RT_SCHED_FREE)
		rt_sched_start();
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	if (steps)
		*steps = kind != RT_SCHED_FREE ? rt_sched_steps() : 0;
	if (kind != RT_SCHED_FREE)
		rt_sched_fini();
	hit = covered("test:plant_open", "test:plant_b");
	cover_reset(false);
	return hit;
}

START_TEST(test_cover_reaches_the_planted_window_free_does_not)
{
	int cover_hits = 0, free_hits = 0, random_hits = 0, pct_hits = 0;

	for (uint64_t seed = 1; seed <= PLANT_SEEDS; seed++) {
		cover_hits += plant_run(RT_SCHED_COVER, seed, NULL);
		free_hits += plant_run(RT_SCHED_FREE, seed, NULL);
		/* For the record (not asserted): the other schedules. */
		random_hits += plant_run(RT_SCHED_RANDOM, seed, NULL);
		pct_hits += plant_run(RT_SCHED_PCT, seed, NULL);
	}
	printf("# planted window, %d operations per thread, %d seeds: cover %d, free %d"
	       " (random %d, pct %d)\n", PLANT_OPS, PLANT_SEEDS, cover_hits, free_hits,
	       random_hits, pct_hits);
	ck_assert_int_eq(cover_hits, PLANT_SEEDS);
	/*
	 * Free threads meet the two-instruction window by chance: about
	 * window/work per operation, 40 x ~50 ns/1 ms = 0.2% a run (more
	 * under ASan, whose coverage bookkeeping inside the window widens
	 * it). One hit in five runs is bad luck; two would mean the window
	 * is not narrow. The work was 200 us, the same for both threads:
	 * a local .ci/run saw two free hits in the ASan build. Not under
	 * TSan: there the window's two stores and the yield points'
	 * bookkeeping around them are instrumented, so the window is wide
	 * (a quiet .ci/run saw 2 of 5); cover's reach is asserted there too.
	 */
#if !RT_TSAN
	ck_assert_int_le(free_hits, 1);
#endif
}
END_TEST

START_TEST(test_cover_schedule_repeats_for_a_seed)
{
	for (uint64_t seed = 1; seed <= 3; seed++) {
		unsigned long s1, s2;
		bool h1 = plant_run(RT_SCHED_COVER, seed, &s1);
		bool h2 = plant_run(RT_SCHED_COVER, seed, &s2);

		ck_assert_int_eq(h1, h2);
		ck_assert_uint_eq(s1, s2);
	}
}
END_TEST

/* ---- sites ---- */

/* What y's cover_take_last() reported right after its site (read after the join). */
static struct cover_last y_last;

static void y_b_same_take(void *o, void *p)
{
	(void)p;
	rt_task_set_op("op_y");
	cover_yield("test:B", o, COVER_TEST);
	cover_take_last(&y_last);
	rt_task_set_op(NULL);
}

/* explore's mode: every site and its object, as cover_take_last() reports them; no pair. */
START_TEST(test_sites_only_records_sites_not_pairs)
{
	struct script s = { .step = { x_open_a, y_b_same_take, x_end }, .nr = 3,
			    .obj_a = &obj1, .obj_b = &obj2, .sites_only = true };
	struct cover_stats st;

	memset(&y_last, 0, sizeof(y_last));
	run_script(&s);
	ck_assert_int_ge(site_id("test:A"), 0);
	ck_assert_int_eq(y_last.site, site_id("test:B"));
	ck_assert_int_eq(y_last.nr_objs, 1);
	ck_assert_ptr_eq(y_last.objs[0], &obj1);
	ck_assert(!covered("test:A", "test:B"));
	cover_get_stats(&st);
	ck_assert_uint_eq(st.distinct, 0);
	ck_assert_uint_eq(st.events, 2);
}
END_TEST

/*
 * The resets around a run of sites only: a pair of the run before is
 * gone, a second run counts its own events only (the CPUs it used were
 * cleared), and the next run with windows counts the pair again.
 */
START_TEST(test_sites_only_resets_between_runs)
{
	struct script pairs = { .step = { x_open_a, y_b_same, x_end }, .nr = 3,
				.obj_a = &obj1, .obj_b = &obj2 };
	struct script sites = pairs;
	struct cover_stats st;

	sites.sites_only = true;
	run_script(&pairs);
	ck_assert(covered("test:A", "test:B"));
	for (int i = 0; i < 2; i++) {
		run_script(&sites);
		ck_assert(!covered("test:A", "test:B"));
		cover_get_stats(&st);
		ck_assert_uint_eq(st.distinct, 0);
		ck_assert_uint_eq(st.events, 2);
	}
	run_script(&pairs);
	ck_assert(covered("test:A", "test:B"));
	cover_get_stats(&st);
	ck_assert_uint_eq(st.distinct, 1);
	ck_assert_uint_eq(st.events, 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cover");
	TCase *tc = tcase_create("pairs");

	tcase_add_test(tc, test_pair_on_one_object_registers);
	tcase_add_test(tc, test_pair_on_two_objects_does_not);
	tcase_add_test(tc, test_next_site_closes_the_window);
	tcase_add_test(tc, test_op_end_closes_the_window);
	tcase_add_test(tc, test_lock_stands_for_its_object);
	tcase_add_test(tc, test_merge_keeps_every_pair);
	suite_add_tcase(s, tc);
	tc = tcase_create("exact");
	tcase_add_test(tc, test_exact_freed_object_is_forgotten);
	tcase_add_test(tc, test_exact_keeps_every_open_window);
	suite_add_tcase(s, tc);
	tc = tcase_create("window");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_cover_reaches_the_planted_window_free_does_not);
	tcase_add_test(tc, test_cover_schedule_repeats_for_a_seed);
	suite_add_tcase(s, tc);
	tc = tcase_create("sites");
	tcase_add_test(tc, test_sites_only_records_sites_not_pairs);
	tcase_add_test(tc, test_sites_only_resets_between_runs);
	suite_add_tcase(s, tc);
	return rt_check_main(s);
}
