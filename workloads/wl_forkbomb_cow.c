// SPDX-License-Identifier: MIT
/*
 * forkbomb-cow: fork storms over written anonymous memory: copy-on-write everywhere.
 *
 * Race:
 *   copy_page_range write-protecting ptes under both page_table_locks
 *   against faults and reclaim; do_wp_page's reuse test against swap-in
 * Invariant:
 *   each process reads back its own stamps across COW, swap-out/in and its
 *   parent's exit
 * Recalls:
 *   fork publishing a child's ptes before the child is findable by rmap
 *   (seed 002's anon_vma linking order)
 */
#include "workload.h"

const struct rt_scenario wl_forkbomb_cow = {
	.name = "forkbomb-cow",
	.summary = "fork storms over written anonymous memory: copy-on-write everywhere",
	.race = "copy_page_range write-protecting ptes under both page_table_locks against faults and reclaim; do_wp_page's reuse test against swap-in",
	.invariant = "each process reads back its own stamps across COW, swap-out/in and its parent's exit",
	.recalls = "fork publishing a child's ptes before the child is findable by rmap (seed 002's anon_vma linking order)",
	.default_threads = 32,
	.default_reclaim_threads = 2,
	.weights = {
		[WL_READ] = 20,
		[WL_WRITE] = 40,
		[WL_MMAP_ANON] = 2,
		[WL_FORK] = 18,
		[WL_EXIT] = 16,
		[WL_STACK] = 2,
	},
	.params = {
		.pages = 4096,
		.swap_slots = 8192,
		.procs_initial = 2,
		.procs_max = 48,
		.nr_libs = 1,
		.lib_pages = 8,
		.nr_files = 0,
		.file_pages = 0,
		.map_pages_max = 16,
		.heap_pages = 32,
		.stack_pages = 4,
		.max_vmas = 32,
		.shm_pages = 0,
		.vmas_per_proc = 0,
	},
};
