// SPDX-License-Identifier: MIT
/*
 * `rmaptorture bench locks`: the cost of the emulated locks.
 *
 * 1. Uncontended lock+unlock of every primitive next to pthread_spin_lock
 *    and pthread_mutex_lock, statistics on, lockdep off, interleaved in
 *    one run, median of K repeats.
 * 2. Contended throughput: N threads (32 by default) hammering one lock
 *    around a short critical section, spinlock_t next to pthread_mutex_t
 *    and pthread_spinlock_t, interleaved, median of K repeats.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "die.h"
#include "lockdep.h"
#include "page.h"
#include "record.h"
#include "rt_time.h"
#include "rwsem.h"
#include "semaphore.h"
#include "spinlock.h"
#include "task.h"

/* ---- uncontended ---- */

static pthread_spinlock_t u_pspin;
static pthread_mutex_t u_pmutex = PTHREAD_MUTEX_INITIALIZER;
static spinlock_t u_spin;
static struct rw_semaphore u_rwsem;
static struct semaphore u_sem;
static struct page u_page;
static volatile long u_sink;

#define UNCONTENDED(name, lock, unlock)					\
static double un_##name(long iters)					\
{									\
	double t0 = rt_now_s();						\
	for (long i = 0; i < iters; i++) {				\
		lock;							\
		u_sink++;						\
		unlock;							\
	}								\
	return (rt_now_s() - t0) * 1e9 / (double)iters;			\
}

UNCONTENDED(pthread_spin, pthread_spin_lock(&u_pspin), pthread_spin_unlock(&u_pspin))
UNCONTENDED(pthread_mutex, pthread_mutex_lock(&u_pmutex), pthread_mutex_unlock(&u_pmutex))
UNCONTENDED(spinlock, spin_lock(&u_spin), spin_unlock(&u_spin))
UNCONTENDED(bit_spinlock, pte_chain_lock(&u_page), pte_chain_unlock(&u_page))
UNCONTENDED(lock_page, lock_page(&u_page), unlock_page(&u_page))
UNCONTENDED(semaphore, down(&u_sem), up(&u_sem))
UNCONTENDED(rwsem_read, down_read(&u_rwsem), up_read(&u_rwsem))
UNCONTENDED(rwsem_write, down_write(&u_rwsem), up_write(&u_rwsem))

struct un_case {
	const char *name;
	const char *baseline;	/* what it is compared with */
	double (*fn)(long);
};

static const struct un_case un_cases[] = {
	{ "pthread_spin_lock", NULL, un_pthread_spin },
	{ "pthread_mutex_lock", NULL, un_pthread_mutex },
	{ "spin_lock", "pthread_spin_lock", un_spinlock },
	{ "pte_chain_lock (bit)", "pthread_spin_lock", un_bit_spinlock },
	{ "lock_page (bit)", "pthread_mutex_lock", un_lock_page },
	{ "down/up (semaphore)", "pthread_mutex_lock", un_semaphore },
	{ "down_read/up_read", "pthread_mutex_lock", un_rwsem_read },
	{ "down_write/up_write", "pthread_mutex_lock", un_rwsem_write },
};
#define NR_UN ((int)ARRAY_SIZE(un_cases))

/* ---- contended ---- */

enum ct_kind { CT_SPINLOCK, CT_PMUTEX, CT_PSPIN, NR_CT };
static const char *const ct_names[NR_CT] = { "spin_lock", "pthread_mutex_lock", "pthread_spin_lock" };

struct ct_run {
	enum ct_kind kind;
	int stop;		/* atomic: release by main, acquire by workers */
	int go;			/* atomic */
	spinlock_t spin;
	pthread_mutex_t pmutex;
	pthread_spinlock_t pspin;
	long counter;		/* the lock under test */
};

struct ct_worker {
	pthread_t th;
	struct ct_run *run;
	long ops;
} ____cacheline_aligned;

static void *ct_main(void *arg)
{
	struct ct_worker *w = arg;
	struct ct_run *r = w->run;
	long ops = 0;

	rt_task_attach("bench");
	/* Acquire pairs with the release of r->go in run_contended(). */
	while (!__atomic_load_n(&r->go, __ATOMIC_ACQUIRE))
		sched_yield();
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < 64; i++) {
			switch (r->kind) {
			case CT_SPINLOCK:
				spin_lock(&r->spin);
				r->counter++;
				spin_unlock(&r->spin);
				break;
			case CT_PMUTEX:
				pthread_mutex_lock(&r->pmutex);
				r->counter++;
				pthread_mutex_unlock(&r->pmutex);
				break;
			default:
				pthread_spin_lock(&r->pspin);
				r->counter++;
				pthread_spin_unlock(&r->pspin);
				break;
			}
		}
		ops += 64;
	}
	w->ops = ops;
	rt_task_detach();
	return NULL;
}

/* Ops/s of @threads threads on one lock of @kind for @seconds; BUGs on a lost update. */
static double run_contended(enum ct_kind kind, int threads, double seconds)
{
	struct ct_run *r = rt_aligned_alloc(SMP_CACHE_BYTES, sizeof(*r));
	struct ct_worker *w = rt_aligned_alloc(SMP_CACHE_BYTES, sizeof(*w) * (size_t)threads);
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
	long total = 0;
	double t0, dt;

	memset(r, 0, sizeof(*r));
	r->kind = kind;
	spin_lock_init(&r->spin, LOCK_CLASS_PAGE_TABLE_LOCK);
	RT_PTHREAD(pthread_mutex_init(&r->pmutex, NULL));
	RT_PTHREAD(pthread_spin_init(&r->pspin, PTHREAD_PROCESS_PRIVATE));
	for (int i = 0; i < threads; i++) {
		w[i].run = r;
		w[i].ops = 0;
		RT_PTHREAD(pthread_create(&w[i].th, NULL, ct_main, &w[i]));
	}
	t0 = rt_now_s();
	/* Release pairs with the acquire in ct_main(). */
	__atomic_store_n(&r->go, 1, __ATOMIC_RELEASE);
	nanosleep(&ts, NULL);
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < threads; i++) {
		RT_PTHREAD(pthread_join(w[i].th, NULL));
		total += w[i].ops;
	}
	dt = rt_now_s() - t0;
	if (total != r->counter)
		rt_die("%s: lost updates: %ld ops, counter %ld", ct_names[kind], total, r->counter);
	pthread_mutex_destroy(&r->pmutex);
	pthread_spin_destroy(&r->pspin);
	free(w);
	free(r);
	return (double)total / dt;
}

/* 1. The uncontended table; the medians into @med. */
static void measure_uncontended(const struct rt_bench_locks_cfg *cfg, FILE *out, double med[])
{
	double un[NR_UN][RT_BENCH_MAX_REPEAT], mn, mx;

	lockdep_set_enabled(false);
	RT_PTHREAD(pthread_spin_init(&u_pspin, PTHREAD_PROCESS_PRIVATE));
	spin_lock_init(&u_spin, LOCK_CLASS_PAGE_TABLE_LOCK);
	init_rwsem(&u_rwsem, LOCK_CLASS_MMAP_SEM);
	sema_init(&u_sem, 1, LOCK_CLASS_I_SHARED_SEM);
	memset(&u_page, 0, sizeof(u_page));
	fprintf(out, "uncontended lock+unlock, %ld iterations x %d repeats, interleaved, lockdep off,"
		" statistics on\n", cfg->iters, cfg->repeat);
	for (int k = 0; k < cfg->repeat; k++)
		for (int i = 0; i < NR_UN; i++)
			un[i][k] = un_cases[i].fn(cfg->iters);
	fprintf(out, "%-24s %10s %10s %10s  %s\n", "primitive", "median ns", "min ns", "max ns",
		"ratio");
	for (int i = 0; i < NR_UN; i++) {
		rt_bench_stats(un[i], cfg->repeat, &med[i], &mn, &mx);
		fprintf(out, "%-24s %10.2f %10.2f %10.2f", un_cases[i].name, med[i], mn, mx);
		if (un_cases[i].baseline) {
			int b = !strcmp(un_cases[i].baseline, "pthread_spin_lock") ? 0 : 1;

			fprintf(out, "  %.2fx %s", med[i] / med[b], un_cases[i].baseline);
		}
		fputc('\n', out);
	}
	pthread_spin_destroy(&u_pspin);
	lockdep_set_enabled(true);
}

/* 2. The contended table; the medians into @med. */
static void measure_contended(const struct rt_bench_locks_cfg *cfg, FILE *out, double med[])
{
	double ct[NR_CT][RT_BENCH_MAX_REPEAT], mn[NR_CT], mx[NR_CT];

	fprintf(out, "\ncontended: %d threads on one lock, %.2f s x %d repeats, interleaved, %d cores\n",
		cfg->threads, cfg->seconds, cfg->repeat, rt_machine_cores());
	for (int k = 0; k < cfg->repeat; k++)
		for (int i = 0; i < NR_CT; i++)
			ct[i][k] = run_contended((enum ct_kind)i, cfg->threads, cfg->seconds);
	fprintf(out, "%-24s %14s %14s %14s  %s\n", "lock", "median ops/s", "min", "max",
		"vs pthread_mutex");
	for (int i = 0; i < NR_CT; i++)
		rt_bench_stats(ct[i], cfg->repeat, &med[i], &mn[i], &mx[i]);
	for (int i = 0; i < NR_CT; i++)
		fprintf(out, "%-24s %14.0f %14.0f %14.0f  %.2fx\n", ct_names[i], med[i], mn[i], mx[i],
			med[i] / med[CT_PMUTEX]);
}

void rt_bench_locks(const struct rt_bench_locks_cfg *cfg, FILE *out, json_t *rec)
{
	double un_med[NR_UN], ct_med[NR_CT];
	json_t *jun = json_object(), *jct = json_object();

	rt_task_attach("bench-main");
	fprintf(out, "rmaptorture bench locks: %s, %d cores (%s)\n", rt_version(),
		rt_machine_cores(), rt_machine_model());
	measure_uncontended(cfg, out, un_med);
	measure_contended(cfg, out, ct_med);

	for (int i = 0; i < NR_UN; i++)
		json_object_set_new(jun, un_cases[i].name, json_real(un_med[i]));
	for (int i = 0; i < NR_CT; i++)
		json_object_set_new(jct, ct_names[i], json_real(ct_med[i]));
	json_object_set_new(rec, "uncontended_ns", jun);
	json_object_set_new(rec, "contended_ops_per_sec", jct);
	json_object_set_new(rec, "threads", json_integer(cfg->threads));
	json_object_set_new(rec, "iterations", json_integer(cfg->iters));
	json_object_set_new(rec, "repeat", json_integer(cfg->repeat));
	json_object_set_new(rec, "spin_lock_vs_pthread_spin", json_real(un_med[2] / un_med[0]));
	json_object_set_new(rec, "contended_spin_lock_vs_pthread_mutex",
			    json_real(ct_med[CT_SPINLOCK] / ct_med[CT_PMUTEX]));
	rt_task_detach();
}
