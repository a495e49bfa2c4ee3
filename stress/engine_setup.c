// SPDX-License-Identifier: MIT
/*
 * The engine's run set up and released (engine.c has the threads,
 * engine_run.c the main thread), and the hooks it installs in the model
 * meanwhile: the report sink that collects the model's reports into the
 * result, the oops handler that takes a task that hit BUG() out of the
 * run, and the perturbation (random yields and delays, long holds) from
 * each thread's own stream of the run's seed; and the audit.
 */
#include "engine.h"
#include "engine-internal.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "die.h"
#include "lockdep.h"
#include "page_alloc.h"
#include "perturb.h"
#include "random.h"
#include "rcu.h"
#include "swap.h"
#include "task.h"

static struct engine *the_engine;	/* for the report sink */

/* ---- reports ---- */

static void engine_sink(const struct vm_report *r, void *arg)
{
	struct engine *e = arg;
	struct rt_run_result *res = e->res;

	vm_report_print(stderr, r);
	RT_PTHREAD(pthread_mutex_lock(&e->report_lock));
	if (e->sink_closed) {
		/* After abandon(): main owns the result now (see there). */
		RT_PTHREAD(pthread_mutex_unlock(&e->report_lock));
		return;
	}
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
	if (e->cfg->halt_signature && !strcmp(r->signature, e->cfg->halt_signature))
		__atomic_store_n(&e->halt_found, 1, __ATOMIC_RELAXED);
	if (e->cfg->halt_on_failure || __atomic_load_n(&e->halt_found, __ATOMIC_RELAXED)) {
		/*
		 * Scheduled, the reporter holds the CPU: its next decision
		 * ends the run, not main's noticing a moment later, which
		 * would depend on the machine's load.
		 */
		if (e->cfg->sched != RT_SCHED_FREE)
			rt_sched_request_stop();
		__atomic_store_n(&e->halt, 1, __ATOMIC_RELAXED);
	}
	RT_PTHREAD(pthread_mutex_unlock(&e->report_lock));
}

/*
 * The oops handler: what becomes of a task after its BUG report. As the
 * kernel's do_exit() after an oops, the task leaves for good with its
 * locks held; the main thread notices, stops the others and abandons the
 * model. A worker parks forever (its thread-local state, RCU registration
 * included, stays valid: the process exits around it). The main thread
 * runs the model only through engine_main_model_call(), which it jumps back to.
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

unsigned long rt_result_failures(const struct rt_run_result *res)
{
	unsigned long n = 0;

	/* Audit, teardown, corruption and hangs are all reports too. */
	for (int k = 0; k < VM_REPORT_NR; k++)
		n += res->reports[k];
	return n;
}

/* ---- seeds ---- */

/*
 * The streams of the run's seed (rt_seed_stream()): the operations of
 * thread i are stream i (what every recorded seed replays), its
 * perturbation stream nr + i, and every other thread's (main, RCU
 * callbacks) stream 2 * nr, for nr threads in the run. A function of the
 * seed alone: no address, no time.
 */

/* ---- perturbation ---- */

/* Runs set up so far; a thread's stream from an earlier run is stale. */
static unsigned long perturb_run;		/* written while no thread of the run runs */
static _Thread_local struct {
	uint64_t rng;
	unsigned long run;
} perturb_tls;

void engine_perturb_seed_thread(uint64_t stream)
{
	perturb_tls.rng = rt_seed_stream(the_engine->cfg->seed, stream);
	perturb_tls.run = __atomic_load_n(&perturb_run, __ATOMIC_RELAXED);
}

/* This thread's perturbation PRNG; a thread the engine did not start draws stream 2 * nr. */
static uint64_t *perturb_rng(void)
{
	const struct rt_run_config *cfg = the_engine->cfg;

	if (perturb_tls.run != __atomic_load_n(&perturb_run, __ATOMIC_RELAXED))
		engine_perturb_seed_thread(2 * (uint64_t)(cfg->threads + cfg->reclaim_threads));
	return &perturb_tls.rng;
}

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
	r = rt_rand(perturb_rng()) % 64;
	if (r < (uint64_t)(4 * level))
		sched_yield();
	else if (r < (uint64_t)(5 * level))
		nanosleep(&(struct timespec){ 0, 20000L * level }, NULL);
}

static void perturb_long_hold(int cls)
{
	(void)cls;
	/* locktorture's long_hold: now and then, hold on for a while. */
	if (rt_rand(perturb_rng()) % 256 == 0)
		nanosleep(&(struct timespec){ 0, 200000L }, NULL);
}

static const struct perturb_ops engine_perturb = {
	.yield = perturb_yield,
	.long_hold = perturb_long_hold,
};

static void low_hook(struct zone *zone, void *arg)
{
	struct engine *e = arg;

	(void)zone;
	__atomic_store_n(&e->kswapd_wake, 1, __ATOMIC_RELAXED);
}

void engine_audit(struct engine *e)
{
	unsigned long mapped = 0, v;

	/* A task died holding locks the audit would take: no audit. */
	if (oopsed(e))
		return;
	rt_task_set_op("audit");
	v = wl_world_audit(e->world, &mapped);
	rmap_bytes_sample();	/* everyone parked: the peak of the rmap bytes */
	rt_task_set_op(NULL);
	__atomic_fetch_add(&e->res->audits, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&e->res->audit_violations, v, __ATOMIC_RELAXED);
	if (mapped > e->res->mapped_pages_peak)
		e->res->mapped_pages_peak = mapped;
}

/* The world, memory and swap of the run, and the report hooks. Return: 0 or 3. */
int engine_setup(struct engine *e)
{
	const struct rt_run_config *cfg = e->cfg;

	the_engine = e;
	/* Every thread's perturbation stream is stale: this run's seed now. */
	__atomic_store_n(&perturb_run, __atomic_load_n(&perturb_run, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
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
	/* Each run learns the lock order afresh, as in a process of its own. */
	lockdep_reset_graph();
	rmap_fallback_reset();
	reclaim_stats_reset();
	tlb_stats_reset();
	rmap_bytes_reset_peak();
	vm_report_reset_counts();
	vm_report_set_sink(engine_sink, e);
	vm_oops_set_handler(engine_oops, e);
	if (cfg->perturb || cfg->long_hold_mask)
		perturb_install(&engine_perturb, cfg->long_hold_mask);

	/*
	 * explore: RCU callbacks run in the teardown's rcu_barrier(), after a
	 * grace period, not in liburcu's thread at a moment of its own; and
	 * that barrier does not wait out liburcu's 10 ms batching.
	 */
	if (cfg->sched == RT_SCHED_EXPLORE)
		rt_rcu_set_local_callbacks(true);
	rt_task_attach("main");
	e->world = wl_world_create(cfg->scenario, &cfg->params, cfg->seed);
	if (!e->world) {
		fprintf(stderr, "rmaptorture: %s: cannot set up the scenario in %lu pages\n",
			cfg->scenario->name, cfg->params.pages);
		perturb_install(NULL, 0);
		engine_release();
		return 3;
	}
	return 0;
}

void engine_release(void)
{
	vm_oops_set_handler(NULL, NULL);
	vm_report_set_sink(NULL, NULL);
	zone_set_low_hook(&contig_zone, NULL, NULL);
	rt_task_detach();
	swap_exit();
	mem_exit();
	rt_rcu_set_local_callbacks(false);
}
