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
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "die.h"
#include "lockdep.h"
#include "page.h"
#include "record.h"
#include "rt_cmd.h"
#include "rt_opt.h"
#include "rwsem.h"
#include "semaphore.h"
#include "spinlock.h"
#include "task.h"
#include "rt_time.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

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

static void usage(FILE *f)
{
	fputs("usage: rmaptorture bench locks [OPTIONS]\n"
	      "\n"
	      "Uncontended lock+unlock cost of each emulated lock next to pthread_spin_lock\n"
	      "and pthread_mutex_lock (statistics on, lockdep off), and the contended\n"
	      "throughput of spin_lock next to pthread_mutex_lock with many threads.\n"
	      "\n"
	      "  -n, --iterations N  uncontended iterations per sample (default 10M)\n"
	      "  -r, --repeat K      samples per case, interleaved; median reported (default 5)\n"
	      "  -t, --threads N     contended threads, 1..1024 (default 32)\n"
	      "  -s, --seconds S     contended run per sample (default 1)\n"
	      "      --quick         1M iterations, 3 repeats, 0.3 s samples\n"
	      "      --json FILE     write the result record to FILE ('-' for stdout)\n"
	      "  -h, --help          this text\n", f);
}

static int bench_locks(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "iterations", required_argument, NULL, 'n' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 't' },
		{ "seconds", required_argument, NULL, 's' },
		{ "quick", no_argument, NULL, 'q' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long iters = 10000000;
	int repeat = 5, threads = 32, c;
	double seconds = 1;
	const char *json_path = NULL;
	double un[NR_UN][64], un_med[NR_UN], ct[NR_CT][64], ct_med[NR_CT];
	json_t *rec, *jun, *jct;
	int rc = RT_EXIT_OK;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "n:r:t:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n': iters = (long)rt_opt_int("--iterations", optarg, 1000, 10000000000LL); break;
		case 'r': repeat = (int)rt_opt_int("--repeat", optarg, 1, 64); break;
		case 't': threads = (int)rt_opt_int("--threads", optarg, 1, 1024); break;
		case 's': seconds = rt_opt_seconds("--seconds", optarg, 0, 3600); break;
		case 'q': iters = 1000000; repeat = 3; seconds = 0.3; break;
		case 'j': json_path = optarg; break;
		case 'h': usage(stdout); return RT_EXIT_OK;
		default: rt_opt_bad("bench locks", optopt, argv[optind - 1]);
		}
	}
	if (optind < argc)
		rt_usage_error("bench locks: unexpected argument '%s'", argv[optind]);

	rt_task_attach("bench-main");
	lockdep_set_enabled(false);
	RT_PTHREAD(pthread_spin_init(&u_pspin, PTHREAD_PROCESS_PRIVATE));
	spin_lock_init(&u_spin, LOCK_CLASS_PAGE_TABLE_LOCK);
	init_rwsem(&u_rwsem, LOCK_CLASS_MMAP_SEM);
	sema_init(&u_sem, 1, LOCK_CLASS_I_SHARED_SEM);
	memset(&u_page, 0, sizeof(u_page));

	printf("rmaptorture bench locks: %s, %d cores (%s)\n", rt_version(),
	       rt_machine_cores(), rt_machine_model());
	printf("uncontended lock+unlock, %ld iterations x %d repeats, interleaved, lockdep off, statistics on\n",
	       iters, repeat);
	for (int k = 0; k < repeat; k++)
		for (int i = 0; i < NR_UN; i++)
			un[i][k] = un_cases[i].fn(iters);
	printf("%-24s %10s %10s %10s  %s\n", "primitive", "median ns", "min ns", "max ns", "ratio");
	for (int i = 0; i < NR_UN; i++) {
		double mn = un[i][0], mx = un[i][0];

		for (int k = 1; k < repeat; k++) {
			mn = un[i][k] < mn ? un[i][k] : mn;
			mx = un[i][k] > mx ? un[i][k] : mx;
		}
		un_med[i] = median(un[i], repeat);
		printf("%-24s %10.2f %10.2f %10.2f", un_cases[i].name, un_med[i], mn, mx);
		if (un_cases[i].baseline) {
			int b = !strcmp(un_cases[i].baseline, "pthread_spin_lock") ? 0 : 1;

			printf("  %.2fx %s", un_med[i] / un_med[b], un_cases[i].baseline);
		}
		putchar('\n');
	}

	lockdep_set_enabled(true);
	printf("\ncontended: %d threads on one lock, %.2f s x %d repeats, interleaved, %d cores\n",
	       threads, seconds, repeat, rt_machine_cores());
	for (int k = 0; k < repeat; k++)
		for (int i = 0; i < NR_CT; i++)
			ct[i][k] = run_contended((enum ct_kind)i, threads, seconds);
	printf("%-24s %14s %14s %14s  %s\n", "lock", "median ops/s", "min", "max", "vs pthread_mutex");
	{
		double tmp[64];

		memcpy(tmp, ct[CT_PMUTEX], sizeof(double) * (size_t)repeat);
		ct_med[CT_PMUTEX] = median(tmp, repeat);
	}
	for (int i = 0; i < NR_CT; i++) {
		double mn = ct[i][0], mx = ct[i][0];

		for (int k = 1; k < repeat; k++) {
			mn = ct[i][k] < mn ? ct[i][k] : mn;
			mx = ct[i][k] > mx ? ct[i][k] : mx;
		}
		ct_med[i] = median(ct[i], repeat);
		printf("%-24s %14.0f %14.0f %14.0f  %.2fx\n", ct_names[i], ct_med[i], mn, mx,
		       ct_med[i] / ct_med[CT_PMUTEX]);
	}

	rec = rt_record_new("bench-locks");
	jun = json_object();
	for (int i = 0; i < NR_UN; i++)
		json_object_set_new(jun, un_cases[i].name, json_real(un_med[i]));
	jct = json_object();
	for (int i = 0; i < NR_CT; i++)
		json_object_set_new(jct, ct_names[i], json_real(ct_med[i]));
	json_object_set_new(rec, "uncontended_ns", jun);
	json_object_set_new(rec, "contended_ops_per_sec", jct);
	json_object_set_new(rec, "threads", json_integer(threads));
	json_object_set_new(rec, "iterations", json_integer(iters));
	json_object_set_new(rec, "repeat", json_integer(repeat));
	json_object_set_new(rec, "spin_lock_vs_pthread_spin",
			    json_real(un_med[2] / un_med[0]));
	json_object_set_new(rec, "contended_spin_lock_vs_pthread_mutex",
			    json_real(ct_med[CT_SPINLOCK] / ct_med[CT_PMUTEX]));
	if (json_path && rt_record_write(rec, json_path))
		rc = RT_EXIT_INTERNAL;
	json_decref(rec);
	pthread_spin_destroy(&u_pspin);
	rt_task_detach();
	return rc;
}

int cmd_bench(int argc, char **argv)
{
	/* No part named: every part (bench_vm.c), and its own --help. */
	if (argc < 2 || argv[1][0] == '-')
		return bench_all(argc, argv);
	if (!strcmp(argv[1], "locks"))
		return bench_locks(argc - 1, argv + 1);
	if (!strcmp(argv[1], "vm"))
		return bench_vm(argc - 1, argv + 1);
	rt_usage_error("bench: unknown benchmark '%s' (known: locks, vm)", argv[1]);
}
