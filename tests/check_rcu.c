// SPDX-License-Identifier: MIT
/*
 * RCU wrapper: publish/subscribe with deferred and synchronous frees under
 * 32 threads, nesting and rcu_read_lock_held(), grace periods waiting for
 * readers, callbacks' context, and (ASan build) the probe proving that a
 * free without a grace period is caught as heap-use-after-free.
 */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compiler.h"
#include "die.h"
#include "rcu.h"
#include "rt_check.h"

#define NR_THREADS	32
#define NR_WRITERS	4	/* 0, 1: call_rcu(); 2, 3: synchronize_rcu() + free */
#define NR_SLOTS	4
#define NR_WORDS	8
#define POISON_BYTE	0x6b

struct tobj {
	struct rcu_head rcu;
	uint64_t seq;
	uint64_t words[NR_WORDS];	/* pattern(seq, i) */
	uint64_t check;			/* xor of words */
};

static inline uint64_t pattern(uint64_t seq, int i)
{
	return (seq * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)i << 56) ^ 0xa5a5a5a5ULL;
}

/* Counters: relaxed atomics, read after the threads are joined. */
static unsigned long nr_allocated;
static unsigned long nr_freed;
static unsigned long nr_reads;

static struct tobj *tobj_new(uint64_t seq)
{
	struct tobj *o = rt_malloc(sizeof(*o));

	o->seq = seq;
	o->check = 0;
	for (int i = 0; i < NR_WORDS; i++) {
		o->words[i] = pattern(seq, i);
		o->check ^= o->words[i];
	}
	__atomic_fetch_add(&nr_allocated, 1, __ATOMIC_RELAXED);
	return o;
}

/* Poison first, so a reader that still sees it fails in any build. */
static void tobj_free(struct tobj *o)
{
	memset(o, POISON_BYTE, sizeof(*o));
	free(o);
	__atomic_fetch_add(&nr_freed, 1, __ATOMIC_RELAXED);
}

static void tobj_free_rcu(struct rcu_head *head)
{
	tobj_free(container_of(head, struct tobj, rcu));
}

/* True when @o is intact: never poisoned, never half-initialised. */
static bool tobj_intact(const struct tobj *o)
{
	uint64_t x = 0;

	for (int i = 0; i < NR_WORDS; i++) {
		if (o->words[i] != pattern(o->seq, i))
			return false;
		x ^= o->words[i];
	}
	return x == o->check;
}

/* ---- publish / read / free ---- */

struct pub_ctx {
	struct tobj *slots[NR_SLOTS];		/* RCU; writers under slot_lock[] */
	pthread_mutex_t slot_lock[NR_SLOTS];	/* harness lock, not emulated */
	int writers_left;			/* atomic; release when a writer ends */
	int iters_cb, iters_sync;
};

static void pub_replace(struct pub_ctx *c, int slot, struct tobj *o, bool sync)
{
	struct tobj *old;

	RT_PTHREAD(pthread_mutex_lock(&c->slot_lock[slot]));
	old = rcu_dereference_protected(c->slots[slot], true);
	rcu_assign_pointer(c->slots[slot], o);
	RT_PTHREAD(pthread_mutex_unlock(&c->slot_lock[slot]));
	if (!old)
		return;
	if (sync) {
		/* Outside the slot lock: it is not a lock readers take, but keep the rule. */
		synchronize_rcu();
		tobj_free(old);
	} else {
		call_rcu(&old->rcu, tobj_free_rcu);
	}
}

static void pub_writer(int idx, struct pub_ctx *c, uint64_t *rnd)
{
	bool sync = idx >= 2;
	int iters = sync ? c->iters_sync : c->iters_cb;

	for (int i = 0; i < iters; i++) {
		int slot = (int)(rt_rand(rnd) % NR_SLOTS);

		pub_replace(c, slot, tobj_new(((uint64_t)idx << 32) | (uint64_t)i), sync);
		if ((i & 15) == 0)
			sched_yield();
	}
	/* Release pairs with the acquire in pub_reader(). */
	__atomic_fetch_sub(&c->writers_left, 1, __ATOMIC_RELEASE);
}

static void pub_read_one(struct pub_ctx *c, int slot, unsigned long *reads)
{
	struct tobj *o = rcu_dereference(c->slots[slot]);

	if (!o)
		return;
	if (!tobj_intact(o))
		rt_fail("slot %d: object %p torn or poisoned (seq %llx)", slot,
			(void *)o, (unsigned long long)o->seq);
	(*reads)++;
}

static void pub_reader(struct pub_ctx *c, uint64_t *rnd)
{
	unsigned long reads = 0;

	/* Acquire pairs with the release in pub_writer(). */
	while (__atomic_load_n(&c->writers_left, __ATOMIC_ACQUIRE) > 0 || reads < 64) {
		int slot = (int)(rt_rand(rnd) % NR_SLOTS);

		rcu_read_lock();
		rt_check(rcu_read_lock_held());
		pub_read_one(c, slot, &reads);
		if (rt_rand(rnd) % 4 == 0) {
			/* Nested: the outer section must keep protecting the first read. */
			rcu_read_lock();
			pub_read_one(c, (slot + 1) % NR_SLOTS, &reads);
			rcu_read_unlock();
			rt_check(rcu_read_lock_held());
		}
		pub_read_one(c, slot, &reads);
		rcu_read_unlock();
		rt_check(!rcu_read_lock_held());
		if ((reads & 63) == 0)
			sched_yield();
	}
	__atomic_fetch_add(&nr_reads, reads, __ATOMIC_RELAXED);
}

static void pub_thread(int idx, void *arg)
{
	struct pub_ctx *c = arg;
	uint64_t rnd = rt_test_seed() + (uint64_t)idx * 0x9e3779b97f4a7c15ULL;

	rt_check(rt_rcu_thread_registered());
	if (idx < NR_WRITERS)
		pub_writer(idx, c, &rnd);
	else
		pub_reader(c, &rnd);
}

START_TEST(test_rcu_publish_read_free)
{
	static struct pub_ctx c;
	struct rcu_stats before, after;

	memset(&c, 0, sizeof(c));
	for (int i = 0; i < NR_SLOTS; i++)
		RT_PTHREAD(pthread_mutex_init(&c.slot_lock[i], NULL));
	c.writers_left = NR_WRITERS;
	c.iters_cb = 3000;
	c.iters_sync = 150;
	__atomic_store_n(&nr_allocated, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&nr_freed, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&nr_reads, 0, __ATOMIC_RELAXED);
	rt_failure_reset();
	rcu_stats(&before);

	rt_run_threads(NR_THREADS, pub_thread, &c);
	ck_assert_no_worker_failure();

	/* The main thread is not registered: call_rcu() registers it for the call. */
	for (int i = 0; i < NR_SLOTS; i++) {
		struct tobj *o = rcu_dereference_protected(c.slots[i], true);

		RCU_INIT_POINTER(c.slots[i], NULL);
		if (o)
			call_rcu(&o->rcu, tobj_free_rcu);
	}
	rcu_barrier();
	rcu_stats(&after);

	ck_assert_uint_eq(__atomic_load_n(&nr_allocated, __ATOMIC_RELAXED),
			  2 * (3000 + 150));
	ck_assert_uint_eq(__atomic_load_n(&nr_freed, __ATOMIC_RELAXED),
			  __atomic_load_n(&nr_allocated, __ATOMIC_RELAXED));
	ck_assert_uint_gt(__atomic_load_n(&nr_reads, __ATOMIC_RELAXED), 0);
	ck_assert_uint_ge(after.grace_periods - before.grace_periods, 2 * 150 - NR_SLOTS);
	ck_assert_uint_eq(after.callbacks_queued - before.callbacks_queued,
			  after.callbacks_invoked - before.callbacks_invoked);
	ck_assert_uint_ge(after.barriers, before.barriers + 1);
	for (int i = 0; i < NR_SLOTS; i++)
		RT_PTHREAD(pthread_mutex_destroy(&c.slot_lock[i]));
}
END_TEST

/* ---- nesting, registration ---- */

static void nesting_thread(int idx, void *arg)
{
	(void)idx;
	(void)arg;
	rt_check(rt_rcu_thread_registered());
	rt_check(!rcu_read_lock_held());
	rcu_read_lock();
	rt_check(rcu_read_lock_held());
	rcu_read_lock();
	rcu_read_lock();
	rt_check(rcu_read_lock_held());
	rcu_read_unlock();
	rcu_read_unlock();
	rt_check(rcu_read_lock_held());
	rcu_read_unlock();
	rt_check(!rcu_read_lock_held());
}

START_TEST(test_rcu_nesting_and_held)
{
	rt_failure_reset();
	rt_run_threads(2, nesting_thread, NULL);
	ck_assert_no_worker_failure();
}
END_TEST

static void *bare_thread(void *arg)
{
	bool *ok = arg;

	/* A plain pthread, not a task: registers by hand. */
	ok[0] = !rt_rcu_thread_registered();
	rt_rcu_register_thread();
	ok[1] = rt_rcu_thread_registered();
	rcu_read_lock();
	ok[2] = rcu_read_lock_held();
	rcu_read_unlock();
	rt_rcu_unregister_thread();
	ok[3] = !rt_rcu_thread_registered() && !rcu_read_lock_held();
	return NULL;
}

START_TEST(test_rcu_register_unregister)
{
	bool ok[4] = { false, false, false, false };
	struct rcu_stats before, after;
	pthread_t th;

	rcu_stats(&before);
	RT_PTHREAD(pthread_create(&th, NULL, bare_thread, ok));
	RT_PTHREAD(pthread_join(th, NULL));
	rcu_stats(&after);
	for (int i = 0; i < 4; i++)
		ck_assert_msg(ok[i], "step %d", i);
	ck_assert_uint_eq(after.registered_threads, before.registered_threads);
}
END_TEST

/* ---- synchronize_rcu() waits for a reader ---- */

struct gp_ctx {
	int reader_in;		/* atomic: reader is inside its section */
	int reader_leaving;	/* atomic: reader is about to rcu_read_unlock() */
	int gp_done;		/* atomic: synchronize_rcu() returned */
};

static void gp_thread(int idx, void *arg)
{
	struct gp_ctx *c = arg;

	if (idx == 0) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		rcu_read_lock();
		/* Release pairs with the acquire of the updater below. */
		__atomic_store_n(&c->reader_in, 1, __ATOMIC_RELEASE);
		/* Give the updater time to enter synchronize_rcu(). */
		nanosleep(&ts, NULL);
		rt_check(!__atomic_load_n(&c->gp_done, __ATOMIC_ACQUIRE));
		__atomic_store_n(&c->reader_leaving, 1, __ATOMIC_RELEASE);
		rcu_read_unlock();
	} else {
		/* Acquire pairs with the reader's release of reader_in. */
		while (!__atomic_load_n(&c->reader_in, __ATOMIC_ACQUIRE))
			sched_yield();
		synchronize_rcu();
		/* The grace period cannot end before the reader started leaving. */
		rt_check(__atomic_load_n(&c->reader_leaving, __ATOMIC_ACQUIRE));
		__atomic_store_n(&c->gp_done, 1, __ATOMIC_RELEASE);
	}
}

START_TEST(test_rcu_synchronize_waits_for_reader)
{
	struct gp_ctx c = { 0, 0, 0 };

	rt_failure_reset();
	for (int i = 0; i < 5; i++) {
		memset(&c, 0, sizeof(c));
		rt_run_threads(2, gp_thread, &c);
	}
	ck_assert_no_worker_failure();
}
END_TEST

/* ---- callbacks: context and rcu_barrier() ---- */

struct cb_obj {
	struct rcu_head rcu;
	int *done;
};

static int cb_ok;

static void cb_check(struct rcu_head *head)
{
	struct cb_obj *o = container_of(head, struct cb_obj, rcu);

	/* Callbacks may use the read side (liburcu's thread is registered). */
	if (rt_rcu_thread_registered() && !rcu_read_lock_held()) {
		rcu_read_lock();
		if (rcu_read_lock_held())
			__atomic_fetch_add(&cb_ok, 1, __ATOMIC_RELAXED);
		rcu_read_unlock();
	}
	__atomic_fetch_add(o->done, 1, __ATOMIC_RELAXED);
	free(o);
}

static void cb_thread(int idx, void *arg)
{
	int *done = arg;

	for (int i = 0; i < 100; i++) {
		struct cb_obj *o = rt_malloc(sizeof(*o));

		o->done = done;
		/* Inside a read-side section is allowed too. */
		if (i & 1)
			rcu_read_lock();
		call_rcu(&o->rcu, cb_check);
		if (i & 1)
			rcu_read_unlock();
	}
	(void)idx;
}

START_TEST(test_rcu_barrier_waits_for_callbacks)
{
	int done = 0;

	rt_failure_reset();
	__atomic_store_n(&cb_ok, 0, __ATOMIC_RELAXED);
	rt_run_threads(8, cb_thread, &done);
	rcu_barrier();
	ck_assert_no_worker_failure();
	ck_assert_int_eq(__atomic_load_n(&done, __ATOMIC_RELAXED), 8 * 100);
	ck_assert_int_eq(__atomic_load_n(&cb_ok, __ATOMIC_RELAXED), 8 * 100);
}
END_TEST

/* ---- local callbacks: run by rcu_barrier(), after a grace period ---- */

START_TEST(test_rcu_local_barrier_runs_exactly_queued)
{
	struct rcu_stats before, queued, after;
	int done = 0;

	rt_failure_reset();
	__atomic_store_n(&cb_ok, 0, __ATOMIC_RELAXED);
	rcu_barrier();
	rt_rcu_set_local_callbacks(true);
	rcu_stats(&before);
	rt_run_threads(8, cb_thread, &done);
	rcu_stats(&queued);
	/* Deferred to the barrier: none has run, all are pending. */
	ck_assert_int_eq(__atomic_load_n(&done, __ATOMIC_RELAXED), 0);
	ck_assert_uint_eq(queued.callbacks_queued - before.callbacks_queued, 8 * 100);
	ck_assert_uint_eq(queued.callbacks_invoked, before.callbacks_invoked);
	rcu_barrier();
	rcu_stats(&after);
	ck_assert_no_worker_failure();
	ck_assert_int_eq(__atomic_load_n(&done, __ATOMIC_RELAXED), 8 * 100);
	/* Run in a thread registered for them: the read side works. */
	ck_assert_int_eq(__atomic_load_n(&cb_ok, __ATOMIC_RELAXED), 8 * 100);
	ck_assert_uint_eq(after.callbacks_invoked - before.callbacks_invoked, 8 * 100);
	ck_assert_uint_gt(after.grace_periods, queued.grace_periods);
	/* A second barrier has nothing left to run. */
	rcu_barrier();
	ck_assert_int_eq(__atomic_load_n(&done, __ATOMIC_RELAXED), 8 * 100);
	rt_rcu_set_local_callbacks(false);
}
END_TEST

struct local_gp_ctx {
	int reader_in;		/* atomic: reader is inside its section */
	int reader_leaving;	/* atomic: reader is about to rcu_read_unlock() */
	int cb_saw_leaving;	/* atomic: the callback ran after reader_leaving */
	int cb_ran;		/* atomic */
	struct rcu_head rcu;
};

static void local_gp_cb(struct rcu_head *head)
{
	struct local_gp_ctx *c = container_of(head, struct local_gp_ctx, rcu);

	/* Acquire pairs with the reader's release of reader_leaving. */
	__atomic_store_n(&c->cb_saw_leaving,
			 __atomic_load_n(&c->reader_leaving, __ATOMIC_ACQUIRE), __ATOMIC_RELAXED);
	__atomic_store_n(&c->cb_ran, 1, __ATOMIC_RELEASE);
}

static void local_gp_thread(int idx, void *arg)
{
	struct local_gp_ctx *c = arg;

	if (idx == 0) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		rcu_read_lock();
		/* Release pairs with the acquire of the updater below. */
		__atomic_store_n(&c->reader_in, 1, __ATOMIC_RELEASE);
		/* Give the updater time to reach rcu_barrier(). */
		nanosleep(&ts, NULL);
		rt_check(!__atomic_load_n(&c->cb_ran, __ATOMIC_ACQUIRE));
		__atomic_store_n(&c->reader_leaving, 1, __ATOMIC_RELEASE);
		rcu_read_unlock();
	} else {
		while (!__atomic_load_n(&c->reader_in, __ATOMIC_ACQUIRE))
			sched_yield();
		call_rcu(&c->rcu, local_gp_cb);
		rcu_barrier();
		rt_check(__atomic_load_n(&c->cb_ran, __ATOMIC_ACQUIRE));
	}
}

START_TEST(test_rcu_local_callback_waits_for_reader)
{
	struct local_gp_ctx c;

	rt_failure_reset();
	rt_rcu_set_local_callbacks(true);
	for (int i = 0; i < 5; i++) {
		memset(&c, 0, sizeof(c));
		rt_run_threads(2, local_gp_thread, &c);
		ck_assert_int_eq(__atomic_load_n(&c.cb_ran, __ATOMIC_ACQUIRE), 1);
		ck_assert_int_eq(__atomic_load_n(&c.cb_saw_leaving, __ATOMIC_RELAXED), 1);
	}
	rt_rcu_set_local_callbacks(false);
	ck_assert_no_worker_failure();
}
END_TEST

/* ---- ASan: a free without a grace period is caught ---- */

#if RT_ASAN && defined(RT_ASAN_PROBE_PATH)
/*
 * Only the check_rcu_asan executable of the ASan build defines the probe's
 * path (tests/meson.build); $RT_ASAN_PROBE overrides it.
 */
static void probe_path(char *buf, size_t len)
{
	const char *env = getenv("RT_ASAN_PROBE");

	snprintf(buf, len, "%s", env && *env ? env : RT_ASAN_PROBE_PATH);
}

extern char **environ;

/* Run the probe with @arg (or none), its stdout+stderr into @out; the wait status. */
static int run_probe(const char *arg, char *out, size_t outlen)
{
	char path[PATH_MAX];
	char *argv[3] = { path, (char *)arg, NULL };

	probe_path(path, sizeof(path));
	ck_assert_msg(access(path, X_OK) == 0, "probe %s: %s", path, strerror(errno));
	return rt_run_capture(argv, "ASAN_OPTIONS=exitcode=66:abort_on_error=0:detect_leaks=1:symbolize=1",
			      out, outlen);
}

START_TEST(test_rcu_asan_free_without_grace_is_caught)
{
	static char out[1 << 16];
	int status = run_probe(NULL, out, sizeof(out));

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) != 0,
		      "probe status %#x, output:\n%s", status, out);
	ck_assert_msg(strstr(out, "heap-use-after-free") != NULL, "output:\n%s", out);
	ck_assert_msg(strstr(out, "probe_reader") != NULL, "output:\n%s", out);
}
END_TEST

START_TEST(test_rcu_asan_free_after_grace_is_clean)
{
	static char out[1 << 16];
	int status = run_probe("--grace", out, sizeof(out));

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "probe status %#x, output:\n%s", status, out);
	ck_assert_msg(strstr(out, "AddressSanitizer") == NULL, "output:\n%s", out);
}
END_TEST
#endif /* RT_ASAN && RT_ASAN_PROBE_PATH */

static Suite *rcu_suite(void)
{
	Suite *s = suite_create("rcu");
	TCase *tc;

	tc = tcase_create("publish");
	tcase_set_timeout(tc, 80);
	tcase_add_test(tc, test_rcu_publish_read_free);
	suite_add_tcase(s, tc);

	tc = tcase_create("read_side");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_rcu_nesting_and_held);
	tcase_add_test(tc, test_rcu_register_unregister);
	suite_add_tcase(s, tc);

	tc = tcase_create("grace_period");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_rcu_synchronize_waits_for_reader);
	tcase_add_test(tc, test_rcu_barrier_waits_for_callbacks);
	suite_add_tcase(s, tc);

	tc = tcase_create("local_callbacks");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_rcu_local_barrier_runs_exactly_queued);
	tcase_add_test(tc, test_rcu_local_callback_waits_for_reader);
	suite_add_tcase(s, tc);

#if RT_ASAN && defined(RT_ASAN_PROBE_PATH)
	tc = tcase_create("asan_probe");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_rcu_asan_free_without_grace_is_caught);
	tcase_add_test(tc, test_rcu_asan_free_after_grace_is_clean);
	suite_add_tcase(s, tc);
#endif
	return s;
}

int main(void)
{
	return rt_check_main(rcu_suite());
}
