// SPDX-License-Identifier: MIT
/*
 * 5. Disjoint-mm scaling: one operation on N emulated CPUs (threads
 * attached as tasks), each CPU in an mm of its own, for N = 1, 2, 4, ...
 * up to the machine's cores. CPUs that share no mm share no mm, vma or
 * page table; what they do share, the zone (free lists, LRU) and the slab
 * caches, 2.6 made per-CPU or batched: if their cost per operation grows
 * with N, a harness or model write to a shared cache line is on the
 * operation's path. The
 * verdict (rt_bench_scaling_verdict()) flags a growth beyond the spread
 * of the repeats; `bench --check-scaling` exits 1 on it.
 *
 * The operations: an anonymous fault+unmap loop (mmap N pages, write
 * each, munmap: the cost is per fault) and fork+exit of a process with
 * the fork row's small number of written pages (dup_mm + mmput), which
 * allocate and free pages: the zone's free list and zone->lock, and
 * lru_lock, are shared in 2.6 too, batched by the per-CPU lists. And two
 * that share nothing by design, so that any growth is a shared line of
 * the harness or the model: mmap+munmap of an untouched vma (the vma
 * slab's per-CPU arrays, mmap_sem, lockdep, statistics, the flight
 * recorder), and a write to a page already mapped (the emulated TLB, the
 * access's shadow bookkeeping).
 *
 * Each CPU's cost is its own thread's CPU time per operation: on a
 * machine shared with other work, a preemption stretches the wall time
 * of N = cores but not the CPU time, while a line another CPU writes
 * costs cycles either way. Both are kept; the verdict reads CPU time.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "bench_vm-internal.h"
#include "die.h"
#include "record.h"
#include "rt_time.h"
#include "task.h"
#include "vm_fixture.h"

const struct rt_bench_scaling_op rt_bench_scaling_ops[RT_BENCH_SCALING_OPS] = {
	{ "anon_fault_ns", "anon fault+unmap", "the zone's free list, zone->lock, lru_lock" },
	{ "fork_exit_ns", "fork+exit", "the zone's free list, zone->lock, lru_lock, mmlist_lock" },
	{ "mmap_munmap_ns", "mmap+munmap", NULL },
	{ "touch_ns", "write, mapped", NULL },
};

/* Pages of the mapped vma that operation 3 writes, once each per operation. */
#define TOUCH_PAGES	64

enum rt_bench_scaling_verdict rt_bench_scaling_verdict(const struct rt_bench_scaling_point *one,
							const struct rt_bench_scaling_point *p,
							int cores)
{
	if (!one->n || !p->n || p->cpus > cores || !isfinite(p->mn) || !isfinite(one->mx))
		return RT_SCALING_NA;
	/* Its CPUs did not run side by side: no line went between them. */
	if (rt_bench_scaling_parallelism(p) < RT_BENCH_SCALING_MIN_PARALLEL * p->cpus)
		return RT_SCALING_NA;
	return p->mn > one->mx * (1 + RT_BENCH_SCALING_MARGIN) ? RT_SCALING_FLAG : RT_SCALING_OK;
}

double rt_bench_scaling_parallelism(const struct rt_bench_scaling_point *p)
{
	/* Both costs are per operation: CPU time over wall time, times the CPUs. */
	if (!p->n || !(p->wall_med > 0) || !isfinite(p->med))
		return NAN;
	return p->cpus * p->med / p->wall_med;
}

const char *rt_bench_scaling_verdict_name(enum rt_bench_scaling_verdict v)
{
	return v == RT_SCALING_FLAG ? "FLAG" : v == RT_SCALING_OK ? "ok" : "n/a";
}

int rt_bench_scaling_cpus(int max, int cpus[RT_BENCH_MAX_CPUS_LIST])
{
	int n = 0;

	for (int c = 1; c < max && n < RT_BENCH_MAX_CPUS_LIST - 1; c *= 2)
		cpus[n++] = c;
	cpus[n++] = max < 1 ? 1 : max;
	return n;
}

static void barrier_wait(pthread_barrier_t *b)
{
	int r = pthread_barrier_wait(b);

	if (r && r != PTHREAD_BARRIER_SERIAL_THREAD)
		rt_die("pthread_barrier_wait: %s", rt_strerror(r));
}

/* One sample: @nr CPUs doing op @op until @stop. */
struct scal_sample {
	const struct rt_bench_vm_cfg *cfg;
	int op;
	pthread_barrier_t start;
	atomic_bool stop;
};

struct scal_cpu {
	pthread_t th;
	struct scal_sample *s;
	double busy_s;			/* from the start to the end of its last operation */
	double cpu_s;			/* its thread's CPU time meanwhile */
	unsigned long ops;
};

/* Operation 0: mmap @n pages, write each, munmap; @n faults. */
static unsigned long op_faults(struct mm_struct *mm, long n)
{
	long a = bench_mmap_ok(mm, NULL, 0, (unsigned long)n, VM_READ | VM_WRITE, 0);

	for (long i = 0; i < n; i++)
		rt_touch(mm, (unsigned long)a + (unsigned long)i * PAGE_SIZE, true);
	bench_munmap_ok(mm, (unsigned long)a, (unsigned long)n);
	return (unsigned long)n;
}

/* Operation 1: fork+exit of @mm, which has @n written pages. */
static unsigned long op_fork_exit(struct mm_struct *mm, long n)
{
	mmput(bench_fork_or_die(mm, n));
	return 1;
}

/* Operation 2: mmap and munmap @n pages, none touched. */
static unsigned long op_mmap_munmap(struct mm_struct *mm, long n)
{
	long a = bench_mmap_ok(mm, NULL, 0, (unsigned long)n, VM_READ | VM_WRITE, 0);

	bench_munmap_ok(mm, (unsigned long)a, (unsigned long)n);
	return 1;
}

/* Operation 3: write each of the TOUCH_PAGES mapped pages at @a once. */
static unsigned long op_touch(struct mm_struct *mm, unsigned long a)
{
	for (unsigned long i = 0; i < TOUCH_PAGES; i++)
		rt_touch(mm, a + i * PAGE_SIZE, true);
	return TOUCH_PAGES;
}

/* One operation @op of @mm (@a: operation 3's mapped vma); the operations it counts. */
static unsigned long do_op(const struct rt_bench_vm_cfg *cfg, int op, struct mm_struct *mm,
			   unsigned long a)
{
	switch (op) {
	case 0: return op_faults(mm, (long)cfg->fault_pages);
	case 1: return op_fork_exit(mm, (long)cfg->fork_small);
	case 2: return op_mmap_munmap(mm, 16);
	default: return op_touch(mm, a);
	}
}

static double thread_cpu_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		rt_die("clock_gettime(CLOCK_THREAD_CPUTIME_ID): %s", rt_strerror(errno));
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *scal_cpu_main(void *arg)
{
	struct scal_cpu *c = arg;
	const struct rt_bench_vm_cfg *cfg = c->s->cfg;
	struct mm_struct *mm;
	unsigned long a = 0, pages = c->s->op == 1 ? cfg->fork_small : c->s->op == 3 ? TOUCH_PAGES : 0;
	double t0, t, c0;

	rt_task_attach("bench-cpu");
	mm = mm_alloc();
	if (pages) {
		a = (unsigned long)bench_mmap_ok(mm, NULL, 0, pages, VM_READ | VM_WRITE, 0);
		for (unsigned long i = 0; i < pages; i++)
			rt_touch(mm, a + i * PAGE_SIZE, true);
	}
	/* A warm-up operation, untimed. */
	(void)do_op(cfg, c->s->op, mm, a);
	barrier_wait(&c->s->start);
	t0 = rt_now_s();
	c0 = thread_cpu_s();
	/* One operation at least, however late this CPU got to run. */
	do {
		c->ops += do_op(cfg, c->s->op, mm, a);
		t = rt_now_s();
		/* Pairs with the release store of run_sample(). */
	} while (!atomic_load_explicit(&c->s->stop, memory_order_acquire));
	c->busy_s = t - t0;
	c->cpu_s = thread_cpu_s() - c0;
	mmput(mm);
	rt_task_detach();
	return NULL;
}

/*
 * ns per operation per CPU of @nr CPUs doing @op for one sample (each does
 * one at least): CPU time, and wall time into @wall.
 */
static double run_sample(const struct rt_bench_vm_cfg *cfg, int op, int nr, double *wall)
{
	struct scal_sample s = { .cfg = cfg, .op = op };
	struct scal_cpu *cpus = rt_calloc((size_t)nr, sizeof(*cpus));
	struct timespec ts = { (time_t)cfg->sample_s,
			       (long)((cfg->sample_s - (double)(time_t)cfg->sample_s) * 1e9) };
	double busy = 0, cpu = 0;
	unsigned long ops = 0;

	atomic_init(&s.stop, false);
	RT_PTHREAD(pthread_barrier_init(&s.start, NULL, (unsigned)nr + 1));
	for (int i = 0; i < nr; i++) {
		cpus[i].s = &s;
		RT_PTHREAD(pthread_create(&cpus[i].th, NULL, scal_cpu_main, &cpus[i]));
	}
	barrier_wait(&s.start);
	while (nanosleep(&ts, &ts))
		;
	/* Pairs with the acquire loads of scal_cpu_main(). */
	atomic_store_explicit(&s.stop, true, memory_order_release);
	for (int i = 0; i < nr; i++) {
		RT_PTHREAD(pthread_join(cpus[i].th, NULL));
		busy += cpus[i].busy_s;
		cpu += cpus[i].cpu_s;
		ops += cpus[i].ops;
	}
	RT_PTHREAD(pthread_barrier_destroy(&s.start));
	free(cpus);
	*wall = ops ? busy * 1e9 / (double)ops : NAN;
	return ops ? cpu * 1e9 / (double)ops : NAN;
}

/* Memory for @nr CPUs of either operation, at least @cfg's. */
static unsigned long scaling_pages(const struct rt_bench_vm_cfg *cfg, int nr)
{
	unsigned long per_cpu = 4 * (cfg->fork_small > cfg->fault_pages ? cfg->fork_small :
				     cfg->fault_pages);
	unsigned long need = (unsigned long)nr * per_cpu + 4096;

	return need > cfg->pages ? need : cfg->pages;
}

void measure_scaling(struct vm_results *res, bool (*stop)(struct vm_results *res))
{
	static double val[RT_BENCH_SCALING_OPS][RMAP_NR_MODES][RT_BENCH_MAX_CPUS_LIST]
			 [RT_BENCH_MAX_REPEAT];
	static double wall[RT_BENCH_SCALING_OPS][RMAP_NR_MODES][RT_BENCH_MAX_CPUS_LIST]
			  [RT_BENCH_MAX_REPEAT];
	struct rt_bench_vm_cfg cfg = *res->cfg;
	int nc, nd = res->nd;

	nc = res->nscal = rt_bench_scaling_cpus(cfg.scaling_max > 0 ? cfg.scaling_max :
						rt_machine_cores(), res->scal_cpus);
	cfg.pages = scaling_pages(&cfg, res->scal_cpus[nc - 1]);
	for (int op = 0; op < RT_BENCH_SCALING_OPS; op++)
		for (int k = 0; k < res->repeat; k++)
			for (int d = 0; d < nd; d++)
				for (int i = 0; i < nc && !stop(res); i++) {
					/* 1, 2, 4 then 4, 2, 1: no CPU count always runs first. */
					int c = k % 2 ? nc - 1 - i : i;
					struct rt_bench_scaling_point *p = &res->scal[op][d][c];
					double v, w;

					bench_env_up(res->modes[d], &cfg);
					v = run_sample(&cfg, op, res->scal_cpus[c], &w);
					bench_env_down(res->modes[d], &cfg);
					if (isfinite(v)) {
						wall[op][d][c][p->n] = w;
						val[op][d][c][p->n++] = v;
					}
				}
	for (int op = 0; op < RT_BENCH_SCALING_OPS; op++)
		for (int d = 0; d < nd; d++)
			for (int c = 0; c < nc; c++) {
				struct rt_bench_scaling_point *p = &res->scal[op][d][c];

				p->cpus = res->scal_cpus[c];
				rt_bench_stats(val[op][d][c], p->n, &p->med, &p->mn, &p->mx);
				rt_bench_stats(wall[op][d][c], p->n, &p->wall_med, &p->wall_mn,
					       &p->wall_mx);
			}
}
