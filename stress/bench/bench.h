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
	/* 5. disjoint-mm scaling up to this many CPUs; 0: the machine's cores */
	int scaling_max;
	/* Polled between samples: true stops the measurements there (Ctrl-C); may be NULL. */
	bool (*stop)(void);
};

#define RT_BENCH_VM_CFG_DEFAULT {						\
	.pages = 65536, .slots = 4096, .sample_s = 0.2,				\
	.fault_pages = 1024, .fork_small = 1000, .fork_large = 10000,		\
	.bytes_procs = { 10, 50, 100 }, .bytes_file_pages = 1024,		\
}

/*
 * The model's figure against the host kernel's for the same operation,
 * from two rates (operations per second): model rate / host rate (= host
 * time per operation / model time per operation). 7.1 says the model
 * makes 7.1 times as many of the operation per second as the host kernel
 * (issue 27's "fork+exit is 7.1x the host kernel"; its goal: >= 10).
 */
double rt_bench_host_ratio(double model_rate, double host_rate);

/* 5. disjoint-mm scaling: the operations, CPU counts at most. */
#define RT_BENCH_SCALING_OPS 2		/* anonymous fault+unmap, fork+exit */
#define RT_BENCH_MAX_CPUS_LIST 16
/* CPU counts above this are refused (--scaling-max). */
#define RT_BENCH_SCALING_MAX 1024

/* One CPU count of the scaling row: ns per operation per CPU, over the repeats. */
struct rt_bench_scaling_point {
	int cpus;
	double med, mn, mx;	/* NaN when n == 0 */
	int n;
};

enum rt_bench_scaling_verdict {
	RT_SCALING_NA,		/* no samples, or more CPUs than cores */
	RT_SCALING_OK,
	RT_SCALING_FLAG,	/* cost grew beyond the spread of the repeats */
};

/**
 * rt_bench_scaling_verdict() - whether the cost at @p grew beyond the noise
 * @one: the point at one CPU
 * @p: the point at more CPUs
 * @cores: the machine's cores (a point above them is oversubscribed)
 *
 * The cost per operation of CPUs working on disjoint mms must not grow
 * with their number: FLAG when even the cheapest sample at @p costs more
 * than the dearest at one CPU (the ranges of the repeats do not overlap).
 * Return: the verdict; RT_SCALING_NA without samples or above @cores.
 */
enum rt_bench_scaling_verdict rt_bench_scaling_verdict(const struct rt_bench_scaling_point *one,
							const struct rt_bench_scaling_point *p,
							int cores);

/* "ok", "FLAG" or "n/a". */
const char *rt_bench_scaling_verdict_name(enum rt_bench_scaling_verdict v);

/**
 * rt_bench_scaling_flagged() - whether a bench record's scaling row flagged
 * @rec: a `bench` or `bench vm` record
 * @out: one line saying the verdict ("ok", "FLAG", "n/a", or not measured)
 *
 * Return: true when its "scaling" verdict is FLAG (--check-scaling: exit 1).
 */
bool rt_bench_scaling_flagged(const json_t *rec, FILE *out);

/*
 * The CPU counts of the scaling row: 1, 2, 4, ... below @max, and @max;
 * at most RT_BENCH_MAX_CPUS_LIST. Return: how many, into @cpus.
 */
int rt_bench_scaling_cpus(int max, int cpus[RT_BENCH_MAX_CPUS_LIST]);

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
 * @rec: receives designs, modes, skipped and the sizes; "host", the host
 *	kernel's figures, with each design's ratio to them; "scaling", the
 *	disjoint-mm row's CPU counts and verdict
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
