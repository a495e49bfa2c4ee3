/* SPDX-License-Identifier: MIT */
/*
 * The engine's private state, shared by its threads (engine.c), its
 * hooks and setup (engine_setup.c) and its main thread (engine_run.c, and
 * engine_watch.c while the run goes). Not for use outside
 * stress/engine*.c.
 */
#ifndef RT_STRESS_ENGINE_INTERNAL_H
#define RT_STRESS_ENGINE_INTERNAL_H

#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "compiler.h"
#include "engine.h"

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
	int tid;			/* owner stores once at start (relaxed); main reads: the
				   watchdog's CPU-wait time (engine_run.c) */
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
	int halt_found;			/* atomic: cfg->halt_signature was reported */
	int oops;			/* atomic: a task hit BUG() and left the model */
	pthread_mutex_t report_lock;	/* the failures array, res->reports, sink_closed */
	bool sink_closed;		/* report_lock: the run was abandoned; reports after
					 * it are printed, not counted (main reads res) */
	pthread_t main_thread;		/* rt_run()'s; set before any other */
	/* main only: where a BUG in the model's code run by main comes back */
	bool main_guarded;
	jmp_buf main_oops;
};

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static inline bool oopsed(struct engine *e)
{
	return __atomic_load_n(&e->oops, __ATOMIC_ACQUIRE);
}

/* Whether the report the run was to halt at came (cfg->halt_signature). */
static inline bool halt_found(struct engine *e)
{
	return __atomic_load_n(&e->halt_found, __ATOMIC_RELAXED);
}

/*
 * This thread's perturbation PRNG from the run's stream @stream
 * (engine_setup.c). Context: a thread of the run, at its start.
 */
void engine_perturb_seed_thread(uint64_t stream);
/* The world, memory and swap of the run, and the report hooks. Return: 0 or 3. */
int engine_setup(struct engine *e);
/* The hooks engine_setup() installed removed, the world's memory and swap freed. Context: main. */
void engine_release(void);
/* Create the threads (and the deterministic scheduler). Return: the start time. */
double engine_start_threads(struct engine *e);
/* An audit of the world, its violations into the result. Context: quiescent. */
void engine_audit(struct engine *e);

/*
 * Run @fn(@e) in the main thread, where it runs the model's code: a BUG
 * in it comes back here instead of ending the process (engine_run.c).
 * Return: false if it hit BUG().
 */
bool engine_main_model_call(struct engine *e, void (*fn)(struct engine *e));
/* Tell every thread of the run to stop (engine_run.c). */
void engine_stop_threads(struct engine *e);
/* Main's loop while the run goes: time, audits, the watchdog, progress (engine_watch.c). */
void engine_watch_run(struct engine *e, double start);
/*
 * The run is over: stop the threads and wait for them to leave their
 * loops, still watching for a hang and an oops (engine_watch.c).
 */
void engine_drain(struct engine *e);

#endif /* RT_STRESS_ENGINE_INTERNAL_H */
