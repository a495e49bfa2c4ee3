// SPDX-License-Identifier: MIT
/*
 * The engine. N worker threads play the CPUs of the box, each with its
 * own PRNG seeded from the run's seed, picking operations by the
 * scenario's weights; R reclaim threads play kswapd. The main thread
 * keeps time, parks everyone for audits (a quiescent point: every
 * thread between two operations), watches progress, and collects the
 * reports of the model into the result.
 */
#include "engine.h"

#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "die.h"
#include "page_alloc.h"
#include "perturb.h"
#include "rwsem.h"
#include "semaphore.h"
#include "spinlock.h"
#include "swap.h"
#include "task.h"
#include "rt_time.h"

volatile int rt_interrupted;

struct thread_state {
	pthread_t thread;
	struct engine *e;
	int idx;
	bool reclaim;
	uint64_t rng;
	/* Owner writes with relaxed atomics; main reads. */
	unsigned long progress;
	unsigned long ops_by_kind[WL_NR_OPS];
	unsigned long oom, skipped, corrupt;
	uint64_t seq_hash;		/* owner, relaxed stores; main reads (a thread an oops or a
				   hang left behind may still store) */
} ____cacheline_aligned;

struct engine {
	const struct rt_run_config *cfg;
	struct rt_run_result *res;
	struct wl_world *world;
	struct thread_state *ts;
	int nr_threads;			/* workers + reclaim */
	int stop;			/* atomic: release by main, acquire by threads */
	int park;			/* atomic: release by main, acquire by threads */
	int parked;			/* atomic: release by threads, acquire by main */
	int exited;			/* atomic: threads out of their loop (--ops) */
	unsigned long ops_left;		/* atomic, when bounded by ops */
	int kswapd_wake;		/* atomic: set by the low-watermark hook */
	int halt;			/* atomic: a report asks the run to end */
	int oops;			/* atomic: a task hit BUG() and left the model */
	pthread_mutex_t report_lock;	/* the failures array */
	pthread_t main_thread;		/* rt_run()'s; set before any other */
	/* main only: where a BUG in the model's code run by main comes back */
	bool main_guarded;
	jmp_buf main_oops;
};

static struct engine *the_engine;	/* for the report sink */

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- reports ---- */

static void engine_sink(const struct vm_report *r, void *arg)
{
	struct engine *e = arg;
	struct rt_run_result *res = e->res;

	vm_report_print(stderr, r);
	RT_PTHREAD(pthread_mutex_lock(&e->report_lock));
	if (e->cfg->on_report)
		e->cfg->on_report(r, e->cfg->on_report_arg);
	res->reports[r->kind]++;
	if (res->nr_failures < RT_MAX_FAILURES) {
		res->failures[res->nr_failures] = *r;
		/* The task list is the reporter's, gone when the sink returns. */
		res->failures[res->nr_failures].nr_tasks = 0;
		res->failures[res->nr_failures].tasks = NULL;
	}
	res->nr_failures++;
	if (e->cfg->halt_on_failure)
		__atomic_store_n(&e->halt, 1, __ATOMIC_RELAXED);
	RT_PTHREAD(pthread_mutex_unlock(&e->report_lock));
}

/*
 * The oops handler: what becomes of a task after its BUG report. As the
 * kernel's do_exit() after an oops, the task leaves for good with its
 * locks held; the main thread notices, stops the others and abandons the
 * model. A worker parks forever (its thread-local state, RCU registration
 * included, stays valid: the process exits around it). The main thread
 * runs the model only through main_model_call(), which it jumps back to.
 * Context: the task that hit BUG(), after the sink saw its report.
 */
static __attribute__((noreturn)) void engine_oops(const struct vm_report *r, void *arg)
{
	struct engine *e = arg;

	(void)r;
	/* Release pairs with the acquire in oopsed(). */
	__atomic_store_n(&e->oops, 1, __ATOMIC_RELEASE);
	if (pthread_equal(pthread_self(), e->main_thread)) {
		if (e->main_guarded)
			longjmp(e->main_oops, 1);
		abort();	/* outside the model's code: a harness bug */
	}
	rt_task_set_op("oops");
	/* Scheduled: hand the baton on (an audit's runner holds none). */
	rt_sched_exit();
	for (;;)
		pause();
}

static bool oopsed(struct engine *e)
{
	return __atomic_load_n(&e->oops, __ATOMIC_ACQUIRE);
}

/*
 * Run @fn(@e) in the main thread, where it runs the model's code: a BUG
 * in it comes back here (engine_oops()) instead of ending the process.
 * Return: false if it hit BUG().
 */
static bool main_model_call(struct engine *e, void (*fn)(struct engine *e))
{
	if (setjmp(e->main_oops)) {
		e->main_guarded = false;
		return false;
	}
	e->main_guarded = true;
	fn(e);
	e->main_guarded = false;
	return true;
}

unsigned long rt_result_failures(const struct rt_run_result *res)
{
	unsigned long n = 0;

	/* Audit, teardown, corruption and hangs are all reports too. */
	for (int k = 0; k < VM_REPORT_NR; k++)
		n += res->reports[k];
	return n;
}

/* ---- perturbation ---- */

static _Thread_local uint64_t perturb_rng;

static bool yield_point_enabled(const bool *filter, const char *where)
{
	if (!filter)
		return true;
	for (int i = 0; yield_point_names[i]; i++)
		if (!strcmp(yield_point_names[i], where))
			return filter[i];
	return false;
}

static void perturb_yield(const char *where)
{
	int level = the_engine->cfg->perturb;
	uint64_t r;

	if (!yield_point_enabled(the_engine->cfg->yield_filter, where))
		return;
	if (!perturb_rng)
		perturb_rng = the_engine->cfg->seed ^ (uint64_t)(uintptr_t)&perturb_rng;
	r = wl_rand(&perturb_rng) % 64;
	if (r < (uint64_t)(4 * level))
		sched_yield();
	else if (r < (uint64_t)(5 * level))
		nanosleep(&(struct timespec){ 0, 20000L * level }, NULL);
}

static void perturb_long_hold(int cls)
{
	(void)cls;
	if (!perturb_rng)
		perturb_rng = the_engine->cfg->seed ^ (uint64_t)(uintptr_t)&perturb_rng;
	/* locktorture's long_hold: now and then, hold on for a while. */
	if (wl_rand(&perturb_rng) % 256 == 0)
		nanosleep(&(struct timespec){ 0, 200000L }, NULL);
}

static const struct perturb_ops engine_perturb = {
	.yield = perturb_yield,
	.long_hold = perturb_long_hold,
};

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

static void *worker_main(void *arg)
{
	struct thread_state *t = arg;
	struct engine *e = t->e;
	int slot = (int)(t - e->ts);
	char name[TASK_COMM_LEN];

	snprintf(name, sizeof(name), "cpu-%d", t->idx);
	rt_task_attach(name);
	if (e->cfg->sched != RT_SCHED_FREE)
		rt_sched_enter(slot);
	if (e->cfg->test_hang && t->idx == 0)
		hang_forever(e->cfg->test_hang);
	while (!run_stopped(e)) {
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
		op = wl_pick_op(e->world, &t->rng);
		rt_task_set_op(wl_op_name(op));
		r = wl_do_op(e->world, op, &t->rng, t->idx);
		flight_record(FL_OP_END, NULL, 0, (long)r);
		rt_task_set_op(NULL);
		seq_add(e, t, (unsigned long)op * 16 + (unsigned long)r + 1);
		bump(&t->ops_by_kind[op]);
		if (r == WL_OOM)
			bump(&t->oom);
		else if (r == WL_SKIPPED)
			bump(&t->skipped);
		else if (r == WL_CORRUPT)
			bump(&t->corrupt);
		bump(&t->progress);
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
 * so that reclaim's trylock paths run in every scenario.
 */
static void *reclaim_main(void *arg)
{
	struct thread_state *t = arg;
	struct engine *e = t->e;
	char name[TASK_COMM_LEN];

	snprintf(name, sizeof(name), "kswapd-%d", t->idx);
	rt_task_attach(name);
	if (e->cfg->sched != RT_SCHED_FREE)
		rt_sched_enter((int)(t - e->ts));
	while (!run_stopped(e)) {
		bool pressure = nr_free_pages() < contig_zone.pages_high ||
				__atomic_exchange_n(&e->kswapd_wake, 0, __ATOMIC_RELAXED);

		if (e->cfg->sched != RT_SCHED_FREE)
			rt_sched_park_point();
		else
			park_point(e);
		rt_task_set_op("shrink_zone");
		shrink_zone(&contig_zone, pressure ? 32 : 4);
		rt_task_set_op(NULL);
		seq_add(e, t, pressure ? 2 : 1);
		bump(&t->progress);
		if (pressure)
			continue;
		/* Idle: sleep; scheduled, wait until some lock is released. */
		if (!sched_point(SP_WAIT, NULL, -1))
			sleep_ms(2);
	}
	rt_sched_exit();
	/* Release pairs with park_all() and drain(). */
	__atomic_fetch_add(&e->exited, 1, __ATOMIC_RELEASE);
	rt_task_detach();
	return NULL;
}

static void low_hook(struct zone *zone, void *arg)
{
	struct engine *e = arg;

	(void)zone;
	__atomic_store_n(&e->kswapd_wake, 1, __ATOMIC_RELAXED);
}

/* Park every thread; false if they did not all arrive in @timeout seconds. */
static bool park_all(struct engine *e, double timeout)
{
	double t0 = rt_now_s();

	/* Release pairs with the acquire in park_point(). */
	__atomic_store_n(&e->park, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&e->parked, __ATOMIC_ACQUIRE) +
	       __atomic_load_n(&e->exited, __ATOMIC_ACQUIRE) < e->nr_threads) {
		/* A task that oopsed never parks: the caller ends the run. */
		if (rt_now_s() - t0 > timeout || oopsed(e))
			return false;
		sleep_ms(1);
	}
	return true;
}

static void unpark_all(struct engine *e)
{
	__atomic_store_n(&e->park, 0, __ATOMIC_RELEASE);
	while (__atomic_load_n(&e->parked, __ATOMIC_ACQUIRE) > 0)
		sleep_ms(1);
}

static unsigned long total_progress(struct engine *e, bool reclaim)
{
	unsigned long n = 0;

	for (int i = 0; i < e->nr_threads; i++)
		if (e->ts[i].reclaim == reclaim)
			n += __atomic_load_n(&e->ts[i].progress, __ATOMIC_RELAXED);
	return n;
}

/* ---- the hang report ---- */

struct hang_ctx {
	struct vm_report *r;
	struct vm_report_task *tasks;	/* every task in flight */
	int nr, cap;
	int nr_locks;
	uint64_t classes;	/* every class some task holds */
};

/* One task in flight: its name, its op and every lock it holds. */
static void describe_task(struct task_struct *t, void *arg)
{
	struct hang_ctx *h = arg;
	struct vm_report *r = h->r;
	struct vm_report_task *d;
	int depth = READ_ONCE(t->lockdep_depth);
	const char *op = READ_ONCE(t->op);

	if (!op || !strcmp(op, "parked"))
		return;
	if (h->nr == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 64;
		h->tasks = realloc(h->tasks, (size_t)h->cap * sizeof(*h->tasks));
		if (!h->tasks)
			rt_die("out of memory for the hang report");
	}
	d = &h->tasks[h->nr++];
	memset(d, 0, sizeof(*d));
	snprintf(d->task, sizeof(d->task), "%s", t->comm);
	d->op = op;
	for (int i = 0; i < depth && i < MAX_LOCK_DEPTH; i++) {
		const struct held_lock *hl = &t->held_locks[i];
		int cls = READ_ONCE(hl->class_id);
		struct vm_report_site site = {
			.what = lock_class_name(cls),
			.file = READ_ONCE(hl->file),
			.line = READ_ONCE(hl->line),
		};

		d->held[d->nr_held++] = site;
		if (r->nr_sites < VM_REPORT_MAX_SITES)
			r->sites[r->nr_sites++] = site;
		if (cls < 64)
			h->classes |= 1ULL << cls;
		h->nr_locks++;
	}
}

/*
 * The watchdog's report: a headline, and every task in flight with every
 * lock it holds, kept apart from the message so that none is cut.
 * Context: main; the model's threads may be anywhere.
 */
static void report_hang(struct engine *e, const char *role, double secs)
{
	struct vm_report r;
	struct hang_ctx h = { .r = &r };
	size_t len;

	memset(&r, 0, sizeof(r));
	r.kind = VM_REPORT_HANG;
	rt_task_for_each(describe_task, &h);
	snprintf(r.message, sizeof(r.message),
		 "no %s progress for %.0f s: %d tasks in flight hold %d locks",
		 role, secs, h.nr, h.nr_locks);
	r.tasks = h.tasks;
	r.nr_tasks = h.nr;
	/*
	 * Where the watchdog noticed, and which thread it looked at first,
	 * vary from run to run; the set of lock classes held does not (for
	 * a deterministic schedule: everyone stands still where it was).
	 */
	len = (size_t)snprintf(r.signature, sizeof(r.signature), "hang:");
	for (int c = 0; c < 64; c++)
		if (h.classes & (1ULL << c))
			len += (size_t)snprintf(r.signature + len, sizeof(r.signature) - len, "%s%s",
						len > 5 ? "+" : "", lock_class_name(c));
	if (!h.classes)
		snprintf(r.signature + len, sizeof(r.signature) - len, "no-lock-held");
	e->res->hang = true;
	vm_report_emit(&r);
	free(h.tasks);
}

/* ---- output ---- */

static void progress_line(struct engine *e, double elapsed)
{
	const struct rt_run_config *cfg = e->cfg;
	unsigned long ops = total_progress(e, false), failures;

	RT_PTHREAD(pthread_mutex_lock(&e->report_lock));
	failures = rt_result_failures(e->res);
	RT_PTHREAD(pthread_mutex_unlock(&e->report_lock));

	fprintf(stderr, "\r\033[K[%6.1f/%gs] %s/%s %lu ops %.0f ops/s audits %lu failures %lu procs %d",
		elapsed, cfg->seconds, cfg->scenario->name, rmap_mode_name(cfg->mode), ops,
		elapsed > 0 ? (double)ops / elapsed : 0.0,
		__atomic_load_n(&e->res->audits, __ATOMIC_RELAXED),
		failures,
		wl_world_nr_procs(e->world));
}

/* ---- the run ---- */

static void collect(struct engine *e)
{
	struct rt_run_result *res = e->res;

	for (int i = 0; i < e->nr_threads; i++) {
		struct thread_state *t = &e->ts[i];

		/* Relaxed loads: after a hang the threads are still running. */
		for (int k = 0; k < WL_NR_OPS; k++) {
			unsigned long n = __atomic_load_n(&t->ops_by_kind[k], __ATOMIC_RELAXED);

			res->ops_by_kind[k] += n;
			res->ops += n;
		}
		res->oom += __atomic_load_n(&t->oom, __ATOMIC_RELAXED);
		res->skipped += __atomic_load_n(&t->skipped, __ATOMIC_RELAXED);
		res->corrupt += __atomic_load_n(&t->corrupt, __ATOMIC_RELAXED);
		if (i < RT_MAX_THREADS) {
			res->thread_ops[i] = __atomic_load_n(&t->progress, __ATOMIC_RELAXED);
			res->thread_hash[i] = __atomic_load_n(&t->seq_hash, __ATOMIC_RELAXED);
		}
	}
	res->nr_threads = e->nr_threads;
	res->sched_steps = rt_sched_steps();
	res->stop_step = rt_sched_stop_step();
	for (int c = 0; c < LOCK_CLASS_MAX; c++)
		lock_stats_read(c, &res->locks[c]);
	for (int s = 0; s < FB_NR_SITES; s++)
		res->fallbacks[s] = rmap_fallback_count((enum rmap_fallback_site)s);
	reclaim_stats_read(&res->reclaim);
	rmap_bytes_read(&res->rmap_bytes);
	res->procs_end = wl_world_nr_procs(e->world);
}

static void audit_now(struct engine *e);

static void sched_audit(void *arg)
{
	audit_now(arg);
}

static void audit_now(struct engine *e)
{
	unsigned long mapped = 0, v;

	/* A task died holding locks the audit would take: no audit. */
	if (oopsed(e))
		return;
	rt_task_set_op("audit");
	v = wl_world_audit(e->world, &mapped);
	rt_task_set_op(NULL);
	__atomic_fetch_add(&e->res->audits, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&e->res->audit_violations, v, __ATOMIC_RELAXED);
	if (mapped > e->res->mapped_pages_peak)
		e->res->mapped_pages_peak = mapped;
}

/* Tell every thread of the run to stop. */
static void stop_threads(struct engine *e)
{
	/* Release pairs with the acquire in the threads' loops. */
	__atomic_store_n(&e->stop, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&e->park, 0, __ATOMIC_RELEASE);
	if (e->cfg->sched != RT_SCHED_FREE)
		rt_sched_request_stop();
}

/*
 * The run is over: tell the threads, and wait for them to leave their
 * loops while still watching for a hang (a deadlock near the end would
 * otherwise hang the join) and for an oops (its task never leaves).
 */
static void drain(struct engine *e)
{
	unsigned long last = ~0UL;
	double since = rt_now_s();

	stop_threads(e);
	while (__atomic_load_n(&e->exited, __ATOMIC_ACQUIRE) < e->nr_threads) {
		unsigned long p = total_progress(e, false) + total_progress(e, true);
		double t = rt_now_s();

		if (oopsed(e))
			return;
		if (p != last) {
			last = p;
			since = t;
		} else if (t - since > e->cfg->watchdog) {
			report_hang(e, "stopping", t - since);
			return;
		}
		sleep_ms(2);
	}
}

/* The world, memory and swap of the run, and the report hooks. Return: 0 or 3. */
static int engine_setup(struct engine *e)
{
	const struct rt_run_config *cfg = e->cfg;

	if (rmap_select(cfg->mode))
		return 3;
	if (mem_init(cfg->params.pages))
		return 3;
	if (swap_init(cfg->params.swap_slots)) {
		mem_exit();
		return 3;
	}
	zone_set_low_hook(&contig_zone, low_hook, e);
	lock_stats_reset();
	rmap_fallback_reset();
	reclaim_stats_reset();
	rmap_bytes_reset_peak();
	vm_report_reset_counts();
	vm_report_set_sink(engine_sink, e);
	vm_oops_set_handler(engine_oops, e);
	if (cfg->perturb || cfg->long_hold_mask)
		perturb_install(&engine_perturb, cfg->long_hold_mask);

	rt_task_attach("main");
	e->world = wl_world_create(cfg->scenario, &cfg->params, cfg->seed);
	if (!e->world) {
		fprintf(stderr, "rmaptorture: %s: cannot set up the scenario in %lu pages\n",
			cfg->scenario->name, cfg->params.pages);
		perturb_install(NULL, 0);
		vm_oops_set_handler(NULL, NULL);
		vm_report_set_sink(NULL, NULL);
		zone_set_low_hook(&contig_zone, NULL, NULL);
		rt_task_detach();
		swap_exit();
		mem_exit();
		return 3;
	}
	return 0;
}

/* Create the threads (and the deterministic scheduler); Return: the start time. */
static double start_threads(struct engine *e)
{
	const struct rt_run_config *cfg = e->cfg;
	double start;

	e->nr_threads = cfg->threads + cfg->reclaim_threads;
	e->ts = rt_aligned_alloc(SMP_CACHE_BYTES, sizeof(*e->ts) * (size_t)e->nr_threads);
	memset(e->ts, 0, sizeof(*e->ts) * (size_t)e->nr_threads);
	e->ops_left = cfg->ops;
	for (int i = 0; i < e->nr_threads; i++) {
		struct thread_state *t = &e->ts[i];

		t->e = e;
		t->reclaim = i >= cfg->threads;
		t->idx = t->reclaim ? i - cfg->threads : i;
		/* Every thread's stream derives from the seed alone. */
		t->rng = cfg->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i * 0xbf58476d1ce4e5b9ULL + 1;
	}
	if (cfg->sched != RT_SCHED_FREE) {
		struct rt_sched_config sc = {
			.kind = cfg->sched,
			.seed = cfg->seed,
			.pct_depth = cfg->pct_depth,
			.pct_steps = cfg->pct_steps,
			.max_steps = cfg->sched_steps,
			.audit_steps = cfg->audit_every > 0 ? cfg->sched_audit_steps : 0,
		};

		rt_sched_init(&sc, e->nr_threads, sched_audit, e);
	}
	start = rt_now_s();
	for (int i = 0; i < e->nr_threads; i++)
		RT_PTHREAD(pthread_create(&e->ts[i].thread, NULL,
					  e->ts[i].reclaim ? reclaim_main : worker_main, &e->ts[i]));
	if (cfg->sched != RT_SCHED_FREE)
		rt_sched_start();
	return start;
}

/* The watchdog's view of each thread: progress last seen, and when it changed. */
struct watch {
	unsigned long *last_seen;
	double *last_change;
	double next_audit, next_progress;
};

/* A deterministic schedule: a hang is the whole run standing still. Return: hung. */
static bool watch_sched(struct engine *e, struct watch *w, double t)
{
	/* One thread runs at a time and PCT starves some on purpose. */
	unsigned long p = total_progress(e, false) + total_progress(e, true);

	if (p != w->last_seen[0]) {
		w->last_seen[0] = p;
		w->last_change[0] = t;
		return false;
	}
	if (t - w->last_change[0] <= e->cfg->watchdog)
		return false;
	report_hang(e, "scheduled", t - w->last_change[0]);
	return true;
}

/* Free threads: one CPU stuck behind a lock is a hang too. Return: hung. */
static bool watch_free(struct engine *e, struct watch *w, double t)
{
	int stalled = -1;

	for (int i = 0; i < e->nr_threads; i++) {
		unsigned long p = __atomic_load_n(&e->ts[i].progress, __ATOMIC_RELAXED);

		if (p != w->last_seen[i]) {
			w->last_seen[i] = p;
			w->last_change[i] = t;
		} else if (t - w->last_change[i] > e->cfg->watchdog && stalled < 0) {
			stalled = i;
		}
	}
	if (stalled < 0)
		return false;
	report_hang(e, e->ts[stalled].reclaim ? "reclaim" : "worker",
		    t - w->last_change[stalled]);
	return true;
}

/* Free threads: park them all and audit, when due. Return: false to end the run. */
static bool audit_due(struct engine *e, struct watch *w, double t)
{
	if (t < w->next_audit)
		return true;
	if (!park_all(e, e->cfg->watchdog)) {
		if (!oopsed(e))
			report_hang(e, "park", e->cfg->watchdog);
		return false;
	}
	if (!main_model_call(e, audit_now))
		return false;
	unpark_all(e);
	w->next_audit = rt_now_s() + e->cfg->audit_every;
	for (int i = 0; i < e->nr_threads; i++)
		w->last_change[i] = rt_now_s();
	return true;
}

/* Is the run over: its bound reached, interrupted, halted, oopsed? */
static bool run_over(struct engine *e, double start, double t)
{
	const struct rt_run_config *cfg = e->cfg;

	if (rt_interrupted) {
		e->res->interrupted = true;
		return true;
	}
	if (cfg->seconds > 0 && t - start >= cfg->seconds)
		return true;
	if (cfg->ops && !__atomic_load_n(&e->ops_left, __ATOMIC_RELAXED))
		return true;
	if (cfg->sched != RT_SCHED_FREE && rt_sched_stopped())
		return true;
	return __atomic_load_n(&e->halt, __ATOMIC_RELAXED) || oopsed(e);
}

/* Main's loop while the run goes: time, audits, the watchdog, progress. */
static void watch_run(struct engine *e, double start)
{
	const struct rt_run_config *cfg = e->cfg;
	struct watch w = {
		.next_audit = cfg->audit_every > 0 ? start + cfg->audit_every : INFINITY,
		.next_progress = start + 0.5,
	};

	w.last_seen = rt_calloc((size_t)e->nr_threads, sizeof(*w.last_seen));
	w.last_change = rt_calloc((size_t)e->nr_threads, sizeof(*w.last_change));
	for (int i = 0; i < e->nr_threads; i++)
		w.last_change[i] = start;
	for (;;) {
		double t = rt_now_s();

		if (run_over(e, start, t))
			break;
		if (cfg->sched != RT_SCHED_FREE) {
			if (watch_sched(e, &w, t))
				break;
		} else if (watch_free(e, &w, t) || !audit_due(e, &w, t)) {
			break;
		}
		if (cfg->progress && t >= w.next_progress) {
			progress_line(e, t - start);
			w.next_progress = t + 0.5;
		}
		sleep_ms(10);
	}
	free(w.last_seen);
	free(w.last_change);
}

/*
 * A hang or an oops: tasks hold locks that nobody will release, so the
 * model is abandoned where it stands. Stop the others and join them; a
 * thread still stuck after a grace period is detached (it cannot be
 * joined). No audit, no teardown: they would take those locks. The
 * engine and the world stay allocated for the threads left behind; the
 * caller reports and exits (_exit: nothing may run the model's teardown).
 */
static int abandon(struct engine *e)
{
	struct timespec until;

	if (oopsed(e))
		e->res->oops = true;
	stop_threads(e);
	/* One grace period for all of them, not one each. */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	for (int i = 0; i < e->nr_threads; i++)
		if (pthread_timedjoin_np(e->ts[i].thread, NULL, &until))
			RT_PTHREAD(pthread_detach(e->ts[i].thread));
	collect(e);
	perturb_install(NULL, 0);
	return 1;
}

static void teardown(struct engine *e)
{
	e->res->teardown_violations = wl_world_destroy(e->world);
}

/* The run ended cleanly: join, the final audit, teardown. Return: rt_run()'s. */
static int finish(struct engine *e)
{
	const struct rt_run_config *cfg = e->cfg;
	struct rt_run_result *res = e->res;

	stop_threads(e);
	for (int i = 0; i < e->nr_threads; i++)
		RT_PTHREAD(pthread_join(e->ts[i].thread, NULL));
	if (cfg->sched != RT_SCHED_FREE)
		rt_sched_fini();
	perturb_install(NULL, 0);

	/* The final audit (quiescent) and teardown: BUG there is an oops too. */
	if (!main_model_call(e, audit_now)) {
		res->oops = true;
		collect(e);
		return 1;
	}
	collect(e);
	if (cfg->sched == RT_SCHED_FREE)
		res->sched_steps = res->stop_step = 0;
	if (!main_model_call(e, teardown)) {
		res->oops = true;
		return 1;
	}
	vm_oops_set_handler(NULL, NULL);
	vm_report_set_sink(NULL, NULL);
	zone_set_low_hook(&contig_zone, NULL, NULL);
	rt_task_detach();
	swap_exit();
	mem_exit();
	return rt_result_failures(res) || res->audit_violations || res->corrupt ||
	       res->teardown_violations ? 1 : 0;
}

int rt_run(const struct rt_run_config *cfg, struct rt_run_result *res)
{
	struct engine *e = rt_calloc(1, sizeof(*e));
	double start;
	int rc;

	memset(res, 0, sizeof(*res));
	e->cfg = cfg;
	e->res = res;
	e->main_thread = pthread_self();
	the_engine = e;
	RT_PTHREAD(pthread_mutex_init(&e->report_lock, NULL));
	rc = engine_setup(e);
	if (rc) {
		pthread_mutex_destroy(&e->report_lock);
		free(e);
		return rc;
	}
	start = start_threads(e);
	watch_run(e, start);
	res->elapsed = rt_now_s() - start;
	if (!res->hang && !oopsed(e))
		drain(e);
	if (cfg->progress)
		fputs("\r\033[K", stderr);
	if (res->hang || oopsed(e))
		return abandon(e);
	rc = finish(e);
	if (res->oops)
		return rc;	/* abandoned: the engine stays for what is left */
	free(e->ts);
	pthread_mutex_destroy(&e->report_lock);
	free(e);
	return rc;
}
