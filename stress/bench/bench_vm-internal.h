/* SPDX-License-Identifier: MIT */
/* Between bench_vm.c (the samples) and bench_vm_print.c (tables, record). */
#ifndef RT_STRESS_BENCH_BENCH_VM_INTERNAL_H
#define RT_STRESS_BENCH_BENCH_VM_INTERNAL_H

#include <stdbool.h>

#include "bench.h"
#include "bench_host-internal.h"
#include "rmap.h"

struct address_space;
struct mm_struct;

/* The timed measurements, one row each, in table order. */
enum {
	R_ANON_FAULT, R_FILE_FAULT,
	R_FORK_SMALL, R_EXIT_SMALL, R_FORK_LARGE, R_EXIT_LARGE,
	R_UNMAP_SH1, R_UNMAP_SH10, R_UNMAP_SH100,
	R_UNMAP_ANON1, R_UNMAP_ANON10, R_UNMAP_ANON100,
	R_UNMAP_V1, R_UNMAP_V10, R_UNMAP_V100, R_UNMAP_V1000,
	NR_ROWS,
};

struct row {
	const char *key;	/* JSON key */
	const char *label;	/* table label */
	void (*fn)(const struct rt_bench_vm_cfg *cfg, long param, double out[2]);
	long param;
	int out_idx;		/* which output of fn */
	bool same_sample;	/* filled by the previous row's sample */
	bool lower_better;
	/* The same operation on the host kernel (bench_host.c), or NULL. */
	void (*host_fn)(const struct rt_bench_vm_cfg *cfg, long param, double out[2]);
};

/* 3. rmap metadata in the Oracle case, of one design at one process count. */
struct bytes_result {
	double per_pte, per_page;
	unsigned long bytes, pte_chain, anon_vma, vma_extra;
};

/* What rt_bench_vm() measured, by row (or process count) and design. */
struct vm_results {
	const struct rt_bench_vm_cfg *cfg;
	const struct row *rows;		/* NR_ROWS, params set from cfg */
	int repeat, nd;
	enum rmap_mode modes[RMAP_NR_MODES];
	double med[NR_ROWS][RMAP_NR_MODES], mn[NR_ROWS][RMAP_NR_MODES], mx[NR_ROWS][RMAP_NR_MODES];
	int n[NR_ROWS][RMAP_NR_MODES];			/* samples taken (< repeat: stopped) */
	struct bytes_result br[3][RMAP_NR_MODES];
	bool br_done[3][RMAP_NR_MODES];
	bool stopped;					/* cfg->stop() said so */
	/* The host kernel's figure of the rows with a host_fn (bench_host.c). */
	double host_med[NR_ROWS], host_mn[NR_ROWS], host_mx[NR_ROWS];
	int host_n[NR_ROWS];
	long host_anon_kb;		/* this process's own anonymous memory at the host forks */
	/* 5. disjoint-mm scaling (bench_scaling.c), per op, design and CPU count */
	int scal_cpus[RT_BENCH_MAX_CPUS_LIST], nscal;
	struct rt_bench_scaling_point scal[RT_BENCH_SCALING_OPS][RMAP_NR_MODES][RT_BENCH_MAX_CPUS_LIST];
	double timer_ns;		/* what rt_now_s() adds to a timed call */
	unsigned long reclaim_scanned, alloc_fail;	/* during the samples */
};

/* The model set up for one sample of @mode and torn down after it (bench_vm.c). */
void bench_env_up(enum rmap_mode mode, const struct rt_bench_vm_cfg *cfg);
void bench_env_down(enum rmap_mode mode, const struct rt_bench_vm_cfg *cfg);
/* rt_mmap(), rt_munmap() and dup_mm() that must succeed (bench_vm.c). */
long bench_mmap_ok(struct mm_struct *mm, struct address_space *f, unsigned long addr,
		   unsigned long pages, unsigned long flags, unsigned long pgoff);
void bench_munmap_ok(struct mm_struct *mm, unsigned long addr, unsigned long pages);
struct mm_struct *bench_fork_or_die(struct mm_struct *parent, long n);

/* 5. the disjoint-mm scaling samples into @res (bench_scaling.c); @stop polled between samples. */
void measure_scaling(struct vm_results *res, bool (*stop)(struct vm_results *res));

/* The tables (bench_vm_print.c). */
void vm_print_tables(const struct vm_results *res, FILE *out);
/* designs, skipped (none), modes and the sizes into @rec (bench_vm_print.c). */
void vm_record(const struct vm_results *res, bool quick, json_t *rec);

#endif /* RT_STRESS_BENCH_BENCH_VM_INTERNAL_H */
