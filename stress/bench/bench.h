/* SPDX-License-Identifier: MIT */
/*
 * The microbenchmarks of `rmaptorture bench`: the emulated locks against
 * pthreads (bench_locks.c) and what each rmap design costs the rest of
 * the VM (bench_vm.c), measured in this process. Each prints its tables
 * to a stream and adds its results to a record (results/record.h); the
 * `bench` command (stress/cli/cmd_bench.c) parses the options, adds the
 * sweeps of child runs and writes the record.
 */
#ifndef RT_STRESS_BENCH_BENCH_H
#define RT_STRESS_BENCH_BENCH_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

/* Samples of one measurement, at most. */
#define RT_BENCH_MAX_REPEAT 64

/* Median, min and max of @n samples (@v is left unsorted); NaN for none. */
void rt_bench_stats(const double *v, int n, double *med, double *mn, double *mx);

/* `bench locks`. */
struct rt_bench_locks_cfg {
	long iters;		/* uncontended iterations per sample */
	int repeat;		/* samples per case, 1..RT_BENCH_MAX_REPEAT */
	int threads;		/* contended threads */
	double seconds;		/* contended run per sample */
};

/**
 * rt_bench_locks() - uncontended cost and contended throughput of the locks
 * @cfg: the sizes
 * @out: the tables go here
 * @rec: receives uncontended_ns, contended_ops_per_sec and the ratios
 *
 * Context: no emulated task attached; attaches and detaches one.
 */
void rt_bench_locks(const struct rt_bench_locks_cfg *cfg, FILE *out, json_t *rec);

/* `bench vm`. */
struct rt_bench_vm_cfg {
	unsigned long pages;		/* mem_init() */
	unsigned long slots;		/* swap_init() */
	double sample_s;		/* target duration of one timed sample */
	unsigned long fault_pages;	/* N of the fault loops */
	unsigned long fork_small, fork_large;
	int bytes_procs[3];
	unsigned long bytes_file_pages;
	/* Polled between samples: true stops the measurements there (Ctrl-C); may be NULL. */
	bool (*stop)(void);
};

#define RT_BENCH_VM_CFG_DEFAULT {						\
	.pages = 65536, .slots = 4096, .sample_s = 0.2,				\
	.fault_pages = 1024, .fork_small = 1000, .fork_large = 10000,		\
	.bytes_procs = { 10, 50, 100 }, .bytes_file_pages = 1024,		\
}

/* --quick: small sizes, short samples. */
void rt_bench_vm_cfg_quick(struct rt_bench_vm_cfg *cfg);

/* The least memory @cfg's measurements run in (the large fork, twice over). */
unsigned long rt_bench_vm_min_pages(const struct rt_bench_vm_cfg *cfg);

/**
 * rt_bench_vm() - the VM cost of every rmap design that is built
 * @cfg: the sizes; @cfg->pages at least rt_bench_vm_min_pages()
 * @repeat: samples per measurement, interleaved across designs
 * @quick: recorded as "quick"
 * @out: the tables go here
 * @rec: receives designs, modes, skipped and the sizes
 *
 * Context: an emulated task is attached; no model is set up. Lockdep is
 * off when it returns. Once @cfg->stop says so, no sample more is taken:
 * the tables and @rec hold those taken ("n" in each spread; a measurement
 * never taken is null).
 * Return: true, or false when reclaim ran or an allocation failed during
 * the samples (the numbers are off: raise @cfg->pages).
 */
bool rt_bench_vm(const struct rt_bench_vm_cfg *cfg, int repeat, bool quick, FILE *out,
		 json_t *rec);

#endif /* RT_STRESS_BENCH_BENCH_H */
