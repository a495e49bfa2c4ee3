// SPDX-License-Identifier: MIT
/*
 * The engine's main thread while the run goes (engine_run.c sets it up
 * and ends it): it keeps time, parks everyone for audits, watches
 * progress (the watchdog: the hang report names every task in flight and
 * the locks it holds), prints the progress line, and once the run is
 * over waits for the threads to leave their loops (engine_drain()).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "die.h"
#include "engine.h"
#include "engine-internal.h"
#include "cover_map.h"
#include "task.h"
#include "rt_time.h"

/* Park every thread; false if they did not all arrive in @timeout seconds. */
static bool park_all(struct engine *e, double timeout)
{
	double t0 = rt_now_s();

	/* Release pairs with the acquire in park_point(). */
	__atomic_store_n(&e->park, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&e->parked, __ATOMIC_ACQUIRE) +
	       __atomic_load_n(&e->exited, __ATOMIC_ACQUIRE) < e->nr_threads) {
		/*
		 * A task that oopsed never parks, nor may one after the report
		 * the run halts at (a seeded deadlock): the caller ends the run.
		 */
		if (rt_now_s() - t0 > timeout || oopsed(e) || halt_found(e))
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
	d->events = __atomic_load_n(&flight_enabled, __ATOMIC_RELAXED) ?
		(long)(__atomic_load_n(&t->flight.head, __ATOMIC_RELAXED) -
		       __atomic_load_n(&t->op_events, __ATOMIC_RELAXED)) : -1;
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

/*
 * The nanoseconds the run's threads have spent runnable but waiting for a
 * CPU, summed (the kernel's schedstat, /proc/self/task/TID/schedstat: run
 * time, run-queue wait, slices). 0 where it cannot be read.
 */
static uint64_t cpu_wait_ns(struct engine *e)
{
	uint64_t sum = 0;

	for (int i = 0; i < e->nr_threads; i++) {
		int tid = __atomic_load_n(&e->ts[i].tid, __ATOMIC_RELAXED);
		unsigned long long run, wait;
		char path[64];
		FILE *f;

		if (!tid)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
		f = fopen(path, "r");
		if (!f)
			continue;	/* the thread has exited */
		if (fscanf(f, "%llu %llu", &run, &wait) == 2)
			sum += wait;
		fclose(f);
	}
	return sum;
}

/*
 * Under a deterministic schedule one thread runs at a time, so a live run
 * that stands still is one whose runner waits for a CPU: on a loaded,
 * oversubscribed machine (CI's) that wait can last seconds. Once a stall
 * has lasted the watchdog's limit in wall time, its clock restarts and
 * counts only the time no thread of the run waited for a CPU; it is a hang
 * when that too passes the limit. A deadlock (threads blocked, nobody
 * waiting for a CPU) is reported after twice the limit; a starved but
 * live run is not reported. Free runs keep the wall clock: their threads
 * outnumber the CPUs by design, and a spinning deadlock waits for a CPU
 * as much as a live run does.
 */
struct stall {
	bool armed;
	double t0;
	uint64_t wait0;
};

/* Has the stall that began at @since (now @t) outlasted the watchdog? */
static bool stall_over(struct engine *e, struct stall *s, double since, double t)
{
	double limit = e->cfg->watchdog;
	uint64_t w;

	if (t - since <= limit) {
		s->armed = false;
		return false;
	}
	if (e->cfg->sched == RT_SCHED_FREE)
		return true;
	w = cpu_wait_ns(e);
	if (!s->armed || s->t0 < since) {
		s->armed = true;
		s->t0 = t;
		s->wait0 = w;
		return false;
	}
	return (t - s->t0) - (double)(w - s->wait0) * 1e-9 > limit;
}

/*
 * The run is over: tell the threads, and wait for them to leave their
 * loops while still watching for a hang (a deadlock near the end would
 * otherwise hang the join) and for an oops (its task never leaves).
 */
void engine_drain(struct engine *e)
{
	unsigned long last = ~0UL;
	double since = rt_now_s();
	struct stall stall = { .armed = false };

	engine_stop_threads(e);
	while (__atomic_load_n(&e->exited, __ATOMIC_ACQUIRE) < e->nr_threads) {
		unsigned long p = total_progress(e, false) + total_progress(e, true);
		double t = rt_now_s();

		if (oopsed(e))
			return;
		if (p != last) {
			last = p;
			since = t;
		} else if (stall_over(e, &stall, since, t)) {
			report_hang(e, "stopping", t - since);
			return;
		}
		sleep_ms(2);
	}
}

/* The watchdog's view of each thread: progress last seen, and when it changed. */
struct watch {
	unsigned long *last_seen;
	double *last_change;
	double next_audit, next_progress;
	struct stall stall;		/* a deterministic schedule's stall */
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
	if (!stall_over(e, &w->stall, w->last_change[0], t))
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
		if (!oopsed(e) && !halt_found(e))
			report_hang(e, "park", e->cfg->watchdog);
		return false;
	}
	if (!engine_main_model_call(e, engine_audit))
		return false;
	unpark_all(e);
	w->next_audit = rt_now_s() + e->cfg->audit_every;
	for (int i = 0; i < e->nr_threads; i++)
		w->last_change[i] = rt_now_s();
	return true;
}

/* Has every trylock fallback site of --until-fallbacks fired? */
static bool fallbacks_fired(uint32_t sites)
{
	for (int s = 0; s < FB_NR_SITES; s++)
		if ((sites & (1u << s)) && !rmap_fallback_count((enum rmap_fallback_site)s))
			return false;
	return true;
}

/* Is the run over: its bound reached, its sites fired, interrupted, halted, oopsed? */
static bool run_over(struct engine *e, double start, double t)
{
	const struct rt_run_config *cfg = e->cfg;

	if (rt_interrupted) {
		e->res->interrupted = true;
		return true;
	}
	/* Under vtime the seconds are virtual: the scheduler ends the run. */
	if (cfg->seconds > 0 && cfg->sched != RT_SCHED_VTIME && t - start >= cfg->seconds)
		return true;
	if (cfg->ops && !__atomic_load_n(&e->ops_left, __ATOMIC_RELAXED))
		return true;
	if (cfg->until_fallbacks && fallbacks_fired(cfg->until_fallbacks))
		return true;
	if (cfg->sched != RT_SCHED_FREE && rt_sched_stopped())
		return true;
	/* explore: every worker did its one operation. Acquire pairs with their exits. */
	if (cfg->fixed_ops && __atomic_load_n(&e->exited, __ATOMIC_ACQUIRE) == e->nr_threads)
		return true;
	return __atomic_load_n(&e->halt, __ATOMIC_RELAXED) || oopsed(e);
}

/* Main's loop while the run goes: time, audits, the watchdog, progress. */
void engine_watch_run(struct engine *e, double start)
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
		rt_cover_sample(t);
		if (cfg->progress && t >= w.next_progress) {
			progress_line(e, t - start);
			w.next_progress = t + 0.5;
		}
		/*
		 * explore runs thousands of short schedules: once every
		 * thread that left the schedule has left its loop too, sleep
		 * until the next one leaves (10 ms at most: the watchdog, an
		 * oops); one on its way out is looked for often.
		 */
		if (cfg->fixed_ops && cfg->sched != RT_SCHED_FREE) {
			unsigned int x = rt_sched_exits();

			/* Acquire pairs with the threads' release increments. */
			if ((unsigned int)__atomic_load_n(&e->exited, __ATOMIC_ACQUIRE) >= x) {
				rt_sched_wait_exit(x, 10000000L);
				continue;
			}
		}
		if (cfg->fixed_ops)
			nanosleep(&(struct timespec){ 0, 100000 }, NULL);
		else
			sleep_ms(10);
	}
	free(w.last_seen);
	free(w.last_change);
}
