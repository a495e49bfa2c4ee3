// SPDX-License-Identifier: MIT
/*
 * Check suite "vtime": --sched vtime, the discrete-event schedule in
 * virtual time (stress/rt_vtime.h), against answers known in advance.
 *
 * known: two emulated CPUs that do all their work under one lock, held
 * for a known cost, give efficiency 0.5 (speedup 1 over one CPU); with a
 * lock each they give speedup 2.0. The cost is charged explicitly
 * (rt_vtime_charge(): exact answers), then with each of the two real
 * cost sources around it: the calibrated model (the segments between the
 * lock operations add a little) and measured thread CPU time of a busy
 * loop of known length (within a tolerance).
 * trylock: a trylock at virtual time t fails exactly when another CPU's
 * hold [a, a + h) covers t, for t on both sides of both ends.
 * transfer: with --vtime-transfer T, a CPU that writes a line another CPU
 * wrote last pays T, once per move: two CPUs writing one line (or two
 * words of one line) alternately move it, each its own line never; a
 * lock's line moves where it is taken; the busy time is the work plus T
 * per line moved, exactly.
 * cli: a vtime run of the model is deterministic (--check-determinism) in
 * every design and reports virtual ops/s and per-class wait and hold in
 * its record; scale --sched vtime titles its tables as virtual.
 */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cacheline.h"
#include "lockdep.h"
#include "rmap.h"
#include "rt_check.h"
#include "rt_cli.h"
#include "rt_sched.h"
#include "spinlock.h"
#include "task.h"

#define HOLD_NS		200000ULL	/* 200 virtual us under the lock */
#define ITERS		20

struct cpu {
	int slot;
	spinlock_t *lock;
	enum rt_vtime_cost cost;
	const void *line;	/* written in every hold (line_write()); NULL: none */
	pthread_t thread;
};

static void no_audit(void *arg)
{
	(void)arg;
}

/* Burn @ns of this thread's CPU time (what the measured cost source sees). */
static void busy_ns(uint64_t ns)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ULL + (uint64_t)b.tv_nsec <
		 (uint64_t)a.tv_nsec + ns);
}

static void *cpu_main(void *arg)
{
	struct cpu *c = arg;
	char name[16];

	snprintf(name, sizeof(name), "vcpu-%d", c->slot);
	rt_task_attach(name);
	rt_sched_enter(c->slot);
	for (int i = 0; i < ITERS; i++) {
		spin_lock(c->lock);
		if (c->cost == RT_VTIME_MEASURED)
			busy_ns(HOLD_NS);
		else
			rt_vtime_charge(HOLD_NS);
		if (c->line)
			line_write(c->line, LINE_PAGE);
		spin_unlock(c->lock);
		rt_vtime_op_done();
	}
	rt_sched_exit();
	rt_task_detach();
	return NULL;
}

/* Run @nr CPUs of @cpus under @sc to the end; what vtime measured in @res. */
static void run_cpus(const struct rt_sched_config *sc, struct cpu *cpus, int nr,
		     struct rt_vtime_result *res)
{
	rt_sched_init(sc, nr, no_audit, NULL);
	for (int i = 0; i < nr; i++)
		ck_assert_int_eq(pthread_create(&cpus[i].thread, NULL, cpu_main, &cpus[i]), 0);
	rt_sched_start();
	for (int i = 0; i < nr; i++)
		ck_assert_int_eq(pthread_join(cpus[i].thread, NULL), 0);
	rt_sched_fini();
	rt_vtime_result_read(res);
	ck_assert_int_eq(res->ops, (uint64_t)nr * ITERS);
}

/* @nr CPUs (all on one lock if @shared), each ITERS holds: virtual ops/s. */
static double vtime_ops_per_sec(int nr, bool shared, enum rt_vtime_cost cost,
				struct rt_vtime_result *res)
{
	struct rt_sched_config sc = {
		.kind = RT_SCHED_VTIME,
		.seed = 1,
		.vtime = { .cost = cost, .design = 0, .nr_workers = nr },
	};
	spinlock_t locks[4];
	struct cpu cpus[4];

	ck_assert_int_le(nr, 4);
	for (int i = 0; i < nr; i++) {
		spin_lock_init(&locks[i], LOCK_CLASS_PAGE_TABLE_LOCK);
		cpus[i] = (struct cpu){ .slot = i, .lock = shared ? &locks[0] : &locks[i], .cost = cost };
	}
	run_cpus(&sc, cpus, nr, res);
	return rt_vtime_ops_per_sec(res);
}

/*
 * vtime_ops_per_sec(), the best of @reps runs: a measured cost is the
 * busy loop's plus whatever a loaded machine adds (a context switch's
 * cache refill, an interrupt), never less, so the fastest run is the one
 * nearest the known answer. The other cost sources are deterministic.
 */
static double best_ops_per_sec(int nr, bool shared, enum rt_vtime_cost cost,
			       struct rt_vtime_result *res)
{
	int reps = cost == RT_VTIME_MEASURED ? 7 : 1;
	double best = 0;

	for (int i = 0; i < reps; i++) {
		struct rt_vtime_result r;
		double ops = vtime_ops_per_sec(nr, shared, cost, &r);

		if (ops > best) {
			best = ops;
			*res = r;
		}
	}
	return best;
}

static void check_shape(enum rt_vtime_cost cost, double tol)
{
	struct rt_vtime_result one, two, ind;
	double r1 = best_ops_per_sec(1, true, cost, &one);
	double r2 = best_ops_per_sec(2, true, cost, &two);
	double ri = best_ops_per_sec(2, false, cost, &ind);
	double eff = r2 / r1 / 2, sp = ri / r1;

	ck_assert_msg(eff > 0.5 - tol && eff < 0.5 + tol,
		      "%s: one shared lock: efficiency %.4f, want 0.5 +- %.2f (%.0f, %.0f ops/s)",
		      rt_vtime_cost_name(cost), eff, tol, r1, r2);
	ck_assert_msg(sp > 2.0 - 2 * tol && sp < 2.0 + 2 * tol,
		      "%s: independent locks: speedup %.4f, want 2.0 +- %.2f (%.0f, %.0f ops/s)",
		      rt_vtime_cost_name(cost), sp, 2 * tol, r1, ri);
	/* The waiting is where it should be: half the shared run, none apart. */
	ck_assert_msg(two.cls[LOCK_CLASS_PAGE_TABLE_LOCK].wait_spin_ns > 0, "no wait counted");
	ck_assert_msg(ind.cls[LOCK_CLASS_PAGE_TABLE_LOCK].wait_spin_ns == 0, "a wait without sharing");
	ck_assert_msg(two.cls[LOCK_CLASS_PAGE_TABLE_LOCK].holds == 2 * ITERS, "holds %lu",
		      (unsigned long)two.cls[LOCK_CLASS_PAGE_TABLE_LOCK].holds);
}

START_TEST(test_known_explicit)
{
	check_shape(RT_VTIME_EXPLICIT, 0.001);
}
END_TEST

START_TEST(test_known_model)
{
	check_shape(RT_VTIME_MODEL, 0.02);
}
END_TEST

START_TEST(test_known_measured)
{
	check_shape(RT_VTIME_MEASURED, RT_TSAN ? 0.15 : 0.08);
}
END_TEST

/* ---- trylock ---- */

struct try_case {
	uint64_t a, h, t;	/* the holder takes at a for h; the taker tries at t */
	spinlock_t lock;
	int ok;
};

static void *holder_main(void *arg)
{
	struct try_case *k = arg;

	rt_task_attach("holder");
	rt_sched_enter(0);
	rt_vtime_charge(k->a);
	spin_lock(&k->lock);
	rt_vtime_charge(k->h);
	spin_unlock(&k->lock);
	rt_sched_exit();
	rt_task_detach();
	return NULL;
}

static void *taker_main(void *arg)
{
	struct try_case *k = arg;

	rt_task_attach("taker");
	rt_sched_enter(1);
	rt_vtime_charge(k->t);
	k->ok = spin_trylock(&k->lock);
	if (k->ok)
		spin_unlock(&k->lock);
	rt_sched_exit();
	rt_task_detach();
	return NULL;
}

START_TEST(test_trylock_interval)
{
	/* t on both sides of both ends of [a, a + h); t == a ties (FIFO). */
	static const struct { uint64_t a, h; long long dt; } cases[] = {
		{ 1000, 5000, -1 }, { 1000, 5000, 1 }, { 1000, 5000, 2500 },
		{ 1000, 5000, 4999 }, { 1000, 5000, 5000 }, { 1000, 5000, 5001 },
		{ 0, 1, 1 }, { 0, 1000000, 999999 }, { 7, 3, 3 }, { 7, 3, 2 },
		{ 500, 500, -500 }, { 500, 500, 100000 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct try_case k = { .a = cases[i].a, .h = cases[i].h,
				      .t = (uint64_t)((long long)cases[i].a + cases[i].dt) };
		struct rt_sched_config sc = {
			.kind = RT_SCHED_VTIME,
			.vtime = { .cost = RT_VTIME_EXPLICIT, .nr_workers = 2 },
		};
		pthread_t h, t;
		bool covered = k.t >= k.a && k.t < k.a + k.h;

		spin_lock_init(&k.lock, LOCK_CLASS_PAGE_TABLE_LOCK);
		rt_sched_init(&sc, 2, no_audit, NULL);
		ck_assert_int_eq(pthread_create(&h, NULL, holder_main, &k), 0);
		ck_assert_int_eq(pthread_create(&t, NULL, taker_main, &k), 0);
		rt_sched_start();
		ck_assert_int_eq(pthread_join(h, NULL), 0);
		ck_assert_int_eq(pthread_join(t, NULL), 0);
		rt_sched_fini();
		ck_assert_msg(k.ok == !covered,
			      "hold [%llu, %llu), trylock at %llu: %s, want %s",
			      (unsigned long long)k.a, (unsigned long long)(k.a + k.h),
			      (unsigned long long)k.t, k.ok ? "taken" : "failed",
			      covered ? "failed" : "taken");
	}
}
END_TEST

/* ---- transfer ---- */

#define XFER_NS		1000ULL

/* 64-byte lines: words 0 and 1 share one, word 8 is on the next. */
static uint64_t xfer_words[16] __attribute__((aligned(64)));

/* @nr CPUs (1 or 2), each its lock or both one (@shared_lock), each writing its line. */
static void xfer_run(int nr, bool shared_lock, const void *line0, const void *line1,
		     struct rt_vtime_result *res)
{
	struct rt_sched_config sc = {
		.kind = RT_SCHED_VTIME,
		.seed = 1,
		.vtime = { .cost = RT_VTIME_EXPLICIT, .nr_workers = nr, .transfer_ns = XFER_NS },
	};
	/* A line each: two locks side by side would share one, and move. */
	struct { spinlock_t l; } __attribute__((aligned(64))) locks[2];
	struct cpu cpus[2] = {
		{ .slot = 0, .lock = &locks[0].l, .cost = RT_VTIME_EXPLICIT, .line = line0 },
		{ .slot = 1, .lock = shared_lock ? &locks[0].l : &locks[1].l,
		  .cost = RT_VTIME_EXPLICIT, .line = line1 },
	};

	spin_lock_init(&locks[0].l, LOCK_CLASS_PAGE_TABLE_LOCK);
	spin_lock_init(&locks[1].l, LOCK_CLASS_PAGE_TABLE_LOCK);
	run_cpus(&sc, cpus, nr, res);
	/* The work, and T for every line that moved: nothing else is charged. */
	ck_assert_msg(res->busy_ns == (uint64_t)nr * ITERS * HOLD_NS + res->transfers * XFER_NS,
		      "busy %llu ns, want %llu + %llu transfers x %llu",
		      (unsigned long long)res->busy_ns,
		      (unsigned long long)((uint64_t)nr * ITERS * HOLD_NS),
		      (unsigned long long)res->transfers, (unsigned long long)XFER_NS);
	ck_assert_int_eq(res->transfers_untracked, 0);
}

START_TEST(test_transfer_lines)
{
	struct rt_vtime_result r;

	/* One CPU: every line stays. */
	xfer_run(1, false, &xfer_words[0], NULL, &r);
	ck_assert_int_eq(r.transfers, 0);
	/* Two CPUs, a line each (and a lock each): nothing moves. */
	xfer_run(2, false, &xfer_words[0], &xfer_words[8], &r);
	ck_assert_int_eq(r.transfers, 0);
	/* One line, alternately: it moves at least once per round. */
	xfer_run(2, false, &xfer_words[0], &xfer_words[0], &r);
	ck_assert_msg(r.transfers >= ITERS && r.transfers <= 2 * ITERS - 1,
		      "one line: %llu moves", (unsigned long long)r.transfers);
	ck_assert_int_eq(r.transfers_by_kind[LINE_LOCK], 0);
	ck_assert_int_eq(r.transfers_by_kind[LINE_PAGE], r.transfers);
	/* Two words of one line move it just the same. */
	xfer_run(2, false, &xfer_words[0], &xfer_words[1], &r);
	ck_assert_msg(r.transfers >= ITERS, "false sharing: %llu moves",
		      (unsigned long long)r.transfers);
	/* One lock, no data: its line moves where it is taken. */
	xfer_run(2, true, NULL, NULL, &r);
	ck_assert_msg(r.transfers >= ITERS && r.transfers == r.transfers_by_kind[LINE_LOCK],
		      "one lock: %llu moves, %llu at the lock", (unsigned long long)r.transfers,
		      (unsigned long long)r.transfers_by_kind[LINE_LOCK]);
}
END_TEST

/* ---- through the binary ---- */

static char out[1 << 20];

static const char *tail(void)
{
	size_t n = strlen(out);

	return n > 3000 ? out + n - 3000 : out;
}

#define RUN(...) rt_cli_run((const char *const[]){ __VA_ARGS__, NULL }, out, sizeof(out))

/*
 * The model's table holds every design: a design without rows would be
 * charged one default cost for every segment, and its virtual curves
 * would describe nothing. Every design must have its own means for the
 * segments that end at a lock, an unlock and a release, and for kswapd.
 */
START_TEST(test_cost_table_covers_every_design)
{
	for (int d = 0; d < RMAP_NR_MODES; d++) {
		const char *name = rmap_mode_name((enum rmap_mode)d);
		int rows = 0, lock = 0, unlock = 0, release = 0, kswapd = 0;

		for (int i = 0; i < rt_vtime_nr_cost_rows; i++) {
			const struct rt_vtime_cost_row *r = &rt_vtime_cost_rows[i];

			if (strcmp(r->design, name))
				continue;
			rows++;
			ck_assert_msg(r->count > 0, "%s: a row of no segments", name);
			lock += !strcmp(r->kind, "lock");
			unlock += !strcmp(r->kind, "unlock");
			release += !strcmp(r->kind, "release");
			kswapd += !strcmp(r->op, "shrink_zone");
		}
		ck_assert_msg(rows >= 50 && lock && unlock && release && kswapd,
			      "%s: %d rows in the vtime cost table (lock %d, unlock %d, release %d,"
			      " kswapd %d): recalibrate (scripts/vtime-calibrate.sh)",
			      name, rows, lock, unlock, release, kswapd);
	}
}
END_TEST

START_TEST(test_cli_deterministic)
{
	const char *design = rmap_mode_name((enum rmap_mode)_i);
	int rc = RUN("run", "--scenario", "mixed32", "--rmap", design, "--sched", "vtime",
		     "--threads", "4", "--reclaim-threads", "1", "--seed", "7",
		     "--seconds", RT_TSAN ? "0.0005" : "0.002", "--check-determinism",
		     "--no-progress");

	ck_assert_msg(rc == 0, "%s: exit %d\n%s", design, rc, tail());
	ck_assert_msg(strstr(out, "determinism: OK"), "%s", tail());
	ck_assert_msg(strstr(out, "virtual ops/s"), "%s", tail());
	ck_assert_msg(strstr(out, "END: SUCCESS"), "%s", tail());
}
END_TEST

/* The record a `run --json` that exited @rc printed (owned). */
static json_t *run_record(int rc)
{
	const char *brace = strchr(out, '{');
	json_error_t err;
	json_t *rec;

	ck_assert_msg(rc == 0, "exit %d\n%s", rc, tail());
	ck_assert_msg(brace, "%s", tail());
	rec = json_loads(brace, JSON_DISABLE_EOF_CHECK, &err);
	ck_assert_msg(rec, "%s: %s", err.text, tail());
	return rec;
}

START_TEST(test_cli_record)
{
	json_t *rec = run_record(RUN("run", "--scenario", "shm", "--sched", "vtime", "--threads",
				     "4", "--seed", "3", "--seconds", "0.001", "--json",
				     "--no-progress"));
	json_t *v = json_object_get(rec, "vtime");

	ck_assert_msg(json_is_object(v), "no vtime object");
	ck_assert_str_eq(json_string_value(json_object_get(v, "cost")), "model");
	ck_assert(json_number_value(json_object_get(v, "virtual_seconds")) == 0.001);
	ck_assert(json_number_value(json_object_get(v, "virtual_ops_per_sec")) > 0);
	ck_assert(json_number_value(json_object_get(rec, "ops_per_sec")) ==
		  json_number_value(json_object_get(v, "virtual_ops_per_sec")));
	ck_assert(json_number_value(json_object_get(v, "real_seconds")) > 0);
	ck_assert(json_is_object(json_object_get(v, "locks")));
	ck_assert_int_eq(json_integer_value(json_object_get(v, "transfers")), 0);
	json_decref(rec);
}
END_TEST

/*
 * The model's writes reach the transfer pricing: two CPUs of sdet32 move
 * lines where they take locks and, more often, where they write shared
 * data (page counts and flags, list links, ptes); the owner table keeps
 * up with every write.
 */
START_TEST(test_cli_transfer)
{
	json_t *rec = run_record(RUN("run", "--scenario", "sdet32", "--rmap", "objfile", "--sched",
				     "vtime", "--threads", "2", "--reclaim-threads", "0", "--seed",
				     "3", "--seconds", "0.001", "--vtime-transfer", "200", "--json",
				     "--no-progress"));
	json_t *v = json_object_get(rec, "vtime");
	json_int_t all, at_lock;

	all = json_integer_value(json_object_get(v, "transfers"));
	at_lock = json_integer_value(json_object_get(json_object_get(v, "transfers_by_kind"),
						     "lock"));
	ck_assert_msg(at_lock > 0 && all > 2 * at_lock, "%lld lines moved, %lld at locks",
		      (long long)all, (long long)at_lock);
	ck_assert_int_eq(json_integer_value(json_object_get(v, "transfers_untracked")), 0);
	json_decref(rec);
}
END_TEST

START_TEST(test_cli_bad_options)
{
	ck_assert_int_eq(RUN("run", "--vtime-cost", "model"), 2);
	ck_assert_msg(strstr(out, "need --sched vtime"), "%s", tail());
	ck_assert_int_eq(RUN("run", "--sched", "vtime", "--vtime-cost", "wrong"), 2);
	ck_assert_int_eq(RUN("run", "--sched", "vtime", "--vtime-cost", "measured",
			     "--check-determinism"), 2);
	ck_assert_msg(strstr(out, "not deterministic"), "%s", tail());
}
END_TEST

START_TEST(test_cli_scale)
{
	int rc = RUN("scale", "--sched", "vtime", "--threads", "1,2", "--rmap", "objfile",
		     "--repeat", "1", "--seconds", "0.0005", "--scenario", "sdet32");

	ck_assert_msg(rc == 0, "exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "virtual"), "%s", tail());
	ck_assert_msg(strstr(out, "dominant waiting lock"), "%s", tail());
	ck_assert_msg(!strstr(out, "oversubscription"), "%s", tail());
}
END_TEST

/*
 * scale --sched vtime with a transfer cost: each point of the record
 * carries the lines moved per operation, none at one CPU and some at two,
 * and the record stays valid against its schema.
 */
START_TEST(test_cli_scale_lines)
{
	char d[] = "/tmp/rt-vtime-scale-XXXXXX", sdir[64], path[96];
	json_t *rec, *p;
	json_error_t err;
	size_t i;
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(d));
	snprintf(sdir, sizeof(sdir), "%s/s", d);
	rc = RUN("scale", "--sched", "vtime", "--threads", "1,2", "--rmap", "objfile",
		 "--repeat", "1", "--seconds", "0.001", "--scenario", "sdet32",
		 "--reclaim-threads", "0", "--vtime-transfer", "200", "--no-plots", "--out", sdir);
	ck_assert_msg(rc == 0, "exit %d\n%s", rc, tail());
	ck_assert_msg(strstr(out, "lines moved per op"), "%s", tail());
	snprintf(path, sizeof(path), "%s/scale.json", sdir);
	rec = json_load_file(path, 0, &err);
	ck_assert_msg(rec, "%s: %s", path, err.text);
	rt_cli_assert_schema_valid(sdir, "scale.json");
	json_array_foreach(json_object_get(rec, "points"), i, p) {
		double lines = json_number_value(json_object_get(p, "lines_per_op"));
		json_int_t t = json_integer_value(json_object_get(p, "threads"));

		ck_assert_msg(t == 1 ? lines == 0 : lines > 1, "%lld threads: %g lines per op",
			      (long long)t, lines);
	}
	json_decref(rec);
	rt_remove_tree(d);
}
END_TEST

static Suite *vtime_suite(void)
{
	Suite *s = suite_create("vtime");
	TCase *tc = tcase_create("known");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_known_explicit);
	tcase_add_test(tc, test_known_model);
	tcase_add_test(tc, test_known_measured);
	tcase_add_test(tc, test_trylock_interval);
	tcase_add_test(tc, test_transfer_lines);
	tcase_add_test(tc, test_cost_table_covers_every_design);
	suite_add_tcase(s, tc);
	tc = tcase_create("cli");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_cli_deterministic, 0, RMAP_NR_MODES);
	tcase_add_test(tc, test_cli_record);
	tcase_add_test(tc, test_cli_transfer);
	tcase_add_test(tc, test_cli_bad_options);
	tcase_add_test(tc, test_cli_scale);
	tcase_add_test(tc, test_cli_scale_lines);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_check_main(vtime_suite());
}
