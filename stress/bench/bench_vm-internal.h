/* SPDX-License-Identifier: MIT */
/* Between bench_vm.c (the samples) and bench_vm_print.c (tables, record). */
#ifndef RT_STRESS_BENCH_BENCH_VM_INTERNAL_H
#define RT_STRESS_BENCH_BENCH_VM_INTERNAL_H

#include <stdbool.h>

#include "bench.h"
#include "rmap.h"

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
	double timer_ns;		/* what rt_now_s() adds to a timed call */
	unsigned long reclaim_scanned, alloc_fail;	/* during the samples */
};

/* The tables (bench_vm_print.c). */
void vm_print_tables(const struct vm_results *res, FILE *out);
/* designs, skipped (none), modes and the sizes into @rec (bench_vm_print.c). */
void vm_record(const struct vm_results *res, bool quick, json_t *rec);

#endif /* RT_STRESS_BENCH_BENCH_VM_INTERNAL_H */
