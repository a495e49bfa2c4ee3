// SPDX-License-Identifier: MIT
/*
 * `rmaptorture explore` (issue 24): the preemption-bounded enumerator
 * (stress/rt_explore.c) driving the deterministic scheduler's explore
 * kind on a tiny two-CPU program whose switch points are known; then the
 * command through the binary.
 *
 * The tiny program: CPU A runs m blocks, CPU B runs n blocks, with a
 * yield point (a switch point) between two blocks of a CPU. A schedule is
 * an interleaving of the blocks, alternating runs of A's and B's; with r
 * runs it has r-1 switches, and every switch but the last leaves a CPU
 * that could have gone on (the last one leaves a CPU that is done), so it
 * has r-2 preemptions. Interleavings with r = 2j runs starting with A
 * split A's blocks into j runs and B's into j: C(m-1,j-1)·C(n-1,j-1)
 * ways; with r = 2j+1 runs starting with A: C(m-1,j)·C(n-1,j-1); and the
 * same starting with B. Hence the schedules with at most K preemptions:
 *	K = 0:	2
 *	K = 1:	2 + (m-1) + (n-1)			= m + n
 *	K = 2:	m + n + 2·(m-1)·(n-1)
 * (all of them, C(m+n, m), once K >= m+n-2).
 */
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "rt_check.h"
#include "rt_cli.h"
#include "rt_explore.h"

/*
 * The engine's planted windows (--test-window, --test-window-bug), and
 * the artifacts, replays and minimizing of what explore found there, are
 * the harness's own plumbing, the same in every build: the plain build
 * runs those tests. The sanitizer builds run the rest (the tiny program,
 * pairs explored to the end, the seeded model bug and its clean tree),
 * where the sanitizers watch the model under explore's schedules; the
 * four took 38 s of the TSan suite's and 41 s of the ASan suite's time.
 */
#define RT_PLUMBING_TESTS	(!RT_TSAN && !RT_ASAN)
#include "rt_explore_prepass.h"
#include "rt_sched.h"
#include "cover.h"
#include "perturb.h"
#include "task.h"

/*
 * The shared state of the tiny program; relaxed atomics, since the
 * scheduler's hand-off orders nothing (rt_sched.h).
 */
static struct {
	int blocks[2];		/* m, n */
	int x[2];		/* A's and B's progress flag */
	int seen[2];		/* what each read of the other's flag in its middle block */
} P;

#define LD(v)		__atomic_load_n(&(v), __ATOMIC_RELAXED)
#define ST(v, x)	__atomic_store_n(&(v), (x), __ATOMIC_RELAXED)

/*
 * CPU @slot's blocks: the first sets its flag to 1, the second reads the
 * other's, the last sets its own to 2. Both reading 1 needs each CPU's
 * middle block to run between the other's first and last: exactly two
 * preemptions (A1 B1 B2 A2 A3 B3), never one (a run in between of the
 * whole other CPU makes it read 2 or 0).
 */
static void *tiny_cpu(void *arg)
{
	int slot = (int)(long)arg, other = 1 - slot;
	char name[16];

	snprintf(name, sizeof(name), "tiny-%d", slot);
	rt_task_attach(name);
	rt_sched_enter(slot);
	for (int b = 0; b < P.blocks[slot]; b++) {
		if (b)
			sched_point(SP_YIELD, NULL, -1);
		if (b == 0)
			ST(P.x[slot], 1);
		else if (b == 1)
			ST(P.seen[slot], LD(P.x[other]));
		if (b == P.blocks[slot] - 1)
			ST(P.x[slot], 2);
	}
	rt_sched_exit();
	rt_task_detach();
	return NULL;
}

/*
 * The same program with a private first block, each block naming the
 * object it touched to the coverage (a yield point on it) before its
 * switch point: A0 and B0 touch only their own, so sleep sets may skip
 * switching back across them; the flags are shared, so the bug stays.
 */
static int private_obj[2];

static void *tiny_obj_cpu(void *arg)
{
	int slot = (int)(long)arg, other = 1 - slot;
	char name[16];

	snprintf(name, sizeof(name), "tinyo-%d", slot);
	rt_task_attach(name);
	rt_sched_enter(slot);
	rt_task_set_op("tiny");
	for (int b = 0; b < P.blocks[slot]; b++) {
		const void *obj = &P.x[slot];

		if (b == 0)
			obj = &private_obj[slot];
		else if (b == 1)
			ST(P.x[slot], 1);
		else if (b == 2)
			ST(P.seen[slot], LD(P.x[other])), obj = &P.x[other];
		if (b == P.blocks[slot] - 1)
			ST(P.x[slot], 2);
		cover_yield("tiny:block", obj, COVER_TEST);
		if (b < P.blocks[slot] - 1)
			sched_point(SP_YIELD, NULL, -1);
	}
	rt_task_set_op(NULL);
	rt_sched_exit();
	rt_task_detach();
	return NULL;
}

static void no_audit(void *arg)
{
	(void)arg;
}

static bool with_objs;	/* tiny_run() runs tiny_obj_cpu() */

/* One schedule of the tiny program given by @prefix; true if the bug showed. */
static bool tiny_run(int m, int n, const int *prefix, size_t nr)
{
	struct rt_sched_config sc = { .kind = RT_SCHED_EXPLORE, .seed = 1,
				      .decisions = prefix, .nr_decisions = nr };
	pthread_t t[2];

	memset(&P, 0, sizeof(P));
	P.blocks[0] = m;
	P.blocks[1] = n;
	if (with_objs)
		cover_reset(true);	/* each schedule from nothing, as the engine's runs */
	rt_sched_init(&sc, 2, no_audit, NULL);
	for (long i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, with_objs ? tiny_obj_cpu : tiny_cpu,
					    (void *)i), 0);
	rt_sched_start();
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	rt_sched_fini();
	return LD(P.seen[0]) == 1 && LD(P.seen[1]) == 1;
}

struct tiny_result {
	unsigned long schedules, bugs, pruned;
	int *found;		/* the first buggy schedule's decisions */
	size_t nr_found;
};

/* Every schedule of the tiny program with at most @k preemptions (@prune: sleep sets). */
static void tiny_explore_p(int m, int n, int k, bool prune, struct tiny_result *r)
{
	struct rt_explore x;
	const int *prefix;
	size_t nr;

	memset(r, 0, sizeof(*r));
	rt_explore_init(&x, k, prune);
	while (rt_explore_next(&x, &prefix, &nr)) {
		unsigned long nt;
		const struct rt_sched_decision *t;
		bool bug = tiny_run(m, n, prefix, nr);

		t = rt_sched_trace(&nt);
		ck_assert_int_le(rt_explore_preemptions(t, nt), k);
		if (bug && !r->bugs++) {
			r->found = malloc(nt * sizeof(int));
			for (size_t i = 0; i < nt; i++)
				r->found[i] = t[i].chosen;
			r->nr_found = nt;
		}
		rt_explore_feed(&x, t, nt);
		ck_assert_uint_le(x.schedules, 10000);
	}
	ck_assert_uint_eq(x.diverged, 0);
	r->schedules = x.schedules;
	r->pruned = x.pruned;
	rt_explore_free(&x);
}

static void tiny_explore(int m, int n, int k, struct tiny_result *r)
{
	tiny_explore_p(m, n, k, false, r);
}

static unsigned long closed_form(int m, int n, int k)
{
	unsigned long c = 2;

	if (k >= 1)
		c += (unsigned long)(m - 1 + n - 1);
	if (k >= 2)
		c += 2UL * (unsigned long)(m - 1) * (unsigned long)(n - 1);
	return c;
}

START_TEST(test_explore_count_closed_form)
{
	static const int shapes[][2] = { { 3, 3 }, { 4, 2 }, { 2, 5 }, { 1, 3 } };

	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
		for (int k = 0; k <= 2; k++) {
			struct tiny_result r;
			int m = shapes[s][0], n = shapes[s][1];

			tiny_explore(m, n, k, &r);
			ck_assert_msg(r.schedules == closed_form(m, n, k),
				      "m %d n %d K %d: %lu schedules, closed form %lu",
				      m, n, k, r.schedules, closed_form(m, n, k));
			free(r.found);
		}
}
END_TEST

/* C(6,3) = 20 interleavings in all: K = 4 reaches every one. */
START_TEST(test_explore_count_all)
{
	struct tiny_result r;

	tiny_explore(3, 3, 4, &r);
	ck_assert_uint_eq(r.schedules, 20);
	free(r.found);
}
END_TEST

START_TEST(test_explore_bug_needs_two)
{
	struct tiny_result r1, r2;

	tiny_explore(3, 3, 1, &r1);
	ck_assert_msg(r1.bugs == 0, "K=1 found the depth-2 bug %lu times", r1.bugs);
	tiny_explore(3, 3, 2, &r2);
	ck_assert_msg(r2.bugs >= 1, "K=2 missed the depth-2 bug in %lu schedules", r2.schedules);
	free(r1.found);
	free(r2.found);
}
END_TEST

/* The found schedule's decisions replay to the bug, and to the same trace, 10 of 10. */
START_TEST(test_explore_found_replays)
{
	struct tiny_result r;

	tiny_explore(3, 3, 2, &r);
	ck_assert_uint_ge(r.bugs, 1);
	for (int i = 0; i < 10; i++) {
		unsigned long nt;
		const struct rt_sched_decision *t;

		ck_assert_msg(tiny_run(3, 3, r.found, r.nr_found), "try %d: not reproduced", i);
		t = rt_sched_trace(&nt);
		ck_assert_uint_eq(nt, r.nr_found);
		for (size_t j = 0; j < nt; j++)
			ck_assert_int_eq(t[j].chosen, r.found[j]);
		ck_assert_int_eq(rt_explore_preemptions(t, nt), 2);
	}
	free(r.found);
}
END_TEST

/* The decision list's text: run-length coded, parsed back to the same list. */
START_TEST(test_explore_decisions_text)
{
	static const int d[] = { 0, 0, 0, 1, 1, 0, 1 };
	char buf[64];
	int *back;
	size_t n;

	rt_explore_format(d, 7, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0x3,1x2,0,1");
	ck_assert_int_eq(rt_explore_parse(buf, &back, &n), 0);
	ck_assert_uint_eq(n, 7);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(back[i], d[i]);
	free(back);
	ck_assert_int_eq(rt_explore_parse("0x0", &back, &n), -EINVAL);
	ck_assert_int_eq(rt_explore_parse("32", &back, &n), -EINVAL);
	ck_assert_int_eq(rt_explore_parse("0,", &back, &n), -EINVAL);
	ck_assert_int_eq(rt_explore_parse("1y2", &back, &n), -EINVAL);
}
END_TEST

/* Every ordered pair of the kinds with a weight, a kind with itself too. */
START_TEST(test_explore_pairs)
{
	unsigned int w[4] = { 1, 0, 3, 2 };
	int pairs[16][2];

	ck_assert_int_eq(rt_explore_pairs(w, 4, pairs, 16), 9);
	ck_assert_int_eq(pairs[0][0], 0);
	ck_assert_int_eq(pairs[0][1], 0);
	ck_assert_int_eq(pairs[1][1], 2);
	ck_assert_int_eq(pairs[8][0], 3);
	ck_assert_int_eq(pairs[8][1], 3);
	ck_assert_int_eq(rt_explore_pairs(w, 4, pairs, 2), 9);
}
END_TEST

static char out[1 << 20];

/* What a failure shows of the run: its first sanitizer report, else its end. */
static const char *tail(void)
{
	return rt_cli_excerpt(out, 3000);
}

#define RUN(...) rt_cli_run((const char *const[]){ __VA_ARGS__, NULL }, out, sizeof(out))

/* Bad input: one line, exit 2. */
START_TEST(test_explore_cli_bad_options)
{
	static const char *const bad[][4] = {
		{ "explore", "--ops", "fork", NULL },
		{ "explore", "--ops", "fork,nosuchop", NULL },
		{ "explore", "--ops", "fork,exit,read", NULL },
		{ "explore", "-k", "9", NULL },
		{ "explore", "-k", "-1", NULL },
		{ "explore", "--rmap", "nosuch", NULL },
		{ "explore", "--scenario", "nosuch", NULL },
		{ "explore", "--budget", "soon", NULL },
		{ "explore", "--inject", "nosuch", NULL },
		{ "explore", "--bogus", NULL },
		{ "explore", "extra", NULL },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = rt_cli_run(bad[i], out, sizeof(out));

		ck_assert_msg(rc == 2, "%s %s: exit %d\n%s", bad[i][1], bad[i][2] ? bad[i][2] : "",
			      rc, tail());
		ck_assert_msg(strchr(out, '\n') == out + strlen(out) - 1, "not one line: %s", tail());
	}
	ck_assert_int_eq(RUN("run", "--sched", "explore"), 2);
	ck_assert_int_eq(RUN("run", "--decisions", "0x3", "--fixed-ops", "fork,exit"), 2);
	ck_assert_int_eq(RUN("run", "--sched", "explore", "--fixed-ops", "fork,exit",
			     "--decisions", "0xz"), 2);
}
END_TEST

/* A pair explored to the end says so, in the words of a bounded proof. */
START_TEST(test_explore_cli_exhausts_pair)
{
	int rc = RUN("explore", "--ops", "fork,truncate", "-k", "1", "--no-progress");

	ck_assert_msg(rc == 0, "exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "exhausted at K=1"), "%s", tail());
	ck_assert_msg(strstr(out, "with at most 1 preemptions"), "%s", tail());
	ck_assert_msg(strstr(out, "1 exhausted, 0 failed"), "%s", tail());
}
END_TEST

#if RT_PLUMBING_TESTS
/* The one file matching @glob in @dir, into @path. */
static void one_file(const char *dir, const char *glob, char *path, size_t len)
{
	char cmd[4300];
	FILE *ls;

	snprintf(cmd, sizeof(cmd), "ls %s/%s", dir, glob);
	ls = popen(cmd, "r");
	ck_assert_ptr_nonnull(ls);
	ck_assert_msg(fgets(path, (int)len, ls) != NULL, "no %s in %s", glob, dir);
	pclose(ls);
	path[strcspn(path, "\n")] = '\0';
}

/*
 * The engine's planted depth-2 race (run --test-window): not found at
 * K = 1, found at K = 2 with both preempted switch points named; the
 * artifact's schedule replays to the same signature 10 times of 10.
 */
START_TEST(test_explore_cli_window_found_and_replayed)
{
	char dir[] = "/tmp/check_explore.XXXXXX", path[4200];
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	rc = RUN("explore", "--ops", "read,read", "--test-window", "-k", "1", "--no-progress",
		 "--out", dir);
	ck_assert_msg(rc == 0, "K=1: exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "exhausted at K=1"), "%s", tail());
	rc = RUN("explore", "--ops", "read,read", "--test-window", "-k", "2", "--no-progress",
		 "--out", dir);
	ck_assert_msg(rc == 1, "K=2: exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "read,read: FAILURE after"), "%s", tail());
	ck_assert_msg(strstr(out, "preempted: CPU 0 at stress/engine.c:"), "%s", tail());
	ck_assert_msg(strstr(out, "preempted: CPU 1 at stress/engine.c:"), "%s", tail());
	one_file(dir, "failure-warn-*.json", path, sizeof(path));
	rc = RUN("replay", path, "--times", "10");
	ck_assert_msg(rc == 0, "replay: exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "reproduced 10/10"), "%s", tail());
	rt_remove_tree(dir);
}
END_TEST
#endif

/*
 * No --ops: every ordered pair of the scenario's kinds (forkbomb-cow has
 * 6, so 36) and each kind with kswapd's step, both ways (12 more), each
 * exhausted at K = 0 in 2 schedules (which CPU starts); the JSON record
 * on stdout says so.
 */
START_TEST(test_explore_cli_every_pair_json)
{
	json_t *rec;
	json_error_t err;
	int rc = RUN("explore", "--scenario", "forkbomb-cow", "--rmap", "anonvma", "-k", "0",
		     "--json", "--no-progress");
	const char *brace = strchr(out, '{');

	ck_assert_msg(rc == 0, "exit %d\n%s", rc, tail());
	ck_assert_ptr_nonnull(brace);
	rec = json_loads(brace, JSON_DISABLE_EOF_CHECK, &err);
	ck_assert_msg(rec != NULL, "not JSON: %s\n%s", err.text, tail());
	ck_assert_str_eq(json_string_value(json_object_get(rec, "record")), "explore");
	ck_assert_int_eq(json_integer_value(json_object_get(rec, "pairs_total")), 48);
	ck_assert_int_eq(json_integer_value(json_object_get(rec, "pairs_kswapd")), 12);
	ck_assert_int_eq(json_integer_value(json_object_get(rec, "pairs_exhausted")), 48);
	ck_assert_int_eq(json_integer_value(json_object_get(rec, "schedules")), 96);
	ck_assert_uint_eq(json_array_size(json_object_get(rec, "pairs")), 48);
	json_decref(rec);
}
END_TEST

/*
 * Sleep sets on the objects: fewer schedules than without, the depth-2
 * bug still found at K = 2; and without pruning the count is the closed
 * form's (the private block is one more block).
 */
START_TEST(test_explore_prune_keeps_bug)
{
	struct tiny_result full, pruned;

	with_objs = true;
	cover_reset(true);
	tiny_explore_p(4, 4, 2, false, &full);
	tiny_explore_p(4, 4, 2, true, &pruned);
	cover_reset(false);
	with_objs = false;
	printf("# tiny 4+4 blocks, K=2: %lu schedules unpruned, %lu with sleep sets (%lu branches pruned)\n",
	       full.schedules, pruned.schedules, pruned.pruned);
	ck_assert_uint_eq(full.schedules, closed_form(4, 4, 2));
	ck_assert_uint_ge(full.bugs, 1);
	ck_assert_msg(pruned.bugs >= 1, "pruning lost the bug (%lu schedules, %lu pruned)",
		      pruned.schedules, pruned.pruned);
	ck_assert_msg(pruned.schedules < full.schedules && pruned.pruned > 0,
		      "no reduction: %lu of %lu schedules, %lu pruned",
		      pruned.schedules, full.schedules, pruned.pruned);
	free(full.found);
	free(pruned.found);
}
END_TEST

/* ---- the serial pre-pass, the order, minimize, the sites' lines (issue 24, item 1 and 3) ---- */


/* A footprint by hand: slot 0 touches a and b, slot 1 touches b and c. */
START_TEST(test_explore_prepass_classifies)
{
	static int a, b, c;
	struct cover_footprint *fp = calloc(1, sizeof(*fp));
	struct rt_prepass pp;
	bool comm[4] = { false, true, false, true };
	int order[4];

	ck_assert_ptr_nonnull(fp);
	fp->e[fp->nr++] = (struct cover_fp_ent){ &a, COVER_PAGE, 0 };
	fp->e[fp->nr++] = (struct cover_fp_ent){ &b, COVER_MM, 0 };
	fp->e[fp->nr++] = (struct cover_fp_ent){ &b, COVER_MM, 1 };
	fp->e[fp->nr++] = (struct cover_fp_ent){ &c, COVER_PAGE, 1 };
	rt_prepass_classify(fp, 2, &pp);
	ck_assert(pp.communicates);
	ck_assert_int_eq(pp.nr, 1);
	ck_assert_ptr_eq(pp.objs[0], &b);
	ck_assert_int_eq(pp.kinds[COVER_MM], 1);
	fp->e[2].obj = &c;	/* now disjoint */
	rt_prepass_classify(fp, 2, &pp);
	ck_assert(!pp.communicates);
	free(fp);
	/* Communicating pairs first, each group in its order. */
	rt_prepass_order(comm, 4, order);
	ck_assert_int_eq(order[0], 1);
	ck_assert_int_eq(order[1], 3);
	ck_assert_int_eq(order[2], 0);
	ck_assert_int_eq(order[3], 2);
}
END_TEST

/* The planted depth-2 race's two CPUs touch one object: the pre-pass says they communicate. */
START_TEST(test_explore_prepass_window_communicates)
{
	json_t *rec, *pair;
	json_error_t err;
	int rc = RUN("explore", "--ops", "read,read", "--test-window", "-k", "0", "--json",
		     "--no-progress");
	const char *brace = strchr(out, '{');

	ck_assert_msg(rc == 0, "exit %d\n%s", rc, tail());
	ck_assert_ptr_nonnull(brace);
	rec = json_loads(brace, JSON_DISABLE_EOF_CHECK, &err);
	ck_assert_msg(rec != NULL, "not JSON: %s\n%s", err.text, tail());
	pair = json_array_get(json_object_get(rec, "pairs"), 0);
	ck_assert_msg(json_is_true(json_object_get(pair, "communicates")), "%s", tail());
	ck_assert_int_ge(json_integer_value(json_object_get(json_object_get(json_object_get(pair,
		"communicating_objects"), "kinds"), "test")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(rec, "prepass"),
							     "communicating")), 1);
	json_decref(rec);
	ck_assert_int_eq(RUN("explore", "--ops", "read,read", "--test-window", "-k", "0",
			     "--no-progress"), 0);
	ck_assert_msg(strstr(out, "read,read: exhausted at K=0") && strstr(out, "; communicating ("),
		      "%s", tail());
}
END_TEST

/* Every schedule of tiny_mix_cpu()'s program; @order: each run's footprint marks its switch points. */
struct order_walk {
	unsigned long schedules, pruned, first_bug;	/* first_bug: 1-based, 0 none */
	char **runs;		/* each schedule's decisions, in the order run */
};

/*
 * The tiny program with private blocks between the shared ones: block 1
 * sets the CPU's flag to 1, block 3 reads the other's, block 5 sets its
 * own to 2; blocks 0, 2 and 4 touch only a private object. The bug needs
 * two preemptions, as tiny_cpu()'s; the switch points before a private
 * block are the ones that do not communicate.
 */
static void *tiny_mix_cpu(void *arg)
{
	int slot = (int)(long)arg, other = 1 - slot;
	char name[16];

	snprintf(name, sizeof(name), "tinym-%d", slot);
	rt_task_attach(name);
	rt_sched_enter(slot);
	rt_task_set_op("tiny");
	for (int b = 0; b < 6; b++) {
		const void *obj = &private_obj[slot];

		if (b == 1)
			ST(P.x[slot], 1), obj = &P.x[slot];
		else if (b == 3)
			ST(P.seen[slot], LD(P.x[other])), obj = &P.x[other];
		else if (b == 5)
			ST(P.x[slot], 2), obj = &P.x[slot];
		cover_yield("tiny:mix", obj, COVER_TEST);
		if (b < 5)
			sched_point(SP_YIELD, NULL, -1);
	}
	rt_task_set_op(NULL);
	rt_sched_exit();
	rt_task_detach();
	return NULL;
}

/* One schedule of tiny_mix_cpu()'s program; true if the bug showed. */
static bool mix_run(const int *prefix, size_t nr)
{
	struct rt_sched_config sc = { .kind = RT_SCHED_EXPLORE, .seed = 1,
				      .decisions = prefix, .nr_decisions = nr };
	pthread_t t[2];

	memset(&P, 0, sizeof(P));
	cover_reset(true);
	rt_sched_init(&sc, 2, no_audit, NULL);
	for (long i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, tiny_mix_cpu, (void *)i), 0);
	rt_sched_start();
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	rt_sched_fini();
	return LD(P.seen[0]) == 1 && LD(P.seen[1]) == 1;
}

static void order_walk(int k, bool prune, bool order, struct order_walk *w)
{
	struct cover_footprint *fp = calloc(1, sizeof(*fp));
	struct rt_prepass pp;
	struct rt_explore x;
	const int *prefix;
	size_t nr;

	ck_assert_ptr_nonnull(fp);
	memset(w, 0, sizeof(*w));
	w->runs = calloc(10000, sizeof(*w->runs));
	rt_explore_init(&x, k, prune);
	while (rt_explore_next(&x, &prefix, &nr)) {
		const struct rt_sched_decision *t;
		unsigned long nt;
		char buf[512];
		bool bug;
		int *d;

		cover_footprint_record(fp);
		bug = mix_run(prefix, nr);
		cover_footprint_record(NULL);
		t = rt_sched_trace(&nt);
		d = malloc(nt * sizeof(*d));
		for (size_t i = 0; i < nt; i++)
			d[i] = t[i].chosen;
		rt_explore_format(d, nt, buf, sizeof(buf));
		free(d);
		ck_assert_uint_lt(x.schedules, 10000);
		w->runs[x.schedules] = strdup(buf);
		if (bug && !w->first_bug)
			w->first_bug = x.schedules + 1;
		if (order) {
			rt_prepass_classify(fp, 2, &pp);
			rt_explore_set_hot(&x, pp.objs, pp.nr_objs);
		}
		rt_explore_feed(&x, t, nt);
	}
	w->schedules = x.schedules;
	w->pruned = x.pruned;
	rt_explore_free(&x);
	free(fp);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void order_walk_free(struct order_walk *w)
{
	for (unsigned long i = 0; i < w->schedules; i++)
		free(w->runs[i]);
	free(w->runs);
}

/*
 * Communicating switch points first: the schedules come in another order,
 * but they are the same schedules (every one, without pruning; as many,
 * with), and the bug is still found.
 */
START_TEST(test_explore_order_keeps_the_set)
{
	struct order_walk plain, ordered, plain_p, ordered_p;
	bool same_order = true;

	order_walk(2, false, false, &plain);
	order_walk(2, false, true, &ordered);
	order_walk(2, true, false, &plain_p);
	order_walk(2, true, true, &ordered_p);
	cover_reset(false);
	printf("# tiny 6+6 with private blocks, K=2: first bug at schedule %lu of %lu in plain"
	       " order, %lu ordered; pruned: %lu and %lu of %lu\n", plain.first_bug, plain.schedules,
	       ordered.first_bug, plain_p.first_bug, ordered_p.first_bug, plain_p.schedules);
	ck_assert_uint_eq(plain.schedules, closed_form(6, 6, 2));
	ck_assert_uint_eq(ordered.schedules, plain.schedules);
	for (unsigned long i = 0; i < plain.schedules; i++)
		same_order &= !strcmp(plain.runs[i], ordered.runs[i]);
	ck_assert_msg(!same_order, "the pre-pass changed nothing of the order");
	qsort(plain.runs, plain.schedules, sizeof(char *), cmp_str);
	qsort(ordered.runs, ordered.schedules, sizeof(char *), cmp_str);
	for (unsigned long i = 0; i < plain.schedules; i++)
		ck_assert_str_eq(plain.runs[i], ordered.runs[i]);
	ck_assert_uint_eq(ordered_p.schedules, plain_p.schedules);
	ck_assert_uint_eq(ordered_p.pruned, plain_p.pruned);
	qsort(plain_p.runs, plain_p.schedules, sizeof(char *), cmp_str);
	qsort(ordered_p.runs, ordered_p.schedules, sizeof(char *), cmp_str);
	for (unsigned long i = 0; i < plain_p.schedules; i++)
		ck_assert_str_eq(plain_p.runs[i], ordered_p.runs[i]);
	ck_assert(plain.first_bug && ordered.first_bug && plain_p.first_bug && ordered_p.first_bug);
	order_walk_free(&plain);
	order_walk_free(&ordered);
	order_walk_free(&plain_p);
	order_walk_free(&ordered_p);
}
END_TEST

/* A yield point's site names its file and line, project-root relative. */
static int yield_line;

static void *yield_here(void *arg)
{
	rt_task_attach("yield-here");
	rt_task_set_op("tiny");
	yield_line = __LINE__; cover_yield("test:here", arg, COVER_TEST);
	rt_task_set_op(NULL);
	rt_task_detach();
	return NULL;
}

START_TEST(test_explore_yield_site_has_file_line)
{
	static int obj;
	struct cover_site_info si;
	char want[128], got[256] = "";
	pthread_t t;

	cover_reset(true);
	ck_assert_int_eq(pthread_create(&t, NULL, yield_here, &obj), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	for (int i = 0; i < cover_nr_sites(); i++)
		if (cover_site(i, &si) && !strcmp(si.label, "test:here"))
			cover_site_format(i, got, sizeof(got));
	cover_reset(false);
	snprintf(want, sizeof(want), "tests/check_explore.c:%d yield test:here (test)", yield_line);
	ck_assert_str_eq(got, want);
}
END_TEST

#if RT_PLUMBING_TESTS
/* The switches of a decision list: a slot unlike the one before. */
static int min_switches(const int *d, size_t n)
{
	int s = 0;

	for (size_t i = 1; i < n; i++)
		s += d[i] != d[i - 1];
	return s;
}

/* The artifact's decision list, from its args. */
static char *art_decisions(const char *path)
{
	json_t *a = json_load_file(path, 0, NULL), *args;
	char *d = NULL;

	ck_assert_msg(a != NULL, "%s: not JSON", path);
	args = json_object_get(a, "args");
	for (size_t i = 0; i + 1 < json_array_size(args); i++)
		if (!strcmp(json_string_value(json_array_get(args, i)), "--decisions"))
			d = strdup(json_string_value(json_array_get(args, i + 1)));
	json_decref(a);
	ck_assert_ptr_nonnull(d);
	return d;
}

/*
 * minimize of an explore failure: the planted race's schedule with three
 * switches too many shrinks to one with exactly two, which still
 * replays. Two switches are two preemptions: explore exhausts the pair at
 * K = 1 with no failure (test_explore_cli_window_found_and_replayed).
 */
START_TEST(test_explore_minimize_to_two_preemptions)
{
	char dir[] = "/tmp/check_explore_min.XXXXXX", path[4200], min[4200];
	char *before, *after;
	int *d, rc;
	size_t n;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	rc = RUN("run", "--sched", "explore", "--fixed-ops", "read,read", "--test-window",
		 "--decisions", "0,1x2,0x2,1,0,1", "--no-progress", "--out", dir);
	ck_assert_msg(rc == 1, "exit %d\n%s", rc, tail());
	one_file(dir, "failure-warn-*.json", path, sizeof(path));
	before = art_decisions(path);
	ck_assert_int_eq(rt_explore_parse(before, &d, &n), 0);
	ck_assert_int_eq(min_switches(d, n), 5);
	free(d);
	rc = RUN("minimize", path, "--no-build", "--budget", "200");
	ck_assert_msg(rc == 0, "minimize: exit %d\n%s", rc, tail());
	one_file(dir, "failure-warn-*-min.json", min, sizeof(min));
	after = art_decisions(min);
	ck_assert_int_eq(rt_explore_parse(after, &d, &n), 0);
	ck_assert_msg(min_switches(d, n) == 2, "%s -> %s", before, after);
	free(d);
	rc = RUN("replay", min, "--times", "3");
	ck_assert_msg(rc == 0, "replay: exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "reproduced 3/3"), "%s", tail());
	free(before);
	free(after);
	rt_remove_tree(dir);
}
END_TEST
#endif

#if RT_PLUMBING_TESTS
/*
 * A BUG in a worker abandons the model: explore still prints the pair's
 * report (the two operations, the decisions, the preempted sites with
 * their lines), the total, and the record, then exits 1.
 */
START_TEST(test_explore_bug_still_reports)
{
	char dir[] = "/tmp/check_explore_bug.XXXXXX", path[4200];
	json_t *rec;
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	rc = RUN("explore", "--ops", "read,read", "--test-window-bug", "-k", "2", "--no-progress",
		 "--out", dir);
	ck_assert_msg(rc == 1, "exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "read,read: FAILURE after") && strstr(out, ": bug:"), "%s", tail());
	ck_assert_msg(strstr(out, "the two operations: CPU 0 read, CPU 1 read; decisions "), "%s",
		      tail());
	ck_assert_msg(strstr(out, "preempted: CPU 0 at stress/engine.c:"), "%s", tail());
	ck_assert_msg(strstr(out, "preempted: CPU 1 at stress/engine.c:"), "%s", tail());
	ck_assert_msg(strstr(out, "1 failed") && strstr(out, "stopped: a BUG or a hang"), "%s", tail());
	snprintf(path, sizeof(path), "%s/explore.json", dir);
	rec = json_load_file(path, 0, NULL);
	ck_assert_msg(rec != NULL, "no %s\n%s", path, tail());
	ck_assert_int_eq(json_integer_value(json_object_get(rec, "pairs_failed")), 1);
	json_decref(rec);
	rt_remove_tree(dir);
}
END_TEST
#endif

/* After the pairs of kinds, each kind with kswapd: (a, k) then (k, a). */
START_TEST(test_explore_pairs_kswapd)
{
	unsigned int w[4] = { 1, 0, 3, 2 };
	int pairs[32][2];

	ck_assert_int_eq(rt_explore_pairs_kswapd(w, 4, 4, pairs, 32), 9 + 6);
	ck_assert_int_eq(pairs[8][0], 3);
	ck_assert_int_eq(pairs[8][1], 3);
	ck_assert_int_eq(pairs[9][0], 0);
	ck_assert_int_eq(pairs[9][1], 4);
	ck_assert_int_eq(pairs[10][0], 4);
	ck_assert_int_eq(pairs[10][1], 0);
	ck_assert_int_eq(pairs[11][0], 2);
	ck_assert_int_eq(pairs[11][1], 4);
	ck_assert_int_eq(pairs[14][0], 4);
	ck_assert_int_eq(pairs[14][1], 3);
	ck_assert_int_eq(rt_explore_pairs_kswapd(w, 4, 4, pairs, 10), 15);
}
END_TEST

/* explore's JSON record on stdout (--json), parsed from out[]; the caller frees it. */
static json_t *explore_record(void)
{
	const char *brace = strchr(out, '{');
	json_error_t err;
	json_t *rec;

	ck_assert_msg(brace != NULL, "no record:\n%s", tail());
	rec = json_loads(brace, JSON_DISABLE_EOF_CHECK, &err);
	ck_assert_msg(rec != NULL, "not JSON: %s\n%s", err.text, tail());
	return rec;
}

/* The schedules of the one pair in explore's record; exhausted, with no failure. */
static long exhausted_schedules(void)
{
	json_t *rec = explore_record(), *pair = json_array_get(json_object_get(rec, "pairs"), 0);
	long n;

	ck_assert_ptr_nonnull(pair);
	ck_assert_msg(json_is_true(json_object_get(pair, "exhausted")), "not exhausted:\n%s", tail());
	ck_assert_msg(json_is_false(json_object_get(pair, "failed")), "failed:\n%s", tail());
	ck_assert_int_eq(json_integer_value(json_object_get(rec, "pairs_kswapd")), 1);
	n = (long)json_integer_value(json_object_get(pair, "schedules"));
	json_decref(rec);
	return n;
}

/*
 * write on CPU 0 against kswapd's reclaim step on CPU 1: explored to the
 * end at K = 1 with no failure, in more schedules than at K = 0 (the
 * step's switch points are explored like the operation's).
 */
START_TEST(test_explore_kswapd_pair_exhausts)
{
	long k0, k1;
	int rc;

	rc = RUN("explore", "--ops", "write,kswapd", "-k", "0", "--json", "--no-progress");
	ck_assert_msg(rc == 0, "K=0: exit %d\n%s", rc, tail());
	k0 = exhausted_schedules();
	rc = RUN("explore", "--ops", "write,kswapd", "-k", "1", "--json", "--no-progress");
	ck_assert_msg(rc == 0, "K=1: exit %d\n%s", rc, tail());
	k1 = exhausted_schedules();
	printf("# write,kswapd: %ld schedules at K=0, %ld at K=1\n", k0, k1);
	ck_assert_int_ge(k0, 1);
	ck_assert_int_gt(k1, k0);
}
END_TEST

/* The count of operation @name in a run's JSON record (out[]). */
static long ops_of(json_t *rec, const char *name)
{
	return (long)json_integer_value(json_object_get(json_object_get(rec, "ops_by_kind"), name));
}

/*
 * A fixed sequence: CPU 0 runs write then munmap, CPU 1 fork; the run's
 * record counts each once (kswapd in a sequence counts as no kind, but
 * its pass scans the LRU);
 * explore runs the same pair to the end.
 */
START_TEST(test_explore_fixed_sequence_runs_each_op)
{
	json_t *rec;
	int rc;

	rc = RUN("run", "--sched", "explore", "--fixed-ops", "write+munmap,fork", "--seed", "1",
		 "--json", "--no-progress");
	ck_assert_msg(rc == 0, "exit %d\n%s", rc, tail());
	rec = explore_record();
	ck_assert_int_eq(ops_of(rec, "write"), 1);
	ck_assert_int_eq(ops_of(rec, "munmap"), 1);
	ck_assert_int_eq(ops_of(rec, "fork"), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(rec, "ops")), 3);
	json_decref(rec);
	rc = RUN("run", "--sched", "explore", "--fixed-ops", "read+kswapd+read,write", "--seed", "1",
		 "--json", "--no-progress");
	ck_assert_msg(rc == 0, "exit %d\n%s", rc, tail());
	rec = explore_record();
	ck_assert_int_eq(ops_of(rec, "read"), 2);
	ck_assert_int_eq(ops_of(rec, "write"), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(rec, "ops")), 3);
	ck_assert_msg(json_integer_value(json_object_get(json_object_get(rec, "reclaim"), "scanned")) > 0,
		      "kswapd's step scanned nothing:\n%s", tail());
	json_decref(rec);
	rc = RUN("explore", "--ops", "write+munmap,fork", "-k", "1", "--no-progress");
	ck_assert_msg(rc == 0, "explore: exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "write+munmap,fork: exhausted at K=1"), "%s", tail());
}
END_TEST

/*
 * --kswapd: a third CPU runs the reclaim step, and its switch points are
 * explored with the others'. The planted depth-2 race of CPUs 0 and 1
 * (--test-window) is still found at K = 2 with kswapd's step in between,
 * the report names CPU 2, and the artifact's command (--reclaim-threads 1)
 * replays it 3 times of 3. (A seeded bug in reclaim's own lock order,
 * such as reclaim-lock-ptl, no longer needs kswapd: the warm-up's serial
 * reclaim passes report it before any schedule.)
 */
#if RT_PLUMBING_TESTS
START_TEST(test_explore_kswapd_artifact_replays)
{
	char dir[] = "/tmp/check_explore.XXXXXX", path[4200];
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	rc = RUN("explore", "--ops", "read,read", "--kswapd", "--test-window", "-k", "2",
		 "--no-progress", "--out", dir);
	ck_assert_msg(rc == 1, "exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "CPU 0 read, CPU 1 read, CPU 2 kswapd"), "%s", tail());
	ck_assert_msg(strstr(out, "preempted: CPU 0 at stress/engine.c:"), "%s", tail());
	one_file(dir, "failure-warn-*.json", path, sizeof(path));
	rc = RUN("replay", path, "--times", "3");
	ck_assert_msg(rc == 0, "replay: exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "--reclaim-threads 1"), "%s", tail());
	ck_assert_msg(strstr(out, "reproduced 3/3"), "%s", tail());
	rt_remove_tree(dir);
}
END_TEST
#endif /* RT_PLUMBING_TESTS: registered below */

/*
 * A seeded bug whose window lies between two operations of two CPUs
 * (tlb-flush-skip: a read stalled after its translation, a truncate
 * that zaps and flushes without waiting for it, then frees the page):
 * in the warm world of one of the first world seeds, read,truncate
 * finds it at K <= 1, naming both operations; the clean tree explores
 * the same pair of the same world to the end at K = 2 with no failure.
 */
START_TEST(test_explore_seeded_tlb_flush_skip)
{
	char seed[16];
	int found = 0, rc;

	for (int s = 1; s <= 8 && !found; s++) {
		snprintf(seed, sizeof(seed), "%d", s);
		rc = RUN("explore", "--scenario", "mixed32", "--rmap", "ptechain", "--ops",
			 "read,truncate", "-k", "1", "--seed", seed, "--inject", "tlb-flush-skip",
			 "--no-progress");
		ck_assert_msg(rc == 0 || rc == 1, "seed %d: exit %d\n%s", s, rc, tail());
		if (rc == 1) {
			ck_assert_msg(strstr(out, "read,truncate: FAILURE after"), "%s", tail());
			ck_assert_msg(strstr(out, "CPU 0 read, CPU 1 truncate"), "%s", tail());
			ck_assert_msg(strstr(out, "audit:data-integrity"), "%s", tail());
			found = s;
		}
	}
	ck_assert_msg(found, "tlb-flush-skip: not found at K=1 in world seeds 1-8");
	rc = RUN("explore", "--scenario", "mixed32", "--rmap", "ptechain", "--ops", "read,truncate",
		 "-k", "2", "--seed", seed, "--no-progress");
	ck_assert_msg(rc == 0, "clean tree, world seed %d: exit %d\n%s", found, rc, tail());
	ck_assert_msg(strstr(out, "exhausted at K=2"), "%s", tail());
	ck_assert_msg(strstr(out, "1 exhausted, 0 failed"), "%s", tail());
}
END_TEST

/*
 * A bug the world's serial warm-up already meets (reclaim-lock-ptl: the
 * warm-up's reclaim takes page_table_lock inside PG_chainlock) fails the
 * first pair, says that it needs no race, and leaves the design's other
 * pairs unexplored, instead of failing each of them the same way.
 */
START_TEST(test_explore_warmup_failure_once)
{
	const char *first, *again;
	int rc;

	rc = RUN("explore", "--rmap", "objfile", "--inject", "reclaim-lock-ptl", "-k", "1",
		 "--no-progress");
#if RT_TSAN
	/*
	 * TSan's deadlock detector sees the warm-up's inversion first and
	 * ends the process (exit 66, built in), as the catalogue says of
	 * this bug: the plain and ASan builds check the rest.
	 */
	ck_assert_msg(rc == 66 && strstr(out, "lock-order-inversion"), "exit %d\n%s", rc, tail());
	return;
#endif
	ck_assert_msg(rc == 1, "exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "serial warm-up (world seed 1) failed before any schedule:"
			     " lockdep-order:PG_chainlock->page_table_lock"), "%s", tail());
	first = strstr(out, ": FAILURE after");
	ck_assert_msg(first, "%s", tail());
	again = strstr(first + 1, ": FAILURE after");
	ck_assert_msg(!again, "a second pair failed the same way:\n%s", tail());
	ck_assert_msg(strstr(out, " 1 failed,"), "%s", tail());
}
END_TEST

/*
 * A CPU preempted before it takes a lock is named by the lock it was about
 * to take (its own site is recorded only once it holds it): here
 * truncate-no-recheck's write,truncate in truncate-race's world 11, where
 * CPU 0's fault is preempted before page_table_lock.
 */
START_TEST(test_explore_names_the_lock_about_to_be_taken)
{
	int rc = RUN("explore", "--scenario", "truncate-race", "--rmap", "ptechain", "--ops",
		     "write,truncate", "-k", "1", "--seed", "11", "--inject", "truncate-no-recheck",
		     "--no-progress");

	ck_assert_msg(rc == 1, "exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "preempted: CPU 0 at ") &&
		      strstr(out, ", about to take page_table_lock (decision "), "%s", tail());
}
END_TEST

static Suite *explore_suite(void)
{
	Suite *s = suite_create("explore");
	TCase *tc = rt_tcase(s, "tiny", 120, NULL, NULL);

	tcase_add_test(tc, test_explore_count_closed_form);
	tcase_add_test(tc, test_explore_count_all);
	tcase_add_test(tc, test_explore_bug_needs_two);
	tcase_add_test(tc, test_explore_found_replays);
	tcase_add_test(tc, test_explore_prune_keeps_bug);
	tc = rt_tcase(s, "plan", 30, NULL, NULL);
	tcase_add_test(tc, test_explore_decisions_text);
	tcase_add_test(tc, test_explore_pairs);
	tc = rt_tcase(s, "cli", 240, NULL, NULL);
	tcase_add_test(tc, test_explore_cli_bad_options);
	tcase_add_test(tc, test_explore_cli_exhausts_pair);
#if RT_PLUMBING_TESTS
	tcase_add_test(tc, test_explore_cli_window_found_and_replayed);
#endif
	tcase_add_test(tc, test_explore_cli_every_pair_json);
	tc = rt_tcase(s, "prepass", 240, NULL, NULL);
	tcase_add_test(tc, test_explore_prepass_classifies);
	tcase_add_test(tc, test_explore_order_keeps_the_set);
	tcase_add_test(tc, test_explore_yield_site_has_file_line);
	tcase_add_test(tc, test_explore_prepass_window_communicates);
#if RT_PLUMBING_TESTS
	tcase_add_test(tc, test_explore_minimize_to_two_preemptions);
	tcase_add_test(tc, test_explore_bug_still_reports);
#endif
	tc = rt_tcase(s, "cpus", 240, NULL, NULL);
	tcase_add_test(tc, test_explore_pairs_kswapd);
	tcase_add_test(tc, test_explore_kswapd_pair_exhausts);
	tcase_add_test(tc, test_explore_fixed_sequence_runs_each_op);
#if RT_PLUMBING_TESTS
	/*
	 * Finding the kswapd window takes about 7,000 schedules: 100 s of
	 * the TSan suite's longest test, 26 s under ASan. The sanitizers
	 * watch explore's kswapd path in the two tests above.
	 */
	tcase_add_test(tc, test_explore_kswapd_artifact_replays);
#endif
	tc = rt_tcase(s, "seeded", 240, NULL, NULL);
	tcase_add_test(tc, test_explore_seeded_tlb_flush_skip);
	tcase_add_test(tc, test_explore_warmup_failure_once);
	tcase_add_test(tc, test_explore_names_the_lock_about_to_be_taken);
	return s;
}

int main(void)
{
	return rt_check_main(explore_suite());
}
