// SPDX-License-Identifier: MIT
/*
 * reclaim-pressure: working set far above memory: swap-out, swap-in and page-cache churn.
 *
 * Race:
 *   reclaim's trylocks and fallbacks against faults on the same pages; swap
 *   cache against swap-in; the aging of mapped file pages against truncate
 *   and the file's death (unlink)
 * Invariant:
 *   swap slot counts = swap ptes + swap cache; every stamp survives swap-
 *   out/in
 * Recalls:
 *   2.6's kswapd under memory pressure on highmem boxes
 */
#include "workload.h"

const struct rt_scenario wl_reclaim_pressure = {
	.name = "reclaim-pressure",
	.summary = "working set far above memory: swap-out, swap-in and page-cache churn",
	.race = "reclaim's trylocks and fallbacks against faults on the same pages; swap cache against swap-in; the aging of mapped file pages against truncate and the file's death (unlink)",
	.invariant = "swap slot counts = swap ptes + swap cache; every stamp survives swap-out/in",
	.recalls = "2.6's kswapd under memory pressure on highmem boxes",
	.default_threads = 16,
	.default_reclaim_threads = 4,
	.weights = {
		[WL_READ] = 40,
		[WL_WRITE] = 45,
		[WL_MMAP_ANON] = 4,
		[WL_MUNMAP] = 4,
		[WL_MMAP_SHARED] = 2,
		[WL_FORK] = 1,
		[WL_EXIT] = 1,
		[WL_STACK] = 3,
		[WL_GUP] = 2,
		[WL_SWAPOFF] = 1,
		[WL_TRUNCATE] = 2,
		[WL_UNLINK] = 1,
	},
	.params = {
		.pages = 1024,
		.swap_slots = 16384,
		.procs_initial = 8,
		.procs_max = 12,
		.nr_libs = 1,
		.lib_pages = 8,
		.nr_files = 1,
		.file_pages = 256,
		.map_pages_max = 64,
		.heap_pages = 256,
		.stack_pages = 4,
		.max_vmas = 48,
		.shm_pages = 128,
		.vmas_per_proc = 0,
	},
};
