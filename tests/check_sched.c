// SPDX-License-Identifier: MIT
/*
 * Deterministic schedules through the rmaptorture binary: the same seed
 * gives the same per-thread operation sequences (--check-determinism) in
 * every design, cover's also with the machine loaded (the test loads
 * it), and a run that finds a seeded bug too; a seeded lock-order bug
 * found under pct leaves an
 * artifact with every field, and replays with the same signature 10 times
 * out of 10; under TSan, an access no lock orders is still reported with
 * the scheduler handing the CPU over.
 */
#include <dirent.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler.h"
#include "die.h"
#include "rmap.h"
#include "rt_check.h"
#include "rt_cli.h"

static char out[1 << 20];

/* The end of the output: Check's messages are bounded. */
static const char *tail(void)
{
	size_t n = strlen(out);

	return n > 3000 ? out + n - 3000 : out;
}

#define RUN(...) rt_cli_run((const char *const[]){ __VA_ARGS__, NULL }, out, sizeof(out))

static void check_determinism(const char *sched, const char *design, const char *scenario)
{
	int rc = RUN("run", "--scenario", scenario, "--rmap", design, "--sched", sched,
		     "--threads", "3", "--reclaim-threads", "1", "--seed", "42",
		     "--sched-steps", RT_TSAN ? "10000" : "30000", "--check-determinism",
		     "--no-progress");

	ck_assert_msg(rc == 0, "%s/%s/%s: exit %d\n%s", scenario, design, sched, rc, tail());
	ck_assert_msg(strstr(out, "determinism: OK"), "%s", tail());
	ck_assert_msg(strstr(out, "END: SUCCESS"), "%s", tail());
}

START_TEST(test_sched_random_is_deterministic)
{
	check_determinism("random", rmap_mode_name((enum rmap_mode)_i), "mixed32");
}
END_TEST

START_TEST(test_sched_pct_is_deterministic)
{
	check_determinism("pct", rmap_mode_name((enum rmap_mode)_i), "mremap-storm");
}
END_TEST

/*
 * --sched cover, in each design of core's table: the same per-thread
 * sequences (--check-determinism), and the same interleaving coverage
 * from two runs of one seed, pair by pair.
 */
static json_t *cover_of_run(const char *design, const char *dir)
{
	char path[4200];
	json_t *rec, *cov;
	int rc = RUN("run", "--rmap", design, "--sched", "cover", "--threads", "3",
		     "--reclaim-threads", "1", "--seed", "7", "--sched-steps", "20000",
		     "--no-progress", "--out", dir);

	ck_assert_msg(rc == 0, "exit %d\n%s", rc, tail());
	snprintf(path, sizeof(path), "%s/run-mixed32-%s-7.json", dir, design);
	rec = json_load_file(path, 0, NULL);
	ck_assert_msg(rec != NULL, "no record %s", path);
	cov = json_incref(json_object_get(rec, "coverage"));
	json_decref(rec);
	ck_assert_ptr_nonnull(cov);
	return cov;
}

START_TEST(test_sched_cover_is_deterministic)
{
	const char *design = rmap_mode_name((enum rmap_mode)_i);
	char d1[] = "/tmp/rt-cover-1-XXXXXX", d2[] = "/tmp/rt-cover-2-XXXXXX";
	json_t *c1, *c2;

	check_determinism("cover", design, "mixed32");
	if (_i == 0) {
		/*
		 * 8+2 CPUs: more windows open on one zone than a bucket holds,
		 * so the victim's choice must not depend on task ids (which
		 * differ between the run and its replay).
		 */
		int rc = RUN("run", "--sched", "cover", "--threads", "8", "--seed", "3",
			     "--sched-steps", RT_TSAN ? "20000" : "60000", "--check-determinism",
			     "--no-progress");

		ck_assert_msg(rc == 0 && strstr(out, "determinism: OK"), "exit %d\n%s", rc, tail());
	}
	ck_assert_ptr_nonnull(mkdtemp(d1));
	ck_assert_ptr_nonnull(mkdtemp(d2));
	c1 = cover_of_run(design, d1);
	c2 = cover_of_run(design, d2);
	ck_assert_int_gt(json_integer_value(json_object_get(c1, "distinct")), 0);
	ck_assert(json_equal(json_object_get(c1, "pairs"), json_object_get(c2, "pairs")));
	ck_assert(json_equal(json_object_get(c1, "sites"), json_object_get(c2, "sites")));
	json_decref(c1);
	json_decref(c2);
	rt_remove_tree(d1);
	rt_remove_tree(d2);
}
END_TEST

/*
 * The seeded lock-order inversion below: TSan's deadlock detector rightly
 * sees it too, before our lockdep does: let it report and go on (exit 66
 * at the end; the binary's own default halts at the first report).
 */
static void tsan_goes_on_after_inversion(void)
{
	char opts[2048];

	if (!RT_TSAN || strstr(getenv("TSAN_OPTIONS") ? getenv("TSAN_OPTIONS") : "",
				"halt_on_error=0"))
		return;
	snprintf(opts, sizeof(opts), "%s:halt_on_error=0",
		 getenv("TSAN_OPTIONS") ? getenv("TSAN_OPTIONS") : "");
	setenv("TSAN_OPTIONS", opts, 1);
}

/*
 * A seeded run that finds a bug replays too: with --halt-on-failure it
 * stops at the decision after the report, not when main notices the
 * report (which the load decides), and the replay, in the same process,
 * learns the lock order afresh instead of finding it known and saying
 * nothing.
 */
START_TEST(test_sched_failing_run_is_deterministic)
{
	int rc;

	tsan_goes_on_after_inversion();
	rc = RUN("run", "--scenario", "mixed32", "--rmap", "objfile", "--inject",
		 "reclaim-lock-ptl", "--sched", "pct", "--threads", "4", "--seed", "11",
		 "--sched-steps", "5000", "--halt-on-failure", "--check-determinism",
		 "--no-progress");
	ck_assert_msg(rc == (RT_TSAN ? 66 : 1), "exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "determinism: OK"), "%s", tail());
	ck_assert_msg(strstr(out, "END: FAILURE (lockdep-order:PG_chainlock->page_table_lock)"),
		      "%s", tail());
}
END_TEST

/*
 * --sched cover on a loaded machine: copies of three seeded runs at once,
 * beside a spinning thread per CPU, each with --check-determinism. Where
 * the allocator puts the model's objects (ASLR, libc's arenas, and when
 * liburcu's thread frees them, which the load decides) must not reach the
 * schedule. These three did reach it (an address freed and handed out
 * again while a window on the old object was open) in about 1 copy in
 * 3 like this: sdet32's fork/exec/exit churn frees mms and files, and
 * mixed32/anonvma is the run of the report (issue 23).
 */
#define LOADED_ROUNDS	(RT_TSAN ? 1 : 3)	/* copies of each run at once */

struct loaded_copy {
	const char *scenario, *design, *seed;
	int rc;
	char out[16384];
};

static void *loaded_copy_main(void *arg)
{
	struct loaded_copy *c = arg;

	c->rc = rt_cli_run((const char *const[]){
		"run", "--scenario", c->scenario, "--rmap", c->design, "--sched", "cover",
		"--threads", "3", "--reclaim-threads", "1", "--seed", c->seed,
		"--sched-steps", RT_TSAN ? "10000" : "30000", "--check-determinism",
		"--no-progress", NULL }, c->out, sizeof(c->out));
	return NULL;
}

static void *hog_main(void *arg)
{
	const int *stop = arg;

	/* Acquire pairs with the release in the test once the copies are done. */
	while (!__atomic_load_n(stop, __ATOMIC_ACQUIRE))
		cpu_relax();
	return NULL;
}

START_TEST(test_sched_cover_is_deterministic_under_load)
{
	static const char *const runs[][3] = {
		{ "sdet32", "objfile", "42" }, { "sdet32", "objfile", "1" },
		{ "mixed32", "anonvma", "42" },
	};
	enum { NR_RUNS = 3, NR_COPIES = NR_RUNS * LOADED_ROUNDS, MAX_HOGS = 4 };
	struct loaded_copy *c = rt_calloc(NR_COPIES, sizeof(*c));
	pthread_t copy[NR_COPIES], hog[MAX_HOGS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int nr_hogs = cpus < 1 ? 1 : cpus > MAX_HOGS ? MAX_HOGS : (int)cpus, stop = 0, bad = 0;

	for (int i = 0; i < nr_hogs; i++)
		ck_assert_int_eq(pthread_create(&hog[i], NULL, hog_main, &stop), 0);
	for (int i = 0; i < NR_COPIES; i++) {
		c[i].scenario = runs[i % NR_RUNS][0];
		c[i].design = runs[i % NR_RUNS][1];
		c[i].seed = runs[i % NR_RUNS][2];
		ck_assert_int_eq(pthread_create(&copy[i], NULL, loaded_copy_main, &c[i]), 0);
	}
	for (int i = 0; i < NR_COPIES; i++)
		ck_assert_int_eq(pthread_join(copy[i], NULL), 0);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < nr_hogs; i++)
		ck_assert_int_eq(pthread_join(hog[i], NULL), 0);
	for (int i = 0; i < NR_COPIES; i++)
		bad += c[i].rc != 0 || !strstr(c[i].out, "determinism: OK");
	printf("# cover under load: %d copies at once beside %d spinning threads:"
	       " %d not deterministic\n", NR_COPIES, nr_hogs, bad);
	fflush(stdout);		/* before a failure ends the forked test */
	for (int i = 0; i < NR_COPIES; i++)
		ck_assert_msg(c[i].rc == 0 && strstr(c[i].out, "determinism: OK"),
			      "%s/%s seed %s, one of %d copies at once: exit %d\n%s", c[i].scenario,
			      c[i].design, c[i].seed, NR_COPIES, c[i].rc,
			      rt_cli_excerpt(c[i].out, 2000));
	free(c);
}
END_TEST

/*
 * --cover-map: the second run counts as new only what the first did not
 * cover; `coverage` reads the map; a map or file without coverage is bad
 * input (exit 2), checked before the run.
 */
START_TEST(test_cover_map_and_coverage_command)
{
	char dir[] = "/tmp/rt-covmap-XXXXXX", map[4200], bad[4200];
	json_t *m;
	long long d1, d2;
	FILE *f;
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(map, sizeof(map), "%s/map.json", dir);
	snprintf(bad, sizeof(bad), "%s/bad.json", dir);
	rc = RUN("run", "--threads", "2", "--seconds", "1", "--seed", "1", "--no-progress",
		 "--cover-map", map);
	ck_assert_msg(rc == 0, "exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, " new (not in "), "%s", tail());
	m = json_load_file(map, 0, NULL);
	ck_assert_ptr_nonnull(m);
	d1 = (long long)json_object_size(json_object_get(json_object_get(m, "coverage"), "pairs"));
	ck_assert_int_gt(d1, 0);
	json_decref(m);
	rc = RUN("run", "--threads", "2", "--seconds", "1", "--seed", "2", "--no-progress",
		 "--cover-map", map);
	ck_assert_msg(rc == 0, "exit %d\n%s", rc, tail());
	m = json_load_file(map, 0, NULL);
	d2 = (long long)json_object_size(json_object_get(json_object_get(m, "coverage"), "pairs"));
	ck_assert_int_ge(d2, d1);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(m, "coverage"),
							    "records")), 2);
	json_decref(m);
	rc = RUN("coverage", map, "--uncovered", "3");
	ck_assert_msg(rc == 0, "exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "| operations | times | site pairs |"), "%s", tail());
	ck_assert_msg(strstr(out, "interleaving coverage: "), "%s", tail());
	f = fopen(bad, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{\"kind\": \"bench\"}\n", f);
	fclose(f);
	ck_assert_int_eq(RUN("coverage", bad), 2);
	ck_assert_msg(strstr(out, "no interleaving coverage"), "%s", tail());
	ck_assert_int_eq(RUN("run", "--seconds", "1", "--cover-map", bad), 2);
	ck_assert_msg(!strstr(out, "START:"), "the run started: %s", tail());
	ck_assert_int_eq(RUN("run", "--no-cover", "--sched", "cover"), 2);
	rt_remove_tree(dir);
}
END_TEST

START_TEST(test_sched_pct_prints_its_bound)
{
	int rc = RUN("run", "--scenario", "shm", "--sched", "pct", "--pct-depth", "2",
		     "--pct-steps", "1000", "--threads", "3", "--reclaim-threads", "1",
		     "--sched-steps", "2000", "--seed", "1", "--no-progress");

	ck_assert_msg(rc == 0, "exit %d\n%s", rc, tail());
	/* n = 4 threads, k = 1000, d = 2: 1/(4 * 1000) = 0.00025 */
	ck_assert_msg(strstr(out, "1/(n*k^(d-1)) = 0.00025"), "%s", tail());
}
END_TEST

/* The one failure artifact in @dir whose name starts with @prefix. */
static json_t *load_artifact(const char *dir, const char *prefix, char *path, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	json_t *art = NULL;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, len, "%s/%s", dir, de->d_name);
		art = json_load_file(path, 0, NULL);
		break;
	}
	closedir(d);
	ck_assert_msg(art, "no %s* artifact in %s", prefix, dir);
	return art;
}

/*
 * A loop that waits, at switch points and with no lock the scheduler can
 * see, for a lower-priority thread (try_to_unuse() rescanning for the
 * slot kswapd's swap-out holds): pct without change points would run it
 * for good; the tick drops it and the run ends. No audits: a thread
 * parked for one never starts the operation the spinner waits for (the
 * model's waits are on work inside an operation, which never parks).
 */
START_TEST(test_sched_pct_tick_ends_a_waiting_loop)
{
	int rc = RUN("run", "--scenario", "shm", "--threads", "2", "--reclaim-threads", "0",
		     "--sched", "pct", "--pct-depth", "1", "--seed", "1",
		     "--sched-steps", "400000", "--audit-every", "0", "--test-spin",
		     "--watchdog", RT_TSAN ? "120" : "30", "--no-progress");

	ck_assert_msg(rc == 0, "exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "the longest operation took 262144 of one thread's;"
			      " 1 ticks dropped a thread"), "%s", tail());
	ck_assert_msg(strstr(out, "END: SUCCESS"), "%s", tail());
}
END_TEST

START_TEST(test_sched_seeded_failure_replays_10_of_10)
{
	char dir[] = "/tmp/rt-sched-XXXXXX", path[4096];
	static const char *const fields[] = {
		"kind", "message", "signature", "op", "task", "scenario", "rmap", "threads",
		"reclaim_threads", "seed", "sched", "pct_depth", "sched_steps", "inject",
		"pages", "build", "version", "reproduce", "args", "count", "flight", NULL,
	};
	json_t *art;
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	tsan_goes_on_after_inversion();
	rc = RUN("run", "--scenario", "mixed32", "--rmap", "objfile", "--inject",
		 "reclaim-lock-ptl", "--sched", "pct", "--threads", "4", "--seed", "11",
		 "--sched-steps", "5000", "--out", dir, "--no-progress");
	ck_assert_msg(rc == (RT_TSAN ? 66 : 1), "exit %d\n%s", rc, tail());
	art = load_artifact(dir, "failure-lockdep-order-", path, sizeof(path));
	for (int i = 0; fields[i]; i++)
		ck_assert_msg(json_object_get(art, fields[i]), "artifact lacks '%s'", fields[i]);
	ck_assert_str_eq(json_string_value(json_object_get(art, "signature")),
			 "lockdep-order:PG_chainlock->page_table_lock");
	ck_assert_str_eq(json_string_value(json_object_get(art, "sched")), "pct");
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(art, "inject"), 0)),
			 "reclaim-lock-ptl");
	ck_assert_int_gt(json_array_size(json_object_get(art, "flight")), 0);
	ck_assert_int_gt(json_integer_value(json_object_get(art, "sched_steps")), 0);
	json_decref(art);

	rc = RUN("replay", path, "--times", "10");
	ck_assert_msg(rc == 0, "replay exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "reproduced 10/10"), "%s", tail());

	/*
	 * minimize: no larger anywhere, and the smaller run still fails the
	 * same way. Not in the TSan build: its ~60 candidate runs each pay
	 * TSan's start-up (42 s there against 3 s in plain), and minimize's
	 * logic does not depend on the build: the plain and ASan builds run
	 * this, and check_replay minimizes a hang in the plain build.
	 */
	if (!RT_TSAN) {
		char mdir[4200], mpath[4096];
		static const char *const sizes[] = {
			"threads", "reclaim_threads", "procs", "sched_steps", NULL,
		};
		json_t *big = json_load_file(path, 0, NULL), *small;

		snprintf(mdir, sizeof(mdir), "%s/min", dir);
		rc = RUN("minimize", path, "--out", mdir, "--quiet");
		ck_assert_msg(rc == 0, "minimize exit %d\n%s", rc, tail());
		small = load_artifact(mdir, "failure-lockdep-order-", mpath, sizeof(mpath));
		ck_assert_str_eq(json_string_value(json_object_get(small, "signature")),
				 json_string_value(json_object_get(big, "signature")));
		for (int i = 0; sizes[i]; i++)
			ck_assert_msg(json_integer_value(json_object_get(small, sizes[i])) <=
				      json_integer_value(json_object_get(big, sizes[i])),
				      "minimized %s grew", sizes[i]);
		ck_assert_int_lt(json_integer_value(json_object_get(small, "threads")),
				 json_integer_value(json_object_get(big, "threads")));
		json_decref(big);
		json_decref(small);
		rc = RUN("replay", mpath, "--times", "2");
		ck_assert_msg(rc == 0 && strstr(out, "reproduced 2/2"), "exit %d\n%s", rc, tail());
	}
	rt_remove_tree(dir);
}
END_TEST

#if RT_TSAN
START_TEST(test_sched_tsan_still_sees_a_race)
{
	int rc = RUN("run", "--scenario", "shm", "--sched", "random", "--test-race",
		     "--threads", "2", "--reclaim-threads", "1", "--seed", "3",
		     "--sched-steps", "5000", "--no-progress");

	/* exitcode=66: built into the binary (sanitizers/defaults). */
	ck_assert_msg(rc == 66, "exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "WARNING: ThreadSanitizer: data race"), "%s", tail());
	ck_assert_msg(strstr(out, "rt_test_race_bump"), "%s", tail());
}
END_TEST
#endif

static Suite *sched_suite(void)
{
	Suite *s = suite_create("sched");
	TCase *tc = tcase_create("determinism");

	tcase_set_timeout(tc, rt_tmo(600));
	tcase_add_loop_test(tc, test_sched_random_is_deterministic, 0, RMAP_NR_MODES);
	tcase_add_loop_test(tc, test_sched_pct_is_deterministic, 0, RMAP_NR_MODES);
	/*
	 * cover in every design in the plain and ASan builds; under TSan in
	 * two (ptechain, objfile: 14 s of TSan's 73 s here). What TSan adds
	 * is the races it sees while schedules run, and the random and pct
	 * loops above run schedules in every design.
	 */
	tcase_add_loop_test(tc, test_sched_cover_is_deterministic, 0, RT_TSAN ? 2 : RMAP_NR_MODES);
	tcase_add_test(tc, test_sched_failing_run_is_deterministic);
	tcase_add_test(tc, test_cover_map_and_coverage_command);
	tcase_add_test(tc, test_sched_pct_prints_its_bound);
	tcase_add_test(tc, test_sched_pct_tick_ends_a_waiting_loop);
	suite_add_tcase(s, tc);
	tc = tcase_create("load");
	tcase_set_timeout(tc, rt_tmo(300));
	tcase_add_test(tc, test_sched_cover_is_deterministic_under_load);
	suite_add_tcase(s, tc);
	tc = tcase_create("replay");
	tcase_set_timeout(tc, rt_tmo(600));
	tcase_add_test(tc, test_sched_seeded_failure_replays_10_of_10);
#if RT_TSAN
	tcase_add_test(tc, test_sched_tsan_still_sees_a_race);
#endif
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_check_main(sched_suite());
}
