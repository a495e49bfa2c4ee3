// SPDX-License-Identifier: MIT
/*
 * The engine's main thread (engine.c has the threads, engine_setup.c the
 * model's hooks and the run's setup): it sets the run up, lets
 * engine_watch.c keep time, park everyone for audits and watch progress
 * while the run goes, collects the result, and ends the run: cleanly
 * (join, final audit, teardown) or, after a hang or an oops, by
 * abandoning the model.
 */
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "die.h"
#include "engine.h"
#include "engine-internal.h"
#include "page_alloc.h"
#include "perturb.h"
#include "cover_map.h"
#include "swap.h"
#include "task.h"
#include "waitq.h"
#include "rt_time.h"

/*
 * Run @fn(@e) in the main thread, where it runs the model's code: a BUG
 * in it comes back here (engine_oops()) instead of ending the process.
 * Return: false if it hit BUG().
 */
bool engine_main_model_call(struct engine *e, void (*fn)(struct engine *e))
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
	res->tick_drops = rt_sched_tick_drops();
	res->longest_op = rt_sched_longest_op();
	if (e->cfg->sched == RT_SCHED_VTIME)
		rt_vtime_result_read(&res->vtime);
	for (int c = 0; c < LOCK_CLASS_MAX; c++)
		lock_stats_read(c, &res->locks[c]);
	for (int s = 0; s < FB_NR_SITES; s++)
		res->fallbacks[s] = rmap_fallback_count((enum rmap_fallback_site)s);
	reclaim_stats_read(&res->reclaim);
	tlb_stats_read(&res->tlb);
	rmap_bytes_read(&res->rmap_bytes);
	res->procs_end = wl_world_nr_procs(e->world);
}
/* Tell every thread of the run to stop. */
void engine_stop_threads(struct engine *e)
{
	/* Release pairs with the acquire in the threads' loops. */
	__atomic_store_n(&e->stop, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&e->park, 0, __ATOMIC_RELEASE);
	if (e->cfg->sched != RT_SCHED_FREE)
		rt_sched_request_stop();
}

/*
 * A hang or an oops: tasks hold locks that nobody will release, so the
 * model is abandoned where it stands. So is it once the report the run
 * was to halt at came: nothing after it is wanted, and its tasks may be
 * deadlocked already. Stop the others and join them; a
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
	else if (!e->res->hang)
		e->res->halted = true;
	engine_stop_threads(e);
	/* One grace period for all of them, not one each. */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	for (int i = 0; i < e->nr_threads; i++)
		if (pthread_timedjoin_np(e->ts[i].thread, NULL, &until))
			RT_PTHREAD(pthread_detach(e->ts[i].thread));
	/*
	 * A thread left behind (a second oops parks for good; a waiter on a
	 * dead task's lock never returns) is not joined, so nothing orders
	 * its reports before main's reading of the result. Close the sink:
	 * the lock orders every report counted so far before main's reads,
	 * and a report after it is printed but not counted.
	 */
	RT_PTHREAD(pthread_mutex_lock(&e->report_lock));
	e->sink_closed = true;
	RT_PTHREAD(pthread_mutex_unlock(&e->report_lock));
	collect(e);
	perturb_install(NULL, 0);
	return 1;
}

static void teardown(struct engine *e)
{
	e->res->teardown_violations = wl_world_destroy(e->world);
	/* Every lock wait that registered to be woken (waitq.h) has ended. */
	if (!waitq_idle()) {
		fprintf(stderr, "teardown: a lock waiter is still registered on a wait queue\n");
		e->res->teardown_violations++;
	}
}

/* The run ended cleanly: join, the final audit, teardown. Return: rt_run()'s. */
static int finish(struct engine *e)
{
	const struct rt_run_config *cfg = e->cfg;
	struct rt_run_result *res = e->res;

	engine_stop_threads(e);
	for (int i = 0; i < e->nr_threads; i++)
		RT_PTHREAD(pthread_join(e->ts[i].thread, NULL));
	if (cfg->sched != RT_SCHED_FREE)
		rt_sched_fini();
	perturb_install(NULL, 0);

	/* The final audit (quiescent) and teardown: BUG there is an oops too. */
	if (!engine_main_model_call(e, engine_audit)) {
		res->oops = true;
		collect(e);
		return 1;
	}
	collect(e);
	if (cfg->sched == RT_SCHED_FREE)
		res->sched_steps = res->stop_step = 0;
	if (!engine_main_model_call(e, teardown)) {
		res->oops = true;
		return 1;
	}
	engine_release();
	return rt_result_failures(res) || res->audit_violations || res->corrupt ||
	       res->teardown_violations ? 1 : 0;
}

/*
 * glibc gives a freed heap top back to the host (madvise(MADV_DONTNEED))
 * once it passes the trim threshold: with the model's tables and objects
 * coming and going by the megabyte, each give-back is a host TLB
 * shootdown that interrupts every other worker, a cross-CPU cost that no
 * operation of 2.6 has. The harness keeps what it freed instead.
 */
#define RT_MALLOC_TRIM_THRESHOLD	(256 << 20)

static pthread_once_t malloc_tune_once = PTHREAD_ONCE_INIT;

static void malloc_tune(void)
{
	/* Best effort: an allocator without the knob (a sanitizer's) keeps its own policy. */
	(void)mallopt(M_TRIM_THRESHOLD, RT_MALLOC_TRIM_THRESHOLD);
}

int rt_run(const struct rt_run_config *cfg, struct rt_run_result *res)
{
	struct engine *e;
	double start;
	int rc;

	RT_PTHREAD(pthread_once(&malloc_tune_once, malloc_tune));
	e = rt_calloc(1, sizeof(*e));
	memset(res, 0, sizeof(*res));
	e->cfg = cfg;
	e->res = res;
	e->main_thread = pthread_self();
	RT_PTHREAD(pthread_mutex_init(&e->report_lock, NULL));
	rc = engine_setup(e);
	if (rc) {
		pthread_mutex_destroy(&e->report_lock);
		free(e);
		return rc;
	}
	start = engine_start_threads(e);
	engine_watch_run(e, start);
	res->elapsed = rt_now_s() - start;
	if (!res->hang && !oopsed(e) && !halt_found(e))
		engine_drain(e);
	if (cfg->progress)
		fputs("\r\033[K", stderr);
	if (res->hang || oopsed(e) || halt_found(e))
		return abandon(e);
	rc = finish(e);
	if (res->oops)
		return rc;	/* abandoned: the engine stays for what is left */
	free(e->ts);
	pthread_mutex_destroy(&e->report_lock);
	free(e);
	return rc;
}
