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

/*
 * The machine's cost of moving one cache line between CPUs @a and @b (two
 * pinned threads passing a token; bench_transfer.c), ns per one-way
 * transfer, the best of short batches within a quarter second; -1 when
 * the threads could not be pinned or the partner never ran undisturbed.
 * What every line two CPUs write costs, and what --sched vtime leaves out.
 */
double rt_bench_transfer_ns(int a, int b);
/*
 * The first allowed CPU against its neighbour, the middle and the last
 * allowed one: {"pairs": [{"cpus": [a, b], "ns": x or null}], "min_ns",
 * "max_ns"}; NULL with fewer than two allowed CPUs.
 */
json_t *rt_bench_transfer_probe(void);

/*
 * 5. disjoint-mm scaling: the operations (anonymous fault+unmap, fork+exit,
 * mmap+munmap of an untouched vma, a write to a mapped page), CPU counts
 * at most.
 */
#define RT_BENCH_SCALING_OPS 4
#define RT_BENCH_MAX_CPUS_LIST 16
/* CPU counts above this are refused (--scaling-max). */
#define RT_BENCH_SCALING_MAX 1024

/* Each operation's record key, its label, and what it shares by design. */
struct rt_bench_scaling_op {
	const char *key;	/* "anon_fault_ns" */
	const char *label;	/* "anon fault+unmap" */
	/*
	 * What CPUs on disjoint mms share on this path in 2.6 too (the zone's
	 * free list and zone->lock, lru_lock), or NULL: nothing, so a growth
	 * is the harness's or the model's own shared line.
	 */
	const char *shares;
};
extern const struct rt_bench_scaling_op rt_bench_scaling_ops[RT_BENCH_SCALING_OPS];

/*
 * One CPU count of the scaling row over the repeats: CPU ns per operation
 * per CPU (the thread's own CPU time: a line other CPUs write costs it
 * cycles; a preemption by another process costs it none), and the wall ns.
 */
struct rt_bench_scaling_point {
	int cpus;
	double med, mn, mx;	/* CPU ns; NaN when n == 0 */
	int n;
	double wall_med, wall_mn, wall_mx;
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
 * than the dearest at one CPU (the ranges of the repeats do not overlap)
 * by RT_BENCH_SCALING_MARGIN, in CPU time (@p->mn, @one->mx). Only where the CPUs ran side by side
 * (rt_bench_scaling_parallelism() at least RT_BENCH_SCALING_MIN_PARALLEL
 * of them): on a machine busy with other work they take turns, and a
 * line none writes while another reads costs nothing to measure.
 * Return: the verdict; RT_SCALING_NA without samples, above @cores, or
 * when the CPUs did not run side by side.
 */
enum rt_bench_scaling_verdict rt_bench_scaling_verdict(const struct rt_bench_scaling_point *one,
							const struct rt_bench_scaling_point *p,
							int cores);

/*
 * The growth beyond the spread a point may show: two busy cores share
 * caches and memory bandwidth (mmap+munmap grows 3-8% at N=2 on the
 * 2-core machine), while a line written on every operation costs far more
 * (a shared atomic counter in mm_access() made a write 53 -> 175 ns).
 */
#define RT_BENCH_SCALING_MARGIN 0.15

/* The share of @p's CPUs that ran at a time below which a point has no verdict. */
#define RT_BENCH_SCALING_MIN_PARALLEL 0.75

/*
 * How many of @p's CPUs ran at a time, on average: its CPUs times its CPU
 * cost over its wall cost (@p->cpus when none was ever preempted). NaN
 * without samples.
 */
double rt_bench_scaling_parallelism(const struct rt_bench_scaling_point *p);

/* "ok", "FLAG" or "n/a". */
const char *rt_bench_scaling_verdict_name(enum rt_bench_scaling_verdict v);

/**
 * rt_bench_scaling_flagged() - whether a bench record's scaling row flagged
 * @rec: a `bench` or `bench vm` record
 * @out: one line saying the verdict ("ok", "FLAG", "n/a", or not measured)
 *
 * The verdict counts the operations that share nothing by design
 * (rt_bench_scaling_ops[].shares NULL); the others' FLAGs are named.
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
