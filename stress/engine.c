// SPDX-License-Identifier: MIT
/*
 * The engine. N worker threads play the CPUs of the box, each with its
 * own PRNG seeded from the run's seed, picking operations by the
 * scenario's weights; R reclaim threads play kswapd. The main thread
 * keeps time, parks everyone for audits (a quiescent point: every
 * thread between two operations), watches progress, and collects the
 * reports of the model into the result.
 *
 * Here: the threads (the workers and kswapd, the points where they park
 * for an audit, the test-only hooks), explore's serial warm-up of the
 * world, and the threads' start. The model's hooks (the report sink, the
 * oops handler, the perturbation), the audit and the run's setup and
 * release are engine_setup.c's; the main thread's run is engine_run.c's.
 */
#include "engine.h"
#include "engine-internal.h"

#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "die.h"
#include "lockdep.h"
#include "page_alloc.h"
#include "perturb.h"
#include "random.h"
#include "rcu.h"
#include "cover.h"
#include "cover_map.h"
#include "rwsem.h"
#include "semaphore.h"
#include "spinlock.h"
#include "swap.h"
#include "task.h"
#include "rt_time.h"

volatile int rt_interrupted;

/* ---- threads ---- */

static void park_point(struct engine *e)
{
	/* Acquire pairs with the release in park_all(). */
	if (!__atomic_load_n(&e->park, __ATOMIC_ACQUIRE))
		return;
	rt_task_set_op("parked");
	/* Release: everything this thread did happens before the audit. */
	__atomic_fetch_add(&e->parked, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&e->park, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	__atomic_fetch_sub(&e->parked, 1, __ATOMIC_RELEASE);
	rt_task_set_op(NULL);
}

static bool claim_op(struct engine *e)
{
	unsigned long left;

	if (!e->cfg->ops)
		return true;
	left = __atomic_load_n(&e->ops_left, __ATOMIC_RELAXED);
	do {
		if (!left)
			return false;
	} while (!__atomic_compare_exchange_n(&e->ops_left, &left, left - 1, true,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return true;
}

static void bump(unsigned long *c)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

/* Test-only: take a lock of the named class and never let go. */
static void hang_forever(const char *class_name)
{
	static spinlock_t lock;
	int cls = lock_class_by_name(class_name);

	spin_lock_init(&lock, cls >= 0 ? cls : LOCK_CLASS_PAGE_TABLE_LOCK);
	rt_task_set_op("test-hang");
	spin_lock(&lock);
	for (;;)
		sleep_ms(100);
}

/*
 * Test-only (--test-race): an access no lock orders, for proving that
 * TSan still sees races under the deterministic scheduler.
 */
static unsigned long test_race_counter;

static __attribute__((noinline)) void rt_test_race_bump(void)
{
	test_race_counter++;
	yield_point("test:race");
}

/*
 * Test-only (--test-spin): worker 0's first operation waits, at switch
 * points and holding no lock, until another thread finished one: the
 * shape of try_to_unuse() rescanning the swap map for the slot kswapd's
 * swap-out still holds. Under pct, when worker 0 outranks the others, it
 * ends only by the scheduler's tick (rt_sched.c: PCT_TICK_STEPS).
 */
static int test_spin_others;

static void rt_test_spin_wait(void)
{
	rt_task_set_op("test-spin");
	while (!__atomic_load_n(&test_spin_others, __ATOMIC_ACQUIRE))
		yield_point("test:spin");
	rt_task_set_op(NULL);
}

/*
 * Test-only (--test-window): before its operation, worker 0 and worker 1
 * each set a flag, read the other's, and set their own again, with a
 * switch point between each step. Both reading the other's middle state
 * needs each read to fall inside the other's window: two preemptions
 * exactly (tests/check_explore.c's tiny program, in the engine), which
 * explore must find at K = 2 and not at K = 1. Relaxed atomics: one
 * CPU at a time, and no happens-before from the scheduler.
 */
static struct {
	int flag[2], seen[2], middles;
} test_window;

static void rt_test_window(int idx, bool bug)
{
	int other = 1 - idx;
	bool both;

	if (idx > 1)
		return;
	__atomic_store_n(&test_window.flag[idx], 1, __ATOMIC_RELAXED);
	yield_point_on("test:window", &test_window, COVER_TEST);
	__atomic_store_n(&test_window.seen[idx],
			 __atomic_load_n(&test_window.flag[other], __ATOMIC_RELAXED), __ATOMIC_RELAXED);
	both = __atomic_load_n(&test_window.seen[0], __ATOMIC_RELAXED) == 1 &&
	       __atomic_load_n(&test_window.seen[1], __ATOMIC_RELAXED) == 1;
	if (__atomic_fetch_add(&test_window.middles, 1, __ATOMIC_RELAXED) == 1) {
		if (bug)
			BUG_ON(both);	/* --test-window-bug: the worker oopses */
		WARN_ON(both);
	}
	yield_point_on("test:window", &test_window, COVER_TEST);
	__atomic_store_n(&test_window.flag[idx], 2, __ATOMIC_RELAXED);
}

/* Is the run over? Under a deterministic schedule only a decision says so. */
static bool run_stopped(struct engine *e)
{
	if (e->cfg->sched != RT_SCHED_FREE)
		return rt_sched_stopped();
	/* Acquire pairs with the release in rt_run() that stops the run. */
	return __atomic_load_n(&e->stop, __ATOMIC_ACQUIRE);
}

/* Fold one finished operation into the thread's sequence hash. */
static void seq_add(struct engine *e, struct thread_state *t, unsigned long what)
{
	uint64_t h = t->seq_hash ^ what;

	if (e->cfg->sched != RT_SCHED_FREE)
		h = (h * 0x100000001b3ULL) ^ rt_sched_steps();
	__atomic_store_n(&t->seq_hash, h * 0x100000001b3ULL, __ATOMIC_RELAXED);
}

/*
 * kswapd's step in explore's runs: one shrink_zone() pass of 32 pages,
 * reclaim_main()'s pass under memory pressure. Fixed, not chosen as
 * reclaim_main() chooses (by free pages and the low-watermark wakeup),
 * so that the step is the same in every schedule; and the pressured
 * pass, not the idle one of 4 pages, because one isolate batch of 32
 * covers the whole of explore's small inactive list (5 to 13 pages in
 * the worlds of seeds 1-3 of mixed32, reclaim-pressure, forkbomb-cow),
 * and so the pages the other CPUs' operations touch.
 */
#define RT_KSWAPD_STEP_SCAN	32	/* core/vmscan.c's SWAP_CLUSTER_MAX: one isolate batch */

const char *rt_fixed_op_name(int op)
{
	return op == RT_OP_KSWAPD ? "kswapd" : wl_op_name((enum wl_op)op);
}

int rt_fixed_op_by_name(const char *name)
{
	return strcmp(name, "kswapd") ? wl_op_by_name(name) : RT_OP_KSWAPD;
}

/* One shrink_zone() pass of @nr_to_scan pages, folded into @t's sequence as @what. */
static void kswapd_step(struct engine *e, struct thread_state *t, unsigned long nr_to_scan,
			unsigned long what)
{
	rt_task_set_op("shrink_zone");
	shrink_zone(&contig_zone, nr_to_scan);
	rt_task_set_op(NULL);
	seq_add(e, t, what);
	bump(&t->progress);
}

static void *worker_main(void *arg)
{
	struct thread_state *t = arg;
	struct engine *e = t->e;
	int slot = (int)(t - e->ts);
	char name[TASK_COMM_LEN];

	snprintf(name, sizeof(name), "cpu-%d", t->idx);
	rt_task_attach(name);
	__atomic_store_n(&t->tid, (int)syscall(SYS_gettid), __ATOMIC_RELAXED);
	engine_perturb_seed_thread((uint64_t)(e->nr_threads + slot));
	if (e->cfg->sched != RT_SCHED_FREE)
		rt_sched_enter(slot);
	if (e->cfg->test_hang && t->idx == 0)
		hang_forever(e->cfg->test_hang);
	for (int step = 0; !run_stopped(e); step++) {
		const struct rt_fixed_seq *seq = e->cfg->fixed_ops ? &e->cfg->fixed_ops[t->idx] : NULL;
		enum wl_op op;
		enum wl_result r;

		if (e->cfg->sched != RT_SCHED_FREE) {
			rt_sched_park_point();
		} else {
			park_point(e);
			/* Unparked to end the run (an oops, the end): no new op. */
			if (run_stopped(e))
				break;
		}
		if (!claim_op(e))
			break;
		if (e->cfg->test_race)
			rt_test_race_bump();
		if (e->cfg->test_spin && step == 0 && t->idx == 0)
			rt_test_spin_wait();
		if (seq && seq->ops[step] == RT_OP_KSWAPD) {
			kswapd_step(e, t, RT_KSWAPD_STEP_SCAN, (unsigned long)RT_OP_KSWAPD * 16 + 1);
			if (step + 1 == seq->nr)
				break;
			continue;
		}
		op = seq ? (enum wl_op)seq->ops[step] : wl_pick_op(e->world, &t->rng);
		rt_task_set_op(wl_op_name(op));
		if (e->cfg->test_window && step == 0)
			rt_test_window(t->idx, e->cfg->test_window_bug);	/* inside the op: its sites count */
		r = wl_do_op(e->world, op, &t->rng, t->idx);
		flight_record(FL_OP_END, NULL, 0, (long)r);
		rt_task_set_op(NULL);
		if (e->cfg->test_spin && t->idx != 0)
			__atomic_store_n(&test_spin_others, 1, __ATOMIC_RELEASE);
		seq_add(e, t, (unsigned long)op * 16 + (unsigned long)r + 1);
		if (e->cfg->sched == RT_SCHED_VTIME)
			rt_vtime_op_done();
		bump(&t->ops_by_kind[op]);
		if (r == WL_OOM)
			bump(&t->oom);
		else if (r == WL_SKIPPED)
			bump(&t->skipped);
		else if (r == WL_CORRUPT)
			bump(&t->corrupt);
		bump(&t->progress);
		if (seq && step + 1 == seq->nr)
			break;		/* explore: its sequence, once */
	}
	rt_sched_exit();
	/* Release pairs with park_all(): an exited thread counts as parked. */
	__atomic_fetch_add(&e->exited, 1, __ATOMIC_RELEASE);
	rt_task_detach();
	return NULL;
}

/*
 * kswapd: scan when free memory is below pages_high (or the watermark
 * hook woke us); otherwise age the LRU lightly every few milliseconds,
 * so that reclaim's trylock paths run in every scenario. In explore's
 * runs (fixed_ops): one step (kswapd_step()), then leave.
 */
static void *reclaim_main(void *arg)
{
	struct thread_state *t = arg;
	struct engine *e = t->e;
	char name[TASK_COMM_LEN];

	snprintf(name, sizeof(name), "kswapd-%d", t->idx);
	rt_task_attach(name);
	__atomic_store_n(&t->tid, (int)syscall(SYS_gettid), __ATOMIC_RELAXED);
	engine_perturb_seed_thread((uint64_t)(e->nr_threads + (t - e->ts)));
	if (e->cfg->sched != RT_SCHED_FREE)
		rt_sched_enter((int)(t - e->ts));
	while (!run_stopped(e)) {
		bool pressure = zone_free_pages(&contig_zone) < contig_zone.pages_high ||
				__atomic_exchange_n(&e->kswapd_wake, 0, __ATOMIC_RELAXED);

		if (e->cfg->sched != RT_SCHED_FREE)
			rt_sched_park_point();
		else
			park_point(e);
		if (e->cfg->fixed_ops) {
			/* explore's kswapd CPU: one step, the same in every schedule. */
			kswapd_step(e, t, RT_KSWAPD_STEP_SCAN, 2);
			break;
		}
		kswapd_step(e, t, pressure ? 32 : 4, pressure ? 2 : 1);
		if (pressure)
			continue;
		/* Idle: sleep; scheduled, wait until some lock is released. */
		if (!rt_sched_idle(2000000))
			sleep_ms(2);
	}
	rt_sched_exit();
	/* Release pairs with park_all() and engine_drain(). */
	__atomic_fetch_add(&e->exited, 1, __ATOMIC_RELEASE);
	rt_task_detach();
	return NULL;
}

static void sched_audit(void *arg)
{
	engine_audit(arg);
}


/*
 * explore's world: the same for every schedule, so built by main alone
 * before any thread of the run exists, from the seed. Two operations of
 * two CPUs race only on state they share, so the warm-up makes some of
 * every kind: a data file mapped shared and one mapped private, written
 * and read, then a fork, so that anonymous pages are shared
 * copy-on-write and the files are mapped by two processes, then more
 * accesses (some of them break the sharing), then reclaim passes, which
 * age the lists and push a few pages out to swap, and a few accesses,
 * which bring some back into the swap cache while another process's
 * pte still names the swap entry.
 *
 * Only the scenario's own operations run (a step whose weight is 0 is
 * skipped), so the world holds only what the scenario can make.
 */
static const enum wl_op explore_warm_plan[] = {
	WL_MMAP_SHARED, WL_MMAP_FILE, WL_MMAP_ANON,
	WL_WRITE, WL_WRITE, WL_READ, WL_WRITE, WL_WRITE, WL_READ,
	WL_WRITE, WL_WRITE, WL_READ, WL_WRITE, WL_WRITE, WL_READ,
	WL_FORK,
	WL_WRITE, WL_READ, WL_WRITE, WL_READ, WL_WRITE, WL_READ,
};

/* Reclaim passes at the end of the warm-up, and the pages each scans. */
#define EXPLORE_WARM_RECLAIM	3
#define EXPLORE_WARM_SCAN	16
/* Accesses after reclaim, which fault some swapped pages back in. */
#define EXPLORE_WARM_AFTER	6

static void warm_world(struct engine *e)
{
	uint64_t rng = e->cfg->seed * 0x94d049bb133111ebULL + 7;

	rt_task_set_op("warm-up");
	wl_world_share_targets(e->world);
	for (size_t i = 0; i < sizeof(explore_warm_plan) / sizeof(explore_warm_plan[0]); i++)
		if (e->cfg->scenario->weights[explore_warm_plan[i]])
			(void)wl_do_op(e->world, explore_warm_plan[i], &rng, 0);
	for (int i = 0; i < EXPLORE_WARM_RECLAIM; i++)
		shrink_zone(&contig_zone, EXPLORE_WARM_SCAN);
	/* Some of those back in: in the swap cache, and still swap ptes elsewhere. */
	for (int i = 0; i < EXPLORE_WARM_AFTER; i++) {
		enum wl_op op = i & 1 ? WL_WRITE : WL_READ;

		if (e->cfg->scenario->weights[op])
			(void)wl_do_op(e->world, op, &rng, 0);
	}
	rt_task_set_op(NULL);
}

/* Create the threads (and the deterministic scheduler); Return: the start time. */
double engine_start_threads(struct engine *e)
{
	const struct rt_run_config *cfg = e->cfg;
	double start;

	e->nr_threads = cfg->threads + cfg->reclaim_threads;
	e->ts = rt_aligned_alloc(SMP_CACHE_BYTES, sizeof(*e->ts) * (size_t)e->nr_threads);
	memset(e->ts, 0, sizeof(*e->ts) * (size_t)e->nr_threads);
	e->ops_left = cfg->ops;
	__atomic_store_n(&test_spin_others, 0, __ATOMIC_RELAXED);	/* before the threads */
	for (int i = 0; i < e->nr_threads; i++) {
		struct thread_state *t = &e->ts[i];

		t->e = e;
		t->reclaim = i >= cfg->threads;
		t->idx = t->reclaim ? i - cfg->threads : i;
		/*
		 * explore's CPUs share one stream: both draw the same
		 * process, address and file, so that their operations meet
		 * on one object.
		 */
		t->rng = rt_seed_stream(cfg->seed, cfg->fixed_ops ? 0 : (uint64_t)i);
	}
	if (cfg->fixed_ops) {
		/* No part of the schedule: its sites would be cleared unread. */
		cover_reset_sites_only(false);
		warm_world(e);
	}
	memset(&test_window, 0, sizeof(test_window));
	if (cfg->sched != RT_SCHED_FREE) {
		struct rt_sched_config sc = {
			.kind = cfg->sched,
			.seed = cfg->seed,
			.pct_depth = cfg->pct_depth,
			.pct_steps = cfg->pct_steps,
			.max_steps = cfg->sched_steps,
			.audit_steps = cfg->audit_every > 0 ? cfg->sched_audit_steps : 0,
			.decisions = cfg->decisions,
			.nr_decisions = cfg->nr_decisions,
			.vtime = {
				.cost = cfg->vtime_cost,
				.end_ns = (uint64_t)(cfg->seconds * 1e9),
				.design = cfg->mode,
				.nr_workers = cfg->threads,
				.calibrate = cfg->vtime_calibrate,
				.transfer_ns = cfg->vtime_transfer_ns,
			},
		};

		rt_sched_init(&sc, e->nr_threads, sched_audit, e);
	}
	start = rt_now_s();
	/*
	 * explore reads only each CPU's last site, not the pairs: the small
	 * window table will do for a replay under `run` (clearing the exact
	 * one cost a third of a schedule), and explore's own schedules
	 * record the sites alone.
	 */
	if (cfg->cover && cfg->cover_sites_only)
		rt_cover_run_start_sites(start);
	else
		rt_cover_run_start(start, cfg->cover || cfg->sched == RT_SCHED_COVER,
				   cfg->sched != RT_SCHED_FREE && cfg->sched != RT_SCHED_EXPLORE);
	for (int i = 0; i < e->nr_threads; i++)
		RT_PTHREAD(pthread_create(&e->ts[i].thread, NULL,
					  e->ts[i].reclaim ? reclaim_main : worker_main, &e->ts[i]));
	if (cfg->sched != RT_SCHED_FREE)
		rt_sched_start();
	return start;
}
