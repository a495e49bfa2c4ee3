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
 * the fork row's small number of written pages (dup_mm + mmput).
 */
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

enum rt_bench_scaling_verdict rt_bench_scaling_verdict(const struct rt_bench_scaling_point *one,
							const struct rt_bench_scaling_point *p,
							int cores)
{
	if (!one->n || !p->n || p->cpus > cores || !isfinite(p->mn) || !isfinite(one->mx))
		return RT_SCALING_NA;
	return p->mn > one->mx ? RT_SCALING_FLAG : RT_SCALING_OK;
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

static void *scal_cpu_main(void *arg)
{
	struct scal_cpu *c = arg;
	const struct rt_bench_vm_cfg *cfg = c->s->cfg;
	struct mm_struct *mm;
	double t0, t;

	rt_task_attach("bench-cpu");
	mm = mm_alloc();
	if (c->s->op == 1) {
		long a = bench_mmap_ok(mm, NULL, 0, cfg->fork_small, VM_READ | VM_WRITE, 0);

		for (unsigned long i = 0; i < cfg->fork_small; i++)
			rt_touch(mm, (unsigned long)a + i * PAGE_SIZE, true);
	}
	/* A warm-up operation, untimed. */
	(void)(c->s->op ? op_fork_exit(mm, (long)cfg->fork_small) : op_faults(mm, (long)cfg->fault_pages));
	barrier_wait(&c->s->start);
	t0 = rt_now_s();
	/* One operation at least, however late this CPU got to run. */
	do {
		c->ops += c->s->op ? op_fork_exit(mm, (long)cfg->fork_small) :
				     op_faults(mm, (long)cfg->fault_pages);
		t = rt_now_s();
		/* Pairs with the release store of run_sample(). */
	} while (!atomic_load_explicit(&c->s->stop, memory_order_acquire));
	c->busy_s = t - t0;
	mmput(mm);
	rt_task_detach();
	return NULL;
}

/* ns per operation per CPU of @nr CPUs doing @op for one sample (each does one at least). */
static double run_sample(const struct rt_bench_vm_cfg *cfg, int op, int nr)
{
	struct scal_sample s = { .cfg = cfg, .op = op };
	struct scal_cpu *cpus = rt_calloc((size_t)nr, sizeof(*cpus));
	struct timespec ts = { (time_t)cfg->sample_s,
			       (long)((cfg->sample_s - (double)(time_t)cfg->sample_s) * 1e9) };
	double busy = 0;
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
		ops += cpus[i].ops;
	}
	RT_PTHREAD(pthread_barrier_destroy(&s.start));
	free(cpus);
	return ops ? busy * 1e9 / (double)ops : NAN;
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
					double v;

					bench_env_up(res->modes[d], &cfg);
					v = run_sample(&cfg, op, res->scal_cpus[c]);
					bench_env_down(res->modes[d], &cfg);
					if (isfinite(v))
						val[op][d][c][p->n++] = v;
				}
	for (int op = 0; op < RT_BENCH_SCALING_OPS; op++)
		for (int d = 0; d < nd; d++)
			for (int c = 0; c < nc; c++) {
				struct rt_bench_scaling_point *p = &res->scal[op][d][c];

				p->cpus = res->scal_cpus[c];
				rt_bench_stats(val[op][d][c], p->n, &p->med, &p->mn, &p->mx);
			}
}
